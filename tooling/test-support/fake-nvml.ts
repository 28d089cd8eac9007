// A stand-in libnvidia-ml.so.1 (fake-nvml.c) for the NVML tests of machines
// without an NVIDIA driver, built with gcc into the system's temporary folder
// the first time a test asks for it (nothing is downloaded).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SOURCE = join(import.meta.dirname, 'fake-nvml.c');

/** What the fake reports for its first device (the tests compare against these). */
export const FAKE_NVML = {
  driverVersion: '580.65.06',
  nvmlVersion: '13.580.65.06',
  cudaDriverVersion: 13000,
  devices: [
    {
      name: 'Fake NVIDIA H200',
      uuid: 'GPU-0f0e0d0c-1111-2222-3333-444455556666',
      busId: '00000000:1D:00.0',
      busIdLegacy: '0000:1D:00.0',
      domain: 0,
      bus: 0x1d,
      device: 0,
      pciDeviceId: 0x233510de,
      pciSubSystemId: 0x16eb10de,
      total: 150754820096n,
      reserved: 512n << 20n,
      used: 3n << 30n,
      utilization: { gpu: 37, memory: 12 },
      clocks: { graphics: 1980, sm: 1980, memory: 3201, video: 1755 },
      maxClocks: { graphics: 1980, sm: 1980, memory: 3201, video: 1755 },
      temperature: 41,
      powerMilliwatts: 123456,
      limitMilliwatts: 700000,
      computeCapability: { major: 9, minor: 0 },
      nvlinks: 18,
      nvlinksActive: 6,
      nvlinkVersion: 6,
    },
    {
      name: 'Fake NVIDIA A100',
      uuid: 'GPU-aaaaaaaa-bbbb-cccc-dddd-eeeeffff0000',
      busId: '00000001:B2:1F.0',
      busIdLegacy: '0001:B2:1F.0',
      domain: 1,
      bus: 0xb2,
      device: 0x1f,
      pciDeviceId: 0x20b010de,
      pciSubSystemId: 0x134f10de,
      total: 42949672960n,
      reserved: 256n << 20n,
      used: 0n,
      utilization: { gpu: 0, memory: 0 },
      clocks: { graphics: 210, sm: 210, memory: 1215, video: 585 },
      maxClocks: { graphics: 1410, sm: 1410, memory: 1215, video: 1290 },
      temperature: 33,
      powerMilliwatts: undefined,
      limitMilliwatts: undefined,
      computeCapability: { major: 8, minor: 0 },
      nvlinks: 0,
      nvlinksActive: 0,
      nvlinkVersion: undefined,
    },
  ],
} as const;

let built: { path: string } | { reason: string } | undefined;

/**
 * The fake library's path (built once per source text, shared by test
 * processes), or why it could not be built (no gcc): tests that need it skip
 * with that reason.
 */
export function fakeNvml(): { path: string } | { reason: string } {
  if (built) return built;
  const source = readFileSync(SOURCE);
  const dir = join(tmpdir(), `cuda-js-fake-nvml-${createHash('sha256').update(source).digest('hex').slice(0, 16)}`);
  const path = join(dir, 'libnvidia-ml.so.1');
  if (existsSync(path)) return (built = { path });
  try {
    mkdirSync(dir, { recursive: true });
    // built beside its final name and renamed, so that a concurrent test process never loads half a file
    const partial = join(dir, `libnvidia-ml.so.1.${process.pid}.partial`);
    execFileSync('gcc', ['-shared', '-fPIC', '-O1', '-Wall', '-o', partial, SOURCE], { stdio: 'pipe' });
    renameSync(partial, path);
    built = { path };
  } catch (error) {
    const e = error as { stderr?: Buffer; message: string };
    rmSync(join(dir, `libnvidia-ml.so.1.${process.pid}.partial`), { force: true });
    built = {
      reason: `the fake NVML library could not be built with gcc: ${(e.stderr?.toString() || e.message).split('\n')[0]}`,
    };
  }
  return built;
}
