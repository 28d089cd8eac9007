import { driver, type CUcontext, type CUdeviceptr, type CUgraph, type CUgraphNode } from '@cuda-js/bindings';
import { brandHandle, OwnedHandle } from '@cuda-js/bindings/runtime';
import { formatValue } from '@cuda-js/memory-view';
import { Event, Stream } from '@cuda-js/streams';
import { Buffer } from '../memory/buffer.js';
import type { Device } from '../device/device.js';
import { ensureDriver } from '../context/driver-init.js';
import { GraphArgumentError, GraphStateError } from '../errors.js';
import { Graph, type GraphCompleteOptions } from './graph.js';
import { addConditionalNode, createCondition, unwrapConditions, type GraphCondition } from './graph-conditional.js';
import { withContext } from './graph-context.js';
import { debugDotPrint, type GraphDebugPrintOptions } from './graph-debug-print.js';
import {
  ADD_NODE,
  GraphNodeMethods,
  type GraphMemory,
  type GraphMemsetOptions,
  type NodeSpec,
} from './graph-node-methods.js';
import { AllocNode, ConditionalNode, GraphNode } from './graph-node.js';
import { GraphResources } from './graph-resources.js';
import { GRAPH_SOURCE, isGraphSource, type GraphSource, type GraphSourceParts } from './graph-source.js';
import { planFor } from '../launch/kernel-plans.js';
import { deviceRangeProblem } from '../memory/device-range.js';
import { isAnything, type OptionTableOf } from '@cuda-js/options';
import { checkCoreOptions, GRAPH_ALLOCATE_OPTIONS } from '../core-options.js';

/** @internal What the definitions of one graph hierarchy (a root, and the bodies of its conditional nodes) share. */
export interface DefinitionRoot {
  /** The CUcontext its nodes run in. */
  readonly context: CUcontext;
  /** The ordinal of that context's device (allocation nodes' default). */
  readonly ordinal: number;
  readonly resources: GraphResources;
  /** Kernel nodes are captured into the graph on this stream (made on first use). */
  captureStream: Stream | undefined;
  closed: boolean;
  /** What owns the graph, for messages: 'GraphDefinition', or 'GraphBuilder'. */
  readonly owner: string;
  /** The address ranges of its allocation nodes: valid operands before the driver knows them (they exist only while the graph runs). */
  readonly allocations: { readonly ptr: bigint; readonly size: number }[];
}

/** @internal A root for definitions over graphs that something else owns (a GraphBuilder's captured graph); close it with {@link closeDefinitionRoot}. */
export function definitionRoot(
  context: CUcontext,
  ordinal: number,
  resources: GraphResources,
  owner: string,
): DefinitionRoot {
  return { context, ordinal, resources, captureStream: undefined, closed: false, owner, allocations: [] };
}

/** @internal Marks the definitions of `root` closed (their graph is about to be destroyed) and closes their capture stream. */
export function closeDefinitionRoot(root: DefinitionRoot): void {
  if (root.closed) return;
  root.closed = true;
  const stream = root.captureStream;
  root.captureStream = undefined;
  stream?.close();
}

export interface GraphDefinitionOptions {
  /** The device whose context the nodes run in (default: the current context's). */
  readonly device?: Device | undefined;
}

// The device is checked where it is used; the memset width and count below.
const DEFINITION_OPTIONS = { device: isAnything } satisfies OptionTableOf<GraphDefinitionOptions>;
const MEMSET_OPTIONS = { width: isAnything, count: isAnything } satisfies OptionTableOf<GraphMemsetOptions>;
const MAX_UINT64 = (1n << 64n) - 1n;

let pendingView: { readonly graph: CUgraph; readonly root: DefinitionRoot; readonly body: boolean } | undefined;

/** @internal A GraphDefinition over `graph`, owned elsewhere (a conditional node's body, a builder's captured graph), sharing `root`. */
export function definitionView(graph: CUgraph, root: DefinitionRoot, body: boolean): GraphDefinition {
  pendingView = { graph, root, body };
  return new GraphDefinition();
}

