/**
 * The atomics: `cuda.atomic.<name>(array, index, value)` (or `(array, index,
 * expected, value)` where `operands` is `compare`) on one element of an
 * array parameter (global memory) or a shared or local array, giving the
 * element's old value. One row declares an atomic for every stage: the
 * `cuda.atomic` stub and its TypeScript type (its doc comment is the row's),
 * the typing rule, the lowering and the simulator.
 *
 * - `types`: the element types it takes (`value` and `expected` are of the element's type).
 * - `update`: the element's new value from the old one, `$old` (`$o` in the
 *   simulator), the value `$value` (`$v`) and, for `compare`, `$compare`
 *   (`$c`): what the simulator stores, what a thread's own local array gets
 *   (a load, the formula, a store), and what a compare-and-swap loop stores
 *   where `nvvm` has no instruction for the type. Its NVVM form is a
 *   variant by type: an operator of arithmetic-lowering (`binary`, wrapping
 *   and rounding as `binary` nodes do), a math formula of MATH_FUNCTIONS
 *   (`math`), the value itself (`value`), or LLVM lines (`$t` the type).
 *   The simulator's text is rounded to the type (`round`) as arithmetic is.
 * - `nvvm`: the instruction on global and shared memory, the first variant
 *   whose `types` hold the element's: LLVM lines (`$p` the element pointer's
 *   type and `$ptr` its value, `$t` the element's LLVM type, `$i` and `$ip`
 *   the integer of its width and a pointer to it, `$type` its name, `$m` the
 *   pointer's suffix in intrinsic names (`p1f32`), `$negzero` -0 of a float
 *   type), or inline PTX whose operands are the element's address (i64) and
 *   the value's bits, whose output is the old value's bits, and whose
 *   `$space` is the element's state space (`.global`, `.shared`) and `$type` its type's name.
 *   Relaxed order and device scope, as CUDA's atomicAdd & co.
 */
import type { ScalarName } from '../typing/jit-types.js';
import { type AsmForm, INTEGERS, type LlvmForm, type SimulatorForm } from './forms.js';

const FLOATS: readonly ScalarName[] = Object.freeze(['f32', 'f64']);
const NUMBERS: readonly ScalarName[] = Object.freeze([...INTEGERS, ...FLOATS]);
const SIGNED: readonly ScalarName[] = Object.freeze(['i32', 'i64']);
const UNSIGNED: readonly ScalarName[] = Object.freeze(['u32', 'u64']);

type ByType<Form> = Form & { readonly types?: readonly ScalarName[] };

/** The NVVM form of an atomic's formula (see the file's comment). */
export type AtomicFormula =
  | { readonly binary: 'add' | 'sub' | 'and' | 'or' | 'xor' }
  | { readonly math: 'min' | 'max' }
  | { readonly value: true }
  | LlvmForm;

export interface AtomicRow {
  /** numba's spelling. */
  readonly numba: string;
  readonly types: readonly ScalarName[];
  /** The operands after `array, index`: `value`, or `expected, value`. */
  readonly operands: 'value' | 'compare';
  readonly update: {
    readonly nvvm: readonly ByType<AtomicFormula>[];
    readonly simulator: SimulatorForm;
    readonly round?: boolean;
  };
  readonly nvvm: readonly (ByType<LlvmForm> | ByType<AsmForm>)[];
}

const bitwise = (operator: 'and' | 'or' | 'xor', js: string) =>
  ({
    numba: `cuda.atomic.${operator}`,
    types: INTEGERS,
    operands: 'value',
    update: {
      nvvm: [{ binary: operator }],
      simulator: { i32: `($o ${js} $v)`, u32: `(($o ${js} $v) >>> 0)`, i64: `($o ${js} $v)`, u64: `($o ${js} $v)` },
    },
    nvvm: [{ llvm: [`%r = atomicrmw ${operator} $p $ptr, $t $value monotonic`] }],
  }) as const satisfies AtomicRow;

