import { CudaError, driver, type CUcontext, type CUgraph } from '@cuda-js/bindings';
import { OwnedHandle } from '@cuda-js/bindings/runtime';
import { formatValue } from '@cuda-js/memory-view';
import {
  Event,
  Stream,
  STREAM_PROTOCOL,
  streamHandle,
  type StreamArgument,
  type StreamLike,
  type StreamProtocolResult,
} from '@cuda-js/streams';
import { ensureDriver } from '../context/driver-init.js';
import { GraphArgumentError, GraphStateError } from '../errors.js';
import { Graph, type GraphCompleteOptions } from './graph.js';
import {
  addConditionalNode,
  createCondition,
  unwrapConditions,
  type ConditionalKind,
  type GraphCondition,
} from './graph-conditional.js';
import { withContext } from './graph-context.js';
import { debugDotPrint, type GraphDebugPrintOptions } from './graph-debug-print.js';
import {
  closeDefinitionRoot,
  definitionRoot,
  definitionView,
  type DefinitionRoot,
  type GraphDefinition,
} from './graph-definition.js';
import { GraphResources } from './graph-resources.js';
import { GRAPH_SOURCE, isGraphSource, type GraphSource, type GraphSourceParts } from './graph-source.js';
import type { KernelArgument } from '../launch/kernel-parameters.js';
import type { LaunchConfig, LaunchConfigOptions } from '../launch/launch-config.js';
import type { LaunchPlanCore } from '../launch/launch-plan.js';
import { RECORD_LAUNCH } from '../launch/launch-recorder.js';

/**
 * How a capture restricts other CUDA calls while it runs (cuStreamBeginCapture's
 * mode): `global` prohibits potentially unsafe calls (synchronous copies,
 * synchronizations, ...) on every thread, `thread_local` on the capturing
 * thread, `relaxed` (the default, as in cuda.core) nowhere.
 */
export type GraphBuildMode = 'global' | 'thread_local' | 'relaxed';

const BUILD_MODES: Readonly<
  Record<
    GraphBuildMode,
    'CU_STREAM_CAPTURE_MODE_GLOBAL' | 'CU_STREAM_CAPTURE_MODE_THREAD_LOCAL' | 'CU_STREAM_CAPTURE_MODE_RELAXED'
  >
> = {
  global: 'CU_STREAM_CAPTURE_MODE_GLOBAL',
  thread_local: 'CU_STREAM_CAPTURE_MODE_THREAD_LOCAL',
  relaxed: 'CU_STREAM_CAPTURE_MODE_RELAXED',
};

/** The most builders one split() makes: each is a new stream in the capture, and a GPU runs far fewer branches at once (split(1e6) ran for minutes). */
export const MAX_SPLIT = 256;

/** primary: made by a device or from a stream; forked: made by split(); body: a conditional node's body. */
type BuilderKind = 'primary' | 'forked' | 'body';
type BuilderState = 'new' | 'building' | 'ended' | 'invalidated' | 'closed';

/** One capture sequence: its origin (a primary or body builder) and the builders split from it. */
interface Capture {
  origin: GraphBuilder | undefined;
  readonly openForks: Set<GraphBuilder>;
  /** The streams of joined forks: still part of the capture, closed when it ends. */
  readonly retiredStreams: Stream[];
}

interface BuilderInit {
  readonly stream: Stream;
  readonly ownsStream: boolean;
  readonly context: CUcontext;
  readonly kind: BuilderKind;
  readonly resources: GraphResources;
  readonly capture: Capture;
  readonly bodyGraph?: CUgraph;
  readonly state: BuilderState;
}

const newCapture = (): Capture => ({ origin: undefined, openForks: new Set(), retiredStreams: [] });

/** Only this module makes builders: `new GraphBuilder(...)` elsewhere is a named error, not a half-made builder. */
const BUILDER_TOKEN: unique symbol = Symbol('GraphBuilder');

