import {
  Linker,
  LinkerUnavailableError,
  ObjectCode,
  Program,
  nvvmToolchain,
  toolchainIdentity,
} from '@cuda-js/program';

function firstLine(error: unknown): string {
  return ((error as Error)?.message ?? String(error)).split('\n')[0]!;
}

/** Why libNVVM and libdevice cannot be used here, or undefined. */
export const nvvmMissing: string | undefined = (() => {
  try {
    nvvmToolchain();
    toolchainIdentity({ libdevice: true });
    return undefined;
  } catch (error) {
    return firstLine(error);
  }
})();

/** Why no kernel can be loaded here (no driver library, no device), or undefined when one can. */
export const deviceMissing: string | undefined = (() => {
  try {
    const ptx = '.version 7.0\n.target sm_50\n.address_size 64\n.visible .entry probe() { ret; }\n';
    using probe = ObjectCode.fromPtxText(ptx, { name: 'probe.ptx' });
    probe.load();
    return undefined;
  } catch (error) {
    return firstLine(error);
  }
})();

/** Why no linker (nvJitLink, or the driver's) can make a cubin here, or undefined when one can. */
export const linkerMissing: string | undefined = (() => {
  try {
    return toolchainIdentity({ linker: true }).linker === null
      ? 'neither nvJitLink nor a driver with a device to link with'
      : undefined;
  } catch (error) {
    return firstLine(error);
  }
})();

/** Why NVRTC cannot compile CUDA C++ here, or undefined when it can. */
export const nvrtcMissing: string | undefined = (() => {
  try {
    new Program('extern "C" __device__ int probe() { return 0; }', 'c++', {
      arch: 'sm_90',
      relocatableDeviceCode: true,
    })
      .compile('ptx')
      .close();
    return undefined;
  } catch (error) {
    return firstLine(error);
  }
})();

/** Why NVRTC cannot make LTO-IR here (none, or older than 12), or undefined when it can. */
export const nvrtcLtoirMissing: string | undefined = (() => {
  if (nvrtcMissing !== undefined) return nvrtcMissing;
  try {
    new Program('extern "C" __device__ int probe() { return 0; }', 'c++', {
      arch: 'sm_90',
      relocatableDeviceCode: true,
    })
      .compile('ltoir')
      .close();
    return undefined;
  } catch (error) {
    return firstLine(error);
  }
})();

/** Why nvJitLink cannot be used here, or undefined when it can. */
export const nvJitLinkMissing: string | undefined = (() => {
  try {
    using probe = ObjectCode.fromPtxText('.version 7.0\n.target sm_50\n.address_size 64\n', { name: 'probe.ptx' });
    return new Linker([probe], { backend: 'nvJitLink' }).backend === 'nvJitLink'
      ? undefined
      : 'the linker is not nvJitLink';
  } catch (error) {
    const reason = error instanceof LinkerUnavailableError ? error.reasons['nvJitLink'] : undefined;
    return reason === undefined ? firstLine(error) : `no nvJitLink: ${reason}`;
  }
})();

export { describeWhen, itWhen, ptxasMissing, ptxasPath, ptxasRejects } from '@cuda-js/test-support/toolchain';
