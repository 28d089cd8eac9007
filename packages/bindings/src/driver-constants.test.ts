import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { findHeaderDirectory } from '@cuda-js/pathfinder';
import { describe, expect, it } from 'vitest';
import { driver } from './index.js';

const committed = JSON.parse(readFileSync(join(import.meta.dirname, 'generated', 'coverage.json'), 'utf8')) as {
  cudaVersion: number;
};

function cudaHeaderText(): string | undefined {
  try {
    const path = join(findHeaderDirectory('cuda').path, 'cuda.h');
    return existsSync(path) ? readFileSync(path, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

const constants = driver.constants as Readonly<Record<string, number | bigint>>;

/** Every enum member of the driver namespace, by name (the targets of `#define CU_STREAM_ATTRIBUTE_PRIORITY CU_LAUNCH_ATTRIBUTE_PRIORITY`). */
function enumMember(name: string): number | undefined {
  for (const [key, value] of Object.entries(driver)) {
    if (key === 'constants' || typeof value !== 'object' || value === null) continue;
    const member = (value as Record<string, unknown>)[name];
    if (typeof member === 'number') return member;
  }
  return undefined;
}

/**
 * The header's `#define CU_*`/`CUDA_*` forms that the constants come from, read
 * here on their own terms: a literal, a cast of a literal or of an earlier
 * name, or the name of an enum member.
 */
function headerConstants(text: string): Map<string, number | bigint> {
  const out = new Map<string, number | bigint>();
  const code = text.replace(/\/\*[\s\S]*?\*\//g, ' ');
  for (const [, name, body] of code.matchAll(
    /^[ \t]*#define[ \t]+(CU(?:DA)?_\w+)[ \t]+(.+?)[ \t]*$/gm,
  ) as IterableIterator<[string, string, string]>) {
    if (name === 'CUDA_VERSION') continue;
    const literal = /^(0x[0-9a-fA-F]+|\d+)$/.exec(body);
    const cast = /^\(\((\w+\*?)\)(-?)(0x[0-9a-fA-F]+|\d+|CU\w+)\)$/.exec(body);
    if (literal) out.set(name, Number(literal[1]));
    else if (cast) {
      const [, type, minus, operand] = cast as unknown as [string, string, string, string];
      const magnitude = /^CU/.test(operand) ? Number(out.get(operand)) : Number(operand);
      const value = minus ? -magnitude : magnitude;
      // CUdevice is an int; CUstream and void* are pointers
      out.set(name, type === 'CUdevice' ? value : BigInt(value));
    } else if (/^CU_\w+$/.test(body)) {
      const target = out.get(body) ?? enumMember(body);
      if (target !== undefined) out.set(name, target);
    }
  }
  return out;
}

describe('driver.constants', () => {
  it('is frozen, and holds only numbers and bigints', () => {
    expect(Object.isFrozen(driver.constants)).toBe(true);
    expect(Object.keys(driver.constants).length).toBeGreaterThan(0);
    for (const [name, value] of Object.entries(constants)) expect(['number', 'bigint'], name).toContain(typeof value);
  });

  const text = cudaHeaderText();
  const sameRelease =
    text !== undefined && new RegExp(`#define\\s+CUDA_VERSION\\s+${committed.cudaVersion}\\b`).test(text);
  if (!sameRelease) {
    console.info(
      `driver.constants: skipping the comparison with cuda.h (${text === undefined ? 'no cuda.h found' : `cuda.h is not the CUDA ${committed.cudaVersion} header`})`,
    );
  }

  it.skipIf(!sameRelease)(`has cuda.h ${committed.cudaVersion}'s integer #defines with the header's values`, () => {
    const expected = headerConstants(text!);
    // the flags and handles that the layers above use are among them
    for (const name of [
      'CU_MEMHOSTALLOC_PORTABLE',
      'CU_MEMHOSTALLOC_DEVICEMAP',
      'CU_GRAPH_COND_ASSIGN_DEFAULT',
      'CU_DEVICE_CPU',
      'CU_DEVICE_INVALID',
      'CU_STREAM_LEGACY',
      'CU_IPC_HANDLE_SIZE',
    ]) {
      expect(expected.has(name), name).toBe(true);
    }
    expect(typeof expected.get('CU_STREAM_PER_THREAD')).toBe('bigint');
    expect(Object.fromEntries(Object.entries(constants).filter(([name]) => expected.has(name)))).toEqual(
      Object.fromEntries(expected),
    );
  });

  it.skipIf(!sameRelease)('holds no name that cuda.h does not #define', () => {
    const defined = new Set([...text!.matchAll(/^[ \t]*#define[ \t]+(\w+)/gm)].map((m) => m[1]));
    expect(Object.keys(constants).filter((name) => !defined.has(name))).toEqual([]);
  });
});
