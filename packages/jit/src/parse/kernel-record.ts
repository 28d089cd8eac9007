// The kernel record: what the build plugin (@cuda-js/unplugin) writes down
// about each kernel and device function of an app at build time, before a
// bundler or minifier rewrites its text, and what the JIT reads instead of
// `fn.toString()` when it is there. Plain data (JSON-serializable), so that
// the plugin can also emit it (ahead-of-time builds key on `id`).
//
// How it reaches the runtime: the plugin rewrites the function expression `F`
// of `jit(F)`, `jit.device(F)`, `vectorize(F)`, `reduce(F)` (or the name of
// a function defined in the same module) into
//
//   Object.defineProperty(F, Symbol.for('cuda-js.kernel-record'), { value: RECORD, configurable: true })
//
// which gives back `F` itself: no import is added, nothing is renamed, and
// minifiers keep the record (a string key and an object literal) intact.

/** The key of the record on the function object: `Symbol.for(KERNEL_RECORD_KEY)`. */
export const KERNEL_RECORD_KEY = 'cuda-js.kernel-record';

/** The version of the record's format that this JIT reads. */
export const KERNEL_RECORD_VERSION = 1;

/** What defined the function: `jit`, `jit.withConstants` (kernels), `jit.device`, `vectorize`, `reduce`. */
export type KernelRecordKind = 'kernel' | 'device' | 'vectorize' | 'reduce';

/** The import that a free name of the kernel refers to: the kernel's `gpu` of an import of `cuda as gpu` from cuda-js is `{ from: 'cuda-js', name: 'cuda' }`. */
export interface KernelImportBinding {
  /** The module specifier as written in the import. */
  readonly from: string;
  /** The imported name; `'*'` for a namespace import, `'default'` for a default import. */
  readonly name: string;
}

/**
 * One kernel (or device function) as written, recorded at build time.
 *
 * Positions: `source[0]` is at `file:line:column`. Without `positions`, the
 * text keeps the file's layout from there (types are blanked out with
 * spaces, not removed), so an offset in `source` maps to the file by
 * counting lines. With `positions` (the text came from an earlier compile
 * step, mapped back through its source map), each entry `[offset, line,
 * column]` says where `source[offset]` is in the file, and an offset maps
 * through the nearest entry at or before it.
 */
export interface KernelRecord {
  /** {@link KERNEL_RECORD_VERSION} of the plugin that wrote it. */
  readonly version: 1;
  /** Stable within the app: the file relative to the build's root, line and column (`src/app.ts:12:20`). */
  readonly id: string;
  readonly kind: KernelRecordKind;
  /** The function's own name as written (`function axpy`, `const axpy = ...`), where it has one. */
  readonly name?: string;
  /**
   * The name that the call making the kernel is assigned to, where it is
   * (`const saxpy = jit(...)`, `export let saxpy = ...`, `saxpy = jit(...)`,
   * `{ saxpy: jit(...) }`): the kernel's name where no `name` option and no
   * function name of its own gives one.
   */
  readonly binding?: string;
  /** The function's JavaScript text, as the JIT parses it (TypeScript's types blanked out). */
  readonly source: string;
  /** The text as written (with its types), where it differs from `source`; it has the same layout, for snippets. */
  readonly original?: string;
  /**
   * The original file, relative to the build's root (the plugin's `root`,
   * default the directory it ran in) with `/` (`src/app.ts`): messages name
   * it so, and its lines are read (for snippets) relative to the working
   * directory. Records of older plugins hold an absolute path.
   */
  readonly file: string;
  /** 1-based line of `source[0]` in `file`. */
  readonly line: number;
  /** 1-based column of `source[0]` in `file`. */
  readonly column: number;
  /** Offsets of `source` mapped to `[offset, line, column]` of `file`, in increasing offset; see above. */
  readonly positions?: readonly (readonly [number, number, number])[];
  /** Each free name of the function that an import of its module binds. */
  readonly imports: Readonly<Record<string, KernelImportBinding>>;
}

const RECORD_KINDS: ReadonlySet<unknown> = new Set<KernelRecordKind>(['kernel', 'device', 'vectorize', 'reduce']);

/** A 1-based line or column. */
function isPlace(value: unknown): boolean {
  return Number.isSafeInteger(value) && (value as number) >= 1;
}

/** The record that the build plugin attached to `fn`, or undefined. */
export function kernelRecordOf(fn: unknown): KernelRecord | undefined {
  if (typeof fn !== 'function') return undefined;
  const value = (fn as unknown as Record<symbol, unknown>)[Symbol.for(KERNEL_RECORD_KEY)];
  return value === undefined ? undefined : checkKernelRecord(value);
}

/** `value` as a record, checked field by field; a record of another version or shape is an error that names the plugin. */
export function checkKernelRecord(value: unknown): KernelRecord {
  const r = value as Partial<KernelRecord> | null;
  const fail = (what: string): never => {
    throw new TypeError(
      `the kernel record that @cuda-js/unplugin attached to this function ${what}; rebuild the app with a version of the plugin that matches @cuda-js/jit`,
    );
  };
  if (r === null || typeof r !== 'object') return fail('is not an object');
  if (r.version !== KERNEL_RECORD_VERSION)
    return fail(`has version ${String(r.version)}, and this JIT reads version ${KERNEL_RECORD_VERSION}`);
  if (typeof r.source !== 'string' || typeof r.file !== 'string' || typeof r.id !== 'string')
    return fail('has no source, file or id');
  if (!isPlace(r.line) || !isPlace(r.column))
    return fail(`has no line and column (1-based counts), but ${String(r.line)}:${String(r.column)}`);
  if (r.kind !== undefined && !RECORD_KINDS.has(r.kind))
    return fail(`has kind ${String(r.kind)}, which is none of ${[...RECORD_KINDS].join(', ')}`);
  if (r.name !== undefined && typeof r.name !== 'string') return fail('has a name that is not a string');
  if (r.binding !== undefined && typeof r.binding !== 'string') return fail('has a binding that is not a string');
  if (r.original !== undefined && (typeof r.original !== 'string' || r.original.length !== r.source.length))
    return fail("has an 'original' text of another length than its source");
  if (r.positions !== undefined) {
    if (!Array.isArray(r.positions)) return fail("has 'positions' that are not a list");
    let last = -1;
    for (const p of r.positions as readonly unknown[]) {
      const [offset, line, column] = Array.isArray(p) && p.length === 3 ? (p as unknown[]) : [];
      if (
        !Number.isSafeInteger(offset) ||
        (offset as number) <= last ||
        (offset as number) > r.source.length ||
        !isPlace(line) ||
        !isPlace(column)
      ) {
        return fail(
          "has a 'positions' entry that is not [offset, line, column] in increasing offsets within its source",
        );
      }
      last = offset as number;
    }
  }
  if (r.imports === null || typeof r.imports !== 'object') return fail('has no imports');
  for (const binding of Object.values(r.imports) as unknown[]) {
    const b = binding as Partial<KernelImportBinding> | null;
    if (b === null || typeof b !== 'object' || typeof b.from !== 'string' || typeof b.name !== 'string')
      return fail('has an import that is not { from, name }');
  }
  return r as KernelRecord;
}
