import { countStage } from '../pipeline-counts.js';
import type { KernelConstant } from '../device-function.js';
import { KernelTypeError, withNestingBound } from '../errors.js';
import type { ParsedKernel } from '../parse/parse-kernel.js';
import { paramView } from './array-bindings.js';
import { isArrayType, type ArrayType, type JitType } from './jit-types.js';
import { checkMemoryLimits } from './kernel-memories.js';
import { mathOf } from './math-calls.js';
import type { ArrayUse, KernelParam, Stmt, TypedKernel } from './typed-ir.js';
import type { TyperContext } from './typer-context.js';
import { arrayOf, eachArray, elementRef, markWritten } from './element-access.js';
import { expression } from './expression-typing.js';
import { constant, dtypeOf, globalName } from './name-resolution.js';
import { selectOf } from './operator-typing.js';
import { block, expressionStatement } from './statement-typing.js';
import { assignLocal, concrete, declare, finalType, readLocal, to, truthy } from './typer-scope.js';
import { TyperState } from './typer-state.js';

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

const MAX_INFERENCE_ROUNDS = 32;

/**
 * The typing stage: the parsed kernel, for one signature, becomes the typed
 * IR. Variable types are inferred by rounds over the body until no
 * variable's type changes (a variable holds the join of what is assigned to
 * it); then a last round emits the IR with every conversion explicit.
 *
 * The core language is typed by functions over the typer's state
 * (typer-state.ts): statements (statement-typing.ts), expressions
 * (expression-typing.ts, operators in operator-typing.ts), arrays and their
 * elements (element-access.ts), names that are no local (name-resolution.ts)
 * and locals and conversions (typer-scope.ts). A file reaches those of a
 * file it does not import (statements, expressions) through the context.
 *
 * Each kind of construct beyond the core language is typed in a module of
 * its own, through the {@link TyperContext} the typer gives them:
 * cuda-calls.ts (the cuda.* intrinsics, with atomic-calls.ts and
 * print-calls.ts), kernel-memories.ts (shared, local and const arrays),
 * device-calls.ts (inlined device functions) and external-calls.ts (calls
 * of linked code).
 */
export function typeKernel(
  parsed: ParsedKernel,
  signature: readonly JitType[],
  options: TypeKernelOptions,
): TypedKernel {
  countStage('typed');
  return withNestingBound('typing', () => typeKernelUnbounded(parsed, signature, options));
}

function typeKernelUnbounded(
  parsed: ParsedKernel,
  signature: readonly JitType[],
  options: TypeKernelOptions,
): TypedKernel {
  return run(new TyperState(parsed, signature, options, makeContext));
}

function run(ty: TyperState): TypedKernel {
  const params = ty.paramNames;
  if (ty.signature.length !== params.length) {
    throw new KernelTypeError(
      `the kernel takes ${params.length} parameter(s) (${params.join(', ')}), the signature has ${ty.signature.length}`,
    );
  }
  let rounds = 0;
  do {
    ty.changed = false;
    round(ty);
    if (++rounds > MAX_INFERENCE_ROUNDS) throw new KernelTypeError("the types of the kernel's variables do not settle");
  } while (ty.changed);
  ty.emitting = true;
  const body = round(ty);
  checkMemoryLimits(ty.memories);
  const functions = ty.recursive.finish(
    ty.symbol,
    (k) => ty.localOwner.flatMap((owner, id) => (owner === k ? [id] : [])),
    (id) => finalType(ty.locals[id]!),
  );
  const kernelParams: KernelParam[] = params.map((name, i) => {
    const t = ty.signature[i]!;
    if (isArrayType(t)) return { kind: 'array', name, type: t, use: finalUse(ty, i, t) };
    return { kind: 'scalar', name, type: t, local: ty.paramLocals[i]! };
  });
  return {
    symbol: ty.symbol,
    params: kernelParams,
    locals: ty.locals.map((l) => ({ name: l.name, type: finalType(l) })),
    memories: ty.memories.map((m) => m.memory),
    externals: ty.externals.list,
    ...(functions.length > 0 ? { functions } : {}),
    collectives: Object.freeze({ ...ty.collectives }),
    body,
  };
}

