import { SimulatorError, type SourceLocator } from '../errors.js';
import { warpMatchRow } from '../intrinsics/warp-matches.js';
import { warpShuffleRow } from '../intrinsics/warp-shuffles.js';
import { warpVoteRow } from '../intrinsics/warp-votes.js';
import type { Loc } from '../typing/typed-ir.js';
import { type CollectiveOp, describeCalls, type FaultSites } from './fault-sites.js';
import type { BlockClock } from './race-shadow.js';
import { mmaWarp } from './mma-simulator.js';
import { simulatorExpression } from './simulator-form.js';
import { coordinates, threadCoordinates, threadName, threadRuns } from './thread-names.js';

const shuffleSources = new Map<string, (i: number, lane: number, segment: number, width: number) => number>();

/** A shuffle's source lane: its row's simulator form (intrinsics/warp-shuffles.ts) of this lane, the lane argument, the segment's first lane and the width, made a function once. */
function shuffleSource(mode: string): (i: number, lane: number, segment: number, width: number) => number {
  let made = shuffleSources.get(mode);
  if (made === undefined) {
    const row = warpShuffleRow(mode);
    if (!row) throw new Error(`simulator: a shuffle of mode '${mode}', which has no row`);
    const body = simulatorExpression(row.source.simulator, [], {
      i: 'i',
      lane: 'lane',
      segment: 'segment',
      width: 'width',
    });
    made = new Function('i', 'lane', 'segment', 'width', `return ${body};`) as (
      i: number,
      lane: number,
      segment: number,
      width: number,
    ) => number;
    shuffleSources.set(mode, made);
  }
  return made;
}

const warpMatchResults = new Map<
  string,
  { result: (same: number, equal: boolean, mask: number) => number; perLane: boolean }
>();

/** A warp match's result for a lane: its row's simulator form (intrinsics/warp-matches.ts), made a function once; `perLane` where it names `$same`. */
function warpMatchResult(mode: string): {
  result: (same: number, equal: boolean, mask: number) => number;
  perLane: boolean;
} {
  let made = warpMatchResults.get(mode);
  if (made === undefined) {
    const row = warpMatchRow(mode);
    if (!row) throw new Error(`simulator: a warp match of mode '${mode}', which has no row`);
    const body = simulatorExpression(row.simulator, [], { same: 'same', equal: 'equal', mask: 'mask' });
    made = {
      result: new Function('same', 'equal', 'mask', `return ${body};`) as (
        same: number,
        equal: boolean,
        mask: number,
      ) => number,
      perLane: /\$same\b/.test(row.simulator),
    };
    warpMatchResults.set(mode, made);
  }
  return made;
}

const warpVoteResults = new Map<string, (ballot: number, mask: number) => number | boolean>();

/** A warp vote's result from the ballot of the lanes of `mask`: its row's simulator form (intrinsics/warp-votes.ts), made a function once. */
function warpVoteResult(mode: string): (ballot: number, mask: number) => number | boolean {
  let result = warpVoteResults.get(mode);
  if (result === undefined) {
    const row = warpVoteRow(mode);
    if (!row) throw new Error(`simulator: a warp vote of mode '${mode}', which has no row`);
    result = new Function(
      'ballot',
      'mask',
      `return ${simulatorExpression(row.simulator, [], { ballot: 'ballot', mask: 'mask' })};`,
    ) as (ballot: number, mask: number) => number | boolean;
    warpVoteResults.set(mode, result);
  }
  return result;
}

/** A thread of the lockstep mode: the generated `function*`, which yields at each collective after recording its request with the group. */
export type ThreadGenerator = Generator<undefined, void, unknown>;

const READY = 0;
const WAITING = 1;
const DONE = 2;

/** Collective kinds, by scope: block kinds first, then the grid's, then the warp's. */
const BLOCK_BARRIER = 1;
const BLOCK_VOTE = 2;
const GRID_BARRIER = 3;
const SYNCWARP = 4;
const SHUFFLE = 5;
const WARP_VOTE = 6;
const MATCH = 7;
const ACTIVEMASK = 8;
const MMA = 9;

function kindOf(op: CollectiveOp): number {
  switch (op.op) {
    case 'barrier':
      return op.scope === 'block' ? BLOCK_BARRIER : op.scope === 'grid' ? GRID_BARRIER : SYNCWARP;
    case 'vote':
      return op.scope === 'block' ? BLOCK_VOTE : WARP_VOTE;
    case 'shuffle':
      return SHUFFLE;
    case 'match':
      return MATCH;
    case 'activemask':
      return ACTIVEMASK;
    case 'mma':
      return MMA;
  }
}

