import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { endianness } from 'node:os';
import { join } from 'node:path';

/** True when `path` is an existing folder. */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** True when `path` exists and is not a folder. */
export function isFile(path: string): boolean {
  try {
    return !statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function globToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[0-9]+');
  return new RegExp(`^${escaped}$`);
}

/**
 * The files in `dir` that match `patterns` (file names, where `*` stands for
 * a number): at most one per pattern, in the order of `patterns`.
 */
export function findFilesIn(dir: string, patterns: readonly string[]): string[] {
  let listing: string[] | undefined;
  const hits: string[] = [];
  for (const pattern of patterns) {
    if (!pattern.includes('*')) {
      const path = join(dir, pattern);
      if (existsSync(path)) hits.push(path);
      continue;
    }
    try {
      listing ??= readdirSync(dir).sort().reverse();
    } catch {
      return hits;
    }
    const regexp = globToRegExp(pattern);
    const hit = listing.find((name) => regexp.test(name));
    if (hit) hits.push(join(dir, hit));
  }
  return hits;
}

/** Does `name` match one of `patterns`? */
export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.includes('*') ? globToRegExp(p).test(name) : p === name));
}

// e_machine of this process's architecture, where known (ELF's EM_* numbers).
const ELF_MACHINES: Record<string, number> = {
  x64: 62,
  ia32: 3,
  arm64: 183,
  arm: 40,
  ppc64: 21,
  s390x: 22,
  riscv64: 243,
  loong64: 258,
  mips: 8,
  mipsel: 8,
};
const IS_64_BIT = ['x64', 'arm64', 'ppc64', 's390x', 'riscv64', 'loong64'].includes(process.arch);
const LITTLE_ENDIAN = endianness() === 'LE';
const ET_DYN = 3;
const PT_LOAD = 1;

/**
 * Why `path` cannot be handed to `dlopen`, or undefined when it can: it must
 * be a regular, readable file (not a folder, a FIFO that would block the read,
 * or a device) and, on ELF systems, a shared object of this process's class,
 * byte order and machine whose loadable segments all lie inside the file (a
 * truncated library makes the loader fault on the pages past its end).
 */
export function sharedObjectProblem(path: string): string | undefined {
  let size: number;
  try {
    const st = statSync(path);
    if (!st.isFile())
      return st.isDirectory() ? 'a folder, not a file' : st.isFIFO() ? 'a FIFO, not a file' : 'not a regular file';
    size = st.size;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT'
      ? 'no such file'
      : `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`;
  }
  if (process.platform !== 'linux' && process.platform !== 'freebsd') return undefined;
  let fd: number | undefined;
  try {
    // O_NONBLOCK: a file swapped for a FIFO after the stat still cannot block the open.
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
    if (!fstatSync(fd).isFile()) return 'not a regular file';
    const header = Buffer.alloc(64);
    const got = readSync(fd, header, 0, 64, 0);
    if (got < 16 || header[0] !== 0x7f || header[1] !== 0x45 || header[2] !== 0x4c || header[3] !== 0x46)
      return 'not an ELF file';
    const elf64 = header[4] === 2;
    if (header[4] !== 1 && header[4] !== 2) return 'an ELF file of unknown class';
    if (elf64 !== IS_64_BIT)
      return `a ${elf64 ? '64' : '32'}-bit ELF file; this process is ${IS_64_BIT ? '64' : '32'}-bit`;
    const little = header[5] === 1;
    if (header[5] !== 1 && header[5] !== 2) return 'an ELF file of unknown byte order';
    if (little !== LITTLE_ENDIAN)
      return `a ${little ? 'little' : 'big'}-endian ELF file; this machine is ${LITTLE_ENDIAN ? 'little' : 'big'}-endian`;
    const headerSize = elf64 ? 64 : 52;
    if (got < headerSize) return 'a truncated ELF file (its header is cut short)';
    const u16 = (o: number): number => (little ? header.readUInt16LE(o) : header.readUInt16BE(o));
    const u32 = (b: Buffer, o: number): number => (little ? b.readUInt32LE(o) : b.readUInt32BE(o));
    const word = (b: Buffer, o: number): number =>
      elf64 ? Number(little ? b.readBigUInt64LE(o) : b.readBigUInt64BE(o)) : u32(b, o);
    if (u16(16) !== ET_DYN) return 'an ELF file that is not a shared object';
    const machine = ELF_MACHINES[process.arch];
    if (machine !== undefined && u16(18) !== machine)
      return `an ELF file for another machine (e_machine ${u16(18)}, this is ${machine})`;
    const phoff = word(header, elf64 ? 32 : 28);
    const phentsize = u16(elf64 ? 54 : 42);
    const phnum = u16(elf64 ? 56 : 44);
    if (phnum === 0) return undefined;
    if (phentsize < (elf64 ? 56 : 32) || phoff + phnum * phentsize > size)
      return 'a truncated ELF file (its program headers lie past its end)';
    const table = Buffer.alloc(phnum * phentsize);
    if (readSync(fd, table, 0, table.length, phoff) !== table.length) return 'a truncated ELF file';
    for (let i = 0; i < phnum; i++) {
      const at = i * phentsize;
      if (u32(table, at) !== PT_LOAD) continue;
      const offset = word(table, at + (elf64 ? 8 : 4));
      const fileSize = word(table, at + (elf64 ? 32 : 16));
      if (offset + fileSize > size)
        return `a truncated ELF file (${size} bytes; a loadable segment ends at byte ${offset + fileSize})`;
    }
    return undefined;
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
