import { libraryReport, type LibraryReportRow } from './library-report.js';
import { systemReport, type NvmlDeviceSummary, type NvmlReport, type SystemReport } from './system-report.js';

export interface InfoOptions {
  readonly json?: boolean | undefined;
  readonly verbose?: boolean | undefined;
  /** List every library, header set and libdevice that pathfinder knows, not only those the stack uses. */
  readonly all?: boolean | undefined;
  /** The width to fit the text in (default: the terminal's, else 80). */
  readonly columns?: number | undefined;
}

/** What works on this machine: a JIT compile (libNVVM and libdevice), a C++ compile (NVRTC), a run (a device). */
export interface Readiness {
  readonly jitCompile: boolean;
  readonly cxxCompile: boolean;
  readonly run: boolean;
  /** The JIT compile and the run in one line, for people. */
  readonly summary: string;
  /** The C++ compile, in a line of its own. */
  readonly cxxSummary: string;
}

/** What works here, from the report: the line that `cuda-js info` prints first. */
export function readiness(
  rows: readonly LibraryReportRow[],
  system: Pick<SystemReport, 'driverVersion' | 'devices'>,
): Readiness {
  const row = (kind: LibraryReportRow['kind'], name: string) => rows.find((r) => r.kind === kind && r.name === name);
  const nvvm = row('library', 'nvvm');
  const libdevice = row('libdevice', 'libdevice');
  const nvrtc = row('library', 'nvrtc');
  const jitCompile = nvvm?.found === true && libdevice?.found === true;
  const cxxCompile = nvrtc?.found === true;
  const run = system.devices.length > 0;
  const version = (r: LibraryReportRow | undefined) => (r?.version ? ` ${r.version}` : '');
  const jit = jitCompile ? `yes (libNVVM${version(nvvm)})` : `no (${nvvm?.found ? 'libdevice' : 'libNVVM'} not found)`;
  const cxx = cxxCompile ? `yes${version(nvrtc) ? ` (CUDA${version(nvrtc)})` : ''}` : 'no (NVRTC not found)';
  const runs = run
    ? `yes (${system.devices.length} device${system.devices.length === 1 ? '' : 's'})`
    : `no ${system.driverVersion === undefined ? 'driver' : 'device'}, use CUDA_JS_SIMULATOR=1`;
  return {
    jitCompile,
    cxxCompile,
    run,
    summary: `JIT compile: ${jit}; run: ${runs}`,
    cxxSummary: `C++ compile (NVRTC): ${cxx}`,
  };
}

/**
 * `text` in lines of at most `width` characters: broken at spaces, a word
 * longer than a line (a path) after a `/` where it can, else anywhere; lines
 * after the first indented by `indent`. Existing line breaks are kept.
 */
export function wrapText(text: string, width: number, indent = ''): string[] {
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    const room = () => width - (out.length > 0 ? indent.length : 0);
    const flush = () => {
      out.push(out.length > 0 ? `${indent}${line}` : line);
      line = '';
    };
    const lead = /^\s*/.exec(paragraph)![0];
    const words = paragraph.slice(lead.length).split(/ +/);
    line = lead;
    for (let word of words) {
      if (line.trim() !== '' && line.length + 1 + word.length <= room()) {
        line += ` ${word}`;
        continue;
      }
      if (line.trim() !== '') flush();
      while (line.length + word.length > room() && room() > 0) {
        const space = room() - line.length;
        const slash = word.lastIndexOf('/', space - 1);
        const cut = slash > 0 ? slash + 1 : Math.max(1, space);
        line += word.slice(0, cut);
        word = word.slice(cut);
        flush();
      }
      line += word;
    }
    flush();
  }
  return out.map((l) => l.trimEnd());
}

function gib(bytes: number): string {
  return `${(bytes / 2 ** 30).toFixed(1)} GiB`;
}

