/**
 * The DeviceMemoryResources this realm constructed: a resource is recognised
 * by this brand, never by its shape, where a look-alike could hand the driver
 * a made-up pool (`{ isIpcEnabled: true, isImported: true, pool: 0x1000n }`).
 * A leaf module, so that modules which memory-resources imports can check it.
 */
const constructed = new WeakSet<object>();

/** @internal Called by DeviceMemoryResource's constructor. */
export function brandDeviceMemoryResource(resource: object): void {
  constructed.add(resource);
}

/** Whether `value` was made by DeviceMemoryResource's constructor. */
export function isBrandedDeviceMemoryResource(value: unknown): boolean {
  return typeof value === 'object' && value !== null && constructed.has(value);
}