function isPositiveSize(n: unknown): n is number {
  return typeof n === 'number' && Number.isSafeInteger(n) && n > 0;
}

/**
 * A graph built explicitly, node by node (cuda.core's GraphDefinition): each
 * method here adds an entry node (one that depends on nothing) and returns it;
 * each method of a {@link GraphNode} adds a node that depends on that node.
 * `instantiate()` makes the executable {@link Graph}.
 *
 * ```ts
 * using def = new GraphDefinition({ device });
 * const filled = def.memset(x, 0);
 * const ran = filled.launch({ grid, block }, kernel, x, n);
 * ran.memcpy(y, x);
 * using graph = def.instantiate();
 * graph.launch(stream);
 * ```
 *
 * Unlike stream capture, a definition holds what its nodes use (Buffers,
 * kernels, events, child graphs' resources, host functions) for as long as it
 * and its executable graphs live.
 */
// It is a NodeOwner (graph-node-methods.ts) by its [ADD_NODE] method; not declared, as that interface is internal.
export class GraphDefinition extends GraphNodeMethods implements GraphSource, Disposable {
  readonly #graph: CUgraph;
  readonly #root: DefinitionRoot;
  readonly #owned: OwnedHandle<CUgraph> | undefined;
  /** Whether this is a conditional node's body (owned by the node). */
  readonly #body: boolean;

  constructor(options: GraphDefinitionOptions = {}) {
    super();
    const view = pendingView;
    pendingView = undefined;
    if (view) {
      this.#graph = view.graph;
      this.#root = view.root;
      this.#owned = undefined;
      this.#body = view.body;
      return;
    }
    if (options === null || typeof options !== 'object')
      throw new GraphArgumentError(`GraphDefinition: options must be an object, got ${formatValue(options)}`);
    options = checkCoreOptions('GraphDefinition', options, DEFINITION_OPTIONS);
    ensureDriver();
    let context: CUcontext;
    let ordinal: number;
    if (options.device !== undefined) {
      options.device.ensureCurrent();
      context = options.device.context;
      ordinal = options.device.ordinal;
    } else {
      context = driver.cuCtxGetCurrent();
      if (context === 0n)
        throw new GraphStateError(
          'GraphDefinition: no current CUDA context; call device.setCurrent() first, or pass { device }',
        );
      ordinal = driver.cuCtxGetDevice();
    }
    const graph = driver.cuGraphCreate(0);
    const root = definitionRoot(context, ordinal, new GraphResources(), 'GraphDefinition');
    this.#graph = graph;
    this.#root = root;
    this.#body = false;
    this.#owned = new OwnedHandle(graph, this, (h) => driver.cuGraphDestroy(h), 'GraphDefinition');
  }

  /** The CUgraph handle; throws GraphStateError after close. */
  get handle(): CUgraph {
    this.#checkOpen('GraphDefinition.handle');
    return this.#graph;
  }

  /** The CUcontext its nodes run in. */
  get context(): CUcontext {
    return this.#root.context;
  }

  get closed(): boolean {
    return this.#root.closed;
  }

  /** Whether this is the body of a conditional node (owned by that node, instantiated with its root). */
  get isConditionalBody(): boolean {
    return this.#body;
  }

  /** How many nodes it has (cuGraphGetNodes). */
  get nodeCount(): number {
    return driver.cuGraphGetNodes(this.handle).length;
  }

  /** How many distinct objects its nodes use and it holds (shared with its conditional bodies). */
  get resourceCount(): number {
    return this.#root.resources.size;
  }

  #checkOpen(what: string): void {
    if (this.#root.closed)
      throw new GraphStateError(`${what}: the ${this.#root.owner} was closed; expected an open graph definition`);
  }

  protected override add(spec: NodeSpec): GraphNode {
    return this[ADD_NODE]([], spec);
  }