/** One line per GPU as NVML reports it: what it is, how full, how warm, how much power, where, and its NvLink. */
function nvmlDeviceLine(d: NvmlDeviceSummary): string {
  const parts = [
    d.uuid,
    `compute ${d.computeCapability}`,
    `${gib(d.memory.usedBytes)} of ${gib(d.memory.totalBytes)} used`,
  ];
  if (d.utilization) parts.push(`${d.utilization.gpu}% busy`);
  if (d.temperatureC !== null) parts.push(`${d.temperatureC} °C`);
  if (d.power.usageW !== null)
    parts.push(`${d.power.usageW.toFixed(0)} W${d.power.limitW === null ? '' : ` of ${d.power.limitW.toFixed(0)} W`}`);
  if (d.clocksMHz.sm !== null)
    parts.push(`SM ${d.clocksMHz.sm}${d.clocksMHz.maxSm === null ? '' : `/${d.clocksMHz.maxSm}`} MHz`);
  parts.push(`PCI ${d.pciBusId}`);
  parts.push(
    d.nvlink.links
      ? `NVLink${d.nvlink.version ? ` ${d.nvlink.version}` : ''}: ${d.nvlink.active} of ${d.nvlink.links} links active`
      : 'no NVLink',
  );
  return `gpu ${d.index}: ${d.name} (${parts.join(', ')})`;
}

/** The first sentence of a reason (`LibraryNotFoundError: CUDA library 'nvml' was not found`), for a one-line summary. */
export function headline(reason: string): string {
  const end = reason.search(/\.(\s|$)/);
  return end === -1 ? reason : reason.slice(0, end);
}

/** The NVML lines of `cuda-js info`: the driver and each GPU, or one short line that says why NVML could not be asked (the whole reason is among the problems, printed last). */
export function nvmlLines(nvml: NvmlReport): string[] {
  if (!nvml.available)
    return [
      `NVML: unavailable (no GPU figures from the NVIDIA Management Library): ${headline(nvml.reason)} (see below)`,
    ];
  return [
    `NVIDIA driver: ${nvml.driverVersion} (NVML ${nvml.nvmlVersion}, CUDA ${nvml.cudaDriverVersion}), ${nvml.devices.length} GPU(s)`,
    ...nvml.devices.map(nvmlDeviceLine),
  ];
}

/** The peer-access lines of `cuda-js info`: a matrix of which device (row) can address which device's memory (column). */
export function peerAccessLines(matrix: readonly (readonly boolean[])[]): string[] {
  if (matrix.length === 0) return [];
  if (matrix.length === 1) return ['peer access: one device, no peers'];
  const width = Math.max(3, String(matrix.length - 1).length);
  const cell = (text: string) => text.padStart(width + 1);
  const lines = ["peer access (cuDeviceCanAccessPeer: can the row device address the column device's memory?):"];
  lines.push(`${cell('')}${matrix.map((_, j) => cell(String(j))).join('')}`);
  matrix.forEach((row, i) =>
    lines.push(`${cell(String(i))}${row.map((ok, j) => cell(i === j ? '-' : ok ? 'yes' : 'no')).join('')}`),
  );
  return lines;
}

/** The table of libraries, fitted in `columns`: name, version, how it was found, the path and notes (wrapped). */
function libraryTable(rows: readonly LibraryReportRow[], columns: number): string {
  const names = rows.map((r) => (r.kind === 'headers' ? `${r.name} headers` : r.name));
  const versions = rows.map((r) => r.version ?? (r.found && r.kind === 'library' ? '?' : ''));
  const via = rows.map((r) => r.foundVia ?? 'MISSING');
  // each column: its content, one space each side, and a border (5 borders for 4 columns)
  const widthOf = (texts: readonly string[], head: string, most: number) =>
    Math.min(most, Math.max(head.length, ...texts.map((t) => t.length))) + 2;
  const widths = [widthOf(names, 'name', 16), widthOf(versions, 'version', 8), widthOf(via, 'found via', 16)];
  // a narrow terminal: the widest of the first columns gives way until the paths have 16 columns
  const sum = () => widths.reduce((a, b) => a + b, 0);
  while (columns - 5 - sum() < 16 && Math.max(...widths) > 6) {
    const widest = widths.indexOf(Math.max(...widths));
    widths[widest]! -= 1;
  }
  const last = Math.max(16, columns - 5 - sum());
  const cell = (text: string, width: number) => wrapText(text, width - 2).join('\n');
  const body = rows.map((row, i) => {
    const detail = [row.path ?? '', ...row.notes]
      .filter(Boolean)
      .map((t) => cell(t, last))
      .join('\n');
    return [cell(names[i]!, widths[0]!), cell(versions[i]!, widths[1]!), cell(via[i]!, widths[2]!), detail];
  });
  return boxTable([['name', 'version', 'found via', 'path / notes'], ...body], [...widths, last]);
}

