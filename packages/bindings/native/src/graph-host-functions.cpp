// Graph host functions (graph-host-functions.h): a GraphHostFn per host node,
// called through its environment's HostCallChannel and released through a
// user object.
#include "graph-host-functions.h"

#include <chrono>
#include <thread>

#include "host-call-channel.h"

namespace cjs {
namespace {

/** A JS host function owned by a graph: the user object's payload, alive until the driver destroys that. */
struct GraphHostFn : CountedRecord {
  GraphHostFn(std::shared_ptr<HostCallChannel> channel, JsCallback callback) : channel(std::move(channel)), callback(callback) {}
  const std::shared_ptr<HostCallChannel> channel;
  JsCallback callback;  // released on the JS thread
};

/** One launch's call of a graph host function. */
class GraphHostCall final : public HostCall {
 public:
  explicit GraphHostCall(GraphHostFn* fn) : fn_(fn) {}
  void run(napi_env env) override {
    // Without env the environment is ending, and `fn_` may be freed already (its release found the channel closed).
    // With env, `fn_` lives: its release is queued behind this call.
    if (env) reportUncaught(env, fn_->callback.call(env, 0, nullptr));
  }

 private:
  GraphHostFn* fn_;
};

/** The release of a graph host function, queued behind every call of it. */
class GraphHostRelease final : public HostCall {
 public:
  explicit GraphHostRelease(GraphHostFn* fn) : fn_(fn) {}
  void run(napi_env env) override {
    if (env) fn_->callback.release(env);  // (without env, the environment's references are gone with it)
    delete fn_;
  }

