// Graph host functions (graph-host-functions.h): one dispatcher per
// environment, a GraphHostFn per host node, released through a user object.
#include "graph-host-functions.h"

#include <mutex>

namespace cjs {
namespace {

/** One environment's queue of graph host function calls: a thread-safe function that lives as long as the environment. */
struct GraphHostDispatcher {
  std::mutex mutex;
  napi_threadsafe_function tsfn = nullptr;  // null once the environment has finalized it
};

/** The dispatcher of the environment running on this thread (each main thread or Worker runs one environment). */
thread_local std::shared_ptr<GraphHostDispatcher> t_dispatcher;

/** A JS host function owned by a graph: the user object's payload. */
struct GraphHostFn {
  std::shared_ptr<GraphHostDispatcher> dispatcher;
  napi_ref callback = nullptr;  // a strong reference, deleted on the JS thread
};

// A queued item is a GraphHostFn*: a call, or, with the low bit set, its release (pointers are aligned).
constexpr uintptr_t kReleaseBit = 1;

void dispatchGraphHostFn(napi_env env, napi_value, void*, void* data) {
  uintptr_t bits = reinterpret_cast<uintptr_t>(data);
  auto* fn = reinterpret_cast<GraphHostFn*>(bits & ~kReleaseBit);
  if (bits & kReleaseBit) {
    // after every call queued before it: the driver destroys the user object once no launch can reach the node
    if (env) napi_delete_reference(env, fn->callback);
    delete fn;
    return;
  }
  if (!env) return;  // the environment is ending: its pending calls are dropped
  napi_value callback, undefined, ignored;
  if (napi_get_reference_value(env, fn->callback, &callback) != napi_ok || callback == nullptr) return;
  napi_get_undefined(env, &undefined);
  // an exception thrown by the callback stays pending: Node reports it as uncaught, as for cuLaunchHostFunc
  napi_call_function(env, undefined, callback, 0, nullptr, &ignored);
}

void finalizeDispatcher(napi_env, void* data, void*) {
  std::unique_ptr<std::shared_ptr<GraphHostDispatcher>> holder(static_cast<std::shared_ptr<GraphHostDispatcher>*>(data));
  std::lock_guard<std::mutex> lock((*holder)->mutex);
  (*holder)->tsfn = nullptr;
}

std::shared_ptr<GraphHostDispatcher> dispatcherFor(Call& c) {
  if (t_dispatcher) {
    std::lock_guard<std::mutex> lock(t_dispatcher->mutex);
    if (t_dispatcher->tsfn) return t_dispatcher;
  }
  auto dispatcher = std::make_shared<GraphHostDispatcher>();
  auto* holder = new std::shared_ptr<GraphHostDispatcher>(dispatcher);
  napi_value resourceName;
  napi_create_string_utf8(c.env, "graph host functions", NAPI_AUTO_LENGTH, &resourceName);
  napi_threadsafe_function tsfn;
  napi_status s = napi_create_threadsafe_function(c.env, nullptr, nullptr, resourceName, 0, 1, holder, finalizeDispatcher, nullptr,
                                                  dispatchGraphHostFn, &tsfn);
  if (s != napi_ok) {
    delete holder;
    throw Napi::Error::New(c.env, std::string(c.fn) + ": could not create a thread-safe function");
  }
  // an idle graph does not keep the process alive; awaiting the stream does
  napi_unref_threadsafe_function(c.env, tsfn);
  dispatcher->tsfn = tsfn;
  t_dispatcher = dispatcher;
  return dispatcher;
}

/** The CUhostFn of graph host nodes: queues the JS call, never blocks the driver's thread. */
void graphHostTrampoline(void* userData) {
  auto* fn = static_cast<GraphHostFn*>(userData);
  std::lock_guard<std::mutex> lock(fn->dispatcher->mutex);
  if (fn->dispatcher->tsfn) napi_call_threadsafe_function(fn->dispatcher->tsfn, fn, napi_tsfn_nonblocking);
}

/** The user object's destructor (any thread): queues the release behind the calls already queued. */
void graphHostRelease(void* userData) {
  auto* fn = static_cast<GraphHostFn*>(userData);
  std::shared_ptr<GraphHostDispatcher> dispatcher = fn->dispatcher;
  {
    std::lock_guard<std::mutex> lock(dispatcher->mutex);
    void* item = reinterpret_cast<void*>(reinterpret_cast<uintptr_t>(fn) | kReleaseBit);
    if (dispatcher->tsfn && napi_call_threadsafe_function(dispatcher->tsfn, item, napi_tsfn_nonblocking) == napi_ok) return;
  }
  delete fn;  // the environment is gone, and its references with it
}

/**
 * A GraphHostFn for `callback`, owned by `graph` through a user object
 * (moved to the graph): released when the graph, its clones and executable
 * graphs are destroyed. Throws, releasing it, when the driver refuses.
 */
GraphHostFn* graphHostFn(Call& c, CUgraph graph, const Napi::Value& callback) {
  if (!callback.IsFunction()) c.typeError("parameter 'callback'", "a function", callback);
  using Create = decltype(&cuUserObjectCreate);
  using Retain = decltype(&cuGraphRetainUserObject);
  using Release = decltype(&cuUserObjectRelease);
  static std::atomic<Create> createSlot{nullptr};
  static std::atomic<Retain> retainSlot{nullptr};
  static std::atomic<Release> releaseSlot{nullptr};
  Create create = resolved(createSlot, [&] { return driverEntryPoint(c, "cuUserObjectCreate", 11030, 0); });
  Retain retain = resolved(retainSlot, [&] { return driverEntryPoint(c, "cuGraphRetainUserObject", 11030, 0); });
  Release release = resolved(releaseSlot, [&] { return driverEntryPoint(c, "cuUserObjectRelease", 11030, 0); });
  auto* fn = new GraphHostFn();
  fn->dispatcher = dispatcherFor(c);
  napi_create_reference(c.env, callback, 1, &fn->callback);
  CUuserObject object = nullptr;
  CUresult r = create(&object, fn, graphHostRelease, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC);
  if (r != CUDA_SUCCESS) {
    napi_delete_reference(c.env, fn->callback);
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

bool launchCapturedHostFunc(Call& c, CUstream stream, const Napi::Value& callback, decltype(&cuLaunchHostFunc) launch) {
  if (!callback.IsFunction()) c.typeError("parameter 'callback'", "a function", callback);
  using IsCapturing = decltype(&cuStreamIsCapturing);
  static std::atomic<IsCapturing> isCapturingSlot{nullptr};
  IsCapturing isCapturing = resolved(isCapturingSlot, [&] { return driverEntryPoint(c, "cuStreamIsCapturing", 10000, 10000); });
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  checkCu(c, isCapturing(stream, &status));
  if (status != CU_STREAM_CAPTURE_STATUS_ACTIVE) return false;  // an invalidated capture: the driver's own error follows
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

void registerGraphHostFunctions(Napi::Env env, Napi::Object driver) {
  driver.Set("cuGraphAddHostNode", Napi::Function::New(env, graphAddHostNode, "cuGraphAddHostNode"));
}

}  // namespace cjs
