/**
 * Views made inside kernels (numba's slices `x[b:e]`, `a[i, :]`, `a[i]`):
 * `x.subarray(begin, end?)` along the first dimension, with TypedArray's
 * rules (a negative bound counts from the end, both are clamped to
 * `0..length`, an empty view where end ≤ begin), and `a.row(i)`, the
 * elements whose first index is `i`, one dimension fewer (`.row` of a 1-D
 * array is a 0-d view, read with `r.get()` and written with `r.set(v)`,
 * numba's `r[()]`). A view is no copy: its elements are its base array's
 * (ViewMapping of array-bindings.ts), so both backends address them with
 * the base array's strides, and the simulator checks them against the base
 * array's extents.
 */
import type { ArrayView, ViewMapping } from './array-bindings.js';
import type { CompareOperator, Expr, Loc } from './typed-ir.js';
import { nameTable } from './name-table.js';

/** The methods that make views, with their usage for messages. */
export const VIEW_METHODS: Readonly<Record<string, string>> = nameTable({
  subarray: 'subarray(begin, end?)',
  row: 'row(i)',
});

const i64 = (value: bigint, loc: Loc): Expr => ({ op: 'const', type: 'i64', value, loc });
const constantValue = (e: Expr): bigint | undefined =>
  e.op === 'const' && typeof e.value === 'bigint' ? e.value : undefined;

function add(a: Expr, b: Expr, loc: Loc): Expr {
  const [x, y] = [constantValue(a), constantValue(b)];
  if (x !== undefined && y !== undefined) return i64(BigInt.asIntN(64, x + y), loc);
  if (x === 0n) return b;
  if (y === 0n) return a;
  return { op: 'binary', type: 'i64', operator: 'add', left: a, right: b, loc };
}

function sub(a: Expr, b: Expr, loc: Loc): Expr {
  const [x, y] = [constantValue(a), constantValue(b)];
  if (x !== undefined && y !== undefined) return i64(BigInt.asIntN(64, x - y), loc);
  if (y === 0n) return a;
  return { op: 'binary', type: 'i64', operator: 'sub', left: a, right: b, loc };
}

/** `a <op> b ? then : otherwise` on i64 values, folded where both are constants. */
function pick(operator: CompareOperator, a: Expr, b: Expr, then: Expr, otherwise: Expr, loc: Loc): Expr {
  const [x, y] = [constantValue(a), constantValue(b)];
  if (x !== undefined && y !== undefined) {
    const holds =
      operator === 'lt'
        ? x < y
        : operator === 'gt'
          ? x > y
          : operator === 'le'
            ? x <= y
            : operator === 'ge'
              ? x >= y
              : operator === 'eq'
                ? x === y
                : x !== y;
    return holds ? then : otherwise;
  }
  return {
    op: 'select',
    type: 'i64',
    test: { op: 'compare', type: 'bool', operator, operandType: 'i64', left: a, right: b, loc },
    then,
    otherwise,
    loc,
  };
}

/** TypedArray's bound: `b < 0 ? max(length + b, 0) : min(b, length)`. */
function clampedBound(bound: Expr, length: Expr, loc: Loc): Expr {
  const fromEnd = add(length, bound, loc);
  const zero = i64(0n, loc);
  return pick(
    'lt',
    bound,
    zero,
    pick('lt', fromEnd, zero, zero, fromEnd, loc),
    pick('gt', bound, length, length, bound, loc),
    loc,
  );
}

/** The mapping of an array that is no view: every dimension its own, from 0. */
export function identityMapping(view: ArrayView, extents: readonly Expr[], loc: Loc): ViewMapping {
  return { base: view, dims: extents.map((_, axis) => ({ kind: 'axis', axis, offset: i64(0n, loc) })), extents };
}

/** `view.subarray(begin, end)` of a view's mapping (its first dimension sliced); `end` undefined for the length. */
export function subarrayMapping(mapping: ViewMapping, begin: Expr, end: Expr | undefined, loc: Loc): ViewMapping {
  const length = mapping.extents[0]!;
  const first = clampedBound(begin, length, loc);
  const last = end === undefined ? length : clampedBound(end, length, loc);
  const span = sub(last, first, loc);
  const extent = pick('lt', span, i64(0n, loc), i64(0n, loc), span, loc);
  return {
    base: mapping.base,
    dims: mapping.dims.map((d) =>
      d.kind === 'axis' && d.axis === 0 ? { kind: 'axis', axis: 0, offset: add(d.offset, first, loc) } : d,
    ),
    extents: [extent, ...mapping.extents.slice(1)],
  };
}

/** `view.row(i)` of a view's mapping: its first dimension fixed at `index`. */
export function rowMapping(mapping: ViewMapping, index: Expr, loc: Loc): ViewMapping {
  return {
    base: mapping.base,
    dims: mapping.dims.map((d) => {
      if (d.kind === 'fixed') return d;
      if (d.axis === 0) return { kind: 'fixed', index: add(d.offset, index, loc) };
      return { kind: 'axis', axis: d.axis - 1, offset: d.offset };
    }),
    extents: mapping.extents.slice(1),
  };
}

/** Whether an expression may be read again at every access of a view: no effects, no collectives, no calls. */
export function isRereadable(e: Expr): boolean {
  switch (e.op) {
    case 'const':
    case 'local':
    case 'dim':
    case 'special':
      return true;
    case 'unary':
    case 'convert':
      return isRereadable(e.operand);
    case 'binary':
    case 'compare':
    case 'logical':
      return isRereadable(e.left) && isRereadable(e.right);
    case 'select':
      return isRereadable(e.test) && isRereadable(e.then) && isRereadable(e.otherwise);
    case 'math':
      return e.args.every(isRereadable);
    default:
      return false;
  }
}

/** Every expression of a mapping, for making each a local or checking it. */
export function mappingExprs(mapping: ViewMapping): Expr[] {
  return [...mapping.dims.map((d) => (d.kind === 'fixed' ? d.index : d.offset)), ...mapping.extents];
}

/** The mapping with each of its expressions replaced (in {@link mappingExprs}'s order). */
export function replaceMappingExprs(mapping: ViewMapping, replace: (e: Expr) => Expr): ViewMapping {
  return {
    base: mapping.base,
    dims: mapping.dims.map((d) =>
      d.kind === 'fixed'
        ? { kind: 'fixed', index: replace(d.index) }
        : { kind: 'axis', axis: d.axis, offset: replace(d.offset) },
    ),
    extents: mapping.extents.map(replace),
  };
}
