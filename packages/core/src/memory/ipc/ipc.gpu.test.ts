// IPC on a GPU: two Node.js processes share device memory and events, as
// cuda.core's memory_ipc examples do. This process makes an IPC-enabled pool,
// writes a buffer with a kernel and records an interprocess event; a child
// (test-fixtures/ipc-child.mjs, which imports the built packages: build them
// first) imports the pool, the buffer and the event, reads what was written
// once the event completes, writes the other half and records an event of
// its own, which this process waits for before it reads. Spin kernels before
// each write make a side that does not wait for the other's event read zeros.
// The child frees its import before this process frees the memory.
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, fstatSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ClosedResourceError, Event, IpcError } from '@cuda-js/streams';
import { describeGpu } from '@cuda-js/test-support';
import { beforeAll, expect, it } from 'vitest';
import { Buffer, type Device, DeviceMemoryResource, launch } from '../../index.js';
import { gpuTestKernels } from '../../test-kernels.test-support.js';

const SOURCE = String.raw`
extern "C" __global__ void write_pattern(int* out, int n, int salt) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = i * 3 + salt;
}
extern "C" __global__ void spin(unsigned long long cycles) {
  long long start = clock64();
  while ((unsigned long long)(clock64() - start) < cycles) {}
}
`;

const CHILD = fileURLToPath(new URL('./test-fixtures/ipc-child.mjs', import.meta.url));
const BUILT_CORE = fileURLToPath(new URL('../../../dist/index.js', import.meta.url));
/** How long one step of the child may take (its start includes Node.js, the driver and NVRTC). */
const STEP_MS = 15_000;
const SPIN_MS = 300;

interface ChildMessage {
  readonly type: string;
  readonly [field: string]: unknown;
}

/** The child's messages, in order, with a timeout per wait; an error message, an exit or a timeout rejects (with the child's stderr). */
function channel(child: ChildProcess): (type: string) => Promise<ChildMessage> {
  const arrived: ChildMessage[] = [];
  const waiting: ((message: ChildMessage | Error) => void)[] = [];
  let stderr = '';
  child.stderr?.on('data', (chunk: Uint8Array) => {
    stderr += chunk.toString();
  });
  const deliver = (message: ChildMessage | Error) => {
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else if (!(message instanceof Error)) arrived.push(message);
  };
  child.on('message', (message) => deliver(message as ChildMessage));
  child.on('exit', (code, signal) => {
    // wakes every wait that is left: the child will say nothing more
    const gone = () =>
      new Error(`the child exited (code ${code}, signal ${signal}) before answering; its stderr:\n${stderr}`);
    while (waiting.length > 0) deliver(gone());
  });
  return async (type) => {
    const message =
      arrived.shift() ??
      (await new Promise<ChildMessage | Error>((resolve) => {
        const timer = setTimeout(
          () => resolve(new Error(`no '${type}' from the child in ${STEP_MS} ms; its stderr:\n${stderr}`)),
          STEP_MS,
        );
        waiting.push((m) => {
          clearTimeout(timer);
          resolve(m);
        });
      }));
    if (message instanceof Error) throw message;
    if (message.type === 'error')
      throw new Error(
        `the child failed: ${String(message['name'])}: ${String(message['message'])}\n${String(message['stack'])}\nstderr:\n${stderr}`,
      );
    if (message.type !== type) throw new Error(`expected '${type}' from the child, got ${JSON.stringify(message)}`);
    return message;
  };
}

function send(child: ChildProcess, message: object): Promise<void> {
  return new Promise((resolve, reject) => child.send(message, (error) => (error ? reject(error) : resolve())));
}

