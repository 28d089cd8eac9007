import Table from 'cli-table3';
import { libraryReport } from './library-report.js';
import { systemReport } from './system-report.js';

export interface InfoOptions {
  readonly json?: boolean;
  readonly verbose?: boolean;
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
  write(`CUDA driver: ${system.driverVersion ?? 'unavailable'}\n`);
  for (const d of system.devices) write(`device ${d.ordinal}: ${d.name} (${d.arch}, ${d.totalMemoryGiB.toFixed(1)} GiB, ${d.uuid}, PCI ${d.pciBusId})\n`);
  for (const p of system.problems) write(`${p}\n`);
  const table = new Table({ head: ['kind', 'name', 'version', 'found via', 'path / notes'], style: { head: [], border: [] } });
  for (const row of rows) {
    const detail = [row.path ?? '', ...row.notes].filter(Boolean).join('\n');
    table.push([row.kind, row.name, row.version ?? (row.found && row.kind === 'library' ? '?' : ''), row.foundVia ?? 'MISSING', detail]);
  }
  write(`cuda-js: CUDA libraries on this machine\n${table.toString()}\n`);
  const missing = rows.filter((r) => !r.found).map((r) => (r.kind === 'library' ? r.name : `${r.kind} ${r.name}`));
  write(missing.length ? `missing: ${missing.join(', ')}\n` : 'everything in the catalog was found\n');
  if (options.verbose) for (const error of errors.values()) write(`\n${error.message}\n`);
  return 0;
}
