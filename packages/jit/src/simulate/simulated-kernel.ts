import { KernelArgumentError, type SourceLocator } from '../errors.js';
import type { TypedKernel } from '../types/typed-ir.js';
import { bindArrayArgument } from './array-argument.js';
import { FaultSites } from './fault-sites.js';
import { generateKernelSource, type GeneratedKernel } from './kernel-source.js';
import { convertScalarArgument } from './scalar-argument.js';
import { createSimulatorRuntime, type SimulatorRuntime } from './simulator-runtime.js';

/** The largest grid or block extent the simulator takes: special registers are i32. */
const MAX_LAUNCH_EXTENT = 2 ** 31 - 1;

function checkExtents(what: 'grid' | 'block', extents: readonly [number, number, number]): void {
  const ok = Array.isArray(extents) && extents.length === 3 && extents.every((n) => Number.isInteger(n) && n >= 1 && n <= MAX_LAUNCH_EXTENT);
  if (!ok) throw new KernelArgumentError(`the ${what} must be three positive integers [x, y, z], got ${JSON.stringify(extents)}`);
}

/**
 * A TypedKernel run on the CPU, thread by thread, with the GPU's semantics
 * (typed-ir.ts). The kernel is compiled once, here, to a JavaScript function
 * that loops over the blocks and the threads of a launch and runs the
 * kernel's body inline for each thread; a run only binds the arguments.
 * Threads run one after another, blocks z, y, x and threads z, y, x.
 */
export class SimulatedKernel {
  /** The generated JavaScript, for inspection and tests. */
  readonly source: string;
  readonly #kernel: TypedKernel;
  readonly #simulate: GeneratedKernel;

  constructor(kernel: TypedKernel, locator: SourceLocator) {
    this.#kernel = kernel;
    const sites = new FaultSites();
    this.source = generateKernelSource(kernel, sites);
    const factory = new Function('rt', this.source) as (rt: SimulatorRuntime) => GeneratedKernel;
    this.#simulate = factory(createSimulatorRuntime(kernel, sites, locator));
  }

  /** grid and block are [x, y, z] triples; args in the kernel's parameter order. */
  run(grid: readonly [number, number, number], block: readonly [number, number, number], args: readonly unknown[]): void {
    checkExtents('grid', grid);
    checkExtents('block', block);
    const params = this.#kernel.params;
    if (args.length !== params.length) {
      throw new KernelArgumentError(`${this.#kernel.symbol} takes ${params.length} argument(s) (${params.map((p) => p.name).join(', ')}), got ${args.length}`);
    }
    const values = params.map((param, i) => (param.kind === 'scalar' ? convertScalarArgument(param, i, args[i]) : bindArrayArgument(param, i, args[i])));
    this.#simulate(grid[0], grid[1], grid[2], block[0], block[1], block[2], values);
  }
}
