import { CudaError, driver, type CUgraph, type CUgraphExec } from '@cuda-js/bindings';
import { OwnedHandle } from '@cuda-js/bindings/runtime';
import { formatValue } from '@cuda-js/memory-view';
import { Stream, streamHandle, type StreamArgument } from '@cuda-js/streams';
import { GraphArgumentError, GraphInstantiateError, GraphUpdateError } from '../errors.js';
import type { GraphResources } from './graph-resources.js';
import { GRAPH_SOURCE, isGraphSource, type GraphSource } from './graph-source.js';
import { isAnything, isBoolean, type OptionTableOf } from '@cuda-js/options';
import { checkCoreOptions } from '../core-options.js';

/** How a graph is made executable (cuda.core's GraphCompleteOptions); each false or absent by default. */
export interface GraphCompleteOptions {
  /** Frees memory that the graph's allocation nodes left allocated before each relaunch. */
  readonly autoFreeOnLaunch?: boolean | undefined;
  /** Uploads the executable graph on this stream at once (as `upload(stream)` would). */
  readonly uploadStream?: StreamArgument | undefined;
  /** Makes the graph launchable from the device (needs unified addressing; not with autoFreeOnLaunch). */
  readonly deviceLaunch?: boolean | undefined;
  /** Runs kernel nodes at their own priority attributes rather than at the launch stream's priority. */
  readonly useNodePriority?: boolean | undefined;
}

const COMPLETE_OPTIONS = {
  autoFreeOnLaunch: isBoolean,
  uploadStream: isAnything,
  deviceLaunch: isBoolean,
  useNodePriority: isBoolean,
} satisfies OptionTableOf<GraphCompleteOptions>;

function instantiateFlags(options: GraphCompleteOptions, what: string): number {
  if (options === null || typeof options !== 'object')
    throw new GraphArgumentError(`${what}: options must be an object, got ${formatValue(options)}`);
  options = checkCoreOptions(what, options, COMPLETE_OPTIONS);
  const f = driver.CUgraphInstantiate_flags;
  let flags = 0;
  for (const [key, flag] of [
    ['autoFreeOnLaunch', f.CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH],
    ['deviceLaunch', f.CUDA_GRAPH_INSTANTIATE_FLAG_DEVICE_LAUNCH],
    ['useNodePriority', f.CUDA_GRAPH_INSTANTIATE_FLAG_USE_NODE_PRIORITY],
  ] as const) {
    if (options[key] === true) flags |= flag;
  }
  if (options.autoFreeOnLaunch && options.deviceLaunch)
    throw new GraphArgumentError(
      `${what}: autoFreeOnLaunch and deviceLaunch cannot be combined (the driver refuses a device-launchable graph that frees on launch)`,
    );
  return flags;
}

/** The words that explain a failed instantiation, by the driver's error. */
function instantiateHint(codeName: string): string {
  switch (codeName) {
    case 'CUDA_ERROR_NOT_SUPPORTED':
      return 'a graph with memory allocation nodes can have only one executable graph at a time, and device launch has its own limits';
    case 'CUDA_ERROR_INVALID_VALUE':
      return 'the graph is malformed (a cycle, an unused condition, or a node the graph kind does not allow)';
    default:
      return 'see the cause';
  }
}

/** Only this module makes graphs (see the constructor). */
const GRAPH_TOKEN: unique symbol = Symbol('Graph');

/**
 * An executable graph: the nodes of a GraphBuilder (stream capture) or of a
 * GraphDefinition, instantiated (cuGraphInstantiate), launched as one unit on
 * any stream of its context. It holds every resource its nodes use (Buffers,
 * views, kernels and so their ObjectCode, events, host functions), so that none
 * is collected while it lives, and a launch refuses a graph whose resource was
 * closed. `close()` destroys it (a launch in flight still completes).
 */
export class Graph implements Disposable {
  readonly #owned: OwnedHandle<CUgraphExec>;
  readonly #resources: GraphResources;