function finalUse(ty: TyperState, index: number, t: ArrayType): ArrayUse {
  const use = ty.arrayUse[index]!;
  return { shape: use.shape, strides: use.strides && t.layout === 'A', written: use.written };
}

/** One pass over the body with the variable types known so far. */
function round(ty: TyperState): Stmt[] {
  ty.localCursor = 0;
  ty.memoryCursor = 0;
  ty.capturedArrays = new Map();
  ty.frames = [
    { parsed: ty.kernel, constants: ty.kernelConstants, inline: undefined, scopes: [new Map()], targets: [] },
  ];
  ty.nextTarget = 0;
  ty.arrayUse = ty.signature.map(() => ({ shape: false, strides: false, written: false }));
  ty.collectives = { block: false, warp: false, grid: false };
  ty.paramLocals = [];
  ty.recursive.beginRound();
  ty.owner = -1;
  ty.paramNames.forEach((name, i) => {
    const t = ty.signature[i]!;
    if (isArrayType(t)) {
      ty.scope().set(name, { kind: 'array', view: paramView(i, name, t) });
    } else {
      const id = declare(ty, name, false, t);
      ty.paramLocals[i] = id;
    }
  });
  const body = ty.kernel.body;
  const statements = body.type === 'BlockStatement' ? block(ty, body.body) : [expressionStatement(ty, body)];
  return statements;
}

/** What the modules that type calls, memories and device functions see of this typer. */
function makeContext(ty: TyperState): TyperContext {
  return {
    loc: (node) => ty.loc(node),
    at: (node) => ty.at(node),
    typeError: (node, message) => ty.typeError(node, message),
    expression: (node) => expression(ty, node),
    to: (t, target, node) => to(ty, t, target, node),
    truthy: (t, node) => truthy(ty, t, node),
    concrete: (t) => concrete(t),
    math: (fn, args, node) => mathOf(ty.context, fn, args, node),
    select: (test, a, b, node, aNode, bNode) => selectOf(ty, test, a, b, node, aNode, bNode),
    globalName: (node) => globalName(ty, node),
    constant: (name) => constant(ty, name),
    dtypeOf: (node) => dtypeOf(ty, node),
    arrayOf: (node) => arrayOf(ty, node),
    elementRef: (view, indices, at) => elementRef(ty, view, indices, at),
    markWritten: (view) => markWritten(ty, view),
    eachArray: (view, node, access) => eachArray(ty, view, node, access),
    useCollective: (kind) => {
      if (ty.owner >= 0)
        ty.refuseInRecursive(
          kind === 'grid'
            ? 'a grid barrier'
            : kind === 'block'
              ? 'a block barrier or vote'
              : 'a warp collective (syncwarp, shuffles, votes)',
        );
      ty.collectives[kind] = true;
    },
    newTarget: () => ty.nextTarget++,
    declareLocal: (name) => declare(ty, name, false),
    hiddenLocal: (name) => declare(ty, name, false, undefined, false),
    isScalarParameter: (id) => ty.paramLocals.includes(id) && !ty.assignedParams.has(id),
    assignLocal: (id, value, node) => assignLocal(ty, id, value, node),
    readLocal: (id, node) => readLocal(ty, id, node),
    bindArray: (name, view) => ty.scope().set(name, { kind: 'array', view }),
    enterFunction: (frame, body) => ty.enterFunction(frame, body),
    declareParameter: (name, type) => declare(ty, name, false, type),
    functionBody: (index, body) => {
      const outer = ty.owner;
      ty.owner = index;
      try {
        return body();
      } finally {
        ty.owner = outer;
      }
    },
    emitting: () => ty.emitting,
    callChain: () => ty.frames.flatMap((f) => (f.inline ? [f.inline] : [])),
    statements: (nodes) => block(ty, nodes),
  };
}