  /** @internal Adds the node that `spec` describes, after `dependencies` (nodes of this definition). */
  [ADD_NODE](dependencies: readonly GraphNode[], spec: NodeSpec): GraphNode {
    const what = `GraphDefinition.${spec.kind === 'kernel' ? 'launch' : spec.kind === 'conditional' ? spec.type : spec.kind}`;
    this.#checkOpen(what);
    const nodes = spec.kind === 'empty' ? [...dependencies, ...spec.extra] : dependencies;
    const deps: CUgraphNode[] = [];
    for (const node of nodes) {
      if (!(node instanceof GraphNode))
        throw new GraphArgumentError(`${what}: expected GraphNodes to depend on, got ${formatValue(node)}`);
      if (node.graph !== this)
        throw new GraphArgumentError(
          `${what}: ${node} belongs to another graph definition; a node can depend only on nodes of its own graph`,
        );
      deps.push(node.handle);
    }
    const graph = this.#graph;
    const types = driver.CUgraphNodeType;
    const resources = this.#root.resources;
    switch (spec.kind) {
      case 'kernel':
        return new GraphNode(this, this.#kernelNode(deps, spec, what), types.CU_GRAPH_NODE_TYPE_KERNEL);
      case 'memcpy':
        return new GraphNode(
          this,
          this.#memcpyNode(deps, spec.dst, spec.src, spec.size, what),
          types.CU_GRAPH_NODE_TYPE_MEMCPY,
        );
      case 'memset':
        return new GraphNode(this, this.#memsetNode(deps, spec, what), types.CU_GRAPH_NODE_TYPE_MEMSET);
      case 'alloc':
        if (spec.options === null || typeof spec.options !== 'object')
          throw new GraphArgumentError(`${what}: options must be an object, got ${formatValue(spec.options)}`);
        return this.#allocNode(
          deps,
          spec.size,
          checkCoreOptions<typeof spec.options>(what, spec.options, GRAPH_ALLOCATE_OPTIONS).device,
          what,
        );
      case 'free': {
        if (spec.ptr instanceof AllocNode && spec.ptr.graph.#root !== this.#root) {
          throw new GraphArgumentError(
            `${what}: the AllocNode belongs to another graph definition; free memory that another graph allocated by its address (a bigint), once that graph has run`,
          );
        }
        const ptr = spec.ptr instanceof AllocNode ? spec.ptr.ptr : spec.ptr;
        if (typeof ptr !== 'bigint' || ptr <= 0n || ptr > MAX_UINT64)
          throw new GraphArgumentError(
            `${what}: expected an AllocNode or the device address it allocated, got ${formatValue(spec.ptr)}`,
          );
        return new GraphNode(
          this,
          driver.cuGraphAddMemFreeNode(graph, deps, brandHandle<CUdeviceptr>(ptr)),
          types.CU_GRAPH_NODE_TYPE_MEM_FREE,
        );
      }
      case 'record':
      case 'wait': {
        const event = spec.event;
        if (!(event instanceof Event))
          throw new GraphArgumentError(`${what}: expected an Event, got ${formatValue(event)}`);
        const handle = event.handle;
        resources.retain(event);
        if (spec.kind === 'record')
          return new GraphNode(
            this,
            driver.cuGraphAddEventRecordNode(graph, deps, handle),
            types.CU_GRAPH_NODE_TYPE_EVENT_RECORD,
          );
        return new GraphNode(
          this,
          driver.cuGraphAddEventWaitNode(graph, deps, handle),
          types.CU_GRAPH_NODE_TYPE_WAIT_EVENT,
        );
      }
      case 'embed': {
        if (!isGraphSource(spec.child))
          throw new GraphArgumentError(
            `${what}: expected a GraphDefinition, or a GraphBuilder that has ended building, got ${formatValue(spec.child)}`,
          );
        const child = spec.child[GRAPH_SOURCE](what);
        if (child.graph === graph) throw new GraphArgumentError(`${what}: a graph cannot embed itself`);
        const node = driver.cuGraphAddChildGraphNode(graph, deps, child.graph);
        resources.merge(child.resources);
        return new GraphNode(this, node, types.CU_GRAPH_NODE_TYPE_GRAPH);
      }
      case 'callback': {
        if (typeof spec.fn !== 'function')
          throw new GraphArgumentError(`${what}: expected a function to call, got ${formatValue(spec.fn)}`);
        const node = driver.cuGraphAddHostNode(graph, deps, spec.fn);
        resources.retain(spec.fn);
        return new GraphNode(this, node, types.CU_GRAPH_NODE_TYPE_HOST);
      }
      case 'empty':
        return new GraphNode(this, driver.cuGraphAddEmptyNode(graph, deps), types.CU_GRAPH_NODE_TYPE_EMPTY);
      case 'conditional': {
        const { node, bodies } = addConditionalNode(
          {
            graph,
            dependencies: deps,
            edges: null,
            condition: spec.condition,
            kind: spec.type,
            count: spec.count,
            context: this.#root.context,
          },
          what,
        );
        const views = bodies.map((body) => this.#bodyView(body));
        return new ConditionalNode(
          this,
          node,
          types.CU_GRAPH_NODE_TYPE_CONDITIONAL,
          spec.condition,
          Object.freeze(views),
        );
      }
    }
  }

  #bodyView(graph: CUgraph): GraphDefinition {
    return definitionView(graph, this.#root, true);
  }

  /**
   * A kernel node, made by capturing the launch into this graph
   * (cuStreamBeginCaptureToGraph after `deps`), so that its arguments are
   * packed and checked exactly as `launch` packs them.
   */
  #kernelNode(deps: CUgraphNode[], spec: Extract<NodeSpec, { kind: 'kernel' }>, what: string): CUgraphNode {
    const plan = planFor(spec.kernel);
    const args = unwrapConditions(spec.args);
    const root = this.#root;
    const node = withContext(root.context, () => {
      root.captureStream ??= Stream.create({ nonBlocking: true });
      const stream = root.captureStream.handle;
      const config = plan.prepare(spec.config, stream);
      const mode = driver.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_RELAXED;
      driver.cuStreamBeginCaptureToGraph(stream, this.#graph, deps, null, mode);
      let captured: CUgraphNode | undefined;
      try {
        plan.pack(args, stream);
        plan.launch(config, stream);
        captured = driver.cuStreamGetCaptureInfo(stream).dependencies_out[0];
      } catch (error) {
        try {
          driver.cuStreamEndCapture(stream);
        } catch {
          // the launch's own error says more
        }
        throw error;
      }
      driver.cuStreamEndCapture(stream);
      if (captured === undefined) throw new GraphStateError(`${what}: the kernel launch added no node to the graph`);
      return captured;
    });
    root.resources.retain(spec.kernel);
    root.resources.retainAll(spec.args);
    return node;
  }

  /** The address of a copy or fill operand, checked; the Buffer is held. */
  #address(memory: GraphMemory, role: string, what: string): { ptr: bigint; size: number | undefined } {
    if (memory instanceof Buffer) {
      if (memory.closed) throw new GraphArgumentError(`${what}: the ${role} Buffer is closed`);
      if (!memory.isDeviceAccessible)
        throw new GraphArgumentError(`${what}: the ${role} Buffer is not accessible from the device`);
      this.#root.resources.retain(memory);
      return { ptr: memory.ptr, size: memory.size };
    }
    if (typeof memory === 'bigint' && memory > 0n && memory <= MAX_UINT64) return { ptr: memory, size: undefined };
    if (ArrayBuffer.isView(memory) || (memory as unknown) instanceof ArrayBuffer) {
      throw new GraphArgumentError(
        `${what}: the ${role} is pageable host memory (a JS array), which graph nodes cannot use; copy through a Buffer of PinnedMemoryResource`,
      );
    }
    throw new GraphArgumentError(
      `${what}: the ${role} must be a Buffer or a device address (a non-zero bigint), got ${formatValue(memory)}`,
    );
  }

  /**
   * A raw address operand: inside one of this graph's allocation nodes, or
   * memory the driver knows for all `bytes` (cuPointerGetAttribute); a
   * made-up address would end the process when the graph runs.
   */
  #checkRawRange(ptr: bigint, bytes: number, role: string, what: string): void {
    const end = ptr + BigInt(bytes);
    if (this.#root.allocations.some((a) => ptr >= a.ptr && end <= a.ptr + BigInt(a.size))) return;
    const problem = deviceRangeProblem(ptr, bytes);
    if (problem !== undefined)
      throw new GraphArgumentError(
        `${what}: the ${role} address: ${problem}; pass a Buffer, an AllocNode's address, or an address of device memory`,
      );
  }

  #memcpyNode(
    deps: CUgraphNode[],
    dstMemory: GraphMemory,
    srcMemory: GraphMemory,
    size: number | undefined,
    what: string,
  ): CUgraphNode {
    const dst = this.#address(dstMemory, 'destination', what);
    const src = this.#address(srcMemory, 'source', what);
    let bytes = size;
    if (bytes === undefined) {
      if (dst.size === undefined || src.size === undefined)
        throw new GraphArgumentError(`${what}: give the size in bytes when copying to or from an address`);
      if (dst.size !== src.size)
        throw new GraphArgumentError(
          `${what}: the Buffers' sizes differ (${dst.size} bytes to, ${src.size} from); give the size to copy`,
        );
      bytes = dst.size;
    }
    if (!isPositiveSize(bytes))
      throw new GraphArgumentError(`${what}: size must be a positive safe integer of bytes, got ${formatValue(bytes)}`);
    for (const [end, role] of [
      [dst, 'destination'],
      [src, 'source'],
    ] as const) {
      if (end.size !== undefined && bytes > end.size)
        throw new GraphArgumentError(`${what}: ${bytes} bytes do not fit the ${role} Buffer of ${end.size}`);
    }
    for (const [end, role] of [
      [dst, 'destination'],
      [src, 'source'],
    ] as const) {
      if (end.size === undefined) this.#checkRawRange(end.ptr, bytes, role, what);
    }
    const unified = driver.CUmemorytype.CU_MEMORYTYPE_UNIFIED;
    // one row of one slice: pitch = width, as a 1-D copy of cudaMemcpy3D is described
    const params = {
      srcMemoryType: unified,
      srcDevice: src.ptr,
      srcPitch: bytes,
      srcHeight: 1,
      dstMemoryType: unified,
      dstDevice: dst.ptr,
      dstPitch: bytes,
      dstHeight: 1,
      WidthInBytes: bytes,
      Height: 1,
      Depth: 1,
    };
    return driver.cuGraphAddMemcpyNode(this.#graph, deps, params, this.#root.context);
  }

  #memsetNode(deps: CUgraphNode[], spec: Extract<NodeSpec, { kind: 'memset' }>, what: string): CUgraphNode {
    const given = spec.options;
    if (given === null || typeof given !== 'object')
      throw new GraphArgumentError(`${what}: options must be an object, got ${formatValue(given)}`);
    const options = checkCoreOptions<typeof given>(what, given, MEMSET_OPTIONS);
    const width = options.width ?? 1;
    if (width !== 1 && width !== 2 && width !== 4)
      throw new GraphArgumentError(`${what}: width must be 1, 2 or 4 bytes, got ${formatValue(width)}`);
    const max = width === 4 ? 0xffffffff : width === 2 ? 0xffff : 0xff;
    const value = spec.value;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > max) {
      throw new GraphArgumentError(
        `${what}: a ${width * 8}-bit pattern is an integer 0..${max}, got ${formatValue(value)}`,
      );
    }
    const dst = this.#address(spec.dst, 'destination', what);
    let count = options.count;
    if (count === undefined) {
      if (dst.size === undefined)
        throw new GraphArgumentError(`${what}: give { count } (elements) when filling an address`);
      if (dst.size % width !== 0)
        throw new GraphArgumentError(
          `${what}: the Buffer's ${dst.size} bytes are not a whole number of ${width}-byte elements; give { count }`,
        );
      count = dst.size / width;
    }
    if (!isPositiveSize(count))
      throw new GraphArgumentError(
        `${what}: count must be a positive safe integer of elements, got ${formatValue(count)}`,
      );
    if (dst.size !== undefined && count * width > dst.size)
      throw new GraphArgumentError(`${what}: ${count} elements of ${width} bytes do not fit the Buffer of ${dst.size}`);
    if (dst.ptr % BigInt(width) !== 0n)
      throw new GraphArgumentError(
        `${what}: the address 0x${dst.ptr.toString(16)} is not aligned to the ${width}-byte width`,
      );
    if (dst.size === undefined) this.#checkRawRange(dst.ptr, count * width, 'destination', what);
    const params = { dst: dst.ptr, pitch: 0, value, elementSize: width, width: count, height: 1 };
    return driver.cuGraphAddMemsetNode(this.#graph, deps, params, this.#root.context);
  }

