// JS host functions that are part of a graph: a host node (cuGraphAddHostNode)
// or cuLaunchHostFunc on a stream that is being captured. Each runs once per
// launch of the graph, for as long as the graph lives, and is released by a
// CUDA user object that the graph owns, so that the driver says when no graph,
// clone or executable graph can call it any more. They reach JS through their
// environment's HostCallChannel (host-call-channel.h), beside the stream host
// functions, in the order in which the driver called them.
#pragma once
#include "codecs.h"

namespace cjs {

/** Whether `stream` is capturing a graph now (cuStreamIsCapturing: ACTIVE). */
bool streamIsCapturing(Call& c, CUstream stream);

/**
 * When `stream` is being captured, enqueues `callback` (a JS function, which the caller checked) into
 * the capture as a graph host function and returns true; false (nothing done)
 * when it is not capturing. `launch` is the resolved cuLaunchHostFunc.
 */
bool launchCapturedHostFunc(Call& c, CUstream stream, const Napi::Value& callback, decltype(&cuLaunchHostFunc) launch);

/**
 * Test-only, without a device: a graph host function for `callback` (a JS function, which the caller checked) that no
 * graph owns; a thread of its own plays the driver: after `delayMs` it makes
 * `launches` calls of it, then destroys it as its user object would.
 */
void simulateGraphHostFunction(Call& c, const Napi::Value& callback, double delayMs, int launches);

/** Registers cuGraphAddHostNode(hGraph, dependencies, callback). */
void registerGraphHostFunctions(Napi::Env env, Napi::Object driver);

}  // namespace cjs
