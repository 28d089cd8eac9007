import { KernelArgumentError, SimulatorError, type SourceLocator } from '../errors.js';
import type { TypedKernel } from '../typing/typed-ir.js';
import { bigintToFloat32 } from './bigint-to-float32.js';
import { brev32, brev64, clz64, ffs32, ffs64, popc32, popc64 } from './bits-runtime.js';
import { fmaFloat32, fmaFloat64 } from './exact-fma.js';
import { HALF_FLOAT_NAMES, HALF_FLOAT_RUNTIME, type HalfFloatRuntime } from './half-float-runtime.js';
import { externalResult } from './external-result.js';
import { describeCalls, type FaultSites } from './fault-sites.js';
import { floatToI64, floatToInt, floatToU64 } from './float-to-integer.js';
import { LockstepGroup, type ThreadGenerator } from './lockstep-scheduler.js';
import {
  absI32,
  absI64,
  maxBigint,
  maxNumber,
  minBigint,
  minNumber,
  roundHalfUp,
  signBigint,
  signNumber,
} from './math-formulas.js';
import { type BlockMemory, MemoryPlan } from './memory-plan.js';
import { formatPrintf } from './print-runtime.js';
import { AccessKind, BlockClock, RaceClock, type RaceReporter } from './race-shadow.js';
import { SimulatorFault } from './simulator-fault.js';
import { threadName } from './thread-names.js';

/** Where the text of `print` goes: one call per print, with the formatted text (its newline included where the format has one). */
export type PrintSink = (text: string) => void;

const stdoutSink: PrintSink = (text) => {
  process.stdout.write(text);
};
let defaultSink: PrintSink = stdoutSink;

/**
 * Sets where kernels' prints go when their SimulatedKernel was made without
 * a `print` option (process.stdout by default; undefined restores it).
 * Gives the previous sink, so that a test can put it back.
 */
export function setSimulatorPrintSink(sink: PrintSink | undefined): PrintSink {
  const previous = defaultSink;
  defaultSink = sink ?? stdoutSink;
  return previous;
}

/** A lockstep thread as the generated code makes it: slot, linear index in the block, thread and block coordinates, its group and its block's memory. */
export type ThreadFunction = (
  s: number,
  lin: number,
  tidX: number,
  tidY: number,
  tidZ: number,
  ctaidX: number,
  ctaidY: number,
  ctaidZ: number,
  q: LockstepGroup,
  blk: BlockMemory | undefined,
) => ThreadGenerator;

/** The functions that generated kernels call: the cold paths that fail, and helpers too long to write inline. */
export interface SimulatorRuntime extends HalfFloatRuntime {
  /** An index outside `0..extent-1` in some dimension at fault site `site`. */
  outOfBounds(site: number, indices: readonly number[], extents: readonly number[]): never;
  /** An integer division or remainder by zero at fault site `site`. */
  divisionByZero(site: number): never;
  /** The loop iterations the running launch may still take (set by each run; see {@link SIMULATOR_BUDGET_VARIABLE}). */
  budget: { left: number; total: number };
  /** The budget ran out at loop site `site`. */
  budgetSpent(site: number): never;
  /** A recursion went deeper than {@link SIMULATOR_RECURSION_LIMIT} calls at the entry of the function of site `site`. */
  recursionTooDeep(site: number): never;
  /** Turns a fault into a SimulatorError that names the position and the thread; other errors pass through. */
  locateFault(error: unknown, block: readonly number[], thread: readonly number[]): unknown;
  /** One block's shared memory for the fast mode (reused from launch to launch where the extents match). */
  blockMemory(sharedBytes: number, ntidX: number, ntidY: number, ntidZ: number): BlockMemory;
  /** Runs a launch in lockstep mode: per block, or the whole grid at once where the kernel has a grid barrier. */
  runLockstep(
    thread: ThreadFunction,
    nctaidX: number,
    nctaidY: number,
    nctaidZ: number,
    ntidX: number,
    ntidY: number,
    ntidZ: number,
    sharedBytes: number,
  ): void;
  /** The const arrays, by memory index. */
  constants: readonly unknown[];
  /** Prints from a thread at print site `site`. */
  print(site: number, args: readonly unknown[]): void;
  /** clock64 and globaltimer: nanoseconds, as a u64. */
  timer(): bigint;
  /** Calls the stand-in of the linked function of call site `site` (ExternalCall's `simulate`) and gives its result as the declared type. */
  callExternal(site: number, args: readonly unknown[]): number | bigint | boolean;
  floatToInt: typeof floatToInt;
  floatToI64: typeof floatToI64;
  floatToU64: typeof floatToU64;
  bigintToFloat32: typeof bigintToFloat32;
  fmaFloat32: typeof fmaFloat32;
  fmaFloat64: typeof fmaFloat64;
  roundHalfUp: typeof roundHalfUp;
  signNumber: typeof signNumber;
  signBigint: typeof signBigint;
  minNumber: typeof minNumber;
  maxNumber: typeof maxNumber;
  minBigint: typeof minBigint;
  maxBigint: typeof maxBigint;
  absI32: typeof absI32;
  absI64: typeof absI64;
  popc32: typeof popc32;
  popc64: typeof popc64;
  clz64: typeof clz64;
  ffs32: typeof ffs32;
  ffs64: typeof ffs64;
  brev32: typeof brev32;
  brev64: typeof brev64;
}

