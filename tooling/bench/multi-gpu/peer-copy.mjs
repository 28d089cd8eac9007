#!/usr/bin/env node
// Peer-copy bandwidth from device 0 to device 1: core's Buffer.copyTo between
// Buffers of two devices (cuMemcpyPeerAsync; both default pools made
// peerAccessibleBy the other) against cudaMemcpyPeerAsync in CUDA C
// (peer_copy.cu, built here with nvcc), in the same run, 1 MiB to 1 GiB.
// Each figure: bytes copied / time between two events around `iterations`
// back-to-back copies, after 3 warm-up copies.
//   node tooling/bench/multi-gpu/peer-copy.mjs [--iterations 20]
// Needs two GPUs (prints "needs 2 GPUs" and exits 0 with fewer) and a built
// checkout (packages/*/dist and the bindings addon).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const here = import.meta.dirname;
const root = join(here, '..', '..', '..');
const i = process.argv.indexOf('--iterations');
const ITERATIONS = i > 0 ? Number(process.argv[i + 1]) : 20;
const SIZES = [1, 4, 16, 64, 256, 1024].map((mib) => mib * 2 ** 20);

const { Device } = await import(pathToFileURL(join(root, 'packages', 'core', 'dist', 'index.js')).href);
const { Event } = await import(pathToFileURL(join(root, 'packages', 'streams', 'dist', 'index.js')).href);

const count = Device.count();
if (count < 2) {
  console.log(`peer-copy: needs 2 GPUs (this host has ${count}); nothing measured`);
  process.exit(0);
}
const [d0, d1] = [Device.get(0), Device.get(1)];
const peer = d0.canAccessPeer(d1) && d1.canAccessPeer(d0);
if (peer) {
  d0.memoryResource.peerAccessibleBy = [d1];
  d1.memoryResource.peerAccessibleBy = [d0];
}

function cudaJs() {
  const stream = d0.createStream();
  const other = d1.createStream();
  const gbps = [];
  for (const size of SIZES) {
    const a = d0.allocate(size, { stream });
    const b = d1.allocate(size, { stream: other }); // allocated on device 1, copied on device 0's stream
    other.synchronize();
    a.fill(1, { stream });
    stream.synchronize();
    for (let w = 0; w < 3; w++) a.copyTo(b, { stream });
    d0.ensureCurrent();
    const start = Event.create({ timing: true }).record(stream);
    for (let k = 0; k < ITERATIONS; k++) a.copyTo(b, { stream });
    d0.ensureCurrent();
    const end = Event.create({ timing: true }).record(stream);
    end.synchronize();
    gbps.push((size * ITERATIONS) / (end.elapsedTimeSince(start) * 1e-3) / 1e9);
    a.close({ stream });
    b.close();
  }
  stream.synchronize();
  return gbps;
}

function cudaC() {
  const dir = mkdtempSync(join(tmpdir(), 'peer-copy-'));
  try {
    const exe = join(dir, 'peer_copy');
    const built = spawnSync('nvcc', ['-O2', '-o', exe, join(here, 'peer_copy.cu')], { encoding: 'utf8' });
    if (built.status !== 0)
      return { error: `nvcc: ${(built.stderr || built.error?.message || '').trim().split('\n').at(-1)}` };
    const run = spawnSync(exe, [String(ITERATIONS), ...SIZES.map(String)], {
      encoding: 'utf8',
      env: { ...process.env, NCCL_NVLS_ENABLE: process.env.NCCL_NVLS_ENABLE ?? '0' },
    });
    if (run.status !== 0) return { error: (run.stderr || run.stdout).trim().split('\n').at(-1) };
    return JSON.parse(run.stdout.trim().split('\n').at(-1));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const js = cudaJs();
const c = cudaC();
console.log(
  `peer copy device 0 → device 1 on ${d0.name} (peer access ${peer ? 'on' : 'not possible'}), ${ITERATIONS} copies per size\n`,
);
console.log('| size | cuda-js Buffer.copyTo GB/s | CUDA C cudaMemcpyPeerAsync GB/s | cuda-js / C |');
console.log('|---|---|---|---|');
SIZES.forEach((size, k) => {
  const anchor = c.gbps?.[k];
  console.log(
    `| ${size / 2 ** 20} MiB | ${js[k].toFixed(1)} | ${anchor === undefined ? `not measured (${c.error})` : anchor.toFixed(1)} | ${anchor === undefined ? '' : (js[k] / anchor).toFixed(2)} |`,
  );
});
