import { formatValue } from './format-value.js';
import { NotViewableError } from './errors.js';
import { isViewable } from './from-any.js';
import { adapterNotImportedFor } from './adapters/registry.js';
import { StridedMemoryView } from './strided-memory-view.js';
import { checkViewOptions, VIEWABLE_VIEW_OPTIONS } from './view-option-error.js';
import type { ViewOptions } from './view-options.js';
import type { ConsumerStream } from './stream.js';

/**
 * What a {@link viewable} function receives in place of a viewable argument:
 * the original object, and `view(stream)` to view it on the consumer's stream.
 */
export class ViewableArgument {
  constructor(
    /** The object that the caller passed. */
    readonly object: unknown,
  ) {
    if (!isViewable(object)) {
      const needsAdapter = object !== null && typeof object === 'object' ? adapterNotImportedFor(object) : undefined;
      if (needsAdapter !== undefined) throw needsAdapter;
      throw new NotViewableError(
        `${formatValue(object)} cannot be viewed as strided memory: it implements no array protocol and is no known host array`,
      );
    }
  }

  /** A view of the object, ordered on `stream` (see {@link StridedMemoryView.fromAny}). */
  view(stream?: ConsumerStream, options?: Omit<ViewOptions, 'stream'>): StridedMemoryView {
    const checked =
      options === undefined
        ? undefined
        : checkViewOptions<Omit<ViewOptions, 'stream'>>('Viewable.view', options, VIEWABLE_VIEW_OPTIONS);
    return StridedMemoryView.fromAny(this.object, checked === undefined ? { stream } : { ...checked, stream });
  }
}

/** The parameters of a {@link viewable} wrapper: the listed positions take anything (viewable), the rest as `fn` has them. */
export type ViewableParameters<P extends readonly unknown[], I extends number> = {
  [K in keyof P]: K extends `${I}` ? unknown : P[K];
};

/**
 * Wraps `fn` so that the arguments at `argIndices` reach it as
 * {@link ViewableArgument}s, whatever array object the caller passed: the
 * analogue of cuda.core's `args_viewable_as_strided_memory`. The function body
 * stays library-agnostic and picks the stream when it calls `view(stream)`.
 *
 * ```ts
 * const scale = viewable((x: ViewableArgument, factor: number, stream: bigint) => {
 *   const v = x.view(stream);
 *   ...
 * }, [0]);
 * scale(new Float32Array(8), 2, -1n);
 * ```
 */
export function viewable<P extends unknown[], R, const I extends readonly number[]>(
  fn: (...args: P) => R,
  argIndices: I,
): (...args: ViewableParameters<P, I[number]>) => R {
  for (const i of argIndices)
    if (!Number.isInteger(i) || i < 0)
      throw new RangeError(`viewable: argument index ${i} must be a non-negative integer`);
  const wrapped = function (this: unknown, ...args: unknown[]): R {
    for (const i of argIndices) if (i < args.length) args[i] = new ViewableArgument(args[i]);
    return fn.apply(this, args as P);
  };
  Object.defineProperty(wrapped, 'name', { value: fn.name });
  return wrapped as (...args: ViewableParameters<P, I[number]>) => R;
}
