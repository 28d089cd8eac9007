// duplicateFdFromProcess(pid, fd): this process's own copy of file descriptor
// `fd` of process `pid`, through Linux's pidfd_open and pidfd_getfd (kernel
// 5.6 or later). CUDA's shareable handles of POSIX type are file descriptors,
// which mean something only inside the process that holds them, so an
// importing process takes its own copy first. The copy is close-on-exec.
//
// A failed system call is not thrown from here: the result names the call and
// its errno, and the JS wrapper builds the error, whose advice depends on the
// system (ptrace rules, kernel version) and reads files to give it. Bad
// arguments are a TypeError or RangeError before any system call.
#include "runtime.h"

#ifdef __linux__
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

// Headers older than the kernel's 5.6 lack the names; the numbers are the same on every architecture.
#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
#endif

namespace cjs {
namespace {

/** An int argument of at least `min` (pids start at 1, fds at 0): a TypeError for non-numbers, a RangeError otherwise. */
int32_t intArgument(Call& c, size_t i, const char* name, int32_t min) {
  const int32_t v = inNum<int32_t>(c, i, name);
  if (v < min) c.rangeError(paramName(c, name), "must be at least " + std::to_string(min) + ", got " + std::to_string(v));
  return v;
}

Napi::Value failure(Napi::Env env, const char* syscallName, int error) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("syscall", Napi::String::New(env, syscallName));
  o.Set("errno", Napi::Number::New(env, error));
  return o;
}

Napi::Value duplicateFdFromProcess(const Napi::CallbackInfo& info) {
  Call c(info, "duplicateFdFromProcess");
  c.argCount(2, 2);
  const int32_t pid = intArgument(c, 0, "pid", 1);
  const int32_t fd = intArgument(c, 1, "fd", 0);
#ifdef __linux__
  const long pidfd = syscall(SYS_pidfd_open, static_cast<pid_t>(pid), 0);
  if (pidfd < 0) return failure(c.env, "pidfd_open", errno);
  const long copy = syscall(SYS_pidfd_getfd, static_cast<int>(pidfd), fd, 0);
  const int error = errno;  // close() below may change it
  close(static_cast<int>(pidfd));
  if (copy < 0) return failure(c.env, "pidfd_getfd", error);
  return Napi::Number::New(c.env, static_cast<double>(copy));
#else
  (void)pid;
  (void)fd;
  return failure(c.env, "pidfd_open", 38);  // ENOSYS on Linux: the wrapper says that this is Linux-only
#endif
}

}  // namespace

void registerProcessFd(Napi::Env env, Napi::Object exports) {
  exports.Set("duplicateFdFromProcess", Napi::Function::New(env, duplicateFdFromProcess, "duplicateFdFromProcess"));
}

}  // namespace cjs
