import { driver, type CUdeviceptr } from '@cuda-js/bindings';
import {
  checkIpcRecord,
  decodeIpcPayload,
  describeValue,
  encodeIpcPayload,
  IpcError,
  streamHandle,
  type StreamArgument,
} from '@cuda-js/streams';
import type { Buffer } from '../buffer.js';
import type { DeviceMemoryResource } from '../memory-resources.js';
import { isBrandedDeviceMemoryResource } from '../device-memory-resource-brand.js';
import { notIpcEnabledError } from '../memory-pool.js';

/**
 * A Buffer of an IPC-enabled pool, as another process imports it
 * (`Buffer.fromIpcDescriptor`): the 64 bytes of cuMemPoolExportPointer as
 * base64, and the size. A plain object that JSON, `process.send` and
 * `postMessage` carry unchanged. It is not a handle: it names the allocation
 * only in a process that imported its pool.
 */
export interface IpcBufferDescriptor {
  /** The CUmemPoolPtrExportData's 64 bytes, base64. */
  readonly data: string;
  /** The buffer's size in bytes. */
  readonly size: number;
}

/** Whether a resource is a DeviceMemoryResource (by its brand, not its shape) that shares its memory. */
function isIpcEnabled(resource: unknown): resource is DeviceMemoryResource {
  return isBrandedDeviceMemoryResource(resource) && (resource as DeviceMemoryResource).isIpcEnabled;
}

function nameOf(resource: unknown): string {
  return typeof resource === 'object' && resource !== null ? resource.constructor.name : describeValue(resource);
}

/** The descriptor of a buffer of an IPC-enabled pool (cuMemPoolExportPointer). */
export function exportIpcBuffer(buffer: Buffer): IpcBufferDescriptor {
  const what = 'Buffer.ipcDescriptor';
  const resource = buffer.memoryResource;
  if (!isIpcEnabled(resource)) throw notIpcEnabledError(what, nameOf(resource));
  const ptr = buffer.ptr; // ClosedResourceError after close
  resource.device.ensureCurrent();
  resource.prepareBufferExport(); // before allocationHandle() was ever called, the driver refused every buffer
  return { data: encodeIpcPayload(driver.cuMemPoolExportPointer(ptr).reserved, what), size: buffer.size };
}

/**
 * Imports the allocation of a descriptor into a resource imported from its
 * pool (cuMemPoolImportPointer). Descriptor and resource are checked strictly
 * first (an IpcError), then the stream; the caller makes the Buffer.
 */
export function importIpcPointer(
  resource: DeviceMemoryResource,
  descriptor: IpcBufferDescriptor,
  stream: StreamArgument | undefined,
): { ptr: CUdeviceptr; size: number; stream: bigint } {
  const what = 'Buffer.fromIpcDescriptor';
  const fields = checkIpcRecord(descriptor, `${what}: the descriptor`, ['data', 'size']);
  const bytes = decodeIpcPayload(fields['data'], `${what}: the descriptor's data`);
  const size = fields['size'];
  if (typeof size !== 'number' || !Number.isSafeInteger(size) || size < 0) {
    throw new IpcError(
      `${what}: the descriptor's size must be a non-negative safe integer (bytes), got ${describeValue(size)}`,
    );
  }
  if (!isIpcEnabled(resource)) throw notIpcEnabledError(what, nameOf(resource));
  if (!resource.isImported) {
    throw new IpcError(
      `${what}: the resource's pool was made in this process; import the exporting process's pool first (DeviceMemoryResource.fromAllocationHandle) and pass that resource`,
    );
  }
  const orderedOn = streamHandle(stream ?? 0n);
  const pool = resource.pool; // ClosedResourceError after close
  resource.device.ensureCurrent();
  return { ptr: driver.cuMemPoolImportPointer(pool, { reserved: bytes }), size, stream: orderedOn };
}
