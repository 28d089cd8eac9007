import { driver, type CUdeviceptr, type CUgraphNode } from '@cuda-js/bindings';
import type { GraphCondition } from './graph-conditional.js';
import type { GraphDefinition } from './graph-definition.js';
import { ADD_NODE, GraphNodeMethods, type NodeOwner, type NodeSpec } from './graph-node-methods.js';

/**
 * A node of a {@link GraphDefinition}. Its methods add nodes that depend on
 * it; `join` merges branches. It stays valid while its graph lives.
 */
export class GraphNode extends GraphNodeMethods {
  /** @internal Made by GraphDefinition. */
  constructor(
    /** The graph definition it belongs to (a body's definition, for a node inside a conditional body). */
    readonly graph: GraphDefinition,
    /** The CUgraphNode handle. */
    readonly handle: CUgraphNode,
    /** Its CUgraphNodeType (`driver.CUgraphNodeType`). */
    readonly type: number,
  ) {
    super();
  }

  /** The name of its node type: `CU_GRAPH_NODE_TYPE_KERNEL`, ... */
  get typeName(): string {
    return driver.CUgraphNodeType[this.type] ?? `CUgraphNodeType ${this.type}`;
  }

  /** The nodes it depends on, in the graph's order (cuGraphNodeGetDependencies), as handles. */
  get dependencyHandles(): CUgraphNode[] {
    return driver.cuGraphNodeGetDependencies(this.handle).dependencies;
  }

  protected override add(spec: NodeSpec): GraphNode {
    const owner = this.graph as unknown as NodeOwner;
    return owner[ADD_NODE]([this], spec);
  }

  override toString(): string {
    return `GraphNode(${this.typeName.replace('CU_GRAPH_NODE_TYPE_', '').toLowerCase()}, 0x${this.handle.toString(16)})`;
  }
}

/** An allocation node: its memory is at `ptr` while the graph runs, from this node until its free node. */
export class AllocNode extends GraphNode {
  /** @internal */
  constructor(
    graph: GraphDefinition,
    handle: CUgraphNode,
    type: number,
    /** The device address that the graph's nodes may use (the same at every launch). */
    readonly ptr: CUdeviceptr,
    /** Size in bytes. */
    readonly size: number,
  ) {
    super(graph, handle, type);
  }
}

/** A conditional node (if, if/else, while, switch): its body graphs, one per branch, to add nodes to. */
export class ConditionalNode extends GraphNode {
  /** @internal */
  constructor(
    graph: GraphDefinition,
    handle: CUgraphNode,
    type: number,
    /** The condition that chooses. */
    readonly condition: GraphCondition,
    /** One GraphDefinition per branch (if: 1; if/else: 2, the else last; while: 1; switch: one per case), owned by the node. */
    readonly bodies: readonly GraphDefinition[],
  ) {
    super(graph, handle, type);
  }

  /** The first (for if and while nodes, the only) body. */
  get body(): GraphDefinition {
    return this.bodies[0]!;
  }
}
