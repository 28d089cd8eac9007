// The driver's teardown at process exit, skipped on request: the CUDA driver
// destroys every context and frees every allocation in its exit handlers,
// which costs a cold start a large part of its wall time, although the
// operating system reclaims all of it anyway. skipDriverTeardownAtExit
// registers an exit handler that runs before the handlers registered so far
// (the driver's among them, once it is initialized), flushes C stdio and ends
// the process with its exit status. Node.js has finished its own teardown by
// then. Only where the C library has on_exit (glibc); elsewhere it does nothing.
#include <cstdio>

#include "runtime.h"

#if defined(__GLIBC__)
#include <stdlib.h>
#include <unistd.h>
#endif

namespace cjs {
namespace {

#if defined(__GLIBC__)
void endWithoutTeardown(int status, void*) {
  std::fflush(nullptr);
  _exit(status);
}
#endif

Napi::Value skipDriverTeardownAtExit(const Napi::CallbackInfo& info) {
#if defined(__GLIBC__)
  // each call runs before what was registered until then; a few calls are enough (after cuInit, after a context)
  static int registered = 0;
  if (registered < 8 && on_exit(endWithoutTeardown, nullptr) == 0) {
    registered++;
    return Napi::Boolean::New(info.Env(), true);
  }
  return Napi::Boolean::New(info.Env(), registered > 0);
#else
  return Napi::Boolean::New(info.Env(), false);
#endif
}

}  // namespace

void registerFastExit(Napi::Env env, Napi::Object exports) {
  exports.Set("skipDriverTeardownAtExit", Napi::Function::New(env, skipDriverTeardownAtExit, "skipDriverTeardownAtExit"));
}

}  // namespace cjs
