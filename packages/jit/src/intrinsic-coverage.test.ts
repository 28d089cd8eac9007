// The stage contract of the intrinsics: every member of the `cuda` object
// that kernels call or read has a typing rule (typing/cuda-calls.ts, the casts
// and the special registers of typing/intrinsics.ts), and a kernel that uses
// it types, lowers to NVVM IR and becomes simulator code. A new `cuda.*` stub
// without a rule, a lowering or a simulator form fails here, with its name.
// The samples are kernel text (parsed as jit parses a function's text), one
// per member; the first test checks that the samples name exactly the
// members of `cuda`, so that a stub added without a sample fails too.
// The intrinsic tables (intrinsics/): every row of every table declares a
// member of `cuda`, with a typing rule, an NVVM form and a simulator form for
// each type it takes; every member of `cuda` is a row, or one of the
// intrinsics listed below that have no table (yet).
import { describe, expect, it } from 'vitest';
import { cuda } from './cuda.js';
import { lowerKernel } from './lower/lower-kernel.js';
import { parseKernel } from './parse/parse-kernel.js';
import { SimulatedKernel } from './simulate/simulated-kernel.js';
import { CUDA_CALLS } from './typing/cuda-calls.js';
import { CUDA_DIMENSIONS, CUDA_SCALARS, isCudaCast } from './typing/intrinsics.js';
import type { SourceLocator } from './errors.js';
import type { JitType, ScalarName } from './typing/jit-types.js';
import { array } from './typing/signature.js';
import { typeKernel } from './typing/type-kernel.js';
import { MATH_FUNCTIONS, type TypedKernel } from './typing/typed-ir.js';
import { INTRINSIC_ENTRIES, type IntrinsicEntry } from './intrinsics/tables.js';
import { isAsmForm, type NvvmForm, type SimulatorForm, simulatorText } from './intrinsics/forms.js';
import type { AtomicRow } from './intrinsics/atomics.js';
import type { BitRow } from './intrinsics/bits.js';
import { fp16Arity, type Fp16Row } from './intrinsics/fp16.js';
import type { CudaMathRow } from './intrinsics/math.js';
import { MMA_FUNCTIONS, type MmaRow, mmaRow } from './intrinsics/mma.js';
import type { WarpMatchRow } from './intrinsics/warp-matches.js';
import type { WarpShuffleRow } from './intrinsics/warp-shuffles.js';

/** Each member of `cuda`: `call` for functions (`atomic.add`), `read` for values (`threadIdx.x`, `laneid`). */
function members(object: object, prefix = ''): { readonly path: string; readonly kind: 'call' | 'read' }[] {
  return Object.entries(Object.getOwnPropertyDescriptors(object)).flatMap(([key, d]) => {
    const path = `${prefix}${key}`;
    if (d.get) return [{ path, kind: 'read' as const }];
    if (typeof d.value === 'function') return [{ path, kind: 'call' as const }];
    if (d.value !== null && typeof d.value === 'object') return members(d.value as object, `${path}.`);
    throw new Error(`cuda.${path} is neither a function, an object nor a getter`);
  });
}

/** Whether the typer has a rule for the member. */
function hasTypingRule(path: string, kind: 'call' | 'read'): boolean {
  if (kind === 'read') {
    const [head, axis] = path.split('.');
    return axis === undefined
      ? Object.hasOwn(CUDA_SCALARS, head!)
      : Object.hasOwn(CUDA_DIMENSIONS, head!) && ['x', 'y', 'z'].includes(axis);
  }
  return (
    Object.hasOwn(CUDA_CALLS, path) ||
    isCudaCast(path) ||
    (path === 'cg.thisGrid' && Object.hasOwn(CUDA_CALLS, 'cg.thisGrid().sync'))
  );
}

interface Sample {
  /** The kernel's body; its parameters are `o` (the output array) and `n` (an i32). */
  readonly body: string;
  /** The output array's dtype (default f64). */
  readonly dtype?: ScalarName;
  /** A cooperative kernel (cuda.cg.thisGrid().sync()). */
  readonly grid?: boolean;
}

