import { basename, join } from 'node:path';
import {
  COMPILER_LIBRARIES,
  CUDA_MAJORS,
  SUPPORTED_LIBRARIES,
  libraryDescriptor,
  type CudaMajor,
  type LibraryDescriptor,
} from './catalog.js';
import { LibraryNotFoundError, UnknownNameError, type SearchAttempt } from './errors.js';
import { findFilesIn, isDirectory, isFile, matchesAny, sharedObjectProblem } from './file-search.js';
import { SearchEnvironment, type SearchOptions } from './search-environment.js';
import { pathVersion, resolvedPath, toolkitRootVersion } from './toolkit-version.js';

/** How a library was found: the search source that gave it. */
export type FoundVia =
  | 'override'
  | 'site-packages'
  | 'conda'
  | 'LD_LIBRARY_PATH'
  | 'ldconfig'
  | 'system'
  | 'CUDA_PATH'
  | 'CUDA_HOME'
  | 'default toolkit';

/** A library that was found. */
export interface LibraryLocation {
  /** The catalog name (`nvrtc`, `cuda`, ...). */
  readonly name: string;
  /** Absolute path of the shared library file. */
  readonly path: string;
  readonly foundVia: FoundVia;
  /** The CUDA release it belongs to, as precisely as known (`13.0`, `12`), or undefined. */
  readonly version: string | undefined;
  /** The CUDA major it belongs to, where known. */
  readonly cudaMajor: CudaMajor | undefined;
  /** Choices worth telling the user, such as a major preferred over an earlier find. */
  readonly notes: readonly string[];
}

interface Candidate {
  readonly path: string;
  readonly foundVia: FoundVia;
  readonly cudaMajor: CudaMajor | undefined;
  readonly version: string | undefined;
}

interface CandidateSearch {
  readonly candidates: readonly Candidate[];
  readonly attempts: readonly SearchAttempt[];
}

function asMajor(n: number | undefined): CudaMajor | undefined {
  return n === 11 || n === 12 || n === 13 ? n : undefined;
}

function allSonames(d: LibraryDescriptor): string[] {
  return [...new Set(CUDA_MAJORS.flatMap((m) => d.sonames[m] ?? []))];
}

/** Majors whose soname list contains this file name. */
function majorsOfFile(d: LibraryDescriptor, file: string): CudaMajor[] {
  return CUDA_MAJORS.filter((m) => matchesAny(file, d.sonames[m] ?? []));
}

function makeCandidate(
  d: LibraryDescriptor,
  path: string,
  foundVia: FoundVia,
  root?: string,
  wheelMajor?: CudaMajor,
): Candidate {
  const majors = majorsOfFile(d, basename(path));
  const evidence =
    pathVersion(path) ?? pathVersion(resolvedPath(path)) ?? (root ? toolkitRootVersion(root) : undefined);
  let cudaMajor: CudaMajor | undefined = majors.length === 1 ? majors[0] : undefined;
  if (cudaMajor === undefined && wheelMajor !== undefined && majors.includes(wheelMajor) && majors.length === 1)
    cudaMajor = wheelMajor;
  if (cudaMajor === undefined) {
    const fromEvidence = asMajor(evidence?.major);
    if (fromEvidence !== undefined && (majors.length === 0 || majors.includes(fromEvidence))) cudaMajor = fromEvidence;
  }
  const version =
    evidence && evidence.major === cudaMajor
      ? evidence.version
      : cudaMajor !== undefined
        ? String(cudaMajor)
        : undefined;
  return { path, foundVia, cudaMajor, version };
}

function overrideVariable(name: string): string {
  return `CUDA_JS_LIB_${name.toUpperCase().replace(/-/g, '_')}`;
}