/**
 * A graph under construction by stream capture (cuda.core's GraphBuilder):
 * work enqueued on its stream between `beginBuilding()` and `endBuilding()` is
 * recorded, not run, and `complete()` makes it an executable {@link Graph}.
 *
 * A builder is stream-like: `launch(builder, config, kernel, ...args)` records
 * a kernel, and any call that takes a stream records its work there
 * (`buffer.fill(0, { stream: builder })`, `a.copyTo(b, { stream: builder })`).
 * `split(n)` forks the capture into builders whose work runs concurrently,
 * `GraphBuilder.join(...)` merges them; `callback(fn)` records a host
 * function; `createCondition()` with `ifThen`, `ifElse`, `whileLoop` and
 * `switch` records conditional nodes, whose bodies are builders of their own.
 *
 * Make one with `device.createGraphBuilder()` (on a new stream of its own) or
 * `GraphBuilder.fromStream(stream)` (cuda.core's `stream.create_graph_builder()`,
 * on that stream). The graph holds what `launch(builder, ...)`, `callback`,
 * `embed` and `retain` were given; work recorded through other calls
 * (copies, fills) uses memory the builder does not know of: pass it to
 * `retain()` to keep it with the graph.
 */
export class GraphBuilder implements StreamLike, GraphSource, Disposable {
  readonly #stream: Stream;
  readonly #ownsStream: boolean;
  readonly #context: CUcontext;
  readonly #kind: BuilderKind;
  readonly #resources: GraphResources;
  readonly #capture: Capture;
  /** A body builder's graph, owned by its conditional node. */
  readonly #bodyGraph: CUgraph | undefined;
  #state: BuilderState;
  /** A primary builder's captured graph, owned here from endBuilding() on. */
  #graph: OwnedHandle<CUgraph> | undefined;
  #definitionRoot: DefinitionRoot | undefined;

  private constructor(token: typeof BUILDER_TOKEN, init: BuilderInit) {
    if (token !== BUILDER_TOKEN || init === null || typeof init !== 'object') {
      throw new GraphArgumentError(
        'GraphBuilder has no public constructor: use device.createGraphBuilder() or GraphBuilder.fromStream(stream)',
      );
    }
    this.#stream = init.stream;
    this.#ownsStream = init.ownsStream;
    this.#context = init.context;
    this.#kind = init.kind;
    this.#resources = init.resources;
    this.#capture = init.capture;
    this.#bodyGraph = init.bodyGraph;
    this.#state = init.state;
    if (init.kind !== 'forked') init.capture.origin = this;
  }

  /** @internal Device.createGraphBuilder(): a builder on a new non-blocking stream of the current context. */
  static create(): GraphBuilder {
    ensureDriver();
    const context = driver.cuCtxGetCurrent();
    if (context === 0n)
      throw new GraphStateError('GraphBuilder: no current CUDA context; call device.setCurrent() first');
    const stream = Stream.create({ nonBlocking: true });
    return new GraphBuilder(BUILDER_TOKEN, {
      stream,
      ownsStream: true,
      context,
      kind: 'primary',
      resources: new GraphResources(),
      capture: newCapture(),
      state: 'new',
    });
  }

  /**
   * A builder that captures on `stream` (a Stream, or anything implementing
   * the stream protocol, or a CUstream handle), which it borrows: closing the
   * builder does not destroy the stream. cuda.core's `stream.create_graph_builder()`.
   * The default streams (legacy, per-thread) cannot be captured.
   */
  static fromStream(stream: StreamArgument): GraphBuilder {
    const handle = streamHandle(stream, 'GraphBuilder.fromStream: stream');
    if (handle <= 2n)
      throw new GraphArgumentError(
        `GraphBuilder.fromStream: the default stream (0x${handle.toString(16)}) cannot be captured; use a stream made by device.createStream()`,
      );
    ensureDriver();
    const context = driver.cuStreamGetCtx(handle);
    const wrapped = stream instanceof Stream ? stream : Stream.from(stream);
    return new GraphBuilder(BUILDER_TOKEN, {
      stream: wrapped,
      ownsStream: false,
      context,
      kind: 'primary',
      resources: new GraphResources(),
      capture: newCapture(),
      state: 'new',
    });
  }

  /** The stream that work is captured on. */
  get stream(): Stream {
    return this.#stream;
  }

  /** The CUcontext of its stream. */
  get context(): CUcontext {
    return this.#context;
  }

  /** Whether this builder was split off another and must be joined back (GraphBuilder.join) before its origin ends building. */
  get isJoinRequired(): boolean {
    return this.#kind === 'forked' && this.#state === 'building';
  }

  /** Whether this is the body of a conditional node (made by ifThen, ifElse, whileLoop or switch). */
  get isConditionalBody(): boolean {
    return this.#kind === 'body';
  }

  get closed(): boolean {
    return this.#state === 'closed';
  }

