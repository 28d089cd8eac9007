import { driver, hostArrayBuffer, type CUdeviceptr } from '@cuda-js/bindings';
import { brandHandle } from '@cuda-js/bindings/runtime';
import { DLDeviceType, setDriverHooks } from '@cuda-js/memory-view';
import { orderStreams } from '@cuda-js/streams';

let installed = false;

/**
 * @internal The key of the method by which an exporter of host-accessible
 * memory (a Buffer) answers memory-view's request for a host view of its
 * bytes itself: `[HOST_VIEW](ptr, byteLength)` gives the ArrayBuffer and the
 * offset of those bytes in it, or throws.
 */
export const HOST_VIEW: unique symbol = Symbol('cuda-js: a host view of an exporter');

/** An exporter that answers host views itself: a Buffer. */
export interface HostViewExporter {
  [HOST_VIEW](ptr: bigint, byteLength: number): { buffer: ArrayBuffer; byteOffset: number };
}

function isHostViewExporter(value: unknown): value is HostViewExporter {
  return (
    typeof value === 'object' && value !== null && typeof (value as Partial<HostViewExporter>)[HOST_VIEW] === 'function'
  );
}

/**
 * Host memory at an address for memory-view's views of pinned and managed
 * memory. A view of a Buffer gets the Buffer's own host view (its
 * {@link HOST_VIEW} method), so that the Buffer's close() waits for it. Other
 * views get an ArrayBuffer over exactly the asked bytes, which the driver
 * vouches for and which keeps the view (and so its producer's memory) alive.
 */
function hostBuffer(
  ptr: bigint,
  byteLength: number,
  exporter: unknown,
  keepAlive: object,
): { buffer: ArrayBuffer; byteOffset: number } {
  if (isHostViewExporter(exporter)) return exporter[HOST_VIEW](ptr, byteLength);
  return { buffer: hostArrayBuffer(ptr, byteLength, keepAlive), byteOffset: 0 };
}

/**
 * Gives memory-view what it cannot do without a driver: order streams (the
 * CUDA array interface rule), find a pointer's device, and view pinned and
 * managed memory from JS. Installed once, on the first use of a device, so
 * that importing core has no side effect.
 */
export function installDriverHooks(): void {
  if (installed) return;
  installed = true;
  setDriverHooks({
    waitStream: orderStreams,
    pointerDevice: (ptr) => ({
      type: DLDeviceType.CUDA,
      id: Number(
        driver.cuPointerGetAttribute(
          driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
          brandHandle<CUdeviceptr>(ptr),
        ),
      ),
    }),
    hostBuffer,
  });
}
