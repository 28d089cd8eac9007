#!/usr/bin/env node
// All-reduce bus bandwidth over two GPUs, 1 KiB to 1 GiB (float32, sum):
// core's Communicator (ncclCommInitAll of devices 0 and 1 in this process,
// each call in one Communicator.group) against torch.distributed's NCCL
// all_reduce (torch_allreduce.py, one process per GPU), in the same run.
// Bus bandwidth as nccl-tests reports it: bytes / time x 2(n-1)/n, n = 2.
// Each figure: the time between two events around `iterations` calls, after
// 5 warm-ups. NCCL_NVLS_ENABLE=0 here and in torch's processes.
//   node tooling/bench/multi-gpu/allreduce.mjs [--iterations 20]
// Needs two GPUs (prints "needs 2 GPUs" and exits 0 with fewer), NCCL
// (the nvidia-nccl-cu13 wheel) and a built checkout.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const here = import.meta.dirname;
const root = join(here, '..', '..', '..');
const i = process.argv.indexOf('--iterations');
const ITERATIONS = i > 0 ? Number(process.argv[i + 1]) : 20;
const SIZES = Array.from({ length: 11 }, (_, k) => 2 ** (10 + 2 * k)); // 1 KiB, 4 KiB, ..., 1 GiB
process.env.NCCL_NVLS_ENABLE ??= '0';

const { Communicator, Device } = await import(pathToFileURL(join(root, 'packages', 'core', 'dist', 'index.js')).href);
const { Event } = await import(pathToFileURL(join(root, 'packages', 'streams', 'dist', 'index.js')).href);
const { StridedMemoryView } = await import(
  pathToFileURL(join(root, 'packages', 'memory-view', 'dist', 'index.js')).href
);

const count = Device.count();
if (count < 2) {
  console.log(`allreduce: needs 2 GPUs (this host has ${count}); nothing measured`);
  process.exit(0);
}

function cudaJs() {
  const devices = [Device.get(0), Device.get(1)];
  const comms = Communicator.initAll(devices);
  const streams = devices.map((d) => d.createStream());
  const ms = [];
  for (const size of SIZES) {
    const buffers = devices.map((d, r) => d.allocate(size, { stream: streams[r] }));
    buffers.forEach((b, r) => b.fill(0, { stream: streams[r] }));
    const views = buffers.map((b, r) =>
      StridedMemoryView.fromAny(b, { stream: streams[r].handle }).view({ dtype: 'float32' }),
    );
    const step = () =>
      Communicator.group(() => comms.forEach((c, r) => c.allReduce(views[r], views[r], { stream: streams[r] })));
    for (let w = 0; w < 5; w++) step();
    devices[0].ensureCurrent();
    const start = Event.create({ timing: true }).record(streams[0]);
    for (let k = 0; k < ITERATIONS; k++) step();
    devices[0].ensureCurrent();
    const end = Event.create({ timing: true }).record(streams[0]);
    end.synchronize();
    streams[1].synchronize();
    ms.push(end.elapsedTimeSince(start) / ITERATIONS);
    buffers.forEach((b) => b.close());
  }
  for (const c of comms) c.close();
  return { version: `NCCL ${Communicator.version}`, ms };
}

function torch() {
  const python = process.env.CUDA_JS_PYTHON || 'python3';
  const r = spawnSync(python, [join(here, 'torch_allreduce.py')], {
    input: JSON.stringify({ sizes: SIZES, iterations: ITERATIONS }),
    encoding: 'utf8',
    timeout: 900_000,
    env: process.env,
  });
  if (r.error) return { error: `${python}: ${r.error.message}` };
  const line = r.stdout.trim().split('\n').at(-1);
  try {
    return JSON.parse(line);
  } catch {
    return { error: (r.stderr || r.stdout).trim().split('\n').at(-1) };
  }
}

const busGbps = (size, ms) => (size / (ms * 1e-3) / 1e9) * ((2 * (2 - 1)) / 2);
const size = (bytes) => (bytes >= 2 ** 20 ? `${bytes / 2 ** 20} MiB` : `${bytes / 2 ** 10} KiB`);
const js = cudaJs();
const anchor = torch();
console.log(
  `all-reduce (float32 sum) over 2 × ${Device.get(0).name}; cuda-js: ${js.version}; torch: ${anchor.version ?? `not measured (${anchor.error})`}; ${ITERATIONS} calls per size\n`,
);
console.log('| size | cuda-js µs | cuda-js bus GB/s | torch µs | torch bus GB/s | cuda-js / torch (bus bw) |');
console.log('|---|---|---|---|---|---|');
SIZES.forEach((bytes, k) => {
  const t = anchor.ms?.[k];
  const cells = [size(bytes), (js.ms[k] * 1e3).toFixed(1), busGbps(bytes, js.ms[k]).toFixed(2)];
  cells.push(
    t === undefined ? 'not measured' : (t * 1e3).toFixed(1),
    t === undefined ? '' : busGbps(bytes, t).toFixed(2),
    t === undefined ? '' : (busGbps(bytes, js.ms[k]) / busGbps(bytes, t)).toFixed(2),
  );
  console.log(`| ${cells.join(' | ')} |`);
});
