import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findHeaderDirectory } from '@cuda-js/pathfinder';
import { describe, expect, it } from 'vitest';
import { cudaHeaderFunctions } from './header-functions.js';
import { driver, nccl, nvjitlink, nvml, nvrtc, nvvm } from './index.js';

interface Coverage {
  cudaVersion: number;
  headerFunctions: Record<'driver' | 'nvrtc' | 'nvjitlink' | 'nvvm' | 'nvml' | 'nccl', string[]>;
}
const committed = JSON.parse(readFileSync(join(import.meta.dirname, 'generated', 'coverage.json'), 'utf8')) as Coverage;

function cudaHeader(): string | undefined {
  try {
    const path = join(findHeaderDirectory('cuda').path, 'cuda.h');
    return existsSync(path) ? path : undefined;
  } catch {
    return undefined;
  }
}

const callable = (ns: object, name: string) => typeof (ns as Record<string, unknown>)[name] === 'function';

describe('coverage of the C APIs', () => {
  const header = cudaHeader();
  const headerText = header ? readFileSync(header, 'utf8') : '';
  const sameRelease =
    header !== undefined && new RegExp(`#define\\s+CUDA_VERSION\\s+${committed.cudaVersion}\\b`).test(headerText);

  it.skipIf(!sameRelease)(
    `counts cuda.h ${committed.cudaVersion}'s functions from the header and finds at least 95% callable`,
    () => {
      const names = cudaHeaderFunctions(header!);
      expect(names.length).toBeGreaterThan(400);
      const missing = names.filter((n) => !callable(driver, n));
      const share = (names.length - missing.length) / names.length;
      expect(share, `not callable: ${missing.join(', ')}`).toBeGreaterThanOrEqual(0.95);
    },
  );

  it('finds every function of the header list committed with the generated code callable', () => {
    const missing = committed.headerFunctions.driver.filter((n) => !callable(driver, n));
    expect(missing).toEqual([]);
  });

  it('covers all of NVRTC, nvJitLink and libNVVM', () => {
    expect(committed.headerFunctions.nvrtc.filter((n) => !callable(nvrtc, n))).toEqual([]);
    expect(committed.headerFunctions.nvjitlink.filter((n) => !callable(nvjitlink, n))).toEqual([]);
    expect(committed.headerFunctions.nvvm.filter((n) => !callable(nvvm, n))).toEqual([]);
    expect(committed.headerFunctions.nvrtc.length).toBeGreaterThanOrEqual(20);
    expect(committed.headerFunctions.nvjitlink.length).toBeGreaterThanOrEqual(14);
    expect(committed.headerFunctions.nvvm.length).toBeGreaterThanOrEqual(13);
  });

  it('covers every function of the NVML declarations', () => {
    expect(committed.headerFunctions.nvml.filter((n) => !callable(nvml, n))).toEqual([]);
    expect(committed.headerFunctions.nvml.length).toBeGreaterThanOrEqual(22);
  });

  it('covers every function of the NCCL declarations', () => {
    expect(committed.headerFunctions.nccl.filter((n) => !callable(nccl, n))).toEqual([]);
    expect(committed.headerFunctions.nccl.length).toBeGreaterThanOrEqual(22);
  });

  it('has the Promise forms and hand-written functions of the contract', () => {
    for (const n of [
      'cuStreamSynchronizeAsync',
      'cuEventSynchronizeAsync',
      'cuCtxSynchronizeAsync',
      'cuModuleLoadDataAsync',
      'cuLibraryLoadDataAsync',
      'createKernelParams',
      'createPackedLaunch',
      'cuLaunchKernelPacked',
      'cuLaunchKernel',
      'cuLaunchKernelEx',
      'cuLaunchHostFunc',
      'cuStreamAddCallback',
      'cuPointerGetAttribute',
      'cuGraphAddHostNode',
      'cuStreamGetCaptureInfo',
      'cuStreamUpdateCaptureDependencies',
      'cuGraphAddNode',
    ]) {
      expect(callable(driver, n), n).toBe(true);
    }
    expect(callable(nvrtc, 'nvrtcCompileProgramAsync')).toBe(true);
    expect(callable(nvvm, 'nvvmCompileProgramAsync')).toBe(true);
    expect(callable(nvjitlink, 'nvJitLinkCompleteAsync')).toBe(true);
  });
});
