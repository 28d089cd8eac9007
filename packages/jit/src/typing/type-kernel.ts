import { countStage } from '../pipeline-counts.js';
import type { ESTree } from 'meriyah';
import { deviceFunctionOf, type DeviceFunction, type KernelConstant } from '../device-function.js';
import { FreeVariableError, KernelTypeError, UnsupportedSyntaxError, type SourceLocator, withNestingBound } from '../errors.js';
import { ExternalDeviceFunction } from '../external-device-function.js';
import type { ParsedKernel } from '../parse/parse-kernel.js';
import { unsupportedMessage, unsupportedNodePhrase } from '../parse/supported-syntax.js';
import { elementRefOf, extentOf, memoryView, paramView, type ArrayView, type Binding, type ViewMapping } from './array-bindings.js';
import { ArrayLocal, choiceView, selectorFor, selectorIs, viewsOf } from './array-locals.js';
import { identityMapping, isRereadable, mappingExprs, replaceMappingExprs, rowMapping, subarrayMapping, VIEW_METHODS } from './array-views.js';
import { cudaStatement, cudaValue, dimensionCount, gridComponent, gridSizeComponent } from './cuda-calls.js';
import { inlineStatement, inlineValue } from './device-calls.js';
import { isRecursive, RecursiveFunctions } from './recursive-calls.js';
import { externalCall, KernelExternals } from './external-calls.js';
import { CASTS, isCudaCast, CUDA_DIMENSIONS, CUDA_SCALARS, GLOBAL_CONSTANTS, INTRINSIC_NAMES, MATH_CONSTANTS, NUMBER_CONSTANTS } from './intrinsics.js';
import { isArrayType, isFloat, bitsOf, typeName, type ArrayType, type JitType, type ScalarName } from './jit-types.js';
import { capturedHostArray, checkMemoryLimits, isHostArray, MEMORY_MAKERS, declareMemory, type DeclaredMemory } from './kernel-memories.js';
import { constantOf, foldNumbers } from './literals.js';
import { floatType, mathCall, mathOf, numberCall } from './math-calls.js';
import { consoleLogCall } from './print-calls.js';
import { numbaFunctionHint } from './numba-spellings.js';
import { makerType } from './signature.js';
import { arithmeticType, defaultLiteralType, isWidening, join, promoteValues, type ValueType } from './promotion.js';
import type { ArrayUse, BinaryOperator, CompareOperator, ElementRef, Expr, KernelCollectives, KernelMemory, KernelParam, Loc, SpecialRegister, Stmt, TypedKernel } from './typed-ir.js';
import { integerOf, isLiteralType, literalValue, typed, type FunctionExit, type InlineFrame, type Node, type Typed, type TyperContext } from './typer-context.js';

export type { KernelConstant };

export interface TypeKernelOptions {
  /** Names the kernel may use that are not parameters, baked into the code. */
  readonly constants?: Readonly<Record<string, KernelConstant>>;
  /** The kernel's symbol in NVVM IR and PTX. */
  readonly symbol: string;
  /**
   * Names of constants that are device arrays (captured-arrays.ts): array
   * parameters after the kernel's own, whose types end the signature.
   */
  readonly captured?: readonly string[];
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

interface JumpTarget {
  readonly id: number;
  readonly label: string | undefined;
  readonly isLoop: boolean;
}

/**
 * The function whose code is being typed: the kernel, or a device function
 * inlined into it, which has its own names, constants, jump targets and
 * positions (its Locs carry its locator) and whose `return`s leave its block.
 */
interface Frame {
  readonly parsed: ParsedKernel;
  readonly constants: Readonly<Record<string, KernelConstant>>;
  /** Set for a device function: its text is not the kernel's. */
  readonly inline: InlineFrame | undefined;
  readonly scopes: Map<string, Binding>[];
  readonly targets: JumpTarget[];
}

const COMPARE: Readonly<Record<string, CompareOperator>> = { '<': 'lt', '<=': 'le', '>': 'gt', '>=': 'ge', '==': 'eq', '===': 'eq', '!=': 'ne', '!==': 'ne' };
const ARITHMETIC: Readonly<Record<string, BinaryOperator>> = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div', '%': 'rem' };
const BITWISE: Readonly<Record<string, BinaryOperator>> = { '&': 'and', '|': 'or', '^': 'xor' };
const SHIFTS: Readonly<Record<string, BinaryOperator>> = { '<<': 'shl', '>>': 'shr', '>>>': 'ushr' };
const MAX_INFERENCE_ROUNDS = 32;
/**
 * The `types` stage: the parsed kernel, for one signature, becomes the typed
 * IR. Variable types are inferred by rounds over the body until no
 * variable's type changes (a variable holds the join of what is assigned to
 * it); then a last round emits the IR with every conversion explicit.
 *
 * Each kind of construct beyond the core language is typed in a module of
 * its own, through the {@link TyperContext} this class gives them:
 * cuda-calls.ts (the cuda.* intrinsics, with atomic-calls.ts and
 * print-calls.ts), kernel-memories.ts (shared, local and const arrays),
 * device-calls.ts (inlined device functions) and external-calls.ts (calls
 * of linked code).
 */
export function typeKernel(parsed: ParsedKernel, signature: readonly JitType[], options: TypeKernelOptions): TypedKernel {
  countStage('typed');
  return withNestingBound('typing', () => typeKernelUnbounded(parsed, signature, options));
}

function typeKernelUnbounded(parsed: ParsedKernel, signature: readonly JitType[], options: TypeKernelOptions): TypedKernel {
  return new KernelTyper(parsed, signature, options).run();
}

class KernelTyper {
  readonly #kernel: ParsedKernel;
  readonly #signature: readonly JitType[];
  readonly #kernelConstants: Readonly<Record<string, KernelConstant>>;
  readonly #symbol: string;
  /** The kernel's parameters, then the captured device arrays. */
  readonly #paramNames: readonly string[];
  readonly #context: TyperContext;
  #locals: Local[] = [];
  /** The memories the kernel declares, by id (declared in the same order every round: ids are stable). */
  #memories: DeclaredMemory[] = [];
  /** The linked functions the kernel calls (by declaration: their indices are stable across rounds). */
  readonly #externals: KernelExternals;
  #frames: Frame[] = [];
  #nextTarget = 0;
  #emitting = false;
  #changed = false;
  #arrayUse: { shape: boolean; strides: boolean; written: boolean }[] = [];
  #collectives: { -readonly [K in keyof KernelCollectives]: boolean } = { block: false, warp: false, grid: false };
  /** Locals of a round are created in the same order every round: their ids are stable. */
  #localCursor = 0;
  #memoryCursor = 0;
  /** The constant memory of each host array read by its name in the constants (`PRICES[i]`), by the array: one memory per array per round. */
  #capturedArrays = new Map<unknown, ArrayView>();
  #paramLocals: number[] = [];
  /** The locals that hold arrays (array-locals.ts), by local id; their candidates are kept from round to round. */
  readonly #arrayLocals = new Map<number, ArrayLocal>();
  /** The scalar parameters' locals that the kernel assigns (kept from round to round). */
  readonly #assignedParams = new Set<number>();
  /** The recursive device functions (recursive-calls.ts), kept from round to round. */
  readonly #recursive = new RecursiveFunctions();
  /** The recursive function that owns each local (-1: the kernel), by local id. */
  readonly #localOwner: number[] = [];
  /** The recursive function whose body is being typed (-1: none). */
  #owner = -1;

  constructor(parsed: ParsedKernel, signature: readonly JitType[], options: TypeKernelOptions) {
    this.#kernel = parsed;
    this.#signature = signature;
    this.#kernelConstants = options.constants ?? {};
    this.#symbol = options.symbol;
    this.#paramNames = [...parsed.params, ...(options.captured ?? [])];
    this.#externals = new KernelExternals(options.symbol);
    this.#context = this.#makeContext();
  }

