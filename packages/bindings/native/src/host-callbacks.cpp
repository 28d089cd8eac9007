// Host functions enqueued on a stream (cuLaunchHostFunc, cuStreamAddCallback)
// call a JS function on the JS thread that enqueued them: the driver's thread
// only hands the call to that environment's HostCallChannel and returns at
// once (host-call-channel.h says how a call outlives a Worker that ended). An
// exception that the JS function throws becomes the environment's
// 'uncaughtException', never lost.
//
// launchBlockingHostFunc keeps cuLaunchHostFunc's own rule instead: the
// stream's later work waits until the JS function has returned. The driver's
// thread hands the call over and waits for its completion, which comes after
// the JS function ran (before its exception is reported), when its
// environment is torn down (the channel drops the call without JS), or when
// the process exits, so that a stream is never left waiting for JS that can
// no longer run.
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "codecs.h"
#include "graph-host-functions.h"
#include "host-call-channel.h"

namespace cjs {
namespace {

/** The three ways a stream calls a JS function once. */
enum class Form { HostFunc, StreamCallback, Blocking };

const char* nameOf(Form form) {
  switch (form) {
    case Form::HostFunc: return "cuLaunchHostFunc";
    case Form::StreamCallback: return "cuStreamAddCallback";
    case Form::Blocking: return "launchBlockingHostFunc";
  }
  return "?";
}

/** What the driver's thread of a blocking call waits for; shared, since the JS thread frees the call itself. */
struct Completion {
  std::mutex m;
  std::condition_variable cv;
  bool done = false;

  void finish() {
    std::lock_guard<std::mutex> lock(m);
    done = true;
    cv.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(m);
    cv.wait(lock, [&] { return done; });
  }
};

/** One JS function that a stream calls once, in any of the three forms. */
class StreamHostCall final : public HostCall {
 public:
  StreamHostCall(Form form, std::shared_ptr<HostCallChannel> channel, JsCallback callback)
      : form(form), channel(std::move(channel)), callback(callback) {
    if (form == Form::Blocking) completion = std::make_shared<Completion>();
  }

  void run(napi_env env) override {
    napi_value error = nullptr;
    if (env) {
      napi_value args[2] = {nullptr, nullptr};
      size_t argc = 0;
      if (form == Form::StreamCallback) {
        napi_create_bigint_uint64(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(stream)), &args[0]);
        napi_create_int32(env, static_cast<int32_t>(status), &args[1]);
        argc = 2;
      }
      error = callback.call(env, argc, args);
      callback.release(env);
      channel->releaseLoop(env);
    }
    // (without env the environment is being torn down, and its references with it)
    if (completion) completion->finish();  // the stream goes on first, whatever the JS function did
    reportUncaught(env, error);
  }

