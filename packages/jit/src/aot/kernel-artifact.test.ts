// Kernels built ahead of time, in this process: the artifact of declared
// signatures (its manifest, its cubins and PTX judged by ptxas), written and
// read back in both forms, the choice of code per architecture, and the
// refusals (stale definitions, another JIT version, damaged artifacts,
// kernels that cannot be built).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describeWhen, ptxasMissing, ptxasRejects } from '@cuda-js/test-support/toolchain';
import { afterEach, describe, expect, it } from 'vitest';
import { nvvmMissing } from '../compile/toolchain-environment.test-support.js';
import { cuda } from '../cuda.js';
import { KernelArtifactFormatError, KernelBuildError, KernelTypeError, StaleKernelArtifactError } from '../errors.js';
import { f32, i32, jit } from '../index.js';
import { pipelineCounts } from '../pipeline-counts.js';
import { array } from '../typing/signature.js';
import { readKernelArtifact, writeKernelArtifact, type SerializedKernelArtifact } from './artifact-files.js';
import { buildKernelArtifact } from './build-kernel-artifact.js';
import { buildModuleKernels } from './build-module-kernels.js';
import { chooseCode } from './choose-code.js';
import { collectKernels } from './collect-kernels.js';
import type { ArtifactCode } from './kernel-artifact.js';
import { loadedKernelArtifacts, loadKernelArtifact, unloadKernelArtifact } from './kernel-artifacts.js';

const SIG = [f32, array(f32, 1), array(f32, 1)] as const;
const KEY = "f32, array(f32, 1, 'C'), array(f32, 1, 'C')";

function makeAxpy(name = 'axpyTest', fastMath = false) {
  return jit(
    (a: number, x: Float32Array, y: Float32Array) => {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i]! + y[i]!;
    },
    { name, fastMath, signatures: [SIG] },
  );
}

function code(kind: 'cubin' | 'ptx', arch: string): ArtifactCode {
  return { kind, arch, data: new Uint8Array(1) };
}

afterEach(() => {
  for (const a of loadedKernelArtifacts()) unloadKernelArtifact(a);
});

describe('the code a device runs', () => {
  const all = [code('cubin', 'sm_80'), code('cubin', 'sm_90'), code('ptx', 'compute_80')];
  it.each([
    ['sm_90', 'cubin sm_90'],
    ['sm_86', 'cubin sm_80'],
    ['sm_89', 'cubin sm_80'],
    ['sm_100', 'ptx compute_80'],
    ['sm_120', 'ptx compute_80'],
    ['sm_75', 'none'],
  ])('on %s: %s', (arch, want) => {
    const c = chooseCode(all, arch);
    expect(c === undefined ? 'none' : `${c.kind} ${c.arch}`).toBe(want);
  });
  it('takes the newest PTX not newer than the device, and an sm_90a cubin only on sm_90', () => {
    const ptx = [code('ptx', 'compute_80'), code('ptx', 'compute_90'), code('ptx', 'compute_100')];
    expect(chooseCode(ptx, 'sm_90')?.arch).toBe('compute_90');
    expect(chooseCode([code('cubin', 'sm_90a')], 'sm_90')?.arch).toBe('sm_90a');
    expect(chooseCode([code('cubin', 'sm_90a')], 'sm_91')).toBeUndefined();
    // a cubin of an older major never runs: sm_80 machine code on sm_90
    expect(chooseCode([code('cubin', 'sm_80')], 'sm_90')).toBeUndefined();
  });
});

