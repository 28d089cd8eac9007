import { KernelArgumentError, SimulatorError, type SourceLocator } from '../errors.js';
import type { TypedKernel } from '../typing/typed-ir.js';
import { bindArrayArgument } from './array-argument.js';
import { FaultSites } from './fault-sites.js';
import { checkSimulatedLaunch, simulatedForallBlockSize } from './launch-limits.js';
import {
  type ArrayArgument,
  generateKernelSource,
  type GeneratedKernel,
  type SimulationMode,
  simulationMode,
} from './kernel-source.js';
import { MemoryPlan } from './memory-plan.js';
import { convertScalarArgument } from './scalar-argument.js';
import { createSimulatorRuntime, type PrintSink, type SimulatorRuntime, simulatorBudget } from './simulator-runtime.js';

/** The largest grid or block extent the simulator takes: special registers are i32. */
const MAX_LAUNCH_EXTENT = 2 ** 31 - 1;

function checkExtents(what: 'grid' | 'block', extents: readonly [number, number, number]): void {
  const ok =
    Array.isArray(extents) &&
    extents.length === 3 &&
    extents.every((n) => Number.isInteger(n) && n >= 1 && n <= MAX_LAUNCH_EXTENT);
  if (!ok)
    throw new KernelArgumentError(
      `the ${what} must be three positive integers [x, y, z], got ${JSON.stringify(extents)}`,
    );
}

export interface SimulatedKernelOptions {
  /** Where the kernel's prints go (default: the module's sink, process.stdout; see setSimulatorPrintSink). */
  readonly print?: PrintSink;
}

export interface SimulatedRunOptions {
  /** Bytes of dynamic shared memory per block (default 0): the extent of dynamic shared arrays. */
  readonly sharedMemory?: number;
  /** Loop iterations the launch may take, all threads together (default: `CUDA_JS_SIMULATOR_BUDGET`, else 10^10); past it the launch stops with a SimulatorError at the loop. */
  readonly simulatorBudget?: number;
}

/**
 * A TypedKernel run on the CPU, thread by thread, with the GPU's semantics
 * (typed-ir.ts). The kernel is compiled once, here, to a JavaScript function;
 * a run only binds the arguments.
 *
 * A kernel without collectives runs its threads one after another, blocks
 * z, y, x and threads z, y, x, with the body inline in the thread loop. A
 * kernel with collectives (barriers, votes, shuffles, match, activemask)
 * runs in lockstep: each thread is a generator, and a scheduler moves the
 * threads of a block (of the grid, for a grid barrier) from collective to
 * collective (see lockstep-scheduler.ts). Accesses of shared memory are
 * checked for races in both modes (race-shadow.ts).
 */
export class SimulatedKernel {
  /** The generated JavaScript, for inspection and tests. */
  readonly source: string;
  /** How the kernel runs: fast, or lockstep (per block, or the whole grid). */
  readonly mode: SimulationMode;
  readonly #kernel: TypedKernel;
  readonly #simulate: GeneratedKernel;
  readonly #runtime: SimulatorRuntime;
  /** Bytes of the kernel's static shared arrays (what a block has before its dynamic shared memory). */
  readonly staticSharedBytes: number;
  /** Whether a launch runs now: the runtime's state (budget, shared memory, lockstep threads) is one launch's. */
  #running = false;

  constructor(kernel: TypedKernel, locator: SourceLocator, options: SimulatedKernelOptions = {}) {
    this.#kernel = kernel;
    const sites = new FaultSites();
    const plan = new MemoryPlan(kernel.memories ?? []);
    this.staticSharedBytes = plan.shared.reduce((sum, layout) => sum + layout.length * layout.bytes, 0);
    this.mode = simulationMode(kernel);
    this.source = generateKernelSource(kernel, sites, plan);
    const factory = new Function('rt', this.source) as (rt: SimulatorRuntime) => GeneratedKernel;
    this.#runtime = createSimulatorRuntime(kernel, sites, locator, {
      plan,
      grid: this.mode.grid,
      ...(options.print ? { print: options.print } : {}),
    });
    this.#simulate = factory(this.#runtime);
  }

  /** The block size of `forall` (the GPU path's occupancy choice, see launch-limits.ts). */
  forallBlockSize(sharedMemory = 0): number {
    return simulatedForallBlockSize(this.staticSharedBytes, sharedMemory);
  }

  /** grid and block are [x, y, z] triples; args in the kernel's parameter order. */
  run(
    grid: readonly [number, number, number],
    block: readonly [number, number, number],
    args: readonly unknown[],
    options: SimulatedRunOptions = {},
  ): void {
    if (this.#running) {
      throw new SimulatorError(
        `${this.#kernel.symbol} was launched again while its simulated launch runs (from a callback of that launch: a declareDevice simulate function, a print sink, an argument's protocol method); the simulator runs one launch of a kernel at a time, as a GPU stream does`,
      );
    }
    this.#running = true;
    try {
      this.#run(grid, block, args, options);
    } finally {
      this.#running = false;
    }
  }

  #run(
    grid: readonly [number, number, number],
    block: readonly [number, number, number],
    args: readonly unknown[],
    options: SimulatedRunOptions,
  ): void {
    checkExtents('grid', grid);
    checkExtents('block', block);
    const sharedMemory = options.sharedMemory ?? 0;
    if (!Number.isSafeInteger(sharedMemory) || sharedMemory < 0 || sharedMemory > MAX_LAUNCH_EXTENT) {
      throw new KernelArgumentError(
        `sharedMemory must be a whole number of bytes from 0 to 2^31-1, got ${String(sharedMemory)}`,
      );
    }
    checkSimulatedLaunch(
      this.#kernel.symbol,
      grid,
      block,
      this.staticSharedBytes,
      sharedMemory,
      this.#kernel.collectives.grid,
    );
    const params = this.#kernel.params;
    if (args.length !== params.length) {
      throw new KernelArgumentError(
        `${this.#kernel.symbol} takes ${params.length} argument(s) (${params.map((p) => p.name).join(', ')}), got ${args.length}`,
      );
    }
    const values = params.map((param, i) =>
      param.kind === 'scalar' ? convertScalarArgument(param, i, args[i]) : bindArrayArgument(param, i, args[i]),
    );
    const steps = simulatorBudget(options.simulatorBudget);
    this.#runtime.budget.left = steps;
    this.#runtime.budget.total = steps;
    this.#simulate(grid[0], grid[1], grid[2], block[0], block[1], block[2], values, sharedMemory);
    this.#checkAttached(values);
  }

  /**
   * The arrays the kernel ran on are in place: one whose buffer a callback of
   * the launch (a `simulate` stand-in, a print sink) detached or shrank has
   * lost the writes made after that, and read garbage: a SimulatorError
   * naming it, never a launch that seemed to work.
   */
  #checkAttached(values: readonly unknown[]): void {
    const params = this.#kernel.params;
    for (let i = 0; i < params.length; i++) {
      const param = params[i]!;
      if (param.kind !== 'array') continue;
      const bound = values[i] as ArrayArgument;
      const data = bound.data as ArrayLike<number> & { readonly byteLength: number };
      const elements = bound.shape.reduce((a, b) => a * b, 1);
      if (elements === 0 || data.byteLength > 0) continue;
      throw new SimulatorError(
        `${this.#kernel.symbol}: argument ${i + 1} ('${param.name}') was detached or shrunk while the launch ran (by a callback of the launch: a simulate stand-in, a print sink), so its reads and writes after that went nowhere; keep the array's buffer as it is until the launch returns`,
      );
    }
  }
}
