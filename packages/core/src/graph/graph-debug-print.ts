import { driver, type CUgraph, type DriverEnums } from '@cuda-js/bindings';
import { formatValue } from '@cuda-js/memory-view';
import { GraphArgumentError } from '../errors.js';
import { isBoolean } from '@cuda-js/options';
import { checkCoreOptions } from '../core-options.js';

/** What `debugDotPrint` writes besides the graph's shape (cuda.core's GraphDebugPrintOptions); each false by default. */
export interface GraphDebugPrintOptions {
  /** Everything, as if every option were set. */
  readonly verbose?: boolean | undefined;
  /** CUDA runtime names for the structures. */
  readonly runtimeTypes?: boolean | undefined;
  readonly kernelNodeParams?: boolean | undefined;
  readonly memcpyNodeParams?: boolean | undefined;
  readonly memsetNodeParams?: boolean | undefined;
  readonly hostNodeParams?: boolean | undefined;
  readonly eventNodeParams?: boolean | undefined;
  readonly extSemasSignalNodeParams?: boolean | undefined;
  readonly extSemasWaitNodeParams?: boolean | undefined;
  readonly kernelNodeAttributes?: boolean | undefined;
  /** Node and kernel function handles. */
  readonly handles?: boolean | undefined;
  readonly memAllocNodeParams?: boolean | undefined;
  readonly memFreeNodeParams?: boolean | undefined;
  readonly batchMemOpNodeParams?: boolean | undefined;
  /** Edge numbering. */
  readonly extraTopoInfo?: boolean | undefined;
  readonly conditionalNodeParams?: boolean | undefined;
}

const FLAG_NAMES: Readonly<
  Record<keyof GraphDebugPrintOptions, Extract<keyof DriverEnums['CUgraphDebugDot_flags'], string>>
> = {
  verbose: 'CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE',
  runtimeTypes: 'CU_GRAPH_DEBUG_DOT_FLAGS_RUNTIME_TYPES',
  kernelNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_PARAMS',
  memcpyNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_MEMCPY_NODE_PARAMS',
  memsetNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_MEMSET_NODE_PARAMS',
  hostNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_HOST_NODE_PARAMS',
  eventNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_EVENT_NODE_PARAMS',
  extSemasSignalNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_EXT_SEMAS_SIGNAL_NODE_PARAMS',
  extSemasWaitNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_EXT_SEMAS_WAIT_NODE_PARAMS',
  kernelNodeAttributes: 'CU_GRAPH_DEBUG_DOT_FLAGS_KERNEL_NODE_ATTRIBUTES',
  handles: 'CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES',
  memAllocNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_MEM_ALLOC_NODE_PARAMS',
  memFreeNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_MEM_FREE_NODE_PARAMS',
  batchMemOpNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_BATCH_MEM_OP_NODE_PARAMS',
  extraTopoInfo: 'CU_GRAPH_DEBUG_DOT_FLAGS_EXTRA_TOPO_INFO',
  conditionalNodeParams: 'CU_GRAPH_DEBUG_DOT_FLAGS_CONDITIONAL_NODE_PARAMS',
};

const DEBUG_PRINT_OPTIONS = Object.fromEntries(Object.keys(FLAG_NAMES).map((key) => [key, isBoolean]));

/** The CUgraphDebugDot_flags of `options`, checked (an unknown option or a non-boolean is a CoreOptionError). */
export function debugDotFlags(options: GraphDebugPrintOptions | undefined, what: string): number {
  if (options === undefined) return 0;
  if (options === null || typeof options !== 'object')
    throw new GraphArgumentError(`${what}: options must be an object, got ${formatValue(options)}`);
  options = checkCoreOptions(what, options, DEBUG_PRINT_OPTIONS);
  let flags = 0;
  for (const [key, flag] of Object.entries(FLAG_NAMES))
    if (options[key as keyof GraphDebugPrintOptions] === true) flags |= driver.CUgraphDebugDot_flags[flag];
  return flags;
}

/** cuGraphDebugDotPrint of `graph` (a CUgraph) to `path`. */
export function debugDotPrint(
  graph: CUgraph,
  path: string,
  options: GraphDebugPrintOptions | undefined,
  what: string,
): void {
  if (typeof path !== 'string' || path.length === 0)
    throw new GraphArgumentError(`${what}: path must be a non-empty string, got ${formatValue(path)}`);
  driver.cuGraphDebugDotPrint(graph, path, debugDotFlags(options, what));
}
