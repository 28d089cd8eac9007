/**
 * The bit functions: `cuda.<name>(x)` of a 32- or 64-bit integer (a literal
 * defaults as a JavaScript number would: i32, else i64). `result` is `i32`
 * (a count) or `arg` (the argument's type). The NVVM form's `$t` is the
 * argument's LLVM type and its value is of that type (truncated to i32 where
 * the result is `i32`); the simulator form takes 32-bit integers as numbers
 * and 64-bit ones as bigints, and its helpers are `simulate/bits-runtime.ts`'s.
 * One row declares a function for every stage: the `cuda` stub and its
 * TypeScript type (its doc comment is the row's), the typing rule, the
 * lowering and the simulator.
 */
import { INTEGERS, type LlvmForm, type SimulatorForm } from './forms.js';
import type { ScalarName } from '../typing/jit-types.js';

export interface BitRow {
  /** numba's spelling. */
  readonly numba: string;
  readonly argTypes: readonly ScalarName[];
  readonly result: 'i32' | 'arg';
  readonly nvvm: LlvmForm;
  readonly simulator: SimulatorForm;
}

export const BIT_FUNCTIONS = Object.freeze({
  /** The number of set bits (numba's `cuda.popc`). */
  popc: {
    numba: 'cuda.popc',
    argTypes: INTEGERS,
    result: 'i32',
    nvvm: { llvm: ['%r = call $t @llvm.ctpop.$t($t $0)'] },
    simulator: { i32: 'popc32($0)', u32: 'popc32($0)', i64: 'popc64($0)', u64: 'popc64($0)' },
  },
  /** The number of leading zero bits (the width for 0) (numba's `cuda.clz`). */
  clz: {
    numba: 'cuda.clz',
    argTypes: INTEGERS,
    result: 'i32',
    nvvm: { llvm: ['%r = call $t @llvm.ctlz.$t($t $0, i1 false)'] },
    simulator: { i32: 'Math.clz32($0)', u32: 'Math.clz32($0)', i64: 'clz64($0)', u64: 'clz64($0)' },
  },
  /** The 1-based position of the lowest set bit; 0 for 0 (numba's `cuda.ffs`). */
  ffs: {
    numba: 'cuda.ffs',
    argTypes: INTEGERS,
    result: 'i32',
    nvvm: {
      llvm: [
        '%c = call $t @llvm.cttz.$t($t $0, i1 false)',
        '%p = add $t %c, 1',
        '%z = icmp eq $t $0, 0',
        '%r = select i1 %z, $t 0, $t %p',
      ],
    },
    simulator: { i32: 'ffs32($0)', u32: 'ffs32($0)', i64: 'ffs64($0)', u64: 'ffs64($0)' },
  },
  /** The bits in reverse order (numba's `cuda.brev`). */
  brev: {
    numba: 'cuda.brev',
    argTypes: INTEGERS,
    result: 'arg',
    nvvm: { llvm: ['%r = call $t @llvm.bitreverse.$t($t $0)'] },
    simulator: { i32: '(brev32($0) | 0)', u32: 'brev32($0)', i64: 'BigInt.asIntN(64, brev64($0))', u64: 'brev64($0)' },
  },
} as const satisfies Record<string, BitRow>);

/** A bit function's name (typed-ir.ts's `bits` node). */
export type BitFunction = keyof typeof BIT_FUNCTIONS;

/** The row of bit function `fn`, or undefined for a name that is none. */
export function bitRow(fn: string): BitRow | undefined {
  return Object.hasOwn(BIT_FUNCTIONS, fn) ? (BIT_FUNCTIONS as Readonly<Record<string, BitRow>>)[fn] : undefined;
}

/** The result type of bit function `fn` on `argType`. */
export function bitResultType(fn: BitFunction, argType: ScalarName): ScalarName {
  return BIT_FUNCTIONS[fn].result === 'arg' ? argType : 'i32';
}
