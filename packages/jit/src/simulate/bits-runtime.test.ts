import { describe, expect, test } from 'vitest';
import type { ScalarName } from '../typing/jit-types.js';
import type { BitFunction } from '../typing/typed-ir.js';
import {
  KernelBuilder,
  NO_POSITIONS,
  binary,
  bits,
  evaluate,
  evaluateMany,
  expr,
  fence,
  get,
  i32,
  set,
  sleep,
  store,
  timer,
  u32,
} from './ir-builders.test-support.js';
import { SimulatedKernel } from './simulated-kernel.js';

/** The bits of an integer of `width` bits, most significant first, from its two's complement. */
function bitString(value: number | bigint, width: 32 | 64): string {
  return BigInt.asUintN(width, BigInt(value)).toString(2).padStart(width, '0');
}

/** The reference: counts on the bit string. */
function reference(fn: BitFunction, type: ScalarName, value: number | bigint): number | bigint {
  const width = type === 'i64' || type === 'u64' ? 64 : 32;
  const s = bitString(value, width);
  switch (fn) {
    case 'popc':
      return [...s].filter((c) => c === '1').length;
    case 'clz':
      return s.indexOf('1') === -1 ? width : s.indexOf('1');
    case 'ffs':
      return s.lastIndexOf('1') === -1 ? 0 : width - s.lastIndexOf('1');
    case 'brev': {
      const r = BigInt(`0b${[...s].reverse().join('')}`);
      if (type === 'i32') return Number(BigInt.asIntN(32, r));
      if (type === 'u32') return Number(r);
      return type === 'i64' ? BigInt.asIntN(64, r) : r;
    }
  }
}

const SAMPLES: Record<string, (number | bigint)[]> = {
  i32: [0, 1, -1, 2 ** 31 - 1, -(2 ** 31), 0x12345678, -0x12345678, 0x80, 6, 2 ** 30],
  u32: [0, 1, 2 ** 32 - 1, 2 ** 31, 0x12345678, 0xf0000000, 0x0000ff00, 6],
  i64: [0n, 1n, -1n, 2n ** 63n - 1n, -(2n ** 63n), 0x123456789abcdefn, 2n ** 32n, 2n ** 40n + 8n, -(2n ** 33n)],
  u64: [0n, 1n, 2n ** 64n - 1n, 2n ** 63n, 0xfedcba9876543210n, 2n ** 32n, 0x100000000000n, 12n],
};

describe('bit functions of 32- and 64-bit integers', () => {
  for (const fn of ['popc', 'clz', 'ffs', 'brev'] as const) {
    test(fn, () => {
      for (const type of ['i32', 'u32', 'i64', 'u64'] as const) {
        const rows = SAMPLES[type]!.map((v) => [v]);
        const resultType = fn === 'brev' ? type : 'i32';
        const got = evaluateMany(resultType, [type], ([x]) => bits(fn, x!), rows);
        expect({ type, got }).toEqual({ type, got: SAMPLES[type]!.map((v) => reference(fn, type, v)) });
      }
    });
  }

  test('of an i64 held as a number (an index-sized value)', () => {
    const x = { op: 'convert', type: 'i64', operand: i32(-8) } as const;
    expect(evaluate('i32', () => bits('popc', x))).toBe(61);
    expect(evaluate('i32', () => bits('ffs', x))).toBe(4);
    expect(evaluate('i64', () => bits('brev', x))).toBe(BigInt.asIntN(64, 0x1fffffffffffffffn));
  });
});

describe('timer, sleep and fence', () => {
  test('clock64 and globaltimer count nanoseconds as a u64, onward', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'u64');
    const kernel = b.build([
      expr(store(out, 'u64', [i32(0)], timer('clock64'))),
      expr(store(out, 'u64', [i32(1)], timer('globaltimer'))),
    ]);
    const host = new BigUint64Array(2);
    const before = process.hrtime.bigint();
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [1, 1, 1], [host]);
    const after = process.hrtime.bigint();
    expect(host[0]! >= before && host[0]! <= host[1]! && host[1]! <= after).toBe(true);
  });

  test('sleep evaluates its operand (the simulator does not sleep); fences do nothing', () => {
    const b = new KernelBuilder();
    const out = b.array('out', 'u32');
    const k = b.local('k', 'u32');
    const kernel = b.build([
      sleep(set(k, binary('add', get(k, 'u32'), u32(1_000_000_000)))),
      fence('block'),
      fence('device'),
      fence('system'),
      expr(store(out, 'u32', [i32(0)], get(k, 'u32'))),
    ]);
    const host = new Uint32Array(1);
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [4, 1, 1], [host]);
    expect(host[0]).toBe(1_000_000_000);
  });
});
