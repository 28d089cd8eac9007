import { homedir } from 'node:os';
import { join } from 'node:path';
import { entrySize, type CacheEntry } from './cache-entry.js';
import { DiskCache } from './disk-cache.js';
import { InvalidOptionError } from './errors.js';
import { MemoryLru } from './memory-lru.js';
import { checkProgramOptions, isBoolean, isIntegerIn, validateOptions, type OptionSpec } from './option-validation.js';

/** Options of a {@link CompileCache}. */
export interface CompileCacheOptions {
  /**
   * The disk layer: a folder, `true` for {@link CompileCache.defaultDirectory},
   * or `false` (the default) to keep entries in memory only.
   */
  readonly directory?: string | boolean | undefined;
  /** Entries kept in memory, at most. Default 512. */
  readonly maxMemoryEntries?: number | undefined;
  /** Bytes of code kept in memory, at most. Default 256 MiB. */
  readonly maxMemoryBytes?: number | undefined;
}

/** Counters of a {@link CompileCache} since it was made (or since {@link CompileCache.resetStats}). */
export interface CompileCacheStats {
  /** Lookups answered, from memory or disk. */
  readonly hits: number;
  readonly memoryHits: number;
  readonly diskHits: number;
  /** Lookups not answered. */
  readonly misses: number;
  /** Entries stored. */
  readonly writes: number;
  /** Disk reads or writes that failed (the cache then behaves as memory-only for that entry). */
  readonly diskErrors: number;
  /** Entries and code bytes now in memory. */
  readonly memoryEntries: number;
  readonly memoryBytes: number;
}

const isDirectoryOption = (v: unknown): string | undefined =>
  typeof v === 'boolean' || (typeof v === 'string' && v.length > 0)
    ? undefined
    : 'a folder path, true (the default folder) or false';

const SPECS: Readonly<Record<keyof CompileCacheOptions, OptionSpec<'cache'>>> = {
  directory: { check: isDirectoryOption, appliesTo: ['cache'] },
  maxMemoryEntries: { check: isIntegerIn(1, 1_000_000), appliesTo: ['cache'] },
  maxMemoryBytes: { check: isIntegerIn(1, Number.MAX_SAFE_INTEGER), appliesTo: ['cache'] },
};

let warnedAboutDisk = false;

const KEY = /^[0-9a-f]{16,128}$/;

function checkKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || !KEY.test(key))
    throw new InvalidOptionError('key', key, 'a lowercase hex digest (see cacheKey)');
}

function copyEntry(entry: CacheEntry): CacheEntry {
  return {
    ...entry,
    code: entry.code.slice(),
    symbolMapping: { ...entry.symbolMapping },
    ...(entry.metadata ? { metadata: { ...entry.metadata } } : {}),
  };
}

/** Option check: undefined for a {@link CompileCache}, else what is expected. */
export function isCompileCache(value: unknown): string | undefined {
  return value instanceof CompileCache ? undefined : 'a CompileCache';
}

/**
 * A compile cache: an in-memory LRU in front of an optional disk folder that
 * several processes may share. Keys are hex digests (see `Program.compile`,
 * which keys on the code, the options, the target and the toolchain
 * versions). Entries handed out are copies, so a caller that changes
 * `code` cannot spoil the cache. A disk that fails never fails a compile: it
 * counts in `diskErrors` and warns once.
 */
export class CompileCache {
  /** The disk folder, or undefined for a memory-only cache. */
  readonly directory: string | undefined;
  private readonly memory: MemoryLru<CacheEntry>;
  private readonly disk: DiskCache | undefined;
  private counters = { memoryHits: 0, diskHits: 0, misses: 0, writes: 0, diskErrors: 0 };

  /**
   * @throws {UnknownOptionError} {@link InvalidOptionError} for bad options
   */
  constructor(options?: CompileCacheOptions) {
    const o = validateOptions<'cache', CompileCacheOptions>(
      'CompileCacheOptions',
      options,
      SPECS,
      'cache',
      'a compile cache',
    );
    const directory =
      o.directory === true
        ? CompileCache.defaultDirectory()
        : typeof o.directory === 'string'
          ? o.directory
          : undefined;
    this.directory = directory;
    this.disk = directory ? new DiskCache(directory) : undefined;
    this.memory = new MemoryLru<CacheEntry>(
      o.maxMemoryEntries ?? 512,
      o.maxMemoryBytes ?? 256 * 1024 * 1024,
      entrySize,
    );
  }

