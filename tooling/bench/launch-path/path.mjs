// The cuda-js side of the launch-path benchmark (run.sh): every step between
// a JS call and the driver, measured in one Node process on the kernels of
// ../launch/kernels.mjs, served in batches so that it runs interleaved with
// the raw C loop and the Python anchors (interleave.mjs):
//   - the crossing alone: an empty native function (launchCrossingProbe), the
//     same with a packed launch as its argument (what cuLaunchKernelPacked
//     checks before the driver), and a generated binding that asks the driver
//     something cheap (cuCtxGetCurrent, which core's launch no longer calls from JS);
//   - the bindings' launch forms: cuLaunchKernel (10 arguments over
//     createKernelParams), cuLaunchKernelPacked, a launch function;
//   - core: launch() and LaunchPlan.run with Buffers, launchBatch (record and
//     submit), and the native queue's submission alone (the driver's own cost
//     in a tight native loop inside a process that runs JS);
//   - the JIT (k1 only: its kernel has k1's parameter list): launch, and in a batch.
// usage: node path.mjs <cubin> [--loop <form index> <kernel> <launches>]
// prints one JSON line { ready, forms, info }, then for each line
// "<form index> <kernel> <launches>" the µs per launch of one batch ("skip"
// where a form does not apply to the kernel).
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { driver } from '@cuda-js/bindings';
import { PACKED_LAUNCH_HEADER } from '@cuda-js/bindings/runtime';
import {
  cuda,
  Device,
  f64,
  i32,
  jit,
  LaunchBatch,
  LaunchConfig,
  LaunchPlan,
  launch,
  launchBatch,
  StridedMemoryView,
} from 'cuda-js';
import { COLUMNS, MIXED_SCALARS } from '../launch/kernels.mjs';

const [cubinPath] = process.argv.slice(2);
const device = Device.get(0).setCurrent();
const stream = device.createStream({ nonBlocking: true });
const s = stream.handle;
const library = driver.cuLibraryLoadData(new Uint8Array(readFileSync(cubinPath)));
const N = 1024;
const buffers = Array.from({ length: 16 }, () => device.allocate(4096, { stream }));
const config = new LaunchConfig({ grid: 1, block: 32 });

function argumentsOf(kernel, arrays) {
  if (kernel === 'kmixed') return [arrays[0], MIXED_SCALARS.a, f64(MIXED_SCALARS.b), BigInt(MIXED_SCALARS.c)];
  const count = Number(kernel.slice(1));
  return [...arrays.slice(0, count), N];
}

/** The kernel's parameters written once, as a C program writes them: offsets, sizes and the bytes. */
function layoutOf(kernel) {
  const ptrs = buffers.map((b) => b.ptr);
  if (kernel === 'kmixed')
    return {
      offsets: [0, 8, 16, 24],
      sizes: [8, 4, 8, 8],
      write: (dv) => (
        dv.setBigUint64(0, ptrs[0], true),
        dv.setInt32(8, 7, true),
        dv.setFloat64(16, 1.5, true),
        dv.setBigUint64(24, 9n, true)
      ),
    };
  const count = Number(kernel.slice(1));
  return {
    offsets: Array.from({ length: count + 1 }, (_, i) => i * 8),
    sizes: Array.from({ length: count + 1 }, (_, i) => (i < count ? 8 : 4)),
    write: (dv) => {
      for (let i = 0; i < count; i++) dv.setBigUint64(i * 8, ptrs[i], true);
      dv.setInt32(count * 8, N, true);
    },
  };
}

/** A header for a packed launch or launch function: grid 1, block 32, the stream, the current context. */
function writeHeader(buffer, at) {
  const dims = new Uint32Array(buffer, at, 7);
  dims.set([1, 1, 1, 32, 1, 1, 0]);
  const handles = new BigUint64Array(buffer, at + PACKED_LAUNCH_HEADER.hStream, 2);
  handles[0] = s;
  handles[1] = driver.cuCtxGetCurrent();
}

function bindingsForms(kernel) {
  const handle = driver.cuLibraryGetKernel(library, kernel);
  const { offsets, sizes, write } = layoutOf(kernel);
  const size = offsets.at(-1) + sizes.at(-1);
  const headerAt = Math.ceil(size / 8) * 8;
  const plain = new ArrayBuffer(headerAt);
  write(new DataView(plain));
  const params = driver.createKernelParams(plain, offsets, sizes);
  const packedBuffer = new ArrayBuffer(headerAt + PACKED_LAUNCH_HEADER.bytes);
  write(new DataView(packedBuffer));
  writeHeader(packedBuffer, headerAt);
  const packed = driver.createPackedLaunch(handle, packedBuffer, offsets, sizes, headerAt);
  const fn = driver.createLaunchFunction(handle, headerAt + PACKED_LAUNCH_HEADER.bytes, offsets, sizes, headerAt);
  write(new DataView(fn.buffer));
  writeHeader(fn.buffer, headerAt);
  return { handle, params, packed, fn };
}

// A JIT kernel with k1's parameter list: the array is its pointer alone (no extents used), the scalar an i32.
const jitK1 = jit((a, n) => {
  if (n < 0) a[cuda.threadIdx.x] = 0;
});
const f32View = StridedMemoryView.fromAny(buffers[0], { stream }).view({ dtype: 'float32' });

