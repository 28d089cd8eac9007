import { packRow } from '../intrinsics/packs.js';
import { type ArrayType, isFloat, type ScalarName } from '../typing/jit-types.js';
import { roundToFloat } from '../typing/literals.js';
import {
  type Expr,
  type MemorySpace,
  SHUFFLE_TYPES,
  type SpecialRegister,
  type Stmt,
  type TypedKernel,
} from '../typing/typed-ir.js';
import { unknownNode } from '../typing/unknown-node.js';
import { arrayVariables } from './array-variables.js';
import { atomicSource } from './atomic-source.js';
import { bitResultType, bitRow } from '../intrinsics/bits.js';
import { INTEGERS, simulatorText } from '../intrinsics/forms.js';
import { laneMaskRow } from '../intrinsics/lane-masks.js';
import { timerRow } from '../intrinsics/timers.js';
import { warpVoteRow } from '../intrinsics/warp-votes.js';
import { simulatorExpression } from './simulator-form.js';
import { convertSource } from './conversion-source.js';
import { type ArrayAccess, loadSource, storeSource } from './element-access-source.js';
import type { CollectiveOp, InlineFrame } from './fault-sites.js';
import { bigintCode, type GeneratedValue } from './generated-value.js';
import type { I64NumberRanges } from './i64-number-ranges.js';
import { collectivesIn } from './ir-traversal.js';
import { bigintLiteral, isRepeatable, numberLiteral } from './js-literal.js';
import { mathSource } from './math-source.js';
import { MemoryPlan, memoryVariables } from './memory-plan.js';
import { binarySource, compareSource, unarySource } from './operator-source.js';
import type { SourceContext } from './source-context.js';

/** The name of recursive function `index` in generated code. */
export const functionName = (index: number): string => `f${index}`;

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

/** What generates the statements of an inlined device function's body (a StatementSource). */
export interface InlineBodySource {
  /** The body's statements, as lines (its `return`s are refused: a device function's became assignments and breaks). */
  inlineBody(body: readonly Stmt[]): string[];
}

/**
 * How the generated code runs threads:
 * - fast: one after another, the body inline in the thread loop;
 * - lockstep: each thread a generator (`function*`) whose collectives are
 *   `(q.cN(s, site, ...), yield)` expressions: the scheduler `q` resumes it
 *   with the collective's value. `s` is the thread's slot, `lin` its linear
 *   index in the block.
 */
export interface ExpressionOptions {
  readonly plan: MemoryPlan;
  readonly lockstep: boolean;
}

/** Generates JavaScript for the typed IR's expressions (typed-ir.ts's semantics; representations in generated-value.ts). */
export class ExpressionSource {
  readonly plan: MemoryPlan;
  readonly lockstep: boolean;
  #bodies: InlineBodySource | undefined;
  /** The device-function calls being generated, innermost first (fault sites in them say so). */
  #frames: InlineFrame[] = [];
  private readonly context: SourceContext;

