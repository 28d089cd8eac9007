// Lowers one typed-IR expression to instructions and returns its value.
// Every subexpression is evaluated once, left to right, as in JavaScript;
// `logical` and `select` branch so that the side not taken is not evaluated.
// The memory, atomic, warp, barrier, bit, timer and linked-call nodes are
// lowered by their own files, to which this one hands the operands' values.
import type { ScalarName } from '../typing/jit-types.js';
import type { ElementRef, Expr, SpecialRegister, TypedFunction } from '../typing/typed-ir.js';
import { lowerBinary, lowerCompare, lowerUnary } from './arithmetic-lowering.js';
import { arrayAccess, arrayDimension, type ElementPointer, elementPointer } from './array-addressing.js';
import { lowerAtomic } from './atomic-lowering.js';
import { lowerBlockVote } from './barrier-lowering.js';
import { lowerBits } from './bits-lowering.js';
import { lowerTimer } from './clock-lowering.js';
import { lowerConversion, truthy } from './conversion-lowering.js';
import { type LoweredArgument, lowerExternalCall } from './external-call-lowering.js';
import { constantLiteral, memoryBytes, memoryType, registerType } from './llvm-types.js';
import type { LoweringContext, TypedValue } from './lowering-context.js';
import { unknownNode } from '../typing/unknown-node.js';
import { LoweringError } from './lowering-error.js';
import { lowerMath } from './math-lowering.js';
import { lowerMma, lowerPack } from './mma-lowering.js';
import { lowerShuffle } from './shuffle-lowering.js';
import { lowerStatements } from './statement-lowering.js';
import { lowerLaneMask, lowerMatch, lowerWarpVote } from './warp-lowering.js';

