/**
 * Shared-memory race detection: a shadow record per element of each shared
 * array, in typed arrays, kept by every access that the generated code makes.
 *
 * Order between threads of a block comes from two things only:
 * - a block barrier (or block vote, or grid barrier) ends an *epoch* of the
 *   block: every access of an earlier epoch is ordered before every access
 *   of a later one;
 * - a warp collective (syncwarp, shuffle, warp vote, match; not activemask,
 *   which does not synchronize) orders the lanes of its mask: an access by
 *   lane a, then a collective that both a and b take part in, then an access
 *   by lane b.
 * Two accesses of one element in the same epoch by different threads, at
 * least one of them a plain write (or one atomic and one plain access),
 * with no such warp collective between them, are a race. Atomics do not
 * race with each other.
 *
 * Epoch and synchronization numbers come from one counter each per kernel
 * ({@link RaceClock}), increasing across blocks and launches, so that a
 * record left by an earlier block or launch is simply older: nothing is
 * cleared between blocks.
 *
 * Per element, three records (ints): the last plain write (epoch, thread,
 * sync number at the write, site); the plain reads of the current epoch and
 * the atomics of the current epoch, each as a set (epoch, first thread,
 * a thread of another warp than the first, the lanes of the first's warp as
 * a bit mask, the latest sync number among them, the first's site, the other's
 * site). A write that passes its checks is ordered after every recorded read
 * and atomic, so it clears both sets.
 */

/** What a thread did to an element, for messages. */
export const AccessKind = Object.freeze({ Read: 0, Write: 1, Atomic: 2 } as const);
export type AccessKind = (typeof AccessKind)[keyof typeof AccessKind];

/** Reports a race: throws. `unit` is the shadow unit; `otherSite` is -1 where not known. */
export type RaceReporter = (
  site: number,
  unit: number,
  thread: number,
  kind: AccessKind,
  other: number,
  otherSite: number,
  otherKind: AccessKind,
  clock: BlockClock,
) => never;

/** Epoch and warp-synchronization counters shared by the blocks of one kernel. */
export class RaceClock {
  epoch = 0;
  sync = 0;

  /** Whether the counters are near the end of the shadow's 32-bit ints (then the caller clears the shadows and calls restart). */
  get exhausted(): boolean {
    return this.epoch > 2 ** 30 || this.sync > 2 ** 30;
  }

  restart(): void {
    this.epoch = 0;
    this.sync = 0;
  }
}

/** One block's place in time: its epoch, and the warp synchronizations between its lanes. */
export class BlockClock {
  epoch = 0;
  /** The block's coordinates and the block's extents, for messages. */
  bx = 0;
  by = 0;
  bz = 0;
  /** Per warp: the number of the last synchronization of all its lanes. */
  readonly warpAll: Int32Array;
  /** Per warp, per pair of lanes (w * 1024 + a * 32 + b): the last synchronization of a partial mask that held both. */
  #pairs: Int32Array | undefined;

  constructor(
    readonly global: RaceClock,
    readonly ntidX: number,
    readonly ntidY: number,
    readonly ntidZ: number,
  ) {
    this.warpAll = new Int32Array(Math.ceil((ntidX * ntidY * ntidZ) / 32));
  }

  /** A block starts: a new epoch (older records belong to earlier blocks). */
  begin(bx: number, by: number, bz: number): void {
    this.bx = bx;
    this.by = by;
    this.bz = bz;
    this.epoch = ++this.global.epoch;
  }

  /** A block barrier passed. */
  barrier(): void {
    this.epoch = ++this.global.epoch;
  }

  /** A warp collective of warp `w` passed for the lanes `lanes` (of the warp's existing lanes `exist`). */
  syncWarp(w: number, lanes: number, exist: number): void {
    const id = ++this.global.sync;
    if ((lanes & exist) === exist) {
      this.warpAll[w] = id;
      return;
    }
    this.#pairs ??= new Int32Array(this.warpAll.length << 10);
    const pairs = this.#pairs;
    for (let a = lanes; a !== 0; a &= a - 1) {
      const row = (w << 10) | ((31 - Math.clz32(a & -a)) << 5);
      for (let c = lanes; c !== 0; c &= c - 1) pairs[row | (31 - Math.clz32(c & -c))] = id;
    }
  }

  /** Whether an access by thread `a` (at sync number `syncA`) is ordered before one by thread `t` now, in the same epoch. */
  ordered(a: number, syncA: number, t: number): boolean {
    const w = t >> 5;
    if (a >> 5 !== w) return false;
    let last = this.warpAll[w]!;
    const pairs = this.#pairs;
    if (pairs !== undefined) {
      const p = pairs[(w << 10) | ((a & 31) << 5) | (t & 31)]!;
      if (p > last) last = p;
    }
    return last > syncA;
  }

  /** Forgets every synchronization (the counters restarted). */
  clear(): void {
    this.warpAll.fill(0);
    this.#pairs?.fill(0);
    this.epoch = 0;
  }
}

/** Ints per shadow unit: write (4), reads (7), atomics (7). */
const FIELDS = 18;
const W = 0;
const R = 4;
const A = 11;

