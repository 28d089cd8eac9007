// Host functions enqueued on a stream (cuLaunchHostFunc, cuStreamAddCallback)
// call a JS function on the main thread: the driver's thread only queues the
// call through a thread-safe function and returns at once.
//
// launchBlockingHostFunc keeps cuLaunchHostFunc's own rule instead: the
// stream's later work waits until the JS function has returned. The driver's
// thread queues the call and waits for it; the call is marked done after the
// JS function ran (an exception it throws becomes the environment's
// 'uncaughtException', never lost), when its environment is torn down (the
// queue is drained without JS), or when the process exits, so that a stream is
// never left waiting for JS that can no longer run.
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <unordered_set>

#include "codecs.h"
#include "graph-host-functions.h"

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
  // bad input is named before the driver is looked for
  if (!info[1].IsFunction()) c.typeError("parameter 'callback'", "a function", info[1]);
  using F = decltype(&cuLaunchHostFunc);
  static std::atomic<F> fpSlot{nullptr};
  // resolved before the thread-safe function exists, so that a failure here leaks nothing
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuLaunchHostFunc", 10000, 10000); });
  // on a stream that is being captured, a host function for every launch of the graph
  if (launchCapturedHostFunc(c, stream, info[1], fp)) return c.env.Undefined();
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

// ------------------------------------------------------------------ blocking host functions
struct BlockingCall {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;
  napi_threadsafe_function tsfn = nullptr;
  /** The environment's cleanup hook for this call (its argument), while registered; the JS thread's only. */
  void* teardownHook = nullptr;

  void finish() {
    std::lock_guard<std::mutex> lock(m);
    done = true;
    cv.notify_all();
  }
};

using CallRef = std::shared_ptr<BlockingCall>;

/** The calls whose driver thread waits, process-wide, so that exit can release them all. */
struct Waiters {
  std::mutex m;
  std::unordered_set<BlockingCall*> live;
  bool exiting = false;
};

Waiters& waiters() {
  static Waiters* w = new Waiters();  // leaked: driver threads may still use it during exit
  return *w;
}

void releaseWaitersAtExit() {
  std::lock_guard<std::mutex> lock(waiters().m);
  waiters().exiting = true;
  for (BlockingCall* call : waiters().live) call->finish();
}

void registerExitHook() {
  // registered after libcuda was opened, so it runs before the driver's own teardown
  static const bool registered = [] { return std::atexit(releaseWaitersAtExit) == 0; }();
  (void)registered;
}

// The environment is being torn down (a Worker ends) before the call ran: it
// is done, and the thread-safe function, which the environment frees, is not
// touched again (the driver's thread checks `done` under the same lock before
// it queues).
void environmentTornDown(void* arg) {
  std::unique_ptr<CallRef> own(static_cast<CallRef*>(arg));
  (*own)->teardownHook = nullptr;
  (*own)->finish();
}

void removeTeardownHook(napi_env env, BlockingCall& call) {
  if (call.teardownHook == nullptr) return;
  napi_remove_env_cleanup_hook(env, environmentTornDown, call.teardownHook);
  delete static_cast<CallRef*>(call.teardownHook);
  call.teardownHook = nullptr;
}

// The driver's thread only queues the call and waits: once queued, the
// thread-safe function is the JS thread's to release, so that nothing here
// touches it after its environment may have freed it.
void blockingTrampoline(void* userData) {
  std::unique_ptr<CallRef> own(static_cast<CallRef*>(userData));
  CallRef call = *own;
  {
    std::lock_guard<std::mutex> lock(waiters().m);
    if (waiters().exiting) return;  // no JS runs any more
    waiters().live.insert(call.get());
  }
  {
    std::lock_guard<std::mutex> lock(call->m);
    if (!call->done) {  // done already: the environment is gone
      auto* forJs = new CallRef(call);
      if (napi_call_threadsafe_function(call->tsfn, forJs, napi_tsfn_nonblocking) != napi_ok) {
        delete forJs;  // the environment is closing: no JS will run
        call->done = true;
      }
    }
  }
  {
    std::unique_lock<std::mutex> lock(call->m);
    call->cv.wait(lock, [&] { return call->done; });
  }
  std::lock_guard<std::mutex> lock(waiters().m);
  waiters().live.erase(call.get());
}

