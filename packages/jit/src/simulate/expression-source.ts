import type { ArrayType, ScalarName } from '../types/jit-types.js';
import type { Expr, SpecialRegister, TypedKernel } from '../types/typed-ir.js';
import { arrayVariables } from './array-variables.js';
import { convertSource } from './conversion-source.js';
import { loadSource, storeSource } from './element-access-source.js';
import { bigintCode, type GeneratedValue } from './generated-value.js';
import type { I64NumberRanges } from './i64-number-ranges.js';
import { bigintLiteral, numberLiteral } from './js-literal.js';
import { mathSource } from './math-source.js';
import { binarySource, compareSource, unarySource } from './operator-source.js';
import type { SourceContext } from './source-context.js';

/** The name of local variable `id` in generated code. */
export const localName = (id: number): string => `l${id}`;

/** The generated code's variables for the thread's position. */
const SPECIAL_REGISTERS: Readonly<Record<SpecialRegister, string>> = {
  'tid.x': 'tidX',
  'tid.y': 'tidY',
  'tid.z': 'tidZ',
  'ntid.x': 'ntidX',
  'ntid.y': 'ntidY',
  'ntid.z': 'ntidZ',
  'ctaid.x': 'ctaidX',
  'ctaid.y': 'ctaidY',
  'ctaid.z': 'ctaidZ',
  'nctaid.x': 'nctaidX',
  'nctaid.y': 'nctaidY',
  'nctaid.z': 'nctaidZ',
  // The lane is the thread's linear index in its block modulo the warp size.
  laneid: '(((tidZ * ntidY + tidY) * ntidX + tidX) & 31)',
  warpsize: '32',
};

/** Generates JavaScript for the typed IR's expressions (typed-ir.ts's semantics; representations in generated-value.ts). */
export class ExpressionSource {
  constructor(
    private readonly kernel: TypedKernel,
    private readonly ranges: I64NumberRanges,
    private readonly context: SourceContext,
  ) {}

  generate(e: Expr): GeneratedValue {
    const value = this.#generate(e);
    if (value.type !== e.type) throw new Error(`simulator: generated ${value.type} for an expression of type ${e.type}`);
    return value;
  }

  #generate(e: Expr): GeneratedValue {
    switch (e.op) {
      case 'const':
        return this.#constant(e.type, e.value);
      case 'local': {
        const bound = this.ranges.bound(e);
        return bound === undefined ? { code: localName(e.id), type: e.type } : { code: localName(e.id), type: e.type, numberBound: bound };
      }
      case 'assign': {
        const value = this.generate(e.value);
        const bound = this.ranges.bound(e);
        if (bound !== undefined) return { code: `(${localName(e.id)} = ${value.code})`, type: e.type, numberBound: bound };
        const code = e.type === 'i64' || e.type === 'u64' ? bigintCode(value) : value.code;
        return { code: `(${localName(e.id)} = ${code})`, type: e.type };
      }
      case 'unary':
        return unarySource(e.operator, e.type, this.generate(e.operand), this.ranges.bound(e));
      case 'binary':
        return binarySource(e.operator, e.type, this.generate(e.left), this.generate(e.right), this.ranges.bound(e), e.loc, this.context);
      case 'compare':
        return compareSource(e.operator, this.generate(e.left), this.generate(e.right));
      case 'logical': {
        // JavaScript's && and || are the IR's: truthiness is `x != 0` (NaN false), the right side lazy.
        const [left, right] = this.#alike(e.left, e.right, this.ranges.bound(e));
        return { code: `(${left.code} ${e.operator === 'and' ? '&&' : '||'} ${right.code})`, type: e.type, ...this.#bound(e) };
      }
      case 'select': {
        const test = this.generate(e.test);
        const [then, otherwise] = this.#alike(e.then, e.otherwise, this.ranges.bound(e));
        return { code: `(${test.code} ? ${then.code} : ${otherwise.code})`, type: e.type, ...this.#bound(e) };
      }
      case 'convert':
        return convertSource(this.generate(e.operand), e.type, this.ranges.bound(e));
      case 'math':
        return mathSource(
          e.fn,
          e.type,
          e.argType,
          e.args.map((a) => this.generate(a)),
        );
      case 'special':
        return { code: SPECIAL_REGISTERS[e.register], type: 'i32' };
      case 'load': {
        const indices = e.ref.indices.map((ix) => this.generate(ix));
        return loadSource(e.ref.array, this.#arrayType(e.ref.array), indices, e.loc, this.context);
      }
      case 'store': {
        const indices = e.ref.indices.map((ix) => this.generate(ix));
        return storeSource(e.ref.array, this.#arrayType(e.ref.array), indices, this.generate(e.value), e.loc, this.context);
      }
      case 'dim': {
        this.#arrayType(e.array);
        const name = e.what === 'shape' ? arrayVariables.extent(e.array, e.dim) : arrayVariables.stride(e.array, e.dim);
        return { code: name, type: 'i64', numberBound: this.ranges.bound(e)! };
      }
      case 'sequence': {
        const effects = e.effects.map((x) => this.generate(x).code);
        const value = this.generate(e.value);
        return { code: `(${[...effects, value.code].join(', ')})`, type: e.type, ...this.#bound(e) };
      }
    }
  }

  /** The two branches of a logical or select in one representation (both numbers only when the node's bound says so). */
  #alike(a: Expr, b: Expr, bound: number | undefined): [GeneratedValue, GeneratedValue] {
    const x = this.generate(a);
    const y = this.generate(b);
    if (bound !== undefined || (a.type !== 'i64' && a.type !== 'u64')) return [x, y];
    return [
      { code: bigintCode(x), type: x.type },
      { code: bigintCode(y), type: y.type },
    ];
  }

  #bound(e: Expr): { numberBound?: number } {
    const bound = this.ranges.bound(e);
    return bound === undefined ? {} : { numberBound: bound };
  }

  #constant(type: ScalarName, value: number | bigint | boolean): GeneratedValue {
    if (type === 'bool') return { code: value ? 'true' : 'false', type };
    if (type === 'i64' || type === 'u64') {
      const v = BigInt.asIntN(64, BigInt(value));
      const exact = type === 'u64' ? BigInt.asUintN(64, v) : v;
      const magnitude = exact < 0n ? -exact : exact;
      // Small i64 constants are numbers too (bigint literal kept for bigint contexts); see I64NumberRanges.
      if (type === 'i64' && magnitude < 2n ** 53n) return { code: numberLiteral(Number(exact)), type, numberBound: Number(magnitude), bigintCode: bigintLiteral(exact) };
      return { code: bigintLiteral(exact), type };
    }
    const n = Number(value);
    // Constants are in range already; rounding them again costs nothing and keeps the generated code's invariants.
    const normalized = type === 'f32' ? Math.fround(n) : type === 'f64' ? n : convertConstant(n, type);
    return { code: numberLiteral(normalized), type };
  }

  #arrayType(index: number): ArrayType {
    const param = this.kernel.params[index];
    if (param?.kind !== 'array') throw new Error(`simulator: parameter ${index} is not an array`);
    return param.type;
  }
}

function convertConstant(n: number, type: ScalarName): number {
  switch (type) {
    case 'i8':
      return (n << 24) >> 24;
    case 'u8':
      return n & 255;
    case 'i16':
      return (n << 16) >> 16;
    case 'u16':
      return n & 65535;
    case 'i32':
      return n | 0;
    case 'u32':
      return n >>> 0;
    default:
      return n;
  }
}