  /**
   * Whether it is capturing now. A capture that an operation not allowed while
   * capturing invalidated is a GraphStateError here (and the capture is ended).
   */
  get isBuilding(): boolean {
    if (this.#state === 'closed' || this.#state === 'new' || this.#state === 'ended' || this.#state === 'invalidated')
      return false;
    this.#checkCapturing('GraphBuilder.isBuilding');
    return true;
  }

  /** How many distinct objects (Buffers, kernels, host functions, ...) the builder's graph holds so far. */
  get resourceCount(): number {
    return this.#resources.size;
  }

  #stateError(what: string, expected: string): GraphStateError {
    const state =
      this.#state === 'closed'
        ? 'closed'
        : this.#state === 'new'
          ? 'not started (call beginBuilding())'
          : this.#state === 'ended'
            ? 'ended'
            : this.#state;
    return new GraphStateError(`${what}: expected a GraphBuilder that ${expected}; this one is ${state}`);
  }

  #requireBuilding(what: string): void {
    if (this.#state !== 'building') throw this.#stateError(what, 'is building');
  }

  /** Checks that the stream is capturing; an invalidated capture is ended and reported. */
  #checkCapturing(what: string): void {
    const status = driver.cuStreamIsCapturing(this.#stream.handle);
    const s = driver.CUstreamCaptureStatus;
    if (status === s.CU_STREAM_CAPTURE_STATUS_ACTIVE) return;
    if (status === s.CU_STREAM_CAPTURE_STATUS_INVALIDATED) {
      this.#abandon();
      throw new GraphStateError(
        `${what}: the capture was invalidated by a call that is not allowed while capturing (a synchronous copy or synchronization, the legacy default stream, or work on a stream of another capture); the building has ended without a graph`,
      );
    }
    throw new GraphStateError(`${what}: the builder's stream is not capturing (did something end the capture on it?)`);
  }

