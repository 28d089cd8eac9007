// The Promise forms' plumbing, for every thread that runs work for JS (the
// wait threads, the release thread, the nvJitLink thread): a Promise made on
// the calling JS thread, work run elsewhere, and the Promise settled back on
// that JS thread through a one-shot JsThreadQueue (js-thread-queue.h), or
// never, when that thread's environment (a Worker that ended) is gone first.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <utility>

#include "js-thread-queue.h"

namespace cjs {

/** Resolves or rejects the Promise on its JS thread, after the work; a Napi::Error that it throws rejects it. */
using Settle = std::function<void(Napi::Env, Napi::Promise::Deferred&)>;

namespace thread_promise {

struct Settlement {
  Napi::Promise::Deferred deferred;
  Settle settle;
};

inline void settleOnJsThread(napi_env env, napi_value, void*, void* data) {
  std::unique_ptr<Settlement> s(static_cast<Settlement*>(data));
  if (!env) return;  // the environment is going away: nothing awaits the Promise any more
  try {
    s->settle(Napi::Env(env), s->deferred);
  } catch (const Napi::Error& e) {
    s->deferred.Reject(e.Value());
  }
}

/** What a throw from work says: its message, for the rejection. */
inline std::string messageOf(const std::exception_ptr& error) {
  try {
    std::rethrow_exception(error);
  } catch (const std::exception& e) {
    return e.what();
  } catch (...) {
    return "failed";
  }
}

}  // namespace thread_promise

/**
 * A Promise for `work`, which `post(job)` runs on another thread (it returns
 * why it could not, empty when queued): the JS thread goes on at once, and
 * `settle` runs there once the work is done. Work is C calls and plain C++;
 * should it throw, the Promise rejects with the message. The Promise keeps
 * the event loop alive until it is settled.
 */
template <class Post>
Napi::Promise promiseFromThread(Napi::Env env, const char* name, Post&& post, std::function<void()> work, Settle settle) {
  auto deferred = Napi::Promise::Deferred::New(env);
  std::shared_ptr<JsThreadQueue> queue = JsThreadQueue::create(env, name, thread_promise::settleOnJsThread, true);
  auto* settlement = new thread_promise::Settlement{deferred, std::move(settle)};
  std::string failed = post([queue, settlement, work = std::move(work)] {
    try {
      work();
    } catch (...) {
      std::string what = thread_promise::messageOf(std::current_exception());
      settlement->settle = [what](Napi::Env e, Napi::Promise::Deferred& d) { d.Reject(Napi::Error::New(e, what).Value()); };
    }
    if (!queue->postLast(settlement)) delete settlement;  // the environment is ending: no JS will settle it
  });
  if (!failed.empty()) {
    delete settlement;
    queue->abandon();
    throw Napi::Error::New(env, std::string(name) + ": " + failed);
  }
  return deferred.Promise();
}

}  // namespace cjs