  /**
   * The default disk folder: `$CUDA_JS_CACHE_DIR`, else
   * `$XDG_CACHE_HOME/cuda-js/program`, else `~/.cache/cuda-js/program`.
   */
  static defaultDirectory(env: NodeJS.ProcessEnv = process.env): string {
    if (env['CUDA_JS_CACHE_DIR']) return env['CUDA_JS_CACHE_DIR'];
    const base = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
    return join(base, 'cuda-js', 'program');
  }

  /** The entry of `key` (a copy), from memory or else from disk, or undefined. */
  get(key: string): CacheEntry | undefined {
    checkKey(key);
    const inMemory = this.memory.get(key);
    if (inMemory) {
      this.counters.memoryHits++;
      return copyEntry(inMemory);
    }
    if (this.disk) {
      try {
        const onDisk = this.disk.read(key);
        if (onDisk) return this.diskHit(key, onDisk);
      } catch (error) {
        this.diskFailed(error);
      }
    }
    this.counters.misses++;
    return undefined;
  }

  /** {@link get} with the disk read off the event loop. */
  async getAsync(key: string): Promise<CacheEntry | undefined> {
    checkKey(key);
    const inMemory = this.memory.get(key);
    if (inMemory) {
      this.counters.memoryHits++;
      return copyEntry(inMemory);
    }
    if (this.disk) {
      try {
        const onDisk = await this.disk.readAsync(key);
        if (onDisk) return this.diskHit(key, onDisk);
      } catch (error) {
        this.diskFailed(error);
      }
    }
    this.counters.misses++;
    return undefined;
  }

  /** Stores `entry` (a copy) under `key`, in memory and on disk. */
  set(key: string, entry: CacheEntry): void {
    checkKey(key);
    this.remember(key, entry);
    if (this.disk) {
      try {
        this.disk.write(key, entry);
      } catch (error) {
        this.diskFailed(error);
      }
    }
  }

  /** {@link set} with the disk write off the event loop. */
  async setAsync(key: string, entry: CacheEntry): Promise<void> {
    checkKey(key);
    this.remember(key, entry);
    if (this.disk) {
      try {
        await this.disk.writeAsync(key, entry);
      } catch (error) {
        this.diskFailed(error);
      }
    }
  }

  /** Forgets `key`, in memory and on disk. */
  delete(key: string): void {
    checkKey(key);
    this.memory.delete(key);
    this.disk?.delete(key);
  }

  /** Empties the memory layer, and the disk folder unless `{ disk: false }`. */
  clear(options: { readonly disk?: boolean | undefined } = {}): void {
    const { disk } = checkProgramOptions<{ disk?: boolean }>('CompileCache.clear', options, { disk: isBoolean });
    this.memory.clear();
    if (disk !== false) this.disk?.clear();
  }

  /**
   * Removes the oldest disk entries until the folder holds at most
   * `maxBytes`; returns how many were removed (0 for a memory-only cache).
   */
  pruneDisk(maxBytes: number): number {
    if (!Number.isSafeInteger(maxBytes) || maxBytes < 0)
      throw new InvalidOptionError('maxBytes', maxBytes, 'a non-negative integer');
    return this.disk?.prune(maxBytes) ?? 0;
  }

  /** Entries and bytes in the disk folder (zero for a memory-only cache). */
  diskUsage(): { entries: number; bytes: number } {
    return this.disk?.usage() ?? { entries: 0, bytes: 0 };
  }

  stats(): CompileCacheStats {
    const c = this.counters;
    return {
      hits: c.memoryHits + c.diskHits,
      memoryHits: c.memoryHits,
      diskHits: c.diskHits,
      misses: c.misses,
      writes: c.writes,
      diskErrors: c.diskErrors,
      memoryEntries: this.memory.size,
      memoryBytes: this.memory.calculatedSize,
    };
  }

  resetStats(): void {
    this.counters = { memoryHits: 0, diskHits: 0, misses: 0, writes: 0, diskErrors: 0 };
  }

  private remember(key: string, entry: CacheEntry): void {
    this.memory.set(key, copyEntry(entry));
    this.counters.writes++;
  }

  private diskHit(key: string, entry: CacheEntry): CacheEntry {
    this.counters.diskHits++;
    this.memory.set(key, entry);
    return copyEntry(entry);
  }

  private diskFailed(error: unknown): void {
    this.counters.diskErrors++;
    if (warnedAboutDisk) return;
    warnedAboutDisk = true;
    process.emitWarning(
      `the compile cache folder ${this.directory} is not usable (${(error as Error).message}); compiled code is kept in memory only`,
      {
        type: 'CudaCacheWarning',
        code: 'CUDA_JS_CACHE_DISK',
      },
    );
  }
}
