// A queue from any thread to one JS thread: a thread-safe function (napi
// tsfn) that other threads may call for as long as its environment lives, and
// never after. Node frees a thread-safe function when its environment is torn
// down (a Worker ends, or the main thread's environment is freed), whatever
// threads still hold it, so that holding one is no guarantee that it exists.
// The rule that makes it safe here: every call from another thread holds
// this queue's mutex and first checks that the function is still there; the
// function's finalizer, which Node runs on the JS thread just before it frees
// the function, takes the same mutex and marks it gone. So no thread is inside
// the function when it is freed, and none enters it afterwards. Items that
// were queued and not yet run are then handed to `callJs` with a null
// environment (Node drains the queue that way), so that each is freed once.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "runtime.h"

namespace cjs {

class JsThreadQueue {
 public:
  /**
   * On the JS thread of `env`: a queue whose items `callJs(env, nullptr,
   * nullptr, item)` runs there, in the order posted (with a null env when the
   * environment ends first: then it must only free the item). `keepsLoopAlive`:
   * whether the event loop stays alive while the queue exists.
   */
  static std::shared_ptr<JsThreadQueue> create(napi_env env, const char* name, napi_threadsafe_function_call_js callJs,
                                               bool keepsLoopAlive) {
    auto queue = std::make_shared<JsThreadQueue>();
    auto* holder = new std::shared_ptr<JsThreadQueue>(queue);  // the finalizer's; freed there
    napi_value resourceName = nullptr;
    napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resourceName);
    napi_threadsafe_function tsfn = nullptr;
    if (napi_create_threadsafe_function(env, nullptr, nullptr, resourceName, 0, 1, holder, finalize, nullptr, callJs, &tsfn) != napi_ok) {
      delete holder;  // Node runs no finalizer for a function that it could not make
      throw Napi::Error::New(Napi::Env(env), std::string(name) + ": could not create a thread-safe function");
    }
    queue->tsfn_ = tsfn;
    if (!keepsLoopAlive) napi_unref_threadsafe_function(env, tsfn);
    return queue;
  }

  /** Any thread: queues `item`; false, and `item` is still the caller's, where the environment is gone or ending. Never waits for JS. */
  bool post(void* item) {
    std::lock_guard<std::mutex> lock(m_);
    return tsfn_ != nullptr && napi_call_threadsafe_function(tsfn_, item, napi_tsfn_nonblocking) == napi_ok;
  }

  /** Any thread, once: `post`, and then this queue has no more use: it is freed once `item` ran. */
  bool postLast(void* item) {
    std::lock_guard<std::mutex> lock(m_);
    // napi_closing already ended this thread's use of the function (Node counted it off)
    if (tsfn_ == nullptr || napi_call_threadsafe_function(tsfn_, item, napi_tsfn_nonblocking) != napi_ok) return false;
    napi_release_threadsafe_function(tsfn_, napi_tsfn_release);
    return true;
  }

  /** On the JS thread, where nothing was posted and nothing will be: frees the queue. */
  void abandon() {
    std::lock_guard<std::mutex> lock(m_);
    if (tsfn_ != nullptr) napi_release_threadsafe_function(tsfn_, napi_tsfn_abort);
  }

  /** On the JS thread: whether the event loop stays alive for the queue. */
  void keepLoopAlive(napi_env env, bool keep) {
    std::lock_guard<std::mutex> lock(m_);
    if (tsfn_ == nullptr) return;
    if (keep)
      napi_ref_threadsafe_function(env, tsfn_);
    else
      napi_unref_threadsafe_function(env, tsfn_);
  }

 private:
  static void finalize(napi_env, void* data, void*) {
    std::unique_ptr<std::shared_ptr<JsThreadQueue>> holder(static_cast<std::shared_ptr<JsThreadQueue>*>(data));
    std::lock_guard<std::mutex> lock((*holder)->m_);  // waits for a post under way; none starts after
    (*holder)->tsfn_ = nullptr;
  }

  std::mutex m_;
  napi_threadsafe_function tsfn_ = nullptr;  // null once the environment finalized it (its memory is then gone)
};

}  // namespace cjs
