// duplicateFdFromProcess against the real kernel: copies of this process's own
// descriptors and of a child's read the same file; bad arguments are a
// TypeError or RangeError before any system call, and a failed system call is
// an FdDuplicationError with errno's name. (The property test over hostile
// arguments is core's ipc-hostile.test.ts, where fast-check is.)
import { errorOf } from '@cuda-js/test-support/errors';
import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { duplicateFdFromProcess, FdDuplicationError } from './index.js';

const folder = mkdtempSync(join(tmpdir(), 'cuda-js-process-fd-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function fileWith(text: string): string {
  const path = join(folder, `${text.length}-${Math.random().toString(36).slice(2)}.txt`);
  writeFileSync(path, text);
  return path;
}

function readAll(fd: number, length: number): string {
  const bytes = new Uint8Array(length);
  const n = readSync(fd, bytes, 0, length, 0);
  return new TextDecoder().decode(bytes.subarray(0, n));
}

/** Whether this machine lets a process copy its own descriptors (Linux 5.6+, and no seccomp filter that refuses pidfd_getfd). */
function probe(): { ok: true } | { ok: false; reason: string } {
  if (process.platform !== 'linux') return { ok: false, reason: `pidfd_getfd is Linux's, this is ${process.platform}` };
  const fd = openSync(fileWith('probe'), 'r');
  try {
    closeSync(duplicateFdFromProcess(process.pid, fd));
    return { ok: true };
  } catch (error) {
    if (error instanceof FdDuplicationError && (error.code === 'ENOSYS' || error.code === 'EPERM'))
      return { ok: false, reason: error.message };
    throw error;
  } finally {
    closeSync(fd);
  }
}
const available = probe();
const skipReason = available.ok ? '' : ` (skipped: ${available.reason})`;

describe('duplicateFdFromProcess', () => {
  it.skipIf(!available.ok)(
    `copies a descriptor of this process: the copy reads the file after the original is closed${skipReason}`,
    () => {
      const fd = openSync(fileWith('read through the copy'), 'r');
      const copy = duplicateFdFromProcess(process.pid, fd);
      try {
        expect(Number.isInteger(copy) && copy >= 0).toBe(true);
        expect(copy).not.toBe(fd);
        closeSync(fd);
        expect(readAll(copy, 64)).toBe('read through the copy');
      } finally {
        closeSync(copy);
      }
    },
  );

  it.skipIf(!available.ok)(
    `copies a descriptor of a child process (a parent may always take its children's)${skipReason}`,
    async () => {
      const path = fileWith('opened by the child');
      // The child opens the file, says which descriptor it got, and waits until it is killed.
      const child = spawn(
        process.execPath,
        [
          '-e',
          `const fd = require('node:fs').openSync(${JSON.stringify(path)}, 'r'); console.log(fd); setInterval(() => {}, 1000);`,
        ],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      );
      try {
        const childFd = await new Promise<number>((resolve, reject) => {
          // bounded well inside the unit timeout, not by how fast a loaded machine starts a process
          const timer = setTimeout(() => reject(new Error('the child did not report its descriptor in 50 s')), 50_000);
          child.once('error', reject);
          child.stdout.once('data', (chunk: Buffer) => {
            clearTimeout(timer);
            resolve(Number.parseInt(chunk.toString(), 10));
          });
        });
        const copy = duplicateFdFromProcess(child.pid!, childFd);
        try {
          expect(readAll(copy, 64)).toBe('opened by the child');
        } finally {
          closeSync(copy);
        }
      } finally {
        child.kill('SIGKILL');
      }
    },
  );

  it('a descriptor that the process does not have is an FdDuplicationError with EBADF and what to check', () => {
    // far above any descriptor table (a just-closed number would be reused by pidfd_open itself)
    const fd = 2 ** 30;
    const caught = errorOf<unknown>(() => {
      closeSync(duplicateFdFromProcess(process.pid, fd));
    });
    expect(caught).toBeInstanceOf(FdDuplicationError);
    const error = caught as FdDuplicationError;
    expect(error.name).toBe('FdDuplicationError');
    expect(error.pid).toBe(process.pid);
    expect(error.fd).toBe(fd);
    if (available.ok) {
      expect(error.syscall).toBe('pidfd_getfd');
      expect(error.code).toBe('EBADF');
      expect(error.errno).toBe(9);
      expect(error.message).toMatch(new RegExp(`has no open descriptor ${fd}`));
    }
  });

  it('a process that does not exist is an FdDuplicationError with ESRCH (pids stop at 2^22 on Linux)', () => {
    const caught = errorOf<unknown>(() => {
      duplicateFdFromProcess(2 ** 31 - 1, 0);
    });
    expect(caught).toBeInstanceOf(FdDuplicationError);
    if (process.platform === 'linux') {
      expect((caught as FdDuplicationError).syscall).toBe('pidfd_open');
      expect((caught as FdDuplicationError).code).toBe('ESRCH');
      expect((caught as Error).message).toMatch(/there is no process 2147483647/);
    }
  });

  it('names bad arguments before any system call', () => {
    expect(() => duplicateFdFromProcess('1' as never, 0)).toThrow(TypeError);
    expect(() => duplicateFdFromProcess(1n as never, 0)).toThrow(/parameter 'pid' must be a number, got the bigint 1n/);
    expect(() => duplicateFdFromProcess(0, 0)).toThrow(/parameter 'pid' must be at least 1, got 0/);
    expect(() => duplicateFdFromProcess(-5, 0)).toThrow(RangeError);
    expect(() => duplicateFdFromProcess(1.5, 0)).toThrow(/parameter 'pid' must be an integer/);
    expect(() => duplicateFdFromProcess(2 ** 31, 0)).toThrow(/must fit a 32-bit signed integer/);
    expect(() => duplicateFdFromProcess(process.pid, -1)).toThrow(/parameter 'fd' must be at least 0, got -1/);
    expect(() => duplicateFdFromProcess(process.pid, Number.NaN)).toThrow(RangeError);
    expect(() => duplicateFdFromProcess(process.pid, undefined as never)).toThrow(TypeError);
    expect(() => (duplicateFdFromProcess as (pid: number) => number)(process.pid)).toThrow(
      /parameter 'fd' must be a number, got undefined/,
    );
  });
});