describeWhen([nvvmMissing, ptxasMissing], 'building kernels ahead of time', () => {
  it('collects the kernels with declared signatures of a module, and builds sm_90 cubins and compute_90 PTX that ptxas accepts', async () => {
    const kernels = await collectKernels(() => import('./aot-kernels.test-support.js'));
    expect(kernels.map((k) => k.name)).toEqual(['fixtureAxpy', 'fixtureScale']);
    const artifact = buildKernelArtifact(kernels, { arch: ['sm_90'] });
    expect(artifact.format).toBe(1);
    expect(artifact.toolchain).toMatch(/^libNVVM \d+\.\d+, ptxas /);
    const [axpy, scale] = artifact.kernels;
    expect(axpy!.name).toBe('fixtureAxpy');
    expect(axpy!.hash).toMatch(/^[0-9a-f]{64}$/);
    // where jit() was called, as the locator finds it (this package's own support modules are skipped, so the frame is the importer's)
    expect(axpy!.definedAt).toMatch(/:\d+:\d+$/);
    // relative to the build's working directory: no path of the build machine in the artifact
    expect(axpy!.definedAt).not.toMatch(/^\//);
    expect(JSON.stringify(artifact.kernels.map(({ specializations: _, ...k }) => k))).not.toContain(process.cwd());
    expect(axpy!.specializations.map((s) => [s.signature, s.symbol])).toEqual([
      [KEY, 'fixtureAxpy'],
      ["f64, array(f64, 1, 'C'), array(f64, 1, 'C')", 'fixtureAxpy_1'],
    ]);
    expect(scale!.specializations.map((s) => s.signature)).toEqual(["array(i32, 1, 'C'), i32"]);
    for (const k of artifact.kernels) {
      for (const s of k.specializations) {
        expect(s.code.map((c) => `${c.kind} ${c.arch}`)).toEqual(['cubin sm_90', 'ptx compute_90']);
        const cubin = s.code[0]!.data;
        expect([...cubin.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]); // an ELF, as ptxas writes cubins
        const ptx = new TextDecoder().decode(s.code[1]!.data);
        expect(ptx).toMatch(/\.target sm_90\b/);
        expect(ptx).toContain(`.entry ${s.symbol}(`);
        expect(ptxasRejects(ptx, 'sm_90')).toBeUndefined();
        // newer devices: the PTX assembles for them too
        expect(ptxasRejects(ptx, 'sm_100')).toBeUndefined();
      }
    }
    // the launch ABI: what the launcher packs, as the typed kernel laid it out
    expect(axpy!.specializations[0]!.params.map((p) => `${p.kind} ${p.name}`)).toEqual([
      'scalar a',
      'array x',
      'array y',
    ]);
  });

  it('builds several architectures, PTX as asked, and no PTX with ptx: false', () => {
    const k = makeAxpy();
    const a = buildKernelArtifact([k], { arch: ['sm_80', 'sm_90'], ptx: ['compute_80'] });
    expect(a.kernels[0]!.specializations[0]!.code.map((c) => `${c.kind} ${c.arch}`)).toEqual([
      'cubin sm_80',
      'cubin sm_90',
      'ptx compute_80',
    ]);
    expect(new TextDecoder().decode(a.kernels[0]!.specializations[0]!.code[2]!.data)).toMatch(/\.target sm_80\b/);
    const b = buildKernelArtifact([k], { arch: ['sm_90'], ptx: false });
    expect(b.kernels[0]!.specializations[0]!.code.map((c) => c.kind)).toEqual(['cubin']);
    // the default PTX is the newest architecture's
    const c = buildKernelArtifact([k], { arch: ['sm_90', 'sm_80'] });
    expect(c.kernels[0]!.specializations[0]!.code.map((x) => x.arch)).toEqual(['sm_90', 'sm_80', 'compute_90']);
  });

  it('writes the manifest with its code files, and kernels.js with the code inline; both read back to the same bytes', async () => {
    const artifact = buildKernelArtifact([makeAxpy()], { arch: ['sm_90'] });
    const dir = mkdtempSync(join(tmpdir(), 'cuda-js-aot-test-'));
    const written = writeKernelArtifact(artifact, dir);
    const manifest = JSON.parse(readFileSync(written.manifest, 'utf8')) as SerializedKernelArtifact;
    expect(manifest.format).toBe(1);
    expect(manifest.kernels[0]!.specializations[0]!.code).toEqual([
      {
        kind: 'cubin',
        arch: 'sm_90',
        file: 'axpyTest.0.sm_90.cubin',
        bytes: artifact.kernels[0]!.specializations[0]!.code[0]!.data.byteLength,
      },
      {
        kind: 'ptx',
        arch: 'compute_90',
        file: 'axpyTest.0.compute_90.ptx',
        bytes: artifact.kernels[0]!.specializations[0]!.code[1]!.data.byteLength,
      },
    ]);
    for (const f of written.code) expect(existsSync(f)).toBe(true);
    const fromDir = readKernelArtifact(dir);
    const mod = (await import(pathToFileURL(written.module).href)) as { default: SerializedKernelArtifact };
    const fromModule = readKernelArtifact(mod.default);
    for (const read of [fromDir, fromModule]) {
      expect(read.kernels[0]!.hash).toBe(artifact.kernels[0]!.hash);
      expect(read.kernels[0]!.specializations[0]!.code.map((c) => c.data)).toEqual(
        artifact.kernels[0]!.specializations[0]!.code.map((c) => c.data),
      );
      expect(read.kernels[0]!.specializations[0]!.params).toEqual(artifact.kernels[0]!.specializations[0]!.params);
    }
    expect(readFileSync(join(dir, 'kernels.d.ts'), 'utf8')).toContain('SerializedKernelArtifact');
  });

  it('answers a launch from the artifact with no typing or lowering: the cubin, PTX for newer devices, the JIT (libNVVM here) for the rest', () => {
    const artifact = buildKernelArtifact([makeAxpy()], { arch: ['sm_90'] });
    const k = makeAxpy();
    expect(k.artifactCode(SIG, { arch: 'sm_90' })).toEqual({
      kind: 'jit',
      reason: 'no loaded kernel artifact names the kernel',
    });
    loadKernelArtifact(artifact);
    const before = pipelineCounts();
    expect(k.artifactCode(SIG, { arch: 'sm_90' })).toMatchObject({ kind: 'cubin', arch: 'sm_90', symbol: 'axpyTest' });
    expect(k.artifactCode(SIG, { arch: 'sm_100' })).toMatchObject({ kind: 'ptx', arch: 'compute_90' });
    const after = pipelineCounts();
    expect([after.typed - before.typed, after.lowered - before.lowered]).toEqual([0, 0]);
    expect(k.artifactCode(SIG, { arch: 'sm_80' })).toMatchObject({
      kind: 'jit',
      reason: expect.stringContaining('architecture sm_80'),
    });
    expect(k.artifactCode([f32, array(f32, 1), array(f32, 2)], { arch: 'sm_90' })).toMatchObject({
      kind: 'jit',
      reason: expect.stringContaining('the signature'),
    });
  });

  it('refuses a stale artifact: a changed kernel text, or changed math options, with a named error', () => {
    loadKernelArtifact(buildKernelArtifact([makeAxpy()], { arch: ['sm_90'] }));
    const changed = jit(
      (a: number, x: Float32Array, y: Float32Array) => {
        const i = cuda.grid(1);
        if (i < y.length) y[i] = a * x[i]! - y[i]!;
      },
      { name: 'axpyTest', signatures: [SIG] },
    );
    const stale = (() => {
      try {
        changed.artifactCode(SIG, { arch: 'sm_90' });
      } catch (error) {
        return error;
      }
    })();
    expect(stale).toBeInstanceOf(StaleKernelArtifactError);
    expect((stale as Error).message).toMatch(
      /^axpyTest \(defined at .*kernel-artifact\.test\.ts:\d+:\d+\): the kernel artifact's entry was built from the kernel at .*: the artifact is stale/,
    );
    expect(() => makeAxpy('axpyTest', true).artifactCode(SIG, { arch: 'sm_90' })).toThrow(StaleKernelArtifactError);
    // the unchanged kernel is still served
    expect(makeAxpy().artifactCode(SIG, { arch: 'sm_90' }).kind).toBe('cubin');
  });

  it('refuses an artifact of another JIT version, another format, or with damaged code', () => {
    const artifact = buildKernelArtifact([makeAxpy()], { arch: ['sm_90'] });
    expect(() => loadKernelArtifact({ ...artifact, jitVersion: '0.0.0-other' })).toThrow(StaleKernelArtifactError);
    const dir = mkdtempSync(join(tmpdir(), 'cuda-js-aot-test-'));
    writeKernelArtifact(artifact, dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as SerializedKernelArtifact;
    expect(() => loadKernelArtifact({ ...manifest, format: 99 })).toThrow(
      /format 99, this @cuda-js\/jit reads format 1/,
    );
    // a file-backed manifest given as an object has no folder to read its code from
    expect(() => loadKernelArtifact(manifest)).toThrow(KernelArtifactFormatError);
    writeFileSync(join(dir, 'axpyTest.0.sm_90.cubin'), new Uint8Array(3));
    expect(() => loadKernelArtifact(dir)).toThrow(/has 3 bytes, the manifest says/);
    expect(() => loadKernelArtifact(join(dir, 'nothing-here'))).toThrow(KernelArtifactFormatError);
  });

  it('builds two kernels of arrow functions by the names they are assigned to', () => {
    const axpy = jit(
      (a: number, x: Float32Array, y: Float32Array) => {
        const i = cuda.grid(1);
        if (i < y.length) y[i] = a * x[i]! + y[i]!;
      },
      { signatures: [SIG] },
    );
    const scale = jit(
      (a: number, x: Float32Array, y: Float32Array) => {
        const i = cuda.grid(1);
        if (i < y.length) y[i] = a * x[i]!;
      },
      { signatures: [SIG] },
    );
    const artifact = buildKernelArtifact([axpy, scale], { arch: ['sm_90'], ptx: false });
    expect(artifact.kernels.map((k) => [k.name, k.specializations[0]!.symbol])).toEqual([
      ['axpy', 'axpy'],
      ['scale', 'scale'],
    ]);
    // where each was defined, relative to the build's working directory
    expect(artifact.kernels.map((k) => k.definedAt)).toEqual([
      expect.stringMatching(/^packages\/jit\/src\/aot\/kernel-artifact\.test\.ts:\d+:\d+$/),
      expect.stringMatching(/^packages\/jit\/src\/aot\/kernel-artifact\.test\.ts:\d+:\d+$/),
    ]);
  });

  it('refuses kernels it cannot build: no signatures, two kernels of one name', () => {
    const plain = jit((x: Int32Array) => {
      x[0] = 1;
    });
    expect(() => buildKernelArtifact([plain], { arch: ['sm_90'] })).toThrow(KernelBuildError);
    expect(() => buildKernelArtifact([makeAxpy('same'), makeAxpy('same', true)], { arch: ['sm_90'] })).toThrow(
      /two different kernels are named same/,
    );
    expect(() => buildKernelArtifact([makeAxpy()], { arch: [] })).toThrow(/at least one architecture/);
    // the same kernel twice is built once
    const k = makeAxpy();
    expect(buildKernelArtifact([k, k], { arch: ['sm_90'], ptx: false }).kernels).toHaveLength(1);
  });

  it('builds a module into a folder in one call (buildModuleKernels), and names a module that fails to import or declares nothing', async () => {
    const out = mkdtempSync(join(tmpdir(), 'cuda-js-aot-test-'));
    const built = await buildModuleKernels(new URL('./aot-kernels.test-support.ts', import.meta.url), {
      arch: ['sm_90'],
      ptx: false,
      out,
    });
    expect(built.kernels.map((k) => k.name)).toEqual(['fixtureAxpy', 'fixtureScale']);
    expect(readKernelArtifact(out).kernels.map((k) => k.name)).toEqual(['fixtureAxpy', 'fixtureScale']);
    await expect(buildModuleKernels(join(out, 'missing.mjs'), { arch: ['sm_90'], out })).rejects.toThrow(
      /^importing .*missing\.mjs failed: /,
    );
    writeFileSync(join(out, 'empty.mjs'), 'export const x = 1;\n');
    await expect(buildModuleKernels(join(out, 'empty.mjs'), { arch: ['sm_90'], out })).rejects.toThrow(
      /makes no kernel with declared signatures/,
    );
  });

  it("builds the signatures the build names for its kernels (numba's text or tokens), also for a kernel that declares none, and a launch of them loads the cubin", async () => {
    const kernels = await collectKernels(() => import('./aot-kernels.test-support.js'), { named: ['kernel'] });
    expect(kernels.map((k) => k.name)).toEqual(['fixtureAxpy', 'fixtureScale', 'kernel']);
    const signatures = { kernel: ['void(int32[::1])', [array(i32, 1)]], fixtureScale: ['void(int32[:], int32)'] };
    const artifact = buildKernelArtifact(kernels, { arch: ['sm_90'], ptx: false, signatures });
    const specs = Object.fromEntries(
      artifact.kernels.map((k) => [k.name, k.specializations.map((s) => [s.signature, s.symbol])]),
    );
    // the declared ones first, then the build's; one signature given twice is built once
    expect(specs.fixtureScale).toEqual([
      ["array(i32, 1, 'C'), i32", 'fixtureScale'],
      ["array(i32, 1, 'A'), i32", 'fixtureScale_1'],
    ]);
    expect(specs.kernel).toEqual([["array(i32, 1, 'C')", 'kernel']]);
    loadKernelArtifact(artifact);
    const notDeclared = kernels[2]!;
    expect(notDeclared.artifactCode('void(int32[::1])', { arch: 'sm_90' })).toMatchObject({
      kind: 'cubin',
      arch: 'sm_90',
      symbol: 'kernel',
    });
    expect(kernels[1]!.artifactCode('void(int32[:], int32)', { arch: 'sm_90' })).toMatchObject({
      kind: 'cubin',
      symbol: 'fixtureScale_1',
    });
  });

  it("refuses a build's signatures that name no kernel of the build (with the nearest), that are not lists, or that do not type", async () => {
    const kernels = await collectKernels(() => import('./aot-kernels.test-support.js'));
    const build = (signatures: Record<string, unknown>) => () =>
      buildKernelArtifact(kernels, { arch: ['sm_90'], ptx: false, signatures: signatures as never });
    expect(build({ fixtureScal: ['void(int32[:], int32)'] })).toThrow(
      "buildKernelArtifact: signatures names 'fixtureScal', which no kernel of the build is called (did you mean 'fixtureScale'?); the kernels: fixtureAxpy, fixtureScale",
    );
    expect(build({ fixtureScale: 'void(int32[:], int32)' })).toThrow(
      /signatures\.fixtureScale is a list of signatures, \['void\(float32, float32\[:\]\)'\]; got /,
    );
    expect(build({ fixtureScale: ['float32(int32[:], int32)'] })).toThrow(KernelTypeError);
    expect(() => buildKernelArtifact(kernels, { arch: ['sm_90'], signatures: [] as never })).toThrow(/signatures/);
  });

  it('checks the signatures option when the kernel is made', () => {
    expect(() => jit((x: Int32Array) => void x, { signatures: 'f32' as never })).toThrow(/signatures/);
    expect(() => jit((x: Int32Array) => void x, { signatures: [[{ kind: 'array' } as never]] })).toThrow(
      /array\(dtype, ndim, layout\)/,
    );
  });
});
