import { foldersForArchitecture, loaderDefaultFolders } from './architecture.js';
import type { CudaMajor } from './catalog.js';
import { EnvironmentValueError } from './errors.js';
import { checkSearchOptions } from './search-option-error.js';
import { readLoaderCache, type LoaderCacheEntry } from './loader-cache.js';
import { discoverSitePackages } from './site-packages.js';

/**
 * Where to search. Every field defaults to this process's real environment;
 * tests and unusual setups pass their own.
 */
export interface SearchOptions {
  /** Environment variables to read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** site-packages folders to search for NVIDIA pip wheels (default: `$VIRTUAL_ENV`'s, then those of the `python3` on `PATH`, found without running it; `CUDA_JS_PYTHON` names an interpreter to ask instead). */
  readonly sitePackages?: readonly string[] | undefined;
  /** The system loader's cache (default: `ldconfig -p`). */
  readonly loaderCache?: readonly LoaderCacheEntry[] | undefined;
  /** The last toolkit root searched (default `/usr/local/cuda`). */
  readonly defaultToolkitRoot?: string | undefined;
  /**
   * Whether distribution folders are searched (default true): `/usr/include` for
   * headers, and for libraries the system loader's default folders
   * (`/usr/lib/<multiarch triplet>`, `/usr/lib64`) after its cache.
   */
  readonly systemDirectories?: boolean | undefined;
  /**
   * The CPU architecture whose folders are searched, as `process.arch` names it
   * (default `process.arch`): `x64` searches a toolkit's `targets/x86_64-linux`
   * and `/usr/lib/x86_64-linux-gnu`, `arm64` its `targets/sbsa-linux` (then
   * `targets/aarch64-linux`, Jetson's) and `/usr/lib/aarch64-linux-gnu`.
   * Files are still checked against this process's own architecture before use.
   */
  readonly arch?: string | undefined;
  /** The folders the system loader searches after its cache (default: glibc's for `arch`, where `systemDirectories`). */
  readonly loaderDefaultFolders?: readonly string[] | undefined;
  /**
   * The CUDA major that nvrtc, nvJitLink and nvvm should share. Default:
   * `CUDA_JS_CUDA_MAJOR`, else the major that most of the three are found in
   * (the newest on a tie).
   */
  readonly preferredMajor?: CudaMajor | undefined;
}

/** SearchOptions with the defaults filled in lazily (site-packages found and ldconfig run at most once). */
export class SearchEnvironment {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly defaultToolkitRoot: string;
  readonly systemDirectories: boolean;
  readonly arch: string;
  readonly explicitMajor: CudaMajor | undefined;
  #sitePackages: { directories: readonly string[]; problems: readonly string[] } | undefined;
  #loaderCache: { entries: readonly LoaderCacheEntry[]; problem?: string } | undefined;

  /** The options as checked: each key read once (later reads, this included, are of this copy). */
  readonly options: Readonly<SearchOptions>;

  constructor(options: SearchOptions = {}, where = 'SearchOptions') {
    options = checkSearchOptions<SearchOptions>(where, options);
    this.options = options;
    this.env = options.env ?? process.env;
    this.defaultToolkitRoot = options.defaultToolkitRoot ?? '/usr/local/cuda';
    this.systemDirectories = options.systemDirectories ?? true;
    this.arch = options.arch ?? process.arch;
    this.explicitMajor = options.preferredMajor ?? parseMajor(this.env['CUDA_JS_CUDA_MAJOR']);
    if (options.sitePackages) this.#sitePackages = { directories: options.sitePackages, problems: [] };
    if (options.loaderCache) this.#loaderCache = { entries: options.loaderCache };
  }

  get sitePackages(): { directories: readonly string[]; problems: readonly string[] } {
    this.#sitePackages ??= discoverSitePackages(this.env);
    return this.#sitePackages;
  }

  get loaderCache(): { entries: readonly LoaderCacheEntry[]; problem?: string } {
    this.#loaderCache ??= readLoaderCache();
    return this.#loaderCache;
  }

  /** Toolkit roots in search order, each with the source that names it. */
  toolkitRoots(): { source: string; root: string }[] {
    const roots: { source: string; root: string }[] = [];
    const cudaPath = this.env['CUDA_PATH'];
    const cudaHome = this.env['CUDA_HOME'];
    if (cudaPath) roots.push({ source: 'CUDA_PATH', root: cudaPath });
    if (cudaHome) roots.push({ source: 'CUDA_HOME', root: cudaHome });
    roots.push({ source: 'default toolkit', root: this.defaultToolkitRoot });
    return roots;
  }

  /** Folders under a toolkit root, with `<target>` replaced by this architecture's target folders. */
  toolkitDirectories(folders: readonly string[]): string[] {
    return foldersForArchitecture(folders, this.arch);
  }

  /** The system loader's default folders for this architecture (none where distribution folders are not searched). */
  loaderDefaultFolders(): readonly string[] {
    return this.options.loaderDefaultFolders ?? (this.systemDirectories ? loaderDefaultFolders(this.arch) : []);
  }

  condaPrefix(): string | undefined {
    return this.env['CONDA_PREFIX'] || undefined;
  }

  ldLibraryPath(): string[] {
    return (this.env['LD_LIBRARY_PATH'] ?? '').split(':').filter((d) => d.length > 0);
  }
}

function parseMajor(text: string | undefined): CudaMajor | undefined {
  if (text === undefined || text === '') return undefined;
  const n = Number(text);
  if (n === 11 || n === 12 || n === 13) return n;
  throw new EnvironmentValueError('CUDA_JS_CUDA_MAJOR', text, '11, 12 or 13');
}