export function lowerExpression(ctx: LoweringContext, expr: Expr): TypedValue {
  const b = ctx.builder;
  switch (expr.op) {
    case 'const':
      return { ref: constantLiteral(expr.type, expr.value), type: expr.type };
    case 'local': {
      const { slot, t, align } = localSlot(ctx, expr.id, expr.type);
      return { ref: b.compute(`load ${t}, ${t}* ${slot}, align ${align}`), type: expr.type };
    }
    case 'assign': {
      const value = expect(lowerExpression(ctx, expr.value), expr.type, 'assign');
      const { slot, t, align } = localSlot(ctx, expr.id, expr.type);
      b.emit(`store ${t} ${value.ref}, ${t}* ${slot}, align ${align}`);
      return value;
    }
    case 'unary':
      return expect(lowerUnary(ctx, expr.operator, lowerExpression(ctx, expr.operand)), expr.type, 'unary');
    case 'binary': {
      const left = lowerExpression(ctx, expr.left);
      const right = lowerExpression(ctx, expr.right);
      return expect(lowerBinary(ctx, expr.operator, left, right), expr.type, 'binary');
    }
    case 'compare': {
      const left = expect(lowerExpression(ctx, expr.left), expr.operandType, 'compare');
      const right = expect(lowerExpression(ctx, expr.right), expr.operandType, 'compare');
      return lowerCompare(ctx, expr.operator, left, right);
    }
    case 'logical':
      return lowerLogical(ctx, expr);
    case 'select':
      return lowerSelect(ctx, expr);
    case 'convert':
      return lowerConversion(ctx, lowerExpression(ctx, expr.operand), expr.type);
    case 'math': {
      const args = expr.args.map((a) => lowerExpression(ctx, a));
      return expect(lowerMath(ctx, expr.fn, expr.argType, args), expr.type, `math '${expr.fn}'`);
    }
    case 'special':
      return { ref: specialRegister(ctx, expr.register), type: 'i32' };
    case 'load': {
      const pointer = elementAddress(ctx, expr.ref, expr.type);
      const t = memoryType(expr.type);
      const loaded = b.compute(`load ${t}, ${pointer.type} ${pointer.ref}, align ${memoryBytes(expr.type)}`);
      // A bool element is a byte: any non-zero byte is true.
      const ref = expr.type === 'bool' ? b.compute(`icmp ne i8 ${loaded}, 0`) : loaded;
      return { ref, type: expr.type };
    }
    case 'store': {
      // JavaScript evaluates `a[i] = v` as the index, then the value.
      const pointer = elementAddress(ctx, expr.ref, expr.type);
      if (pointer.memory === 'const') throw new LoweringError(`store to a const array`);
      const value = expect(lowerExpression(ctx, expr.value), expr.type, 'store');
      const t = memoryType(expr.type);
      const stored = expr.type === 'bool' ? b.compute(`zext i1 ${value.ref} to i8`) : value.ref;
      b.emit(`store ${t} ${stored}, ${pointer.type} ${pointer.ref}, align ${memoryBytes(expr.type)}`);
      return value;
    }
    case 'dim':
      return { ref: arrayDimension(ctx, arrayAccess(ctx, expr.array, expr.space), expr.what, expr.dim), type: 'i64' };
    case 'sequence':
      for (const effect of expr.effects) lowerExpression(ctx, effect);
      return expect(lowerExpression(ctx, expr.value), expr.type, 'sequence');
    case 'atomic': {
      // As JavaScript evaluates `atomic.cas(a, i, expected, value)`: the index, then `compare`, then `value`.
      const pointer = elementAddress(ctx, expr.ref, expr.type);
      const compare = expr.compare === undefined ? undefined : lowerExpression(ctx, expr.compare);
      const value = lowerExpression(ctx, expr.value);
      return expect(lowerAtomic(ctx, expr.fn, pointer, value, compare), expr.type, `atomic '${expr.fn}'`);
    }
    case 'shuffle': {
      const mask = lowerExpression(ctx, expr.mask);
      const value = expect(lowerExpression(ctx, expr.value), expr.type, 'shuffle');
      const lane = lowerExpression(ctx, expr.lane);
      const width = lowerExpression(ctx, expr.width);
      return lowerShuffle(ctx, expr.mode, mask, value, lane, width);
    }
    case 'vote': {
      if (expr.scope === 'block') {
        if (expr.mask !== undefined) throw new LoweringError('a block vote with a mask');
        return expect(
          lowerBlockVote(ctx, expr.mode, lowerExpression(ctx, expr.predicate)),
          expr.type,
          `vote '${expr.mode}'`,
        );
      }
      if (expr.mask === undefined) throw new LoweringError('a warp vote without a mask');
      const mask = lowerExpression(ctx, expr.mask);
      return expect(
        lowerWarpVote(ctx, expr.mode, mask, lowerExpression(ctx, expr.predicate)),
        expr.type,
        `vote '${expr.mode}'`,
      );
    }
    case 'match': {
      const mask = lowerExpression(ctx, expr.mask);
      const value = expect(lowerExpression(ctx, expr.value), expr.valueType, 'match');
      return expect(lowerMatch(ctx, expr.mode, mask, value), expr.type, 'match');
    }
    case 'pack': {
      const lo = expect(lowerExpression(ctx, expr.lo), 'f32', 'pack');
      const hi = expect(lowerExpression(ctx, expr.hi), 'f32', 'pack');
      return { ref: lowerPack(ctx, expr.to, lo, hi), type: 'u32' };
    }
    case 'mma': {
      // The fragments' registers are read in order (a, b, c), then each lane writes its D fragment.
      const read = (xs: readonly Expr[]) => xs.map((x) => lowerExpression(ctx, x));
      const d = lowerMma(ctx, expr.shape, read(expr.a), read(expr.b), read(expr.c));
      if (d.length !== expr.d.length) throw new LoweringError(`mma '${expr.shape}' writes ${expr.d.length} elements`);
      expr.d.forEach((ref, i) => {
        const value = d[i]!;
        const pointer = elementAddress(ctx, ref, value.type);
        if (pointer.memory === 'const') throw new LoweringError(`mma writes a const array`);
        const t = memoryType(value.type);
        b.emit(`store ${t} ${value.ref}, ${pointer.type} ${pointer.ref}, align ${memoryBytes(value.type)}`);
      });
      return { ref: '0', type: 'i32' };
    }
    case 'lanemask':
      return expect(lowerLaneMask(ctx, expr.which), expr.type, `lane mask '${expr.which}'`);
    case 'bits': {
      const arg = expect(lowerExpression(ctx, expr.arg), expr.argType, `bit function '${expr.fn}'`);
      return expect(lowerBits(ctx, expr.fn, arg), expr.type, `bit function '${expr.fn}'`);
    }
    case 'timer':
      return expect(lowerTimer(ctx, expr.which), expr.type, `timer '${expr.which}'`);
    case 'inline': {
      // The body's locals are the kernel's, and its returns became breaks out of its blocks.
      lowerStatements(ctx, expr.body);
      const { slot, t, align } = localSlot(ctx, expr.result, expr.type);
      return { ref: b.compute(`load ${t}, ${t}* ${slot}, align ${align}`), type: expr.type };
    }
    case 'invoke': {
      // A recursive function: a call of its own function of the module (lower-kernel.ts), arguments in order.
      const f = ctx.kernel.functions?.[expr.function];
      if (f === undefined || f.params.length !== expr.args.length)
        throw new LoweringError(
          `a call of function ${expr.function}, which the kernel does not have with ${expr.args.length} parameter(s)`,
        );
      const args = expr.args.map((a, i) => {
        const value = lowerExpression(ctx, a);
        const param = ctx.kernel.locals[f.params[i]!];
        if (param?.type !== value.type)
          throw new LoweringError(`argument ${i + 1} of '${f.name}' is ${value.type}, its parameter ${param?.type}`);
        return `${registerType(value.type)} ${value.ref}`;
      });
      if (f.returns === undefined) {
        b.emit(`call void @${functionSymbol(f)}(${args.join(', ')})`);
        return { ref: '0', type: 'i32' };
      }
      if (f.returns !== expr.type)
        throw new LoweringError(`a call of '${f.name}' of type ${expr.type}; it returns ${f.returns}`);
      const t = registerType(f.returns);
      return { ref: b.compute(`call ${t} @${functionSymbol(f)}(${args.join(', ')})`), type: expr.type };
    }
    case 'call': {
      // Arguments in order, as JavaScript evaluates them; an array argument evaluates nothing.
      const args = expr.args.map(
        (a): LoweredArgument =>
          a.kind === 'value'
            ? { kind: 'value', value: lowerExpression(ctx, a.value) }
            : { kind: 'pointer', array: arrayAccess(ctx, a.array, a.space) },
      );
      return expect(lowerExternalCall(ctx, expr, args), expr.type, `call of '${expr.symbol}'`);
    }
    default:
      return unknownNode(expr, (detail) => new LoweringError(detail));
  }
}

