import type { ESTree } from 'meriyah';
import { FreeVariableError, KernelTypeError, UnsupportedSyntaxError } from '../errors.js';
import type { ParsedKernel } from '../parse/parse-kernel.js';
import { unsupportedMessage, unsupportedNodePhrase } from '../parse/supported-syntax.js';
import { CASTS, CUDA_DIMENSIONS, CUDA_SCALARS, GLOBAL_CONSTANTS, INTRINSIC_NAMES, MATH_CALLS, MATH_CONSTANTS, NUMBER_CONSTANTS } from './intrinsics.js';
import { isArrayType, isFloat, isInteger, isSigned, bitsOf, type ArrayType, type JitType, type ScalarName } from './jit-types.js';
import { arithmeticType, defaultLiteralType, isWidening, join, promoteValues, type ValueType } from './promotion.js';
import {
  MATH_FUNCTIONS,
  NO_COLLECTIVES,
  type ArrayUse,
  type BinaryOperator,
  type CompareOperator,
  type ElementRef,
  type Expr,
  type KernelParam,
  type Loc,
  type MathFunction,
  type SpecialRegister,
  type Stmt,
  type TypedKernel,
} from './typed-ir.js';

import type { KernelConstant } from '../device-function.js';

export type { KernelConstant };

export interface TypeKernelOptions {
  /** Names the kernel may use that are not parameters, baked into the code. */
  readonly constants?: Readonly<Record<string, KernelConstant>>;
  /** The kernel's symbol in NVVM IR and PTX. */
  readonly symbol: string;
}

/** A typed expression before its type is fixed by its use: a literal keeps its value and adapts. */
interface Typed {
  readonly expr: Expr;
  readonly type: ValueType;
  /** The value of a literal (int-literal / float-literal). */
  readonly value?: number;
}

interface Local {
  readonly name: string;
  type: ValueType | undefined;
  /** The concrete type that the literals assigned to it need (i32, i64 or f64). */
  literalNeeds: ScalarName | undefined;
  /** Parameters keep their signature's type: assignments must widen into it. */
  readonly fixed: boolean;
  readonly isConst: boolean;
}

type Binding = { kind: 'local'; id: number } | { kind: 'array'; index: number };

interface JumpTarget {
  readonly id: number;
  readonly label: string | undefined;
  readonly isLoop: boolean;
}

type Node = ESTree.Node;

const COMPARE: Readonly<Record<string, CompareOperator>> = { '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge', '==': 'eq', '===': 'eq', '!=': 'ne', '!==': 'ne' };
const ARITHMETIC: Readonly<Record<string, BinaryOperator>> = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div', '%': 'rem' };
const BITWISE: Readonly<Record<string, BinaryOperator>> = { '&': 'and', '|': 'or', '^': 'xor' };
const SHIFTS: Readonly<Record<string, BinaryOperator>> = { '<<': 'shl', '>>': 'shr', '>>>': 'ushr' };
const MAX_INFERENCE_ROUNDS = 32;

const isLiteralType = (t: ValueType): t is 'int-literal' | 'float-literal' => t === 'int-literal' || t === 'float-literal';

/** The JavaScript value of a folded literal operation, with JavaScript's own semantics. */
function foldNumbers(operator: string, a: number, b: number): number | undefined {
  switch (operator) {
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return a / b;
    case '%':
      return a % b;
    case '**':
      return a ** b;
    case '&':
      return a & b;
    case '|':
      return a | b;
    case '^':
      return a ^ b;
    case '<<':
      return a << b;
    case '>>':
      return a >> b;
    case '>>>':
      return a >>> b;
    default:
      return undefined;
  }
}

function wrapInteger(value: number, t: ScalarName): number {
  const bits = bitsOf(t);
  if (bits === 32) return isSigned(t) ? value | 0 : value >>> 0;
  const m = 2 ** bits;
  let v = ((value % m) + m) % m;
  if (isSigned(t) && v >= m / 2) v -= m;
  return v;
}

/** A constant of type `t` holding the JavaScript number `value`, converted by the typed IR's rules. */
function constantOf(value: number, t: ScalarName, loc: Loc | undefined): Expr {
  if (t === 'bool') return { op: 'const', type: t, value: value !== 0 && !Number.isNaN(value), loc };
  if (isFloat(t)) return { op: 'const', type: t, value: t === 'f32' ? Math.fround(value) : value, loc };
  let v = Number.isNaN(value) ? 0 : Math.trunc(value);
  if (t === 'i64' || t === 'u64') {
    const big = Number.isFinite(v) ? BigInt(v) : v > 0 ? 2n ** 63n : -(2n ** 63n);
    return { op: 'const', type: t, value: t === 'i64' ? BigInt.asIntN(64, big) : BigInt.asUintN(64, big), loc };
  }
  if (!Number.isFinite(v)) v = v > 0 ? 2 ** 53 : -(2 ** 53);
  return { op: 'const', type: t, value: wrapInteger(v, t), loc };
}

/**
 * The `types` stage: the parsed kernel, for one signature, becomes the typed
 * IR. Variable types are inferred by rounds over the body until no
 * variable's type changes (a variable holds the join of what is assigned to
 * it); then a last round emits the IR with every conversion explicit.
 */
export function typeKernel(parsed: ParsedKernel, signature: readonly JitType[], options: TypeKernelOptions): TypedKernel {
  return new KernelTyper(parsed, signature, options).run();
}

class KernelTyper {
  readonly #parsed: ParsedKernel;
  readonly #signature: readonly JitType[];
  readonly #constants: Readonly<Record<string, KernelConstant>>;
  readonly #symbol: string;
  #locals: Local[] = [];
  #scopes: Map<string, Binding>[] = [];
  #targets: JumpTarget[] = [];
  #nextTarget = 0;
  #emitting = false;
  #changed = false;
  #arrayUse: { shape: boolean; strides: boolean; written: boolean }[] = [];
  /** Locals of a round are created in the same order every round: their ids are stable. */
  #localCursor = 0;
  #paramLocals: number[] = [];

  constructor(parsed: ParsedKernel, signature: readonly JitType[], options: TypeKernelOptions) {
    this.#parsed = parsed;
    this.#signature = signature;
    this.#constants = options.constants ?? {};
    this.#symbol = options.symbol;
  }

