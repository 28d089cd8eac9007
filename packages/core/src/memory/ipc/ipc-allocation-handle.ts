import { closeSync } from 'node:fs';
import { driver, duplicateFdFromProcess, type CUmemoryPool } from '@cuda-js/bindings';
import { checkIpcRecord, describeValue } from '@cuda-js/streams';
import type { Device } from '../../device/device.js';
import { IpcError } from '../../errors.js';

/**
 * A memory pool shared by another process, as that process's
 * `DeviceMemoryResource.allocationHandle()` describes it: a plain object that
 * JSON, `process.send` and `worker.postMessage` carry unchanged. The pool is
 * a POSIX file descriptor of the exporting process (Linux), which the
 * importer copies into itself with `pidfd_getfd`
 * (`duplicateFdFromProcess` of `@cuda-js/bindings`).
 */
export interface IpcAllocationHandle {
  /** How the pool is shared: a file descriptor of the exporting process. */
  readonly kind: 'posix-fd';
  /** The exporting process. */
  readonly pid: number;
  /** The descriptor's number in the exporting process (from cuMemPoolExportToShareableHandle). */
  readonly fd: number;
  /** The pool's device, as `Device.uuid` names it; where given, the importer's device must be the same GPU. */
  readonly deviceUuid?: string;
}

const MAX_INT32 = 2 ** 31 - 1;
const DEVICE_UUID = /^GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** The handle, checked strictly (an IpcError naming the field) before any driver or system call. */
export function checkAllocationHandle(value: unknown, what: string): IpcAllocationHandle {
  const fields = checkIpcRecord(value, `${what}: the handle`, ['kind', 'pid', 'fd'], ['deviceUuid']);
  const { kind, pid, fd, deviceUuid } = fields;
  if (kind !== 'posix-fd')
    throw new IpcError(
      `${what}: the handle's kind must be 'posix-fd' (a file descriptor of the exporting process), got ${describeValue(kind)}`,
    );
  if (!isIntegerIn(pid, 1, MAX_INT32))
    throw new IpcError(
      `${what}: the handle's pid must be a process id (an integer from 1 to 2^31-1), got ${describeValue(pid)}`,
    );
  if (!isIntegerIn(fd, 0, MAX_INT32))
    throw new IpcError(
      `${what}: the handle's fd must be a file descriptor (an integer from 0 to 2^31-1), got ${describeValue(fd)}`,
    );
  if (deviceUuid === undefined) return { kind, pid, fd };
  if (typeof deviceUuid !== 'string' || !DEVICE_UUID.test(deviceUuid)) {
    throw new IpcError(
      `${what}: the handle's deviceUuid must be a device UUID as Device.uuid gives it (GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx), got ${describeValue(deviceUuid)}`,
    );
  }
  return { kind, pid, fd, deviceUuid };
}

/** A new POSIX file descriptor of an IPC-enabled pool (cuMemPoolExportToShareableHandle writes an int). */
export function exportPoolDescriptor(pool: CUmemoryPool): number {
  const fd = new Int32Array(1);
  driver.cuMemPoolExportToShareableHandle(
    fd,
    pool,
    driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
    0,
  );
  return fd[0]!;
}

/**
 * Imports the pool of a handle into this process: checks the handle, copies
 * the exporter's descriptor (pidfd_getfd), gives the copy to
 * cuMemPoolImportFromShareableHandle and closes it again.
 */
export function importPool(device: Device, handle: unknown, what: string): CUmemoryPool {
  const checked = checkAllocationHandle(handle, what);
  if (checked.deviceUuid !== undefined && checked.deviceUuid !== device.uuid) {
    throw new IpcError(
      `${what}: the pool lives on the GPU ${checked.deviceUuid}, but ${device} is ${device.uuid} (device ordinals may differ between processes: CUDA_VISIBLE_DEVICES)`,
    );
  }
  const copy = duplicateFdFromProcess(checked.pid, checked.fd);
  try {
    device.ensureCurrent();
    // For a POSIX descriptor the driver takes the descriptor's value itself where C passes a pointer: an "address" of the fd's number.
    return driver.cuMemPoolImportFromShareableHandle(
      BigInt(copy),
      driver.CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
      0,
    );
  } finally {
    closeSync(copy);
  }
}