function expect(value: TypedValue, type: ScalarName, where: string): TypedValue {
  if (value.type !== type) throw new LoweringError(`${where} of type ${type} has an operand of type ${value.type}`);
  return value;
}

function localSlot(ctx: LoweringContext, id: number, type: ScalarName): { slot: string; t: string; align: number } {
  const slot = ctx.localSlots[id];
  const local = ctx.kernel.locals[id];
  if (slot === undefined || !local) throw new LoweringError(`local ${id} does not exist`);
  if (local.type !== type) throw new LoweringError(`local ${id} (${local.name}) is ${local.type}, used as ${type}`);
  return { slot, t: registerType(type), align: memoryBytes(type) };
}

function elementAddress(ctx: LoweringContext, ref: ElementRef, type: ScalarName): ElementPointer {
  const array = arrayAccess(ctx, ref.array, ref.space);
  if (array.dtype !== type) throw new LoweringError(`element of ${array.description} accessed as ${type}`);
  const indices = ref.indices.map((index) => {
    const value = lowerExpression(ctx, index);
    if (value.type !== 'i64' && value.type !== 'u64')
      throw new LoweringError(`array index of type ${value.type}; indices are i64`);
    return value.ref;
  });
  return elementPointer(ctx, array, indices);
}

function lowerLogical(ctx: LoweringContext, expr: Extract<Expr, { op: 'logical' }>): TypedValue {
  const b = ctx.builder;
  const t = registerType(expr.type);
  const left = expect(lowerExpression(ctx, expr.left), expr.type, 'logical');
  const test = truthy(ctx, left);
  const leftEnd = b.currentLabel;
  const rightStart = b.newLabel(`${expr.operator}.rhs`);
  const join = b.newLabel(`${expr.operator}.end`);
  // `and` needs the right side when the left is truthy, `or` when it is not.
  if (expr.operator === 'and') b.branchIf(test.ref, rightStart, join);
  else b.branchIf(test.ref, join, rightStart);
  b.startBlock(rightStart);
  const right = expect(lowerExpression(ctx, expr.right), expr.type, 'logical');
  const rightEnd = b.currentLabel;
  b.startBlock(join);
  return { ref: b.compute(`phi ${t} [ ${left.ref}, %${leftEnd} ], [ ${right.ref}, %${rightEnd} ]`), type: expr.type };
}

