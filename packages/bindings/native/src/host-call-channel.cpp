// One channel per environment for the JS host functions of streams and graphs
// (host-call-channel.h).
#include "host-call-channel.h"

namespace cjs {

HostCallCounters& hostCallCounters() {
  static HostCallCounters* counters = new HostCallCounters();  // leaked: driver threads may count during exit
  return *counters;
}

CountedRecord::CountedRecord() {
  hostCallCounters().live.fetch_add(1, std::memory_order_relaxed);
}
CountedRecord::~CountedRecord() {
  hostCallCounters().live.fetch_sub(1, std::memory_order_relaxed);
}

void dropHostCall(HostCall* call) {
  hostCallCounters().dropped.fetch_add(1, std::memory_order_relaxed);
  delete call;
}

namespace {

void runHostCall(napi_env env, napi_value, void*, void* data) {
  auto* call = static_cast<HostCall*>(data);
  if (!env) hostCallCounters().dropped.fetch_add(1, std::memory_order_relaxed);
  std::unique_ptr<HostCall> own(call);
  call->run(env);
}

}  // namespace

std::shared_ptr<HostCallChannel> HostCallChannel::of(Call& c) {
  std::shared_ptr<HostCallChannel>& slot = hostCallChannelOf(c.env);
  if (!slot) {
    // unreferenced: an idle graph does not keep the process alive; a pending stream host function does (holdLoop)
    slot = std::make_shared<HostCallChannel>(JsThreadQueue::create(c.env, "cuda-js host functions", runHostCall, false));
  }
  return slot;
}

bool HostCallChannel::postOrDrop(HostCall* call) {
  // Once posted, the JS thread may free `call`, and with it the last owner of this channel, before post() has
  // unlocked the queue: the queue stays alive through the call here.
  std::shared_ptr<JsThreadQueue> queue = queue_;
  if (queue->post(call)) return true;  // nothing of `this` is touched after a successful post
  dropHostCall(call);
  return false;
}

void HostCallChannel::holdLoop(napi_env env) {
  if (loopHolds_++ == 0) queue_->keepLoopAlive(env, true);
}

void HostCallChannel::releaseLoop(napi_env env) {
  if (loopHolds_ > 0 && --loopHolds_ == 0) queue_->keepLoopAlive(env, false);
}

JsCallback::JsCallback(Call& c, const Napi::Value& fn) {
  napi_value name = nullptr;
  napi_create_string_utf8(c.env, c.fn, NAPI_AUTO_LENGTH, &name);
  if (napi_create_reference(c.env, fn, 1, &fn_) != napi_ok || napi_async_init(c.env, nullptr, name, &context_) != napi_ok) {
    if (fn_ != nullptr) napi_delete_reference(c.env, fn_);
    throw Napi::Error::New(c.env, std::string(c.fn) + ": could not hold the callback");
  }
}

napi_value JsCallback::call(napi_env env, size_t argc, const napi_value* argv) const {
  napi_value fn = nullptr, undefined = nullptr, global = nullptr, ignored = nullptr;
  if (napi_get_reference_value(env, fn_, &fn) != napi_ok || fn == nullptr) return nullptr;
  napi_get_undefined(env, &undefined);
  napi_get_global(env, &global);  // the scope's resource argument, which Node ignores
  // A callback scope rather than napi_make_callback, which would make `this` an object: `this` stays undefined.
  napi_callback_scope scope = nullptr;
  if (napi_open_callback_scope(env, global, context_, &scope) != napi_ok) scope = nullptr;
  napi_status s = napi_call_function(env, undefined, fn, argc, argv, &ignored);
  if (scope != nullptr) napi_close_callback_scope(env, scope);
  if (s != napi_pending_exception) return nullptr;
  napi_value error = nullptr;
  napi_valuetype type = napi_undefined;
  // nothing to report from an environment that is being terminated (no exception object)
  if (napi_get_and_clear_last_exception(env, &error) != napi_ok || napi_typeof(env, error, &type) != napi_ok || type == napi_undefined)
    return nullptr;
  return error;
}

void reportUncaught(napi_env env, napi_value error) {
  if (env != nullptr && error != nullptr) napi_fatal_exception(env, error);
}

void JsCallback::release(napi_env env) {
  napi_async_destroy(env, context_);
  napi_delete_reference(env, fn_);
  context_ = nullptr;
  fn_ = nullptr;
}

}  // namespace cjs
