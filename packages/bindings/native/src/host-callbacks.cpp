// Host functions enqueued on a stream (cuLaunchHostFunc, cuStreamAddCallback)
// call a JS function on the main thread: the driver's thread only queues the
// call through a thread-safe function and returns at once.
#include "codecs.h"

namespace cjs {
namespace {

struct StreamCallbackData {
  CUstream stream;
  CUresult status;
};

void hostFnTrampoline(void* userData) {
  auto tsfn = static_cast<napi_threadsafe_function>(userData);
  napi_call_threadsafe_function(tsfn, nullptr, napi_tsfn_nonblocking);
  napi_release_threadsafe_function(tsfn, napi_tsfn_release);
}

void streamCallbackTrampoline(CUstream stream, CUresult status, void* userData) {
  auto tsfn = static_cast<napi_threadsafe_function>(userData);
  napi_call_threadsafe_function(tsfn, new StreamCallbackData{stream, status}, napi_tsfn_nonblocking);
  napi_release_threadsafe_function(tsfn, napi_tsfn_release);
}

void callStreamCallback(napi_env env, napi_value jsFn, void*, void* data) {
  std::unique_ptr<StreamCallbackData> d(static_cast<StreamCallbackData*>(data));
  if (!env || !jsFn) return;
  napi_value args[2], undefined, ignored;
  napi_create_bigint_uint64(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(d->stream)), &args[0]);
  napi_create_int32(env, static_cast<int32_t>(d->status), &args[1]);
  napi_get_undefined(env, &undefined);
  napi_call_function(env, undefined, jsFn, 2, args, &ignored);
}

napi_threadsafe_function makeTsfn(Call& c, const Napi::Value& fn, const char* name, napi_threadsafe_function_call_js callJs) {
  if (!fn.IsFunction()) c.typeError("parameter 'callback'", "a function", fn);
  napi_value resourceName;
  napi_create_string_utf8(c.env, name, NAPI_AUTO_LENGTH, &resourceName);
  napi_threadsafe_function tsfn;
  napi_status s = napi_create_threadsafe_function(c.env, fn, nullptr, resourceName, 0, 1, nullptr, nullptr, nullptr, callJs, &tsfn);
  if (s != napi_ok) throw Napi::Error::New(c.env, std::string(c.fn) + ": could not create a thread-safe function");
  return tsfn;
}

Napi::Value launchHostFunc(const Napi::CallbackInfo& info) {
  Call c(info, "cuLaunchHostFunc");
  c.argCount(2, 2);
  CUstream stream = inHandle<CUstream>(c, 0, "hStream");
  using F = decltype(&cuLaunchHostFunc);
  static std::atomic<F> fpSlot{nullptr};
  // resolved before the thread-safe function exists, so that a failure here leaks nothing
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuLaunchHostFunc", 10000, 10000); });
  napi_threadsafe_function tsfn = makeTsfn(c, info[1], "cuLaunchHostFunc", nullptr);
  CUresult r = fp(stream, hostFnTrampoline, tsfn);
  if (r != CUDA_SUCCESS) {
    napi_release_threadsafe_function(tsfn, napi_tsfn_abort);
    checkCu(c, r);
  }
  return c.env.Undefined();
}

Napi::Value streamAddCallback(const Napi::CallbackInfo& info) {
  Call c(info, "cuStreamAddCallback");
  c.argCount(2, 3);
  CUstream stream = inHandle<CUstream>(c, 0, "hStream");
  unsigned int flags = info.Length() > 2 ? inNum<unsigned int>(c, 2, "flags") : 0;
  using F = decltype(&cuStreamAddCallback);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuStreamAddCallback", 5000, 7000); });
  napi_threadsafe_function tsfn = makeTsfn(c, info[1], "cuStreamAddCallback", callStreamCallback);
  CUresult r = fp(stream, streamCallbackTrampoline, tsfn, flags);
  if (r != CUDA_SUCCESS) {
    napi_release_threadsafe_function(tsfn, napi_tsfn_abort);
    checkCu(c, r);
  }
  return c.env.Undefined();
}

}  // namespace

void registerHostCallbacks(Napi::Env env, Napi::Object driver) {
  driver.Set("cuLaunchHostFunc", Napi::Function::New(env, launchHostFunc, "cuLaunchHostFunc"));
  driver.Set("cuStreamAddCallback", Napi::Function::New(env, streamAddCallback, "cuStreamAddCallback"));
}

}  // namespace cjs