 private:
  GraphHostFn* fn_;
};

/** The CUhostFn of graph host nodes: queues the JS call, never blocks the driver's thread. */
void graphHostTrampoline(void* userData) {
  auto* fn = static_cast<GraphHostFn*>(userData);
  fn->channel->postOrDrop(new GraphHostCall(fn));
}

/**
 * The user object's destructor (any thread): once the driver calls it, no
 * launch can reach the node, and every call of it was posted before; the
 * release is queued behind them, or, with the environment gone, done here.
 */
void graphHostRelease(void* userData) {
  auto* fn = static_cast<GraphHostFn*>(userData);
  if (!fn->channel->postOrDrop(new GraphHostRelease(fn))) delete fn;
}

/** A GraphHostFn for `callback` (a function: each caller checked it first) of this environment (JS thread), owned by no graph yet. */
GraphHostFn* newGraphHostFn(Call& c, const Napi::Value& callback) {
  std::shared_ptr<HostCallChannel> channel = HostCallChannel::of(c);
  return new GraphHostFn(std::move(channel), JsCallback(c, callback));
}

/**
 * A GraphHostFn for `callback`, owned by `graph` through a user object
 * (moved to the graph): released when the graph, its clones and executable
 * graphs are destroyed. Throws, releasing it, when the driver refuses.
 */
GraphHostFn* graphHostFn(Call& c, CUgraph graph, const Napi::Value& callback) {
  using Create = decltype(&cuUserObjectCreate);
  using Retain = decltype(&cuGraphRetainUserObject);
  using Release = decltype(&cuUserObjectRelease);
  static std::atomic<Create> createSlot{nullptr};
  static std::atomic<Retain> retainSlot{nullptr};
  static std::atomic<Release> releaseSlot{nullptr};
  Create create = resolved(createSlot, [&] { return driverEntryPoint(c, "cuUserObjectCreate", 11030, 0); });
  Retain retain = resolved(retainSlot, [&] { return driverEntryPoint(c, "cuGraphRetainUserObject", 11030, 0); });
  Release release = resolved(releaseSlot, [&] { return driverEntryPoint(c, "cuUserObjectRelease", 11030, 0); });
  GraphHostFn* fn = newGraphHostFn(c, callback);
  CUuserObject object = nullptr;
  CUresult r = create(&object, fn, graphHostRelease, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
  if (r != CUDA_SUCCESS) {
    fn->callback.release(c.env);
    delete fn;
    checkCu(c, r);
  }
  r = retain(graph, object, 1, CU_GRAPH_USER_OBJECT_MOVE);
  if (r != CUDA_SUCCESS) {
    release(object, 1);  // runs graphHostRelease, which queues the release
    checkCu(c, r);
  }
  return fn;
}

/** cuGraphAddHostNode with a JS callback, called on the JS thread at each launch that reaches the node. */
Napi::Value graphAddHostNode(const Napi::CallbackInfo& info) {
  Call c(info, "cuGraphAddHostNode");
  c.argCount(3, 3);
  CUgraph graph = inHandle<CUgraph>(c, 0, "hGraph");
  if (graph == nullptr) c.rangeError("parameter 'hGraph'", "is NULL (0n): a host node needs a graph");
  size_t n = 0;
  CUgraphNode* dependencies = inArray<CUgraphNode>(c, 1, "dependencies", n);
  size_t count = sharedCount(c, {{n, "dependencies"}});
  if (!info[2].IsFunction()) c.typeError("parameter 'callback'", "a function", info[2]);
  using F = decltype(&cuGraphAddHostNode);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuGraphAddHostNode", 10000, 0); });
  GraphHostFn* fn = graphHostFn(c, graph, info[2]);
  CUDA_HOST_NODE_PARAMS params{graphHostTrampoline, fn};
  CUgraphNode node = nullptr;
  // on failure the graph still owns the function; it goes with the graph
  checkCu(c, fp(&node, graph, dependencies, count, &params));
  return valueTo(c.env, node);
}

}  // namespace

bool streamIsCapturing(Call& c, CUstream stream) {
  using IsCapturing = decltype(&cuStreamIsCapturing);
  static std::atomic<IsCapturing> isCapturingSlot{nullptr};
  IsCapturing isCapturing = resolved(isCapturingSlot, [&] { return driverEntryPoint(c, "cuStreamIsCapturing", 10000, 10000); });
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  checkCu(c, isCapturing(stream, &status));
  return status == CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

bool launchCapturedHostFunc(Call& c, CUstream stream, const Napi::Value& callback, decltype(&cuLaunchHostFunc) launch) {
  if (!streamIsCapturing(c, stream)) return false;  // an invalidated capture: the driver's own error follows
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  using Info = decltype(&cuStreamGetCaptureInfo_v3);
  static std::atomic<Info> infoSlot{nullptr};
  Info captureInfo = resolved(infoSlot, [&] { return driverEntryPoint(c, "cuStreamGetCaptureInfo", 12030, 12030); });
  CUgraph graph = nullptr;
  checkCu(c, captureInfo(stream, &status, nullptr, &graph, nullptr, nullptr, nullptr));
  GraphHostFn* fn = graphHostFn(c, graph, callback);
  // on failure the capture's graph still owns the function; it goes with the graph
  checkCu(c, launch(stream, graphHostTrampoline, fn));
  return true;
}

void simulateGraphHostFunction(Call& c, const Napi::Value& callback, double delayMs, int launches) {
  GraphHostFn* fn = newGraphHostFn(c, callback);
  try {
    std::thread([fn, delayMs, launches] {
      std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delayMs));
      for (int i = 0; i < launches; i++) graphHostTrampoline(fn);
      graphHostRelease(fn);
    }).detach();
  } catch (const std::exception& e) {
    fn->callback.release(c.env);
    delete fn;
    throw Napi::Error::New(c.env, std::string(c.fn) + ": could not start a thread: " + e.what());
  }
}

void registerGraphHostFunctions(Napi::Env env, Napi::Object driver) {
  driver.Set("cuGraphAddHostNode", Napi::Function::New(env, graphAddHostNode, "cuGraphAddHostNode"));
}

}  // namespace cjs