/** The name of a collective as kernels call it. */
export function collectiveName(op: CollectiveOp): string {
  switch (op.op) {
    case 'barrier':
      return op.scope === 'block'
        ? 'syncthreads()'
        : op.scope === 'grid'
          ? 'the grid barrier (cg.thisGrid().sync())'
          : 'syncwarp()';
    case 'vote':
      return op.scope === 'block' ? `syncthreads_${op.mode}()` : `${op.mode}_sync()`;
    case 'shuffle':
      return op.mode === 'idx' ? 'shfl_sync()' : `shfl_${op.mode}_sync()`;
    case 'match':
      return `match_${op.mode}_sync()`;
    case 'activemask':
      return 'activemask()';
    case 'mma':
      return `mma.${op.shape.replace('.', '_')}()`;
  }
}

const hex = (mask: number): string => `0x${(mask >>> 0).toString(16).padStart(8, '0')}`;

function popcount(x: number): number {
  let n = 0;
  for (let m = x; m !== 0; m &= m - 1) n++;
  return n;
}

const f32Bits = new Float32Array(1);
const f32Ints = new Int32Array(f32Bits.buffer);
const f64Bits = new Float64Array(1);
const f64Ints = new BigInt64Array(f64Bits.buffer);

/** The value `match` compares: the bits for floats, the value itself for integers. */
function matchKey(value: unknown, valueType: string): unknown {
  if (valueType === 'f32') {
    f32Bits[0] = value as number;
    return f32Ints[0];
  }
  if (valueType === 'f64') {
    f64Bits[0] = value as number;
    return f64Ints[0];
  }
  return value;
}

/** What the scheduler needs from the kernel: its collective sites and how to make errors. */
export interface SchedulerContext {
  readonly sites: FaultSites;
  readonly locator: SourceLocator;
  /** Turns an error that a thread threw into the located SimulatorError. */
  locateFault(error: unknown, block: readonly number[], thread: readonly number[]): unknown;
}

/**
 * The threads of one block (or, for a grid barrier, of the whole grid) run
 * in lockstep: each is resumed until it waits at a collective or finishes,
 * then what can pass passes, and those threads go on; until all finish.
 *
 * - A block barrier or block vote passes when every thread of the block
 *   that has not returned waits at it (the same site): a thread that has
 *   returned counts as arrived, as on the GPU (measured on the H200); the
 *   vote's value is over the threads that wait. It also starts a new race
 *   epoch of the block.
 * - A warp collective passes per warp (32 consecutive linear ids) for the
 *   lanes of its mask, once each of them waits at the same site with the
 *   same mask (syncwarp: at any syncwarp with the same mask, as on Volta
 *   and later). Lanes beyond a partial last warp do not exist and are
 *   dropped from masks; a lane that the mask names and that waits
 *   elsewhere for good is a deadlock, and one that has returned is an
 *   error too: CUDA leaves a warp operation whose mask names an exited
 *   lane undefined (it may hang, or read garbage), so the simulator
 *   reports it rather than guess.
 * - activemask gives the lanes of the warp that wait at that same
 *   activemask when nothing else can move in the warp: the lanes that
 *   arrived there together. It does not synchronize (no race ordering).
 * - The grid barrier passes when every thread of the grid that has not
 *   returned waits at it, and, with more than one block, thread (0, 0, 0)
 *   of every block is among them: it is the thread that signals its
 *   block's arrival (grid-barrier.ts, as cooperative groups' grid sync
 *   does), so on the GPU a block whose thread (0, 0, 0) returned leaves
 *   the others waiting for good. With one block it is a block barrier.
 * When no thread can go on and some have not finished, the scheduler says
 * why (who waits where, who returned) at the collective's position.
 */
