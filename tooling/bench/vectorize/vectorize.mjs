// cuda-js's vectorize on N float32 elements (device arrays, a given out):
// bandwidth (3 arrays moved per element) and call overhead on 1 element.
// Prints one JSON object. Usage: node vectorize.mjs [n] [reps]
import { createRequire } from 'node:module';
// cuda-js as the JIT benchmark's package depends on it (this folder has no package of its own)
const { Device, vectorize, toDevice, deviceArrayLike, createXoroshiro128pStates } = await import(
  createRequire(new URL('../jit/package.json', import.meta.url)).resolve('cuda-js')
);
const n = Number(process.argv[2] ?? 1 << 26);
const reps = Number(process.argv[3] ?? 20);
const device = Device.get(0).setCurrent();
const add = vectorize(['float32(float32, float32)'], (a, b) => a + b);
const a = toDevice(Float32Array.from({ length: n }, (_, i) => i % 1024));
const b = toDevice(new Float32Array(n).fill(1));
const out = deviceArrayLike(a);
add(a, b, { out });
device.synchronize();
const times = [];
for (let r = 0; r < reps; r++) {
  const t0 = performance.now();
  add(a, b, { out });
  device.synchronize();
  times.push(performance.now() - t0);
}
times.sort((x, y) => x - y);
const ms = times[Math.floor(times.length / 2)];
const check = out.copyToHost();
const ok = check[12345] === (12345 % 1024) + 1;
// call overhead: one element, no synchronize per call
const a1 = toDevice(new Float32Array(1)),
  b1 = toDevice(new Float32Array(1)),
  o1 = deviceArrayLike(a1);
const calls = 20000;
for (let i = 0; i < 1000; i++) add(a1, b1, { out: o1 });
device.synchronize();
const c0 = performance.now();
for (let i = 0; i < calls; i++) add(a1, b1, { out: o1 });
device.synchronize();
const callUs = ((performance.now() - c0) * 1000) / calls;
const s0 = performance.now();
createXoroshiro128pStates(1e6, 42);
const statesMs = performance.now() - s0;
console.log(JSON.stringify({ side: 'cuda-js', n, ms, gbps: (3 * 4 * n) / (ms * 1e6), callUs, statesMs, ok }));
