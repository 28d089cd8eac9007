// `cuda-js build-kernels` as an app without a bundler runs it: the built
// CLI in a child process, on a kernels module that imports the built JIT,
// writing the artifact folder; then the artifact loaded in a process with
// libNVVM hidden. Needs libNVVM and ptxas (skipped with the reason where absent).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWhen, ptxasMissing } from '@cuda-js/test-support/toolchain';
import { nvvmToolchain } from '@cuda-js/program';
import { beforeAll, expect, it } from 'vitest';

const CLI = join(import.meta.dirname, '..', 'dist', 'cli.js');
const JIT = join(import.meta.dirname, '..', '..', 'jit', 'dist', 'index.js');

const nvvmMissing = (() => {
  try {
    nvvmToolchain();
    return undefined;
  } catch (error) {
    return (error as Error).message.split('\n')[0];
  }
})();
const distMissing = existsSync(CLI) && existsSync(JIT) ? undefined : `${CLI} is not built (npm test builds it first)`;

const KERNELS = `import { jit, cuda, f32, array } from ${JSON.stringify(JIT)};
export const saxpy = jit(function saxpy(a, x, y) {
  const i = cuda.grid(1);
  if (i < y.length) y[i] = a * x[i] + y[i];
}, { signatures: [[f32, array(f32, 1), array(f32, 1)]] });
export const scale = jit(function scale(x, k) {
  const i = cuda.grid(1);
  if (i < x.length) x[i] = x[i] * k;
});
`;