  const Form form;
  const std::shared_ptr<HostCallChannel> channel;
  JsCallback callback;
  CUstream stream = nullptr;  // cuStreamAddCallback's arguments, written by the driver's thread before it posts
  CUresult status = CUDA_SUCCESS;
  std::shared_ptr<Completion> completion;  // the blocking form's
};

// ------------------------------------------------------------------ the driver's threads
void hostFnTrampoline(void* userData) {
  auto* call = static_cast<StreamHostCall*>(userData);
  call->channel->postOrDrop(call);
}

void streamCallbackTrampoline(CUstream stream, CUresult status, void* userData) {
  auto* call = static_cast<StreamHostCall*>(userData);
  call->stream = stream;
  call->status = status;
  call->channel->postOrDrop(call);
}

/** The blocking calls whose driver thread waits, process-wide, so that exit can release them all. */
struct Waiters {
  std::mutex m;
  std::unordered_set<Completion*> live;
  bool exiting = false;
};

Waiters& waiters() {
  static Waiters* w = new Waiters();  // leaked: driver threads may still use it during exit
  return *w;
}

void releaseWaitersAtExit() {
  std::lock_guard<std::mutex> lock(waiters().m);
  waiters().exiting = true;
  for (Completion* completion : waiters().live) completion->finish();
}

void registerExitHook() {
  // registered after libcuda was opened, so it runs before the driver's own teardown
  static const bool registered = [] { return std::atexit(releaseWaitersAtExit) == 0; }();
  (void)registered;
}

void blockingTrampoline(void* userData) {
  auto* call = static_cast<StreamHostCall*>(userData);
  std::shared_ptr<Completion> completion = call->completion;  // outlives the call, which the JS thread frees
  {
    std::lock_guard<std::mutex> lock(waiters().m);
    if (waiters().exiting) {  // no JS runs any more
      dropHostCall(call);
      return;
    }
    waiters().live.insert(completion.get());
  }
  hostCallCounters().waiting.fetch_add(1, std::memory_order_relaxed);
  if (call->channel->postOrDrop(call)) completion->wait();  // (dropped: the environment is gone, nothing to wait for)
  hostCallCounters().waiting.fetch_sub(1, std::memory_order_relaxed);
  std::lock_guard<std::mutex> lock(waiters().m);
  waiters().live.erase(completion.get());
}

// ------------------------------------------------------------------ the JS thread
/** A call of `callback` in `form` for this environment, not yet given to the driver. */
StreamHostCall* newStreamHostCall(Call& c, Form form, const Napi::Value& callback) {
  std::shared_ptr<HostCallChannel> channel = HostCallChannel::of(c);
  JsCallback held(c, callback);
  if (form == Form::Blocking) registerExitHook();
  return new StreamHostCall(form, std::move(channel), held);
}

/** On the JS thread, for a call that the driver refused: it never runs. */
void discard(Call& c, StreamHostCall* call) {
  call->callback.release(c.env);
  delete call;
}

Napi::Value enqueue(const Napi::CallbackInfo& info, Form form) {
  Call c(info, nameOf(form));
  c.argCount(2, form == Form::StreamCallback ? 3 : 2);
  CUstream stream = inHandle<CUstream>(c, 0, "hStream");
  unsigned int flags = form == Form::StreamCallback && info.Length() > 2 ? inNum<unsigned int>(c, 2, "flags") : 0;
  // bad input is named before the driver is looked for
  if (!info[1].IsFunction()) c.typeError("parameter 'callback'", "a function", info[1]);
  using Launch = decltype(&cuLaunchHostFunc);
  using AddCallback = decltype(&cuStreamAddCallback);
  static std::atomic<Launch> launchSlot{nullptr};
  static std::atomic<AddCallback> addCallbackSlot{nullptr};
  Launch launch = nullptr;
  AddCallback addCallback = nullptr;
  if (form == Form::StreamCallback)
    addCallback = resolved(addCallbackSlot, [&] { return driverEntryPoint(c, "cuStreamAddCallback", 5000, 7000); });
  else
    launch = resolved(launchSlot, [&] { return driverEntryPoint(c, "cuLaunchHostFunc", 10000, 10000); });
  // on a stream that is being captured, a host function for every launch of the graph
  if (form == Form::HostFunc && launchCapturedHostFunc(c, stream, info[1], launch)) return c.env.Undefined();
  // a captured host function runs at every launch of the graph; a blocking one runs once, with state for one call
  if (form == Form::Blocking && streamIsCapturing(c, stream)) {
    throwValue(c.env, makeLibraryError(c.env, "cuda", CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", c.fn,
                                       "the stream is capturing a graph, whose host functions run at each launch of the graph: "
                                       "add the function to the graph instead (driver.cuLaunchHostFunc or cuGraphAddHostNode)",
                                       ""));
  }
  StreamHostCall* call = newStreamHostCall(c, form, info[1]);
  CUresult r = form == Form::StreamCallback ? addCallback(stream, streamCallbackTrampoline, call, flags)
                                            : launch(stream, form == Form::Blocking ? blockingTrampoline : hostFnTrampoline, call);
  if (r != CUDA_SUCCESS) {
    discard(c, call);
    checkCu(c, r);
  }
  // Before the call can run: it runs on this thread, after this function has returned.
  call->channel->holdLoop(c.env);
  return c.env.Undefined();
}

Napi::Value launchHostFunc(const Napi::CallbackInfo& info) {
  return enqueue(info, Form::HostFunc);
}
Napi::Value streamAddCallback(const Napi::CallbackInfo& info) {
  return enqueue(info, Form::StreamCallback);
}
Napi::Value launchBlockingHostFunc(const Napi::CallbackInfo& info) {
  return enqueue(info, Form::Blocking);
}

// ------------------------------------------------------------------ test entries
/**
 * Test-only, without a device: `__hostCallForTests(form, callback, delayMs, launches?)`
 * makes the call that `form` ('hostFunc', 'streamCallback' (with stream 0x5eedn,
 * status 0), 'blocking', 'graph') makes, and a thread of its own plays the
 * driver's: after `delayMs` it calls the form's own trampoline (a graph's
 * `launches` times, then destroys it), so that tests can end a Worker at any
 * point of a call's life.
 */
Napi::Value hostCallForTests(const Napi::CallbackInfo& info) {
  Call c(info, "__hostCallForTests");
  c.argCount(3, 4);
  Napi::Value formArg = c.arg(0);
  if (!formArg.IsString()) c.typeError("parameter 'form'", "'hostFunc', 'streamCallback', 'blocking' or 'graph'", formArg);
  const std::string name = formArg.As<Napi::String>().Utf8Value();
  if (!info[1].IsFunction()) c.typeError("parameter 'callback'", "a function", info[1]);
  const double delayMs = inNum<double>(c, 2, "delayMs");
  if (!(delayMs >= 0 && delayMs <= 60000)) c.rangeError("parameter 'delayMs'", "must be in [0, 60000]");
  const int launches = c.length() > 3 ? inNum<int>(c, 3, "launches") : 1;
  if (launches < 0 || launches > 1000) c.rangeError("parameter 'launches'", "must be in [0, 1000]");
  if (name == "graph") {
    simulateGraphHostFunction(c, info[1], delayMs, launches);
    return c.env.Undefined();
  }
  Form form = Form::HostFunc;
  if (name == "streamCallback")
    form = Form::StreamCallback;
  else if (name == "blocking")
    form = Form::Blocking;
  else if (name != "hostFunc")
    c.rangeError("parameter 'form'", "must be 'hostFunc', 'streamCallback', 'blocking' or 'graph'");
  StreamHostCall* call = newStreamHostCall(c, form, info[1]);
  try {
    std::thread([call, form, delayMs] {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delayMs));
      if (form == Form::StreamCallback)
        streamCallbackTrampoline(reinterpret_cast<CUstream>(uintptr_t{0x5eed}), CUDA_SUCCESS, call);
      else if (form == Form::Blocking)
        blockingTrampoline(call);
      else
        hostFnTrampoline(call);
    }).detach();
  } catch (const std::exception& e) {
    discard(c, call);
    throw Napi::Error::New(c.env, std::string(c.fn) + ": could not start a thread: " + e.what());
  }
  call->channel->holdLoop(c.env);
  return c.env.Undefined();
}

