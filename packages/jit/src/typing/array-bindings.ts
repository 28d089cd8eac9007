/**
 * What a name bound to an array stands for: an array parameter or a memory
 * that the kernel declares (shared, local or const). Both are indexed,
 * measured and written by the same rules; an {@link ArrayView} says what
 * those rules need to know of either.
 */
import type { ArrayType, Layout, ScalarName } from './jit-types.js';
import type { ElementRef, Expr, KernelMemory, Loc, MemorySpace } from './typed-ir.js';

export interface ArrayView {
  /** The index in the kernel's `params` (no `space`) or in its `memories` (with `space`). */
  readonly array: number;
  readonly space: MemorySpace | undefined;
  /** The name the kernel's code gives it. */
  readonly name: string;
  readonly dtype: ScalarName;
  readonly ndim: number;
  readonly layout: Layout;
  /** How messages describe it: `array(f32, 1, 'C')`, `shared array(f32, [16, 16])`. */
  readonly description: string;
  /** Why its elements cannot be written (a whole message), or undefined. */
  readonly readOnly: string | undefined;
  /** Its extents where they are known when the kernel is typed (every memory but a dynamic shared array). */
  readonly extents: readonly number[] | undefined;
  /** Why its extents cannot be read (a pointer parameter has none: a whole message), or undefined. */
  readonly noExtents?: string;
  /**
   * Set for a view made in the kernel (`x.subarray(b, e)`, `a.row(i)`):
   * how its elements are elements of `array`/`space` (the array it views).
   */
  readonly mapping?: ViewMapping;
  /**
   * For an array held in a local variable (`let a = x; a = y;`): the arrays
   * it may hold and the i32 local that says which (an index into `views`).
   * Every access of such a view is typed once per array, chosen by the local
   * at run time (array-locals.ts); the other fields are its first array's.
   */
  readonly choice?: ArrayChoice;
}

/**
 * A view's elements as elements of the array it views (`base`, which is no
 * view itself): per dimension of the base, a fixed index or one of the
 * view's dimensions from an offset; per dimension of the view, its extent.
 * Every expression is an i64 constant, a local, or (for a view used where
 * it is written) free of effects, so that it may be read at every access.
 */
export interface ViewMapping {
  readonly base: ArrayView;
  readonly dims: readonly (
    | { readonly kind: 'fixed'; readonly index: Expr }
    | { readonly kind: 'axis'; readonly axis: number; readonly offset: Expr }
  )[];
  readonly extents: readonly Expr[];
}

export interface ArrayChoice {
  readonly selector: number;
  readonly views: readonly ArrayView[];
}

/** What a name in a scope stands for. */
export type Binding =
  | { readonly kind: 'local'; readonly id: number }
  | { readonly kind: 'array'; readonly view: ArrayView }
  /** `const g = cuda.cg.thisGrid()`: `g.sync()` is a grid barrier. */
  | { readonly kind: 'grid-group' };

export function paramView(index: number, name: string, type: ArrayType): ArrayView {
  return {
    array: index,
    space: undefined,
    name,
    dtype: type.dtype,
    ndim: type.ndim,
    layout: type.layout,
    description: type.name,
    readOnly: type.readonly ? `'${name}' is read-only (${type.name}); it cannot be written` : undefined,
    extents: undefined,
    ...(type.pointer
      ? {
          noExtents: `'${name}' is a pointer (${type.name}): it has no length or extent to read (nor views made from one); pass the element count as a parameter of its own, as numba's CPointer needs`,
        }
      : {}),
  };
}

/** `shared array(f32, [16, 16])`, `shared array(f32, dynamic)`. */
export function memoryDescription(memory: KernelMemory): string {
  return `${memory.space} array(${memory.dtype}, ${memory.dynamic ? 'dynamic' : `[${memory.shape.join(', ')}]`})`;
}

export function memoryView(index: number, memory: KernelMemory): ArrayView {
  return {
    array: index,
    space: memory.space,
    name: memory.name,
    dtype: memory.dtype,
    ndim: memory.shape.length,
    layout: 'C',
    description: memoryDescription(memory),
    readOnly:
      memory.space === 'const'
        ? `'${memory.name}' is constant memory (cuda.const.arrayLike); it cannot be written`
        : undefined,
    extents: memory.dynamic ? undefined : memory.shape,
  };
}

/** The address of an element of `view` (indices already i64); a view's is its base array's element. */
export function elementRefOf(view: ArrayView, indices: readonly Expr[]): ElementRef {
  if (view.choice)
    throw new Error(`typer: '${view.name}' holds one of several arrays; its accesses are typed once per array`);
  const mapping = view.mapping;
  if (mapping) {
    const baseIndices = mapping.dims.map((d): Expr => {
      if (d.kind === 'fixed') return d.index;
      const index = indices[d.axis]!;
      return d.offset.op === 'const' && d.offset.value === 0n
        ? index
        : { op: 'binary', type: 'i64', operator: 'add', left: d.offset, right: index, loc: index.loc };
    });
    return elementRefOf(mapping.base, baseIndices);
  }
  return view.space === undefined ? { array: view.array, indices } : { array: view.array, space: view.space, indices };
}

/** The `dim` expression of `view`'s extent along `dim` (i64); a view's own extent expression. */
export function extentOf(view: ArrayView, dim: number, loc: Loc): Expr {
  if (view.choice)
    throw new Error(`typer: '${view.name}' holds one of several arrays; its extents are typed once per array`);
  if (view.mapping) return view.mapping.extents[dim]!;
  return view.space === undefined
    ? { op: 'dim', type: 'i64', array: view.array, what: 'shape', dim, loc }
    : { op: 'dim', type: 'i64', array: view.array, space: view.space, what: 'shape', dim, loc };
}
