import type { Event } from '@cuda-js/streams';
import type { Buffer } from '../memory/buffer.js';
import type { ConditionalKind, GraphCondition } from './graph-conditional.js';
import type { AllocNode, ConditionalNode, GraphNode } from './graph-node.js';
import type { GraphSource } from './graph-source.js';
import type { KernelArgument } from '../launch/kernel-parameters.js';
import type { LaunchConfig, LaunchConfigOptions } from '../launch/launch-config.js';

/** Where a copy or fill node reads or writes: a Buffer, or a device (or pinned host) address. */
export type GraphMemory = Buffer | bigint;

/** Options of a fill node. */
export interface GraphMemsetOptions {
  /** Bytes per element of the pattern: 1 (default), 2 or 4. */
  readonly width?: 1 | 2 | 4 | undefined;
  /** Elements to fill; default the whole Buffer. Required for an address. */
  readonly count?: number | undefined;
}

/** Options of an allocation node. */
export interface GraphAllocateOptions {
  /** The ordinal of the device to allocate on (default: the graph's). */
  readonly device?: number | undefined;
}

/** @internal One node to add to a GraphDefinition, as its and GraphNode's methods describe it. */
export type NodeSpec =
  | {
      readonly kind: 'kernel';
      readonly config: LaunchConfig | LaunchConfigOptions;
      readonly kernel: KernelArgument;
      readonly args: readonly unknown[];
    }
  | { readonly kind: 'memcpy'; readonly dst: GraphMemory; readonly src: GraphMemory; readonly size: number | undefined }
  | { readonly kind: 'memset'; readonly dst: GraphMemory; readonly value: number; readonly options: GraphMemsetOptions }
  | { readonly kind: 'alloc'; readonly size: number; readonly options: GraphAllocateOptions }
  | { readonly kind: 'free'; readonly ptr: unknown }
  | { readonly kind: 'record' | 'wait'; readonly event: Event }
  | { readonly kind: 'embed'; readonly child: GraphSource }
  | { readonly kind: 'callback'; readonly fn: () => void }
  | { readonly kind: 'empty'; readonly extra: readonly GraphNode[] }
  | {
      readonly kind: 'conditional';
      readonly type: ConditionalKind;
      readonly condition: GraphCondition;
      readonly count?: number;
    };

/**
 * The node-adding methods shared by a GraphDefinition (whose nodes so made
 * depend on nothing: entry points) and a GraphNode (whose nodes so made depend
 * on it). Each returns the new node, so that a chain of calls is a chain of
 * dependencies: `def.memset(x, 0).launch(cfg, k, x).memcpy(y, x)`.
 */
export abstract class GraphNodeMethods {
  /** @internal Adds the node that `spec` describes. */
  protected abstract add(spec: NodeSpec): GraphNode;

  /** A kernel node: `kernel` with `config` and `args`, packed and checked as `launch` packs them (a GraphCondition is passed as its handle). */
  launch(config: LaunchConfig | LaunchConfigOptions, kernel: KernelArgument, ...args: unknown[]): GraphNode {
    return this.add({ kind: 'kernel', config, kernel, args });
  }

  /** A copy node of `size` bytes (default: the Buffers' common size) from `src` to `dst`: Buffers, device addresses or pinned host addresses. */
  memcpy(dst: GraphMemory, src: GraphMemory, size?: number): GraphNode {
    return this.add({ kind: 'memcpy', dst, src, size });
  }

  /** A fill node: `dst` filled with the byte, 16-bit or 32-bit pattern `value` (`width` 1, 2 or 4). */
  memset(dst: GraphMemory, value: number, options: GraphMemsetOptions = {}): GraphNode {
    return this.add({ kind: 'memset', dst, value, options });
  }

  /** An allocation node: `size` bytes of device memory, at `ptr` while the graph runs, until a {@link deallocate} node (or the graph's end, with autoFreeOnLaunch). */
  allocate(size: number, options: GraphAllocateOptions = {}): AllocNode {
    return this.add({ kind: 'alloc', size, options }) as AllocNode;
  }

  /** A free node for memory of an allocation node (the node, or its `ptr`). */
  deallocate(ptr: AllocNode | bigint): GraphNode {
    return this.add({ kind: 'free', ptr });
  }

  /** An event record node: `event` records when the graph reaches it. */
  record(event: Event): GraphNode {
    return this.add({ kind: 'record', event });
  }

  /** An event wait node: the graph waits here for `event`'s last record. */
  wait(event: Event): GraphNode {
    return this.add({ kind: 'wait', event });
  }

  /** A child graph node: a copy of `child` (a GraphDefinition, or a GraphBuilder that has ended building) run as one node. */
  embed(child: GraphSource): GraphNode {
    return this.add({ kind: 'embed', child });
  }

  /**
   * A host node: `fn` runs on the JS thread each time a launch reaches the
   * node (the driver queues the call and goes on; nodes after it do not wait
   * for `fn`). Host nodes run their functions in the order that launches
   * reach them. Resolve a promise from `fn` to wait for it.
   */
  callback(fn: () => void): GraphNode {
    return this.add({ kind: 'callback', fn });
  }

  /** An empty node: a point to depend on. */
  empty(): GraphNode {
    return this.add({ kind: 'empty', extra: [] });
  }

  /** An empty node that depends on all of `nodes` (and on this node, for a node's method): where branches meet. */
  join(...nodes: GraphNode[]): GraphNode {
    return this.add({ kind: 'empty', extra: nodes });
  }

  /** An if node: its body (`node.body`) runs when `condition` is non-zero. */
  ifThen(condition: GraphCondition): ConditionalNode {
    return this.add({ kind: 'conditional', type: 'if', condition }) as ConditionalNode;
  }

  /** An if/else node: `node.bodies[0]` runs when `condition` is non-zero, `node.bodies[1]` otherwise (CUDA 12.8 drivers and newer). */
  ifElse(condition: GraphCondition): ConditionalNode {
    return this.add({ kind: 'conditional', type: 'if-else', condition }) as ConditionalNode;
  }

  /** A while node: its body runs again and again while `condition` is non-zero (it is tested before each run). */
  whileLoop(condition: GraphCondition): ConditionalNode {
    return this.add({ kind: 'conditional', type: 'while', condition }) as ConditionalNode;
  }

  /** A switch node: `node.bodies[i]` runs when `condition` is `i`; none when it is `count` or more (CUDA 12.8 drivers and newer). */
  switch(condition: GraphCondition, count: number): ConditionalNode {
    return this.add({ kind: 'conditional', type: 'switch', condition, count }) as ConditionalNode;
  }
}

/** @internal The method under which a GraphDefinition adds a node after `dependencies`. */
export const ADD_NODE: unique symbol = Symbol('cuda-js graph add node');

/** @internal What a GraphNode needs of its GraphDefinition. */
export interface NodeOwner {
  [ADD_NODE](dependencies: readonly GraphNode[], spec: NodeSpec): GraphNode;
}