/** Test-only: `__hostCallCountsForTests()`: `{ live, dropped, waiting }` (host-call-channel.h's counters). */
Napi::Value hostCallCountsForTests(const Napi::CallbackInfo& info) {
  HostCallCounters& counters = hostCallCounters();
  Napi::Object o = Napi::Object::New(info.Env());
  o.Set("live", static_cast<double>(counters.live.load()));
  o.Set("dropped", static_cast<double>(counters.dropped.load()));
  o.Set("waiting", static_cast<double>(counters.waiting.load()));
  return o;
}

}  // namespace

void registerBlockingHostFunc(Napi::Env env, Napi::Object exports) {
  exports.Set("launchBlockingHostFunc", Napi::Function::New(env, launchBlockingHostFunc, "launchBlockingHostFunc"));
  exports.Set("__hostCallForTests", Napi::Function::New(env, hostCallForTests, "__hostCallForTests"));
  exports.Set("__hostCallCountsForTests", Napi::Function::New(env, hostCallCountsForTests, "__hostCallCountsForTests"));
}

void registerHostCallbacks(Napi::Env env, Napi::Object driver) {
  driver.Set("cuLaunchHostFunc", Napi::Function::New(env, launchHostFunc, "cuLaunchHostFunc"));
  driver.Set("cuStreamAddCallback", Napi::Function::New(env, streamAddCallback, "cuStreamAddCallback"));
}

}  // namespace cjs
