import type { CUgraph } from '@cuda-js/bindings';
import type { GraphResources } from './graph-resources.js';

/** @internal The key under which a GraphBuilder or GraphDefinition gives its CUgraph to Graph.update and to embed(). */
export const GRAPH_SOURCE: unique symbol = Symbol('cuda-js graph source');

/** @internal What a finished graph source gives: its CUgraph (still owned by the source) and what its nodes use. */
export interface GraphSourceParts {
  readonly graph: CUgraph;
  readonly resources: GraphResources;
}

/** Anything a graph can be updated from or embed: a GraphBuilder that has ended building, or a GraphDefinition. */
export interface GraphSource {
  /** @internal Throws GraphStateError when the source is not finished; `what` names the caller. */
  [GRAPH_SOURCE](what: string): GraphSourceParts;
}

/** Whether `value` is a GraphBuilder or a GraphDefinition. */
export function isGraphSource(value: unknown): value is GraphSource {
  return (
    typeof value === 'object' && value !== null && typeof (value as Partial<GraphSource>)[GRAPH_SOURCE] === 'function'
  );
}