  /** Ends an invalidated capture (of this builder's origin, for a fork), so that its streams are usable again. */
  #abandon(): void {
    const origin = this.#kind === 'forked' ? this.#capture.origin : this;
    // read before this builder's own state changes: the origin may be this builder
    const originBuilding = origin !== undefined && origin.#state === 'building';
    this.#state = 'invalidated';
    if (origin === undefined || !originBuilding) return;
    try {
      const graph = driver.cuStreamEndCapture(origin.#stream.handle);
      if (origin.#kind === 'primary' && graph !== 0n) driver.cuGraphDestroy(graph);
    } catch {
      // an invalidated capture ends with an error: the stream leaves capture mode all the same
    }
    for (const fork of this.#capture.openForks) fork.#state = 'invalidated';
    this.#capture.openForks.clear();
    origin.#closeRetired();
    origin.#state = 'invalidated';
  }

  #closeRetired(): void {
    const streams = this.#capture.retiredStreams.splice(0);
    for (const stream of streams) stream.close();
  }

  /** Starts capturing (cuStreamBeginCapture; a conditional body: cuStreamBeginCaptureToGraph into its body graph). A builder builds once. */
  beginBuilding(mode: GraphBuildMode = 'relaxed'): this {
    const what = 'GraphBuilder.beginBuilding';
    if (this.#kind === 'forked')
      throw new GraphStateError(
        `${what}: a builder made by split() is part of its origin's capture and builds from the start; record work on it and join it back`,
      );
    if (this.#state !== 'new')
      throw this.#stateError(what, 'has not started building (a builder builds once; make another)');
    const modeName = BUILD_MODES[mode];
    if (modeName === undefined)
      throw new GraphArgumentError(
        `${what}: mode must be one of ${Object.keys(BUILD_MODES).join(', ')}; got ${formatValue(mode)}`,
      );
    const value = driver.CUstreamCaptureMode[modeName];
    const stream = this.#stream.handle;
    if (this.#kind === 'body') driver.cuStreamBeginCaptureToGraph(stream, this.#bodyGraph!, null, null, value);
    else driver.cuStreamBeginCapture(stream, value);
    this.#state = 'building';
    return this;
  }

  /** Stops capturing. Every builder split from this one must have been joined back first. */
  endBuilding(): this {
    const what = 'GraphBuilder.endBuilding';
    if (this.#kind === 'forked')
      throw new GraphStateError(
        `${what}: a builder made by split() ends by being joined into its origin (GraphBuilder.join(origin, fork)); end the origin's building`,
      );
    this.#requireBuilding(what);
    const open = this.#capture.openForks.size;
    if (open > 0)
      throw new GraphStateError(
        `${what}: ${open} builder(s) split from this one are not joined; join them first (GraphBuilder.join(this, ...forks))`,
      );
    this.#checkCapturing(what);
    let graph: CUgraph;
    try {
      graph = driver.cuStreamEndCapture(this.#stream.handle);
    } catch (error) {
      this.#state = 'invalidated';
      this.#closeRetired();
      if (error instanceof CudaError)
        throw new GraphStateError(`${what}: the driver could not end the capture (${error.codeName})`, {
          cause: error,
        });
      throw error;
    }
    if (this.#kind === 'primary')
      this.#graph = new OwnedHandle(graph, this, (h) => driver.cuGraphDestroy(h), 'GraphBuilder graph');
    this.#closeRetired();
    this.#state = 'ended';
    return this;
  }

  /** The captured graph made executable; may be called again for more executable graphs. */
  complete(options: GraphCompleteOptions = {}): Graph {
    const what = 'GraphBuilder.complete';
    if (this.#kind === 'body')
      throw new GraphStateError(
        `${what}: a conditional body is instantiated with the graph that holds its node; complete that builder`,
      );
    if (this.#state !== 'ended') throw this.#stateError(what, 'has ended building');
    return Graph.instantiate(this.#graph!.handle, this.#resources, options, what);
  }

  /**
   * The captured graph seen as a {@link GraphDefinition}, to inspect or add
   * nodes to explicitly: a primary builder's after `endBuilding()`, a
   * conditional body's whenever it is not building (so that a body can be
   * filled without capture). It is valid while the builder is open.
   */
  get graphDefinition(): GraphDefinition {
    const what = 'GraphBuilder.graphDefinition';
    const graph = this.#graphHandle(what);
    this.#definitionRoot ??= definitionRoot(
      this.#context,
      withContext(this.#context, () => driver.cuCtxGetDevice()),
      this.#resources,
      'GraphBuilder',
    );
    return definitionView(graph, this.#definitionRoot, this.#kind === 'body');
  }

  #graphHandle(what: string): CUgraph {
    if (this.#kind === 'forked')
      throw new GraphStateError(`${what}: a builder made by split() shares its origin's graph; use the origin`);
    if (this.#kind === 'body') {
      if (this.#state === 'closed' || this.#state === 'building' || this.#state === 'invalidated')
        throw this.#stateError(what, 'is not building');
      return this.#bodyGraph!;
    }
    if (this.#state !== 'ended') throw this.#stateError(what, 'has ended building');
    return this.#graph!.handle;
  }

  /** Writes the captured graph in Graphviz DOT form to `path` (cuGraphDebugDotPrint). */
  debugDotPrint(path: string, options?: GraphDebugPrintOptions): void {
    const what = 'GraphBuilder.debugDotPrint';
    debugDotPrint(this.#graphHandle(what), path, options, what);
  }

  /**
   * Forks the capture: returns this builder and `count - 1` new ones (on new
   * streams) that depend on the work recorded so far. Work recorded on each
   * runs concurrently with the others' until they are joined.
   */
  split(count: number): GraphBuilder[] {
    const what = 'GraphBuilder.split';
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 2 || count > MAX_SPLIT) {
      throw new GraphArgumentError(
        `${what}: count must be an integer from 2 to ${MAX_SPLIT}, got ${formatValue(count)}`,
      );
    }
    this.#requireBuilding(what);
    this.#checkCapturing(what);
    const forks: GraphBuilder[] = [this];
    withContext(this.#context, () => {
      const event = Event.create();
      try {
        event.record(this.#stream);
        for (let i = 1; i < count; i++) {
          const stream = Stream.create({ nonBlocking: true });
          stream.wait(event);
          const fork = new GraphBuilder(BUILDER_TOKEN, {
            stream,
            ownsStream: true,
            context: this.#context,
            kind: 'forked',
            resources: this.#resources,
            capture: this.#capture,
            state: 'building',
          });
          this.#capture.openForks.add(fork);
          forks.push(fork);
        }
      } finally {
        event.close();
      }
    });
    return forks;
  }

  /**
   * Joins builders of one capture (from `split`) into one, which it returns:
   * the origin if it is among them, else the first. Work recorded on the
   * result after this depends on all of theirs; the others are closed.
   */
  static join(...builders: GraphBuilder[]): GraphBuilder {
    const what = 'GraphBuilder.join';
    if (builders.length < 2)
      throw new GraphArgumentError(`${what}: expected at least two builders, got ${builders.length}`);
    for (const b of builders)
      if (!(b instanceof GraphBuilder))
        throw new GraphArgumentError(`${what}: expected GraphBuilders, got ${formatValue(b)}`);
    if (new Set(builders).size !== builders.length) throw new GraphArgumentError(`${what}: a builder is given twice`);
    const capture = builders[0]!.#capture;
    for (const b of builders) {
      b.#requireBuilding(what);
      if (b.#capture !== capture)
        throw new GraphArgumentError(
          `${what}: the builders belong to different captures; only builders split from one origin can be joined`,
        );
    }
    const root = builders.find((b) => b.#kind !== 'forked') ?? builders[0]!;
    root.#checkCapturing(what);
    for (const b of builders) {
      if (b === root) continue;
      root.#stream.wait(b.#stream);
      b.#retire();
    }
    return root;
  }

  /** A joined fork: closed to its user, its stream kept (still part of the capture) until the capture ends. */
  #retire(): void {
    this.#capture.openForks.delete(this);
    if (this.#ownsStream) this.#capture.retiredStreams.push(this.#stream);
    this.#state = 'closed';
  }

  /** A condition for conditional nodes of this capture (see {@link GraphCondition}); with `defaultValue`, set to it at the start of each launch. */
  createCondition(defaultValue?: number): GraphCondition {
    const what = 'GraphBuilder.createCondition';
    this.#requireBuilding(what);
    this.#checkCapturing(what);
    const graph = driver.cuStreamGetCaptureInfo(this.#stream.handle).graph_out;
    return createCondition(graph, this.#context, defaultValue, what);
  }

  #conditional(
    kind: ConditionalKind,
    condition: GraphCondition,
    count: number | undefined,
    what: string,
  ): GraphBuilder[] {
    this.#requireBuilding(what);
    this.#checkCapturing(what);
    const stream = this.#stream.handle;
    const info = driver.cuStreamGetCaptureInfo(stream);
    const { node, bodies } = addConditionalNode(
      {
        graph: info.graph_out,
        dependencies: info.dependencies_out,
        edges: info.edgeData_out,
        condition,
        kind,
        count,
        context: this.#context,
      },
      what,
    );
    driver.cuStreamUpdateCaptureDependencies(
      stream,
      [node],
      null,
      driver.CUstreamUpdateCaptureDependencies_flags.CU_STREAM_SET_CAPTURE_DEPENDENCIES,
    );
    return withContext(this.#context, () =>
      bodies.map(
        (bodyGraph) =>
          new GraphBuilder(BUILDER_TOKEN, {
            stream: Stream.create({ nonBlocking: true }),
            ownsStream: true,
            context: this.#context,
            kind: 'body',
            resources: this.#resources,
            capture: newCapture(),
            bodyGraph,
            state: 'new',
          }),
      ),
    );
  }

  /** Records an if node; returns the builder of its body, which runs when `condition` is non-zero. Build the body with its beginBuilding()/endBuilding(). */
  ifThen(condition: GraphCondition): GraphBuilder {
    return this.#conditional('if', condition, undefined, 'GraphBuilder.ifThen')[0]!;
  }

  /** Records an if/else node; returns the builders of its bodies: [when non-zero, when zero] (CUDA 12.8 drivers and newer). */
  ifElse(condition: GraphCondition): [GraphBuilder, GraphBuilder] {
    const [then, otherwise] = this.#conditional('if-else', condition, undefined, 'GraphBuilder.ifElse');
    return [then!, otherwise!];
  }

  /** Records a while node; returns the builder of its body, which runs again and again while `condition` is non-zero. */
  whileLoop(condition: GraphCondition): GraphBuilder {
    return this.#conditional('while', condition, undefined, 'GraphBuilder.whileLoop')[0]!;
  }

  /** Records a switch node; returns the builders of its `count` bodies: body `i` runs when `condition` is `i` (CUDA 12.8 drivers and newer). */
  switch(condition: GraphCondition, count: number): GraphBuilder[] {
    return this.#conditional('switch', condition, count, 'GraphBuilder.switch');
  }

  /** Records a child graph node: a copy of `child` (a GraphBuilder that has ended building, or a GraphDefinition) runs here as one node. */
  embed(child: GraphSource): void {
    const what = 'GraphBuilder.embed';
    this.#requireBuilding(what);
    if (!isGraphSource(child))
      throw new GraphArgumentError(
        `${what}: expected a GraphBuilder that has ended building, or a GraphDefinition, got ${formatValue(child)}`,
      );
    if (child === this) throw new GraphArgumentError(`${what}: a builder cannot embed itself`);
    const parts = child[GRAPH_SOURCE](what);
    this.#checkCapturing(what);
    const stream = this.#stream.handle;
    const info = driver.cuStreamGetCaptureInfo(stream);
    const node = driver.cuGraphAddChildGraphNode(info.graph_out, info.dependencies_out, parts.graph);
    driver.cuStreamUpdateCaptureDependencies(
      stream,
      [node],
      null,
      driver.CUstreamUpdateCaptureDependencies_flags.CU_STREAM_SET_CAPTURE_DEPENDENCIES,
    );
    this.#resources.merge(parts.resources);
  }

  /**
   * Records a host function: `fn` runs on the JS thread each time a launch of
   * the graph gets here (the driver queues the call and goes on; later work
   * does not wait for `fn`). The graph holds `fn` while it lives. Resolve a
   * promise from `fn` to wait for it.
   */
  callback(fn: () => void): void {
    const what = 'GraphBuilder.callback';
    this.#requireBuilding(what);
    if (typeof fn !== 'function')
      throw new GraphArgumentError(`${what}: expected a function to call, got ${formatValue(fn)}`);
    driver.cuLaunchHostFunc(this.#stream.handle, fn);
    this.#resources.retain(fn);
  }

  /** Keeps `values` (Buffers, views, arrays, anything) alive, and checked open at each launch, with the graph. */
  retain(...values: unknown[]): this {
    if (this.#state === 'closed') throw this.#stateError('GraphBuilder.retain', 'is open');
    this.#resources.retainAll(values);
    return this;
  }

  /** @internal `launch(builder, config, kernel, ...args)`: records the launch, and holds the kernel and the arguments. */
  [RECORD_LAUNCH](
    plan: LaunchPlanCore,
    config: LaunchConfig | LaunchConfigOptions,
    kernel: KernelArgument,
    args: readonly unknown[],
  ): void {
    if (this.#state !== 'building') this.#requireBuilding('launch');
    plan.run(config, this.#stream.handle, unwrapConditions(args));
    this.#resources.retain(kernel);
    this.#resources.retainAll(args);
  }

  /** The capture stream (the stream protocol): work given the builder as its stream is recorded. */
  [STREAM_PROTOCOL](): StreamProtocolResult {
    return { version: 0, handle: this.#stream.handle };
  }

  /** @internal */
  [GRAPH_SOURCE](what: string): GraphSourceParts {
    if (this.#kind === 'forked')
      throw new GraphStateError(`${what}: a builder made by split() has no graph of its own; use its origin`);
    if (this.#state !== 'ended') throw this.#stateError(what, 'has ended building');
    return { graph: this.#kind === 'body' ? this.#bodyGraph! : this.#graph!.handle, resources: this.#resources };
  }

  /**
   * Closes the builder; safe to call twice. A builder that is still building
   * ends its capture without a graph (joining its open forks first); a fork
   * that is still building is joined into its origin. The captured graph is
   * destroyed (executable graphs made from it live on); a stream the builder
   * made is destroyed, a borrowed one is not.
   */
  close(): void {
    if (this.#state === 'closed') return;
    try {
      if (this.#state === 'building') {
        if (this.#kind === 'forked') {
          const origin = this.#capture.origin;
          this.#capture.openForks.delete(this);
          if (origin !== undefined && origin.#state === 'building') {
            origin.#stream.wait(this.#stream);
            this.#retire();
          }
          return;
        }
        for (const fork of [...this.#capture.openForks]) {
          this.#stream.wait(fork.#stream);
          fork.#retire();
        }
        try {
          const graph = driver.cuStreamEndCapture(this.#stream.handle);
          if (this.#kind === 'primary' && graph !== 0n) driver.cuGraphDestroy(graph);
        } catch {
          // an invalidated capture: the stream has left capture mode
        }
        this.#closeRetired();
      }
      if (this.#definitionRoot) closeDefinitionRoot(this.#definitionRoot);
      this.#graph?.close();
    } finally {
      this.#state = 'closed';
      if (this.#ownsStream && !this.#capture.retiredStreams.includes(this.#stream)) this.#stream.close();
    }
  }

  [Symbol.dispose](): void {
    this.close();
  }

  toString(): string {
    return `GraphBuilder(${this.#kind}, ${this.#state === 'new' ? 'not started' : this.#state})`;
  }
}
