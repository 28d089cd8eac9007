// The cuda-js side of the launch benchmark, serving batches so that it runs
// interleaved with the raw C loop and the Python anchors (interleave.mjs): µs
// per launch of the empty kernels of kernels.mjs through core's launch (arrays
// as bigint pointers, Buffers, StridedMemoryViews and foreign protocol objects;
// a reused LaunchConfig, or a fresh `{ grid, block }` literal per call as the
// README writes it) and through the bindings' fast path.
// usage: node arrays.mjs <cubin>
// prints one JSON line { ready, forms, info }, then for each line
// "<form index> <kernel> <launches>" on stdin the µs per launch of one batch
// (the loop alone; the stream is synchronized after it, untimed).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { driver } from '@cuda-js/bindings';
import { Device, f64, LaunchConfig, launch } from '@cuda-js/core';
import { StridedMemoryView } from '@cuda-js/memory-view';
import { ARRAY_COUNTS, COLUMNS, MIXED_SCALARS } from './kernels.mjs';

const [cubinPath] = process.argv.slice(2);
const device = Device.get(0).setCurrent();
const stream = device.createStream({ nonBlocking: true });
const library = driver.cuLibraryLoadData(new Uint8Array(readFileSync(cubinPath)));
const N = 1024;
const buffers = Array.from({ length: 16 }, () => device.allocate(4096, { stream }));
// a third-party array that builds a new answer on each call
const foreign = buffers.map((b) => ({
  [Symbol.for('cuda.array_interface')]: () => ({
    shape: [N],
    typestr: '<f4',
    data: [b.ptr, false],
    strides: null,
    version: 3,
    stream: null,
  }),
}));
// one that returns the same frozen answer each time, as docs/protocols.md asks
const frozenForeign = buffers.map((b) => {
  const answer = Object.freeze({
    shape: Object.freeze([N]),
    typestr: '<f4',
    data: Object.freeze([b.ptr, false]),
    strides: null,
    version: 3,
    stream: null,
  });
  return { [Symbol.for('cuda.array_interface')]: () => answer };
});
const views = foreign.map((f) => StridedMemoryView.fromAny(f, { stream: -1 }));
const config = new LaunchConfig({ grid: 1, block: 32 });

/** The arrays and scalars a kernel of the report takes, with `arrays` as its array arguments. */
function argumentsOf(kernel, arrays) {
  if (kernel === 'kmixed') return [arrays[0], MIXED_SCALARS.a, f64(MIXED_SCALARS.b), BigInt(MIXED_SCALARS.c)];
  const count = Number(kernel.slice(1));
  return [...arrays.slice(0, count), N];
}

/**
 * A loop of `launches` launches written as a user writes one: each argument
 * by name (no spread), one function per form and kernel, so that each loop
 * has call sites of its own.
 */
function loopOf(call, args) {
  const names = args.map((_, i) => `a${i}`);
  const source = `const [${names.join(', ')}] = args;\nreturn function loop(launches) {\n  for (let i = 0; i < launches; i++) ${call(names.join(', '))};\n};`;
  return new Function('args', 'launch', 'driver', 'stream', 'config', 'kernel', 'params', 'handle', 's', source);
}

const FORMS = [
  {
    name: 'bindings fast path',
    call: () => 'driver.cuLaunchKernel(handle, 1, 1, 1, 32, 1, 1, 0, s, params)',
    arrays: buffers.map((b) => b.ptr),
  },
  {
    name: 'core launch, bigint pointers',
    call: (a) => `launch(stream, config, kernel, ${a})`,
    arrays: buffers.map((b) => b.ptr),
  },
  { name: 'core launch, Buffer', call: (a) => `launch(stream, config, kernel, ${a})`, arrays: buffers },
  {
    name: 'core launch, Buffer, plain-object config',
    call: (a) => `launch(stream, { grid: 1, block: 32 }, kernel, ${a})`,
    arrays: buffers,
  },
  { name: 'core launch, StridedMemoryView', call: (a) => `launch(stream, config, kernel, ${a})`, arrays: views },
  {
    name: 'core launch, protocol object (CAI, new answer per call)',
    call: (a) => `launch(stream, config, kernel, ${a})`,
    arrays: foreign,
  },
  {
    name: 'core launch, protocol object (CAI, frozen answer)',
    call: (a) => `launch(stream, config, kernel, ${a})`,
    arrays: frozenForeign,
  },
];

/** The packed parameters of the bindings' fast path: written once, as a C program writes them. */
function fastPathParams(kernel) {
  const ptrs = buffers.map((b) => b.ptr);
  if (kernel === 'kmixed') {
    const dv = new DataView(new ArrayBuffer(32));
    dv.setBigUint64(0, ptrs[0], true);
    dv.setInt32(8, MIXED_SCALARS.a, true);
    dv.setFloat64(16, MIXED_SCALARS.b, true);
    dv.setBigUint64(24, BigInt(MIXED_SCALARS.c), true);
    return driver.createKernelParams(dv.buffer, [0, 8, 16, 24], [8, 4, 8, 8]);
  }
  const count = Number(kernel.slice(1));
  const dv = new DataView(new ArrayBuffer((count + 1) * 8));
  for (let i = 0; i < count; i++) dv.setBigUint64(i * 8, ptrs[i], true);
  dv.setInt32(count * 8, N, true);
  return driver.createKernelParams(
    dv.buffer,
    Array.from({ length: count + 1 }, (_, i) => i * 8),
    Array.from({ length: count + 1 }, (_, i) => (i < count ? 8 : 4)),
  );
}

// loops[form][kernel]
const loops = FORMS.map((form) =>
  Object.fromEntries(
    COLUMNS.map(({ kernel: name }) => {
      const kernel = { handle: driver.cuLibraryGetKernel(library, name), name };
      const args = argumentsOf(name, form.arrays);
      const make = loopOf(form.call, args);
      const loop = make(
        args,
        launch,
        driver,
        stream,
        config,
        kernel,
        fastPathParams(name),
        kernel.handle,
        stream.handle,
      );
      loop(2000); // warm: compiled, configs and streams checked, arguments remembered
      return [name, loop];
    }),
  ),
);
stream.synchronize();

function batch(loop, launches) {
  const t0 = process.hrtime.bigint();
  loop(launches);
  const t1 = process.hrtime.bigint();
  stream.synchronize();
  return Number(t1 - t0) / 1000 / launches;
}

const info = { node: process.version, device: device.name, arrayCounts: ARRAY_COUNTS };
process.stdout.write(`${JSON.stringify({ ready: true, forms: FORMS.map((f) => f.name), info })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [form, kernel, launches] = line.trim().split(/\s+/);
  const loop = loops[Number(form)]?.[kernel];
  if (loop === undefined) {
    process.stdout.write(`error unknown form ${form} or kernel ${kernel}\n`);
    continue;
  }
  process.stdout.write(`${batch(loop, Number(launches)).toFixed(4)}\n`);
}
