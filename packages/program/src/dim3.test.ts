import { describe, expect, it } from 'vitest';
import { readDim3 } from './index.js';

describe('readDim3', () => {
  it('reads each form as [x, y, z], a missing dimension being 1', () => {
    expect(readDim3(256)).toEqual([256, 1, 1]);
    expect(readDim3([16, 16])).toEqual([16, 16, 1]);
    expect(readDim3([4, 4, 4])).toEqual([4, 4, 4]);
    expect(readDim3({ x: 8 })).toEqual([8, 1, 1]);
    expect(readDim3({ x: 8, y: 2, z: 3 })).toEqual([8, 2, 3]);
    expect(readDim3(2 ** 32 - 1)).toEqual([2 ** 32 - 1, 1, 1]);
  });

  it('names what is no Dim3: the form, or an extent', () => {
    for (const value of [undefined, null, '8', 8n, [], [1, 2, 3, 4]]) expect(readDim3(value)).toBe('form');
    // issue 20: { x: 1, w: 2 } was read as [1, 1, 1]
    for (const value of [
      { x: 1, w: 2 },
      { x: 4, Y: 2 },
      { x: 1, length: 3 },
    ])
      expect(readDim3(value)).toBe('form');
    for (const value of [0, -1, 1.5, 2 ** 32, Number.NaN, [8, undefined], [1, 0], { x: 0 }, { y: 2 }, { x: 1, z: '2' }])
      expect(readDim3(value)).toBe('extent');
  });

  it('reads each element once, so a getter cannot answer twice', () => {
    let reads = 0;
    const shape = {
      get x() {
        reads++;
        return reads === 1 ? 4 : 0;
      },
    };
    expect(readDim3(shape)).toEqual([4, 1, 1]);
    expect(reads).toBe(1);
  });
});
