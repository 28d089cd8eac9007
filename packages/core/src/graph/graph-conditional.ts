import {
  driver,
  type CUcontext,
  type CUgraph,
  type CUgraphConditionalHandle,
  type CUgraphNode,
  type DriverTypes,
} from '@cuda-js/bindings';
import { formatValue } from '@cuda-js/memory-view';
import { driverVersion } from '../context/driver-init.js';
import { GraphArgumentError, GraphStateError } from '../errors.js';

/** The kinds of conditional node: `if` (one body, or two with `ifElse`), `while`, `switch` (one body per case). */
export type ConditionalKind = 'if' | 'if-else' | 'while' | 'switch';

/** The driver that each kind first appeared in (cuda.core checks the same versions). */
const MINIMUM_DRIVER: Readonly<Record<ConditionalKind, number>> = {
  if: 12030,
  while: 12030,
  'if-else': 12080,
  switch: 12080,
};

/**
 * The condition of conditional graph nodes (a `CUgraphConditionalHandle`),
 * made by `createCondition()` of a GraphBuilder or GraphDefinition and passed to
 * its `ifThen`, `ifElse`, `whileLoop` or `switch`.
 *
 * Kernels of the same graph set it with the device runtime's
 * `cudaGraphSetConditional(handle, value)`: pass the condition to them as an
 * argument (a 64-bit `cudaGraphConditionalHandle` parameter). A GraphBuilder's
 * `launch` and a GraphDefinition's `launch` take the GraphCondition itself;
 * elsewhere pass `condition.handle`. `cudaGraphSetConditional` lives in
 * `libcudadevrt.a`: compile such kernels with `-rdc=true` and link them with it.
 *
 * With a `defaultValue`, the value is set to it at the start of every launch
 * of the graph (`CU_GRAPH_COND_ASSIGN_DEFAULT`); without, it keeps what the
 * last launch left (0 at first).
 */
export class GraphCondition {
  /** @internal Made by createCondition() of a GraphBuilder or GraphDefinition. */
  constructor(
    /** The CUgraphConditionalHandle: a 64-bit value that kernels receive as `cudaGraphConditionalHandle`. */
    readonly handle: CUgraphConditionalHandle,
    /** @internal The CUgraph whose conditional nodes may use it. */
    readonly graph: CUgraph,
    /** The value assigned at the start of each launch, if any. */
    readonly defaultValue: number | undefined,
  ) {
    Object.freeze(this);
  }

  toString(): string {
    return `GraphCondition(0x${this.handle.toString(16)}${this.defaultValue === undefined ? '' : `, default ${this.defaultValue}`})`;
  }
}

/** cuGraphConditionalHandleCreate on `graph` (a CUgraph) in `context`; `what` names the caller. */
export function createCondition(
  graph: CUgraph,
  context: CUcontext,
  defaultValue: number | undefined,
  what: string,
): GraphCondition {
  if (
    defaultValue !== undefined &&
    (typeof defaultValue !== 'number' ||
      !Number.isInteger(defaultValue) ||
      defaultValue < 0 ||
      defaultValue > 0xffffffff)
  ) {
    throw new GraphArgumentError(
      `${what}: defaultValue must be an unsigned 32-bit integer (0..2^32-1) or left out, got ${formatValue(defaultValue)}`,
    );
  }
  requireDriver('if', what);
  // CU_GRAPH_COND_ASSIGN_DEFAULT: the default value is assigned at the start of each launch
  const flags = defaultValue === undefined ? 0 : driver.constants.CU_GRAPH_COND_ASSIGN_DEFAULT;
  const handle = driver.cuGraphConditionalHandleCreate(graph, context, defaultValue ?? 0, flags);
  return new GraphCondition(handle, graph, defaultValue);
}

function requireDriver(kind: ConditionalKind, what: string): void {
  const needed = MINIMUM_DRIVER[kind];
  const v = driver.cuDriverGetVersion();
  if (v < needed) {
    const { major, minor } = driverVersion();
    throw new GraphStateError(
      `${what}: '${kind}' conditional nodes need a CUDA ${Math.floor(needed / 1000)}.${(needed % 1000) / 10} driver or newer; this one is CUDA ${major}.${minor}`,
    );
  }
}

/**
 * The most cases of a switch node: each case is a body graph made here (a
 * driver graph and its JS definition), so a count past this bound would run
 * for minutes before the driver could refuse it.
 */
export const MAX_SWITCH_CASES = 1024;

/** The number of body graphs of a conditional node of `kind` (`count` cases for a switch), checked. */
export function conditionalBodyCount(kind: ConditionalKind, count: number | undefined, what: string): number {
  if (kind === 'if' || kind === 'while') return 1;
  if (kind === 'if-else') return 2;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_SWITCH_CASES) {
    throw new GraphArgumentError(
      `${what}: a switch needs an integer count of cases from 1 to ${MAX_SWITCH_CASES}, got ${formatValue(count)}`,
    );
  }
  return count;
}

/** The part of a conditional node's description that the driver needs. */
export interface ConditionalNodeRequest {
  readonly graph: CUgraph;
  readonly dependencies: readonly CUgraphNode[];
  /** Edge data per dependency (from a capture), or null for default edges. */
  readonly edges: readonly DriverTypes.CUgraphEdgeData[] | null;
  readonly condition: unknown;
  readonly kind: ConditionalKind;
  readonly count?: number;
  readonly context: CUcontext;
}

/**
 * Adds a conditional node (cuGraphAddNode, CU_GRAPH_NODE_TYPE_CONDITIONAL)
 * and returns it with its body graphs (CUgraphs owned by the node), after
 * checking that the condition belongs to the graph. `what` names the caller.
 */
export function addConditionalNode(
  request: ConditionalNodeRequest,
  what: string,
): { node: CUgraphNode; bodies: CUgraph[] } {
  const { condition, kind } = request;
  if (!(condition instanceof GraphCondition)) {
    throw new GraphArgumentError(
      `${what}: expected a GraphCondition (from createCondition()), got ${formatValue(condition)}`,
    );
  }
  if (condition.graph !== request.graph) {
    throw new GraphArgumentError(
      `${what}: ${condition} was made for another graph (0x${condition.graph.toString(16)}); a condition belongs to the graph that holds its conditional node (here 0x${request.graph.toString(16)}), so make it with this graph's createCondition()`,
    );
  }
  const size = conditionalBodyCount(kind, request.count, what);
  requireDriver(kind, what);
  const types = driver.CUgraphConditionalNodeType;
  const type =
    kind === 'while'
      ? types.CU_GRAPH_COND_TYPE_WHILE
      : kind === 'switch'
        ? types.CU_GRAPH_COND_TYPE_SWITCH
        : types.CU_GRAPH_COND_TYPE_IF;
  const added = driver.cuGraphAddNode(request.graph, request.dependencies, request.edges, {
    type: driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_CONDITIONAL,
    conditional: { handle: condition.handle, type, size, ctx: request.context },
  });
  return { node: added.phGraphNode, bodies: added.phGraph_out };
}

/** `args` with each GraphCondition replaced by its handle (a 64-bit kernel argument); the same array when there is none. */
export function unwrapConditions(args: readonly unknown[]): readonly unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg instanceof GraphCondition) {
      out ??= args.slice();
      out[i] = arg.handle;
    }
  }
  return out ?? args;
}