const binaryFp16 = ['hadd', 'hsub', 'hmul', 'hdiv', 'hmax', 'hmin'];
const compareFp16 = ['heq', 'hne', 'hgt', 'hge', 'hlt', 'hle'];
const unaryFp16 = [
  'hneg',
  'habs',
  'hsin',
  'hcos',
  'hlog',
  'hlog2',
  'hlog10',
  'hexp',
  'hexp2',
  'hexp10',
  'hsqrt',
  'hrsqrt',
  'hceil',
  'hfloor',
  'hrcp',
  'htrunc',
];
const atomics = ['add', 'sub', 'min', 'max', 'nanmin', 'nanmax', 'and', 'or', 'xor', 'exch', 'inc', 'dec'];
const casts = ['f64', 'f32', 'f16', 'bf16', 'i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'bool'];

const SAMPLES: Readonly<Record<string, Sample>> = {
  grid: { body: 'o[cuda.grid(1)] = 1;' },
  gridsize: { body: 'o[0] = cuda.gridsize(1);' },
  ...Object.fromEntries(
    ['threadIdx', 'blockIdx', 'blockDim', 'gridDim'].flatMap((d) =>
      ['x', 'y', 'z'].map((a) => [`${d}.${a}`, { body: `o[0] = cuda.${d}.${a};` }]),
    ),
  ),
  laneid: { body: 'o[0] = cuda.laneid;' },
  warpsize: { body: 'o[0] = cuda.warpsize;' },
  fma: { body: 'o[0] = cuda.fma(o[1], o[2], o[3]);' },
  'shared.array': { body: 'const s = cuda.shared.array(32, f64); s[0] = o[1]; cuda.syncthreads(); o[0] = s[0];' },
  'local.array': { body: 'const s = cuda.local.array(4, f64); s[n % 4] = o[1]; o[0] = s[0];' },
  'const.arrayLike': { body: 'const t = cuda.const.arrayLike(TABLE); o[0] = t[n % 3];' },
  'cg.thisGrid': { body: 'o[cuda.grid(1)] = 1; cuda.cg.thisGrid().sync(); o[0] = o[1];', grid: true },
  ...Object.fromEntries(
    binaryFp16.map((f) => [`fp16.${f}`, { body: `o[0] = cuda.fp16.${f}(o[1], o[2]);`, dtype: 'f16' }]),
  ),
  ...Object.fromEntries(
    compareFp16.map((f) => [`fp16.${f}`, { body: `if (cuda.fp16.${f}(o[1], o[2])) o[0] = o[1];`, dtype: 'f16' }]),
  ),
  ...Object.fromEntries(unaryFp16.map((f) => [`fp16.${f}`, { body: `o[0] = cuda.fp16.${f}(o[1]);`, dtype: 'f16' }])),
  'fp16.hfma': { body: 'o[0] = cuda.fp16.hfma(o[1], o[2], o[3]);', dtype: 'f16' },
  ...Object.fromEntries(
    atomics.map((f) => [`atomic.${f}`, { body: `o[1] = cuda.atomic.${f}(o, 0, u32(n));`, dtype: 'u32' }]),
  ),
  'atomic.cas': { body: 'o[1] = cuda.atomic.cas(o, 0, u32(n), u32(1));', dtype: 'u32' },
  syncthreads: { body: 'o[0] = 1; cuda.syncthreads();' },
  syncthreads_count: { body: 'o[0] = cuda.syncthreads_count(n > 0);' },
  syncthreads_and: { body: 'if (cuda.syncthreads_and(n > 0)) o[0] = 1;' },
  syncthreads_or: { body: 'if (cuda.syncthreads_or(n > 0)) o[0] = 1;' },
  syncwarp: { body: 'o[0] = 1; cuda.syncwarp();' },
  threadfence: { body: 'o[0] = 1; cuda.threadfence();' },
  threadfence_block: { body: 'o[0] = 1; cuda.threadfence_block();' },
  threadfence_system: { body: 'o[0] = 1; cuda.threadfence_system();' },
  shfl_sync: { body: 'o[0] = cuda.shfl_sync(0xffffffff, o[1], 0);' },
  shfl_up_sync: { body: 'o[0] = cuda.shfl_up_sync(0xffffffff, o[1], 1);' },
  shfl_down_sync: { body: 'o[0] = cuda.shfl_down_sync(0xffffffff, o[1], 1);' },
  shfl_xor_sync: { body: 'o[0] = cuda.shfl_xor_sync(0xffffffff, o[1], 1);' },
  all_sync: { body: 'if (cuda.all_sync(0xffffffff, n > 0)) o[0] = 1;' },
  any_sync: { body: 'if (cuda.any_sync(0xffffffff, n > 0)) o[0] = 1;' },
  eq_sync: { body: 'if (cuda.eq_sync(0xffffffff, n > 0)) o[0] = 1;' },
  ballot_sync: { body: 'o[0] = cuda.ballot_sync(0xffffffff, n > 0);' },
  match_any_sync: { body: 'o[0] = cuda.match_any_sync(0xffffffff, n);' },
  match_all_sync: { body: 'o[0] = cuda.match_all_sync(0xffffffff, n);' },
  activemask: { body: 'o[0] = cuda.activemask();' },
  pack_bf16x2: { body: 'o[0] = cuda.pack_bf16x2(o[1], n);' },
  pack_f16x2: { body: 'o[0] = cuda.pack_f16x2(o[1], n);' },
  ...Object.fromEntries(
    Object.keys(MMA_FUNCTIONS).map((name) => [
      `mma.${name}`,
      {
        body:
          'const a = cuda.local.array(4, u32); const b = cuda.local.array(2, u32); const c = cuda.local.array(4, f32); const d = cuda.local.array(4, f32); ' +
          `for (let i = 0; i < 4; i++) c[i] = n; cuda.mma.${name}(d, a, b, c); o[0] = d[0];`,
      },
    ]),
  ),
  ...Object.fromEntries(
    ['lt', 'le', 'eq', 'ge', 'gt'].map((m) => [`lanemask_${m}`, { body: `o[0] = cuda.lanemask_${m}();` }]),
  ),
  globaltimer: { body: 'o[0] = cuda.globaltimer();', dtype: 'u64' },
  clock64: { body: 'o[0] = cuda.clock64();', dtype: 'u64' },
  popc: { body: 'o[0] = cuda.popc(n);' },
  clz: { body: 'o[0] = cuda.clz(n);' },
  ffs: { body: 'o[0] = cuda.ffs(n);' },
  brev: { body: 'o[0] = cuda.brev(n);' },
  cbrt: { body: 'o[0] = cuda.cbrt(o[1]);' },
  selp: { body: 'o[0] = cuda.selp(n > 0, o[1], o[2]);' },
  nanosleep: { body: 'cuda.nanosleep(100); o[0] = 1;' },
  printf: { body: "cuda.printf('%d %f\\n', n, o[1]);" },
  ...Object.fromEntries(casts.map((t) => [t, { body: `o[0] = cuda.${t}(o[1]);` }])),
  i64: { body: 'o[0] = cuda.i64(n);', dtype: 'i64' },
  u64: { body: 'o[0] = cuda.u64(n);', dtype: 'u64' },
};

const ALL = members(cuda);

/** The sample's kernel, typed for (o: array of its dtype, n: i32). */
function typedSample(path: string, sample: Sample): { readonly typed: TypedKernel; readonly locator: SourceLocator } {
  // a function made from text, as jit sees a kernel (its text, parsed); `cuda` and `f64` are intrinsic names there
  const fn = new Function('o', 'n', sample.body) as (...args: never[]) => unknown;
  const parsed = parseKernel(fn, undefined);
  const signature: JitType[] = [array(sample.dtype ?? 'f64', 1), 'i32'];
  const symbol = `k_${path.replace(/\W/g, '_')}`;
  const constants = path === 'const.arrayLike' ? { TABLE: Float64Array.of(1, 2, 3) } : undefined;
  return { typed: typeKernel(parsed, signature, { symbol, constants }), locator: parsed.locator };
}

describe('every intrinsic of the cuda object', () => {
  it('has a sample kernel here (and every sample names a member of cuda)', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(ALL.map((m) => m.path).sort());
  });

  it.each(ALL)('cuda.$path has a typing rule', ({ path, kind }) => {
    expect(hasTypingRule(path, kind), `no typing rule for cuda.${path}`).toBe(true);
  });

  it.each(ALL)('cuda.$path types, lowers to NVVM IR and has a simulator form', ({ path }) => {
    const sample = SAMPLES[path];
    if (!sample) throw new Error(`no sample kernel for cuda.${path}`);
    const { typed, locator } = typedSample(path, sample);
    expect(typed.collectives.grid).toBe(sample.grid === true);
    const ir = lowerKernel(typed);
    expect(ir).toContain(`define void @${typed.symbol}(`);
    expect(new SimulatedKernel(typed, locator).source.length).toBeGreaterThan(0);
  });
});