/** Runs `body` with a forked child that is killed however `body` ends. */
async function withChild<T>(
  body: (child: ChildProcess, next: (type: string) => Promise<ChildMessage>) => Promise<T>,
): Promise<T> {
  // execArgv: [] so that the test runner's own flags stay out of the child; the environment is inherited
  const child = fork(CHILD, [], {
    execArgv: [],
    env: process.env,
    stdio: ['ignore', 'inherit', 'pipe', 'ipc'],
    serialization: 'json',
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    const result = await body(child, channel(child));
    expect(await exited).toBe(0);
    return result;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

const threads = (n: number) => ({ grid: Math.ceil(n / 256), block: 256 });

describeGpu('IPC: two processes share a pool, its buffers and events', () => {
  const gpu = gpuTestKernels(SOURCE, ['write_pattern', 'spin']);
  let device: Device;
  let spinCycles: bigint;
  beforeAll(() => {
    if (!existsSync(BUILT_CORE))
      throw new Error(
        `the child imports the built packages, and ${BUILT_CORE} is missing: build first (cd packages/core && npx tsc -b)`,
      );
    device = gpu.device;
    spinCycles = BigInt(device.attributes.clockRate) * BigInt(SPIN_MS); // clockRate is in kHz
  });

  it("the child reads what this process wrote after its event, and this process reads the child's write after the child's event", async () => {
    const n = 1 << 16;
    const salt = 1000;
    using resource = new DeviceMemoryResource(device, { ipcEnabled: true });
    using stream = device.createStream();
    expect(resource.isIpcEnabled).toBe(true);
    expect(resource.isImported).toBe(false);
    const buffer = resource.allocate(2 * n * 4, { stream });
    try {
      await withChild(async (child, next) => {
        await next('ready');
        // zeros, then (after the spin) the pattern in the first half: a child that does not wait for `written` reads zeros
        buffer.fill(0, { stream });
        launch(stream, { grid: 1, block: 1 }, gpu.kernel('spin'), spinCycles);
        launch(stream, threads(n), gpu.kernel('write_pattern'), buffer, n, salt);
        using written = device.createEvent({ interprocess: true }).record(stream);
        const pool = resource.allocationHandle();
        expect(pool).toEqual({ kind: 'posix-fd', pid: process.pid, fd: pool.fd, deviceUuid: device.uuid });
        expect(resource.allocationHandle()).toEqual(pool); // one descriptor, exported once
        await send(child, {
          type: 'start',
          pool,
          buffer: buffer.ipcDescriptor(),
          written: written.ipcDescriptor(),
          n,
          salt,
          spinCycles: spinCycles.toString(),
        });

        const read = await next('read');
        expect(read['mismatches']).toBe(0);
        expect(read['sample']).toEqual([salt, salt + 3, salt + 6, salt + 9]);
        expect(read['size']).toBe(2 * n * 4);
        expect(read['refused']).toEqual({
          isImported: true,
          isIpcEnabled: true,
          allocate: 'IpcError',
          allocationHandle: 'IpcError',
        });
        using done = Event.fromIpcDescriptor(read['done'] as never);
        stream.wait(done);
        const host = new Int32Array(2 * n);
        buffer.copyTo(host, { stream });
        let mismatches = 0;
        for (let i = 0; i < n; i++) {
          if (host[i] !== i * 3 + salt) mismatches++;
          if (host[n + i] !== i * 3 + salt + 1) mismatches++;
        }
        expect(mismatches).toBe(0);
        // this copy goes before the child destroys the event itself (using it after that is undefined behaviour)
        done.close();

        await send(child, { type: 'finish' });
        const closed = await next('closed');
        expect(closed['closedErrors']).toEqual({
          pool: 'ClosedResourceError',
          ptr: 'ClosedResourceError',
          closeAgain: 'none',
        });
        expect(closed['closed']).toBe(true);
      });
    } finally {
      // after the child's free has completed (or the child is gone)
      buffer.close({ stream });
      stream.synchronize();
    }
  });

  it('a pool of its own: one exported descriptor, open until close; close is once, and what follows it is a ClosedResourceError', () => {
    const resource = new DeviceMemoryResource(device, { ipcEnabled: true, maxSize: 64 << 20 });
    using stream = device.createStream();
    const buffer = resource.allocate(4096, { stream });
    const { fd } = resource.allocationHandle();
    expect(() => fstatSync(fd)).not.toThrow(); // open while the resource is
    const descriptor = buffer.ipcDescriptor();
    expect(JSON.parse(JSON.stringify(descriptor))).toEqual(descriptor);
    expect(descriptor.size).toBe(4096);
    expect(descriptor.data).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    // a buffer outlives its resource's close: the driver keeps the pool until the last allocation is freed
    resource.close();
    resource[Symbol.dispose]();
    expect(resource.closed).toBe(true);
    expect(() => fstatSync(fd)).toThrow(/EBADF/);
    expect(() => resource.allocate(16, { stream })).toThrow(ClosedResourceError);
    expect(() => resource.allocationHandle()).toThrow(ClosedResourceError);
    expect(() => resource.pool).toThrow(ClosedResourceError);
    buffer.fill(7, { stream });
    buffer.close({ stream });
    stream.synchronize();
    expect(() => buffer.ipcDescriptor()).toThrow(ClosedResourceError);
  });

  it('memory and events that are not shared give no descriptor, and a maxSize-only pool is not IPC-enabled', () => {
    using stream = device.createStream();
    using plain = device.allocate(256, { stream });
    expect(() => plain.ipcDescriptor()).toThrow(IpcError);
    expect(() => plain.ipcDescriptor()).toThrow(/the memory resource \(DeviceMemoryResource\) is not IPC-enabled/);
    expect(() => device.memoryResource.allocationHandle()).toThrow(IpcError);
    expect(() => Buffer.fromIpcDescriptor(device.memoryResource, { data: 'A'.repeat(86) + '==', size: 256 })).toThrow(
      /is not IPC-enabled/,
    );
    using own = new DeviceMemoryResource(device, { maxSize: 32 << 20 });
    expect(own.isIpcEnabled).toBe(false);
    using ownBuffer = own.allocate(256, { stream });
    expect(() => ownBuffer.ipcDescriptor()).toThrow(IpcError);
    expect(() => own.allocationHandle()).toThrow(/is not IPC-enabled/);
    using timing = device.createEvent({ timing: true });
    expect(() => timing.ipcDescriptor()).toThrow(IpcError);
    using interprocess = device.createEvent({ interprocess: true });
    expect(interprocess.isInterprocess).toBe(true);
    expect(interprocess.ipcDescriptor().data).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    stream.synchronize();
  });
});
