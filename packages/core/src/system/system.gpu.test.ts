import { spawnSync } from 'node:child_process';
import { describeGpu } from '@cuda-js/test-support';
import { expect, it } from 'vitest';
import { Device, driverVersion, system } from '../index.js';

// `system` (NVML) against nvidia-smi, which reads the same NVML: the same GPUs,
// in the same order, with the same names, UUIDs, memory, PCI bus ids, driver
// version and compute capabilities. Where nvidia-smi is absent, the comparison
// is skipped and says why.
const QUERY = 'name,uuid,memory.total,pci.bus_id,driver_version,compute_cap';

interface SmiRow {
  name: string;
  uuid: string;
  memoryTotalMiB: number;
  pciBusId: string;
  driverVersion: string;
  computeCap: string;
}

function nvidiaSmi(): { rows: SmiRow[] } | { reason: string } {
  const r = spawnSync('nvidia-smi', [`--query-gpu=${QUERY}`, '--format=csv,noheader,nounits'], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  if (r.error) return { reason: `nvidia-smi could not be run: ${r.error.message}` };
  if (r.status !== 0)
    return { reason: `nvidia-smi exited with ${r.status}: ${`${r.stderr}${r.stdout}`.trim().split('\n')[0]}` };
  const rows = r.stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, uuid, memory, pciBusId, driver, cap] = line.split(',').map((f) => f.trim());
      return {
        name: name!,
        uuid: uuid!,
        memoryTotalMiB: Number(memory),
        pciBusId: pciBusId!,
        driverVersion: driver!,
        computeCap: cap!,
      };
    });
  return { rows };
}

describeGpu('system (NVML) on a GPU host', () => {
  const smi = nvidiaSmi();
  if ('reason' in smi) console.log(`system.gpu.test.ts: the nvidia-smi comparison is skipped: ${smi.reason}`);

  it('NVML is available, with a driver version and at least one device', () => {
    expect(system.available, system.unavailableReason).toBe(true);
    expect(system.driverVersion).toMatch(/^\d+\.\d+(\.\d+)?$/);
    expect(system.nvmlVersion).toContain(system.driverVersion);
    expect(system.deviceCount).toBeGreaterThan(0);
    // the CUDA version that NVML reads from the driver library is the driver API's own
    expect(system.cudaDriverVersion).toEqual(driverVersion());
  });

  it.skipIf('reason' in smi)('matches nvidia-smi device by device', () => {
    const rows = (smi as { rows: SmiRow[] }).rows;
    const devices = system.devices();
    expect(devices.map((d) => d.uuid)).toEqual(rows.map((r) => r.uuid));
    rows.forEach((row, i) => {
      const d = devices[i]!;
      expect(d.name).toBe(row.name);
      expect(d.pci.busId).toBe(row.pciBusId);
      expect(`${d.computeCapability.major}.${d.computeCapability.minor}`).toBe(row.computeCap);
      expect(system.driverVersion).toBe(row.driverVersion);
      // nvidia-smi prints whole MiB
      expect(Math.abs(Number(d.memory.total / 2n ** 20n) - row.memoryTotalMiB)).toBeLessThanOrEqual(1);
    });
  });

  it('every figure is within its range', () => {
    for (const device of system.devices()) {
      const d = device.info();
      expect(d.uuid).toMatch(/^(GPU|MIG)-[0-9a-f-]+$/);
      expect(d.memory.free + d.memory.used).toBeLessThanOrEqual(d.memory.total);
      if (d.memory.reserved !== undefined) expect(d.memory.reserved).toBeLessThan(d.memory.total);
      if (d.utilization)
        for (const p of [d.utilization.gpu, d.utilization.memory]) expect(p >= 0 && p <= 100).toBe(true);
      if (d.temperature !== undefined) expect(d.temperature > 0 && d.temperature < 130).toBe(true);
      if (d.power.usage !== undefined) expect(d.power.usage).toBeGreaterThan(0);
      if (d.power.limit !== undefined) expect(d.power.limit).toBeGreaterThan(0);
      if (d.clocks.sm !== undefined && d.clocks.max.sm !== undefined)
        expect(d.clocks.sm).toBeLessThanOrEqual(d.clocks.max.sm);
      expect(d.pci.busId.toUpperCase()).toContain(
        `${d.pci.bus.toString(16).padStart(2, '0').toUpperCase()}:${d.pci.device.toString(16).padStart(2, '0').toUpperCase()}.`,
      );
      expect(d.pci.pciDeviceId & 0xffff).toBe(0x10de); // NVIDIA's vendor id
      expect(d.nvlink.links).toBeLessThanOrEqual(18);
      expect(d.nvlink.active).toBeLessThanOrEqual(d.nvlink.links);
    }
  });

  it('the same GPUs as the driver API, by UUID, with the same compute capability and PCI bus', () => {
    const byUuid = new Map(system.devices().map((d) => [d.uuid, d]));
    for (const device of Device.all()) {
      const s = byUuid.get(device.uuid);
      // a MIG instance has a UUID of its own in CUDA; NVML's devices are the whole GPUs
      if (!s) {
        console.log(
          `system.gpu.test.ts: CUDA device ${device.ordinal} (${device.uuid}) is no NVML device: a MIG instance? not compared`,
        );
        continue;
      }
      expect(s.computeCapability).toEqual(device.computeCapability);
      // CUDA's total leaves out what the driver keeps; NVML's is the whole
      expect(device.totalMemory).toBeLessThanOrEqual(s.memory.total);
      // domain:bus:device.function, however many digits the domain has
      const [domain, bus, dev] = device.pciBusId.split(/[:.]/).map((h) => Number.parseInt(h, 16));
      expect([domain, bus, dev]).toEqual([s.pci.domain, s.pci.bus, s.pci.device]);
    }
  });
});