  run(): TypedKernel {
    const params = this.#paramNames;
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
    checkMemoryLimits(this.#memories);
    const functions = this.#recursive.finish(
      this.#symbol,
      (k) => this.#localOwner.flatMap((owner, id) => (owner === k ? [id] : [])),
      (id) => this.#finalType(this.#locals[id]!),
    );
    const kernelParams: KernelParam[] = params.map((name, i) => {
      const t = this.#signature[i]!;
      if (isArrayType(t)) return { kind: 'array', name, type: t, use: this.#finalUse(i, t) };
      return { kind: 'scalar', name, type: t, local: this.#paramLocals[i]! };
    });
    return {
      symbol: this.#symbol,
      params: kernelParams,
      locals: this.#locals.map((l) => ({ name: l.name, type: this.#finalType(l) })),
      memories: this.#memories.map((m) => m.memory),
      externals: this.#externals.list,
      ...(functions.length > 0 ? { functions } : {}),
      collectives: Object.freeze({ ...this.#collectives }),
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
    this.#memoryCursor = 0;
    this.#capturedArrays = new Map();
    this.#frames = [{ parsed: this.#kernel, constants: this.#kernelConstants, inline: undefined, scopes: [new Map()], targets: [] }];
    this.#nextTarget = 0;
    this.#arrayUse = this.#signature.map(() => ({ shape: false, strides: false, written: false }));
    this.#collectives = { block: false, warp: false, grid: false };
    this.#paramLocals = [];
    this.#recursive.beginRound();
    this.#owner = -1;
    this.#paramNames.forEach((name, i) => {
      const t = this.#signature[i]!;
      if (isArrayType(t)) {
        this.#scope().set(name, { kind: 'array', view: paramView(i, name, t) });
      } else {
        const id = this.#declare(name, false, t);
        this.#paramLocals[i] = id;
      }
    });
    const body = this.#kernel.body;
    const statements = body.type === 'BlockStatement' ? this.#block(body.body) : [this.#expressionStatement(body)];
    return statements;
  }

  /** What the modules that type calls, memories and device functions see of this typer. */
  #makeContext(): TyperContext {
    return {
      loc: (node) => this.#loc(node),
      at: (node) => this.#at(node),
      typeError: (node, message) => this.#typeError(node, message),
      expression: (node) => this.#expression(node),
      to: (t, target, node) => this.#to(t, target, node),
      truthy: (t, node) => this.#truthy(t, node),
      concrete: (t) => this.#concrete(t),
      math: (fn, args, node) => mathOf(this.#context, fn, args, node),
      select: (test, a, b, node, aNode, bNode) => this.#selectOf(test, a, b, node, aNode, bNode),
      globalName: (node) => this.#globalName(node),
      constant: (name) => this.#constant(name),
      dtypeOf: (node) => this.#dtypeOf(node),
      arrayOf: (node) => this.#arrayOf(node),
      elementRef: (view, indices, at) => this.#elementRef(view, indices, at),
      markWritten: (view) => this.#markWritten(view),
      eachArray: (view, node, access) => this.#eachArray(view, node, access),
      useCollective: (kind) => {
        if (this.#owner >= 0) this.#refuseInRecursive(kind === 'grid' ? 'a grid barrier' : kind === 'block' ? 'a block barrier or vote' : 'a warp collective (syncwarp, shuffles, votes)');
        this.#collectives[kind] = true;
      },
      newTarget: () => this.#nextTarget++,
      declareLocal: (name) => this.#declare(name, false),
      hiddenLocal: (name) => this.#declare(name, false, undefined, false),
      isScalarParameter: (id) => this.#paramLocals.includes(id) && !this.#assignedParams.has(id),
      assignLocal: (id, value, node) => this.#assignLocal(id, value, node),
      readLocal: (id, node) => this.#readLocal(id, node),
      bindArray: (name, view) => this.#scope().set(name, { kind: 'array', view }),
      enterFunction: (frame, body) => this.#enterFunction(frame, body),
      declareParameter: (name, type) => this.#declare(name, false, type),
      functionBody: (index, body) => {
        const outer = this.#owner;
        this.#owner = index;
        try {
          return body();
        } finally {
          this.#owner = outer;
        }
      },
      emitting: () => this.#emitting,
      callChain: () => this.#frames.flatMap((f) => (f.inline ? [f.inline] : [])),
      statements: (nodes) => this.#block(nodes),
    };
  }

  // ---- functions: the kernel and the device functions inlined into it ---------

  get #frame(): Frame {
    return this.#frames[this.#frames.length - 1]!;
  }

  #enterFunction<T>(inline: InlineFrame, body: () => T): T {
    const { parsed, constants } = inline.device;
    this.#frames.push({ parsed, constants, inline, scopes: [new Map()], targets: [] });
    try {
      return body();
    } finally {
      this.#frames.pop();
    }
  }

  /** Refuses `what` in the body of a recursive device function (it is a function of its own, each call with its own locals). */
  #refuseInRecursive(what: string, node?: Node): never {
    const name = this.#frame.inline?.name ?? '';
    const message = `${what} in the recursive device function '${name}': a recursive function (one that calls itself, directly or not) is compiled as a function of its own and uses scalars only, no arrays, kernel memories or collectives; pass values, or make the recursion a loop`;
    if (node) return this.#typeError(node, message);
    throw new KernelTypeError(message);
  }

  /** Where `return` goes: undefined in the kernel itself. */
  get #exit(): FunctionExit | undefined {
    return this.#frame.inline?.exit;
  }

  // ---- errors and positions ---------------------------------------------------

  #loc(node: Node): Loc {
    const start = node.start ?? 0;
    const end = node.end ?? node.start ?? 0;
    return this.#frame.inline ? { start, end, locator: this.#frame.parsed.locator } : { start, end };
  }

  #at(node: Node): { locator: SourceLocator; loc: Loc } {
    return { locator: this.#frame.parsed.locator, loc: this.#loc(node) };
  }

  #unsupported(node: Node, what: string): never {
    throw new UnsupportedSyntaxError(unsupportedMessage(what), this.#at(node));
  }

  #typeError(node: Node, message: string): never {
    throw new KernelTypeError(message, this.#at(node));
  }

