// The child process of ipc.gpu.test.ts. It imports the built packages by
// their names (packages/*/dist: build them first), as another program would,
// and talks to the parent over the fork() channel in JSON:
//
//   child → parent  { type: 'ready' }                  device current, kernels compiled
//   parent → child  { type: 'start', pool, buffer, written, n, salt, spinCycles }
//   child → parent  { type: 'read', mismatches, sample, refused, done }
//                   it imported the pool, the buffer and the parent's event, waited for
//                   the event on its stream, read the first half, then (after a spin that
//                   only the event's ordering hides) wrote the second half and recorded
//                   `done`, an interprocess event of its own
//   parent → child  { type: 'finish' }                 the parent has read the second half
//   child → parent  { type: 'closed', closedErrors }   the import freed (and completed) first
//
// Any failure is sent as { type: 'error', name, message, stack } before the child exits 1.
import { Buffer, Device, DeviceMemoryResource, launch } from '@cuda-js/core';
import { Program } from '@cuda-js/program';
import { Event } from '@cuda-js/streams';

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

function send(message) {
  return new Promise((resolve, reject) => process.send(message, (error) => (error ? reject(error) : resolve())));
}

// Messages are queued from the start, so that none is lost between one wait and the next.
const arrived = [];
const waiting = [];
process.on('message', (message) => (waiting.length > 0 ? waiting.shift()(message) : arrived.push(message)));

async function nextMessage(type) {
  const message = arrived.length > 0 ? arrived.shift() : await new Promise((resolve) => waiting.push(resolve));
  if (message?.type !== type) throw new Error(`expected '${type}' from the parent, got ${JSON.stringify(message)}`);
  return message;
}

/** The name of the error that `f` throws, or 'none'. */
function errorName(f) {
  try {
    f();
    return 'none';
  } catch (error) {
    return error?.name ?? String(error);
  }
}

async function main() {
  if (
    typeof DeviceMemoryResource.fromAllocationHandle !== 'function' ||
    typeof Buffer.fromIpcDescriptor !== 'function'
  ) {
    throw new Error(
      'the built @cuda-js/core (packages/core/dist) predates IPC: build it again (cd packages/core && npx tsc -b)',
    );
  }
  const device = Device.get(0).setCurrent();
  const code = new Program(SOURCE, 'c++', { arch: device.arch }).compile('cubin');
  const writePattern = code.getKernel('write_pattern');
  const spin = code.getKernel('spin');
  const stream = device.createStream();
  await send({ type: 'ready' });

  const start = await nextMessage('start');
  const { n, salt } = start;
  // (Node.js 20 has no `using`: what this opens is closed at the end, or by the exit)
  const resource = DeviceMemoryResource.fromAllocationHandle(device, start.pool);
  const refused = {
    isImported: resource.isImported,
    isIpcEnabled: resource.isIpcEnabled,
    allocate: errorName(() => resource.allocate(16, { stream })),
    allocationHandle: errorName(() => resource.allocationHandle()),
  };
  const buffer = Buffer.fromIpcDescriptor(resource, start.buffer, { stream });
  const written = Event.fromIpcDescriptor(start.written);
  stream.wait(written);
  const host = new Int32Array(2 * n);
  buffer.copyTo(host, { stream });
  let mismatches = 0;
  for (let i = 0; i < n; i++) if (host[i] !== i * 3 + salt) mismatches++;

  // The parent reads the second half once `done` has completed: the spin makes a read that does not wait see zeros.
  launch(stream, { grid: 1, block: 1 }, spin, BigInt(start.spinCycles));
  launch(stream, { grid: Math.ceil(n / 256), block: 256 }, writePattern, buffer.ptr + BigInt(n * 4), n, salt + 1);
  const done = device.createEvent({ interprocess: true }).record(stream);
  await send({
    type: 'read',
    mismatches,
    sample: Array.from(host.subarray(0, 4)),
    refused,
    done: done.ipcDescriptor(),
    size: buffer.size,
  });

  await nextMessage('finish');
  // The import is freed here, and that free completes, before the parent frees the memory (as the driver asks).
  buffer.close({ stream });
  stream.synchronize();
  resource.close();
  const closedErrors = {
    pool: errorName(() => resource.pool),
    ptr: errorName(() => buffer.ptr),
    closeAgain: errorName(() => resource.close()),
  };
  written.close();
  done.close();
  stream.close();
  await send({ type: 'closed', closedErrors, closed: resource.closed });
}

main().then(
  () => process.disconnect(),
  async (error) => {
    process.exitCode = 1;
    try {
      await send({ type: 'error', name: error?.name, message: error?.message ?? String(error), stack: error?.stack });
    } finally {
      process.disconnect();
    }
  },
);
