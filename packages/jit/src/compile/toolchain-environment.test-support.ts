import { ObjectCode, nvvmToolchain, toolchainIdentity } from '@cuda-js/program';

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
    return toolchainIdentity({ linker: true }).linker === null ? 'neither nvJitLink nor a driver with a device to link with' : undefined;
  } catch (error) {
    return firstLine(error);
  }
})();

export { describeWhen, itWhen, ptxasMissing, ptxasPath, ptxasRejects } from '@cuda-js/test-support/toolchain';
