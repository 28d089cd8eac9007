import { CUDA_ARRAY_INTERFACE, StridedMemoryView } from '@cuda-js/memory-view';
import { orderStreams } from '@cuda-js/streams';
import { describe, expect, it, vi } from 'vitest';
import { LaunchArgumentError } from '../errors.js';
import { LaunchPlan } from '../device/launch-plan.js';
import { f32, f64, i32, i64, u8 } from './scalar.js';

// Ordering a stream after another needs the driver: record the calls instead.
vi.mock('@cuda-js/streams', async (importOriginal) => ({
  ...(await importOriginal<typeof import('@cuda-js/streams')>()),
  orderStreams: vi.fn(),
}));
const ordered = vi.mocked(orderStreams);

// Packing needs no device: the parameter layout is given, and no launch is made.
const plan = () =>
  new LaunchPlan({
    handle: 0x1234n,
    name: 'k',
    parameters: [
      { offset: 0, size: 8 },
      { offset: 8, size: 4 },
      { offset: 16, size: 8 },
    ],
  });

const cai = (address: unknown, extra: object = {}) => ({
  [CUDA_ARRAY_INTERFACE]: () => ({ shape: [4], typestr: '<f4', data: [address, false], version: 3, ...extra }),
});

describe('LaunchPlan.pack', () => {
  it('accepts pointers as bigints and CAI objects, i32 as numbers, and sized scalars', () => {
    const p = plan();
    expect(() => p.pack([0x1000n, 5, f64(1.5)], 1n)).not.toThrow();
    expect(() => p.pack([cai(0x2000n), i32(-3), i64(7n)], 1n)).not.toThrow();
    expect(() => p.pack([cai(4096), 0, -1n], 1n)).not.toThrow();
  });

  it('names the argument whose size does not match the parameter', () => {
    const p = plan();
    expect(() => p.pack([0x1000n, 5, f32(1)], 1n)).toThrow(LaunchArgumentError);
    expect(() => p.pack([0x1000n, 5, f32(1)], 1n)).toThrow(
      "k: argument 2: the kernel's parameter is 8 bytes, but f32(1) (4 bytes) was given",
    );
    expect(() => p.pack([0x1000n, u8(1), 0n], 1n)).toThrow(/argument 1: the kernel's parameter is 4 bytes/);
    expect(() => p.pack([7, 5, 0n], 1n)).toThrow(/argument 0: .*a plain number is an i32, 4 bytes/);
  });

  it('refuses what would silently go wrong', () => {
    const p = plan();
    expect(() => p.pack([0n, 1.5, 0n], 1n)).toThrow('say f32(1.5) for a float');
    expect(() => p.pack([0n, 2 ** 31, 0n], 1n)).toThrow('does not fit in an i32');
    expect(() => p.pack([2n ** 64n, 1, 0n], 1n)).toThrow('does not fit in 64 bits');
    expect(() => p.pack([0n, 1], 1n)).toThrow('the kernel takes 3 argument(s), 2 were given');
    expect(() => p.pack([null, 1, 0n], 1n)).toThrow('cannot pass null');
    expect(() => p.pack(['x', 1, 0n], 1n)).toThrow('cannot pass string');
    expect(() => p.pack([cai(-1), 1, 0n], 1n)).toThrow(
      'argument 0: not a CUDA array that cuda-js can pass (the CUDA array interface address is -1',
    );
    expect(() => p.pack([cai(1n, { mask: {} }), 1, 0n], 1n)).toThrow('masked arrays are not supported');
    expect(() => p.pack([cai(1n, { stream: 0 }), 1, 0n], 1n)).toThrow('stream is 0, which version 3 forbids');
    expect(() => p.pack([new Float32Array(4), 1, 0n], 1n)).toThrow('host memory the GPU cannot address');
    expect(() => p.pack([{}, 1, 0n], 1n)).toThrow(/argument 0: not an array that cuda-js can view/);
  });
});

describe('LaunchPlan.pack with StridedMemoryViews', () => {
  const onStream = (stream: bigint) => StridedMemoryView.fromPointer(0x5000n, { dtype: 'float32', shape: [4], stream });

  it("writes the address and orders the launch stream after the view's stream, on every launch", () => {
    const p = plan();
    const view = onStream(0x77n);
    ordered.mockClear();
    p.pack([view, 1, 0n], 0x77n);
    expect(ordered).not.toHaveBeenCalled();
    p.pack([view, 1, 0n], 0x99n);
    p.pack([view, 1, 0n], 0x99n);
    expect(ordered.mock.calls).toEqual([
      [0x77n, 0x99n],
      [0x77n, 0x99n],
    ]);
    const bytes = p.parameterBytes;
    expect(new DataView(bytes.buffer).getBigUint64(0, true)).toBe(0x5000n);
  });

  it('refuses a closed view, and a view of host memory', () => {
    const p = plan();
    const view = onStream(0x77n);
    p.pack([view, 1, 0n], 0x77n);
    view.close();
    expect(() => p.pack([view, 1, 0n], 0x77n)).toThrow('argument 0: the view is closed');
    expect(() => p.pack([StridedMemoryView.fromBuffer(new Float32Array(2)), 1, 0n], 1n)).toThrow(
      'host memory the GPU cannot address',
    );
  });
});
