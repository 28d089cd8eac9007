// Generalized ufuncs (numba's `@guvectorize([sig], '(n),()->(n)',
// target='cuda')`): a JS function over the core dimensions of its array
// arguments (a scalar loop) becomes a device function, called once per
// element of the loop dimensions by a kernel generated in the kernel
// language: one thread per loop element, each given views of its operands'
// core dimensions (`x.row(t)`), its scalars as values, and its outputs as
// views to write. The loop dimensions broadcast as a ufunc's shapes do
// (broadcast.ts), merged to one; the call's operands are vectorize's
// (ufunc-operands.ts: host, view and device-array inputs, `out`, stream).
import { isBoolean, isString } from '@cuda-js/options';
import { i32 } from '@cuda-js/core';
import type { StridedMemoryView } from '@cuda-js/memory-view';
import { device, deviceFunctionOf, type KernelConstant } from '../device-function.js';
import { JitError, KernelArgumentError } from '../errors.js';
import { checkJitOptions, isJitTarget, isObject } from '../jit-options.js';
import { JitKernel, type JitTarget } from '../jit.js';
import type { ScalarName } from '../typing/jit-types.js';
import { broadcastShape, broadcastStrides, coalesce } from './broadcast.js';
import { coreExtents, parseGufuncLayout, type GufuncLayout } from './gufunc-layout.js';
import {
  isCallOptions,
  kernelFunction,
  refuseMisspeltCallOptions,
  restrided,
  scalarArgument,
  UfuncRun,
  type ArrayOperand,
  type Operand,
  type UfuncCallOptions,
  type UfuncResult,
} from './ufunc-operands.js';
import {
  chooseSignature,
  parseUfuncSignature,
  type UfuncSignature,
  type UfuncSignatureSpec,
} from './ufunc-signature.js';

/** Threads per block of the generalized ufunc kernels (each thread runs the function's whole loop). */
const BLOCK = 128;
/** Loop elements of one call, at most: the kernels index with i32. */
const MAX_ELEMENTS = 2 ** 31 - 1;

export interface GuvectorizeOptions {
  /** `'gpu'` (default) or `'simulator'` (as `jit`'s option; `CUDA_JS_SIMULATOR=1` makes the simulator the default). */
  readonly target?: JitTarget | undefined;
  /** The gufunc's name in messages and PTX (default: the function's name). */
  readonly name?: string | undefined;
  /** What the function names besides its parameters (numbers, device functions, host arrays). */
  readonly constants?: Readonly<Record<string, KernelConstant>> | undefined;
  /** As `jit`'s options. */
  readonly fastMath?: boolean | undefined;
  readonly fma?: boolean | undefined;
}

/**
 * A generalized ufunc: `g(...inputs)`, `g(...inputs, { out, stream })` or
 * numba's `g(...inputs, ...outputs)`. It gives its output (several: an
 * array of them), allocated as vectorize's results are, or the `out` given.
 */
export interface Gufunc {
  (...args: unknown[]): UfuncResult | UfuncResult[];
  readonly name: string;
  /** Inputs per call. */
  readonly nin: number;
  /** Outputs per call (the function's last parameters). */
  readonly nout: number;
  readonly layout: GufuncLayout;
  readonly signatures: readonly UfuncSignature[];
  /** The kernels made so far (one per signature and operand pattern). */
  readonly kernels: ReadonlyMap<string, JitKernel>;
}

/** How the kernel hands one operand to the function. */
type Pass = 'value' | 'element' | 'cell' | 'core';

const GUVECTORIZE_OPTIONS = {
  target: isJitTarget,
  name: isString,
  constants: isObject,
  fastMath: isBoolean,
  fma: isBoolean,
};

/** The kernel's text: parameters `n` (loop elements), the inputs `x0...`, the outputs `y0...`; thread `t` calls `op` on element `t` of the loop. */
function kernelText(
  inputs: readonly Pass[],
  outputs: readonly Pass[],
  casts: readonly (ScalarName | undefined)[],
): string {
  const pass = (p: Pass, name: string, cast: ScalarName | undefined): string => {
    if (p === 'value') return name;
    if (p === 'element') return cast === undefined ? `${name}[t]` : `${cast}(${name}[t])`;
    if (p === 'cell') return `${name}.subarray(t, t + 1)`;
    return `${name}.row(t)`;
  };
  const xs = inputs.map((_, k) => `x${k}`);
  const ys = outputs.map((_, k) => `y${k}`);
  const args = [
    ...inputs.map((p, k) => pass(p, xs[k]!, casts[k])),
    ...outputs.map((p, k) => pass(p, ys[k]!, undefined)),
  ];
  return `function gufunc(${['n', ...xs, ...ys].join(', ')}) {\nconst t = cuda.grid(1);\nif (t < n) {\nop(${args.join(', ')});\n}\n}`;
}

