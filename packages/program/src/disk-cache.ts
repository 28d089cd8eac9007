import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, renameSync, statfsSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { mkdir, rename, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { readRegularFile, readRegularFileAsync } from '@cuda-js/pathfinder';
import type { CacheEntry } from './cache-entry.js';
import { CacheStorageError } from './errors.js';
import { OBJECT_CODE_TYPES, type ObjectCodeType } from './object-code-type.js';

// File layout: magic (8 bytes), format version (u32 LE), header length (u32
// LE), a JSON header, then the code bytes. The header repeats the key, so a
// file renamed by hand or a hash-prefix collision is never served.
const MAGIC = Buffer.from('CUDAJSOC', 'latin1');
// Version 2 added the code's digest: a file damaged in place (a bad disk, a partial copy) is never served.
const FORMAT_VERSION = 2;
const PREFIX_BYTES = MAGIC.length + 8;
const SUFFIX = '.bin';

interface Header {
  readonly key: string;
  readonly codeType: ObjectCodeType;
  readonly name: string;
  readonly symbolMapping: Record<string, string>;
  readonly metadata?: Record<string, string>;
  readonly codeLength: number;
  /** sha256 of the code bytes, hex. */
  readonly codeDigest: string;
}

const digestOf = (code: Uint8Array): string => createHash('sha256').update(code).digest('hex');

const KEY_PATTERN = /^[0-9a-f]{16,128}$/;
// A temporary file younger than this may belong to a writer that is still at work.
const STALE_TEMPORARY_MS = 10 * 60 * 1000;

function encode(key: string, entry: CacheEntry): Buffer {
  const header: Header = {
    key,
    codeType: entry.codeType,
    name: entry.name,
    symbolMapping: { ...entry.symbolMapping },
    ...(entry.metadata ? { metadata: { ...entry.metadata } } : {}),
    codeLength: entry.code.byteLength,
    codeDigest: digestOf(entry.code),
  };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const prefix = Buffer.alloc(PREFIX_BYTES);
  MAGIC.copy(prefix, 0);
  prefix.writeUInt32LE(FORMAT_VERSION, MAGIC.length);
  prefix.writeUInt32LE(json.length, MAGIC.length + 4);
  return Buffer.concat([prefix, json, entry.code]);
}

/** The entry in `file`, or undefined when the file is not a complete entry for `key`. */
function decode(key: string, file: Buffer): CacheEntry | undefined {
  if (file.length < PREFIX_BYTES || !file.subarray(0, MAGIC.length).equals(MAGIC)) return undefined;
  if (file.readUInt32LE(MAGIC.length) !== FORMAT_VERSION) return undefined;
  const headerLength = file.readUInt32LE(MAGIC.length + 4);
  if (PREFIX_BYTES + headerLength > file.length) return undefined;
  let header: Header;
  try {
    header = JSON.parse(file.subarray(PREFIX_BYTES, PREFIX_BYTES + headerLength).toString('utf8')) as Header;
  } catch {
    return undefined;
  }
  const codeStart = PREFIX_BYTES + headerLength;
  // An entry without code is no entry: served, it failed every later compile of its kernel.
  if (
    header.key !== key ||
    !OBJECT_CODE_TYPES.includes(header.codeType) ||
    header.codeLength !== file.length - codeStart ||
    header.codeLength === 0
  )
    return undefined;
  // A copy that owns its memory: `file` may be a slice of Node's shared buffer pool.
  const code = new Uint8Array(header.codeLength);
  code.set(file.subarray(codeStart));
  if (header.codeDigest !== digestOf(code)) return undefined;
  const metadata = header.metadata !== null && typeof header.metadata === 'object' ? { metadata: header.metadata } : {};
  return {
    codeType: header.codeType,
    name: String(header.name),
    code,
    symbolMapping: header.symbolMapping ?? {},
    ...metadata,
  };
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** The largest entry file read: a cubin of a whole program is far smaller; a larger file is no entry. */
export const MAX_ENTRY_BYTES = 1 << 30;

/** The bytes of an entry file: a regular file of bounded size, read without blocking; anything else is no entry. */
function readEntryFile(path: string): Buffer {
  return readRegularFile(path, { maxBytes: MAX_ENTRY_BYTES }, (problem) => notAnEntry(path, problem));
}

function readEntryFileAsync(path: string): Promise<Buffer> {
  return readRegularFileAsync(path, { maxBytes: MAX_ENTRY_BYTES }, (problem) => notAnEntry(path, problem));
}

function notAnEntry(path: string, problem: string): CacheStorageError {
  return new CacheStorageError(`the cache entry ${path} is no entry: ${problem}; it is ignored`);
}

// statfs f_type of file systems that hold no files of their own (proc, sysfs, devpts, debugfs, tracefs, securityfs, cgroup, cgroup2, bpf, configfs, pstore).
const PSEUDO_FILE_SYSTEMS = new Set([
  0x9fa0, 0x62656572, 0x1cd1, 0x64626720, 0x74726163, 0x73636673, 0x27e0eb, 0x63677270, 0xcafe4a11, 0x62656570,
  0x6165676c,
]);

/**
 * Refuses a cache folder on a pseudo file system (its nearest existing
 * ancestor is asked): a recursive mkdir under /proc never returns.
 */
function checkCacheFolder(directory: string): void {
  let at = resolve(directory);
  for (let depth = 0; depth < 4096; depth++) {
    let type: number | undefined;
    try {
      type = Number(statfsSync(at).type);
    } catch (error) {
      const parent = dirname(at);
      if (isMissing(error) && parent !== at) {
        at = parent;
        continue;
      }
      return; // the mkdir below says what is wrong
    }
    if (PSEUDO_FILE_SYSTEMS.has(type)) {
      throw new CacheStorageError(
        `the cache folder ${directory} is on a pseudo file system (${at}, statfs type 0x${type.toString(16)}), which holds no files; choose another (CUDA_JS_CACHE_DIR)`,
      );
    }
    return;
  }
}

/**
 * A folder of cache entries, one file per key, shared safely by processes
 * that read and write at the same time: each writer writes a private
 * temporary file and renames it over the entry, which POSIX makes atomic, so
 * a reader sees either no file or a complete one, never a torn one.
 */
export class DiskCache {
  constructor(
    /** The cache folder; created on the first write. */
    readonly directory: string,
  ) {}

  /** Where the entry of `key` lives: `<directory>/<first two hex digits>/<key>.bin`. */
  pathOf(key: string): string {
    if (!KEY_PATTERN.test(key))
      throw new TypeError(`cache key must be a lowercase hex string; got ${JSON.stringify(key)}`);
    return join(this.directory, key.slice(0, 2), `${key}${SUFFIX}`);
  }

  private temporaryPath(path: string): string {
    return `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  }

  /** The entry of `key`, or undefined when there is none or the file is damaged (it is then removed). */
  read(key: string): CacheEntry | undefined {
    const path = this.pathOf(key);
    let file: Buffer;
    try {
      file = readEntryFile(path);
    } catch (error) {
      if (isMissing(error)) return undefined;
      if (error instanceof CacheStorageError) this.discard(path); // not an entry: a write will put one there
      throw error;
    }
    const entry = decode(key, file);
    if (!entry) this.discard(path);
    return entry;
  }

  async readAsync(key: string): Promise<CacheEntry | undefined> {
    const path = this.pathOf(key);
    let file: Buffer;
    try {
      file = await readEntryFileAsync(path);
    } catch (error) {
      if (isMissing(error)) return undefined;
      if (error instanceof CacheStorageError) await unlink(path).catch(() => undefined);
      throw error;
    }
    const entry = decode(key, file);
    if (!entry) await unlink(path).catch(() => undefined);
    return entry;
  }

  /** Writes the entry of `key` atomically (temporary file, then rename). */
  write(key: string, entry: CacheEntry): void {
    const path = this.pathOf(key);
    checkCacheFolder(this.directory);
    mkdirSync(join(this.directory, key.slice(0, 2)), { recursive: true });
    const temporary = this.temporaryPath(path);
    try {
      writeFileSync(temporary, encode(key, entry));
      renameSync(temporary, path);
    } catch (error) {
      this.discard(temporary);
      throw error;
    }
  }

  async writeAsync(key: string, entry: CacheEntry): Promise<void> {
    const path = this.pathOf(key);
    checkCacheFolder(this.directory);
    await mkdir(join(this.directory, key.slice(0, 2)), { recursive: true });
    const temporary = this.temporaryPath(path);
    try {
      await writeFile(temporary, encode(key, entry));
      await rename(temporary, path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
  }

  /** Removes the entry of `key`, if there is one. */
  delete(key: string): void {
    this.discard(this.pathOf(key));
  }

  /** Every entry file and stale temporary file, with its size. */
  private files(): { path: string; size: number; mtimeMs: number }[] {
    const now = Date.now();
    const out: { path: string; size: number; mtimeMs: number }[] = [];
    let shards: string[];
    try {
      shards = readdirSync(this.directory);
    } catch (error) {
      if (isMissing(error)) return out;
      throw error;
    }
    for (const shard of shards) {
      if (!/^[0-9a-f]{2}$/.test(shard)) continue;
      const dir = join(this.directory, shard);
      let names: string[];
      try {
        names = readdirSync(dir);
      } catch {
        continue;
      }
      for (const name of names) {
        if (!name.endsWith(SUFFIX) && !name.endsWith('.tmp')) continue;
        try {
          const s = statSync(join(dir, name));
          if (name.endsWith('.tmp') && now - s.mtimeMs < STALE_TEMPORARY_MS) continue;
          out.push({ path: join(dir, name), size: s.size, mtimeMs: s.mtimeMs });
        } catch {
          // removed by another process meanwhile
        }
      }
    }
    return out;
  }

  /** How many entries the folder holds and their total size in bytes. */
  usage(): { entries: number; bytes: number } {
    const files = this.files().filter((f) => f.path.endsWith(SUFFIX));
    return { entries: files.length, bytes: files.reduce((sum, f) => sum + f.size, 0) };
  }

  /**
   * Removes the least recently written entries until the folder holds at
   * most `maxBytes`; returns how many files were removed.
   */
  prune(maxBytes: number): number {
    const files = this.files().sort((a, b) => a.mtimeMs - b.mtimeMs);
    let total = files.reduce((sum, f) => sum + f.size, 0);
    let removed = 0;
    for (const f of files) {
      if (total <= maxBytes) break;
      this.discard(f.path);
      total -= f.size;
      removed++;
    }
    return removed;
  }

  /** Removes every entry (and stale temporary file); the folder itself stays. */
  clear(): void {
    for (const f of this.files()) this.discard(f.path);
  }

  private discard(path: string): void {
    try {
      unlinkSync(path);
    } catch {
      // already gone
    }
  }
}
