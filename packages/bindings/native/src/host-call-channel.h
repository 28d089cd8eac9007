// JS host functions that a driver thread calls: cuLaunchHostFunc,
// cuStreamAddCallback and launchBlockingHostFunc (host-callbacks.cpp), graph
// host nodes and host functions captured into a graph (graph-host-functions.cpp).
// All of them reach JS through one lifetime scheme:
//  - each environment (the main thread, each Worker) has one HostCallChannel,
//    a JsThreadQueue (js-thread-queue.h) kept in its instance data, so that
//    its host functions run there in the order in which the driver called them;
//  - a driver thread hands a HostCall to the channel and never waits for JS
//    (the blocking form alone waits, on its own completion, which teardown and
//    exit also complete);
//  - a posted HostCall belongs to the channel: run once on the JS thread with
//    its environment, or with none when the environment ends first (it then
//    makes no JS or napi call: the environment's references are gone with it);
//    a HostCall that the channel refuses (its environment gone or ending) is
//    the driver thread's to drop, again without any napi call.
// So a Worker, or the main thread, may end with host functions pending on
// streams or with graphs that call it still alive: the driver thread later
// finds the channel closed and frees what it holds.
#pragma once

#include <atomic>
#include <memory>

#include "js-thread-queue.h"
#include "runtime.h"

namespace cjs {

/** Counts itself in hostCallCounters().live while it exists, so that tests see what is leaked or freed early. */
class CountedRecord {
 public:
  CountedRecord();
  virtual ~CountedRecord();
  CountedRecord(const CountedRecord&) = delete;
  CountedRecord& operator=(const CountedRecord&) = delete;
};

/** One call into JS from a driver thread. */
class HostCall : public CountedRecord {
 public:
  /** On the JS thread; `env` is null when the environment is being torn down: then only free what is this call's own. */
  virtual void run(napi_env env) = 0;
};

class HostCallChannel {
 public:
  /** The calling environment's channel (made on its first use; JS thread). */
  static std::shared_ptr<HostCallChannel> of(Call& c);

  /** Any thread: hands `call` to the JS thread, or, where the environment is gone or ending, frees it here (as dropped); false then. */
  bool postOrDrop(HostCall* call);

  /** JS thread: the event loop stays alive until as many releaseLoop() calls (for host functions that must run before exit). */
  void holdLoop(napi_env env);
  void releaseLoop(napi_env env);

  explicit HostCallChannel(std::shared_ptr<JsThreadQueue> queue) : queue_(std::move(queue)) {}

 private:
  std::shared_ptr<JsThreadQueue> queue_;
  size_t loopHolds_ = 0;  // JS thread only
};

/**
 * Makes what a host function threw the environment's 'uncaughtException'
 * (process.on('uncaughtException'); without a handler the thread ends, as
 * for any callback), never a lost error. Null: nothing to report.
 */
void reportUncaught(napi_env env, napi_value error);

/** Frees a call that never reached JS, counting it as dropped (any thread; no napi call). */
void dropHostCall(HostCall* call);

/** Process-wide counts, for tests: records alive, calls dropped, driver threads waiting in the blocking form. */
struct HostCallCounters {
  std::atomic<long long> live{0};
  std::atomic<long long> dropped{0};
  std::atomic<long long> waiting{0};
};
HostCallCounters& hostCallCounters();

/**
 * The JS function of a host call, held strongly, and the async context of the
 * JS that gave it, so that it runs in that context (AsyncLocalStorage reads
 * there what it read where the function was enqueued). Made and used on the
 * JS thread; where the environment ends first it is never released (the
 * environment frees what it holds). A copy holds the same function: release
 * one of them, once.
 */
class JsCallback {
 public:
  /** Throws (a Napi::Error) where napi cannot hold it. */
  JsCallback(Call& c, const Napi::Value& fn);
  /**
   * Calls the function with `argc` arguments and gives what it threw, taken
   * off the environment (null when it returned, or when a terminating
   * environment ran nothing): for reportUncaught, once the caller is done.
   */
  napi_value call(napi_env env, size_t argc, const napi_value* argv) const;
  /** Lets the function and its context go; once, with the environment alive. */
  void release(napi_env env);

 private:
  napi_ref fn_ = nullptr;
  napi_async_context context_ = nullptr;
};

}  // namespace cjs