export class LockstepGroup {
  /** Threads per block, blocks, threads. */
  readonly threadsPerBlock: number;
  readonly blocks: number;
  readonly size: number;
  readonly #warps: number;
  readonly #kinds: Int32Array;
  readonly #gens: (ThreadGenerator | undefined)[];
  readonly #state: Uint8Array;
  readonly #site: Int32Array;
  readonly #mask: Int32Array;
  readonly #lane: Int32Array;
  readonly #width: Int32Array;
  readonly #value: unknown[];
  readonly #resume: unknown[];
  readonly #ready: Int32Array;
  #readyCount = 0;
  #live = 0;
  readonly #blockWaiting: Int32Array;
  /** Threads of each block that returned. */
  readonly #blockDone: Int32Array;
  readonly #warpWaiting: Int32Array;
  #gridWaiting = 0;
  readonly #blockCoords: Int32Array;
  readonly #clocks: (BlockClock | undefined)[];

  constructor(
    readonly ntidX: number,
    readonly ntidY: number,
    readonly ntidZ: number,
    blocks: number,
    private readonly context: SchedulerContext,
  ) {
    const T = ntidX * ntidY * ntidZ;
    this.threadsPerBlock = T;
    this.blocks = blocks;
    this.size = T * blocks;
    this.#warps = Math.ceil(T / 32);
    const n = this.size;
    this.#kinds = new Int32Array(context.sites.size);
    for (let k = 0; k < context.sites.size; k++) {
      const site = context.sites.get(k);
      if (site.kind === 'collective') this.#kinds[k] = kindOf(site.collective);
    }
    this.#gens = new Array<ThreadGenerator | undefined>(n).fill(undefined);
    this.#state = new Uint8Array(n);
    this.#site = new Int32Array(n);
    this.#mask = new Int32Array(n);
    this.#lane = new Int32Array(n);
    this.#width = new Int32Array(n);
    this.#value = new Array<unknown>(n).fill(undefined);
    this.#resume = new Array<unknown>(n).fill(undefined);
    this.#ready = new Int32Array(n);
    this.#blockWaiting = new Int32Array(blocks);
    this.#blockDone = new Int32Array(blocks);
    this.#warpWaiting = new Int32Array(blocks * this.#warps);
    this.#blockCoords = new Int32Array(blocks * 3);
    this.#clocks = new Array<BlockClock | undefined>(blocks).fill(undefined);
  }

  // ---- what the generated code calls before it yields ---------------------

  c0(s: number, site: number): void {
    this.#site[s] = site;
  }

  c1(s: number, site: number, mask: number): void {
    this.#site[s] = site;
    this.#mask[s] = mask;
  }

  c2(s: number, site: number, mask: number, value: unknown): void {
    this.#site[s] = site;
    this.#mask[s] = mask;
    this.#value[s] = value;
  }

  c4(s: number, site: number, mask: number, value: unknown, lane: number, width: number): void {
    this.#site[s] = site;
    this.#mask[s] = mask;
    this.#value[s] = value;
    this.#lane[s] = lane;
    this.#width[s] = width;
  }

  // ---- running ----------------------------------------------------------

  /** Block `b` of the group is block (bx, by, bz) of the grid; `clock` orders its shared memory accesses (race detection), if it has any. */
  setBlock(b: number, bx: number, by: number, bz: number, clock: BlockClock | undefined): void {
    this.#blockCoords[b * 3] = bx;
    this.#blockCoords[b * 3 + 1] = by;
    this.#blockCoords[b * 3 + 2] = bz;
    this.#clocks[b] = clock;
  }

  /** Thread slot `s` (block b's thread lin is slot b * threadsPerBlock + lin) runs `gen`. */
  start(s: number, gen: ThreadGenerator): void {
    this.#gens[s] = gen;
    this.#state[s] = READY;
    this.#resume[s] = undefined;
    this.#ready[this.#readyCount++] = s;
    this.#live++;
  }