const minMax = (fn: 'min' | 'max') =>
  ({
    numba: `cuda.atomic.${fn}`,
    types: NUMBERS,
    operands: 'value',
    update: {
      nvvm: [{ math: fn }],
      simulator: {
        i32: `${fn}Number($o, $v)`,
        u32: `${fn}Number($o, $v)`,
        f32: `${fn}Number($o, $v)`,
        f64: `${fn}Number($o, $v)`,
        i64: `${fn}Bigint($o, $v)`,
        u64: `${fn}Bigint($o, $v)`,
      },
    },
    nvvm: [
      { types: SIGNED, llvm: [`%r = atomicrmw ${fn} $p $ptr, $t $value monotonic`] },
      { types: UNSIGNED, llvm: [`%r = atomicrmw u${fn} $p $ptr, $t $value monotonic`] },
    ],
  }) as const satisfies AtomicRow;

/** numba's nanmin/nanmax: a NaN counts as missing (`old < v || v != v ? old : v` for nanmin); on integers min/max. */
const nanMinMax = (fn: 'min' | 'max') => {
  const [less, js] = fn === 'min' ? ['olt', '<'] : ['ogt', '>'];
  const floats = `(($o ${js} $v || $v !== $v) ? $o : $v)`;
  return {
    numba: `cuda.atomic.nan${fn}`,
    types: NUMBERS,
    operands: 'value',
    update: {
      nvvm: [
        { types: INTEGERS, math: fn },
        {
          llvm: [
            `%b = fcmp ${less} $t $old, $value`,
            '%n = fcmp uno $t $value, $value',
            '%w = or i1 %b, %n',
            '%r = select i1 %w, $t $old, $t $value',
          ],
        },
      ],
      simulator: {
        i32: `${fn}Number($o, $v)`,
        u32: `${fn}Number($o, $v)`,
        i64: `${fn}Bigint($o, $v)`,
        u64: `${fn}Bigint($o, $v)`,
        f32: floats,
        f64: floats,
      },
    },
    // floats: a compare-and-swap loop around the formula
    nvvm: [
      { types: SIGNED, llvm: [`%r = atomicrmw ${fn} $p $ptr, $t $value monotonic`] },
      { types: UNSIGNED, llvm: [`%r = atomicrmw u${fn} $p $ptr, $t $value monotonic`] },
    ],
  } as const satisfies AtomicRow;
};

