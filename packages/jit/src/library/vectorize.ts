// Elementwise ufuncs (numba's `@vectorize(..., target='cuda')`): a scalar
// function becomes a device function, called once per element by a kernel
// generated in the kernel language for the call's shapes (one thread per
// element of the broadcast result; operands that are compact with it are
// read at the flat index, broadcast or strided ones through their strides,
// after numpy's dimension merging leaves at most three dimensions).
import { isArray, isBoolean, isString } from '@cuda-js/options';
import { checkJitOptions, isJitTarget, isObject } from '../jit-options.js';
import { i32 } from '@cuda-js/core';
import type { StridedMemoryView } from '@cuda-js/memory-view';
import { device, deviceFunctionOf, type KernelConstant } from '../device-function.js';
import { JitError, KernelArgumentError } from '../errors.js';
import { JitKernel, type JitTarget } from '../jit.js';
import type { ScalarName } from '../typing/jit-types.js';
import { broadcastShape, broadcastStrides, coalesce } from './broadcast.js';
import { reduce, type ReduceOptions, type Reducer } from './reduce.js';
import {
  isCallOptions,
  kernelFunction,
  refuseMisspeltCallOptions,
  restrided,
  sameNumbers,
  scalarArgument,
  UfuncRun,
  type ArrayOperand,
  type Operand,
  type UfuncCallOptions,
  type UfuncResult,
} from './ufunc-operands.js';
import {
  castsSameKind,
  chooseSignature,
  parseUfuncSignature,
  type UfuncSignature,
  type UfuncSignatureSpec,
} from './ufunc-signature.js';

/** Threads per block of the elementwise kernels. */
const BLOCK = 256;
/** Elements of one call, at most: the kernels index with i32. */
const MAX_ELEMENTS = 2 ** 31 - 1;

export interface VectorizeOptions {
  /** The types to compile for (numba's signature list): `['float32(float32, float32)']` or `[{ args: [f32, f32], returns: f32 }]`. Without them, the types come from each call's inputs (lazy typing). */
  readonly signatures?: readonly UfuncSignatureSpec[] | undefined;
  /** `'gpu'` (default) or `'simulator'` (as `jit`'s option; `CUDA_JS_SIMULATOR=1` makes the simulator the default). */
  readonly target?: JitTarget | undefined;
  /** The ufunc's name in messages and PTX (default: the function's name). */
  readonly name?: string | undefined;
  /** What the scalar function names besides its parameters (numbers, device functions, host arrays). */
  readonly constants?: Readonly<Record<string, KernelConstant>> | undefined;
  /** As `jit`'s options. */
  readonly fastMath?: boolean | undefined;
  readonly fma?: boolean | undefined;
}

/**
 * An elementwise function of arrays: `ufunc(a, b)`, `ufunc(a, b, { out, stream })`.
 * Inputs are numbers, bigints, booleans, typed scalars (`f32(2)`) or arrays
 * of any rank (typed arrays, StridedMemoryViews, DLPack or CUDA-array-
 * interface objects, device arrays), broadcast together as numpy does.
 */
export interface Ufunc {
  (...args: unknown[]): UfuncResult;
  readonly name: string;
  /** Inputs per call. */
  readonly nin: number;
  /** The explicit signatures, parsed (empty with lazy typing). */
  readonly signatures: readonly UfuncSignature[];
  /** The kernels made so far (one per signature and operand pattern), for `inspect` and their specializations. */
  readonly kernels: ReadonlyMap<string, JitKernel>;
  /** numba's `ufunc.reduce` for a binary ufunc: folds a 1-D array with the scalar function (see {@link reduce}). */
  reduce(input: unknown, options?: ReduceOptions & { readonly res?: undefined }): number | bigint;
}

/** How a kernel reads one operand: a scalar parameter, at the flat index, or through its strides. */
type Access = 'scalar' | 'flat' | 'strided';

/**
 * The elementwise kernel's text for one operand pattern. Parameters: the
 * element count, the merged extents after the first (`n1`, `n2`), the
 * output, then the inputs.
 */