  /** Runs the started threads to their end. */
  run(): void {
    const gens = this.#gens;
    const state = this.#state;
    const resume = this.#resume;
    const ready = this.#ready;
    let count = this.#readyCount;
    try {
      for (;;) {
        for (let k = 0; k < count; k++) {
          const s = ready[k]!;
          let r: IteratorResult<undefined, void>;
          try {
            r = gens[s]!.next(resume[s]);
          } catch (error) {
            throw this.context.locateFault(error, this.#blockOf(s), this.#threadOf(s));
          }
          if (r.done) {
            state[s] = DONE;
            gens[s] = undefined;
            this.#live--;
            this.#blockDone[(s / this.threadsPerBlock) | 0]!++;
          } else {
            state[s] = WAITING;
            this.#arrive(s);
          }
        }
        if (this.#live === 0) return;
        count = this.#resolve();
        if (count === 0) throw this.#deadlock();
      }
    } finally {
      this.#reset();
    }
  }

  #reset(): void {
    this.#readyCount = 0;
    this.#live = 0;
    this.#gridWaiting = 0;
    this.#blockWaiting.fill(0);
    this.#blockDone.fill(0);
    this.#warpWaiting.fill(0);
    this.#gens.fill(undefined);
    this.#value.fill(undefined);
    this.#resume.fill(undefined);
  }

  #arrive(s: number): void {
    const kind = this.#kinds[this.#site[s]!]!;
    const T = this.threadsPerBlock;
    const b = (s / T) | 0;
    if (kind === 0)
      throw new Error(`simulator: thread slot ${s} yielded at site ${this.#site[s]}, which is no collective`);
    if (kind <= BLOCK_VOTE) this.#blockWaiting[b]!++;
    else if (kind === GRID_BARRIER) this.#gridWaiting++;
    else this.#warpWaiting[b * this.#warps + ((s - b * T) >> 5)]!++;
  }