void callBlockingHostFunc(napi_env env, napi_value jsFn, void*, void* data) {
  std::unique_ptr<CallRef> own(static_cast<CallRef*>(data));
  CallRef call = *own;
  napi_value error = nullptr;
  if (env && jsFn) {
    napi_value undefined, ignored;
    napi_get_undefined(env, &undefined);
    if (napi_call_function(env, undefined, jsFn, 0, nullptr, &ignored) == napi_pending_exception) {
      napi_valuetype type = napi_undefined;
      // nothing to report from an environment that is being terminated (no exception object)
      if (napi_get_and_clear_last_exception(env, &error) != napi_ok || napi_typeof(env, error, &type) != napi_ok || type == napi_undefined)
        error = nullptr;
    }
    napi_release_threadsafe_function(call->tsfn, napi_tsfn_release);
    removeTeardownHook(env, *call);
  }
  // (without env the environment is being torn down, and frees the function itself)
  call->finish();  // the stream goes on first, whatever the JS function did
  if (error) napi_fatal_exception(env, error);
}

Napi::Value launchBlockingHostFunc(const Napi::CallbackInfo& info) {
  Call c(info, "launchBlockingHostFunc");
  c.argCount(2, 2);
  CUstream stream = inHandle<CUstream>(c, 0, "hStream");
  if (!info[1].IsFunction()) c.typeError("parameter 'callback'", "a function", info[1]);
  using F = decltype(&cuLaunchHostFunc);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuLaunchHostFunc", 10000, 10000); });
  // A captured host function runs at every launch of the graph; this one runs once, with state for one call.
  using IsCapturing = decltype(&cuStreamIsCapturing);
  static std::atomic<IsCapturing> isCapturingSlot{nullptr};
  IsCapturing isCapturing = resolved(isCapturingSlot, [&] { return driverEntryPoint(c, "cuStreamIsCapturing", 10000, 10000); });
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  checkCu(c, isCapturing(stream, &status));
  if (status == CU_STREAM_CAPTURE_STATUS_ACTIVE) {
    throwValue(c.env, makeLibraryError(c.env, "cuda", CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", c.fn,
                                       "the stream is capturing a graph, whose host functions run at each launch of the graph: "
                                       "add the function to the graph instead (driver.cuLaunchHostFunc or cuGraphAddHostNode)",
                                       ""));
  }
  registerExitHook();
  napi_threadsafe_function tsfn = makeTsfn(c, info[1], "launchBlockingHostFunc", callBlockingHostFunc);
  auto call = std::make_shared<BlockingCall>();
  call->tsfn = tsfn;
  auto* hook = new CallRef(call);
  if (napi_add_env_cleanup_hook(c.env, environmentTornDown, hook) != napi_ok) {
    delete hook;
    napi_release_threadsafe_function(tsfn, napi_tsfn_abort);
    throw Napi::Error::New(c.env, "launchBlockingHostFunc: could not register an environment cleanup hook");
  }
  call->teardownHook = hook;
  auto* forDriver = new CallRef(call);
  CUresult r = fp(stream, blockingTrampoline, forDriver);
  if (r != CUDA_SUCCESS) {
    delete forDriver;
    removeTeardownHook(c.env, *call);
    napi_release_threadsafe_function(tsfn, napi_tsfn_abort);
    checkCu(c, r);
  }
  return c.env.Undefined();
}

}  // namespace

void registerBlockingHostFunc(Napi::Env env, Napi::Object exports) {
  exports.Set("launchBlockingHostFunc", Napi::Function::New(env, launchBlockingHostFunc, "launchBlockingHostFunc"));
}

void registerHostCallbacks(Napi::Env env, Napi::Object driver) {
  driver.Set("cuLaunchHostFunc", Napi::Function::New(env, launchHostFunc, "cuLaunchHostFunc"));
  driver.Set("cuStreamAddCallback", Napi::Function::New(env, streamAddCallback, "cuStreamAddCallback"));
}

}  // namespace cjs
