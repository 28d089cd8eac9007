// The addon's entry: six namespaces of functions (driver, nvrtc, nvjitlink,
// nvvm, nvml, nccl), generated and hand-written, plus setup() for the JS helpers.
// Loading the addon opens no CUDA library; each opens on its first call.
#include "nvjitlink-thread.h"
#include "runtime.h"

namespace cjs {
Napi::Value loadedLibrariesNative(const Napi::CallbackInfo& info);
}

namespace {

Napi::Value setup(const Napi::CallbackInfo& info) {
  if (info.Length() != 2 || !info[0].IsFunction() || !info[1].IsFunction())
    throw Napi::TypeError::New(info.Env(), "setup(resolveLibrary, makeError) takes two functions");
  cjs::setHelpers(info.Env(), info[0].As<Napi::Function>(), info[1].As<Napi::Function>());
  return info.Env().Undefined();
}

Napi::Value perThreadDefaultStream(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), cjs::perThreadDefaultStream());
}

Napi::Object init(Napi::Env env, Napi::Object exports) {
  // Runs once per environment (the main thread and each Worker that loads the addon).
  cjs::initEnvironment(env);
  const char* namespaces[] = {"driver", "nvrtc", "nvjitlink", "nvvm", "nvml", "nccl"};
  for (const char* ns : namespaces) exports.Set(ns, Napi::Object::New(env));
  size_t count = 0;
  const cjs::GeneratedFunction* fns = cjs::generatedFunctions(&count);
  for (size_t i = 0; i < count; i++) {
    exports.Get(fns[i].ns).As<Napi::Object>().Set(fns[i].name, Napi::Function::New(env, fns[i].fn, fns[i].name));
  }
  Napi::Object driver = exports.Get("driver").As<Napi::Object>();
  cjs::registerLaunch(env, driver);
  cjs::registerHostCallbacks(env, driver);
  cjs::registerLinkState(env, driver);
  cjs::registerPointerAttribute(env, driver);
  cjs::registerGraphCalls(env, driver);
  cjs::registerAsyncCalls(env, exports);
  cjs::registerHostArrayBuffer(env, exports);
  cjs::registerBlockingHostFunc(env, exports);
  cjs::registerProcessFd(env, exports);
  cjs::registerFastExit(env, exports);
  cjs::registerNvJitLinkThreadForTests(env, exports);
  exports.Set("setup", Napi::Function::New(env, setup, "setup"));
  exports.Set("loadedLibraries", Napi::Function::New(env, cjs::loadedLibrariesNative, "loadedLibraries"));
  exports.Set("perThreadDefaultStream", Napi::Function::New(env, perThreadDefaultStream, "perThreadDefaultStream"));
  return exports;
}

}  // namespace

NODE_API_MODULE(cuda_js_bindings, init)