/** Each form: a function of (kernel name) giving a loop(launches), or undefined where it does not apply. */
const FORMS = [
  {
    name: 'empty native call (launchCrossingProbe())',
    make: () => (n) => {
      for (let i = 0; i < n; i++) driver.launchCrossingProbe();
    },
  },
  {
    name: 'native call with a packed launch (its checks, no driver)',
    make: (_k, b) => (n) => {
      const p = b.packed;
      for (let i = 0; i < n; i++) driver.launchCrossingProbe(p);
    },
  },
  {
    name: 'driver.cuCtxGetCurrent() (a generated binding)',
    make: () => (n) => {
      for (let i = 0; i < n; i++) driver.cuCtxGetCurrent();
    },
  },
  {
    name: 'bindings cuLaunchKernel (10 arguments)',
    make: (_k, b) => (n) => {
      const { handle, params } = b;
      for (let i = 0; i < n; i++) driver.cuLaunchKernel(handle, 1, 1, 1, 32, 1, 1, 0, s, params);
    },
  },
  {
    name: 'bindings cuLaunchKernelPacked',
    make: (_k, b) => (n) => {
      const p = b.packed;
      for (let i = 0; i < n; i++) driver.cuLaunchKernelPacked(p);
    },
  },
  {
    name: 'bindings launch function',
    make: (_k, b) => (n) => {
      const fn = b.fn;
      for (let i = 0; i < n; i++) fn();
    },
  },
  {
    name: 'core launch(), Buffer',
    make: (k, b) => {
      const kernel = { handle: b.handle, name: k };
      const args = argumentsOf(k, buffers);
      return (n) => {
        for (let i = 0; i < n; i++) launch(stream, config, kernel, ...args);
      };
    },
  },
  {
    name: 'core LaunchPlan.run, Buffer',
    make: (k, b) => {
      const plan = new LaunchPlan({ handle: b.handle, name: k });
      const args = argumentsOf(k, buffers);
      return (n) => {
        for (let i = 0; i < n; i++) plan.run(config, s, args);
      };
    },
  },
  {
    name: 'core launchBatch, Buffer (record + submit, per launch)',
    make: (k, b) => {
      const kernel = { handle: b.handle, name: k };
      const args = argumentsOf(k, buffers);
      return (n) =>
        launchBatch(stream, (batch) => {
          for (let i = 0; i < n; i++) batch.launch(config, kernel, ...args);
        });
    },
  },
  {
    name: 'native queue submission alone (the driver in a tight native loop)',
    make: (k, b) => {
      const plan = new LaunchPlan({ handle: b.handle, name: k });
      const args = argumentsOf(k, buffers);
      let batch;
      return {
        prepare(n) {
          batch = new LaunchBatch(s, driver.cuCtxGetCurrent());
          for (let i = 0; i < n; i++) batch.launchPlan(plan, config, args);
        },
        run: () => batch.submit(),
      };
    },
  },
  {
    name: 'JIT launch (k1: a Float32 view and an i32)',
    make: (k) => {
      if (k !== 'k1') return undefined;
      const n32 = i32(N);
      return (n) => {
        for (let i = 0; i < n; i++) jitK1.launch({ grid: 1, block: 32, stream }, f32View, n32);
      };
    },
  },
  {
    name: 'JIT launch in a batch',
    make: (k) => {
      if (k !== 'k1') return undefined;
      const n32 = i32(N);
      return (n) =>
        launchBatch(stream, (batch) => {
          for (let i = 0; i < n; i++) jitK1.launch({ grid: 1, block: 32, batch }, f32View, n32);
        });
    },
  },
];

const perKernel = Object.fromEntries(COLUMNS.map(({ kernel }) => [kernel, bindingsForms(kernel)]));
const loops = FORMS.map((form) =>
  Object.fromEntries(
    COLUMNS.map(({ kernel }) => {
      const made = form.make(kernel, perKernel[kernel]);
      if (made === undefined) return [kernel, undefined];
      const timed = typeof made === 'function' ? { prepare: () => undefined, run: made } : made;
      // warm: compiled (the JIT kernel too), configs and streams checked, arguments remembered
      timed.prepare(2000);
      timed.run(2000);
      return [kernel, timed];
    }),
  ),
);
stream.synchronize();

function batch(timed, launches) {
  timed.prepare(launches);
  const t0 = process.hrtime.bigint();
  timed.run(launches);
  const t1 = process.hrtime.bigint();
  stream.synchronize();
  return Number(t1 - t0) / 1000 / launches;
}

// perf.sh: one form on one kernel for a long run, then exit (node path.mjs <cubin> --loop <form index> <kernel> <launches>)
if (process.argv[3] === '--loop') {
  const [, , , , form, kernel, total] = process.argv;
  const timed = loops[Number(form)]?.[kernel];
  if (timed === undefined) throw new Error(`no form ${form} for kernel ${kernel}`);
  for (let done = 0; done < Number(total); done += 20000) batch(timed, 20000);
  console.error(`${FORMS[Number(form)].name} on ${kernel}: ${total} launches`);
  process.exit(0);
}

const info = { node: process.version, v8: process.versions.v8, device: device.name };
process.stdout.write(`${JSON.stringify({ ready: true, forms: FORMS.map((f) => f.name), info })}\n`);
for await (const line of createInterface({ input: process.stdin })) {
  const [form, kernel, launches] = line.trim().split(/\s+/);
  const column = loops[Number(form)];
  if (column === undefined || !(kernel in column)) {
    process.stdout.write(`error unknown form ${form} or kernel ${kernel}\n`);
    continue;
  }
  const timed = column[kernel];
  process.stdout.write(timed === undefined ? 'skip\n' : `${batch(timed, Number(launches)).toFixed(4)}\n`);
}
