import {
  LIBRARY_CATALOG,
  NotFoundError,
  findHeaderDirectory,
  findLibdevice,
  findLibrary,
  SUPPORTED_HEADERS,
} from '@cuda-js/pathfinder';

/** One row of the library report: a catalog entry, found or not. */
export interface LibraryReportRow {
  readonly kind: 'library' | 'headers' | 'libdevice';
  readonly name: string;
  readonly found: boolean;
  readonly path?: string;
  readonly version?: string;
  readonly foundVia?: string;
  /** Notes on the choice made, or why nothing was found. */
  readonly notes: readonly string[];
}

export interface LibraryReport {
  readonly rows: readonly LibraryReportRow[];
}

function missing(kind: LibraryReportRow['kind'], name: string, error: unknown): LibraryReportRow {
  if (error instanceof NotFoundError) {
    const tried = error.attempts.length;
    return {
      kind,
      name,
      found: false,
      notes: [`not found (${tried} places tried; see \`cuda-js info --verbose\`)`],
      ...{ error },
    };
  }
  throw error;
}

/**
 * The libraries that the stack loads (the driver; NVRTC and its builtins,
 * nvJitLink and libNVVM for compiles; NVML for `system`; NCCL for collectives),
 * in the order `cuda-js info` lists them. The catalog's others (cuBLAS,
 * cuFFT, ...) are listed with `--all`.
 */
export const STACK_LIBRARIES: readonly string[] = Object.freeze([
  'cuda',
  'nvrtc',
  'nvrtc-builtins',
  'nvJitLink',
  'nvvm',
  'nvml',
  'nccl',
]);

/** The header sets that the stack uses: program's default include paths (the runtime headers and CCCL). */
export const STACK_HEADERS: readonly string[] = Object.freeze(['cudart', 'cccl']);

/** Looks for the libraries, header sets and libdevice that the stack uses, or (`all`) every one that pathfinder knows. */
export function libraryReport(
  options: { readonly all?: boolean } = {},
): LibraryReport & { errors: Map<string, NotFoundError> } {
  const rows: LibraryReportRow[] = [];
  const errors = new Map<string, NotFoundError>();
  const attempt = (kind: LibraryReportRow['kind'], name: string, find: () => LibraryReportRow): void => {
    try {
      rows.push(find());
    } catch (error) {
      rows.push(missing(kind, name, error));
      errors.set(name, error as NotFoundError);
    }
  };
  const libraries = options.all ? LIBRARY_CATALOG.map((d) => d.name) : STACK_LIBRARIES;
  for (const name of libraries) {
    attempt('library', name, () => {
      const l = findLibrary(name);
      return {
        kind: 'library',
        name: l.name,
        found: true,
        path: l.path,
        foundVia: l.foundVia,
        notes: l.notes,
        ...(l.version ? { version: l.version } : {}),
      };
    });
  }
  for (const name of options.all ? SUPPORTED_HEADERS : STACK_HEADERS) {
    attempt('headers', name, () => {
      const h = findHeaderDirectory(name);
      return { kind: 'headers', name, found: true, path: h.path, foundVia: h.foundVia, notes: [] };
    });
  }
  attempt('libdevice', 'libdevice', () => {
    const l = findLibdevice();
    return { kind: 'libdevice', name: 'libdevice', found: true, path: l.path, foundVia: l.foundVia, notes: [] };
  });
  return { rows, errors };
}
