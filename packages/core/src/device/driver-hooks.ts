import { brandHandle, driver, hostArrayBuffer, HostViewError, type CUdeviceptr } from '@cuda-js/bindings';
import { DLDeviceType, setDriverHooks } from '@cuda-js/memory-view';
import { orderStreams } from '@cuda-js/streams';
import { Buffer } from '../memory/buffer.js';

let installed = false;

/**
 * Host memory at an address for memory-view's views of pinned and managed
 * memory. A view of a Buffer gets the Buffer's own host view, so that the
 * Buffer's close() waits for it (a closed Buffer is a ClosedResourceError, and
 * bytes outside the Buffer a HostViewError: a view of its memory that the
 * Buffer does not know of could outlive it). Other views get an ArrayBuffer
 * over exactly the asked bytes, which the driver vouches for and which keeps
 * the view (and so its producer's memory) alive.
 */
function hostBuffer(ptr: bigint, byteLength: number, exporter: unknown, keepAlive: object): { buffer: ArrayBuffer; byteOffset: number } {
  if (exporter instanceof Buffer) {
    const base = exporter.ptr;
    if (ptr < base || ptr + BigInt(byteLength) > base + BigInt(exporter.size)) {
      throw new HostViewError('Buffer host view', `bytes [0x${ptr.toString(16)}, +${byteLength}) are outside the Buffer at 0x${base.toString(16)} (${exporter.size} bytes)`);
    }
    return { buffer: exporter.asArrayBuffer(), byteOffset: Number(ptr - base) };
  }
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
    pointerDevice: (ptr) => ({ type: DLDeviceType.CUDA, id: Number(driver.cuPointerGetAttribute(driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, brandHandle<CUdeviceptr>(ptr))) }),
    hostBuffer,
  });
}
