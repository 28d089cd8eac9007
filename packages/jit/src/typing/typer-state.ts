/**
 * The state of the kernel typer (type-kernel.ts) while it types one kernel
 * for one signature: the locals, memories, externals and collectives found
 * so far, the functions being typed (the kernel and the device functions
 * inlined into it) with their scopes and jump targets, and whether this is
 * the last round, which emits the IR. The statements, expressions, arrays
 * and names are typed by the functions of statement-typing.ts,
 * expression-typing.ts, operator-typing.ts, element-access.ts,
 * name-resolution.ts and typer-scope.ts, which take this state; the modules
 * of each kind of construct see it only through its {@link TyperContext}.
 */
import type { KernelConstant } from '../device-function.js';
import { KernelTypeError, UnsupportedSyntaxError, type SourceLocator } from '../errors.js';
import type { ParsedKernel } from '../parse/parse-kernel.js';
import { unsupportedMessage } from '../parse/supported-syntax.js';
import type { ArrayView, Binding } from './array-bindings.js';
import type { ArrayLocal } from './array-locals.js';
import { KernelExternals } from './external-calls.js';
import type { JitType, ScalarName } from './jit-types.js';
import type { DeclaredMemory } from './kernel-memories.js';
import type { ValueType } from './promotion.js';
import { RecursiveFunctions } from './recursive-calls.js';
import type { KernelCollectives, Loc } from './typed-ir.js';
import type { FunctionExit, InlineFrame, Node, TyperContext } from './typer-context.js';
import type { TypeKernelOptions } from './type-kernel.js';

export interface Local {
  readonly name: string;
  type: ValueType | undefined;
  /** The concrete type that the literals assigned to it need (i32, i64 or f64). */
  literalNeeds: ScalarName | undefined;
  /** Parameters keep their signature's type: assignments must widen into it. */
  readonly fixed: boolean;
  readonly isConst: boolean;
}

export interface JumpTarget {
  readonly id: number;
  readonly label: string | undefined;
  readonly isLoop: boolean;
}

/**
 * The function whose code is being typed: the kernel, or a device function
 * inlined into it, which has its own names, constants, jump targets and
 * positions (its Locs carry its locator) and whose `return`s leave its block.
 */
export interface Frame {
  readonly parsed: ParsedKernel;
  readonly constants: Readonly<Record<string, KernelConstant>>;
  /** Set for a device function: its text is not the kernel's. */
  readonly inline: InlineFrame | undefined;
  readonly scopes: Map<string, Binding>[];
  readonly targets: JumpTarget[];
}

export class TyperState {
  readonly kernel: ParsedKernel;
  readonly signature: readonly JitType[];
  readonly kernelConstants: Readonly<Record<string, KernelConstant>>;
  readonly symbol: string;
  /** The kernel's parameters, then the captured device arrays. */
  readonly paramNames: readonly string[];
  readonly context: TyperContext;
  locals: Local[] = [];
  /** The memories the kernel declares, by id (declared in the same order every round: ids are stable). */
  memories: DeclaredMemory[] = [];
  /** The linked functions the kernel calls (by declaration: their indices are stable across rounds). */
  readonly externals: KernelExternals;
  frames: Frame[] = [];
  nextTarget = 0;
  emitting = false;
  changed = false;
  arrayUse: { shape: boolean; strides: boolean; written: boolean }[] = [];
  collectives: { -readonly [K in keyof KernelCollectives]: boolean } = { block: false, warp: false, grid: false };
  /** Locals of a round are created in the same order every round: their ids are stable. */
  localCursor = 0;
  memoryCursor = 0;
  /** The constant memory of each host array read by its name in the constants (`PRICES[i]`), by the array: one memory per array per round. */
  capturedArrays = new Map<unknown, ArrayView>();
  paramLocals: number[] = [];
  /** The locals that hold arrays (array-locals.ts), by local id; their candidates are kept from round to round. */
  readonly arrayLocals = new Map<number, ArrayLocal>();
  /** The scalar parameters' locals that the kernel assigns (kept from round to round). */
  readonly assignedParams = new Set<number>();
  /** The recursive device functions (recursive-calls.ts), kept from round to round. */
  readonly recursive = new RecursiveFunctions();
  /** The recursive function that owns each local (-1: the kernel), by local id. */
  readonly localOwner: number[] = [];
  /** The recursive function whose body is being typed (-1: none). */
  owner = -1;

  constructor(
    parsed: ParsedKernel,
    signature: readonly JitType[],
    options: TypeKernelOptions,
    makeContext: (ty: TyperState) => TyperContext,
  ) {
    this.kernel = parsed;
    this.signature = signature;
    this.kernelConstants = options.constants ?? {};
    this.symbol = options.symbol;
    this.paramNames = [...parsed.params, ...(options.captured ?? [])];
    this.externals = new KernelExternals(options.symbol);
    this.context = makeContext(this);
  }

  // ---- functions: the kernel and the device functions inlined into it ---------

  get frame(): Frame {
    return this.frames[this.frames.length - 1]!;
  }

  enterFunction<T>(inline: InlineFrame, body: () => T): T {
    const { parsed, constants } = inline.device;
    this.frames.push({ parsed, constants, inline, scopes: [new Map()], targets: [] });
    try {
      return body();
    } finally {
      this.frames.pop();
    }
  }

  /** Refuses `what` in the body of a recursive device function (it is a function of its own, each call with its own locals). */
  refuseInRecursive(what: string, node?: Node): never {
    const name = this.frame.inline?.name ?? '';
    const message = `${what} in the recursive device function '${name}': a recursive function (one that calls itself, directly or not) is compiled as a function of its own and uses scalars only, no arrays, kernel memories or collectives; pass values, or make the recursion a loop`;
    if (node) return this.typeError(node, message);
    throw new KernelTypeError(message);
  }

  /** Where `return` goes: undefined in the kernel itself. */
  get exit(): FunctionExit | undefined {
    return this.frame.inline?.exit;
  }

  // ---- errors and positions ---------------------------------------------------

  loc(node: Node): Loc {
    const start = node.start ?? 0;
    const end = node.end ?? node.start ?? 0;
    return this.frame.inline ? { start, end, locator: this.frame.parsed.locator } : { start, end };
  }

  at(node: Node): { locator: SourceLocator; loc: Loc } {
    return { locator: this.frame.parsed.locator, loc: this.loc(node) };
  }

  unsupported(node: Node, what: string): never {
    throw new UnsupportedSyntaxError(unsupportedMessage(what), this.at(node));
  }

  typeError(node: Node, message: string): never {
    throw new KernelTypeError(message, this.at(node));
  }

  /** The text of a node, for messages. */
  text(node: Node): string {
    return this.frame.parsed.source.slice(node.start ?? 0, node.end ?? 0);
  }

  // ---- scopes and locals -------------------------------------------------------

  scope(): Map<string, Binding> {
    const scopes = this.frame.scopes;
    return scopes[scopes.length - 1]!;
  }

  lookup(name: string): Binding | undefined {
    const scopes = this.frame.scopes;
    for (let i = scopes.length - 1; i >= 0; i--) {
      const b = scopes[i]!.get(name);
      if (b) return b;
    }
    return undefined;
  }
}