  #allocNode(deps: CUgraphNode[], size: number, device: number | undefined, what: string): AllocNode {
    if (!isPositiveSize(size))
      throw new GraphArgumentError(`${what}: size must be a positive safe integer of bytes, got ${formatValue(size)}`);
    const ordinal = device ?? this.#root.ordinal;
    if (!Number.isInteger(ordinal) || ordinal < 0)
      throw new GraphArgumentError(`${what}: device must be a device ordinal, got ${formatValue(device)}`);
    const location = { type: driver.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE, id: ordinal };
    const poolProps = {
      allocType: driver.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED,
      handleTypes: driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_NONE,
      location,
    };
    const added = driver.cuGraphAddMemAllocNode(this.#graph, deps, { poolProps, bytesize: size });
    const ptr = BigInt(added.nodeParams.dptr ?? 0);
    this.#root.allocations.push({ ptr, size });
    return new AllocNode(
      this,
      added.phGraphNode,
      driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_MEM_ALLOC,
      brandHandle<CUdeviceptr>(ptr),
      size,
    );
  }

  /** A condition for this graph's conditional nodes (see {@link GraphCondition}); with `defaultValue`, set to it at the start of each launch. */
  createCondition(defaultValue?: number): GraphCondition {
    this.#checkOpen('GraphDefinition.createCondition');
    return createCondition(this.#graph, this.#root.context, defaultValue, 'GraphDefinition.createCondition');
  }

  /** Makes the executable graph (cuda.core's `instantiate`); the definition may change and be instantiated again afterwards. */
  instantiate(options: GraphCompleteOptions = {}): Graph {
    this.#checkOpen('GraphDefinition.instantiate');
    if (this.#body)
      throw new GraphStateError(
        'GraphDefinition.instantiate: this is the body of a conditional node; instantiate the graph that holds the node',
      );
    return Graph.instantiate(this.#graph, this.#root.resources, options, 'GraphDefinition.instantiate');
  }

  /** Writes the graph in Graphviz DOT form to `path` (cuGraphDebugDotPrint). */
  debugDotPrint(path: string, options?: GraphDebugPrintOptions): void {
    this.#checkOpen('GraphDefinition.debugDotPrint');
    debugDotPrint(this.#graph, path, options, 'GraphDefinition.debugDotPrint');
  }

  /** @internal */
  [GRAPH_SOURCE](what: string): GraphSourceParts {
    this.#checkOpen(what);
    return { graph: this.#graph, resources: this.#root.resources };
  }

  /**
   * Destroys the graph (executable graphs made from it live on, with what
   * they hold); safe to call twice. A conditional body, or a builder's graph
   * seen as a definition, is owned elsewhere: closing it does nothing.
   */
  close(): void {
    if (!this.#owned || this.#root.closed) return;
    try {
      closeDefinitionRoot(this.#root);
    } finally {
      this.#owned.close();
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  override toString(): string {
    if (this.#root.closed) return 'GraphDefinition(closed)';
    return `GraphDefinition(0x${this.#graph.toString(16)}${this.#body ? ', conditional body' : ''})`;
  }
}