  constructor(
    private readonly kernel: TypedKernel,
    private readonly ranges: I64NumberRanges,
    context: SourceContext,
    options?: ExpressionOptions,
  ) {
    this.plan = options?.plan ?? new MemoryPlan(kernel.memories ?? []);
    this.lockstep = options?.lockstep ?? false;
    this.context = {
      temporary: (initial) => context.temporary(initial),
      addFaultSite: (site) =>
        context.addFaultSite(this.#frames.length === 0 ? site : { ...site, via: [...this.#frames] }),
    };
  }

  /** Connects the statement generator that inlined bodies need. */
  attach(bodies: InlineBodySource): void {
    this.#bodies = bodies;
  }

  generate(e: Expr): GeneratedValue {
    const value = this.#generate(e);
    if (value.type !== e.type)
      throw new Error(`simulator: generated ${value.type} for an expression of type ${e.type}`);
    return value;
  }

  #generate(e: Expr): GeneratedValue {
    switch (e.op) {
      case 'const':
        return this.#constant(e.type, e.value);
      case 'local': {
        const bound = this.ranges.bound(e);
        return bound === undefined
          ? { code: localName(e.id), type: e.type }
          : { code: localName(e.id), type: e.type, numberBound: bound };
      }
      case 'assign': {
        const value = this.generate(e.value);
        const bound = this.ranges.bound(e);
        if (bound !== undefined)
          return { code: `(${localName(e.id)} = ${value.code})`, type: e.type, numberBound: bound };
        const code = e.type === 'i64' || e.type === 'u64' ? bigintCode(value) : value.code;
        return { code: `(${localName(e.id)} = ${code})`, type: e.type };
      }
      case 'unary':
        return unarySource(e.operator, e.type, this.generate(e.operand), this.ranges.bound(e));
      case 'binary':
        return binarySource(
          e.operator,
          e.type,
          this.generate(e.left),
          this.generate(e.right),
          this.ranges.bound(e),
          e.loc,
          this.context,
        );
      case 'compare':
        return compareSource(e.operator, this.generate(e.left), this.generate(e.right));
      case 'logical': {
        // JavaScript's && and || are the IR's: truthiness is `x != 0` (NaN false), the right side lazy.
        const [left, right] = this.#alike(e.left, e.right, this.ranges.bound(e));
        return {
          code: `(${left.code} ${e.operator === 'and' ? '&&' : '||'} ${right.code})`,
          type: e.type,
          ...this.#bound(e),
        };
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
        if (e.register === 'laneid' && this.lockstep) return { code: '(lin & 31)', type: 'i32' };
        return { code: SPECIAL_REGISTERS[e.register], type: 'i32' };
      case 'load': {
        const access = this.#access(e.ref.array, e.ref.space);
        const indices = e.ref.indices.map((ix) => this.generate(ix));
        return loadSource(access, indices, e.loc, this.context);
      }
      case 'store': {
        const access = this.#access(e.ref.array, e.ref.space);
        const indices = e.ref.indices.map((ix) => this.generate(ix));
        return storeSource(access, indices, this.generate(e.value), e.loc, this.context);
      }
      case 'dim':
        return { code: this.#dim(e.array, e.space, e.what, e.dim), type: 'i64', numberBound: this.ranges.bound(e)! };
      case 'sequence': {
        const effects = e.effects.map((x) => this.generate(x).code);
        const value = this.generate(e.value);
        return { code: `(${[...effects, value.code].join(', ')})`, type: e.type, ...this.#bound(e) };
      }
      case 'atomic': {
        const access = this.#access(e.ref.array, e.ref.space);
        const indices = e.ref.indices.map((ix) => this.generate(ix));
        const compare = e.compare === undefined ? undefined : this.generate(e.compare);
        return atomicSource(e.fn, access, indices, this.generate(e.value), compare, e.loc, this.context);
      }
      case 'shuffle': {
        if (!SHUFFLE_TYPES.includes(e.type))
          throw new Error(`simulator: the typed IR shuffles a ${e.type}; shuffles take ${SHUFFLE_TYPES.join(', ')}`);
        const value = this.generate(e.value);
        const args = [
          this.generate(e.mask).code,
          e.type === 'i64' || e.type === 'u64' ? bigintCode(value) : value.code,
          this.generate(e.lane).code,
          this.generate(e.width).code,
        ];
        return this.#collective({ op: 'shuffle', mode: e.mode }, e.loc, 'c4', args, e.type);
      }
      case 'vote': {
        const expected = warpVoteRow(e.mode)?.result ?? (e.mode === 'count' ? 'i32' : 'bool');
        if (e.type !== expected)
          throw new Error(`simulator: the typed IR's '${e.mode}' vote is ${e.type}, not ${expected}`);
        const blockModes = e.mode === 'count' || e.mode === 'and' || e.mode === 'or';
        if ((e.scope === 'block') !== blockModes)
          throw new Error(`simulator: the typed IR has a '${e.mode}' vote of scope ${e.scope}`);
        const mask = e.scope === 'warp' ? this.generate(this.#required(e.mask, 'a warp vote', 'mask')).code : '0';
        return this.#collective(
          { op: 'vote', scope: e.scope, mode: e.mode },
          e.loc,
          'c2',
          [mask, this.generate(e.predicate).code],
          e.type,
        );
      }
      case 'match': {
        const value = this.generate(e.value);
        const big = e.valueType === 'i64' || e.valueType === 'u64';
        return this.#collective(
          { op: 'match', mode: e.mode, valueType: e.valueType },
          e.loc,
          'c2',
          [this.generate(e.mask).code, big ? bigintCode(value) : value.code],
          'u32',
        );
      }
      case 'mma':
        return this.#mma(e);
      case 'pack': {
        const row = packRow(e.to);
        if (!row) throw new Error(`simulator: the typed IR packs to '${e.to}', which has no row`);
        return {
          code: simulatorExpression(row.simulator, [this.generate(e.lo).code, this.generate(e.hi).code]),
          type: 'u32',
        };
      }
      case 'lanemask':
        return this.#laneMask(e);
      case 'bits':
        return this.#bits(e);
      case 'timer': {
        const row = timerRow(e.which);
        if (!row || typeof row.simulator !== 'string')
          throw new Error(`simulator: the typed IR has timer '${e.which}', which has no simulator form`);
        return { code: simulatorExpression(row.simulator, []), type: 'u64' };
      }
      case 'inline':
        return this.#inline(e);
      case 'call':
        return this.#call(e);
      case 'invoke':
        return this.#invoke(e);
      default:
        return unknownNode(e, (detail) => new Error(`simulator: ${detail}`));
    }
  }

  /**
   * A warp's mma (intrinsics/mma.ts): a collective of all 32 lanes (mask
   * -1), each giving its fragments' registers in order (a, b, c); the
   * scheduler gives each lane its D fragment, which is stored into `d`.
   */
  #mma(e: Extract<Expr, { op: 'mma' }>): GeneratedValue {
    const registers = [...e.a, ...e.b, ...e.c].map((x) => this.generate(x).code);
    const t = this.context.temporary('null');
    const call = this.collectiveCode({ op: 'mma', shape: e.shape }, e.loc, 'c2', ['-1', `[${registers.join(', ')}]`]);
    const stores = e.d.map((ref, i) => {
      const access = this.#access(ref.array, ref.space);
      const indices = ref.indices.map((ix) => this.generate(ix));
      return storeSource(access, indices, { code: `${t}[${i}]`, type: 'f32' }, e.loc, this.context).code;
    });
    return { code: `(${t} = ${call}, ${stores.join(', ')}, 0)`, type: 'i32' };
  }

  /** A recursive function's call: the generated function `fN` (functionName), i64 and u64 arguments as bigints. */
  #invoke(e: Extract<Expr, { op: 'invoke' }>): GeneratedValue {
    const f = this.kernel.functions?.[e.function];
    if (f === undefined || f.params.length !== e.args.length)
      throw new Error(
        `simulator: the call names function ${e.function}, which the kernel does not have with ${e.args.length} parameter(s)`,
      );
    const args = e.args.map((a) => {
      const value = this.generate(a);
      return a.type === 'i64' || a.type === 'u64' ? bigintCode(value) : value.code;
    });
    const call = `${functionName(e.function)}(${args.join(', ')})`;
    if (f.returns === undefined) return { code: `(${call}, 0)`, type: 'i32' };
    if (f.returns !== e.type)
      throw new Error(`simulator: the call of '${f.name}' is of type ${e.type}, the function returns ${f.returns}`);
    return { code: call, type: e.type };
  }