export const ATOMIC_FUNCTIONS = Object.freeze({
  /** `old + value` (wrapping for integers; floats round to the type; f16 from sm_70, bf16 from sm_90). */
  add: {
    numba: 'cuda.atomic.add',
    types: ['i32', 'u32', 'i64', 'u64', 'f16', 'bf16', 'f32', 'f64'],
    operands: 'value',
    update: { nvvm: [{ binary: 'add' }], simulator: '$o + $v', round: true },
    nvvm: [
      { types: INTEGERS, llvm: ['%r = atomicrmw add $p $ptr, $t $value monotonic'] },
      // LLVM 7 has no `atomicrmw fadd`: libNVVM refuses it
      { types: FLOATS, llvm: ['%r = call $t @llvm.nvvm.atomic.load.add.$type.$m($p $ptr, $t $value)'] },
      // noftz: subnormals are kept, as everywhere else
      {
        types: ['f16', 'bf16'],
        ptx: 'atom$space.add.noftz.$type $0, [$1], $2;',
        constraints: '=h,l,h,~{memory}',
        result: 'i16',
      },
    ],
  },
  /** `old - value` (wrapping for integers; floats round to the type). */
  sub: {
    numba: 'cuda.atomic.sub',
    types: NUMBERS,
    operands: 'value',
    update: { nvvm: [{ binary: 'sub' }], simulator: '$o - $v', round: true },
    nvvm: [
      { types: INTEGERS, llvm: ['%r = atomicrmw sub $p $ptr, $t $value monotonic'] },
      // `old - v` is `old + -v` exactly in IEEE arithmetic
      {
        types: FLOATS,
        llvm: ['%n = fsub $t $negzero, $value', '%r = call $t @llvm.nvvm.atomic.load.add.$type.$m($p $ptr, $t %n)'],
      },
    ],
  },
  /** The smaller, by the `min` formula of MATH_FUNCTIONS (a NaN wins). */
  min: minMax('min'),
  /** The larger, by the `max` formula of MATH_FUNCTIONS (a NaN wins). */
  max: minMax('max'),
  /** The smaller, a NaN counting as missing: `nanmin(NaN, v) = v`, `nanmin(old, NaN) = old` (numba's `nanmin`); on integers `min`. */
  nanmin: nanMinMax('min'),
  /** The larger, a NaN counting as missing: `nanmax(NaN, v) = v`, `nanmax(old, NaN) = old` (numba's `nanmax`); on integers `max`. */
  nanmax: nanMinMax('max'),
  /** Bitwise and. */
  and: bitwise('and', '&'),
  /** Bitwise or. */
  or: bitwise('or', '|'),
  /** Bitwise exclusive or. */
  xor: bitwise('xor', '^'),
  /** `value` (the old value is given back). */
  exch: {
    numba: 'cuda.atomic.exch',
    types: NUMBERS,
    operands: 'value',
    update: { nvvm: [{ value: true }], simulator: '$v' },
    nvvm: [
      { types: INTEGERS, llvm: ['%r = atomicrmw xchg $p $ptr, $t $value monotonic'] },
      {
        types: FLOATS,
        llvm: [
          '%bp = bitcast $p $ptr to $ip',
          '%vb = bitcast $t $value to $i',
          '%ob = atomicrmw xchg $ip %bp, $i %vb monotonic',
          '%r = bitcast $i %ob to $t',
        ],
      },
    ],
  },
  /** `old >= value ? 0 : old + 1` (PTX's atom.inc). */
  inc: {
    numba: 'cuda.atomic.inc',
    types: UNSIGNED,
    operands: 'value',
    update: {
      nvvm: [{ llvm: ['%w = icmp uge $t $old, $value', '%n = add $t $old, 1', '%r = select i1 %w, $t 0, $t %n'] }],
      // o + 1 <= v when o < v: no wrap
      simulator: { u32: '($o >= $v ? 0 : $o + 1)', u64: '($o >= $v ? 0n : $o + 1n)' },
    },
    nvvm: [{ types: ['u32'], llvm: ['%r = call i32 @llvm.nvvm.atomic.load.inc.32.$m($p $ptr, i32 $value)'] }],
  },
  /** `old == 0 || old > value ? value : old - 1` (PTX's atom.dec). */
  dec: {
    numba: 'cuda.atomic.dec',
    types: UNSIGNED,
    operands: 'value',
    update: {
      nvvm: [
        {
          llvm: [
            '%z = icmp eq $t $old, 0',
            '%a = icmp ugt $t $old, $value',
            '%w = or i1 %z, %a',
            '%p = sub $t $old, 1',
            '%r = select i1 %w, $t $value, $t %p',
          ],
        },
      ],
      simulator: { u32: '($o === 0 || $o > $v ? $v : $o - 1)', u64: '($o === 0n || $o > $v ? $v : $o - 1n)' },
    },
    nvvm: [{ types: ['u32'], llvm: ['%r = call i32 @llvm.nvvm.atomic.load.dec.32.$m($p $ptr, i32 $value)'] }],
  },
  /** Stores `value` where the element equals `expected`. */
  cas: {
    numba: 'cuda.atomic.cas',
    types: INTEGERS,
    operands: 'compare',
    update: {
      nvvm: [{ llvm: ['%e = icmp eq $t $old, $compare', '%r = select i1 %e, $t $value, $t $old'] }],
      simulator: '($o === $c ? $v : $o)',
    },
    nvvm: [
      {
        llvm: [
          '%pair = cmpxchg $p $ptr, $t $compare, $t $value monotonic monotonic',
          '%r = extractvalue { $t, i1 } %pair, 0',
        ],
      },
    ],
  },
} as const satisfies Record<string, AtomicRow>);

/** An atomic's name (typed-ir.ts's `atomic` node). */
export type AtomicFunction = keyof typeof ATOMIC_FUNCTIONS;

/** The row of atomic `fn`, or undefined for a name that is none. */
export function atomicRow(fn: string): AtomicRow | undefined {
  return Object.hasOwn(ATOMIC_FUNCTIONS, fn)
    ? (ATOMIC_FUNCTIONS as Readonly<Record<string, AtomicRow>>)[fn]
    : undefined;
}