  /** The text of a node, for messages. */
  #text(node: Node): string {
    return this.#frame.parsed.source.slice(node.start ?? 0, node.end ?? 0);
  }

  // ---- scopes and locals -------------------------------------------------------

  #scope(): Map<string, Binding> {
    const scopes = this.#frame.scopes;
    return scopes[scopes.length - 1]!;
  }

  /**
   * A local in the order of this round (the same id as in every round); named
   * in the current scope unless `named` is false. With `fixedType` it is a
   * kernel parameter of that type.
   */
  #declare(name: string, isConst: boolean, fixedType?: ScalarName, named = true): number {
    const id = this.#localCursor++;
    this.#localOwner[id] = this.#owner;
    if (id >= this.#locals.length) {
      this.#locals.push({ name, type: fixedType, literalNeeds: undefined, fixed: fixedType !== undefined, isConst });
    }
    if (named) this.#scope().set(name, { kind: 'local', id });
    return id;
  }

  #lookup(name: string): Binding | undefined {
    const scopes = this.#frame.scopes;
    for (let i = scopes.length - 1; i >= 0; i--) {
      const b = scopes[i]!.get(name);
      if (b) return b;
    }
    return undefined;
  }

  /** The constant a free name has in the current function. */
  #constant(name: string): KernelConstant | undefined {
    const constants = this.#frame.constants;
    return this.#lookup(name) === undefined && Object.hasOwn(constants, name) ? constants[name] : undefined;
  }

  /** The scalar type a dtype token names: a scalar maker, or a constant that is one (kernels generic in a dtype). */
  #dtypeOf(node: Node): ScalarName | undefined {
    if (node.type === 'Identifier') {
      const made = makerType(this.#constant(node.name));
      if (made) return made;
    }
    const path = this.#cudaMember(node);
    const name = path !== undefined && isCudaCast(path) ? path : this.#globalName(node);
    return name !== undefined && name !== 'Number' && name !== 'Boolean' && Object.hasOwn(CASTS, name) ? CASTS[name] : undefined;
  }

  #withScope<T>(body: () => T): T {
    const scopes = this.#frame.scopes;
    scopes.push(new Map());
    try {
      return body();
    } finally {
      scopes.pop();
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
    if (local.fixed && !this.#assignedParams.has(id)) {
      if (this.#emitting) throw new Error(`typer: the parameter '${local.name}' was first assigned in the last round`);
      this.#assignedParams.add(id);
      this.#changed = true;
    }
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
        const exit = this.#exit;
        if (exit) return exit.returnStatement(n);
        if (n.argument) this.#typeError(n.argument, 'a kernel returns nothing: write `return;` (results go into arrays)');
        return [{ op: 'return', loc: this.#loc(node) }];
      }
      default:
        return this.#unsupported(node, unsupportedNodePhrase(node.type));
    }
  }

  #expressionStatement(e: ESTree.Expression): Stmt {
    return this.#statementCall(e) ?? { op: 'expr', expr: this.#expression(e).expr, loc: this.#loc(e) };
  }

  /** A call that is a statement of its own: an intrinsic that gives nothing, `console.log`, a device function's call. */
  #statementCall(e: ESTree.Expression): Stmt | undefined {
    const call = this.#unwrapCall(e);
    if (!call) return undefined;
    const callee = call.callee;
    const fn = this.#deviceFunction(callee);
    if (fn && isRecursive(fn)) return { op: 'expr', expr: this.#recursive.call(this.#context, fn, call, true).expr, loc: this.#loc(call) };
    if (fn) return inlineStatement(this.#context, fn, call);
    if (this.#isGridSync(callee)) return this.#gridSync(call);
    const path = this.#cudaPath(callee);
    if (path !== undefined) return cudaStatement(this.#context, path, call);
    if (this.#isConsoleLog(callee)) return consoleLogCall(this.#context, call.arguments, call);
    return undefined;
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
      if (d.init && this.#declaresView(name, d.init, isConst, out)) continue;
      if (d.init && this.#declaresBinding(name, d.init, isConst)) continue;
      const array = d.init ? this.#arrayValue(d.init) : undefined;
      if (array && d.init) {
        const id = this.#declare(name, isConst);
        out.push({ op: 'expr', expr: this.#assignArray(id, array, d.init), loc: this.#loc(d) });
        continue;
      }
      const value = d.init ? this.#expression(d.init) : undefined;
      const id = this.#declare(name, isConst);
      if (value && d.init) out.push({ op: 'expr', expr: this.#assignLocal(id, value, d.init), loc: this.#loc(d) });
      else if (isConst) this.#typeError(d, `const '${name}' needs a value`);
    }
    return out;
  }

  /** `const s = cuda.shared.array(...)` (and local, const) and `const g = cuda.cg.thisGrid()`: names that are no variables. */
  #declaresBinding(name: string, init: Node, isConst: boolean): boolean {
    const call = this.#unwrapCall(init);
    const path = call ? this.#cudaPath(call.callee) : undefined;
    if (!call || path === undefined) return false;
    const space = Object.hasOwn(MEMORY_MAKERS, path) ? MEMORY_MAKERS[path] : undefined;
    if (space) {
      if (!isConst) this.#typeError(init, `a ${space} array is declared with const: const ${name} = cuda.${path}(...)`);
      const memory = declareMemory(this.#context, space, name, call);
      this.#scope().set(name, { kind: 'array', view: this.#addMemory(memory, call) });
      return true;
    }
    if (path === 'cg.thisGrid') {
      if (call.arguments.length !== 0) this.#typeError(call, 'cuda.cg.thisGrid() takes no arguments');
      if (!isConst) this.#typeError(init, `the grid group is declared with const: const ${name} = cuda.cg.thisGrid()`);
      this.#scope().set(name, { kind: 'grid-group' });
      return true;
    }
    return false;
  }

  // ---- arrays in local variables (array-locals.ts) ---------------------------------

  /**
   * The array that an expression gives, where it gives one: a name bound to
   * an array (or to a local that holds arrays), or `test ? a : b` of such
   * expressions. Gives the arrays it may be, in order, each as it is now.
   */
  #arrayValue(node: Node): readonly ArrayView[] | undefined {
    if (node.type === 'ConditionalExpression') {
      const n = node as ESTree.ConditionalExpression;
      const then = this.#arrayValue(n.consequent);
      const otherwise = this.#arrayValue(n.alternate);
      if (!then && !otherwise) return undefined;
      if (!then || !otherwise) this.#typeError(node, `one branch of this conditional is an array and the other is not: '${this.#text(then ? n.alternate : n.consequent)}'`);
      return [...then, ...otherwise];
    }
    const view = this.#arrayOf(node);
    return view ? [view] : undefined;
  }

  /** The selector value of the array that `node` (an array value) gives, for the candidates of `target`. */
  #arraySelector(target: ArrayLocal, node: Node): Expr {
    if (node.type === 'ConditionalExpression') {
      const n = node as ESTree.ConditionalExpression;
      const test = this.#truthy(this.#expression(n.test), n.test);
      return { op: 'select', type: 'i32', test, then: this.#arraySelector(target, n.consequent), otherwise: this.#arraySelector(target, n.alternate), loc: this.#loc(node) };
    }
    return selectorFor(target, this.#arrayOf(node)!, this.#loc(node));
  }

  /** `name = <array value>` (`node`) for local `id`: its candidates gain the value's arrays; the selector is set. */
  #assignArray(id: number, values: readonly ArrayView[], node: Node): Expr {
    const local = this.#locals[id]!;
    let holder = this.#arrayLocals.get(id);
    if (!holder) {
      if (local.type !== undefined) this.#typeError(node, `'${local.name}' holds a ${this.#finalType(local)}; it cannot hold an array too`);
      if (this.#emitting) throw new Error(`typer: '${local.name}' was first given an array in the last round`);
      holder = new ArrayLocal();
      this.#arrayLocals.set(id, holder);
      this.#changed = true;
    }
    for (const value of values) {
      for (const view of viewsOf(value)) {
        if (view.mapping) this.#typeError(node, `'${view.name}' is a view made in the kernel; a variable that is assigned arrays holds whole arrays (index the view by its own name)`);
        const added = holder.add(view, (first) =>
          this.#typeError(node, `'${local.name}' holds arrays of ${first.description}; '${view.name}' is ${view.description}: an array variable holds arrays of one element type and rank`),
        );
        if (added) {
          if (this.#emitting) throw new Error(`typer: '${local.name}' gained an array in the last round`);
          this.#changed = true;
        }
      }
    }
    return this.#assignLocal(id, typed(this.#arraySelector(holder, node)), node);
  }

  /** The view of a local that holds arrays, or undefined for a scalar local. */
  #arrayLocalView(id: number): ArrayView | undefined {
    const holder = this.#arrayLocals.get(id);
    return holder ? choiceView(this.#locals[id]!.name, id, holder.views) : undefined;
  }

  /** An access typed once per array that `view` may be, chosen by its selector at run time. */
  #eachArray(view: ArrayView, node: Node, access: (one: ArrayView) => Typed): Typed {
    const choice = view.choice;
    if (!choice) return access(view);
    const loc = this.#loc(node);
    const { views, selector } = choice;
    let result = access(views[views.length - 1]!);
    for (let k = views.length - 2; k >= 0; k--) result = this.#selectOf(selectorIs(selector, k, loc), access(views[k]!), result, node, node, node);
    return result;
  }

  #destructure(pattern: ESTree.ArrayPattern, init: ESTree.Expression | undefined, isConst: boolean): Stmt[] {
    const call = init ? this.#unwrapCall(init) : undefined;
    const what = call ? this.#cudaPath(call.callee) : undefined;
    if (!init || !call || (what !== 'grid' && what !== 'gridsize')) {
      return this.#unsupported(pattern, 'destructuring other than `const [i, j] = cuda.grid(2)` or `cuda.gridsize(n)`');
    }
    const n = dimensionCount(this.#context, call, what);
    if (pattern.elements.length > n) this.#typeError(pattern, `cuda.${what}(${n}) gives ${n} values, ${pattern.elements.length} names were given`);
    const out: Stmt[] = [];
    pattern.elements.forEach((element, axis) => {
      if (element === null) return;
      if (element.type !== 'Identifier') this.#unsupported(element, 'nested destructuring');
      const loc = this.#loc(call);
      const value = typed(what === 'grid' ? gridComponent(axis, loc) : gridSizeComponent(axis, loc));
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
    const targets = this.#frame.targets;
    targets.push({ id, label, isLoop: false });
    try {
      const inner = this.#withScope(() => this.#statement(body));
      return [{ op: 'block', id, body: inner, loc: this.#loc(node) }];
    } finally {
      targets.pop();
    }
  }

  #loopBody<T>(label: string | undefined, body: (id: number) => T): T {
    const id = this.#nextTarget++;
    const targets = this.#frame.targets;
    targets.push({ id, label, isLoop: true });
    try {
      return body(id);
    } finally {
      targets.pop();
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
    const targets = this.#frame.targets;
    for (let i = targets.length - 1; i >= 0; i--) {
      const t = targets[i]!;
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
        return this.#selectOf(test, this.#expression(n.consequent), this.#expression(n.alternate), n, n.consequent, n.alternate);
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
        return typed({ op: 'sequence', type: value.type, effects: parts.slice(0, -1).map((p) => p.expr), value, loc: this.#loc(n) });
      }
      case 'ArrayExpression':
        return this.#unsupported(node, 'array literals (other than the shape of cuda.shared/local.array and the index of cuda.atomic.*)');
      default:
        return this.#unsupported(node, unsupportedNodePhrase(node.type));
    }
  }

  /** `test ? a : b` (lazily) in the common type of `a` and `b`; literals on both sides with a constant test fold. */
  #selectOf(test: Expr, a: Typed, b: Typed, node: Node, aNode: Node, bNode: Node): Typed {
    const t = this.#common(a, b, node);
    if (isLiteralType(t) && a.value !== undefined && b.value !== undefined && test.op === 'const') return test.value ? a : b;
    const type = isLiteralType(t) ? this.#concreteOf(t, a, b) : t;
    return typed({ op: 'select', type, test, then: this.#to(a, type, aNode), otherwise: this.#to(b, type, bNode), loc: this.#loc(node) });
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
      const raw = (node as { raw?: string }).raw ?? this.#text(node);
      const isFloatText = raw.includes('.') && !/^0[xXbBoO]/.test(raw);
      return this.#literal(v, node, isFloatText ? 'float-literal' : undefined);
    }
    if (typeof v === 'boolean') return typed({ op: 'const', type: 'bool', value: v, loc: this.#loc(node) });
    if (typeof v === 'bigint') return this.#bigintConstant(v, node, `the literal ${v}n`);
    if (v === null) return this.#unsupported(node, "'null'");
    return this.#unsupported(node, typeof v === 'string' ? 'strings (other than the text of cuda.printf and console.log)' : 'this literal');
  }

  /** A bigint as an i64 (one of [2^63, 2^64) keeps its bits, as a u64 mask would); one of no 64-bit type is refused (2n ** 64n + 5n was 5n). */
  #bigintConstant(v: bigint, node: Node, what: string): Typed {
    if (v < -(1n << 63n) || v >= 1n << 64n) this.#typeError(node, `${what} is outside the 64-bit integers (i64 and u64)`);
    return typed({ op: 'const', type: 'i64', value: BigInt.asIntN(64, v), loc: this.#loc(node) });
  }

  #identifier(node: ESTree.Identifier): Typed {
    const name = node.name;
    const b = this.#lookup(name);
    if (b?.kind === 'local' && this.#arrayLocals.has(b.id)) return this.#typeError(node, `'${name}' is an array: index it (${name}[i]) or read ${name}.length`);
    if (b?.kind === 'local') {
      const t = this.#localType(b.id);
      if (this.#emitting && this.#locals[b.id]!.type === undefined) this.#typeError(node, `'${name}' is read but never assigned a value`);
      if (t === 'int-literal') return { expr: { op: 'local', type: 'i32', id: b.id, loc: this.#loc(node) }, type: 'int-literal', value: 0 };
      return typed({ op: 'local', type: t, id: b.id, loc: this.#loc(node) });
    }
    if (b?.kind === 'array') {
      const { view } = b;
      if (view.space === undefined && !this.#frame.inline && this.#kernel.params[view.array] === name) {
        const count = this.#kernel.params.length;
        this.#typeError(
          node,
          `'${name}' (argument ${view.array + 1} of ${count}) is used as a scalar here, but the launch passed an ${view.description} for it; pass a number as argument ${view.array + 1} (are two arguments swapped?), or index it (${name}[i])`,
        );
      }
      return this.#typeError(node, `'${name}' is an array: index it (${name}[i]) or read ${name}.length`);
    }
    if (b?.kind === 'grid-group') return this.#typeError(node, `'${name}' is the grid group: call ${name}.sync()`);
    return this.#free(name, node);
  }

  /** A name that is no parameter or local: a captured constant or a global value. */
  #free(name: string, node: Node): Typed {
    const constants = this.#frame.constants;
    if (Object.hasOwn(constants, name)) {
      const c = constants[name];
      if (typeof c === 'number') return this.#literal(c, node);
      if (typeof c === 'boolean') return typed({ op: 'const', type: 'bool', value: c, loc: this.#loc(node) });
      if (typeof c === 'bigint') return this.#bigintConstant(c, node, `the constant '${name}' (${c}n)`);
      if (deviceFunctionOf(c)) return this.#typeError(node, `'${name}' is a device function: call it, ${name}(...)`);
      if (c instanceof ExternalDeviceFunction) return this.#typeError(node, `'${name}' is linked device code (declareDevice '${c.symbol}'): call it, ${name}(...)`);
      const dtype = makerType(c);
      if (dtype) return this.#typeError(node, `'${name}' is the scalar type ${dtype}: use it as a dtype (cuda.shared.array(n, ${name})) or a cast, ${name}(x)`);
      if (isHostArray(c)) return this.#typeError(node, `'${name}' is a host array, read from constant memory: index it (${name}[i]) or read ${name}.length`);
      return this.#typeError(node, `the constant '${name}' is a ${typeof c}; constants are numbers, bigints, booleans, device functions or host arrays`);
    }
    if (Object.hasOwn(GLOBAL_CONSTANTS, name)) return this.#literal(GLOBAL_CONSTANTS[name]!, node, 'float-literal');
    if (name === 'undefined') return this.#unsupported(node, "'undefined'");
    throw new FreeVariableError(
      `'${name}' is not a parameter, a local variable or a constant of the ${this.#frame.inline ? `device function '${this.#frame.inline.name}'` : 'kernel'}; kernels cannot read variables from outside: pass it as an argument, or as a constant with ${this.#frame.inline ? 'jit.device(fn, { constants: { ... } })' : `jit(fn, { constants: { ${name}: ... } })`}`,
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
      return this.#lookup(name) || Object.hasOwn(this.#frame.constants, name) ? undefined : name;
    }
    if (n.type === 'MemberExpression') {
      const m = n as ESTree.MemberExpression;
      if (!m.computed && m.property.type === 'Identifier' && INTRINSIC_NAMES.has(m.property.name) && m.object.type === 'Identifier' && !this.#lookup(m.object.name)) {
        return m.property.name;
      }
    }
    return undefined;
  }

  /**
   * The path of a member under `cuda`: `cuda.laneid` is `laneid`,
   * `cuda.atomic.add` is `atomic.add`, `cuda.cg.thisGrid().sync` is
   * `cg.thisGrid().sync` (calls without arguments are part of a path).
   */
  #cudaPath(node: Node): string | undefined {
    if (node.type === 'CallExpression') {
      const call = node as ESTree.CallExpression;
      if (call.arguments.length !== 0) return undefined;
      const inner = this.#cudaPath(call.callee);
      return inner === undefined ? undefined : `${inner}()`;
    }
    if (node.type !== 'MemberExpression') return undefined;
    const m = node as ESTree.MemberExpression;
    if (m.computed || m.property.type !== 'Identifier') return undefined;
    if (this.#globalName(m.object) === 'cuda') return m.property.name;
    const inner = this.#cudaPath(m.object);
    return inner === undefined ? undefined : `${inner}.${m.property.name}`;
  }

  /** `cuda.<name>` (one member, the name), or undefined. */
  #cudaMember(node: Node): string | undefined {
    const path = this.#cudaPath(node);
    return path === undefined || path.includes('.') || path.includes('(') ? undefined : path;
  }

  #unwrapCall(node: Node): ESTree.CallExpression | undefined {
    let n: Node = node;
    while (n.type === 'ParenthesizedExpression') n = (n as ESTree.ParenthesizedExpression).expression;
    return n.type === 'CallExpression' ? (n as ESTree.CallExpression) : undefined;
  }

  /** The device function a callee names (a free name whose constant is one), or undefined. */
  #deviceFunction(callee: Node): DeviceFunction | undefined {
    const name = this.#calleeConstantName(callee);
    const c = name === undefined ? undefined : this.#constant(name);
    return c === undefined ? undefined : deviceFunctionOf(c);
  }

  /** The linked device function (`declareDevice`) a callee names, or undefined. */
  #externalFunction(callee: Node): ExternalDeviceFunction | undefined {
    const name = this.#calleeConstantName(callee);
    const c = name === undefined ? undefined : this.#constant(name);
    return c instanceof ExternalDeviceFunction ? c : undefined;
  }

  /**
   * The constant a callee names: `f`, or the forms compilers give a call of
   * an imported `f` (`(0, ns.f)`, `ns.f` with `ns` a free name, as vitest,
   * esbuild and tsc's CommonJS output write them), when `f` is a constant.
   */
  #calleeConstantName(callee: Node): string | undefined {
    let n: Node = callee;
    while (n.type === 'ParenthesizedExpression') n = (n as ESTree.ParenthesizedExpression).expression;
    if (n.type === 'SequenceExpression') {
      const s = n as ESTree.SequenceExpression;
      if (s.expressions.length !== 2 || s.expressions[0]?.type !== 'Literal') return undefined;
      n = s.expressions[1]!;
    }
    if (n.type === 'Identifier') return (n as ESTree.Identifier).name;
    if (n.type !== 'MemberExpression') return undefined;
    const m = n as ESTree.MemberExpression;
    if (m.computed || m.property.type !== 'Identifier' || m.object.type !== 'Identifier') return undefined;
    const namespace = m.object.name;
    if (this.#lookup(namespace) !== undefined || Object.hasOwn(this.#frame.constants, namespace)) return undefined;
    const name = m.property.name;
    return Object.hasOwn(this.#frame.constants, name) ? name : undefined;
  }

  #isConsoleLog(callee: Node): boolean {
    if (callee.type !== 'MemberExpression') return false;
    const m = callee as ESTree.MemberExpression;
    return !m.computed && m.property.type === 'Identifier' && m.property.name === 'log' && this.#globalName(m.object) === 'console';
  }

  /** `g.sync()` for a `const g = cuda.cg.thisGrid()`. */
  #isGridSync(callee: Node): boolean {
    if (callee.type !== 'MemberExpression') return false;
    const m = callee as ESTree.MemberExpression;
    if (m.computed || m.property.type !== 'Identifier' || m.object.type !== 'Identifier') return false;
    return this.#lookup(m.object.name)?.kind === 'grid-group';
  }

  #gridSync(call: ESTree.CallExpression): Stmt {
    const m = call.callee as ESTree.MemberExpression;
    const name = (m.object as ESTree.Identifier).name;
    const method = (m.property as ESTree.Identifier).name;
    if (method !== 'sync') this.#typeError(call, `the grid group '${name}' has sync() only`);
    if (call.arguments.length !== 0) this.#typeError(call, `${name}.sync() takes no arguments`);
    this.#collectives.grid = true;
    return { op: 'barrier', scope: 'grid', loc: this.#loc(call) };
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
      return typed({ op: 'compare', type: 'bool', operator: compare, operandType, left: this.#to(left, operandType, node), right: this.#to(right, operandType, node), loc });
    }
    const arith = ARITHMETIC[op];
    if (arith) {
      let t = this.#arithmetic(left, right, node);
      if (arith === 'div' && !isFloat(t) && bitsOf(t) < 64) t = 'f64'; // JavaScript's `/` on numbers is float division; BigInt's (64-bit) truncates
      return typed({ op: 'binary', type: t, operator: arith, left: this.#to(left, t, node), right: this.#to(right, t, node), loc });
    }
    if (op === '**') {
      const t = floatType([left, right]);
      return typed({ op: 'math', type: t, fn: 'pow', argType: t, args: [this.#to(left, t, node), this.#to(right, t, node)], loc });
    }
    const bitwise = BITWISE[op];
    if (bitwise) {
      const t = this.#integerOperands(left, right, node);
      return typed({ op: 'binary', type: t, operator: bitwise, left: this.#to(this.#asInteger(left, node), t, node), right: this.#to(this.#asInteger(right, node), t, node), loc });
    }
    const shift = SHIFTS[op];
    if (shift) {
      const l = this.#asInteger(left, node);
      let t = isLiteralType(l.type) ? defaultLiteralType(l.type, l.value) : arithmeticType(l.type);
      // `>>>` on 32-bit values gives an unsigned 32-bit result, as JavaScript's does
      if (shift === 'ushr' && bitsOf(t) === 32) t = 'u32';
      const r = this.#asInteger(right, node);
      return typed({ op: 'binary', type: t, operator: shift, left: this.#to(l, t, node), right: this.#to(r, t, node), loc });
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
    if (!isLiteralType(t.type) && isFloat(t.type)) return typed({ op: 'convert', type: 'i32', operand: t.expr, loc: this.#loc(node) });
    return t;
  }

  #integerOperands(left: Typed, right: Typed, node: Node): ScalarName {
    const t = this.#arithmetic(this.#asInteger(left, node), this.#asInteger(right, node), node);
    return isFloat(t) ? 'i32' : t;
  }

  #logical(node: ESTree.LogicalExpression): Typed {
    if (node.operator === '??') return this.#unsupported(node, "'??' (values in kernels are never null)");
    const left = this.#expression(node.left);
    const right = this.#expression(node.right);
    let t = this.#common(left, right, node);
    if (isLiteralType(t)) t = defaultLiteralType(t, undefined);
    return typed({ op: 'logical', type: t, operator: node.operator === '&&' ? 'and' : 'or', left: this.#to(left, t, node), right: this.#to(right, t, node), loc: this.#loc(node) });
  }

  #unary(node: ESTree.UnaryExpression): Typed {
    const loc = this.#loc(node);
    const operand = this.#expression(node.argument);
    switch (node.operator) {
      case '!':
        return typed({ op: 'unary', type: 'bool', operator: 'not', operand: this.#truthy(operand, node.argument), loc });
      case '-': {
        if (isLiteralType(operand.type)) return this.#literal(-(operand.value ?? 0), node, operand.type);
        const t = arithmeticType(operand.type);
        return typed({ op: 'unary', type: t, operator: 'neg', operand: this.#to(operand, t, node), loc });
      }
      case '+':
        if (isLiteralType(operand.type)) return operand;
        return operand.type === 'bool' ? typed(this.#to(operand, 'f64', node)) : operand;
      case '~': {
        const i = this.#asInteger(operand, node);
        if (isLiteralType(i.type)) return this.#literal(~(i.value ?? 0), node, 'int-literal');
        const t = arithmeticType(i.type);
        return typed({ op: 'unary', type: t, operator: 'bitnot', operand: this.#to(i, t, node), loc });
      }
      default:
        return this.#unsupported(node, `the operator '${node.operator}'`);
    }
  }

  /** What an assignment target is: a local or an array element. */
  #target(node: Node): { kind: 'local'; id: number } | { kind: 'element'; view: ArrayView; indices: Node[]; at: Node } {
    if (node.type === 'Identifier') {
      const name = (node as ESTree.Identifier).name;
      const b = this.#lookup(name);
      if (!b) {
        if (Object.hasOwn(this.#frame.constants, name)) this.#typeError(node, `'${name}' is a constant of the kernel and cannot be assigned`);
        if (Object.hasOwn(GLOBAL_CONSTANTS, name)) this.#typeError(node, `'${name}' is a constant and cannot be assigned`);
        this.#free(name, node); // no parameter, local or constant has this name: it throws the free-variable error
        return this.#unsupported(node, `assigning to '${name}'`);
      }
      if (b.kind === 'array') this.#typeError(node, `'${name}' is an array and cannot be reassigned; assign its elements (${name}[i] = ...)`);
      if (b.kind === 'grid-group') this.#typeError(node, `'${name}' is the grid group and cannot be reassigned`);
      if (this.#locals[b.id]!.isConst) this.#typeError(node, `'${name}' is a const and cannot be assigned`);
      return { kind: 'local', id: b.id };
    }
    if (node.type === 'MemberExpression') {
      const m = node as ESTree.MemberExpression;
      if (m.computed) {
        const view = this.#arrayOf(m.object);
        if (view) return { kind: 'element', view, indices: [m.property], at: node };
      }
      if (m.object.type === 'Identifier') this.#refuseScalarParamAsArray(m.object.name, node);
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
      const holdsArrays = this.#arrayLocals.has(target.id);
      const array = compound === undefined ? this.#arrayValue(node.right) : undefined;
      if (array) return typed(this.#assignArray(target.id, array, node.right));
      if (holdsArrays) this.#typeError(node, `'${this.#locals[target.id]!.name}' holds an array: assign it another array (${this.#locals[target.id]!.name} = other), or assign its elements`);
      const value = compound === undefined ? this.#expression(node.right) : this.#binaryOf(compound, this.#readLocal(target.id, node.left), this.#expression(node.right), node);
      return typed(this.#assignLocal(target.id, value, node));
    }
    return this.#storeElement(target.view, target.indices, target.at, node, (read) =>
      compound === undefined ? this.#expression(node.right) : this.#binaryOf(compound, read(), this.#expression(node.right), node),
    );
  }

  #readLocal(id: number, node: Node): Typed {
    const t = this.#localType(id);
    if (t === 'int-literal') return { expr: { op: 'local', type: 'i32', id, loc: this.#loc(node) }, type: 'int-literal', value: 0 };
    return typed({ op: 'local', type: t, id, loc: this.#loc(node) });
  }

  #update(node: ESTree.UpdateExpression): Typed {
    const target = this.#target(node.argument);
    const op = node.operator === '++' ? '+' : '-';
    const one = (): Typed => this.#literal(1, node, 'int-literal');
    if (target.kind === 'local' && this.#arrayLocals.has(target.id)) this.#typeError(node, `'${this.#locals[target.id]!.name}' holds an array; it cannot be incremented`);
    if (target.kind === 'local') {
      const old = this.#readLocal(target.id, node.argument);
      const assign = this.#assignLocal(target.id, this.#binaryOf(op, old, one(), node), node);
      if (node.prefix) return typed(assign);
      // postfix: the old value, then the assignment; the old value is kept in a temporary
      const tmp = this.#declare(`${(node.argument as ESTree.Identifier).name}$old`, false, undefined, false);
      const keep = this.#assignLocal(tmp, typed(this.#to(old, assign.type, node)), node);
      return typed({ op: 'sequence', type: assign.type, effects: [keep, assign], value: { op: 'local', type: assign.type, id: tmp, loc: this.#loc(node) }, loc: this.#loc(node) });
    }
    if (node.prefix) return this.#storeElement(target.view, target.indices, target.at, node, (read) => this.#binaryOf(op, read(), one(), node));
    // postfix on an element: the old value is kept in a temporary as it is read, and is the expression's value
    const dtype = target.view.dtype;
    const tmp = this.#declare('$old', false, undefined, false);
    const store = this.#storeElement(target.view, target.indices, target.at, node, (read) => {
      const keep = this.#assignLocal(tmp, read(), node);
      return this.#binaryOf(op, typed(keep), one(), node);
    });
    return typed({ op: 'sequence', type: dtype, effects: [store.expr], value: { op: 'local', type: dtype, id: tmp, loc: this.#loc(node) }, loc: this.#loc(node) });
  }

  // ---- arrays ----------------------------------------------------------------------

  /** The array a node names: an array parameter, a memory, a device function's array parameter, or a host array in the constants (constant memory). */
  #arrayOf(node: Node): ArrayView | undefined {
    const view = this.#arrayOfAny(node);
    if (view && this.#owner >= 0) this.#refuseInRecursive(`the array '${this.#text(node)}'`, node);
    return view;
  }

  #arrayOfAny(node: Node): ArrayView | undefined {
    if (node.type === 'CallExpression' || node.type === 'ParenthesizedExpression') {
      // a view used where it is made (x.subarray(1)[i], f(a.row(i))): its bounds are read at every access
      const view = this.#viewOf(node);
      if (view && !mappingExprs(view.mapping!).every(isRereadable)) {
        this.#typeError(node, `the bounds of this view have effects (assignments, calls): make the view once, const v = ${this.#text(node)}, and use v`);
      }
      return view;
    }
    if (node.type !== 'Identifier') return undefined;
    const name = (node as ESTree.Identifier).name;
    const b = this.#lookup(name);
    if (b?.kind === 'local') return this.#arrayLocalView(b.id);
    if (b) return b.kind === 'array' ? b.view : undefined;
    const value = this.#constant(name);
    if (value === undefined || !isHostArray(value)) return undefined;
    let view = this.#capturedArrays.get(value);
    if (!view) {
      view = this.#addMemory(capturedHostArray(this.#context, name, value, node), node);
      this.#capturedArrays.set(value, view);
    }
    return view;
  }

  /** `x.subarray(begin, end?)` or `a.row(i)` (array-views.ts): the view that the call makes, or undefined for any other node. */
  #viewOf(node: Node): ArrayView | undefined {
    const call = this.#unwrapCall(node);
    const callee = call?.callee;
    if (!call || callee?.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return undefined;
    const method = callee.property.name;
    if (!Object.hasOwn(VIEW_METHODS, method)) return undefined;
    const parent = this.#arrayOf(callee.object);
    if (!parent) return undefined;
    if (parent.ndim === 0) this.#typeError(call, `'${parent.name}' is 0-d: read it with ${parent.name}.get(), write it with ${parent.name}.set(v)`);
    const args = call.arguments;
    const usage = `${parent.name}.${VIEW_METHODS[method]}`;
    const loc = this.#loc(call);
    const bound = (n: Node, what: string): Expr => integerOf(this.#context, this.#expression(n), n, 'i64', what);
    const mapping =
      parent.mapping ??
      identityMapping(
        parent,
        Array.from({ length: parent.ndim }, (_, d) => this.#extentI64(parent, d, call)),
        loc,
      );
    let next: ViewMapping;
    if (method === 'row') {
      if (args.length !== 1) this.#typeError(call, `${usage} takes one index, ${args.length} given`);
      next = rowMapping(mapping, bound(args[0]!, 'the index of a row'), loc);
    } else {
      if (args.length < 1 || args.length > 2) this.#typeError(call, `${usage} takes a begin and an optional end, ${args.length} argument(s) given`);
      next = subarrayMapping(mapping, bound(args[0]!, 'the begin of a subarray'), args[1] ? bound(args[1], 'the end of a subarray') : undefined, loc);
    }
    return this.#viewWith(this.#text(call), next);
  }

  #viewWith(name: string, mapping: ViewMapping): ArrayView {
    const base = mapping.base;
    const ndim = mapping.extents.length;
    const extents = mapping.extents.every((e) => e.op === 'const') ? mapping.extents.map((e) => Number((e as { value: bigint }).value)) : undefined;
    return {
      array: base.array,
      space: base.space,
      name,
      dtype: base.dtype,
      ndim,
      layout: 'A',
      description: `a ${ndim}-D view of '${base.name}' (${base.description})`,
      readOnly: base.readOnly,
      extents,
      mapping,
    };
  }

  /** `const v = x.subarray(...)` (or `a.row(i)`): the view's bounds are computed once, here, into hidden locals. */
  #declaresView(name: string, init: Node, isConst: boolean, out: Stmt[]): boolean {
    const view = this.#viewOf(this.#viewOfNewMemory(name, init, isConst) ?? init);
    if (!view) return false;
    if (!isConst) this.#typeError(init, `a view is declared with const: const ${name} = ${this.#text(init)}`);
    const mapping = replaceMappingExprs(view.mapping!, (e) => {
      if (e.op === 'const' || e.op === 'dim') return e;
      const id = this.#declare(`${name}$bound`, false, undefined, false);
      out.push({ op: 'expr', expr: this.#assignLocal(id, typed(e), init), loc: this.#loc(init) });
      return { op: 'local', type: 'i64', id, loc: this.#loc(init) };
    });
    this.#scope().set(name, { kind: 'array', view: this.#viewWith(name, mapping) });
    return true;
  }

  /**
   * `const v = cuda.shared.array(0, i32).subarray(1)` (numba's
   * `cuda.shared.array(0, int32)[1:]`): the array is declared under a hidden
   * name, and the view call is given back on that name; undefined for any
   * other initializer.
   */
  #viewOfNewMemory(name: string, init: Node, isConst: boolean): Node | undefined {
    const call = this.#unwrapCall(init);
    const callee = call?.callee;
    if (!call || callee?.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier' || !Object.hasOwn(VIEW_METHODS, callee.property.name)) return undefined;
    const made = this.#unwrapCall(callee.object);
    const path = made ? this.#cudaPath(made.callee) : undefined;
    if (path === undefined || !Object.hasOwn(MEMORY_MAKERS, path)) return undefined;
    const hidden = `${name}$array`;
    this.#declaresBinding(hidden, callee.object, isConst);
    const base = callee.object;
    const id: ESTree.Identifier = { type: 'Identifier', name: hidden, start: base.start, end: base.end, range: base.range, loc: base.loc } as ESTree.Identifier;
    return { ...call, callee: { ...callee, object: id } } as ESTree.CallExpression;
  }

  /** An array's extent along `dim` as i64: a constant where it is known, else read at run time. */
  #extentI64(view: ArrayView, dim: number, node: Node): Expr {
    if (view.noExtents) this.#typeError(node, view.noExtents);
    if (view.extents) return { op: 'const', type: 'i64', value: BigInt(view.extents[dim]!), loc: this.#loc(node) };
    if (view.space === undefined && !view.mapping) this.#arrayUse[view.array]!.shape = true;
    return extentOf(view, dim, this.#loc(node));
  }

  /** A memory the kernel declares, in this round's order (the same id every round). */
  #addMemory(memory: KernelMemory, at: Node): ArrayView {
    if (this.#owner >= 0) this.#refuseInRecursive(`the array '${memory.name}'`, at);
    const id = this.#memoryCursor++;
    this.#memories[id] = { memory, at: this.#at(at) };
    return memoryView(id, memory);
  }

  #markWritten(view: ArrayView): void {
    if (view.choice) return view.choice.views.forEach((v) => this.#markWritten(v));
    if (view.space === undefined) this.#arrayUse[view.array]!.written = true;
  }

  /**
   * A kernel parameter that the launch made a scalar, used as an array
   * (`x.length`, `x[i]`): most often two arguments given in the wrong order,
   * so the message names the parameter, its position and what was passed.
   */
  #refuseScalarParamAsArray(name: string, node: Node): void {
    if (this.#frame.inline) return;
    const index = this.#kernel.params.indexOf(name);
    const b = this.#lookup(name);
    if (index === -1 || b?.kind !== 'local' || b.id !== this.#paramLocals[index]) return;
    const t = this.#signature[index]!;
    this.#typeError(
      node,
      `'${name}' (argument ${index + 1} of ${this.#kernel.params.length}) is used as an array here, but the launch passed a ${typeName(t)} scalar for it; pass an array as argument ${index + 1} (are two arguments swapped?)` +
        (t === 'i64' ? `; for a raw device address (a bigint), declare the parameter a pointer in the kernel's signatures: { signatures: [[pointer(u8), ...]] }` : ''),
    );
  }

  /** The element at `indices` (each converted to i64); records what the kernel needs of the array. */
  #elementRef(view: ArrayView, indices: readonly Node[], at: Node): ElementRef {
    const { name, ndim } = view;
    if (indices.length !== ndim) {
      const how = ndim === 1 ? `${name}[i]` : ndim === 0 ? `${name}.get() (and ${name}.set(v))` : `${name}.get(${['i', 'j', 'k'].slice(0, ndim).join(', ')})`;
      this.#typeError(at, `'${name}' is ${view.description} (${ndim}-D): it takes ${ndim} index(es), ${indices.length} given; write ${how}`);
    }
    const stored = view.mapping?.base ?? view; // a view's elements are its base array's
    if (stored.space === undefined) {
      const use = this.#arrayUse[stored.array]!;
      if (stored.layout === 'A') use.strides = true;
      else if (stored.ndim > 1) use.shape = true;
    }
    const converted = indices.map((n, k) => {
      const ix = this.#expression(n);
      const value = literalValue(ix);
      if (view.extents && value !== undefined && Number.isInteger(value) && (value < 0 || value >= view.extents[k]!)) {
        this.#typeError(n, `the index ${value} is outside '${name}' (${view.description}): ${ndim === 1 ? 'it has' : `dimension ${k} has`} ${view.extents[k]} element(s)`);
      }
      return integerOf(this.#context, ix, n, 'i64', 'an index');
    });
    return elementRefOf(view, converted);
  }

  #storeElement(view: ArrayView, indices: readonly Node[], at: Node, node: Node, value: (read: () => Typed) => Typed): Typed {
    if (view.choice) return this.#eachArray(view, node, (one) => this.#storeElement(one, indices, at, node, value));
    if (view.readOnly) this.#typeError(at, view.readOnly);
    this.#markWritten(view);
    const ref = this.#elementRef(view, indices, at);
    const loc = this.#loc(node);
    // A compound store reads the element at the same indices: they are computed once, into temporaries.
    let effects: Expr[] = [];
    let stableRef = ref;
    const read = (): Typed => {
      if (effects.length === 0 && ref.indices.some((ix) => ix.op !== 'const' && ix.op !== 'local')) {
        const temps = ref.indices.map((ix) => {
          const id = this.#declare('$index', false, undefined, false);
          effects.push(this.#assignLocal(id, typed(ix), at));
          return { op: 'local', type: 'i64', id, loc } as Expr;
        });
        stableRef = { ...ref, indices: temps }; // the element's own indices (a view's are already its base array's)
      }
      return typed({ op: 'load', type: view.dtype, ref: stableRef, loc });
    };
    const v = value(read);
    const store: Expr = { op: 'store', type: view.dtype, ref: stableRef, value: this.#to(v, view.dtype, node), loc };
    if (effects.length === 0) return typed(store);
    const result = { op: 'sequence', type: view.dtype, effects: [...effects], value: store, loc } as Expr;
    effects = [];
    return typed(result);
  }

  #member(node: ESTree.MemberExpression): Typed {
    const loc = this.#loc(node);
    const view = this.#arrayOf(node.object);
    if (view) {
      if (node.computed) return this.#eachArray(view, node, (one) => typed({ op: 'load', type: one.dtype, ref: this.#elementRef(one, [node.property], node), loc }));
      const prop = node.property.type === 'Identifier' ? node.property.name : '';
      if (prop === 'length') {
        if (view.ndim !== 1) this.#typeError(node, `'${view.name}' is ${view.ndim}-D: use .shape[k] for an extent or .size for the element count`);
        return this.#extent(view, 0, node);
      }
      if (prop === 'size') {
        let total = this.#extent(view, 0, node);
        for (let d = 1; d < view.ndim; d++) total = this.#binaryOf('*', total, this.#extent(view, d, node), node);
        return total;
      }
      if (prop === 'ndim') return this.#literal(view.ndim, node, 'int-literal');
      return this.#typeError(node, `arrays in kernels have length, size, ndim, shape[k], get(...) and set(...); '${prop}' is not one of them`);
    }
    // x.shape[k]
    if (node.computed && node.object.type === 'MemberExpression') {
      const inner = node.object as ESTree.MemberExpression;
      const base = this.#arrayOf(inner.object);
      if (base && !inner.computed && inner.property.type === 'Identifier' && inner.property.name === 'shape') {
        const k = this.#expression(node.property);
        const kv = k.type === 'int-literal' ? literalValue(k) : undefined;
        if (kv === undefined || kv < 0 || kv >= base.ndim) this.#typeError(node.property, `shape[k] needs a constant k from 0 to ${base.ndim - 1} (${base.name} is ${base.ndim}-D here)`);
        return this.#extent(base, kv, node);
      }
    }
    const member = this.#cudaMember(node);
    if (member !== undefined) {
      const special = CUDA_SCALARS[member];
      if (special) return this.#special(special, node);
      return this.#typeError(node, `cuda.${member} is not a value kernels can read here (${Object.keys(CUDA_DIMENSIONS).join(', ')} take .x/.y/.z)`);
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
    // a member of a constant (a host array: TABLE[i]) or of a call's result: what they are says more
    const object = node.object;
    if (object.type === 'Identifier') {
      this.#refuseScalarParamAsArray(object.name, node);
      const c = this.#constant(object.name);
      if (typeof c === 'object' || typeof c === 'function') this.#free(object.name, object);
    }
    if (object.type === 'CallExpression') this.#expression(object);
    return this.#unsupported(node, `'${this.#text(node)}'`);
  }

  /**
   * An array's extent along `dim`, as i32 (the launch refuses extents of 2³¹
   * and more); a constant where it is known (memories), else read at run
   * time (parameters, dynamic shared arrays).
   */
  #extent(view: ArrayView, dim: number, node: Node): Typed {
    if (view.choice && !view.extents) return this.#eachArray(view, node, (one) => this.#extent(one, dim, node));
    if (view.noExtents) this.#typeError(node, view.noExtents);
    if (view.extents) return this.#literal(view.extents[dim]!, node, 'int-literal');
    if (view.space === undefined && !view.mapping) this.#arrayUse[view.array]!.shape = true;
    const loc = this.#loc(node);
    return typed({ op: 'convert', type: 'i32', operand: extentOf(view, dim, loc), loc });
  }

  #special(register: SpecialRegister, node: Node): Typed {
    return typed({ op: 'special', type: 'i32', register, loc: this.#loc(node) });
  }

  // ---- calls -----------------------------------------------------------------------

  #call(node: ESTree.CallExpression): Typed {
    const callee = node.callee;
    const loc = this.#loc(node);
    // x.get(i, j) / x.set(i, j, v)
    if (callee.type === 'MemberExpression' && !callee.computed && callee.property.type === 'Identifier') {
      const view = this.#arrayOf(callee.object);
      if (view) {
        const method = callee.property.name;
        if (method === 'get') return this.#eachArray(view, node, (one) => typed({ op: 'load', type: one.dtype, ref: this.#elementRef(one, node.arguments, node), loc }));
        if (method === 'set') {
          if (node.arguments.length !== view.ndim + 1) this.#typeError(node, `${view.name}.set takes ${view.ndim} index(es) and a value (${view.name} is ${view.ndim}-D here)`);
          const value = node.arguments[view.ndim]!;
          return this.#storeElement(view, node.arguments.slice(0, view.ndim), node, node, () => this.#expression(value));
        }
        if (Object.hasOwn(VIEW_METHODS, method)) this.#typeError(node, `${view.name}.${method}(...) makes a view: hold it in a const (const v = ${this.#text(node)}) or index it where it is made`);
        return this.#typeError(node, `arrays in kernels have get(...), set(...), subarray(begin, end?) and row(i); '${method}' is not supported`);
      }
      if (callee.object.type === 'Identifier') this.#refuseScalarParamAsArray(callee.object.name, callee);
      if (this.#isGridSync(callee)) return this.#typeError(node, `${this.#text(callee)}() gives no value: call it as a statement`);
      if (this.#isConsoleLog(callee)) return this.#typeError(node, 'console.log(...) gives no value: call it as a statement');
      const global = this.#globalName(callee.object);
      if (global === 'Math') return mathCall(this.#context, callee.property.name, node);
      if (global === 'Number') return numberCall(this.#context, callee.property.name, node);
    }
    const path = this.#cudaPath(callee);
    if (path !== undefined && !isCudaCast(path)) return cudaValue(this.#context, path, node);
    const fn = this.#deviceFunction(callee);
    if (fn && isRecursive(fn)) return this.#recursive.call(this.#context, fn, node, false);
    if (fn) return inlineValue(this.#context, fn, node);
    const external = this.#externalFunction(callee);
    if (external) return externalCall(this.#context, external, node, this.#externals);
    // `cuda.f32(x)` is `f32(x)` under the name that TypeScript types as a number
    const name = path !== undefined ? path : this.#globalName(callee);
    const target = name !== undefined && Object.hasOwn(CASTS, name) ? CASTS[name] : this.#dtypeOf(callee);
    if (target !== undefined) {
      if (node.arguments.length !== 1) this.#typeError(node, `${name ?? this.#text(callee)}(x) takes one value`);
      return typed(this.#to(this.#expression(node.arguments[0]!), target, node));
    }
    if (callee.type === 'Identifier') {
      const calleeName = callee.name;
      if (this.#lookup(calleeName) === undefined && !Object.hasOwn(this.#frame.constants, calleeName)) {
        throw new FreeVariableError(
          `'${calleeName}' is not a function kernels can call (device functions come with jit.device, named in the constants)${numbaFunctionHint(calleeName)}`,
          this.#at(callee),
        );
      }
      if (this.#lookup(calleeName) === undefined) {
        this.#typeError(callee, `the constant '${calleeName}' is not a device function (make one with jit.device(fn), or declare linked code with declareDevice)`);
      }
    }
    return this.#unsupported(node, `the call ${this.#text(callee)}(...)`);
  }
}