function searchCandidates(d: LibraryDescriptor, environment: SearchEnvironment): CandidateSearch {
  const candidates: Candidate[] = [];
  const attempts: SearchAttempt[] = [];
  const sonames = allSonames(d);
  const wanted = sonames.join(', ');
  const toolkitDirectories = environment.toolkitDirectories(d.toolkitDirectories);

  const searchDirectory = (
    source: FoundVia,
    dir: string,
    patterns: readonly string[],
    root?: string,
    wheelMajor?: CudaMajor,
  ): void => {
    if (!isDirectory(dir)) {
      attempts.push({ source, location: dir, reason: 'no such folder' });
      return;
    }
    const hits = findFilesIn(dir, patterns);
    for (const hit of hits) candidates.push(makeCandidate(d, hit, source, root, wheelMajor));
    if (hits.length === 0) attempts.push({ source, location: dir, reason: `none of ${patterns.join(', ')} here` });
  };

  // 1. An explicit override wins, and a wrong one is an error rather than a silent fallback.
  const variable = overrideVariable(d.name);
  const override = environment.env[variable];
  if (override) {
    if (isFile(override)) {
      // Checked before dlopen: a FIFO would hang the loader, a truncated library would fault in it.
      const problem = sharedObjectProblem(override);
      if (problem === undefined) {
        candidates.push(makeCandidate(d, override, 'override'));
        return { candidates, attempts };
      }
      attempts.push({
        source: 'override',
        location: `${variable}=${override}`,
        reason: `${problem}; expected a shared library (${wanted})`,
      });
      throw new LibraryNotFoundError(d.name, attempts, `Fix or unset ${variable}.`);
    }
    if (isDirectory(override)) {
      const hit = findFilesIn(override, sonames)[0];
      const problem = hit === undefined ? undefined : sharedObjectProblem(hit);
      if (hit !== undefined && problem === undefined)
        return { candidates: [makeCandidate(d, hit, 'override')], attempts };
      if (hit !== undefined) {
        attempts.push({ source: 'override', location: `${variable}=${override}`, reason: `${hit}: ${problem}` });
        throw new LibraryNotFoundError(d.name, attempts, `Fix or unset ${variable}.`);
      }
    }
    attempts.push({
      source: 'override',
      location: `${variable}=${override}`,
      reason: `neither a file nor a folder holding ${wanted}`,
    });
    throw new LibraryNotFoundError(d.name, attempts, `Fix or unset ${variable}.`);
  }
  attempts.push({ source: 'override', location: variable, reason: 'not set' });

  if (!d.systemOnly) {
    // 2. NVIDIA pip wheels.
    const sp = environment.sitePackages;
    for (const problem of sp.problems) attempts.push({ source: 'site-packages', location: 'python', reason: problem });
    if (sp.directories.length === 0)
      attempts.push({ source: 'site-packages', location: '(none)', reason: 'no site-packages folder known' });
    for (const site of sp.directories) {
      for (const major of CUDA_MAJORS) {
        const patterns = d.sonames[major];
        for (const sub of d.pipDirectories[major] ?? []) {
          if (!patterns) continue;
          const dir = join(site, sub);
          if (!isDirectory(dir)) continue; // absent wheels are the rule, not worth a line each
          searchDirectory('site-packages', dir, patterns, undefined, major);
        }
      }
    }
    if (!attempts.some((a) => a.source === 'site-packages') && !candidates.length) {
      attempts.push({
        source: 'site-packages',
        location: sp.directories.join(', '),
        reason: 'no NVIDIA wheel for this library',
      });
    }
    // 3. A conda environment.
    const conda = environment.condaPrefix();
    if (conda)
      for (const sub of ['lib', ...toolkitDirectories]) searchDirectory('conda', join(conda, sub), sonames, conda);
    else attempts.push({ source: 'conda', location: 'CONDA_PREFIX', reason: 'not set' });
  }

  // 4. The system loader: LD_LIBRARY_PATH first, as the loader itself does, then its cache, then its default folders.
  const ldPath = environment.ldLibraryPath();
  if (ldPath.length === 0) attempts.push({ source: 'LD_LIBRARY_PATH', location: 'LD_LIBRARY_PATH', reason: 'not set' });
  for (const dir of ldPath) searchDirectory('LD_LIBRARY_PATH', dir, sonames);
  const cache = environment.loaderCache;
  const cached = cache.entries.filter((e) => matchesAny(e.soname, sonames));
  cached.sort(
    (a, b) => sonames.findIndex((s) => matchesAny(a.soname, [s])) - sonames.findIndex((s) => matchesAny(b.soname, [s])),
  );
  for (const entry of cached) candidates.push(makeCandidate(d, entry.path, 'ldconfig'));
  if (cached.length === 0)
    attempts.push({ source: 'ldconfig', location: 'ldconfig -p', reason: cache.problem ?? `no entry for ${wanted}` });
  // The loader's default folders, which it searches after its cache (a library copied there without a run of ldconfig).
  const defaults = environment.loaderDefaultFolders().filter(isDirectory);
  const before = candidates.length;
  for (const dir of defaults)
    for (const hit of findFilesIn(dir, sonames)) candidates.push(makeCandidate(d, hit, 'system'));
  if (defaults.length > 0 && candidates.length === before)
    attempts.push({ source: 'system', location: defaults.join(', '), reason: `none of ${wanted} here` });

  // 5. Toolkit roots.
  if (!d.systemOnly) {
    for (const { source, root } of environment.toolkitRoots()) {
      if (!isDirectory(root)) {
        attempts.push({ source, location: root, reason: 'no such folder' });
        continue;
      }
      for (const sub of toolkitDirectories) {
        const dir = join(root, sub);
        if (isDirectory(dir)) searchDirectory(source as FoundVia, dir, sonames, root);
      }
      if (!candidates.some((c) => c.foundVia === source))
        attempts.push({ source, location: root, reason: `none of ${wanted} under ${toolkitDirectories.join(', ')}` });
    }
  }
  // Every place found must hold a loadable shared object: a stale ldconfig entry (the file
  // was removed), a FIFO or a truncated file is noted and the search falls through to the next.
  const usable = dedupe(candidates).filter((c) => {
    const problem = sharedObjectProblem(c.path);
    if (problem !== undefined) attempts.push({ source: c.foundVia, location: c.path, reason: problem });
    return problem === undefined;
  });
  return { candidates: usable, attempts };
}