/**
 * The members of `cuda` that no table declares: the structural ones (the
 * thread's position, memories, barriers, cooperative groups, casts, printf:
 * nodes of their own with exhaustive switches), and those whose family has no
 * table yet (selp, nanosleep).
 */
const WITHOUT_TABLE: ReadonlySet<string> = new Set([
  'grid',
  'gridsize',
  ...['threadIdx', 'blockIdx', 'blockDim', 'gridDim'].flatMap((d) => ['x', 'y', 'z'].map((a) => `${d}.${a}`)),
  'laneid',
  'warpsize',
  'shared.array',
  'local.array',
  'const.arrayLike',
  'cg.thisGrid',
  'syncthreads',
  'syncthreads_count',
  'syncthreads_and',
  'syncthreads_or',
  'syncwarp',
  'printf',
  ...casts,
  'i64',
  'u64',
  // families not yet in tables
  'selp',
  'nanosleep',
]);

/** Whether `form` is an NVVM form with something in it. */
function isNvvmForm(form: unknown): form is NvvmForm {
  if (form === null || typeof form !== 'object') return false;
  const f = form as NvvmForm;
  return isAsmForm(f)
    ? typeof f.ptx === 'string' && f.ptx !== '' && typeof f.constraints === 'string'
    : Array.isArray(f.llvm) && f.llvm.length > 0;
}

