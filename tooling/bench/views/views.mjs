#!/usr/bin/env node
// ns per StridedMemoryView.fromAny(...) from a DLPack-protocol object, a CUDA
// array interface object and a TypedArray: the implicit conversion that core
// and jit make for each array argument of a launch. No GPU is needed: device
// memory is an address that the view only carries.
//   node tooling/bench/views/views.mjs [--json] [--iterations N]
// Needs the built package (npx pnpm@12.4.2 exec turbo run build --filter=@cuda-js/memory-view).
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const entry = join(root, 'packages', 'memory-view', 'dist', 'index.js');
if (!existsSync(entry)) {
  console.error(
    `${entry} is not built: run \`npx pnpm@12.4.2 exec turbo run build --filter=@cuda-js/memory-view\` first`,
  );
  process.exit(2);
}
const { StridedMemoryView, DLPACK, DLPACK_DEVICE, CUDA_ARRAY_INTERFACE } = await import(pathToFileURL(entry).href);

const args = process.argv.slice(2);
const json = args.includes('--json');
const iterArg = args.indexOf('--iterations');
const iterations = iterArg >= 0 ? Number(args[iterArg + 1]) : 2_000_000;

// A third-party device array as docs/protocols.md shows it: a new tensor per export, as DLPack requires.
class DeviceArray {
  constructor(ptr, n) {
    this.ptr = ptr;
    this.shape = [n];
    this.strides = [1];
  }
  [DLPACK_DEVICE]() {
    return [2, 0];
  }
  [DLPACK](_request) {
    return {
      version: { major: 1, minor: 3 },
      device: { type: 2, id: 0 },
      data: this.ptr,
      dtype: { code: 2, bits: 32, lanes: 1 },
      shape: this.shape,
      strides: this.strides,
      managerContext: this,
    };
  }
}

// A CUDA array interface exporter that returns one frozen object, as the spec recommends.
class CaiArray {
  constructor(ptr, n, stream) {
    this.cai = Object.freeze({
      shape: Object.freeze([n]),
      typestr: '<f4',
      data: Object.freeze([ptr, false]),
      strides: null,
      version: 3,
      stream,
    });
  }
  [CUDA_ARRAY_INTERFACE]() {
    return this.cai;
  }
}

const stream = 0x7f00_0000_1000n; // the consumer's CUstream, as core passes it at launch
const cases = [
  {
    name: 'DLPack protocol object (device, consumer stream)',
    obj: new DeviceArray(0x7f12_3400_0000n, 1024),
    options: { stream },
  },
  {
    name: 'CUDA array interface object (same stream)',
    obj: new CaiArray(0x7f12_3400_0000n, 1024, stream),
    options: { stream },
  },
  { name: 'Float32Array', obj: new Float32Array(1024), options: undefined },
  {
    name: 'StridedMemoryView (passed again)',
    obj: StridedMemoryView.fromAny(new Float32Array(1024)),
    options: undefined,
  },
];

function timeCase({ obj, options }, n) {
  let check = 0;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) check += StridedMemoryView.fromAny(obj, options).shape[0];
  const ns = Number(process.hrtime.bigint() - start) / n;
  if (check !== n * 1024) throw new Error('benchmark lost its work');
  return ns;
}

const results = [];
for (const c of cases) {
  timeCase(c, Math.min(iterations, 200_000)); // warm up: let the JIT settle
  const runs = [];
  for (let r = 0; r < 5; r++) runs.push(timeCase(c, iterations));
  runs.sort((a, b) => a - b);
  results.push({ name: c.name, nsPerView: runs[2], best: runs[0] });
}

if (json) {
  console.log(JSON.stringify({ runtime: `node ${process.version}`, iterations, results }));
} else {
  console.log(
    `StridedMemoryView.fromAny, node ${process.version}, ${iterations} views per run, median of 5 runs (goal: at most 200 ns)`,
  );
  for (const r of results)
    console.log(`${r.name.padEnd(52)} ${r.nsPerView.toFixed(1).padStart(8)} ns per view  (best ${r.best.toFixed(1)})`);
}