/**
 * Rows of cells (each cell's lines no wider than its column's width less 2)
 * drawn with box characters, a rule under every row, as cli-table3 draws
 * them (whose load cost a sixth of `cuda-js info`'s time).
 */
export function boxTable(rows: readonly (readonly string[])[], widths: readonly number[]): string {
  const rule = (left: string, middle: string, right: string) =>
    `${left}${widths.map((w) => '─'.repeat(w)).join(middle)}${right}`;
  const out = [rule('┌', '┬', '┐')];
  rows.forEach((cells, r) => {
    const lines = cells.map((c) => c.split('\n'));
    const height = Math.max(1, ...lines.map((l) => l.length));
    for (let i = 0; i < height; i++)
      out.push(`│${widths.map((w, c) => ` ${(lines[c]?.[i] ?? '').padEnd(w - 2)} `).join('│')}│`);
    out.push(r === rows.length - 1 ? rule('└', '┴', '┘') : rule('├', '┼', '┤'));
  });
  return out.join('\n');
}

/** Prints the library report; returns the exit code (0: printed, whatever is missing). */
export function runInfo(options: InfoOptions, print: (text: string) => void = (t) => process.stdout.write(t)): number {
  // the report is printed in one write: a reader that stops early (`cuda-js info | head`) then breaks no later one
  let report = '';
  const write = (text: string): void => {
    report += text;
  };
  const status = writeInfo(options, write);
  print(report);
  return status;
}

function writeInfo(options: InfoOptions, write: (text: string) => void): number {
  const { rows, errors } = libraryReport({ all: options.all });
  const system = systemReport();
  const ready = readiness(rows, system);
  if (options.json) {
    const libraries = rows.map(({ kind, name, found, path, version, foundVia, notes }) => ({
      kind,
      name,
      found,
      path,
      version,
      foundVia,
      notes,
    }));
    const { jitCompile, cxxCompile, run } = ready;
    write(JSON.stringify({ ready: { jitCompile, cxxCompile, run }, libraries, ...system }, null, 2) + '\n');
    return 0;
  }
  const columns = Math.max(40, options.columns ?? (process.stdout.columns || 80));
  const line = (text: string, indent = '  ') => {
    for (const l of wrapText(text, columns, indent)) write(`${l}\n`);
  };
  line(ready.summary);
  line(ready.cxxSummary);
  line(`CUDA driver: ${system.driverVersion ?? 'unavailable (see below)'}`);
  for (const d of system.devices)
    line(
      `device ${d.ordinal}: ${d.name} (${d.arch}, ${d.totalMemoryGiB.toFixed(1)} GiB, ${d.uuid}, PCI ${d.pciBusId})`,
    );
  for (const l of peerAccessLines(system.peerAccess)) line(l);
  for (const l of nvmlLines(system.nvml)) line(l);
  line(`cuda-js: CUDA libraries on this machine${options.all ? '' : ' (those cuda-js uses; --all: every one)'}`);
  write(`${libraryTable(rows, columns)}\n`);
  const missing = rows.filter((r) => !r.found).map((r) => (r.kind === 'library' ? r.name : `${r.kind} ${r.name}`));
  line(
    missing.length
      ? `missing: ${missing.join(', ')}`
      : options.all
        ? 'everything in the catalog was found'
        : 'everything that cuda-js uses was found',
  );
  // last, and whole: why the driver, the devices or NVML could not be read (a missing library's message lists every place tried)
  for (const p of system.problems) {
    write('\n');
    line(p, '');
  }
  if (options.verbose) {
    for (const error of errors.values()) {
      write('\n');
      line(error.message, '');
    }
  }
  return 0;
}
