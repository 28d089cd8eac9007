// The IPC surface without a GPU: every handle and descriptor that cannot be
// used is an IpcError naming what is wrong, and resource options are checked,
// before any driver call (so the error is the same with or without libcuda).
// The GPU half (two processes) is ipc.gpu.test.ts.
import { Buffer as NodeBuffer } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import {
  Buffer,
  CoreOptionError,
  type Device,
  DeviceMemoryResource,
  IpcError,
  MemoryArgumentError,
  type MemoryResource,
} from '../../index.js';

/** Thrown by the fake device: the call got past its checks. */
class Reached extends Error {}
const unreachableDevice = new Proxy(
  {},
  {
    get: () => {
      throw new Reached('device');
    },
  },
) as Device;

// 64 bytes whose base64 has '+' and '/' (so that base64url spells it differently)
const data = NodeBuffer.from(Uint8Array.from({ length: 64 }, (_, i) => (i * 37 + 251) & 255)).toString('base64');
/** A resource recognised as one (made by its constructor; a look-alike object is refused) that says it imported a pool. */
class SaysImported extends DeviceMemoryResource {
  override get isIpcEnabled(): boolean {
    return true;
  }
  override get isImported(): boolean {
    return this.imported;
  }
  constructor(readonly imported: boolean) {
    super(unreachableDevice);
  }
}
const imported: DeviceMemoryResource = new SaysImported(true);

function ipcMessage(f: () => unknown): string {
  try {
    f();
  } catch (error) {
    expect(error).toBeInstanceOf(IpcError);
    expect((error as Error).name).toBe('IpcError');
    return (error as Error).message;
  }
  throw new Error('expected an IpcError');
}