/**
 * Makes a generalized ufunc of a function over arrays (numba's
 * `@guvectorize([...], layout, target='cuda')`):
 *
 * ```ts
 * const addScalar = guvectorize(['void(float32[:], float32, float32[:])'], '(n),()->(n)', (x: Float32Array, y: number, res: Float32Array) => {
 *   for (let i = 0; i < x.length; i++) res[i] = x[i]! + y;
 * });
 * const r = addScalar(matrix, f32(2));          // each row of a [m, n] view, one thread per row: an [m, n] result
 * addScalar(dx, f32(2), { out: dr, stream });   // device arrays, on a stream
 * ```
 *
 * The layout names the core dimensions of each input and output; an
 * operand's dimensions before its core ones are loop dimensions, which
 * broadcast across the operands as numpy's do. An input with no core
 * dimensions (`()`) is a scalar (a number, a typed scalar, or an array
 * read element by element) where its signature type is a scalar, else a
 * one-element array; an output with none is a one-element array the
 * function writes at 0 (numba's `res[0] = ...`). An output's core
 * dimensions take their extents from the inputs. Array inputs with core
 * dimensions are passed as views: their dtype is the signature's.
 */
export function guvectorize(
  signatures: readonly UfuncSignatureSpec[],
  layout: string,
  fn: (...args: never[]) => unknown,
  given: GuvectorizeOptions = {},
): Gufunc {
  if (typeof fn !== 'function')
    throw new TypeError(`guvectorize: expected a function, got ${fn === null ? 'null' : typeof fn}`);
  const options = checkJitOptions<GuvectorizeOptions>('guvectorize()', given, GUVECTORIZE_OPTIONS);
  const name = options.name ?? (fn.name || 'gufunc');
  const parsedLayout = parseGufuncLayout(layout);
  const nin = parsedLayout.inputs.length;
  const nout = parsedLayout.outputs.length;
  const op = device(fn, { name, constants: options.constants });
  const nparams = deviceFunctionOf(op)!.parsed.params.length;
  if (nparams !== nin + nout)
    throw new JitError(
      `guvectorize: '${name}' takes ${nparams} argument(s); the layout '${layout}' has ${nin} input(s) and ${nout} output(s)`,
    );
  if (!Array.isArray(signatures) || signatures.length === 0)
    throw new JitError(
      `guvectorize: '${name}' needs its signatures ('void(float32[:], float32, float32[:])'), as numba's for the GPU`,
    );
  const parsed = Object.freeze(signatures.map(parseUfuncSignature));
  for (const [index, s] of parsed.entries()) {
    const text = typeof signatures[index] === 'string';
    if (s.args.length !== nin + nout)
      throw new JitError(
        `guvectorize: the signature '${s.text}' has ${s.args.length} argument(s); the layout '${layout}' has ${nin + nout}`,
      );
    if (s.returns !== undefined)
      throw new JitError(
        `guvectorize: the signature '${s.text}' has a result type; a gufunc writes its outputs, write 'void(...)'`,
      );
    s.ranks.forEach((rank, k) => {
      const core = (k < nin ? parsedLayout.inputs[k] : parsedLayout.outputs[k - nin])!.length;
      if (rank !== undefined && rank !== core && !(core === 0 && rank === 1)) {
        throw new JitError(
          `guvectorize: argument ${k + 1} of '${s.text}' has ${rank} dimension(s); the layout '${layout}' gives it ${core} core dimension(s)`,
        );
      }
      // numba's text says the rank: a scalar type where the layout gives core dimensions (or for an output) is not an array
      if (text && rank === undefined && (core > 0 || k >= nin)) {
        throw new JitError(
          `guvectorize: ${k < nin ? `input ${k + 1}` : `output ${k - nin + 1}`} of '${s.text}' is a scalar type; ${k < nin ? `the layout gives it ${core} core dimension(s)` : 'outputs are arrays'}: write float32[${Array.from({ length: Math.max(core, 1) }, () => ':').join(', ')}]`,
        );
      }
    });
  }
  const symbol = name.replace(/\W/g, '_');
  const jitOptions = {
    target: options.target,
    fastMath: options.fastMath,
    fma: options.fma,
    constants: { op },
    name: `${symbol}_guvectorize`,
  };
  const kernels = new Map<string, JitKernel>();
  const kernelFor = (key: string, text: string): JitKernel => {
    let kernel = kernels.get(key);
    if (!kernel) {
      kernel = new JitKernel(kernelFunction(text), jitOptions, undefined);
      kernels.set(key, kernel);
    }
    return kernel;
  };
  const target = new JitKernel(kernelFunction('function probe() {}'), jitOptions, undefined).target;

  const call = (...args: unknown[]): UfuncResult | UfuncResult[] => {
    let callOptions: UfuncCallOptions = {};
    if (args.length === nin + 1 && isCallOptions(args[nin])) callOptions = args.pop() as UfuncCallOptions;
    else {
      if (args.length === nin + 1) refuseMisspeltCallOptions(args[nin], name);
      if (args.length === nin + nout) callOptions = { out: nout === 1 ? args[nin] : args.slice(nin) };
    }
    if (args.length === nin + nout) args = args.slice(0, nin);
    if (args.length !== nin)
      throw new KernelArgumentError(
        `${name} takes ${nin} input(s), ${args.length} were given (then its ${nout} output(s), or { out, stream })`,
      );
    const run = new UfuncRun(name, target, callOptions.stream);
    try {
      const result = apply(run, args, callOptions);
      run.finish();
      return result;
    } catch (error) {
      run.release();
      throw error;
    }
  };

  const apply = (
    run: UfuncRun,
    args: readonly unknown[],
    callOptions: UfuncCallOptions,
  ): UfuncResult | UfuncResult[] => {
    const inputs = args.map((a, k) => run.input(a, `input ${k + 1}`, parsedLayout.inputs[k]!.length === 0));
    const chosen = chooseSignature(name, parsed, inputs);
    const signature = parsed[chosen]!;
    // each operand's loop and core dimensions
    const loops: (readonly number[])[] = [];
    const inputCores = inputs.map((operand, k) => {
      const core = parsedLayout.inputs[k]!.length;
      if (operand.kind === 'scalar') {
        if (core > 0)
          throw new KernelArgumentError(
            `${name}: input ${k + 1} is a scalar; the layout '${layout}' gives it ${core} core dimension(s) (pass an array)`,
          );
        return undefined;
      }
      const shape = operand.view.shape;
      if (shape.length < core)
        throw new KernelArgumentError(
          `${name}: input ${k + 1} has ${shape.length} dimension(s); the layout '${layout}' gives it ${core} core dimension(s)`,
        );
      if (core > 0 && operand.dtype !== signature.args[k]) {
        throw new KernelArgumentError(
          `${name}: input ${k + 1} holds ${operand.dtype}; the signature '${signature.text}' takes ${signature.args[k]} (arrays with core dimensions are passed as they are: convert it)`,
        );
      }
      loops.push(shape.slice(0, shape.length - core));
      return shape.slice(shape.length - core);
    });
    const extents = coreExtents(parsedLayout, inputCores, name);
    const loopShape = broadcastShape(loops, name);
    const size = loopShape.reduce((a, b) => a * b, 1);
    if (size > MAX_ELEMENTS)
      throw new KernelArgumentError(`${name}: ${size} loop elements; a call takes at most 2^31 - 1`);
    const onDevice = inputs.some((op) => op.kind === 'array' && op.onDevice);
    const outs: unknown[] | undefined =
      callOptions.out === undefined ? undefined : nout === 1 ? [callOptions.out] : (callOptions.out as unknown[]);
    if (outs !== undefined && (!Array.isArray(outs) || outs.length !== nout))
      throw new KernelArgumentError(`${name}: out is an array of its ${nout} outputs`);
    const outputs: ArrayOperand[] = [];
    const results: UfuncResult[] = [];
    parsedLayout.outputs.forEach((names, j) => {
      const core = names.map((n) => {
        const extent = extents.get(n);
        if (extent === undefined)
          throw new KernelArgumentError(
            `${name}: no input gives the extent of output ${j + 1}'s dimension '${n}' (layout '${layout}')`,
          );
        return extent;
      });
      const shape = [...loopShape, ...core];
      const dtype = signature.args[nin + j]!;
      if (outs !== undefined) {
        const out = run.output(outs[j], nout === 1 ? 'out' : `out[${j}]`, names.length === 0);
        if (out.view.shape.length !== shape.length || !out.view.shape.every((e, d) => e === shape[d])) {
          throw new KernelArgumentError(
            `${name}: ${nout === 1 ? 'out' : `out[${j}]`} has shape [${out.view.shape.join(', ')}]; the inputs give [${shape.join(', ')}]`,
          );
        }
        if (out.dtype !== dtype)
          throw new KernelArgumentError(
            `${name}: ${nout === 1 ? 'out' : `out[${j}]`} holds ${out.dtype}; the signature '${signature.text}' writes ${dtype}`,
          );
        outputs.push(out);
        results.push(outs[j] as UfuncResult);
      } else {
        const { operand, result } = run.allocate(shape, dtype, onDevice);
        outputs.push(operand);
        results.push(result);
      }
    });
    const given = nout === 1 ? results[0]! : results;
    if (size === 0) return given;
    // the loop dimensions, merged to one for every array operand
    const arrays: { operand: ArrayOperand; core: number }[] = [
      ...inputs.flatMap((operand, k) =>
        operand.kind === 'array' ? [{ operand, core: parsedLayout.inputs[k]!.length }] : [],
      ),
      ...outputs.map((operand, j) => ({ operand, core: parsedLayout.outputs[j]!.length })),
    ];
    const nest = coalesce({
      shape: loopShape,
      strides: arrays.map(({ operand, core }) => {
        const r = operand.view.shape.length - core;
        return broadcastStrides(operand.view.shape.slice(0, r), operand.view.strides.slice(0, r), loopShape);
      }),
    });
    if (nest.shape.length > 1) {
      throw new KernelArgumentError(
        `${name}: the operands' loop dimensions [${loopShape.join(', ')}] cannot be walked as one (their layouts differ); copy an input to a compact array`,
      );
    }
    const views = new Map<ArrayOperand, StridedMemoryView>();
    arrays.forEach(({ operand, core }, k) => {
      const v = operand.view;
      const r = v.shape.length - core;
      const loopStride = nest.shape.length === 0 ? 0 : nest.strides[k]![0]!;
      views.set(operand, restrided(v, [size, ...v.shape.slice(r)], [loopStride, ...v.strides.slice(r)]));
    });
    const passes: Pass[] = inputs.map((operand, k) => {
      if (operand.kind === 'scalar') return 'value';
      if (parsedLayout.inputs[k]!.length > 0) return 'core';
      return (signature.ranks[k] ?? 0) > 0 ? 'cell' : 'element';
    });
    const outputPasses: Pass[] = parsedLayout.outputs.map((names) => (names.length > 0 ? 'core' : 'cell'));
    const casts = inputs.map((operand, k) =>
      passes[k] === 'element' && operand.dtype !== signature.args[k] ? signature.args[k] : undefined,
    );
    const key = `${chosen}|${passes.join(',')}|${casts.join(',')}`;
    const kernel = kernelFor(key, kernelText(passes, outputPasses, casts));
    const kernelInputs = inputs.map((operand: Operand, k) =>
      operand.kind === 'scalar'
        ? scalarArgument(operand, signature.args[k], `${name}: input ${k + 1}`)
        : views.get(operand)!,
    );
    kernel.launch(
      { grid: Math.ceil(size / BLOCK), block: BLOCK, stream: callOptions.stream },
      i32(size),
      ...kernelInputs,
      ...outputs.map((o) => views.get(o)!),
    );
    return given;
  };

  const gufunc = Object.assign(call, {
    nin,
    nout,
    layout: parsedLayout,
    signatures: parsed,
    kernels: kernels as ReadonlyMap<string, JitKernel>,
  });
  Object.defineProperty(gufunc, 'name', { value: name });
  return gufunc as Gufunc;
}