/** How deeply the calls of recursive device functions may nest in one thread of the simulator. */
export const SIMULATOR_RECURSION_LIMIT = 1000;

/** The runtime's member names, which the generated code takes into local constants once. */
export const RUNTIME_NAMES = [
  'outOfBounds',
  'divisionByZero',
  'budget',
  'budgetSpent',
  'recursionTooDeep',
  'locateFault',
  'blockMemory',
  'runLockstep',
  'constants',
  'print',
  'timer',
  'callExternal',
  'floatToInt',
  'floatToI64',
  'floatToU64',
  'bigintToFloat32',
  'fmaFloat32',
  'fmaFloat64',
  'roundHalfUp',
  'signNumber',
  'signBigint',
  'minNumber',
  'maxNumber',
  'minBigint',
  'maxBigint',
  'absI32',
  'absI64',
  'popc32',
  'popc64',
  'clz64',
  'ffs32',
  'ffs64',
  'brev32',
  'brev64',
  ...HALF_FLOAT_NAMES,
] as const satisfies readonly (keyof SimulatorRuntime)[];

/** An index as the message shows it: all digits; a huge one came from a bigint and was rounded on the way. */
function formatNumber(value: number): string {
  if (Number.isSafeInteger(value)) return String(value);
  return Number.isInteger(value) ? `${BigInt(value)} (approximately)` : String(value);
}

export interface RuntimeOptions {
  /** The kernel's memories laid out (made from the kernel when absent). */
  readonly plan?: MemoryPlan;
  /** Lockstep over the whole grid (a grid barrier), not block by block. */
  readonly grid?: boolean;
  /** Where prints go (the module's sink, process.stdout by default, when absent). */
  readonly print?: PrintSink;
}

const ACCESS_NOW = ['reads', 'writes', 'updates'] as const;
const ACCESS_BEFORE = ['read', 'wrote', 'updated'] as const;

/** The environment variable of the simulator's default budget: loop iterations per launch, all threads together. */
export const SIMULATOR_BUDGET_VARIABLE = 'CUDA_JS_SIMULATOR_BUDGET';

/** The default budget where neither the run nor the environment gives one: minutes of simulation, never forever. */
export const DEFAULT_SIMULATOR_BUDGET = 10_000_000_000;

/** The budget of a run: `given`, else the environment's, else the default; a positive safe integer. */
export function simulatorBudget(given: unknown, env: NodeJS.ProcessEnv = process.env): number {
  const fromEnv = env[SIMULATOR_BUDGET_VARIABLE];
  const value = given ?? (fromEnv === undefined || fromEnv.trim() === '' ? DEFAULT_SIMULATOR_BUDGET : Number(fromEnv));
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    const from = given !== undefined ? 'simulatorBudget' : SIMULATOR_BUDGET_VARIABLE;
    throw new KernelArgumentError(
      `${from} must be a positive whole number of loop iterations, got ${given !== undefined ? String(given) : JSON.stringify(fromEnv)}`,
    );
  }
  return value;
}

