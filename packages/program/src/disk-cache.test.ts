import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  copyFileSync,
  mkdirSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import type { CacheEntry } from './cache-entry.js';
import { cacheKey } from './cache-key.js';
import { DiskCache } from './disk-cache.js';
import { CacheStorageError } from './errors.js';
import { execFileSync } from 'node:child_process';
import { symlinkSync } from 'node:fs';

const root = mkdtempSync(join(tmpdir(), 'program-disk-cache-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const fresh = (): DiskCache => new DiskCache(join(root, `c${n++}`));

function entry(seed: number, size = 1000): CacheEntry {
  const code = new Uint8Array(size);
  for (let i = 0; i < size; i++) code[i] = (seed * 31 + i) & 0xff;
  return { codeType: 'cubin', name: `k${seed}`, code, symbolMapping: { [`f<${seed}>`]: `_Z1fILi${seed}EEvv` } };
}

describe('DiskCache', () => {
  // Issue 20: a FIFO entry blocked on open, a link to /dev/zero grew memory without end, a folder under /proc never returned.
  it('reads only regular files, without blocking, and refuses a pseudo file system folder at once', async () => {
    const cache = fresh();
    const fifoKey = cacheKey('fifo');
    mkdirSync(dirname(cache.pathOf(fifoKey)), { recursive: true });
    execFileSync('mkfifo', [cache.pathOf(fifoKey)]);
    expect(() => cache.read(fifoKey)).toThrow(CacheStorageError);
    expect(existsSync(cache.pathOf(fifoKey))).toBe(false); // removed: a write puts an entry there
    execFileSync('mkfifo', [cache.pathOf(fifoKey)]);
    await expect(cache.readAsync(fifoKey)).rejects.toThrow(/is not a regular file/);
    const zeroKey = cacheKey('zero');
    mkdirSync(dirname(cache.pathOf(zeroKey)), { recursive: true });
    symlinkSync('/dev/zero', cache.pathOf(zeroKey));
    expect(() => cache.read(zeroKey)).toThrow(/is not a regular file/);
    cache.write(zeroKey, entry(5));
    expect(cache.read(zeroKey)).toEqual(entry(5));
    const proc = new DiskCache('/proc/self/cuda-js-cache/deeper');
    expect(() => proc.write(cacheKey('p'), entry(1))).toThrow(/is on a pseudo file system/);
    await expect(proc.writeAsync(cacheKey('p'), entry(1))).rejects.toThrow(CacheStorageError);
  });

  it('treats an entry without code as a miss, and removes it', () => {
    const cache = fresh();
    const key = cacheKey('empty');
    cache.write(key, { ...entry(3), code: new Uint8Array(0) });
    expect(cache.read(key)).toBeUndefined();
    expect(existsSync(cache.pathOf(key))).toBe(false);
  });

  it('reads back what it wrote, byte for byte, under a sharded path', () => {
    const cache = fresh();
    const key = cacheKey('a');
    cache.write(key, entry(1));
    expect(cache.pathOf(key)).toBe(join(cache.directory, key.slice(0, 2), `${key}.bin`));
    expect(existsSync(cache.pathOf(key))).toBe(true);
    expect(cache.read(key)).toEqual(entry(1));
    expect(cache.read(cacheKey('b'))).toBeUndefined();
  });

  it('reads back asynchronously too', async () => {
    const cache = fresh();
    const key = cacheKey('async');
    await cache.writeAsync(key, entry(2, 70_000));
    expect(await cache.readAsync(key)).toEqual(entry(2, 70_000));
    expect(await cache.readAsync(cacheKey('none'))).toBeUndefined();
  });

  it('serves no damaged or foreign file, and removes it', () => {
    const cache = fresh();
    const key = cacheKey('damaged');
    cache.write(key, entry(3));
    const path = cache.pathOf(key);
    const good = readFileSync(path);

    writeFileSync(path, good.subarray(0, good.length - 10)); // truncated code
    expect(cache.read(key)).toBeUndefined();
    expect(existsSync(path)).toBe(false);

    const flipped = Buffer.from(good);
    flipped[flipped.length - 1]! ^= 0x01; // one bit of the code changed in place: same length, same header
    writeFileSync(path, flipped);
    expect(cache.read(key)).toBeUndefined();
    expect(existsSync(path)).toBe(false);

    const wrongMagic = Buffer.from(good);
    wrongMagic[0] = 0x58;
    writeFileSync(path, wrongMagic);
    expect(cache.read(key)).toBeUndefined();

    // Another key's entry, copied in by hand.
    const other = cacheKey('other');
    cache.write(other, entry(4));
    copyFileSync(cache.pathOf(other), path);
    expect(cache.read(key)).toBeUndefined();
    expect(cache.read(other)).toEqual(entry(4));
  });

  it('keeps the metadata of whoever stored the entry with the code, and none where none was given', () => {
    const cache = fresh();
    const key = cacheKey('metadata');
    const withMetadata = { ...entry(5), metadata: { abi: '{"params":[]}', stamp: 'x' } };
    cache.write(key, withMetadata);
    expect(cache.read(key)).toEqual(withMetadata);
    cache.write(cacheKey('plain'), entry(6));
    expect(cache.read(cacheKey('plain'))).not.toHaveProperty('metadata');
  });

  it('refuses keys that are not hex digests', () => {
    expect(() => fresh().pathOf('../../etc/passwd')).toThrow(TypeError);
  });

  it('keeps every read whole while many writers replace one entry at once', async () => {
    const cache = fresh();
    const key = cacheKey('contended');
    const written = Array.from({ length: 24 }, (_, i) => entry(i, 20_000 + i * 4_096));
    // Once an entry exists, a reader must always find a whole one: never a torn file, never none.
    cache.write(key, written[0]!);
    const reads: (CacheEntry | undefined)[] = [];
    await Promise.all([
      ...written.map((e) => cache.writeAsync(key, e)),
      ...Array.from({ length: 48 }, async () => reads.push(await cache.readAsync(key))),
    ]);
    expect(reads.filter((r) => r === undefined)).toHaveLength(0);
    for (const r of reads) expect(written).toContainEqual(r);
    expect(written).toContainEqual(cache.read(key));
    expect(readdirSync(dirname(cache.pathOf(key)))).toEqual([`${key}.bin`]);
  });

  it('stays whole when several processes write and read the same entries', async () => {
    // With atomic replacement an entry, once written, is always there and whole: every read right
    // after a write must find some writer's complete version (a torn file would read as a miss).
    const cache = fresh();
    mkdirSync(cache.directory, { recursive: true });
    // The writers run this module as plain JavaScript, transpiled here with TypeScript itself.
    const here = dirname(fileURLToPath(import.meta.url));
    const js = join(root, 'js');
    mkdirSync(js, { recursive: true });
    writeFileSync(join(js, 'package.json'), '{ "type": "module" }');
    // pathfinder's file reader comes along as a module beside them (the temporary folder has no node_modules)
    const sources = {
      'disk-cache': join(here, 'disk-cache.ts'),
      'object-code-type': join(here, 'object-code-type.ts'),
      'regular-file': join(here, '..', '..', 'pathfinder', 'src', 'regular-file.ts'),
    };
    for (const [name, path] of Object.entries(sources)) {
      const source = readFileSync(path, 'utf8').replace(`from '@cuda-js/pathfinder'`, `from './regular-file.js'`);
      const out = ts.transpileModule(source, {
        compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
      });
      writeFileSync(join(js, `${name}.js`), out.outputText);
    }
    // errors.ts imports the bindings, which the plain writers cannot load; the writers never see a storage error
    writeFileSync(join(js, 'errors.js'), 'export class CacheStorageError extends Error {}\n');
    const child = join(js, 'writer.js');
    // Each process writes its own version of three shared keys, over and over, and checks every read.
    writeFileSync(
      child,
      `import { DiskCache } from './disk-cache.js';
import { createHash } from 'node:crypto';
const [dir, id] = process.argv.slice(2);
const cache = new DiskCache(dir);
const keys = ['k1', 'k2', 'k3'].map((k) => createHash('sha256').update(k).digest('hex'));
let torn = 0, hits = 0;
for (let round = 0; round < 60; round++) {
  for (const key of keys) {
    const size = 5000 + ((Number(id) * 7919 + round * 104729) % 60000);
    const code = new Uint8Array(size).fill(Number(id) + 1);
    cache.write(key, { codeType: 'cubin', name: 'p' + id, code, symbolMapping: { size: String(size) } });
    const got = cache.read(key);
    if (!got) continue;
    hits++;
    const writer = Number(got.name.slice(1));
    const whole = got.code.length === Number(got.symbolMapping.size) && got.code.every((b) => b === writer + 1);
    if (!whole) torn++;
  }
}
console.log(JSON.stringify({ torn, hits }));
`,
    );
    const runs = await Promise.all(
      Array.from(
        { length: 4 },
        (_, id) =>
          new Promise<{ torn: number; hits: number }>((resolve, reject) => {
            const p = spawn(process.execPath, [child, cache.directory, String(id)], {
              stdio: ['ignore', 'pipe', 'pipe'],
            });
            let out = '';
            let err = '';
            p.stdout.on('data', (d: Buffer) => (out += d.toString()));
            p.stderr.on('data', (d: Buffer) => (err += d.toString()));
            p.on('error', reject);
            p.on('exit', (code) =>
              code === 0
                ? resolve(JSON.parse(out) as { torn: number; hits: number })
                : reject(new Error(`writer ${id} exited ${code}: ${err}`)),
            );
          }),
      ),
    );
    for (const r of runs) {
      expect(r.torn).toBe(0);
      expect(r.hits).toBe(60 * 3);
    }
    const usage = cache.usage();
    expect(usage.entries).toBe(3);
    for (const shard of readdirSync(cache.directory))
      expect(readdirSync(join(cache.directory, shard)).every((f) => f.endsWith('.bin'))).toBe(true);
  }, 60_000);

  it('reports its usage, prunes the oldest entries and clears', async () => {
    const cache = fresh();
    const keys = ['p1', 'p2', 'p3'].map((k) => cacheKey(k));
    for (const [i, key] of keys.entries()) {
      cache.write(key, entry(i, 10_000));
      await new Promise((resolve) => setTimeout(resolve, 15)); // distinct modification times
    }
    const usage = cache.usage();
    expect(usage.entries).toBe(3);
    const perEntry = usage.bytes / 3;
    expect(cache.prune(Math.ceil(perEntry * 2))).toBe(1);
    expect(cache.read(keys[0]!)).toBeUndefined();
    expect(cache.read(keys[2]!)).toEqual(entry(2, 10_000));
    cache.clear();
    expect(cache.usage()).toEqual({ entries: 0, bytes: 0 });
    expect(fresh().usage()).toEqual({ entries: 0, bytes: 0 });
  });
});