describe('Buffer.fromIpcDescriptor checks the descriptor first', () => {
  const from = (descriptor: unknown) => ipcMessage(() => Buffer.fromIpcDescriptor(imported, descriptor as never));
  it('names each malformed part', () => {
    expect(from(null)).toBe('Buffer.fromIpcDescriptor: the descriptor must be a plain object, got null');
    expect(from('descriptor')).toMatch(/must be a plain object, got the string "descriptor"/);
    expect(from([data, 16])).toMatch(/must be a plain object, got an array of 2/);
    expect(from(new Map())).toMatch(
      /must be a plain object \(as JSON or a structured clone makes it\), got an instance of Map/,
    );
    expect(from({ data })).toBe("Buffer.fromIpcDescriptor: the descriptor lacks the field 'size'");
    expect(from({ size: 16 })).toBe("Buffer.fromIpcDescriptor: the descriptor lacks the field 'data'");
    expect(from({ data, size: 16, pool: 1 })).toBe(
      "Buffer.fromIpcDescriptor: the descriptor has an unknown field 'pool' (known: data, size)",
    );
    expect(from({ data, size: 16, [Symbol('x')]: 1 })).toMatch(/has an unknown field 'Symbol\(x\)'/);
    expect(from(Object.defineProperty({ size: 16 }, 'data', { get: () => data, enumerable: true }))).toMatch(
      /field 'data' must be a data property, not an accessor/,
    );
  });

  it('takes only the canonical base64 of 64 bytes', () => {
    const bytes = (n: number) => NodeBuffer.from(new Uint8Array(n)).toString('base64');
    for (const bad of [
      bytes(63),
      bytes(65),
      bytes(0),
      data.slice(0, 86),
      `${data.slice(0, 85)}r==`,
      `${data.slice(0, 44)}\n${data.slice(44)}`,
      `${data} `,
      data.replaceAll('+', '-').replaceAll('/', '_'),
    ]) {
      expect(from({ data: bad, size: 16 })).toMatch(/the descriptor's data must be the canonical base64 of 64 bytes/);
    }
    expect(from({ data: new Uint8Array(64), size: 16 })).toMatch(
      /the descriptor's data must be a string of base64 \(64 bytes\), got an object/,
    );
  });

  it('takes a size that is a non-negative safe integer', () => {
    for (const size of [-1, 0.5, 2 ** 53, Number.NaN, Infinity, '16', 16n, null]) {
      expect(from({ data, size })).toMatch(
        /^Buffer\.fromIpcDescriptor: the descriptor's size must be a non-negative safe integer \(bytes\)/,
      );
    }
  });

  it('then the resource: it must be imported from the exporting process', () => {
    const descriptor = { data, size: 16 };
    expect(ipcMessage(() => Buffer.fromIpcDescriptor(new DeviceMemoryResource(unreachableDevice), descriptor))).toMatch(
      /\(DeviceMemoryResource\) is not IPC-enabled/,
    );
    expect(ipcMessage(() => Buffer.fromIpcDescriptor(new SaysImported(false), descriptor))).toMatch(
      /the resource's pool was made in this process/,
    );
    // a well-formed descriptor and an imported resource get to the stream, then the pool
    expect(() => Buffer.fromIpcDescriptor(imported, descriptor, { stream: 'stream' as never })).toThrow(TypeError);
  });
});

describe('DeviceMemoryResource.fromAllocationHandle checks the handle first', () => {
  const from = (handle: unknown) =>
    ipcMessage(() => DeviceMemoryResource.fromAllocationHandle(unreachableDevice, handle as never));
  it('names each malformed part', () => {
    const prefix = 'DeviceMemoryResource.fromAllocationHandle: the handle';
    expect(from(undefined)).toBe(`${prefix} must be a plain object, got undefined`);
    expect(from({ kind: 'posix-fd', pid: 10 })).toBe(`${prefix} lacks the field 'fd'`);
    expect(from({ kind: 'fabric', pid: 10, fd: 3 })).toBe(
      `${prefix}'s kind must be 'posix-fd' (a file descriptor of the exporting process), got the string "fabric"`,
    );
    expect(from({ kind: 'posix-fd', pid: 0, fd: 3 })).toBe(
      `${prefix}'s pid must be a process id (an integer from 1 to 2^31-1), got the number 0`,
    );
    expect(from({ kind: 'posix-fd', pid: 2 ** 31, fd: 3 })).toMatch(/pid must be a process id/);
    expect(from({ kind: 'posix-fd', pid: '10', fd: 3 })).toMatch(/pid must be a process id .*got the string "10"/);
    expect(from({ kind: 'posix-fd', pid: 10, fd: -1 })).toBe(
      `${prefix}'s fd must be a file descriptor (an integer from 0 to 2^31-1), got the number -1`,
    );
    expect(from({ kind: 'posix-fd', pid: 10, fd: 3.5 })).toMatch(/fd must be a file descriptor/);
    expect(from({ kind: 'posix-fd', pid: 10, fd: 3, deviceUuid: 'GPU-1234' })).toMatch(
      /deviceUuid must be a device UUID as Device.uuid gives it/,
    );
    expect(from({ kind: 'posix-fd', pid: 10, fd: 3, uuid: 'x' })).toBe(
      `${prefix} has an unknown field 'uuid' (known: kind, pid, fd, deviceUuid)`,
    );
  });

  it('a well-formed handle gets to the device (its UUID is compared before the descriptor is copied)', () => {
    const handle = {
      kind: 'posix-fd',
      pid: 10,
      fd: 3,
      deviceUuid: 'GPU-01234567-89ab-cdef-0123-456789abcdef',
    } as const;
    expect(() => DeviceMemoryResource.fromAllocationHandle(unreachableDevice, handle)).toThrow(Reached);
    expect(() =>
      DeviceMemoryResource.fromAllocationHandle(unreachableDevice, JSON.parse(JSON.stringify(handle))),
    ).toThrow(Reached);
  });
});

describe('DeviceMemoryResource options and sharing', () => {
  it('checks the options before it touches the device', () => {
    expect(() => new DeviceMemoryResource(unreachableDevice, { ipc: true } as never)).toThrow(
      "DeviceMemoryResource: unknown option 'ipc'; known options: pool, ipcEnabled, maxSize, peerAccessibleBy",
    );
    expect(() => new DeviceMemoryResource(unreachableDevice, { maxsize: 1 } as never)).toThrow(
      "DeviceMemoryResource: unknown option 'maxsize' (did you mean 'maxSize'?)",
    );
    expect(() => new DeviceMemoryResource(unreachableDevice, { ipcEnabled: 'yes' } as never)).toThrow(
      `DeviceMemoryResource: option 'ipcEnabled' must be true or false; got "yes"`,
    );
    expect(() => new DeviceMemoryResource(unreachableDevice, { ipcEnabled: true, maxSize: -1 })).toThrow(
      CoreOptionError,
    );
    expect(() => new DeviceMemoryResource(unreachableDevice, { maxSize: 2 ** 53 })).toThrow(
      /option 'maxSize' must be a non-negative safe integer/,
    );
    expect(() => new DeviceMemoryResource(unreachableDevice, { pool: 5 } as never)).toThrow(
      /option 'pool' must be a CUmemoryPool \(a bigint\); got 5/,
    );
    expect(() => new DeviceMemoryResource(unreachableDevice, { pool: 5n, ipcEnabled: true })).toThrow(
      MemoryArgumentError,
    );
    expect(() => new DeviceMemoryResource(unreachableDevice, { pool: 5n, ipcEnabled: true })).toThrow(
      /give one or the other/,
    );
    // well-formed options for an own pool get to the device (cuMemPoolCreate needs its context)
    expect(() => new DeviceMemoryResource(unreachableDevice, { ipcEnabled: true })).toThrow(Reached);
    expect(() => new DeviceMemoryResource(unreachableDevice, { maxSize: 1 << 20 })).toThrow(Reached);
    // the default pool and a given one are made lazily, and ipcEnabled: false asks for nothing
    expect(() => new DeviceMemoryResource(unreachableDevice, { pool: 5n, ipcEnabled: false })).not.toThrow();
  });

  it('a resource of the default or a given pool shares nothing, and its close() leaves the pool', () => {
    const resource = new DeviceMemoryResource(unreachableDevice, { pool: 0x1234n });
    expect(resource.isIpcEnabled).toBe(false);
    expect(resource.isImported).toBe(false);
    expect(ipcMessage(() => resource.allocationHandle())).toMatch(
      /^DeviceMemoryResource\.allocationHandle: the memory resource \(the default or a given pool\) is not IPC-enabled/,
    );
    resource.close();
    resource[Symbol.dispose]();
    expect(resource.closed).toBe(false);
    expect(resource.pool).toBe(0x1234n);
  });

  it('a buffer of a resource that is not IPC-enabled has no descriptor', () => {
    const released: bigint[] = [];
    const resource: MemoryResource = {
      allocate: () => {
        throw new Error('unused');
      },
      deallocate: (ptr) => void released.push(ptr),
      isDeviceAccessible: true,
      isHostAccessible: false,
      device: undefined,
    };
    const buffer = new Buffer(0x1000n, 64, resource, 0n);
    expect(ipcMessage(() => buffer.ipcDescriptor())).toMatch(
      /^Buffer\.ipcDescriptor: the memory resource \(Object\) is not IPC-enabled/,
    );
    buffer.close();
    expect(released).toEqual([0x1000n]);
  });
});