function dedupe(candidates: Candidate[]): Candidate[] {
  const seen = new Set<string>();
  return candidates.filter((c) => (seen.has(c.path) ? false : (seen.add(c.path), true)));
}

function describeMajor(m: CudaMajor | undefined): string {
  return m === undefined ? 'an unknown CUDA major' : `CUDA ${m}`;
}

/** Pathfinder's search, with one environment and its results cached. */
export class LibraryFinder {
  readonly #searches = new Map<string, CandidateSearch>();
  readonly #results = new Map<string, LibraryLocation>();
  #preferred: { major: CudaMajor | undefined; why: string } | undefined;

  constructor(readonly environment: SearchEnvironment) {}

  candidates(d: LibraryDescriptor): CandidateSearch {
    let search = this.#searches.get(d.name);
    if (!search) {
      search = searchCandidates(d, this.environment);
      this.#searches.set(d.name, search);
    }
    return search;
  }

  /** The major nvrtc, nvJitLink and nvvm should share, and why. */
  preferredMajor(): { major: CudaMajor | undefined; why: string } {
    if (this.#preferred) return this.#preferred;
    if (this.environment.explicitMajor !== undefined) {
      this.#preferred = { major: this.environment.explicitMajor, why: 'asked for explicitly' };
      return this.#preferred;
    }
    const counts = new Map<CudaMajor, string[]>();
    for (const name of COMPILER_LIBRARIES) {
      let found: readonly Candidate[] = [];
      try {
        found = this.candidates(libraryDescriptor(name)!).candidates;
      } catch {
        // a broken override of one compiler does not decide the others' major
      }
      for (const m of new Set(found.map((c) => c.cudaMajor))) {
        if (m !== undefined) counts.set(m, [...(counts.get(m) ?? []), name]);
      }
    }
    let best: CudaMajor | undefined;
    for (const m of CUDA_MAJORS)
      if (counts.has(m) && (best === undefined || counts.get(m)!.length > counts.get(best)!.length)) best = m;
    this.#preferred = {
      major: best,
      why:
        best === undefined
          ? 'no compiler library found'
          : `the major in which ${counts.get(best)!.join(', ')} ${counts.get(best)!.length === 1 ? 'is' : 'are'} found`,
    };
    return this.#preferred;
  }