function run(
  dir: string,
  args: readonly string[],
  env: Record<string, string> = {},
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, {
    cwd: dir,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

describeWhen([distMissing, nvvmMissing, ptxasMissing], 'cuda-js build-kernels', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'cuda-js-build-kernels-'));
    writeFileSync(join(dir, 'kernels.mjs'), KERNELS);
    writeFileSync(join(dir, 'empty.mjs'), 'export const nothing = 1;\n');
  });

  it('builds sm_90 cubins and compute_90 PTX of the declared signatures into --out', () => {
    const r = run(dir, [CLI, 'build-kernels', 'kernels.mjs', '--arch', 'sm_90', '--out', 'dist-kernels', '--json']);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as {
      kernels: { name: string; signatures: { signature: string; code: string[] }[] }[];
      toolchain: string;
    };
    expect(report.kernels).toEqual([
      expect.objectContaining({
        name: 'saxpy',
        signatures: [
          { signature: "f32, array(f32, 1, 'C'), array(f32, 1, 'C')", code: ['cubin sm_90', 'ptx compute_90'] },
        ],
      }),
    ]);
    for (const f of ['manifest.json', 'kernels.js', 'kernels.d.ts', 'saxpy.0.sm_90.cubin', 'saxpy.0.compute_90.ptx'])
      expect(existsSync(join(dir, 'dist-kernels', f)), f).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'dist-kernels', 'manifest.json'), 'utf8'))).toMatchObject({
      format: 1,
      kernels: [{ name: 'saxpy' }],
    });
  });

  it('takes several architectures (repeated or a comma list), --ptx and --no-ptx, and says what it wrote', () => {
    const r = run(dir, [
      CLI,
      'build-kernels',
      'kernels.mjs',
      '--arch',
      'sm_80,sm_90',
      '--arch',
      'sm_86',
      '--ptx',
      'compute_80',
      '--out',
      'k2',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^built 1 kernel\(s\), 1 signature\(s\) in \d+ ms \(libNVVM [\d.]+, ptxas /);
    expect(r.stdout).toMatch(
      /saxpy\(f32, .*\): cubin sm_80 \(\d+ B\), cubin sm_90 \(\d+ B\), cubin sm_86 \(\d+ B\), ptx compute_80 \(\d+ B\)/,
    );
    expect(r.stdout).toContain('loadKernelArtifact("k2")');
    const none = run(dir, [
      CLI,
      'build-kernels',
      'kernels.mjs',
      '--arch',
      'sm_90',
      '--no-ptx',
      '--out',
      'k3',
      '--json',
    ]);
    expect(none.status, none.stderr).toBe(0);
    expect(JSON.parse(none.stdout).kernels[0].signatures[0].code).toEqual(['cubin sm_90']);
  });

  it('loads what it built where libNVVM is hidden', () => {
    expect(run(dir, [CLI, 'build-kernels', 'kernels.mjs', '--arch', 'sm_90', '--out', 'k4']).status).toBe(0);
    writeFileSync(
      join(dir, 'load.mjs'),
      `import { loadKernelArtifact, pipelineCounts, f32, array } from ${JSON.stringify(JIT)};
loadKernelArtifact('./k4');
const { saxpy } = await import('./kernels.mjs');
console.log(JSON.stringify({ choice: saxpy.artifactCode([f32, array(f32, 1), array(f32, 1)], { arch: 'sm_90' }), counts: pipelineCounts() }));`,
    );
    const r = run(dir, ['load.mjs'], {
      CUDA_JS_LIB_NVVM: '/nonexistent/cuda-js-hidden/libnvvm.so',
      CUDA_JS_LIBDEVICE_DIR: '/nonexistent/cuda-js-hidden',
    });
    expect(r.status, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      choice: { kind: string; arch: string };
      counts: { typed: number; lowered: number };
    };
    expect(out.choice).toMatchObject({ kind: 'cubin', arch: 'sm_90' });
    expect([out.counts.typed, out.counts.lowered]).toEqual([0, 0]);
  });

  it("builds the signatures --signature gives in numba's text, also for a kernel that declares none, and names a bad one", () => {
    const r = run(dir, [
      CLI,
      'build-kernels',
      'kernels.mjs',
      '--arch',
      'sm_90',
      '--no-ptx',
      '--signature',
      'scale=void(float32[::1], float32)',
      'saxpy=void(float64, float64[::1], float64[::1])',
      '--out',
      'k3',
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { kernels: { name: string; signatures: { signature: string }[] }[] };
    expect(report.kernels.map((k) => [k.name, k.signatures.map((s) => s.signature)])).toEqual([
      ['saxpy', ["f32, array(f32, 1, 'C'), array(f32, 1, 'C')", "f64, array(f64, 1, 'C'), array(f64, 1, 'C')"]],
      ['scale', ["array(f32, 1, 'C'), f32"]],
    ]);
    const noName = run(dir, [
      CLI,
      'build-kernels',
      'kernels.mjs',
      '--arch',
      'sm_90',
      '--signature',
      'void(float32[:])',
    ]);
    expect(noName.status).toBe(1);
    expect(noName.stderr).toContain(
      "--signature takes a kernel's name and a signature, 'axpy=void(float32, float32[:], float32[:])'; got 'void(float32[:])'",
    );
    const misspelt = run(dir, [
      CLI,
      'build-kernels',
      'kernels.mjs',
      '--arch',
      'sm_90',
      '--signature',
      'scal=void(float32[:], float32)',
    ]);
    expect(misspelt.status).toBe(1);
    expect(misspelt.stderr).toContain(
      "signatures names 'scal', which no kernel of the build is called (did you mean 'scale'?)",
    );
    const bad = run(dir, [
      CLI,
      'build-kernels',
      'kernels.mjs',
      '--arch',
      'sm_90',
      '--signature',
      'scale=void(quux[:], float32)',
    ]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain("unknown type 'quux'");
  });

  it('fails with a message for no --arch, an entry without declared kernels, an entry that does not import, a TypeScript entry node cannot import', () => {
    const noArch = run(dir, [CLI, 'build-kernels', 'kernels.mjs']);
    expect(noArch.status).toBe(1);
    expect(noArch.stderr).toContain('give the architectures to build cubins for, --arch sm_90');
    const empty = run(dir, [CLI, 'build-kernels', 'empty.mjs', '--arch', 'sm_90']);
    expect(empty.status).toBe(1);
    expect(empty.stderr).toContain('makes no kernel with declared signatures');
    const missing = run(dir, [CLI, 'build-kernels', 'missing.mjs', '--arch', 'sm_90']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain('importing missing.mjs failed');
    writeFileSync(join(dir, 'typed.ts'), 'export const n: number = 1;\n');
    const typed = run(dir, [CLI, 'build-kernels', 'typed.ts', '--arch', 'sm_90']);
    expect(typed.status).toBe(1);
    // Node 20 imports no TypeScript; newer ones strip types and find no kernels
    expect(typed.stderr).toMatch(/build the entry to JavaScript first|makes no kernel with declared signatures/);
  });
});