  #release(s: number, value: unknown, count: number): number {
    this.#state[s] = READY;
    this.#resume[s] = value;
    this.#ready[count] = s;
    return count + 1;
  }

  /** Passes what can pass; gives how many threads are ready again. */
  #resolve(): number {
    let count = 0;
    const W = this.#warps;
    for (let b = 0; b < this.blocks; b++) {
      for (let w = 0; w < W; w++) if (this.#warpWaiting[b * W + w]! > 0) count = this.#resolveWarp(b, w, count);
    }
    for (let b = 0; b < this.blocks; b++) {
      const waiting = this.#blockWaiting[b]!;
      if (waiting > 0 && waiting + this.#blockDone[b]! === this.threadsPerBlock) count = this.#resolveBlock(b, count);
    }
    if (this.#gridWaiting > 0 && this.#gridWaiting === this.#live && this.#everyBlockSignals())
      count = this.#resolveGrid(count);
    return count;
  }

  /** The lanes of warp w that exist (a block's last warp may be partial), as a mask. */
  #exist(w: number): number {
    const lanes = Math.min(32, this.threadsPerBlock - w * 32);
    return lanes === 32 ? -1 : (1 << lanes) - 1;
  }

  #resolveWarp(b: number, w: number, count: number): number {
    const base = b * this.threadsPerBlock + w * 32;
    const exist = this.#exist(w);
    const lanes = Math.min(32, this.threadsPerBlock - w * 32);
    const kinds = this.#kinds;
    const state = this.#state;
    const sites = this.#site;
    const masks = this.#mask;
    let handled = 0;
    let passed = false;
    let activemask = false;
    for (let i = 0; i < lanes; i++) {
      const bit = 1 << i;
      const s = base + i;
      if ((handled & bit) !== 0 || state[s] !== WAITING) continue;
      const site = sites[s]!;
      const kind = kinds[site]!;
      if (kind < SYNCWARP) continue;
      if (kind === ACTIVEMASK) {
        activemask = true;
        continue;
      }
      const given = masks[s]!;
      if ((given & bit) === 0)
        throw this.#error(site, `${this.#where(s)}: its mask ${hex(given)} does not name its own lane ${i}`);
      const m = given & exist;
      let all = true;
      for (let r = m; r !== 0; r &= r - 1) {
        const sj = base + (31 - Math.clz32(r & -r));
        const other = sites[sj]!;
        if (
          state[sj] !== WAITING ||
          masks[sj] !== given ||
          (other !== site && !(kind === SYNCWARP && kinds[other] === SYNCWARP))
        ) {
          all = false;
          break;
        }
      }
      if (!all) continue;
      handled |= m;
      passed = true;
      count = this.#completeWarp(kind, site, base, m, given, exist, count);
      this.#clocks[b]?.syncWarp(w, m, exist);
      this.#warpWaiting[b * this.#warps + w]! -= popcount(m);
    }
    // activemask: the lanes that arrived together, once nothing else in the warp moves.
    if (activemask && !passed) {
      for (let i = 0; i < lanes; i++) {
        const s = base + i;
        if ((handled & (1 << i)) !== 0 || state[s] !== WAITING || kinds[sites[s]!] !== ACTIVEMASK) continue;
        const site = sites[s]!;
        let m = 0;
        for (let j = i; j < lanes; j++) if (state[base + j] === WAITING && sites[base + j] === site) m |= 1 << j;
        handled |= m;
        for (let r = m; r !== 0; r &= r - 1) count = this.#release(base + (31 - Math.clz32(r & -r)), m >>> 0, count);
        this.#warpWaiting[b * this.#warps + w]! -= popcount(m);
      }
    }
    return count;
  }

  /** Gives each lane of `m` (slots from `base`) its value of the collective at `site`. */
  #completeWarp(
    kind: number,
    site: number,
    base: number,
    m: number,
    given: number,
    exist: number,
    count: number,
  ): number {
    const values = this.#value;
    const op = (this.context.sites.get(site) as { collective: CollectiveOp }).collective;
    let n = count;
    if (kind === MMA) {
      // mma.sync.aligned: every lane of the warp, at the same mma.
      if (m !== -1) {
        const lanes = popcount(m);
        throw this.#error(
          site,
          `${collectiveName(op)} needs all 32 lanes of a warp together (mma.sync.aligned): the warp of ${this.#where(base)} has ${lanes} (the block's thread count is not a multiple of 32)`,
        );
      }
      const results = mmaWarp(
        (op as { shape: string }).shape,
        Array.from({ length: 32 }, (_, i) => values[base + i] as number[]),
      );
      for (let i = 0; i < 32; i++) n = this.#release(base + i, results[i], n);
      return n;
    }
    if (kind === SHUFFLE) {
      const sourceOf = shuffleSource((op as { mode: string }).mode);
      const results: unknown[] = [];
      for (let r = m; r !== 0; r &= r - 1) {
        const i = 31 - Math.clz32(r & -r);
        const s = base + i;
        const width = this.#width[s]!;
        if (!(width >= 1 && width <= 32 && (width & (width - 1)) === 0))
          throw this.#error(site, `${this.#where(s)}: the width ${width} is not a power of two from 1 to 32`);
        const lane = this.#lane[s]!;
        const segment = i & -width;
        const j = sourceOf(i, lane, segment, width);
        if (j < segment || j >= segment + width) {
          results.push(values[s]); // a source outside the segment: the lane's own value
        } else if ((m & (1 << j)) === 0) {
          const missing =
            (exist & (1 << j)) === 0
              ? 'which does not exist (the block has fewer threads)'
              : `which is not in the mask ${hex(given)}`;
          throw this.#error(site, `${this.#where(s)} reads lane ${j}, ${missing}: its value is undefined on the GPU`);
        } else {
          results.push(values[base + j]);
        }
      }
      let k = 0;
      for (let r = m; r !== 0; r &= r - 1) n = this.#release(base + (31 - Math.clz32(r & -r)), results[k++], n);
      return n;
    }
    if (kind === WARP_VOTE) {
      let ballot = 0;
      for (let r = m; r !== 0; r &= r - 1) {
        const i = 31 - Math.clz32(r & -r);
        if (values[base + i]) ballot |= 1 << i;
      }
      const result = warpVoteResult((op as { mode: string }).mode)(ballot, m);
      for (let r = m; r !== 0; r &= r - 1) n = this.#release(base + (31 - Math.clz32(r & -r)), result, n);
      return n;
    }
    if (kind === MATCH) {
      const { mode, valueType } = op as { mode: string; valueType: string };
      const keys: unknown[] = [];
      const lanes: number[] = [];
      for (let r = m; r !== 0; r &= r - 1) {
        const i = 31 - Math.clz32(r & -r);
        lanes.push(i);
        keys.push(matchKey(values[base + i], valueType));
      }
      const { result, perLane } = warpMatchResult(mode);
      const equal = keys.every((k) => k === keys[0]);
      for (let a = 0; a < lanes.length; a++) {
        let same = 0;
        // the lanes with this lane's value, where the row's form names them
        if (perLane) for (let c = 0; c < lanes.length; c++) if (keys[c] === keys[a]) same |= 1 << lanes[c]!;
        n = this.#release(base + lanes[a]!, result(same, equal, given), n);
      }
      return n;
    }
    // syncwarp
    for (let r = m; r !== 0; r &= r - 1) n = this.#release(base + (31 - Math.clz32(r & -r)), undefined, n);
    return n;
  }

  /** With more than one block, whether thread (0, 0, 0) of every block is alive (it signals its block's arrival at the grid barrier). */
  #everyBlockSignals(): boolean {
    if (this.blocks === 1) return true;
    for (let s = 0; s < this.size; s += this.threadsPerBlock) if (this.#state[s] === DONE) return false;
    return true;
  }

  /** The first slot of [start, end) that has not returned (end if none). */
  #firstLive(start: number, end: number): number {
    let s = start;
    while (s < end && this.#state[s] === DONE) s++;
    return s;
  }

  #resolveBlock(b: number, count: number): number {
    const T = this.threadsPerBlock;
    const start = b * T;
    const state = this.#state;
    const site = this.#site[this.#firstLive(start, start + T)]!;
    for (let s = start; s < start + T; s++) if (state[s] !== DONE && this.#site[s] !== site) return count; // different barriers: the deadlock report says which
    let n = count;
    let value: unknown;
    if (this.#kinds[site] === BLOCK_VOTE) {
      const mode = ((this.context.sites.get(site) as { collective: CollectiveOp }).collective as { mode: string }).mode;
      let trues = 0;
      for (let s = start; s < start + T; s++) if (state[s] !== DONE && this.#value[s]) trues++;
      value = mode === 'count' ? trues : mode === 'and' ? trues === this.#blockWaiting[b] : trues > 0;
    }
    for (let s = start; s < start + T; s++) if (state[s] !== DONE) n = this.#release(s, value, n);
    this.#blockWaiting[b] = 0;
    this.#clocks[b]?.barrier();
    return n;
  }

  #resolveGrid(count: number): number {
    const state = this.#state;
    const site = this.#site[this.#firstLive(0, this.size)]!;
    for (let s = 0; s < this.size; s++) if (state[s] !== DONE && this.#site[s] !== site) return count;
    let n = count;
    for (let s = 0; s < this.size; s++) if (state[s] !== DONE) n = this.#release(s, undefined, n);
    this.#gridWaiting = 0;
    for (const clock of this.#clocks) clock?.barrier();
    return n;
  }

  // ---- when nothing can move ------------------------------------------

  #blockOf(s: number): [number, number, number] {
    const b = (s / this.threadsPerBlock) | 0;
    const c = this.#blockCoords;
    return [c[b * 3]!, c[b * 3 + 1]!, c[b * 3 + 2]!];
  }

  #threadOf(s: number): [number, number, number] {
    return threadCoordinates(s % this.threadsPerBlock, this.ntidX, this.ntidY);
  }

  /** `thread (1, 0, 0) of block (2, 0, 0)`. */
  #where(s: number): string {
    return `${threadName(s % this.threadsPerBlock, this.ntidX, this.ntidY)} of block ${coordinates(this.#blockOf(s))}`;
  }

  #loc(site: number): Loc | undefined {
    return this.context.sites.get(site).loc;
  }

  #error(site: number, detail: string): SimulatorError {
    const loc = this.#loc(site);
    return new SimulatorError(`${detail}${describeCalls(this.context.sites.get(site).via, this.context.locator)}`, {
      locator: loc?.locator ?? this.context.locator,
      loc,
    });
  }

  /** `syncwarp() at line 7:5` (the file too where it is not the kernel's). */
  #at(site: number): string {
    const op = this.context.sites.get(site);
    const name = op.kind === 'collective' ? collectiveName(op.collective) : 'a collective';
    const loc = op.loc;
    if (loc === undefined) return name;
    const p = (loc.locator ?? this.context.locator).position(loc);
    return `${name} at ${loc.locator === undefined ? '' : `${p.file}:`}line ${p.line}:${p.column}`;
  }

  /** The threads of a block's slots that wait at a site other than `exclude`, by site. */
  #waitingElsewhere(start: number, end: number, exclude: number): Map<number, number[]> {
    const at = new Map<number, number[]>();
    for (let s = start; s < end; s++) {
      if (this.#state[s] !== WAITING || this.#site[s] === exclude) continue;
      const site = this.#site[s]!;
      let list = at.get(site);
      if (list === undefined) at.set(site, (list = []));
      list.push(s - start);
    }
    return at;
  }

  #runs(ids: readonly number[]): string {
    return threadRuns(ids, this.ntidX, this.ntidY, this.ntidZ);
  }

  #deadlock(): SimulatorError {
    const T = this.threadsPerBlock;
    const kinds = this.#kinds;
    // A warp collective whose mask names a lane that returned or waits elsewhere.
    for (let s = 0; s < this.size; s++) {
      if (this.#state[s] !== WAITING) continue;
      const site = this.#site[s]!;
      const kind = kinds[site]!;
      if (kind < SYNCWARP || kind === ACTIVEMASK) continue;
      const lin = s % T;
      const base = s - (lin & 31);
      const given = this.#mask[s]!;
      const m = given & this.#exist(lin >> 5);
      for (let r = m; r !== 0; r &= r - 1) {
        const j = 31 - Math.clz32(r & -r);
        const sj = base + j;
        const who = `lane ${j} (${threadName(sj % T, this.ntidX, this.ntidY)})`;
        const name = collectiveName((this.context.sites.get(site) as { collective: CollectiveOp }).collective);
        const waits =
          kind === MMA
            ? `${name} in ${this.#where(s)} waits for all 32 lanes of its warp (mma.sync.aligned)`
            : `${name} in ${this.#where(s)} waits for the lanes of its mask ${hex(given)}`;
        if (this.#state[sj] === DONE && kind === MMA)
          return this.#error(
            site,
            `${waits}, but ${who} returned: every lane of the warp must run the same mma together`,
          );
        if (this.#state[sj] === DONE) {
          return this.#error(
            site,
            `${waits}, but ${who} returned: a mask that names an exited lane is undefined on the GPU (name only the lanes that go on, e.g. with activemask() or ballot_sync())`,
          );
        }
        let why: string | undefined;
        if (this.#site[sj] !== site && !(kind === SYNCWARP && kinds[this.#site[sj]!] === SYNCWARP))
          why = `${who} waits at ${this.#at(this.#site[sj]!)}`;
        else if (this.#mask[sj] !== given) why = `${who} waits there with mask ${hex(this.#mask[sj]!)}`;
        if (why !== undefined) return this.#error(site, `${waits}, but ${why} (a deadlock on the GPU)`);
      }
    }
    // A block barrier that some live threads of the block never reach (returned threads count as arrived).
    for (let b = 0; b < this.blocks; b++) {
      if (this.#blockWaiting[b] === 0) continue;
      const start = b * T;
      let first = start;
      while (!(this.#state[first] === WAITING && kinds[this.#site[first]!]! <= BLOCK_VOTE)) first++;
      const site = this.#site[first]!;
      const here: number[] = [];
      for (let s = start; s < start + T; s++)
        if (this.#state[s] === WAITING && this.#site[s] === site) here.push(s - start);
      const at = this.#waitingElsewhere(start, start + T, site);
      const parts = [`${this.#runs(here)} wait here`];
      for (const [other, ids] of at) parts.push(`${this.#runs(ids)} wait at ${this.#at(other)}`);
      const name = collectiveName((this.context.sites.get(site) as { collective: CollectiveOp }).collective);
      return this.#error(
        site,
        `${name} is reached by only part of block ${coordinates(this.#blockOf(start))}: ${parts.join('; ')} (a deadlock on the GPU)`,
      );
    }
    // The grid barrier that some live threads never reach, or that a block's thread (0, 0, 0) left by returning.
    if (this.#gridWaiting > 0) {
      let first = 0;
      while (!(this.#state[first] === WAITING && kinds[this.#site[first]!] === GRID_BARRIER)) first++;
      const site = this.#site[first]!;
      const parts: string[] = [];
      for (let b = 0; b < this.blocks; b++) {
        const at = this.#waitingElsewhere(b * T, (b + 1) * T, site);
        const block = `block ${coordinates(this.#blockOf(b * T))}`;
        if (this.blocks > 1 && this.#state[b * T] === DONE) {
          parts.push(
            this.#blockDone[b] === T
              ? `every thread of ${block} returned, so no thread arrives for it`
              : `thread (0, 0, 0) of ${block} returned: it is the thread that arrives for its block, as in cooperative groups' grid sync`,
          );
        }
        for (const [other, ids] of at) parts.push(`in ${block}, ${this.#runs(ids)} wait at ${this.#at(other)}`);
      }
      const shown = parts.length > 4 ? [...parts.slice(0, 4), `and ${parts.length - 4} more`] : parts;
      return this.#error(
        site,
        `the grid barrier (cg.thisGrid().sync()) is never passed: ${shown.join('; ')} (a deadlock on the GPU)`,
      );
    }
    const s = this.#state.indexOf(WAITING);
    return this.#error(this.#site[s]!, `no thread can go on: ${this.#where(s)} waits at ${this.#at(this.#site[s]!)}`);
  }
}
