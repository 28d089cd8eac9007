// nvJitLink keeps state per thread: a link completed on a libuv worker and then
// destroyed (or a new one created) on the main thread corrupts the heap
// (SIGSEGV or "corrupted double-linked list" with nvJitLink 13.0). So every
// nvJitLink call of the process, the library's loading and the error log read
// after a failure included, runs on one long-lived native thread, in the order
// posted, whichever JS thread (main or worker_threads) asked.
#pragma once

#include <functional>
#include <optional>
#include <type_traits>
#include <utility>

#include "runtime.h"
#include "thread-promise.h"

namespace cjs {

/** Whether the calling thread is the nvJitLink thread. */
bool onTheNvJitLinkThread();

/** Runs `job` on the nvJitLink thread (started on first use) and waits for it; rethrows what it threw. */
void runOnNvJitLinkThread(Call& c, const std::function<void()>& job);

/** Runs `job` on the nvJitLink thread, waits, and returns its result. */
template <class Job>
auto onNvJitLinkThread(Call& c, Job&& job) -> std::invoke_result_t<Job&> {
  using R = std::invoke_result_t<Job&>;
  if constexpr (std::is_void_v<R>) {
    runOnNvJitLinkThread(c, job);
  } else {
    std::optional<R> out;
    runOnNvJitLinkThread(c, [&] { out.emplace(job()); });
    return std::move(*out);
  }
}

/**
 * A Promise for `work` run on the nvJitLink thread: the JS thread that called
 * goes on at once, and `settle` resolves or rejects the Promise there when the
 * work is done (a Napi::Error thrown by `settle` rejects it). Nothing of
 * `settle` runs if that JS thread's environment is gone by then.
 */
Napi::Promise nvJitLinkPromise(Napi::Env env, const char* name, std::function<void()> work, Settle settle);

/** `__nvJitLinkThreadIdForTests(async, delayMs)`: the ids of the thread that ran a job there and of the JS thread. */
void registerNvJitLinkThreadForTests(Napi::Env env, Napi::Object exports);

}  // namespace cjs