  private constructor(token: typeof GRAPH_TOKEN, exec: CUgraphExec, resources: GraphResources) {
    // a Graph made elsewhere would launch a made-up CUgraphExec (the driver cannot check one: it crashes)
    if (token !== GRAPH_TOKEN)
      throw new GraphArgumentError('Graph has no public constructor: complete a GraphBuilder or a GraphDefinition');
    this.#owned = new OwnedHandle(exec, this, (h) => driver.cuGraphExecDestroy(h), 'Graph');
    this.#resources = resources;
  }

  /** @internal Instantiates `graph` (a CUgraph, still owned by the caller); `what` names the caller. */
  static instantiate(
    graph: CUgraph,
    resources: GraphResources,
    options: GraphCompleteOptions = {},
    what = 'Graph.instantiate',
  ): Graph {
    const flags = instantiateFlags(options, what);
    const upload =
      options.uploadStream === undefined ? undefined : streamHandle(options.uploadStream, `${what}: uploadStream`);
    let exec: CUgraphExec;
    try {
      exec = driver.cuGraphInstantiateWithFlags(graph, flags);
    } catch (error) {
      if (error instanceof CudaError)
        throw new GraphInstantiateError(
          `${what}: the driver could not instantiate the graph (${error.codeName}): ${instantiateHint(error.codeName)}`,
          { cause: error },
        );
      throw error;
    }
    const made = new Graph(GRAPH_TOKEN, exec, resources.copy());
    if (upload !== undefined) driver.cuGraphUpload(exec, upload);
    return made;
  }

  /** The CUgraphExec handle; throws ClosedResourceError after close. */
  get handle(): CUgraphExec {
    return this.#owned.handle;
  }

  get closed(): boolean {
    return this.#owned.closed;
  }

  /** How many distinct objects (Buffers, kernels, events, ...) the graph holds for its nodes. */
  get resourceCount(): number {
    return this.#resources.size;
  }

  /** Launches the whole graph on `stream`, after the work already there; later work on it waits for the graph. */
  launch(stream: StreamArgument): void {
    const exec = this.#owned.handle;
    this.#resources.check('Graph.launch');
    const h = stream instanceof Stream ? stream.handle : streamHandle(stream, 'Graph.launch: stream');
    driver.cuGraphLaunch(exec, h);
  }

  /** Uploads the graph's work to the device on `stream` ahead of its first launch, so that the first launch costs what later ones do. */
  upload(stream: StreamArgument): void {
    const exec = this.#owned.handle;
    driver.cuGraphUpload(exec, streamHandle(stream, 'Graph.upload: stream'));
  }

  /**
   * Takes the node parameters of `source` (a GraphBuilder that has ended
   * building, or a GraphDefinition) with the same topology: kernel arguments,
   * copy and fill addresses and sizes, ... (cuGraphExecUpdate). A source of
   * another shape is a GraphUpdateError (update again from a source of the
   * same shape before relying on the graph). The graph holds the source's
   * resources from then on, as well as its own.
   */
  update(source: GraphSource): void {
    const exec = this.#owned.handle;
    if (!isGraphSource(source))
      throw new GraphArgumentError(
        `Graph.update: expected a GraphBuilder or a GraphDefinition, got ${formatValue(source)}`,
      );
    const parts = source[GRAPH_SOURCE]('Graph.update');
    try {
      driver.cuGraphExecUpdate(exec, parts.graph, {});
    } catch (error) {
      if (error instanceof CudaError && error.codeName === 'CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE') {
        throw new GraphUpdateError(
          'Graph.update: the source differs from the graph in more than node parameters (its topology, a node kind, or a kernel launched on another context); build it with the same operations in the same order',
          { cause: error },
        );
      }
      throw error;
    }
    this.#resources.merge(parts.resources);
  }

  /** Destroys the executable graph (work already launched completes); safe to call twice. */
  close(): void {
    this.#owned.close();
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return this.closed ? 'Graph(closed)' : `Graph(0x${this.#owned.handle.toString(16)})`;
  }
}