  find(name: string): LibraryLocation {
    const d = libraryDescriptor(name);
    if (!d) throw new UnknownNameError('library', name, SUPPORTED_LIBRARIES);
    const cached = this.#results.get(name);
    if (cached) return cached;
    const { candidates, attempts } = this.candidates(d);
    const first = candidates[0];
    if (!first) {
      const hint = d.systemOnly
        ? `The ${d.description} comes only from the system loader: install the NVIDIA driver, or set ${overrideVariable(d.name)}.`
        : `Install it (a CUDA toolkit, or NVIDIA's pip wheels), or point ${overrideVariable(d.name)} at the file.`;
      throw new LibraryNotFoundError(name, attempts, hint);
    }
    const notes: string[] = [];
    let chosen = first;
    if (!d.systemOnly && first.foundVia !== 'override') {
      const { major, why } = this.preferredMajor();
      if (major !== undefined) {
        const match = candidates.find((c) => c.cudaMajor === major);
        if (match && match !== first) {
          chosen = match;
          notes.push(
            `preferred ${describeMajor(major)} (${why}) over ${describeMajor(first.cudaMajor)} at ${first.path}`,
          );
        } else if (!match && first.cudaMajor !== undefined && first.cudaMajor !== major) {
          notes.push(
            `no ${describeMajor(major)} build found (${why}); using ${describeMajor(first.cudaMajor)}, which mixes CUDA majors`,
          );
        }
      }
    }
    const location: LibraryLocation = {
      name: d.name,
      path: chosen.path,
      foundVia: chosen.foundVia,
      version: chosen.version,
      cudaMajor: chosen.cudaMajor,
      notes,
    };
    this.#results.set(name, location);
    return location;
  }
}

let defaultFinder: LibraryFinder | undefined;

/** The finder for this process's own environment, shared and cached. */
export function defaultLibraryFinder(): LibraryFinder {
  defaultFinder ??= new LibraryFinder(new SearchEnvironment());
  return defaultFinder;
}

/** Forgets every cached result (for tests, or after the environment changed). */
export function clearLibraryCache(): void {
  defaultFinder = undefined;
}

/**
 * Finds a CUDA shared library, as cuda.pathfinder does: an override variable
 * (`CUDA_JS_LIB_<NAME>`, e.g. `CUDA_JS_LIB_NVRTC`), NVIDIA pip wheels in
 * site-packages, `CONDA_PREFIX`, the system loader (`LD_LIBRARY_PATH`, then
 * `ldconfig -p`, then its default folders such as `/usr/lib/<multiarch triplet>`),
 * `CUDA_PATH`, `CUDA_HOME`, then `/usr/local/cuda` (its `lib64`, `lib` and the
 * target folder of this architecture: `targets/x86_64-linux` or `targets/sbsa-linux`). The driver
 * (`cuda`) and `nvml` come only from an override or the system loader.
 *
 * With no `options`, the search uses this process's environment and its
 * result is cached; with `options`, nothing is cached.
 *
 * @throws {UnknownNameError} for a name not in {@link SUPPORTED_LIBRARIES}
 * @throws {LibraryNotFoundError} listing every place tried
 */
export function findLibrary(name: string, options?: SearchOptions): LibraryLocation {
  const finder = options ? new LibraryFinder(new SearchEnvironment(options, 'findLibrary')) : defaultLibraryFinder();
  return finder.find(name);
}