/** The types a row must have forms for (its argument or element types; none for rows that take no operand). */
function typesOf(entry: IntrinsicEntry): readonly string[] {
  if (entry.table === 'atomics') return (entry.row as unknown as AtomicRow).types;
  if (entry.table === 'bits') return (entry.row as unknown as BitRow).argTypes;
  return [];
}

describe('the intrinsic tables', () => {
  it('declare each path once, each a member of cuda with a sample', () => {
    const paths = INTRINSIC_ENTRIES.map((e) => e.path);
    expect(new Set(paths).size).toBe(paths.length);
    const members = new Set(ALL.map((m) => m.path));
    expect(paths.filter((p) => !members.has(p) || !SAMPLES[p])).toEqual([]);
  });

  it('leave no member of cuda without a row, except the structural ones and the families listed without a table', () => {
    const rows = new Set(INTRINSIC_ENTRIES.map((e) => e.path));
    expect(ALL.map((m) => m.path).filter((p) => !rows.has(p) && !WITHOUT_TABLE.has(p))).toEqual([]);
    expect([...WITHOUT_TABLE].filter((p) => rows.has(p))).toEqual([]);
  });

  it.each(INTRINSIC_ENTRIES)(
    '$table: cuda.$path has a typing rule, an NVVM form and a simulator form for each type it takes',
    (entry) => {
      expect(Object.hasOwn(CUDA_CALLS, entry.path), `no typing rule for cuda.${entry.path}`).toBe(true);
      const row = entry.row;
      expect(typeof row.numba === 'string' || row.numba === undefined).toBe(true);
      if (entry.table === 'atomics') {
        const atomic = row as unknown as AtomicRow;
        for (const type of atomic.types) {
          const formula = atomic.update.nvvm.find((f) => f.types === undefined || f.types.includes(type as never));
          expect(formula, `${entry.path} has no formula for ${type}`).toBeDefined();
          expect(
            simulatorText(atomic.update.simulator, type as never),
            `${entry.path} has no simulator formula for ${type}`,
          ).toBeDefined();
        }
        for (const form of atomic.nvvm) expect(isNvvmForm(form), `${entry.path}: ${JSON.stringify(form)}`).toBe(true);
        return;
      }
      if (entry.table === 'warp matches') {
        const match = row as unknown as WarpMatchRow;
        for (const type of ['i32', 'u32', 'i64', 'u64', 'f32', 'f64'])
          expect(
            match.nvvm.find((f) => f.types.includes(type as never)),
            `${entry.path} on ${type}`,
          ).toBeDefined();
        for (const form of match.nvvm) expect(isNvvmForm(form)).toBe(true);
        expect(typeof match.simulator).toBe('string');
        return;
      }
      if (entry.table === 'warp shuffles') {
        // PTX's shfl.sync in its mode, else the source lane's LLVM; the scheduler's source lane
        const shuffle = row as unknown as WarpShuffleRow;
        expect(['idx', 'up', 'down', 'bfly']).toContain(shuffle.ptx);
        expect(shuffle.direct === 'always' || typeof shuffle.source.llvm === 'string').toBe(true);
        expect(typeof shuffle.source.simulator).toBe('string');
        return;
      }
      if (entry.table === 'mma') {
        // inline PTX with four f32 outputs; the simulator runs the row's shape by its fragment layout (simulate/mma-simulator.ts)
        const mma = row as unknown as MmaRow;
        expect(isNvvmForm(mma.nvvm)).toBe(true);
        expect(mma.nvvm.ptx).toContain(mma.instruction);
        expect(mmaRow(mma.shape)).toBe(mma);
        expect([mma.m, mma.n, mma.k]).toEqual([16, 8, 16]);
        return;
      }
      if (entry.table === 'math') {
        // a function of MATH_FUNCTIONS, whose row holds its NVVM form (libdevice or a formula) and its simulator form
        expect(Object.hasOwn(MATH_FUNCTIONS, (entry.row as unknown as CudaMathRow).fn)).toBe(true);
        return;
      }
      if (entry.table === 'fp16') {
        // an f16 operation of the kernel language: its NVVM and simulator forms are those of the node it makes (the sample lowers and simulates it)
        const form = (entry.row as unknown as Fp16Row).form;
        expect([1, 2, 3]).toContain(fp16Arity(form));
        return;
      }
      expect(isNvvmForm(row.nvvm), `${entry.path} has no NVVM form`).toBe(true);
      const simulator = row.simulator as SimulatorForm;
      expect(typeof simulator === 'string' || (typeof simulator === 'object' && simulator !== null)).toBe(true);
      for (const type of typesOf(entry))
        expect(
          simulatorText(simulator, type as never),
          `${entry.path} has no simulator form for ${type}`,
        ).toBeDefined();
    },
  );

  /** Each row on each type it takes: a kernel of that type types, lowers and becomes simulator code. */
  const perType = INTRINSIC_ENTRIES.flatMap((entry) =>
    typesOf(entry).map((type) => {
      const t = type as ScalarName;
      const compare = entry.table === 'atomics' && (entry.row as unknown as AtomicRow).operands === 'compare';
      const body =
        entry.table === 'atomics'
          ? `o[1] = cuda.${entry.path}(o, 0, ${compare ? `${t}(n), ` : ''}${t}(n));`
          : `o[0] = cuda.${entry.path}(o[1]);`;
      return { path: entry.path, type: t, sample: { body, dtype: t } satisfies Sample };
    }),
  );

  it.each(perType)(
    'cuda.$path on $type types, lowers to NVVM IR and has a simulator form',
    ({ path, type, sample }) => {
      const { typed, locator } = typedSample(`${path}_${type}`, sample);
      expect(lowerKernel(typed)).toContain(`define void @${typed.symbol}(`);
      expect(new SimulatedKernel(typed, locator).source.length).toBeGreaterThan(0);
    },
  );
});
