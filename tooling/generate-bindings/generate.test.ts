import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generatedBodies, generatedBody, haveGcc } from './generated-code.test-support.js';

const cudaHeader = join(process.env['CUDA_HOME'] ?? '/usr/local/cuda', 'include', 'cuda.h');

describe.skipIf(!existsSync(cudaHeader) || !haveGcc)('the bindings generator', () => {
  it('reproduces the committed generated files from the CUDA headers', () => {
    const r = spawnSync(process.execPath, [join(import.meta.dirname, 'generate.mjs'), '--check'], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
    // 546: the 502 functions of cuda.h, NVRTC, nvJitLink and libNVVM, NVML's 22 and NCCL's 22
    expect(r.stdout).toMatch(/generated 5\d\d functions, \d+ hand-written, 0 skipped of 546/);
    expect(r.stdout).toContain('generated files are current');
  });
});

describe('the generated nvJitLink functions', () => {
  // Each generated function's body, by C++ name.
  const bodies = generatedBodies();
  const nvJitLink = [...bodies].filter(([name]) => name.startsWith('js_nvJitLink'));

  it('are all there', () => {
    expect(nvJitLink.length).toBeGreaterThanOrEqual(14);
  });

  it('call nvJitLink only on the nvJitLink thread, and read the error log there', () => {
    for (const [name, body] of nvJitLink) {
      const calls = body.split('\n').filter((l) => /\b(fp|sizeFn|countFn)\(/.test(l));
      expect(calls.length, name).toBeGreaterThan(0);
      for (const line of calls) {
        expect(line, name).toMatch(
          /^ {2}checkNvJitLink\(call, onNvJitLinkThread\(call, \[&\] \{ return nvJitLinkOutcome\((fp|sizeFn|countFn)\(.*\), (a\d+|nullptr)\); \}\)\);$/,
        );
      }
    }
  });

  it('leave the other libraries on the calling thread', () => {
    const others = [...bodies].filter(([name]) => !name.startsWith('js_nvJitLink'));
    expect(others.length).toBeGreaterThan(450);
    expect(others.filter(([, body]) => body.includes('onNvJitLinkThread')).map(([name]) => name)).toEqual([]);
  });
});

// Issue 20's size rule: cuCoredump{Get,Set}Attribute{,Global} take `size_t *size`, "the size of the memory
// region value points to"; it was 0, so a path attribute was read or written with no bound the driver knew.
describe('the generated coredump attribute functions', () => {
  it('tell the driver the size of the JS buffer that value is, after checking it against the attribute', () => {
    for (const name of [
      'cuCoredumpGetAttribute',
      'cuCoredumpGetAttributeGlobal',
      'cuCoredumpSetAttribute',
      'cuCoredumpSetAttributeGlobal',
    ]) {
      const body = generatedBody(name);
      expect(body, name).toMatch(/inHostPtrSized\(call, 1, "value", (true|false), hb1\)/);
      expect(body, name).toMatch(/^ {2}std::remove_pointer_t<P<F, 2>> o2 = hb1;/m);
      expect(body, name).toMatch(/checkHostBytes\(call, "value", hb1, .*CU_COREDUMP_GENERATION_FLAGS/);
      expect(body, name).toContain('fp(a0, a1, &o2)');
    }
  });
});
