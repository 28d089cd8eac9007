// The machine the run came from, for the report's heading.
// usage: node host-info.mjs <arch>   (prints one JSON line; never fails)
import { spawnSync } from 'node:child_process';
import { cpus } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const run = (cmd, args) => {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 ? r.stdout.trim() : undefined;
};
const python = process.env.PYTHON || 'python3';
let pythonInfo = `${python}: not found`;
const versions = run(python, [join(here, 'numba_anchors.py'), 'versions']);
if (versions) {
  try {
    const v = JSON.parse(versions.split('\n').at(-1));
    pythonInfo = Object.entries(v)
      .map(([k, x]) => `${k} ${x}`)
      .join(', ');
  } catch {
    pythonInfo = versions;
  }
}
const nvcc = run('nvcc', ['--version'])?.match(/release [0-9.]+/)?.[0];
console.log(
  JSON.stringify({
    date: new Date().toISOString(),
    gpu:
      run('nvidia-smi', ['--query-gpu=name,driver_version', '--format=csv,noheader'])?.split('\n')[0] ??
      'no nvidia-smi',
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    node: process.versions.node,
    python: pythonInfo,
    nvcc: nvcc ?? 'no nvcc',
    arch: process.argv[2],
  }),
);
