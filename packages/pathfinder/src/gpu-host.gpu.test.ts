import { expect, it } from 'vitest';
import { describeGpu } from '@cuda-js/test-support';
import { clearCache, findLibrary } from './index.js';

// The GPU host of DEVELOPERS.md: NVRTC and nvJitLink 13 in pip wheels, libNVVM
// in the toolkit, the driver from the system.
describeGpu('pathfinder on the GPU host', () => {
  clearCache();
  it('finds NVRTC 13 and nvJitLink 13 in the pip wheels under site-packages', () => {
    for (const name of ['nvrtc', 'nvJitLink']) {
      const found = findLibrary(name);
      expect(found.foundVia).toBe('site-packages');
      expect(found.cudaMajor).toBe(13);
      expect(found.path).toMatch(/site-packages\/nvidia\/cu13\/lib\/lib(nvrtc|nvJitLink)\.so\.13$/);
    }
  });
  it('finds NCCL in the nvidia-nccl-cu13 wheel under site-packages', () => {
    const nccl = findLibrary('nccl');
    expect(nccl.foundVia).toBe('site-packages');
    expect(nccl.path).toMatch(/(site|dist)-packages\/nvidia\/nccl\/lib\/libnccl\.so\.2$/);
  });
  it('finds libNVVM of CUDA 13 and the driver from the system', () => {
    expect(findLibrary('nvvm').cudaMajor).toBe(13);
    expect(['ldconfig', 'LD_LIBRARY_PATH']).toContain(findLibrary('cuda').foundVia);
  });
});
