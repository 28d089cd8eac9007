// JS host functions that are part of a graph: a host node (cuGraphAddHostNode)
// or cuLaunchHostFunc on a stream that is being captured. Each runs once per
// launch of the graph, for as long as the graph lives, and is released by a
// CUDA user object that the graph owns, so that the driver says when no graph,
// clone or executable graph can call it any more. All of an environment's
// graph host functions go through one thread-safe function, so that they reach
// JS in the order in which the driver called them.
#pragma once
#include "codecs.h"

namespace cjs {

/**
 * When `stream` is being captured, enqueues `callback` (a JS function) into
 * the capture as a graph host function and returns true; false (nothing done)
 * when it is not capturing. `launch` is the resolved cuLaunchHostFunc.
 */
bool launchCapturedHostFunc(Call& c, CUstream stream, const Napi::Value& callback, decltype(&cuLaunchHostFunc) launch);

/** Registers cuGraphAddHostNode(hGraph, dependencies, callback). */
void registerGraphHostFunctions(Napi::Env env, Napi::Object driver);

}  // namespace cjs