export function createSimulatorRuntime(
  kernel: TypedKernel,
  sites: FaultSites,
  locator: SourceLocator,
  options: RuntimeOptions = {},
): SimulatorRuntime {
  const budget = { left: DEFAULT_SIMULATOR_BUDGET, total: DEFAULT_SIMULATOR_BUDGET };
  const plan = options.plan ?? new MemoryPlan(kernel.memories ?? []);
  const paramName = (index: number): string => kernel.params[index]?.name ?? `#${index}`;
  let launchSharedBytes = 0;

  const arrayName = (array: number, space: string | undefined): string => {
    if (space === undefined) return `'${paramName(array)}'`;
    const m = plan.layouts[array]?.memory;
    if (m === undefined) return `${space} array #${array}`;
    return `${m.dynamic ? 'dynamic ' : ''}${m.space} array '${m.name}'`;
  };

  const position = (site: number): string => {
    const loc = sites.get(site).loc;
    if (loc === undefined) return '';
    const p = (loc.locator ?? locator).position(loc);
    return ` at ${loc.locator === undefined ? '' : `${p.file}:`}line ${p.line}:${p.column}`;
  };

  const reportRace: RaceReporter = (site, unit, thread, kind, other, otherSite, otherKind, clock) => {
    const s = sites.get(site);
    const layout = s.kind === 'bounds' ? plan.layouts[s.array] : undefined;
    let where = `unit ${unit}`;
    let name = 'shared memory';
    if (layout !== undefined) {
      name = arrayName(layout.index, 'shared');
      const element = layout.memory.dynamic ? Math.floor((unit * plan.dynamicUnit) / layout.bytes) : unit;
      const index =
        layout.shape.length === 1
          ? String(element)
          : `[${layout.steps.map((step, k) => Math.floor(element / step) % (k === 0 ? Infinity : layout.shape[k]!)).join(', ')}]`;
      where = `index ${index}`;
    }
    const me = threadName(thread, clock.ntidX, clock.ntidY);
    const them = threadName(other, clock.ntidX, clock.ntidY);
    const atomically = (k: AccessKind): string => (k === AccessKind.Atomic ? ' atomically' : '');
    const sameWarp = thread >> 5 === other >> 5;
    const detail =
      `data race on ${name} at ${where}: ${me} ${ACCESS_NOW[kind]} it${atomically(kind)}, and ${them} ${ACCESS_BEFORE[otherKind]} it${atomically(otherKind)}` +
      `${otherSite >= 0 ? position(otherSite) : ''}, with no ${sameWarp ? 'syncthreads() or syncwarp()' : 'syncthreads()'} between them`;
    throw new SimulatorFault(site, detail, true);
  };

  // The fast mode's and the block-by-block lockstep mode's block memory, kept for the next launch of the same shape.
  let cachedBlock: BlockMemory | undefined;
  const blockMemory = (sharedBytes: number, ntidX: number, ntidY: number, ntidZ: number): BlockMemory => {
    launchSharedBytes = sharedBytes;
    const c = cachedBlock?.clock;
    if (
      cachedBlock !== undefined &&
      cachedBlock.sharedBytes === sharedBytes &&
      c!.ntidX === ntidX &&
      c!.ntidY === ntidY &&
      c!.ntidZ === ntidZ
    )
      return cachedBlock;
    cachedBlock = plan.block(sharedBytes, new BlockClock(new RaceClock(), ntidX, ntidY, ntidZ), reportRace);
    return cachedBlock;
  };

  const locateFault = (error: unknown, block: readonly number[], thread: readonly number[]): unknown => {
    if (!(error instanceof SimulatorFault)) return error;
    const where = error.namesThreads
      ? `, in block (${block.join(', ')})`
      : `, in thread (${thread.join(', ')}) of block (${block.join(', ')})`;
    const detail = `${error.detail}${describeCalls(sites.get(error.site).via, locator)}${where}`;
    const loc = sites.get(error.site).loc;
    return new SimulatorError(detail, { locator: loc?.locator ?? locator, loc });
  };

  const schedulerContext = { sites, locator, locateFault };
  let cachedGroup: LockstepGroup | undefined;

  const runLockstep = (
    thread: ThreadFunction,
    gx: number,
    gy: number,
    gz: number,
    tx: number,
    ty: number,
    tz: number,
    sharedBytes: number,
  ): void => {
    launchSharedBytes = sharedBytes;
    const T = tx * ty * tz;
    const start = (
      group: LockstepGroup,
      b: number,
      bx: number,
      by: number,
      bz: number,
      blk: BlockMemory | undefined,
    ): void => {
      group.setBlock(b, bx, by, bz, blk?.clock);
      let lin = 0;
      const base = b * T;
      for (let z = 0; z < tz; z++)
        for (let y = 0; y < ty; y++)
          for (let x = 0; x < tx; x++, lin++)
            group.start(base + lin, thread(base + lin, lin, x, y, z, bx, by, bz, group, blk));
    };
    if (options.grid) {
      // Every block at once: a fresh clock and memory per block.
      const blocks = gx * gy * gz;
      const group = new LockstepGroup(tx, ty, tz, blocks, schedulerContext);
      const clock = new RaceClock();
      let b = 0;
      for (let bz = 0; bz < gz; bz++) {
        for (let by = 0; by < gy; by++) {
          for (let bx = 0; bx < gx; bx++, b++) {
            const blk = plan.hasShared
              ? plan.block(sharedBytes, new BlockClock(clock, tx, ty, tz), reportRace)
              : undefined;
            blk?.begin(bx, by, bz);
            start(group, b, bx, by, bz, blk);
          }
        }
      }
      group.run();
      return;
    }
    if (cachedGroup === undefined || cachedGroup.ntidX !== tx || cachedGroup.ntidY !== ty || cachedGroup.ntidZ !== tz)
      cachedGroup = new LockstepGroup(tx, ty, tz, 1, schedulerContext);
    const group = cachedGroup;
    const blk = plan.hasShared ? blockMemory(sharedBytes, tx, ty, tz) : undefined;
    for (let bz = 0; bz < gz; bz++) {
      for (let by = 0; by < gy; by++) {
        for (let bx = 0; bx < gx; bx++) {
          blk?.begin(bx, by, bz);
          start(group, 0, bx, by, bz, blk);
          group.run();
        }
      }
    }
  };

  const printSink = options.print;
  return {
    outOfBounds(site, indices, extents) {
      const s = sites.get(site);
      const name = s.kind === 'bounds' ? arrayName(s.array, s.space) : '?';
      const k = indices.findIndex((index, dim) => !(index >= 0 && index < (extents[dim] ?? 0)));
      const dim = Math.max(k, 0);
      const index = formatNumber(indices[dim] ?? NaN);
      const extent = extents[dim] ?? 0;
      const dynamic = s.kind === 'bounds' && s.space === 'shared' && plan.layouts[s.array]?.memory.dynamic === true;
      const origin = dynamic ? `, from ${launchSharedBytes} bytes of dynamic shared memory` : '';
      const detail =
        extents.length === 1
          ? `index ${index} is out of bounds of ${name} (length ${extent}${origin})`
          : `index ${index} is out of bounds for dimension ${dim} of ${name} (shape [${extents.join(', ')}], indices [${indices.map(formatNumber).join(', ')}])`;
      throw new SimulatorFault(site, detail);
    },
    budget,
    budgetSpent(site) {
      throw new SimulatorFault(
        site,
        `the launch ran out of its simulator budget of ${budget.total} loop iterations here (a loop that never ends?); give { simulatorBudget } or set ${SIMULATOR_BUDGET_VARIABLE} for more`,
      );
    },
    recursionTooDeep(site) {
      const s = sites.get(site);
      const name = s?.kind === 'recursion' ? `'${s.name}'` : 'a recursive device function';
      throw new SimulatorFault(
        site,
        `the calls of ${name} nest deeper than the simulator's bound of ${SIMULATOR_RECURSION_LIMIT} (a recursion without an end?); the GPU's stack (cuCtxSetLimit's CU_LIMIT_STACK_SIZE, 1 KiB a thread by default) is smaller still`,
      );
    },
    divisionByZero(site) {
      const s = sites.get(site);
      throw new SimulatorFault(
        site,
        s.kind === 'division' && s.operator === 'rem' ? 'integer remainder by zero' : 'integer division by zero',
      );
    },
    locateFault,
    blockMemory,
    runLockstep,
    constants: plan.constants,
    print(site, args) {
      const s = sites.get(site);
      const text = formatPrintf(s.kind === 'print' ? s.format : '', args);
      (printSink ?? defaultSink)(text);
    },
    timer: () => process.hrtime.bigint(),
    callExternal(site, args) {
      const s = sites.get(site);
      const external = s.kind === 'external' ? kernel.externals?.[s.external] : undefined;
      if (external === undefined) throw new Error(`simulator: fault site ${site} is no call of linked code`);
      const simulate = external.simulate as ((...args: readonly unknown[]) => unknown) | undefined;
      if (simulate === undefined)
        throw new SimulatorFault(
          site,
          `'${external.symbol}' is linked device code; give declareDevice a { simulate } function to run it in the simulator`,
        );
      const value = simulate(...args);
      const result = externalResult(value, external.returns);
      if (result === undefined) {
        const what =
          value === null
            ? 'null'
            : typeof value === 'string'
              ? 'a string'
              : typeof value === 'undefined'
                ? 'undefined'
                : `a ${typeof value}`;
        throw new SimulatorFault(
          site,
          `the simulate function of '${external.symbol}' gave ${what}; it must give a number, a bigint or a boolean (the ${external.returns} result)`,
        );
      }
      return result;
    },
    floatToInt,
    floatToI64,
    floatToU64,
    bigintToFloat32,
    fmaFloat32,
    fmaFloat64,
    roundHalfUp,
    signNumber,
    signBigint,
    minNumber,
    maxNumber,
    minBigint,
    maxBigint,
    absI32,
    absI64,
    popc32,
    popc64,
    clz64,
    ffs32,
    ffs64,
    brev32,
    brev64,
    ...HALF_FLOAT_RUNTIME,
  };
}
