import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { readRegularFile, readRegularFileAsync, type RegularFileLimit } from './regular-file.js';

const dir = mkdtempSync(join(tmpdir(), 'regular-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

class Refused extends Error {}
const refuse = (problem: string) => new Refused(problem);

function file(name: string, bytes: Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

describe('readRegularFile', () => {
  it('reads a whole file within maxBytes, of exactBytes, or the first bytes of any file; refuses the rest with the caller error', async () => {
    const limit = fc.oneof(
      fc.nat(64).map((n): RegularFileLimit => ({ maxBytes: n })),
      fc.nat(64).map((n): RegularFileLimit => ({ exactBytes: n })),
      fc.nat(64).map((n): RegularFileLimit => ({ firstBytes: n })),
    );
    let n = 0;
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 48 }), limit, async (content, limit) => {
        const path = file(`f${n++}`, content);
        const expected =
          'firstBytes' in limit
            ? content.subarray(0, limit.firstBytes)
            : ('maxBytes' in limit ? content.length <= limit.maxBytes : content.length === limit.exactBytes)
              ? content
              : undefined;
        for (const read of [
          () => readRegularFile(path, limit, refuse),
          () => readRegularFileAsync(path, limit, refuse),
        ]) {
          if (expected === undefined) await expect(async () => read()).rejects.toThrow(Refused);
          else expect(new Uint8Array(await read())).toEqual(expected);
        }
      }),
      { seed: 20261202, numRuns: 200 },
    );
  });

  it('names the size it found and the one allowed', () => {
    const path = file('ten', new Uint8Array(10));
    expect(() => readRegularFile(path, { maxBytes: 4 }, refuse)).toThrow(`${path} has 10 bytes, more than the 4 read`);
    expect(() => readRegularFile(path, { exactBytes: 11 }, refuse)).toThrow(
      `${path} has 10 bytes, the manifest says 11`,
    );
  });

  it('throws the system error for a missing file, as it is', async () => {
    expect(() => readRegularFile(join(dir, 'missing'), { maxBytes: 1 }, refuse)).toThrow(
      expect.objectContaining({ code: 'ENOENT' }),
    );
    await expect(readRegularFileAsync(join(dir, 'missing'), { maxBytes: 1 }, refuse)).rejects.toMatchObject({
      code: 'ENOENT',
    });
  });

  // Issue 20: a FIFO blocked readFileSync for ever; a link to /dev/zero grew memory without end.
  it.runIf(process.platform === 'linux')(
    'refuses a FIFO, a device and a folder without blocking, whatever the limit',
    async () => {
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      const zero = join(dir, 'zero');
      symlinkSync('/dev/zero', zero);
      const cases: [string, string][] = [
        [fifo, 'a FIFO'],
        [zero, 'a device or socket'],
        [dir, 'a folder'],
      ];
      for (const [path, what] of cases) {
        for (const limit of [{ maxBytes: 1 << 30 }, { firstBytes: 16 }, { exactBytes: 0 }]) {
          expect(() => readRegularFile(path, limit, refuse)).toThrow(`${path} is not a regular file (${what})`);
          await expect(readRegularFileAsync(path, limit, refuse)).rejects.toThrow(
            `${path} is not a regular file (${what})`,
          );
        }
      }
    },
  );
});