function lowerSelect(ctx: LoweringContext, expr: Extract<Expr, { op: 'select' }>): TypedValue {
  const b = ctx.builder;
  const t = registerType(expr.type);
  const test = truthy(ctx, lowerExpression(ctx, expr.test));
  const thenStart = b.newLabel('select.then');
  const elseStart = b.newLabel('select.else');
  const join = b.newLabel('select.end');
  b.branchIf(test.ref, thenStart, elseStart);
  b.startBlock(thenStart);
  const whenTrue = expect(lowerExpression(ctx, expr.then), expr.type, 'select');
  const thenEnd = b.currentLabel;
  b.branch(join);
  b.startBlock(elseStart);
  const whenFalse = expect(lowerExpression(ctx, expr.otherwise), expr.type, 'select');
  const elseEnd = b.currentLabel;
  b.startBlock(join);
  return {
    ref: b.compute(`phi ${t} [ ${whenTrue.ref}, %${thenEnd} ], [ ${whenFalse.ref}, %${elseEnd} ]`),
    type: expr.type,
  };
}

const SPECIAL_REGISTERS: ReadonlySet<SpecialRegister> = new Set<SpecialRegister>([
  'tid.x',
  'tid.y',
  'tid.z',
  'ntid.x',
  'ntid.y',
  'ntid.z',
  'ctaid.x',
  'ctaid.y',
  'ctaid.z',
  'nctaid.x',
  'nctaid.y',
  'nctaid.z',
  'laneid',
]);

function specialRegister(ctx: LoweringContext, register: SpecialRegister): string {
  // The warp size is 32 on every architecture CUDA supports; a constant lets the optimizer fold it.
  if (register === 'warpsize') return '32';
  if (!SPECIAL_REGISTERS.has(register)) throw new LoweringError(`unknown special register '${register}'`);
  const fn = ctx.declarations.declare(`llvm.nvvm.read.ptx.sreg.${register}`, 'i32', []);
  return ctx.builder.compute(`call i32 ${fn}()`);
}

/** A function's symbol as IR text names it (`$` is an identifier character of LLVM and PTX). */
export function functionSymbol(f: TypedFunction): string {
  if (!/^[A-Za-z_$][A-Za-z0-9_$]*$/.test(f.symbol))
    throw new LoweringError(`function symbol ${JSON.stringify(f.symbol)} is not an identifier`);
  return f.symbol;
}
