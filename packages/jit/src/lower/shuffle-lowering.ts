// Warp shuffles (their rows in intrinsics/warp-shuffles.ts) through `llvm.nvvm.shfl.sync.*`,
// PTX's shfl.sync. Its `c` operand packs the segment: `(32 - width) << 8` is
// the segment mask, and the low five bits the clamp: 0x1f for idx, down and
// bfly (the segment's last lane), 0 for up (its first).
//
// `idx` reads lane `lane & (width - 1)` of the segment, which is PTX's
// shfl.idx for every lane and width. `up` and `down` by a constant in
// [0, 32) and `xor` by a constant in [0, width) are PTX's own modes exactly.
// Otherwise (a lane known only at run time, or out of those ranges, where PTX
// would take it modulo 32, or xor would read an earlier segment) the source
// lane is computed as the contract says, replaced by the lane itself when
// outside the segment, and read with `idx` over the whole warp.
// 64-bit values shuffle as two halves.
import { bitsOf, isFloat, type ScalarName } from '../typing/jit-types.js';
import { warpShuffleRow } from '../intrinsics/warp-shuffles.js';
import { SHUFFLE_TYPES, type ShuffleMode } from '../typing/typed-ir.js';
import { registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { LoweringError } from './lowering-error.js';
import { fillPlaceholders } from './nvvm-form.js';

/** The shuffle of `value` (mask u32, lane and width i32, as typed-ir.ts says). */
export function lowerShuffle(
  ctx: LoweringContext,
  mode: ShuffleMode,
  mask: TypedValue,
  value: TypedValue,
  lane: TypedValue,
  width: TypedValue,
): TypedValue {
  if (!SHUFFLE_TYPES.includes(value.type)) throw new LoweringError(`shuffle of ${value.type}`);
  if (mask.type !== 'u32') throw new LoweringError(`shuffle mask of type ${mask.type}`);
  if (lane.type !== 'i32' || width.type !== 'i32')
    throw new LoweringError(`shuffle lane and width of types ${lane.type}, ${width.type}; both are i32`);
  const { ptxMode, b: source, c } = operands(ctx, mode, lane.ref, width.ref);
  const shuffle = (t: 'i32' | 'float', v: string): string => {
    const fn = ctx.declarations.declare(`llvm.nvvm.shfl.sync.${ptxMode}.${t === 'i32' ? 'i32' : 'f32'}`, t, [
      'i32',
      t,
      'i32',
      'i32',
    ]);
    return ctx.builder.compute(`call ${t} ${fn}(i32 ${mask.ref}, ${t} ${v}, i32 ${source}, i32 ${c})`);
  };
  return { ref: shuffleValue(ctx, value, shuffle), type: value.type };
}

function shuffleValue(
  ctx: LoweringContext,
  value: TypedValue,
  shuffle: (t: 'i32' | 'float', v: string) => string,
): string {
  const b = ctx.builder;
  const type: ScalarName = value.type;
  if (bitsOf(type) === 32) return shuffle(isFloat(type) ? 'float' : 'i32', value.ref);
  const t = registerType(type);
  const whole = isFloat(type) ? b.compute(`bitcast ${t} ${value.ref} to i64`) : value.ref;
  const low = shuffle('i32', b.compute(`trunc i64 ${whole} to i32`));
  const high = shuffle('i32', b.compute(`trunc i64 ${b.compute(`lshr i64 ${whole}, 32`)} to i32`));
  const joined = b.compute(
    `or i64 ${b.compute(`shl i64 ${b.compute(`zext i32 ${high} to i64`)}, 32`)}, ${b.compute(`zext i32 ${low} to i64`)}`,
  );
  return isFloat(type) ? b.compute(`bitcast i64 ${joined} to ${t}`) : joined;
}

const INTEGER = /^-?\d+$/;
const WIDTHS: ReadonlySet<number> = new Set([1, 2, 4, 8, 16, 32]);

/** shfl's mode, `b` (lane or offset) and `c` (segment and clamp) operands for the contract's shuffle. */
function operands(
  ctx: LoweringContext,
  mode: ShuffleMode,
  lane: string,
  width: string,
): { ptxMode: string; b: string; c: string } {
  const b = ctx.builder;
  const constantWidth = INTEGER.test(width) ? Number(width) : undefined;
  const constantLane = INTEGER.test(lane) ? Number(lane) : undefined;
  if (constantWidth !== undefined && !WIDTHS.has(constantWidth))
    throw new LoweringError(`shuffle width ${constantWidth}; it is a power of two up to 32`);
  const row = warpShuffleRow(mode);
  if (!row) throw new LoweringError(`unknown shuffle mode '${mode as string}'`);
  if (row.direct === 'always') {
    const c =
      constantWidth === undefined
        ? b.compute(`or i32 ${b.compute(`shl i32 ${b.compute(`sub i32 32, ${width}`)}, 8`)}, ${row.clamp}`)
        : String(((32 - constantWidth) << 8) | row.clamp);
    return { ptxMode: row.ptx, b: lane, c };
  }
  const laneLimit = row.direct === 'width' ? constantWidth : 32;
  if (
    constantWidth !== undefined &&
    constantLane !== undefined &&
    laneLimit !== undefined &&
    constantLane >= 0 &&
    constantLane < laneLimit
  ) {
    const segment = (32 - constantWidth) << 8;
    return { ptxMode: row.ptx, b: lane, c: String(segment | row.clamp) };
  }
  // The general case: source = f(laneid, lane) in i32 (wrapping, which keeps every
  // out-of-range source out of range); inside the segment when it differs from laneid only below log2(width).
  const laneId = b.compute(`call i32 ${ctx.declarations.declare('llvm.nvvm.read.ptx.sreg.laneid', 'i32', [])}()`);
  const low = b.compute(`sub i32 ${width}, 1`);
  const high = b.compute(`xor i32 ${low}, -1`);
  if (row.source.llvm === undefined)
    throw new LoweringError(`shuffle '${mode}' has no source lane for the general case`);
  const source = b.compute(fillPlaceholders(row.source.llvm, { laneid: laneId, lane }));
  const outside = b.compute(`and i32 ${b.compute(`xor i32 ${source}, ${laneId}`)}, ${high}`);
  const inside = b.compute(`icmp eq i32 ${outside}, 0`);
  return { ptxMode: 'idx', b: b.compute(`select i1 ${inside}, i32 ${source}, i32 ${laneId}`), c: '31' };
}
