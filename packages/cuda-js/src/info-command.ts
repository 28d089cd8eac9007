import Table from 'cli-table3';
import { libraryReport } from './library-report.js';
import { systemReport, type NvmlDeviceSummary, type NvmlReport } from './system-report.js';

export interface InfoOptions {
  readonly json?: boolean | undefined;
  readonly verbose?: boolean | undefined;
}

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

/** One line per GPU as NVML reports it: what it is, how full, how warm, how much power, where, and its NvLink. */
function nvmlDeviceLine(d: NvmlDeviceSummary): string {
  const parts = [d.uuid, `compute ${d.computeCapability}`, `${gib(d.memory.usedBytes)} of ${gib(d.memory.totalBytes)} used`];
  if (d.utilization) parts.push(`${d.utilization.gpu}% busy`);
  if (d.temperatureC !== null) parts.push(`${d.temperatureC} °C`);
  if (d.power.usageW !== null) parts.push(`${d.power.usageW.toFixed(0)} W${d.power.limitW === null ? '' : ` of ${d.power.limitW.toFixed(0)} W`}`);
  if (d.clocksMHz.sm !== null) parts.push(`SM ${d.clocksMHz.sm}${d.clocksMHz.maxSm === null ? '' : `/${d.clocksMHz.maxSm}`} MHz`);
  parts.push(`PCI ${d.pciBusId}`);
  parts.push(d.nvlink.links ? `NVLink${d.nvlink.version ? ` ${d.nvlink.version}` : ''}: ${d.nvlink.active} of ${d.nvlink.links} links active` : 'no NVLink');
  return `gpu ${d.index}: ${d.name} (${parts.join(', ')})`;
}

/** The first sentence of a reason (`LibraryNotFoundError: CUDA library 'nvml' was not found`), for a one-line summary. */
export function headline(reason: string): string {
  const end = reason.search(/\.(\s|$)/);
  return end === -1 ? reason : reason.slice(0, end);
}

/** The NVML lines of `cuda-js info`: the driver and each GPU, or one short line that says why NVML could not be asked (the whole reason is among the problems, printed last). */
export function nvmlLines(nvml: NvmlReport): string[] {
  if (!nvml.available) return [`NVML: unavailable (no GPU figures from the NVIDIA Management Library): ${headline(nvml.reason)} (see below)`];
  return [`NVIDIA driver: ${nvml.driverVersion} (NVML ${nvml.nvmlVersion}, CUDA ${nvml.cudaDriverVersion}), ${nvml.devices.length} GPU(s)`, ...nvml.devices.map(nvmlDeviceLine)];
}

/** The peer-access lines of `cuda-js info`: a matrix of which device (row) can address which device's memory (column). */
export function peerAccessLines(matrix: readonly (readonly boolean[])[]): string[] {
  if (matrix.length === 0) return [];
  if (matrix.length === 1) return ['peer access: one device, no peers'];
  const width = Math.max(3, String(matrix.length - 1).length);
  const cell = (text: string) => text.padStart(width + 1);
  const lines = ["peer access (cuDeviceCanAccessPeer: can the row device address the column device's memory?):"];
  lines.push(`${cell('')}${matrix.map((_, j) => cell(String(j))).join('')}`);
  matrix.forEach((row, i) => lines.push(`${cell(String(i))}${row.map((ok, j) => cell(i === j ? '-' : ok ? 'yes' : 'no')).join('')}`));
  return lines;
}

/** Prints the library report; returns the exit code (0: printed, whatever is missing). */
export function runInfo(options: InfoOptions, write: (text: string) => void = (t) => process.stdout.write(t)): number {
  const { rows, errors } = libraryReport();
  const system = systemReport();
  if (options.json) {
    const libraries = rows.map(({ kind, name, found, path, version, foundVia, notes }) => ({ kind, name, found, path, version, foundVia, notes }));
    write(JSON.stringify({ libraries, ...system }, null, 2) + '\n');
    return 0;
  }
  write(`CUDA driver: ${system.driverVersion ?? 'unavailable (see below)'}\n`);
  for (const d of system.devices) write(`device ${d.ordinal}: ${d.name} (${d.arch}, ${d.totalMemoryGiB.toFixed(1)} GiB, ${d.uuid}, PCI ${d.pciBusId})\n`);
  for (const line of peerAccessLines(system.peerAccess)) write(`${line}\n`);
  for (const line of nvmlLines(system.nvml)) write(`${line}\n`);
  const table = new Table({ head: ['kind', 'name', 'version', 'found via', 'path / notes'], style: { head: [], border: [] } });
  for (const row of rows) {
    const detail = [row.path ?? '', ...row.notes].filter(Boolean).join('\n');
    table.push([row.kind, row.name, row.version ?? (row.found && row.kind === 'library' ? '?' : ''), row.foundVia ?? 'MISSING', detail]);
  }
  write(`cuda-js: CUDA libraries on this machine\n${table.toString()}\n`);
  const missing = rows.filter((r) => !r.found).map((r) => (r.kind === 'library' ? r.name : `${r.kind} ${r.name}`));
  write(missing.length ? `missing: ${missing.join(', ')}\n` : 'everything in the catalog was found\n');
  // last, and whole: why the driver, the devices or NVML could not be read (a missing library's message lists every place tried)
  for (const p of system.problems) write(`\n${p}\n`);
  if (options.verbose) for (const error of errors.values()) write(`\n${error.message}\n`);
  return 0;
}