  run(): TypedKernel {
    const { params } = this.#parsed;
    if (this.#signature.length !== params.length) {
      throw new KernelTypeError(`the kernel takes ${params.length} parameter(s) (${params.join(', ')}), the signature has ${this.#signature.length}`);
    }
    let rounds = 0;
    do {
      this.#changed = false;
      this.#round();
      if (++rounds > MAX_INFERENCE_ROUNDS) throw new KernelTypeError("the types of the kernel's variables do not settle");
    } while (this.#changed);
    this.#emitting = true;
    const body = this.#round();
    const kernelParams: KernelParam[] = params.map((name, i) => {
      const t = this.#signature[i]!;
      if (isArrayType(t)) return { kind: 'array', name, type: t, use: this.#finalUse(i, t) };
      return { kind: 'scalar', name, type: t, local: this.#paramLocals[i]! };
    });
    return {
      symbol: this.#symbol,
      params: kernelParams,
      locals: this.#locals.map((l) => ({ name: l.name, type: this.#finalType(l) })),
      memories: [],
      collectives: NO_COLLECTIVES,
      body,
    };
  }

  #finalUse(index: number, t: ArrayType): ArrayUse {
    const use = this.#arrayUse[index]!;
    return { shape: use.shape, strides: use.strides && t.layout === 'A', written: use.written };
  }

  /** One pass over the body with the variable types known so far. */
  #round(): Stmt[] {
    this.#localCursor = 0;
    this.#scopes = [new Map()];
    this.#targets = [];
    this.#nextTarget = 0;
    this.#arrayUse = this.#signature.map(() => ({ shape: false, strides: false, written: false }));
    this.#paramLocals = [];
    this.#parsed.params.forEach((name, i) => {
      const t = this.#signature[i]!;
      if (isArrayType(t)) {
        this.#scope().set(name, { kind: 'array', index: i });
      } else {
        const id = this.#declare(name, false, t);
        this.#paramLocals[i] = id;
      }
    });
    const body = this.#parsed.body;
    const statements = body.type === 'BlockStatement' ? this.#block(body.body) : [this.#expressionStatement(body)];
    return statements;
  }

  // ---- errors and positions ---------------------------------------------------

  #loc(node: Node): Loc {
    return { start: node.start ?? 0, end: node.end ?? node.start ?? 0 };
  }

  #at(node: Node) {
    return { locator: this.#parsed.locator, loc: this.#loc(node) };
  }

  #unsupported(node: Node, what: string): never {
    throw new UnsupportedSyntaxError(unsupportedMessage(what), this.#at(node));
  }

  #typeError(node: Node, message: string): never {
    throw new KernelTypeError(message, this.#at(node));
  }

  // ---- scopes and locals -------------------------------------------------------

  #scope(): Map<string, Binding> {
    return this.#scopes[this.#scopes.length - 1]!;
  }

  #declare(name: string, isConst: boolean, fixedType?: ScalarName): number {
    const id = this.#localCursor++;
    if (id >= this.#locals.length) {
      this.#locals.push({ name, type: fixedType, literalNeeds: undefined, fixed: fixedType !== undefined, isConst });
    }
    this.#scope().set(name, { kind: 'local', id });
    return id;
  }

  #lookup(name: string): Binding | undefined {
    for (let i = this.#scopes.length - 1; i >= 0; i--) {
      const b = this.#scopes[i]!.get(name);
      if (b) return b;
    }
    return undefined;
  }

  #withScope<T>(body: () => T): T {
    this.#scopes.push(new Map());
    try {
      return body();
    } finally {
      this.#scopes.pop();
    }
  }

  #finalType(local: Local): ScalarName {
    const t = local.type;
    if (t === undefined) return 'i32'; // declared, never assigned: never read either (reads are refused)
    if (t === 'int-literal') return local.literalNeeds ?? 'i32';
    if (t === 'float-literal') return 'f64';
    return t;
  }

  /** The current type of a local: final when emitting; while inferring, an unknown type reads as a literal that adapts. */
  #localType(id: number): ScalarName | 'int-literal' {
    const local = this.#locals[id]!;
    if (this.#emitting) return this.#finalType(local);
    const t = local.type;
    if (t === undefined) return 'int-literal';
    if (t === 'float-literal') return 'f64';
    return t;
  }

  /** Records that `value` is assigned to local `id` (widening its type while inferring) and returns the converted value. */
  #assignLocal(id: number, value: Typed, node: Node): Expr {
    const local = this.#locals[id]!;
    if (!this.#emitting && !local.fixed) {
      const next = join(local.type, value.type);
      if (next !== local.type) {
        local.type = next;
        this.#changed = true;
      }
      if (isLiteralType(value.type)) {
        const needs = defaultLiteralType(value.type, value.value);
        const joined = local.literalNeeds === undefined ? needs : (promoteValues(local.literalNeeds, needs) as ScalarName);
        if (joined !== local.literalNeeds) {
          local.literalNeeds = joined;
          this.#changed = true;
        }
      }
    }
    const target = this.#emitting || local.fixed ? this.#finalType(local) : this.#concrete(value);
    if (local.fixed && !isLiteralType(value.type) && !isWidening(value.type, target)) {
      this.#typeError(node, `cannot assign a ${value.type} to '${local.name}', a ${target} parameter, without a cast: write ${target}(...)`);
    }
    return { op: 'assign', type: target, id, value: this.#to(value, target, node), loc: this.#loc(node) };
  }

  // ---- conversions ---------------------------------------------------------------

  #concrete(t: Typed): ScalarName {
    return isLiteralType(t.type) ? defaultLiteralType(t.type, t.value) : t.type;
  }

  /** `t` as a value of type `target`: a literal is made in that type, anything else converted. */
  #to(t: Typed, target: ScalarName, node: Node): Expr {
    if (isLiteralType(t.type)) return constantOf(t.value ?? 0, target, this.#loc(node));
    if (t.type === target) return t.expr;
    return { op: 'convert', type: target, operand: t.expr, loc: this.#loc(node) };
  }

  #truthy(t: Typed, node: Node): Expr {
    return this.#to(t, 'bool', node);
  }

  #literal(value: number, node: Node, kind?: 'int-literal' | 'float-literal'): Typed {
    const k = kind ?? (Number.isInteger(value) && !Object.is(value, -0) ? 'int-literal' : 'float-literal');
    return { expr: constantOf(value, defaultLiteralType(k, value), this.#loc(node)), type: k, value };
  }

  #typed(expr: Expr): Typed {
    return { expr, type: expr.type };
  }

  // ---- statements ----------------------------------------------------------------

  #block(statements: readonly Node[]): Stmt[] {
    return this.#withScope(() => statements.flatMap((s) => this.#statement(s)));
  }

  #statement(node: Node): Stmt[] {
    switch (node.type) {
      case 'ExpressionStatement': {
        const e = (node as ESTree.ExpressionStatement).expression;
        if (e.type === 'Literal' && typeof e.value === 'string') return []; // a directive such as "use strict"
        return [this.#expressionStatement(e)];
      }
      case 'VariableDeclaration':
        return this.#declaration(node as ESTree.VariableDeclaration);
      case 'BlockStatement':
        return this.#block((node as ESTree.BlockStatement).body);
      case 'EmptyStatement':
        return [];
      case 'IfStatement': {
        const n = node as ESTree.IfStatement;
        const test = this.#truthy(this.#expression(n.test), n.test);
        const then = this.#withScope(() => this.#statement(n.consequent));
        const otherwise = n.alternate ? this.#withScope(() => this.#statement(n.alternate!)) : [];
        return [{ op: 'if', test, then, otherwise, loc: this.#loc(node) }];
      }
      case 'ForStatement':
        return this.#forLoop(node as ESTree.ForStatement, undefined);
      case 'WhileStatement':
        return this.#whileLoop(node as ESTree.WhileStatement, undefined);
      case 'DoWhileStatement':
        return this.#doWhileLoop(node as ESTree.DoWhileStatement, undefined);
      case 'LabeledStatement':
        return this.#labelled(node as ESTree.LabeledStatement);
      case 'BreakStatement':
      case 'ContinueStatement':
        return [this.#jump(node as ESTree.BreakStatement | ESTree.ContinueStatement)];
      case 'ReturnStatement': {
        const n = node as ESTree.ReturnStatement;
        if (n.argument) this.#typeError(n.argument, 'a kernel returns nothing: write `return;` (results go into arrays)');
        return [{ op: 'return', loc: this.#loc(node) }];
      }
      default:
        return this.#unsupported(node, unsupportedNodePhrase(node.type));
    }
  }

  #expressionStatement(e: ESTree.Expression): Stmt {
    return { op: 'expr', expr: this.#expression(e).expr, loc: this.#loc(e) };
  }

  #declaration(node: ESTree.VariableDeclaration): Stmt[] {
    const out: Stmt[] = [];
    const isConst = node.kind === 'const';
    if (node.kind !== 'let' && node.kind !== 'const' && node.kind !== 'var') this.#unsupported(node, `'${node.kind}' declarations`);
    for (const d of node.declarations) {
      if (d.id.type === 'ArrayPattern') {
        out.push(...this.#destructure(d.id, d.init ?? undefined, isConst));
        continue;
      }
      if (d.id.type !== 'Identifier') this.#unsupported(d.id, 'destructuring other than `const [i, j] = cuda.grid(2)`');
      const name = d.id.name;
      if (d.init) this.#refuseArrayValue(d.init);
      const value = d.init ? this.#expression(d.init) : undefined;
      const id = this.#declare(name, isConst);
      if (value && d.init) out.push({ op: 'expr', expr: this.#assignLocal(id, value, d.init), loc: this.#loc(d) });
      else if (isConst) this.#typeError(d, `const '${name}' needs a value`);
    }
    return out;
  }

  /** An array parameter cannot be copied into a variable: kernels see arrays only through their parameters. */
  #refuseArrayValue(init: Node): void {
    if (init.type === 'Identifier') {
      const b = this.#lookup(init.name);
      if (b?.kind === 'array') this.#typeError(init, `'${init.name}' is an array; arrays cannot be held in variables, use the parameter itself`);
    }
  }

  #destructure(pattern: ESTree.ArrayPattern, init: ESTree.Expression | undefined, isConst: boolean): Stmt[] {
    const call = init ? this.#unwrapCall(init) : undefined;
    const what = call ? this.#cudaMember(call.callee) : undefined;
    if (!init || !call || (what !== 'grid' && what !== 'gridsize')) {
      return this.#unsupported(pattern, 'destructuring other than `const [i, j] = cuda.grid(2)` or `cuda.gridsize(n)`');
    }
    const n = this.#dimensionArgument(call, what);
    if (pattern.elements.length > n) this.#typeError(pattern, `cuda.${what}(${n}) gives ${n} values, ${pattern.elements.length} names were given`);
    const out: Stmt[] = [];
    pattern.elements.forEach((element, axis) => {
      if (element === null) return;
      if (element.type !== 'Identifier') this.#unsupported(element, 'nested destructuring');
      const value = this.#typed(what === 'grid' ? this.#gridComponent(axis, call) : this.#gridSizeComponent(axis, call));
      const id = this.#declare(element.name, isConst);
      out.push({ op: 'expr', expr: this.#assignLocal(id, value, element), loc: this.#loc(element) });
    });
    return out;
  }

  #labelled(node: ESTree.LabeledStatement): Stmt[] {
    const label = node.label.name;
    const body = node.body;
    if (body.type === 'ForStatement') return this.#forLoop(body, label);
    if (body.type === 'WhileStatement') return this.#whileLoop(body, label);
    if (body.type === 'DoWhileStatement') return this.#doWhileLoop(body, label);
    const id = this.#nextTarget++;
    this.#targets.push({ id, label, isLoop: false });
    try {
      const inner = this.#withScope(() => this.#statement(body));
      return [{ op: 'block', id, body: inner, loc: this.#loc(node) }];
    } finally {
      this.#targets.pop();
    }
  }

  #loopBody<T>(label: string | undefined, body: (id: number) => T): T {
    const id = this.#nextTarget++;
    this.#targets.push({ id, label, isLoop: true });
    try {
      return body(id);
    } finally {
      this.#targets.pop();
    }
  }

  #forLoop(node: ESTree.ForStatement, label: string | undefined): Stmt[] {
    return this.#withScope(() => {
      const init: Stmt[] = [];
      if (node.init) {
        if (node.init.type === 'VariableDeclaration') init.push(...this.#declaration(node.init));
        else init.push(this.#expressionStatement(node.init));
      }
      return this.#loopBody(label, (id) => {
        const test = node.test ? this.#truthy(this.#expression(node.test), node.test) : undefined;
        const body = this.#withScope(() => this.#statement(node.body));
        const update: Stmt[] = node.update ? [this.#expressionStatement(node.update)] : [];
        return [...init, { op: 'loop', id, test, body, update, postTest: undefined, loc: this.#loc(node) } as Stmt];
      });
    });
  }

  #whileLoop(node: ESTree.WhileStatement, label: string | undefined): Stmt[] {
    return this.#loopBody(label, (id) => {
      const test = this.#truthy(this.#expression(node.test), node.test);
      const body = this.#withScope(() => this.#statement(node.body));
      return [{ op: 'loop', id, test, body, update: [], postTest: undefined, loc: this.#loc(node) }];
    });
  }

  #doWhileLoop(node: ESTree.DoWhileStatement, label: string | undefined): Stmt[] {
    return this.#loopBody(label, (id) => {
      const body = this.#withScope(() => this.#statement(node.body));
      const postTest = this.#truthy(this.#expression(node.test), node.test);
      return [{ op: 'loop', id, test: undefined, body, update: [], postTest, loc: this.#loc(node) }];
    });
  }

  #jump(node: ESTree.BreakStatement | ESTree.ContinueStatement): Stmt {
    const isBreak = node.type === 'BreakStatement';
    const word = isBreak ? 'break' : 'continue';
    const label = node.label?.name;
    for (let i = this.#targets.length - 1; i >= 0; i--) {
      const t = this.#targets[i]!;
      if (label !== undefined ? t.label === label : t.isLoop) {
        if (!isBreak && !t.isLoop) this.#typeError(node, `'continue ${label}' names a block, not a loop`);
        return isBreak ? { op: 'break', target: t.id, loc: this.#loc(node) } : { op: 'continue', target: t.id, loc: this.#loc(node) };
      }
    }
    return this.#typeError(node, label !== undefined ? `'${word} ${label}': no enclosing statement has that label` : `'${word}' outside a loop`);
  }

  // ---- expressions ---------------------------------------------------------------

  #expression(node: Node): Typed {
    switch (node.type) {
      case 'Literal':
        return this.#literalExpression(node as ESTree.Literal);
      case 'Identifier':
        return this.#identifier(node as ESTree.Identifier);
      case 'ParenthesizedExpression':
        return this.#expression((node as ESTree.ParenthesizedExpression).expression);
      case 'BinaryExpression':
        return this.#binary(node as ESTree.BinaryExpression);
      case 'LogicalExpression':
        return this.#logical(node as ESTree.LogicalExpression);
      case 'UnaryExpression':
        return this.#unary(node as ESTree.UnaryExpression);
      case 'UpdateExpression':
        return this.#update(node as ESTree.UpdateExpression);
      case 'AssignmentExpression':
        return this.#assignment(node as ESTree.AssignmentExpression);
      case 'ConditionalExpression': {
        const n = node as ESTree.ConditionalExpression;
        const test = this.#truthy(this.#expression(n.test), n.test);
        const a = this.#expression(n.consequent);
        const b = this.#expression(n.alternate);
        const t = this.#common(a, b, n);
        if (isLiteralType(t) && a.value !== undefined && b.value !== undefined && test.op === 'const') return test.value ? a : b;
        const type = isLiteralType(t) ? this.#concreteOf(t, a, b) : t;
        return this.#typed({ op: 'select', type, test, then: this.#to(a, type, n.consequent), otherwise: this.#to(b, type, n.alternate), loc: this.#loc(n) });
      }
      case 'MemberExpression':
        return this.#member(node as ESTree.MemberExpression);
      case 'CallExpression':
        return this.#call(node as ESTree.CallExpression);
      case 'SequenceExpression': {
        const n = node as ESTree.SequenceExpression;
        const parts = n.expressions.map((e) => this.#expression(e));
        const last = parts[parts.length - 1]!;
        const value = this.#to(last, this.#concrete(last), n);
        return this.#typed({ op: 'sequence', type: value.type, effects: parts.slice(0, -1).map((p) => p.expr), value, loc: this.#loc(n) });
      }
      default:
        return this.#unsupported(node, unsupportedNodePhrase(node.type));
    }
  }

  /** The concrete type of two literal branches. */
  #concreteOf(t: 'int-literal' | 'float-literal', a: Typed, b: Typed): ScalarName {
    return promoteValues(defaultLiteralType(t, a.value), defaultLiteralType(t, b.value)) as ScalarName;
  }

  #common(a: Typed, b: Typed, node: Node): ValueType {
    if (a.type === 'bool' && b.type === 'bool') return 'bool';
    try {
      return promoteValues(a.type, b.type);
    } catch {
      return this.#typeError(node, `no common type for ${a.type} and ${b.type}`);
    }
  }

  #literalExpression(node: ESTree.Literal): Typed {
    const v = node.value;
    if (typeof v === 'number') {
      // `1.0` is written as a float even though its value is whole; `1e3` is not (compilers print 1000 so)
      const raw = (node as { raw?: string }).raw ?? this.#parsed.source.slice(node.start ?? 0, node.end ?? 0);
      const isFloatText = raw.includes('.') && !/^0[xXbBoO]/.test(raw);
      return this.#literal(v, node, isFloatText ? 'float-literal' : undefined);
    }
    if (typeof v === 'boolean') return this.#typed({ op: 'const', type: 'bool', value: v, loc: this.#loc(node) });
    if (typeof v === 'bigint') return this.#typed({ op: 'const', type: 'i64', value: BigInt.asIntN(64, v), loc: this.#loc(node) });
    if (v === null) return this.#unsupported(node, "'null'");
    return this.#unsupported(node, typeof v === 'string' ? 'strings' : 'this literal');
  }

  #identifier(node: ESTree.Identifier): Typed {
    const name = node.name;
    const b = this.#lookup(name);
    if (b?.kind === 'local') {
      const t = this.#localType(b.id);
      if (this.#emitting && this.#locals[b.id]!.type === undefined) this.#typeError(node, `'${name}' is read but never assigned a value`);
      if (t === 'int-literal') return { expr: { op: 'local', type: 'i32', id: b.id, loc: this.#loc(node) }, type: 'int-literal', value: 0 };
      return this.#typed({ op: 'local', type: t, id: b.id, loc: this.#loc(node) });
    }
    if (b?.kind === 'array') return this.#typeError(node, `'${name}' is an array: index it (${name}[i]) or read ${name}.length`);
    return this.#free(name, node);
  }

  /** A name that is no parameter or local: a captured constant or a global value. */
  #free(name: string, node: Node): Typed {
    if (Object.hasOwn(this.#constants, name)) {
      const c = this.#constants[name];
      if (typeof c === 'number') return this.#literal(c, node);
      if (typeof c === 'boolean') return this.#typed({ op: 'const', type: 'bool', value: c, loc: this.#loc(node) });
      if (typeof c === 'bigint') return this.#typed({ op: 'const', type: 'i64', value: BigInt.asIntN(64, c), loc: this.#loc(node) });
      return this.#typeError(node, `the constant '${name}' is a ${typeof c}; constants are numbers, bigints or booleans`);
    }
    if (Object.hasOwn(GLOBAL_CONSTANTS, name)) return this.#literal(GLOBAL_CONSTANTS[name]!, node, 'float-literal');
    if (name === 'undefined') return this.#unsupported(node, "'undefined'");
    throw new FreeVariableError(
      `'${name}' is not a parameter, a local variable or a constant of the kernel; kernels cannot read variables from outside: pass it as an argument, or as a constant with jit(fn, { constants: { ${name}: ... } })`,
      this.#at(node),
    );
  }

  /** The name a callee or object stands for, looking through namespace objects and `(0, ns.f)` that compilers write. */
  #globalName(node: Node): string | undefined {
    let n: Node = node;
    while (n.type === 'ParenthesizedExpression') n = (n as ESTree.ParenthesizedExpression).expression;
    if (n.type === 'SequenceExpression') {
      const s = n as ESTree.SequenceExpression;
      const first = s.expressions[0];
      if (s.expressions.length === 2 && first?.type === 'Literal') return this.#globalName(s.expressions[1]!);
      return undefined;
    }
    if (n.type === 'Identifier') {
      const name = (n as ESTree.Identifier).name;
      return this.#lookup(name) || Object.hasOwn(this.#constants, name) ? undefined : name;
    }
    if (n.type === 'MemberExpression') {
      const m = n as ESTree.MemberExpression;
      if (!m.computed && m.property.type === 'Identifier' && INTRINSIC_NAMES.has(m.property.name) && m.object.type === 'Identifier' && !this.#lookup(m.object.name)) {
        return m.property.name;
      }
    }
    return undefined;
  }

  /** `cuda.<name>` (the member name), or undefined. */
  #cudaMember(node: Node): string | undefined {
    if (node.type !== 'MemberExpression') return undefined;
    const m = node as ESTree.MemberExpression;
    if (m.computed || m.property.type !== 'Identifier') return undefined;
    return this.#globalName(m.object) === 'cuda' ? m.property.name : undefined;
  }

  #unwrapCall(node: Node): ESTree.CallExpression | undefined {
    let n: Node = node;
    while (n.type === 'ParenthesizedExpression') n = (n as ESTree.ParenthesizedExpression).expression;
    return n.type === 'CallExpression' ? (n as ESTree.CallExpression) : undefined;
  }

  #binary(node: ESTree.BinaryExpression): Typed {
    const op = node.operator;
    if (op === 'in' || op === 'instanceof') return this.#unsupported(node, `'${op}'`);
    // (a / b) | 0 and friends on 32-bit integers fold into one integer division below
    const left = this.#expression(node.left);
    const right = this.#expression(node.right);
    return this.#binaryOf(op, left, right, node);
  }

  #binaryOf(op: string, left: Typed, right: Typed, node: Node): Typed {
    const loc = this.#loc(node);
    if (left.value !== undefined && right.value !== undefined && isLiteralType(left.type) && isLiteralType(right.type)) {
      const folded = COMPARE[op] ? undefined : foldNumbers(op, left.value, right.value);
      if (folded !== undefined) {
        const intResult = op !== '/' && op !== '**' && left.type === 'int-literal' && right.type === 'int-literal';
        return this.#literal(folded, node, intResult && Number.isInteger(folded) ? 'int-literal' : 'float-literal');
      }
    }
    const compare = COMPARE[op];
    if (compare) {
      let t = this.#common(left, right, node);
      if (isLiteralType(t)) t = promoteValues(defaultLiteralType(t, left.value), defaultLiteralType(t, right.value)) as ScalarName;
      const operandType = t === 'bool' ? 'bool' : t;
      return this.#typed({ op: 'compare', type: 'bool', operator: compare, operandType, left: this.#to(left, operandType, node), right: this.#to(right, operandType, node), loc });
    }
    const arith = ARITHMETIC[op];
    if (arith) {
      let t = this.#arithmetic(left, right, node);
      if (arith === 'div' && !isFloat(t) && bitsOf(t) < 64) t = 'f64'; // JavaScript's `/` on numbers is float division; BigInt's (64-bit) truncates
      return this.#typed({ op: 'binary', type: t, operator: arith, left: this.#to(left, t, node), right: this.#to(right, t, node), loc });
    }
    if (op === '**') {
      const t = this.#floatType([left, right]);
      return this.#typed({ op: 'math', type: t, fn: 'pow', argType: t, args: [this.#to(left, t, node), this.#to(right, t, node)], loc });
    }
    const bitwise = BITWISE[op];
    if (bitwise) {
      const t = this.#integerOperands(left, right, node);
      return this.#typed({ op: 'binary', type: t, operator: bitwise, left: this.#to(this.#asInteger(left, node), t, node), right: this.#to(this.#asInteger(right, node), t, node), loc });
    }
    const shift = SHIFTS[op];
    if (shift) {
      const l = this.#asInteger(left, node);
      let t = isLiteralType(l.type) ? defaultLiteralType(l.type, l.value) : arithmeticType(l.type);
      // `>>>` on 32-bit values gives an unsigned 32-bit result, as JavaScript's does
      if (shift === 'ushr' && bitsOf(t) === 32) t = 'u32';
      const r = this.#asInteger(right, node);
      return this.#typed({ op: 'binary', type: t, operator: shift, left: this.#to(l, t, node), right: this.#to(r, t, node), loc });
    }
    return this.#unsupported(node, `the operator '${op}'`);
  }

  /** The type of an arithmetic operation; literals alone give their default. */
  #arithmetic(left: Typed, right: Typed, node: Node): ScalarName {
    const t = this.#common(left, right, node);
    if (t === 'bool') return 'i32';
    if (isLiteralType(t)) return promoteValues(defaultLiteralType(t, left.value), defaultLiteralType(t, right.value)) as ScalarName;
    return t;
  }

  /** Floats meet bitwise operators as JavaScript's ToInt32 does: truncated to i32. */
  #asInteger(t: Typed, node: Node): Typed {
    if (t.type === 'float-literal') return this.#literal((t.value ?? 0) | 0, node, 'int-literal');
    if (!isLiteralType(t.type) && isFloat(t.type)) return this.#typed({ op: 'convert', type: 'i32', operand: t.expr, loc: this.#loc(node) });
    return t;
  }

  #integerOperands(left: Typed, right: Typed, node: Node): ScalarName {
    const t = this.#arithmetic(this.#asInteger(left, node), this.#asInteger(right, node), node);
    return isFloat(t) ? 'i32' : t;
  }

  /** The float type of a math call: f32 when every argument is f32 (or a small integer, or a literal), else f64. */
  #floatType(args: readonly Typed[]): ScalarName {
    let t: ValueType = 'int-literal';
    for (const a of args) t = promoteValues(t, a.type);
    if (isLiteralType(t)) return 'f64';
    return isFloat(t) ? t : bitsOf(t) <= 16 && t !== 'bool' ? 'f32' : 'f64';
  }

  #logical(node: ESTree.LogicalExpression): Typed {
    if (node.operator === '??') return this.#unsupported(node, "'??' (values in kernels are never null)");
    const left = this.#expression(node.left);
    const right = this.#expression(node.right);
    let t = this.#common(left, right, node);
    if (isLiteralType(t)) t = defaultLiteralType(t, undefined);
    return this.#typed({ op: 'logical', type: t, operator: node.operator === '&&' ? 'and' : 'or', left: this.#to(left, t, node), right: this.#to(right, t, node), loc: this.#loc(node) });
  }

  #unary(node: ESTree.UnaryExpression): Typed {
    const loc = this.#loc(node);
    const operand = this.#expression(node.argument);
    switch (node.operator) {
      case '!':
        return this.#typed({ op: 'unary', type: 'bool', operator: 'not', operand: this.#truthy(operand, node.argument), loc });
      case '-': {
        if (isLiteralType(operand.type)) return this.#literal(-(operand.value ?? 0), node, operand.type);
        const t = arithmeticType(operand.type);
        return this.#typed({ op: 'unary', type: t, operator: 'neg', operand: this.#to(operand, t, node), loc });
      }
      case '+':
        if (isLiteralType(operand.type)) return operand;
        return operand.type === 'bool' ? this.#typed(this.#to(operand, 'f64', node)) : operand;
      case '~': {
        const i = this.#asInteger(operand, node);
        if (isLiteralType(i.type)) return this.#literal(~(i.value ?? 0), node, 'int-literal');
        const t = arithmeticType(i.type);
        return this.#typed({ op: 'unary', type: t, operator: 'bitnot', operand: this.#to(i, t, node), loc });
      }
      default:
        return this.#unsupported(node, `the operator '${node.operator}'`);
    }
  }

  /** What an assignment target is: a local or an array element. */
  #target(node: Node): { kind: 'local'; id: number } | { kind: 'element'; array: number; indices: Node[]; at: Node } {
    if (node.type === 'Identifier') {
      const name = (node as ESTree.Identifier).name;
      const b = this.#lookup(name);
      if (!b) {
        if (Object.hasOwn(this.#constants, name)) this.#typeError(node, `'${name}' is a constant of the kernel and cannot be assigned`);
        return this.#free(name, node) as never;
      }
      if (b.kind === 'array') this.#typeError(node, `'${name}' is an array parameter and cannot be reassigned; assign its elements (${name}[i] = ...)`);
      if (this.#locals[b.id]!.isConst) this.#typeError(node, `'${name}' is a const and cannot be assigned`);
      return { kind: 'local', id: b.id };
    }
    if (node.type === 'MemberExpression') {
      const m = node as ESTree.MemberExpression;
      if (m.computed) {
        const array = this.#arrayParam(m.object);
        if (array !== undefined) return { kind: 'element', array, indices: [m.property], at: node };
      }
      return this.#typeError(node, 'only variables and array elements (x[i]) can be assigned');
    }
    return this.#unsupported(node, 'this assignment target');
  }

  #assignment(node: ESTree.AssignmentExpression): Typed {
    const target = this.#target(node.left);
    const op = node.operator;
    const compound = op === '=' ? undefined : op.slice(0, -1);
    if (compound === '&&' || compound === '||' || compound === '??') return this.#unsupported(node, `'${op}'`);
    if (target.kind === 'local') {
      const value = compound === undefined ? this.#expression(node.right) : this.#binaryOf(compound, this.#readLocal(target.id, node.left), this.#expression(node.right), node);
      return this.#typed(this.#assignLocal(target.id, value, node));
    }
    return this.#storeElement(target.array, target.indices, target.at, node, (read) =>
      compound === undefined ? this.#expression(node.right) : this.#binaryOf(compound, read(), this.#expression(node.right), node),
    );
  }

  #readLocal(id: number, node: Node): Typed {
    const t = this.#localType(id);
    if (t === 'int-literal') return { expr: { op: 'local', type: 'i32', id, loc: this.#loc(node) }, type: 'int-literal', value: 0 };
    return this.#typed({ op: 'local', type: t, id, loc: this.#loc(node) });
  }

  #update(node: ESTree.UpdateExpression): Typed {
    const target = this.#target(node.argument);
    const op = node.operator === '++' ? '+' : '-';
    const one = (): Typed => this.#literal(1, node, 'int-literal');
    if (target.kind === 'local') {
      const old = this.#readLocal(target.id, node.argument);
      const assign = this.#assignLocal(target.id, this.#binaryOf(op, old, one(), node), node);
      if (node.prefix) return this.#typed(assign);
      // postfix: the old value, then the assignment; the old value is kept in a temporary
      const tmp = this.#declare(`${(node.argument as ESTree.Identifier).name}$old`, false);
      const keep = this.#assignLocal(tmp, this.#typed(this.#to(old, assign.type, node)), node);
      return this.#typed({ op: 'sequence', type: assign.type, effects: [keep, assign], value: { op: 'local', type: assign.type, id: tmp, loc: this.#loc(node) }, loc: this.#loc(node) });
    }
    if (node.prefix) return this.#storeElement(target.array, target.indices, target.at, node, (read) => this.#binaryOf(op, read(), one(), node));
    // postfix on an element: the old value is kept in a temporary as it is read, and is the expression's value
    const dtype = this.#arrayType(target.array).dtype;
    const tmp = this.#declare('$old', false);
    const store = this.#storeElement(target.array, target.indices, target.at, node, (read) => {
      const keep = this.#assignLocal(tmp, read(), node);
      return this.#binaryOf(op, this.#typed(keep), one(), node);
    });
    return this.#typed({ op: 'sequence', type: dtype, effects: [store.expr], value: { op: 'local', type: dtype, id: tmp, loc: this.#loc(node) }, loc: this.#loc(node) });
  }

  // ---- arrays ----------------------------------------------------------------------

  #arrayParam(node: Node): number | undefined {
    if (node.type !== 'Identifier') return undefined;
    const b = this.#lookup((node as ESTree.Identifier).name);
    return b?.kind === 'array' ? b.index : undefined;
  }

  #arrayType(index: number): ArrayType {
    return this.#signature[index] as ArrayType;
  }

  #paramName(index: number): string {
    return this.#parsed.params[index]!;
  }

  /** The element at `indices` (each converted to i64); records what the kernel needs of the array. */
  #elementRef(array: number, indices: readonly Node[], at: Node): ElementRef {
    const t = this.#arrayType(array);
    const name = this.#paramName(array);
    if (indices.length !== t.ndim) {
      const how = t.ndim === 1 ? `${name}[i]` : `${name}.get(${['i', 'j', 'k'].slice(0, t.ndim).join(', ')})`;
      this.#typeError(at, `'${name}' is ${t.name} (${t.ndim}-D): it takes ${t.ndim} index(es), ${indices.length} given; write ${how}`);
    }
    const use = this.#arrayUse[array]!;
    if (t.layout === 'A') use.strides = true;
    else if (t.ndim > 1) use.shape = true;
    const converted = indices.map((n) => {
      const ix = this.#expression(n);
      if (ix.type === 'float-literal' || (!isLiteralType(ix.type) && !isInteger(ix.type))) {
        this.#typeError(
          n,
          `an index must be an integer, got ${ix.type === 'float-literal' ? 'a float literal' : ix.type}${ix.type === 'f64' ? ' (a plain JS number is f64; pass i32(n) or write i32(...) here)' : ''}`,
        );
      }
      return this.#to(ix, 'i64', n);
    });
    return { array, indices: converted };
  }

  #storeElement(array: number, indices: readonly Node[], at: Node, node: Node, value: (read: () => Typed) => Typed): Typed {
    const t = this.#arrayType(array);
    const name = this.#paramName(array);
    if (t.readonly) this.#typeError(at, `'${name}' is read-only (${t.name}); it cannot be written`);
    this.#arrayUse[array]!.written = true;
    const ref = this.#elementRef(array, indices, at);
    const loc = this.#loc(node);
    // A compound store reads the element at the same indices: they are computed once, into temporaries.
    let effects: Expr[] = [];
    let stableRef = ref;
    const read = (): Typed => {
      if (effects.length === 0 && ref.indices.some((ix) => ix.op !== 'const' && ix.op !== 'local')) {
        const temps = ref.indices.map((ix) => {
          const id = this.#declare('$index', false);
          effects.push(this.#assignLocal(id, this.#typed(ix), at));
          return { op: 'local', type: 'i64', id, loc } as Expr;
        });
        stableRef = { array, indices: temps };
      }
      return this.#typed({ op: 'load', type: t.dtype, ref: stableRef, loc });
    };
    const v = value(read);
    const store: Expr = { op: 'store', type: t.dtype, ref: stableRef, value: this.#to(v, t.dtype, node), loc };
    if (effects.length === 0) return this.#typed(store);
    const result = { op: 'sequence', type: t.dtype, effects: [...effects], value: store, loc } as Expr;
    effects = [];
    return this.#typed(result);
  }

  #member(node: ESTree.MemberExpression): Typed {
    const loc = this.#loc(node);
    const array = this.#arrayParam(node.object);
    if (array !== undefined) {
      const t = this.#arrayType(array);
      if (node.computed) return this.#typed({ op: 'load', type: t.dtype, ref: this.#elementRef(array, [node.property], node), loc });
      const prop = node.property.type === 'Identifier' ? node.property.name : '';
      if (prop === 'length') {
        if (t.ndim !== 1) this.#typeError(node, `'${this.#paramName(array)}' is ${t.ndim}-D: use .shape[k] for an extent or .size for the element count`);
        return this.#extent(array, 0, node);
      }
      if (prop === 'size') {
        let total = this.#extent(array, 0, node);
        for (let d = 1; d < t.ndim; d++) total = this.#binaryOf('*', total, this.#extent(array, d, node), node);
        return total;
      }
      if (prop === 'ndim') return this.#literal(t.ndim, node, 'int-literal');
      return this.#typeError(node, `arrays in kernels have length, size, ndim, shape[k], get(...) and set(...); '${prop}' is not one of them`);
    }
    // x.shape[k]
    if (node.computed && node.object.type === 'MemberExpression') {
      const inner = node.object as ESTree.MemberExpression;
      const base = this.#arrayParam(inner.object);
      if (base !== undefined && !inner.computed && inner.property.type === 'Identifier' && inner.property.name === 'shape') {
        const k = this.#expression(node.property);
        const t = this.#arrayType(base);
        if (k.type !== 'int-literal' || k.value === undefined || k.value < 0 || k.value >= t.ndim) {
          this.#typeError(node.property, `shape[k] needs a constant k from 0 to ${t.ndim - 1}`);
        }
        return this.#extent(base, k.value, node);
      }
    }
    const cuda = this.#cudaMember(node);
    if (cuda !== undefined) {
      const special = CUDA_SCALARS[cuda];
      if (special) return this.#special(special, node);
      return this.#typeError(node, `cuda.${cuda} is not a value kernels can read here (${Object.keys(CUDA_DIMENSIONS).join(', ')} take .x/.y/.z)`);
    }
    // cuda.threadIdx.x
    if (!node.computed && node.property.type === 'Identifier') {
      const axis = node.property.name;
      const dimension = this.#cudaMember(node.object);
      if (dimension !== undefined && CUDA_DIMENSIONS[dimension] && (axis === 'x' || axis === 'y' || axis === 'z')) {
        return this.#special(`${CUDA_DIMENSIONS[dimension]}.${axis}` as SpecialRegister, node);
      }
      const global = this.#globalName(node.object);
      if (global === 'Math' && Object.hasOwn(MATH_CONSTANTS, axis)) return this.#literal(MATH_CONSTANTS[axis]!, node, 'float-literal');
      if (global === 'Number' && Object.hasOwn(NUMBER_CONSTANTS, axis)) {
        const v = NUMBER_CONSTANTS[axis]!;
        return this.#literal(v, node, Number.isSafeInteger(v) && Math.abs(v) > 1 ? 'int-literal' : 'float-literal');
      }
    }
    return this.#unsupported(node, `'${this.#parsed.source.slice(node.start ?? 0, node.end ?? 0)}'`);
  }

  /** An array's extent along `dim`, as i32 (the launch refuses extents of 2³¹ and more). */
  #extent(array: number, dim: number, node: Node): Typed {
    this.#arrayUse[array]!.shape = true;
    const loc = this.#loc(node);
    return this.#typed({ op: 'convert', type: 'i32', operand: { op: 'dim', type: 'i64', array, what: 'shape', dim, loc }, loc });
  }

  #special(register: SpecialRegister, node: Node): Typed {
    return this.#typed({ op: 'special', type: 'i32', register, loc: this.#loc(node) });
  }

  // ---- calls -----------------------------------------------------------------------

  #call(node: ESTree.CallExpression): Typed {
    const callee = node.callee;
    const loc = this.#loc(node);
    // x.get(i, j) / x.set(i, j, v)
    if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
      const array = this.#arrayParam(callee.object);
      if (array !== undefined) {
        const method = callee.property.name;
        const t = this.#arrayType(array);
        if (method === 'get') return this.#typed({ op: 'load', type: t.dtype, ref: this.#elementRef(array, node.arguments, node), loc });
        if (method === 'set') {
          if (node.arguments.length !== t.ndim + 1) this.#typeError(node, `${this.#paramName(array)}.set takes ${t.ndim} index(es) and a value`);
          const value = node.arguments[t.ndim]!;
          return this.#storeElement(array, node.arguments.slice(0, t.ndim), node, node, () => this.#expression(value));
        }
        return this.#typeError(node, `arrays in kernels have get(...) and set(...); '${method}' is not supported`);
      }
      const cuda = this.#cudaMember(callee);
      if (cuda !== undefined) return this.#cudaCall(cuda, node);
      const global = this.#globalName(callee.object);
      if (global === 'Math') return this.#mathCall(callee.property.name, node);
      if (global === 'Number') return this.#numberCall(callee.property.name, node);
    }
    const name = this.#globalName(callee);
    if (name !== undefined && Object.hasOwn(CASTS, name)) {
      if (node.arguments.length !== 1) this.#typeError(node, `${name}(x) takes one value`);
      const target = CASTS[name]!;
      const arg = this.#expression(node.arguments[0]!);
      return this.#typed(this.#cast(arg, target, node));
    }
    if (name !== undefined) {
      if (this.#lookup(name) === undefined && !Object.hasOwn(this.#constants, name)) {
        throw new FreeVariableError(`'${name}' is not a function kernels can call (device functions come with jit.device)`, this.#at(callee));
      }
    }
    return this.#unsupported(node, 'this call');
  }

  /** An explicit cast: a literal is made in the type, anything else converted. */
  #cast(arg: Typed, target: ScalarName, node: Node): Expr {
    if (isLiteralType(arg.type)) return constantOf(arg.value ?? 0, target, this.#loc(node));
    if (arg.type === target) return arg.expr;
    return { op: 'convert', type: target, operand: arg.expr, loc: this.#loc(node) };
  }

  #dimensionArgument(node: ESTree.CallExpression, what: string): 1 | 2 | 3 {
    const arg = node.arguments[0];
    const v = arg ? this.#expression(arg) : undefined;
    if (node.arguments.length !== 1 || v?.type !== 'int-literal' || (v.value !== 1 && v.value !== 2 && v.value !== 3)) {
      this.#typeError(node, `cuda.${what}(n) takes a constant n of 1, 2 or 3`);
    }
    return v.value as 1 | 2 | 3;
  }

  #gridComponent(axis: number, node: Node): Expr {
    const a = 'xyz'[axis]!;
    const loc = this.#loc(node);
    const r = (register: string): Expr => ({ op: 'special', type: 'i32', register: `${register}.${a}` as SpecialRegister, loc });
    return { op: 'binary', type: 'i32', operator: 'add', left: { op: 'binary', type: 'i32', operator: 'mul', left: r('ctaid'), right: r('ntid'), loc }, right: r('tid'), loc };
  }

  #gridSizeComponent(axis: number, node: Node): Expr {
    const a = 'xyz'[axis]!;
    const loc = this.#loc(node);
    return {
      op: 'binary',
      type: 'i32',
      operator: 'mul',
      left: { op: 'special', type: 'i32', register: `ntid.${a}` as SpecialRegister, loc },
      right: { op: 'special', type: 'i32', register: `nctaid.${a}` as SpecialRegister, loc },
      loc,
    };
  }

  #cudaCall(name: string, node: ESTree.CallExpression): Typed {
    if (name === 'grid' || name === 'gridsize') {
      const n = this.#dimensionArgument(node, name);
      if (n !== 1) this.#typeError(node, `cuda.${name}(${n}) gives ${n} values: write const [${['i', 'j', 'k'].slice(0, n).join(', ')}] = cuda.${name}(${n})`);
      return this.#typed(name === 'grid' ? this.#gridComponent(0, node) : this.#gridSizeComponent(0, node));
    }
    if (name === 'fma') return this.#mathOf('fma', node.arguments, node);
    return this.#typeError(node, `cuda.${name}() is not available in kernels (yet)`);
  }

  #mathCall(name: string, node: ESTree.CallExpression): Typed {
    if (name === 'fround') {
      if (node.arguments.length !== 1) this.#typeError(node, 'Math.fround(x) takes one value');
      return this.#typed(this.#cast(this.#expression(node.arguments[0]!), 'f32', node));
    }
    if (name === 'imul') {
      if (node.arguments.length !== 2) this.#typeError(node, 'Math.imul(a, b) takes two values');
      const [a, b] = node.arguments.map((n) => this.#asInteger(this.#expression(n), n)) as [Typed, Typed];
      return this.#typed({ op: 'binary', type: 'i32', operator: 'mul', left: this.#to(a, 'i32', node), right: this.#to(b, 'i32', node), loc: this.#loc(node) });
    }
    const fn = MATH_CALLS[name];
    if (!fn) return this.#typeError(node, `Math.${name} is not available in kernels; available: ${[...Object.keys(MATH_CALLS), 'fround', 'imul'].join(', ')}`);
    if ((fn === 'min' || fn === 'max' || fn === 'hypot') && node.arguments.length > 2) {
      // fold left: Math.max(a, b, c) = max(max(a, b), c)
      let acc = this.#mathOf(fn, node.arguments.slice(0, 2), node);
      for (const extra of node.arguments.slice(2)) acc = this.#mathOfTyped(fn, [acc, this.#expression(extra)], node);
      return acc;
    }
    return this.#mathOf(fn, node.arguments, node);
  }

  #numberCall(name: string, node: ESTree.CallExpression): Typed {
    if ((name === 'isNaN' || name === 'isFinite' || name === 'isInteger') && node.arguments.length === 1) {
      const arg = this.#expression(node.arguments[0]!);
      if (!isLiteralType(arg.type) && !isFloat(arg.type)) return this.#typed({ op: 'const', type: 'bool', value: name !== 'isNaN', loc: this.#loc(node) });
      if (name === 'isInteger') {
        const t = this.#floatType([arg]);
        const x = this.#to(arg, t, node);
        const truncated: Expr = { op: 'math', type: t, fn: 'trunc', argType: t, args: [x], loc: this.#loc(node) };
        return this.#typed({ op: 'compare', type: 'bool', operator: 'eq', operandType: t, left: truncated, right: x, loc: this.#loc(node) });
      }
      return this.#mathOf(name === 'isNaN' ? 'isnan' : 'isfinite', node.arguments, node);
    }
    return this.#typeError(node, `Number.${name} is not available in kernels; available: isNaN, isFinite, isInteger`);
  }

  #mathOf(fn: MathFunction, argNodes: readonly Node[], node: Node): Typed {
    const spec = MATH_FUNCTIONS[fn];
    if (argNodes.length !== spec.arity) this.#typeError(node, `${fn} takes ${spec.arity} argument(s), ${argNodes.length} given`);
    return this.#mathOfTyped(
      fn,
      argNodes.map((n) => this.#expression(n)),
      node,
    );
  }

  #mathOfTyped(fn: MathFunction, args: readonly Typed[], node: Node): Typed {
    const spec = MATH_FUNCTIONS[fn];
    let argType: ScalarName;
    const allIntegers = args.every((a) => a.type === 'int-literal' || (!isLiteralType(a.type) && !isFloat(a.type)));
    if (spec.int && allIntegers) {
      let t: ValueType = 'int-literal';
      for (const a of args) t = promoteValues(t, a.type);
      argType = isLiteralType(t) ? defaultLiteralType(t, undefined) : arithmeticType(t);
    } else {
      argType = this.#floatType(args);
    }
    const converted = args.map((a) => this.#to(a, argType, node));
    const type: ScalarName = fn === 'isnan' || fn === 'isfinite' ? 'bool' : argType;
    return this.#typed({ op: 'math', type, fn, argType, args: converted, loc: this.#loc(node) });
  }
}