function kernelText(
  inputs: readonly Access[],
  output: Exclude<Access, 'scalar'>,
  ndim: number,
  casts: readonly (ScalarName | undefined)[],
): string {
  const strided = ndim >= 2 && (output === 'strided' || inputs.includes('strided'));
  const index = ndim === 2 ? 'i, j' : 'i, j, k';
  const read = (access: Access, k: number): string => {
    const name = `x${k}`;
    const value = access === 'scalar' ? name : access === 'flat' || ndim < 2 ? `${name}[t]` : `${name}.get(${index})`;
    const cast = casts[k];
    return cast === undefined ? value : `${cast}(${value})`;
  };
  const params = ['n', 'n1', 'n2', 'out', ...inputs.map((_, k) => `x${k}`)];
  const lines = ['const t = cuda.grid(1);', 'if (t < n) {'];
  if (strided && ndim === 2) lines.push('const j = t % n1;', 'const i = i32((t - j) / n1);');
  if (strided && ndim === 3)
    lines.push(
      'const k = t % n2;',
      'const r = i32((t - k) / n2);',
      'const j = r % n1;',
      'const i = i32((r - j) / n1);',
    );
  const value = `op(${inputs.map(read).join(', ')})`;
  lines.push(output === 'flat' || ndim < 2 ? `out[t] = ${value};` : `out.set(${index}, ${value});`, '}');
  return `function ufunc(${params.join(', ')}) {\n${lines.join('\n')}\n}`;
}

/** The text of the kernel that only types the scalar function, for lazy typing: its local `r` has the result's type. */
function probeText(nin: number): string {
  const params = Array.from({ length: nin }, (_, k) => `x${k}`);
  return `function probe(${params.join(', ')}) {\nconst r = op(${params.join(', ')});\n}`;
}

function contiguousStrides(shape: readonly number[]): number[] {
  const strides = new Array<number>(shape.length);
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = step;
    step *= shape[d]!;
  }
  return strides;
}

/** The shape of an operand: none for a scalar. */
function shapeOf(operand: Operand): readonly number[] {
  return operand.kind === 'scalar' ? [] : operand.view.shape;
}

/**
 * Makes an elementwise ufunc of a scalar function (numba's
 * `@vectorize([...], target='cuda')`):
 *
 * ```ts
 * const axpb = vectorize(['float32(float32, float32, float32)'], (a: number, x: number, b: number) => a * x + b);
 * const y = axpb(f32(2), xs, ys);               // Float32Array in, Float32Array out
 * axpb(f32(2), dx, dy, { out: dz, stream });    // device arrays: the result stays on the device
 * const hyp = vectorize((a: number, b: number) => Math.hypot(a, b));  // lazy: typed per call's dtypes
 * ```
 *
 * The result (or the given `out`, which it returns) has the inputs'
 * broadcast shape. A new result is a DeviceArray when an input is device
 * memory or a DeviceArray (in the simulator, one over host memory), else a host array: a typed array for 1-D
 * results of a dtype that has one, otherwise a host StridedMemoryView.
 * With signatures, each input is converted to the chosen signature's
 * argument type and the result has its result type; without them the
 * scalar function is typed with the inputs' element types.
 */
// The signatures are read below with their own errors.
const VECTORIZE_OPTIONS = {
  signatures: isArray,
  target: isJitTarget,
  name: isString,
  constants: isObject,
  fastMath: isBoolean,
  fma: isBoolean,
};

