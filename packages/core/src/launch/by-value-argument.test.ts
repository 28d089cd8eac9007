// By-value kernel arguments (a TensorMapDescriptor's 128 bytes) in a launch
// plan: written with one copy at the parameter's offset, refused by size and
// once closed. Packing needs no device: the parameter layout is given.
import { describe, expect, it } from 'vitest';
import { ByValueArgument } from './by-value-argument.js';
import { LaunchArgumentError } from '../errors.js';
import { LaunchPlan } from '../device/launch-plan.js';

/** 128 bytes of a pattern, as a CUtensorMap parameter takes them. */
class Pattern extends ByValueArgument {
  isClosed = false;
  constructor(
    readonly seed: number,
    readonly size = 128,
  ) {
    super();
  }
  get byteLength(): number {
    return this.size;
  }
  override get closed(): boolean {
    return this.isClosed;
  }
  writeTo(target: Uint8Array, offset: number): void {
    target.set(
      Array.from({ length: this.size }, (_, i) => (this.seed + i) & 0xff),
      offset,
    );
  }
  override toString(): string {
    return `Pattern(${this.seed})`;
  }
}

// A kernel (int n, const __grid_constant__ CUtensorMap map, float* out): the map 64-byte aligned, as nvcc lays it out.
const plan = () =>
  new LaunchPlan({
    handle: 0x1234n,
    name: 'k',
    parameters: [
      { offset: 0, size: 4 },
      { offset: 64, size: 128 },
      { offset: 192, size: 8 },
    ],
  });

describe('ByValueArgument in a launch', () => {
  it('copies the bytes to the parameter, leaving its neighbours alone, on every launch', () => {
    const p = plan();
    p.pack([7, new Pattern(3), 0x5000n], 1n);
    let bytes = p.parameterBytes;
    expect(new DataView(bytes.buffer).getInt32(0, true)).toBe(7);
    expect([...bytes.subarray(64, 192)]).toEqual(Array.from({ length: 128 }, (_, i) => 3 + i));
    expect(new DataView(bytes.buffer).getBigUint64(192, true)).toBe(0x5000n);
    const same = new Pattern(200);
    p.pack([7, same, 0x5000n], 1n);
    p.pack([7, same, 0x5000n], 1n);
    bytes = p.parameterBytes;
    expect([...bytes.subarray(64, 192)]).toEqual(Array.from({ length: 128 }, (_, i) => (200 + i) & 0xff));
  });

  it('names the argument whose size is not the parameter size, and refuses one that was closed', () => {
    const p = plan();
    expect(() => p.pack([7, new Pattern(1, 64), 0n], 1n)).toThrow(LaunchArgumentError);
    expect(() => p.pack([7, new Pattern(1, 64), 0n], 1n)).toThrow(
      "k: argument 1: the kernel's parameter is 128 bytes, but Pattern(1) (64 bytes, by value) was given",
    );
    expect(() => p.pack([new Pattern(1, 4), new Pattern(1), 0n], 1n)).not.toThrow();
    expect(() => p.pack([7, new Pattern(1), new Pattern(1)], 1n)).toThrow(
      "argument 2: the kernel's parameter is 8 bytes, but Pattern(1) (128 bytes, by value)",
    );
    const closed = new Pattern(1);
    closed.isClosed = true;
    expect(() => p.pack([7, closed, 0n], 1n)).toThrow('k: argument 1: Pattern(1): the memory it addresses was closed');
  });
});
