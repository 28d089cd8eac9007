/**
 * Every intrinsic table, with the path under the `cuda` object that each
 * row declares: what the coverage test (intrinsic-coverage.test.ts) walks to
 * check that each row has a typing rule, an NVVM form and a simulator form,
 * and that each member of `cuda` is a row or a structural intrinsic.
 */
import { ATOMIC_FUNCTIONS } from './atomics.js';
import { BIT_FUNCTIONS } from './bits.js';
import { FENCES } from './fences.js';
import { FP16_FUNCTIONS } from './fp16.js';
import { LANE_MASKS } from './lane-masks.js';
import { CUDA_MATH } from './math.js';
import { MMA_FUNCTIONS } from './mma.js';
import { PACKS } from './packs.js';
import { TIMERS } from './timers.js';
import { WARP_MATCHES } from './warp-matches.js';
import { WARP_SHUFFLES } from './warp-shuffles.js';
import { WARP_VOTES } from './warp-votes.js';

/** One row of one table: its table's name, its key there, its path under `cuda` and the row itself. */
export interface IntrinsicEntry {
  readonly table:
    | 'atomics'
    | 'bits'
    | 'fences'
    | 'fp16'
    | 'lane masks'
    | 'math'
    | 'mma'
    | 'packs'
    | 'timers'
    | 'warp matches'
    | 'warp shuffles'
    | 'warp votes';
  readonly key: string;
  readonly path: string;
  readonly row: Readonly<Record<string, unknown>>;
}

const entries = (
  table: IntrinsicEntry['table'],
  rows: object,
  path: (key: string, row: Readonly<Record<string, unknown>>) => string,
): IntrinsicEntry[] =>
  Object.entries(rows).map(([key, row]: [string, Readonly<Record<string, unknown>>]) => ({
    table,
    key,
    path: path(key, row),
    row,
  }));

/** Every row of every table. */
export const INTRINSIC_ENTRIES: readonly IntrinsicEntry[] = Object.freeze([
  ...entries('atomics', ATOMIC_FUNCTIONS, (key) => `atomic.${key}`),
  ...entries('bits', BIT_FUNCTIONS, (key) => key),
  ...entries('fences', FENCES, (_key, row) => row.cuda as string),
  ...entries('fp16', FP16_FUNCTIONS, (key) => `fp16.${key}`),
  ...entries('lane masks', LANE_MASKS, (key) => key),
  ...entries('math', CUDA_MATH, (key) => key),
  ...entries('mma', MMA_FUNCTIONS, (key) => `mma.${key}`),
  ...entries('packs', PACKS, (key) => key),
  ...entries('timers', TIMERS, (key) => key),
  ...entries('warp matches', WARP_MATCHES, (key) => key),
  ...entries('warp shuffles', WARP_SHUFFLES, (key) => key),
  ...entries('warp votes', WARP_VOTES, (key) => key),
]);
