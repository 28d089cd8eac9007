import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ReadOnlyViewError, setDriverHooks, StreamOrderError, StridedMemoryView } from './index.js';

// The examples of docs/protocols.md ("Complete examples"), run as written: they
// are extracted from the document, so that the spec cannot drift from the code.
const spec = readFileSync(join(import.meta.dirname, '..', '..', '..', 'docs', 'protocols.md'), 'utf8');
const examples = new Map([...spec.matchAll(/```js example=([\w-]+)\n([\s\S]*?)```/g)].map((m) => [m[1]!, m[2]!]));
const dir = join(import.meta.dirname, '..', 'test', '.examples');

type Modules = {
  HostArray: new (n: number) => { values: Float32Array; exportsOut: number; close(): void };
  DeviceArray: new (
    ptr: bigint,
    n: number,
    device: number,
    stream: bigint,
    driver: { waitStream(p: bigint, c: bigint): void },
  ) => object;
  sum(array: unknown): number;
  fill(array: unknown, value: number): void;
  kernelArgument(
    array: unknown,
    stream: unknown,
  ): { ptr: bigint; shape: readonly number[]; strides: readonly number[]; dtype: string };
};
let m: Modules;

beforeAll(async () => {
  mkdirSync(dir, { recursive: true });
  const loaded: Record<string, unknown> = {};
  for (const [name, code] of examples) {
    const file = join(dir, `${name}.mjs`);
    // The consumer imports the package by name; here it is this package's source.
    writeFileSync(
      file,
      code.replace("from '@cuda-js/memory-view'", `from ${JSON.stringify(join(import.meta.dirname, 'index.ts'))}`),
    );
    Object.assign(loaded, await import(file));
  }
  m = loaded as Modules;
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));
afterEach(() => setDriverHooks({}));

describe('docs/protocols.md: the complete examples', () => {
  it('has the three examples', () => {
    expect([...examples.keys()]).toEqual(['host-array', 'device-array', 'consumer']);
  });

  it('HostArray exports zero-copy, and gets every export back', () => {
    const a = new m.HostArray(4);
    a.values.set([1, 2, 3, 4]);
    expect(m.sum(a)).toBe(10);
    expect(a.exportsOut).toBe(0);
    m.fill(a, 0.5);
    expect(Array.from(a.values)).toEqual([0.5, 0.5, 0.5, 0.5]);
    const view = StridedMemoryView.fromAny(a);
    expect(() => a.close()).toThrow(/exports are still out/);
    view.close();
    a.close();
    expect(() => StridedMemoryView.fromAny(a)).toThrow(/HostArray: closed/);
  });

  it('the consumer takes plain typed arrays and strided views too, and refuses read-only ones for writing', () => {
    expect(m.sum(new Int16Array([1, -2, 3]))).toBe(2);
    const strided = StridedMemoryView.fromBuffer(new Float32Array([1, 2, 3, 4, 5, 6]), {
      dtype: 'float32',
      shape: [2, 3],
    }).slice(null, [0, 3, 2]);
    expect(m.sum(strided)).toBe(1 + 3 + 4 + 6);
    expect(() =>
      m.fill(StridedMemoryView.fromBuffer(new Float32Array(2), { dtype: 'float32', readonly: true }), 1),
    ).toThrow(ReadOnlyViewError);
  });

  it('DeviceArray orders its data on the consumer stream (DLPack) or asks the consumer to (CUDA array interface)', () => {
    const waits: bigint[][] = [];
    const driver = { waitStream: (p: bigint, c: bigint) => waits.push([p, c]) };
    const array = new m.DeviceArray(0x7f00n, 256, 1, 0x10n, driver);
    const arg = m.kernelArgument(array, 0x20n);
    expect(arg).toMatchObject({ ptr: 0x7f00n, shape: [256], strides: [1], dtype: 'float32' });
    expect(waits).toEqual([[0x10n, 0x20n]]); // the producer waited (DLPack rule)
    const viaCai = {
      [Symbol.for('cuda.array_interface')]: () =>
        (array as Record<symbol, () => unknown>)[Symbol.for('cuda.array_interface')]!(),
    };
    expect(() => m.kernelArgument(viaCai, 0x20n)).toThrow(StreamOrderError); // no waiter installed
    setDriverHooks({ waitStream: (p, c) => waits.push([p, c, 0n]) });
    expect(m.kernelArgument(viaCai, 0x20n).ptr).toBe(0x7f00n);
    expect(waits[1]).toEqual([0x10n, 0x20n, 0n]); // the consumer waited (CUDA array interface rule)
    expect(() => m.kernelArgument(new Float32Array(2), 0x20n)).toThrow(/not in CUDA-accessible memory/);
  });
});
