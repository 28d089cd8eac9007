import Table from 'cli-table3';
import { libraryReport } from './library-report.js';

export interface InfoOptions {
  readonly json?: boolean;
  readonly verbose?: boolean;
}

/** Prints the library report; returns the exit code (0: printed, whatever is missing). */
export function runInfo(options: InfoOptions, write: (text: string) => void = (t) => process.stdout.write(t)): number {
  const { rows, errors } = libraryReport();
  if (options.json) {
    write(JSON.stringify(rows.map(({ kind, name, found, path, version, foundVia, notes }) => ({ kind, name, found, path, version, foundVia, notes })), null, 2) + '\n');
    return 0;
  }
  const table = new Table({ head: ['kind', 'name', 'version', 'found via', 'path / notes'], style: { head: [], border: [] } });
  for (const row of rows) {
    const detail = [row.path ?? '', ...row.notes].filter(Boolean).join('\n');
    table.push([row.kind, row.name, row.version ?? (row.found && row.kind === 'library' ? '?' : ''), row.foundVia ?? 'MISSING', detail]);
  }
  write(`cuda-js: CUDA libraries on this machine\n${table.toString()}\n`);
  const missing = rows.filter((r) => !r.found).map((r) => r.name);
  write(missing.length ? `missing: ${missing.join(', ')}\n` : 'everything in the catalog was found\n');
  if (options.verbose) for (const error of errors.values()) write(`\n${error.message}\n`);
  return 0;
}
