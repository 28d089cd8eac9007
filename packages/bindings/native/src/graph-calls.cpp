// The capture and graph-node calls whose C signatures the generator cannot
// express: arrays that the driver owns and returns by address (the capture's
// dependencies, a conditional node's body graphs), and an input array that is
// not const (the new capture dependencies).
#include "codecs.h"
#include "graph-host-functions.h"

namespace cjs {
namespace {

/** cuStreamGetCaptureInfo_v3, with the capture's dependencies (and their edge data) copied out of the driver's arrays. */
Napi::Value streamGetCaptureInfo(const Napi::CallbackInfo& info) {
  Call c(info, "cuStreamGetCaptureInfo");
  c.argCount(1, 1);
  CUstream stream = inHandle<CUstream>(c, 0, "hStream");
  using F = decltype(&cuStreamGetCaptureInfo_v3);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuStreamGetCaptureInfo", 12030, 12030); });
  CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
  cuuint64_t id = 0;
  CUgraph graph = nullptr;
  const CUgraphNode* dependencies = nullptr;
  const CUgraphEdgeData* edgeData = nullptr;
  size_t count = 0;
  checkCu(c, fp(stream, &status, &id, &graph, &dependencies, &edgeData, &count));
  Napi::Env env = c.env;
  Napi::Object result = Napi::Object::New(env);
  result.Set("captureStatus_out", valueTo(env, status));
  result.Set("id_out", outU64(env, id));
  result.Set("graph_out", valueTo(env, graph));
  // valid until the next call on the stream: copied now
  result.Set("dependencies_out", dependencies ? outArray(env, dependencies, count) : Napi::Array::New(env, 0));
  result.Set("edgeData_out", edgeData ? outArray(env, edgeData, count) : env.Null());
  result.Set("numDependencies_out", outU64(env, static_cast<uint64_t>(count)));
  return result;
}

/** cuStreamUpdateCaptureDependencies_v2: `dependencies` (and their edge data, or null) replace or extend the capture's. */
Napi::Value streamUpdateCaptureDependencies(const Napi::CallbackInfo& info) {
  Call c(info, "cuStreamUpdateCaptureDependencies");
  c.argCount(4, 4);
  CUstream stream = inHandle<CUstream>(c, 0, "hStream");
  size_t nNodes = 0, nEdges = 0;
  CUgraphNode* dependencies = inArray<CUgraphNode>(c, 1, "dependencies", nNodes);
  const CUgraphEdgeData* edgeData = inArray<CUgraphEdgeData>(c, 2, "dependencyData", nEdges);
  unsigned int flags = inNum<unsigned int>(c, 3, "flags");
  size_t count = sharedCount(c, {{nNodes, "dependencies"}, {nEdges, "dependencyData"}});
  using F = decltype(&cuStreamUpdateCaptureDependencies_v2);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuStreamUpdateCaptureDependencies", 12030, 12030); });
  checkCu(c, fp(stream, dependencies, edgeData, count, flags));
  return c.env.Undefined();
}

/**
 * cuGraphAddNode_v2. The result also holds `phGraph_out`: for a conditional
 * node, its body graphs (owned by the node), copied out of the driver's array;
 * empty for other nodes.
 */
Napi::Value graphAddNode(const Napi::CallbackInfo& info) {
  Call c(info, "cuGraphAddNode");
  c.argCount(4, 4);
  CUgraph graph = inHandle<CUgraph>(c, 0, "hGraph");
  size_t nNodes = 0, nEdges = 0;
  const CUgraphNode* dependencies = inArray<CUgraphNode>(c, 1, "dependencies", nNodes);
  const CUgraphEdgeData* edgeData = inArray<CUgraphEdgeData>(c, 2, "dependencyData", nEdges);
  CUgraphNodeParams params{};
  inStructInto(c, 3, "nodeParams", params);
  size_t count = sharedCount(c, {{nNodes, "dependencies"}, {nEdges, "dependencyData"}});
  // the driver fills phGraph_out with an array of its own: one given from JS would be written through
  if (params.type == CU_GRAPH_NODE_TYPE_CONDITIONAL) params.conditional.phGraph_out = nullptr;
  using F = decltype(&cuGraphAddNode_v2);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuGraphAddNode", 12030, 0); });
  CUgraphNode node = nullptr;
  checkCu(c, fp(&node, graph, dependencies, edgeData, count, &params));
  Napi::Env env = c.env;
  Napi::Object result = Napi::Object::New(env);
  result.Set("phGraphNode", valueTo(env, node));
  result.Set("nodeParams", valueTo(env, params));
  bool conditional = params.type == CU_GRAPH_NODE_TYPE_CONDITIONAL && params.conditional.phGraph_out != nullptr;
  result.Set("phGraph_out",
             conditional ? outArray(env, params.conditional.phGraph_out, params.conditional.size) : Napi::Array::New(env, 0));
  return result;
}

}  // namespace

void registerGraphCalls(Napi::Env env, Napi::Object driver) {
  driver.Set("cuStreamGetCaptureInfo", Napi::Function::New(env, streamGetCaptureInfo, "cuStreamGetCaptureInfo"));
  driver.Set("cuStreamUpdateCaptureDependencies",
             Napi::Function::New(env, streamUpdateCaptureDependencies, "cuStreamUpdateCaptureDependencies"));
  driver.Set("cuGraphAddNode", Napi::Function::New(env, graphAddNode, "cuGraphAddNode"));
  registerGraphHostFunctions(env, driver);
}

}  // namespace cjs