  /**
   * A call of linked code: the runtime calls the declaration's `simulate`
   * with the arguments (i64 and u64 as bigints; an array as its typed array
   * from element 0, ExternalCall's convention) and gives the result as the
   * declared type.
   */
  #call(e: Extract<Expr, { op: 'call' }>): GeneratedValue {
    const external = this.kernel.externals?.[e.external];
    if (external === undefined || external.symbol !== e.symbol)
      throw new Error(
        `simulator: the call of '${e.symbol}' names external ${e.external}, which the kernel does not have`,
      );
    if (external.returns !== e.type || external.args.length !== e.args.length)
      throw new Error(`simulator: the call of '${e.symbol}' does not match its declaration`);
    const args = e.args.map((a) => {
      if (a.kind === 'pointer') {
        if (a.space !== undefined) {
          this.#memory(a.array, a.space);
          return memoryVariables.data(a.array);
        }
        this.#arrayType(a.array);
        return `${arrayVariables.data(a.array)}.subarray(${arrayVariables.offset(a.array)})`;
      }
      const value = this.generate(a.value);
      return value.type === 'i64' || value.type === 'u64' ? bigintCode(value) : value.code;
    });
    const site = this.context.addFaultSite({ kind: 'external', loc: e.loc, external: e.external });
    return { code: `callExternal(${site}, [${args.join(', ')}])`, type: e.type };
  }

  #required<T>(value: T | undefined, what: string, part: string): T {
    if (value === undefined) throw new Error(`simulator: the typed IR has ${what} without its ${part}`);
    return value;
  }

  /** A collective as an expression: the request to the scheduler, then the yield that gives its value. */
  #collective(
    op: CollectiveOp,
    loc: Expr['loc'],
    call: 'c0' | 'c1' | 'c2' | 'c4',
    args: readonly string[],
    type: ScalarName,
  ): GeneratedValue {
    return { code: this.collectiveCode(op, loc, call, args), type };
  }

  /** `(q.cN(s, site, ...args), yield)`: valid in lockstep mode only. */
  collectiveCode(op: CollectiveOp, loc: Expr['loc'], call: 'c0' | 'c1' | 'c2' | 'c4', args: readonly string[]): string {
    if (!this.lockstep)
      throw new Error(`simulator: a collective (${op.op}) in a kernel generated without lockstep mode`);
    const site = this.context.addFaultSite({ kind: 'collective', loc, collective: op });
    return `(q.${call}(s, ${[site, ...args].join(', ')}), yield)`;
  }

  /** Records a loop's site (where a spent budget stops the launch) and gives its number. */
  addLoopSite(loc: Expr['loc']): number {
    return this.context.addFaultSite({ kind: 'loop', loc });
  }

  /** Records a print statement's site (its format) and gives its number. */
  addPrintSite(format: string, loc: Expr['loc']): number {
    return this.context.addFaultSite({ kind: 'print', loc, format });
  }

  /** A lane mask by its row (intrinsics/lane-masks.ts): a collective one (`activemask`) asks the scheduler; the others are JS of the lane. */
  #laneMask(e: Extract<Expr, { op: 'lanemask' }>): GeneratedValue {
    const row = laneMaskRow(e.which);
    if (!row) throw new Error(`simulator: the typed IR has lane mask '${e.which}', which has no row`);
    if (row.collective) return this.#collective({ op: 'activemask' }, e.loc, 'c0', [], 'u32');
    const lane = this.lockstep ? '(lin & 31)' : SPECIAL_REGISTERS.laneid;
    return { code: simulatorExpression(row.simulator, [], { lane }), type: 'u32' };
  }

  /** A bit function: its row's simulator form (intrinsics/bits.ts), 64-bit arguments as bigints. */
  #bits(e: Extract<Expr, { op: 'bits' }>): GeneratedValue {
    const t = e.argType;
    const row = bitRow(e.fn);
    const form = row && simulatorText(row.simulator, t);
    if (!row?.argTypes.includes(t) || form === undefined)
      throw new Error(`simulator: the typed IR has '${e.fn}' of ${t}; bit functions take ${INTEGERS.join(', ')}`);
    const expected = bitResultType(e.fn, t);
    if (e.type !== expected)
      throw new Error(`simulator: the typed IR's '${e.fn}' of ${t} is ${e.type}, not ${expected}`);
    const arg = this.generate(e.arg);
    const wide = t === 'i64' || t === 'u64';
    const code = wide ? bigintCode(arg) : arg.code;
    // a form that names its operand twice reads it from a temporary, so that the operand is evaluated once
    if ((form.match(/\$0(?!\d)/g)?.length ?? 0) > 1 && !isRepeatable(code)) {
      const x = this.context.temporary(wide ? '0n' : '0');
      return { code: `(${x} = ${code}, ${simulatorExpression(form, [x])})`, type: e.type };
    }
    return { code: simulatorExpression(form, [code]), type: e.type };
  }

  /**
   * A device function's body in an immediately called function, which sees
   * the kernel's locals: an arrow function, or in lockstep mode, where the
   * body has a collective, a generator delegated to with `yield*`.
   */
  #inline(e: Extract<Expr, { op: 'inline' }>): GeneratedValue {
    const result = this.kernel.locals[e.result];
    if (result === undefined || result.type !== e.type)
      throw new Error(
        `simulator: the inlined '${e.name}' gives local ${e.result}, which is not a local of type ${e.type}`,
      );
    if (this.#bodies === undefined) throw new Error('simulator: no statement generator for inlined bodies');
    this.#frames.unshift({ name: e.name, loc: e.loc });
    let lines: string[];
    try {
      lines = this.#bodies.inlineBody(e.body);
    } finally {
      this.#frames.shift();
    }
    const found = collectivesIn(e.body);
    const waits = found.block || found.warp || found.grid;
    const body = [...lines, `return ${localName(e.result)};`].join('\n');
    const code = this.lockstep && waits ? `(yield* (function* () {\n${body}\n})())` : `(() => {\n${body}\n})()`;
    return { code, type: e.type, ...this.#bound(e) };
  }

  /** An array parameter, or memory `array` of `space`, as the generated code addresses it. */
  #access(array: number, space: MemorySpace | undefined): ArrayAccess {
    if (space === undefined) {
      const type = this.#arrayType(array);
      const dims = Array.from({ length: type.ndim }, (_, k) => k);
      return {
        array,
        dtype: type.dtype,
        layout: type.layout,
        data: arrayVariables.data(array),
        offset: arrayVariables.offset(array),
        extents: dims.map((k) => arrayVariables.extent(array, k)),
        steps: dims.map((k) => arrayVariables.step(array, k)),
      };
    }
    const layout = this.#memory(array, space);
    const m = layout.memory;
    return {
      array,
      space,
      dtype: m.dtype,
      layout: 'C',
      data: memoryVariables.data(array),
      extents: m.dynamic ? [memoryVariables.dynamicExtent(array)] : layout.shape.map(String),
      steps: layout.steps.map(String),
      ...(space === 'shared'
        ? { shadow: { name: memoryVariables.shadow(array), units: this.plan.unitsPerElement(array) } }
        : {}),
    };
  }

  #dim(array: number, space: MemorySpace | undefined, what: 'shape' | 'stride', dim: number): string {
    if (space === undefined) {
      const type = this.#arrayType(array);
      if (!(dim >= 0 && dim < type.ndim)) throw new Error(`simulator: dimension ${dim} of a ${type.name}`);
      return what === 'shape' ? arrayVariables.extent(array, dim) : arrayVariables.stride(array, dim);
    }
    const layout = this.#memory(array, space);
    if (!(dim >= 0 && dim < layout.shape.length))
      throw new Error(`simulator: dimension ${dim} of the ${space} array '${layout.memory.name}'`);
    if (what === 'stride') return String(layout.steps[dim]);
    return layout.memory.dynamic ? memoryVariables.dynamicExtent(array) : String(layout.shape[dim]);
  }

  #memory(array: number, space: MemorySpace) {
    const layout = this.plan.layouts[array];
    if (layout === undefined || layout.memory.space !== space)
      throw new Error(`simulator: memory ${array} is not a ${space} array`);
    return layout;
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
      if (type === 'i64' && magnitude < 2n ** 53n)
        return {
          code: numberLiteral(Number(exact)),
          type,
          numberBound: Number(magnitude),
          bigintCode: bigintLiteral(exact),
        };
      return { code: bigintLiteral(exact), type };
    }
    const n = Number(value);
    // Constants are in range already; rounding them again costs nothing and keeps the generated code's invariants.
    const normalized = isFloat(type) ? roundToFloat(n, type) : convertConstant(n, type);
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
