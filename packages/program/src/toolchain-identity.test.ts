// toolchainIdentity against the real libNVVM and libdevice of this machine.
import { expect, it } from 'vitest';
import { cacheKey } from './cache-key.js';
import { describeWhen, nvvmMissing } from './test-environment.js';
import { toolchainIdentity } from './toolchain-identity.js';
import { nvvmToolchain } from './toolchain.js';

describeWhen([nvvmMissing], 'toolchainIdentity', () => {
  it('names libNVVM and libdevice, and keys them in one stable string', () => {
    const identity = toolchainIdentity();
    expect(identity.nvvm).toEqual({
      version: nvvmToolchain().version,
      details: nvvmToolchain().details,
      path: nvvmToolchain().path ?? null,
    });
    expect(identity.libdevice).toMatch(/^[0-9a-f]{64}$/);
    expect(identity.linker).toBeNull();
    expect(identity.key).toMatch(/^[0-9a-f]{64}$/);
    expect(toolchainIdentity().key).toBe(identity.key);
    expect(identity.key).toBe(cacheKey({ nvvm: identity.nvvm, libdevice: identity.libdevice, linker: null }));
  });

  it('gives a different key without libdevice, and with the linker where one is usable', () => {
    const full = toolchainIdentity();
    const bare = toolchainIdentity({ libdevice: false });
    expect(bare.libdevice).toBeNull();
    expect(bare.key).not.toBe(full.key);
    const linked = toolchainIdentity({ linker: true });
    if (linked.linker === null) expect(linked.key).toBe(full.key);
    else expect(linked.key).not.toBe(full.key);
  });
});