export function vectorize(fn: (...args: never[]) => unknown, options?: VectorizeOptions): Ufunc;
export function vectorize(
  signatures: readonly UfuncSignatureSpec[],
  fn: (...args: never[]) => unknown,
  options?: Omit<VectorizeOptions, 'signatures'>,
): Ufunc;
export function vectorize(
  first: readonly UfuncSignatureSpec[] | ((...args: never[]) => unknown),
  second?: ((...args: never[]) => unknown) | VectorizeOptions,
  third: Omit<VectorizeOptions, 'signatures'> = {},
): Ufunc {
  const fn = typeof first === 'function' ? first : second;
  if (typeof fn !== 'function')
    throw new TypeError(`vectorize: expected a function, got ${fn === null ? 'null' : typeof fn}`);
  const checked = checkJitOptions<VectorizeOptions>(
    'vectorize()',
    typeof first === 'function' ? second : third,
    VECTORIZE_OPTIONS,
  );
  const options: VectorizeOptions = typeof first === 'function' ? checked : { ...checked, signatures: first };
  const name = options.name ?? (fn.name || 'ufunc');
  const op = device(fn, { name, constants: options.constants });
  const nin = deviceFunctionOf(op)!.parsed.params.length;
  if (nin === 0)
    throw new JitError(`vectorize: '${name}' takes no arguments; a ufunc's scalar function takes one per input`);
  const signatures = Object.freeze((options.signatures ?? []).map(parseUfuncSignature));
  if (options.signatures !== undefined && signatures.length === 0)
    throw new JitError(`vectorize: '${name}': the signature list is empty (leave it out for lazy typing)`);
  for (const s of signatures) {
    if (s.args.length !== nin)
      throw new JitError(
        `vectorize: '${name}' takes ${nin} argument(s); the signature '${s.text}' has ${s.args.length}`,
      );
    if (s.returns === undefined) throw new JitError(`vectorize: the signature '${s.text}' has no result type`);
  }
  const symbol = name.replace(/\W/g, '_');
  const jitOptions = { target: options.target, fastMath: options.fastMath, fma: options.fma, constants: { op } };
  const kernels = new Map<string, JitKernel>();
  const probe = new JitKernel(kernelFunction(probeText(nin)), { ...jitOptions, name: `${symbol}_probe` }, undefined);
  const lazyTypes = new Map<string, ScalarName>();

  const resultType = (inputs: readonly ScalarName[]): ScalarName => {
    const key = inputs.join(',');
    let t = lazyTypes.get(key);
    if (t === undefined) {
      const r = probe.inspect(inputs).types.locals['r'];
      if (r === undefined) throw new JitError(`vectorize: '${name}' gives no value for inputs of ${key}`);
      t = r as ScalarName;
      lazyTypes.set(key, t);
    }
    return t;
  };

  const kernelFor = (key: string, text: string): JitKernel => {
    let kernel = kernels.get(key);
    if (!kernel) {
      kernel = new JitKernel(kernelFunction(text), { ...jitOptions, name: `${symbol}_vectorize` }, undefined);
      kernels.set(key, kernel);
    }
    return kernel;
  };

  const call = (...args: unknown[]): UfuncResult => {
    let callOptions: UfuncCallOptions = {};
    if (args.length === nin + 1 && isCallOptions(args[nin])) callOptions = args.pop() as UfuncCallOptions;
    else if (args.length === nin + 1) refuseMisspeltCallOptions(args[nin], name);
    if (args.length !== nin)
      throw new KernelArgumentError(
        `${name} takes ${nin} input(s), ${args.length} were given (and, last, optionally { out, stream })`,
      );
    const run = new UfuncRun(name, probe.target, callOptions.stream);
    try {
      const result = apply(run, args, callOptions);
      run.finish();
      return result;
    } catch (error) {
      run.release();
      throw error;
    }
  };

  const apply = (run: UfuncRun, args: readonly unknown[], callOptions: UfuncCallOptions): UfuncResult => {
    const inputs = args.map((a, k) => run.input(a, `input ${k + 1}`));
    const chosen = signatures.length === 0 ? -1 : chooseSignature(name, signatures, inputs);
    const signature = chosen >= 0 ? signatures[chosen] : undefined;
    const shape = broadcastShape(inputs.map(shapeOf), name);
    const size = shape.reduce((a, b) => a * b, 1);
    if (size > MAX_ELEMENTS) throw new KernelArgumentError(`${name}: ${size} elements; a call takes at most 2^31 - 1`);
    let out: ArrayOperand;
    let result: UfuncResult;
    if (callOptions.out !== undefined) {
      out = run.output(callOptions.out, 'out');
      if (!sameNumbers(out.view.shape, shape))
        throw new KernelArgumentError(
          `${name}: out has shape [${out.view.shape.join(', ')}]; the inputs broadcast to [${shape.join(', ')}]`,
        );
      const produced = signature ? signature.returns! : resultType(inputs.map((op) => op.dtype));
      if (!castsSameKind(produced, out.dtype)) {
        throw new KernelArgumentError(
          `${name}: out holds ${out.dtype}, and the ${signature ? `signature '${signature.text}'` : 'function'} gives ${produced}, which numpy does not cast to ${out.dtype} ('same_kind'); pass an out of ${produced}`,
        );
      }
      result = callOptions.out as UfuncResult;
    } else {
      const dtype = signature ? signature.returns! : resultType(inputs.map((op) => op.dtype));
      ({ operand: out, result } = run.allocate(
        shape,
        dtype,
        inputs.some((op) => op.kind === 'array' && op.onDevice),
      ));
    }
    if (size === 0) return result;
    // the loop nest over the result, merged to as few dimensions as every operand allows
    const arrays: ArrayOperand[] = [out, ...inputs.filter((op): op is ArrayOperand => op.kind === 'array')];
    const nest = coalesce({ shape, strides: arrays.map((a) => broadcastStrides(a.view.shape, a.view.strides, shape)) });
    if (nest.shape.length > 3) {
      throw new KernelArgumentError(
        `${name}: the operands' layouts leave ${nest.shape.length} dimensions that cannot be merged; ufuncs take at most 3 (copy an input to a compact array)`,
      );
    }
    const flat = contiguousStrides(nest.shape);
    const viewsOf = new Map<ArrayOperand, { access: 'flat' | 'strided'; view: StridedMemoryView }>();
    arrays.forEach((a, k) => {
      const strides = nest.strides[k]!;
      const compact = sameNumbers(strides, flat);
      viewsOf.set(
        a,
        compact
          ? { access: 'flat', view: restrided(a.view, [size], [1]) }
          : {
              access: 'strided',
              view: restrided(
                a.view,
                nest.shape.length === 0 ? [1] : nest.shape,
                nest.shape.length === 0 ? [0] : strides,
              ),
            },
      );
    });
    const outRead = viewsOf.get(out)!;
    const access = inputs.map((op) => (op.kind === 'scalar' ? 'scalar' : viewsOf.get(op)!.access));
    const casts = inputs.map((_, k) => signature?.args[k]);
    const ndim = nest.shape.length;
    const key = `${chosen}|${access.join(',')}|${outRead.access}|${ndim}`;
    const kernel = kernelFor(key, kernelText(access, outRead.access, ndim, casts));
    const kernelArgs = inputs.map((op, k) =>
      op.kind === 'scalar' ? scalarArgument(op, casts[k], `${name}: input ${k + 1}`) : viewsOf.get(op)!.view,
    );
    const n1 = ndim >= 2 ? nest.shape[1]! : 1;
    const n2 = ndim >= 3 ? nest.shape[2]! : 1;
    kernel.launch(
      { grid: Math.ceil(size / BLOCK), block: BLOCK, stream: callOptions.stream },
      i32(size),
      i32(n1),
      i32(n2),
      outRead.view,
      ...kernelArgs,
    );
    return result;
  };

  let reducer: Reducer | undefined;
  const ufunc = Object.assign(call, {
    nin,
    signatures,
    kernels: kernels as ReadonlyMap<string, JitKernel>,
    reduce(input: unknown, reduceOptions?: ReduceOptions & { readonly res?: undefined }): number | bigint {
      if (nin !== 2) throw new JitError(`${name}.reduce: only a binary ufunc reduces; '${name}' takes ${nin} input(s)`);
      reducer ??= reduce(fn as (a: number, b: number) => number, { target: options.target, name });
      return reducer(input, reduceOptions);
    },
  });
  Object.defineProperty(ufunc, 'name', { value: name });
  return ufunc as Ufunc;
}