/** The shadow of one shared array (or of the launch's dynamic shared memory, in units of its smallest element). */
export class SharedShadow {
  readonly #s: Int32Array;

  constructor(
    units: number,
    readonly clock: BlockClock,
    private readonly report: RaceReporter,
  ) {
    this.#s = new Int32Array(units * FIELDS);
  }

  read(u: number, t: number, site: number): void {
    const s = this.#s;
    const b = u * FIELDS;
    const clock = this.clock;
    const ep = clock.epoch;
    if (s[b + W] === ep && s[b + W + 1] !== t && !clock.ordered(s[b + W + 1]!, s[b + W + 2]!, t))
      this.report(site, u, t, AccessKind.Read, s[b + W + 1]!, s[b + W + 3]!, AccessKind.Write, clock);
    if (s[b + A] === ep) this.#check(b + A, u, t, site, AccessKind.Read, AccessKind.Atomic);
    if (s[b + R] === ep && s[b + R + 1] === t) return;
    this.#add(b + R, t, site);
  }

  write(u: number, t: number, site: number): void {
    const s = this.#s;
    const b = u * FIELDS;
    const clock = this.clock;
    const ep = clock.epoch;
    if (s[b + W] === ep && s[b + W + 1] !== t && !clock.ordered(s[b + W + 1]!, s[b + W + 2]!, t))
      this.report(site, u, t, AccessKind.Write, s[b + W + 1]!, s[b + W + 3]!, AccessKind.Write, clock);
    if (s[b + R] === ep) this.#check(b + R, u, t, site, AccessKind.Write, AccessKind.Read);
    if (s[b + A] === ep) this.#check(b + A, u, t, site, AccessKind.Write, AccessKind.Atomic);
    s[b + W] = ep;
    s[b + W + 1] = t;
    s[b + W + 2] = clock.global.sync;
    s[b + W + 3] = site;
    s[b + R] = 0;
    s[b + A] = 0;
  }

  atomic(u: number, t: number, site: number): void {
    const s = this.#s;
    const b = u * FIELDS;
    const clock = this.clock;
    const ep = clock.epoch;
    if (s[b + W] === ep && s[b + W + 1] !== t && !clock.ordered(s[b + W + 1]!, s[b + W + 2]!, t))
      this.report(site, u, t, AccessKind.Atomic, s[b + W + 1]!, s[b + W + 3]!, AccessKind.Write, clock);
    if (s[b + R] === ep) this.#check(b + R, u, t, site, AccessKind.Atomic, AccessKind.Read);
    if (s[b + A] === ep && s[b + A + 1] === t) return;
    this.#add(b + A, t, site);
  }

  /** Accesses of `n` consecutive units (an element of a dynamic shared array wider than the shadow's unit). */
  readSpan(u: number, n: number, t: number, site: number): void {
    for (let k = 0; k < n; k++) this.read(u + k, t, site);
  }

  writeSpan(u: number, n: number, t: number, site: number): void {
    for (let k = 0; k < n; k++) this.write(u + k, t, site);
  }

  atomicSpan(u: number, n: number, t: number, site: number): void {
    for (let k = 0; k < n; k++) this.atomic(u + k, t, site);
  }

  /** Forgets every access (the counters restarted). */
  clear(): void {
    this.#s.fill(0);
  }

  /** Reports the first thread of the set at `b` (of the current epoch) that `t` is not ordered after. */
  #check(b: number, u: number, t: number, site: number, kind: AccessKind, otherKind: AccessKind): void {
    const s = this.#s;
    const first = s[b + 1]!;
    const other = s[b + 2]!;
    const w = t >> 5;
    let conflict = -1;
    if (other !== -1) {
      // Threads of two warps are in the set: one of them is of another warp than t's.
      conflict = first >> 5 !== w ? first : other;
    } else if (first >> 5 !== w) {
      conflict = first;
    } else {
      const sync = s[b + 4]!;
      for (let m = s[b + 3]! & ~(1 << (t & 31)); m !== 0; m &= m - 1) {
        const lane = 31 - Math.clz32(m & -m);
        const r = (w << 5) | lane;
        if (!this.clock.ordered(r, sync, t)) {
          conflict = r;
          break;
        }
      }
    }
    if (conflict < 0) return;
    const otherSite = conflict === first ? s[b + 5]! : conflict === other ? s[b + 6]! : -1;
    this.report(site, u, t, kind, conflict, otherSite, otherKind, this.clock);
  }

  #add(b: number, t: number, site: number): void {
    const s = this.#s;
    const clock = this.clock;
    if (s[b] !== clock.epoch) {
      s[b] = clock.epoch;
      s[b + 1] = t;
      s[b + 2] = -1;
      s[b + 3] = 1 << (t & 31);
      s[b + 4] = clock.global.sync;
      s[b + 5] = site;
      s[b + 6] = -1;
      return;
    }
    const first = s[b + 1]!;
    if (first >> 5 === t >> 5) {
      s[b + 3]! |= 1 << (t & 31);
      s[b + 4] = clock.global.sync;
    } else if (s[b + 2] === -1) {
      s[b + 2] = t;
      s[b + 6] = site;
    }
  }
}
