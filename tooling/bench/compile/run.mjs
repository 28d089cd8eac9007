#!/usr/bin/env node
// Compile latency of a small kernel: @cuda-js/program against cuda.core's
// Program (python3) in the same run, plus cache hits. From the repo root,
// after a build:  node tooling/bench/compile/run.mjs [--iterations N] [--arch sm_90]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CompileCache, Program } from '@cuda-js/program';
import { driver, loadedLibraries, nvrtc } from '@cuda-js/bindings';

const { values } = parseArgs({
  options: {
    iterations: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '3' },
    arch: { type: 'string' },
  },
});
const iterations = Number(values.iterations);
const warmup = Number(values.warmup);

const SOURCE = `
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
`;

function deviceArch() {
  try {
    driver.cuInit(0);
    const dev = driver.cuDeviceGet(0);
    const major = driver.cuDeviceGetAttribute(
      driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
      dev,
    );
    const minor = driver.cuDeviceGetAttribute(
      driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
      dev,
    );
    return { arch: `sm_${major}${minor}`, device: driver.cuDeviceGetName(dev) };
  } catch (error) {
    return { arch: 'sm_90', device: `none (${error.message.split('\n')[0]})` };
  }
}

async function timed(fn) {
  for (let i = 0; i < warmup; i++) await fn();
  const out = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    await fn();
    out.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  return out;
}

function stats(samples) {
  if (!samples?.length) return undefined;
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { median: at(0.5), min: sorted[0], p90: at(0.9), mean: samples.reduce((s, v) => s + v, 0) / samples.length };
}

function runCudaCore(arch) {
  const python = process.env.CUDA_JS_PYTHON || 'python3';
  const script = join(dirname(fileURLToPath(import.meta.url)), 'cuda_core_compile.py');
  const r = spawnSync(python, [script], {
    input: JSON.stringify({ source: SOURCE, arch, iterations, warmup }),
    encoding: 'utf8',
    maxBuffer: 1 << 24,
  });
  if (r.error) return { error: `${python}: ${r.error.message}` };
  if (r.status !== 0) return { error: (r.stderr || r.stdout).trim().split('\n').at(-1) };
  return JSON.parse(r.stdout);
}

const { arch, device } = deviceArch();
const cacheDir = mkdtempSync(join(tmpdir(), 'cuda-js-bench-compile-'));
try {
  const js = {
    cubin: await timed(() => new Program(SOURCE, 'c++', { arch }).compile('cubin', { checkCompatibility: false })),
    ptx: await timed(() => new Program(SOURCE, 'c++', { arch }).compile('ptx', { checkCompatibility: false })),
    cubinAsync: await timed(() =>
      new Program(SOURCE, 'c++', { arch }).compileAsync('cubin', { checkCompatibility: false }),
    ),
  };
  const memory = new CompileCache();
  new Program(SOURCE, 'c++', { arch }).compile('cubin', { cache: memory });
  js.memoryHit = await timed(() => new Program(SOURCE, 'c++', { arch }).compile('cubin', { cache: memory }));
  new Program(SOURCE, 'c++', { arch }).compile('cubin', { cache: new CompileCache({ directory: cacheDir }) });
  // A fresh cache each time: its memory is empty, so every hit reads the disk, as a new process would.
  js.diskHit = await timed(() =>
    new Program(SOURCE, 'c++', { arch }).compile('cubin', { cache: new CompileCache({ directory: cacheDir }) }),
  );

  const py = runCudaCore(arch);
  const v = nvrtc.nvrtcVersion();
  const lib = loadedLibraries().find((l) => l.name === 'nvrtc');
  console.log(
    `compile latency of a small kernel (saxpy), ${iterations} runs after ${warmup} warm-up, arch ${arch}, device: ${device}`,
  );
  console.log(
    `cuda-js: NVRTC ${v.major}.${v.minor} (${lib?.path ?? '?'}); cuda.core: ${py.error ? `not run: ${py.error}` : `${py.version}, NVRTC ${py.nvrtc}`}`,
  );
  console.log('');
  const rows = [
    ['C++ → cubin', js.cubin, py.cases?.cubin],
    ['C++ → PTX', js.ptx, py.cases?.ptx],
    ['C++ → cubin, compileAsync', js.cubinAsync, undefined],
    ['cache hit, memory', js.memoryHit, undefined],
    ['cache hit, disk (new cache)', js.diskHit, undefined],
  ];
  const fmt = (x) => (x === undefined ? '—' : x < 1 ? x.toFixed(4) : x.toFixed(2));
  console.log(
    '| case | cuda-js median ms | cuda-js min / p90 ms | cuda.core median ms | cuda.core min / p90 ms | cuda-js / cuda.core |',
  );
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const [name, mine, theirs] of rows) {
    const a = stats(mine);
    const b = stats(theirs);
    const ratio = a && b ? `${(a.median / b.median).toFixed(2)}×` : '—';
    console.log(
      `| ${name} | ${fmt(a?.median)} | ${fmt(a?.min)} / ${fmt(a?.p90)} | ${fmt(b?.median)} | ${b ? `${fmt(b.min)} / ${fmt(b.p90)}` : '—'} | ${ratio} |`,
    );
  }
} finally {
  rmSync(cacheDir, { recursive: true, force: true });
}
