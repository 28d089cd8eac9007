/** A strided host layout in bytes: where element 0 is, and the byte step of each dimension. */
export interface ByteLayout {
  readonly buffer: ArrayBufferLike;
  readonly byteOffset: number;
  /** Byte strides, one per dimension of the shared shape. */
  readonly byteStrides: readonly number[];
}

function gcdOf(values: readonly number[]): number {
  let g = 0;
  for (let v of values) {
    v = Math.abs(v);
    while (v !== 0) [g, v] = [v, g % v];
  }
  return g;
}

/**
 * Copies every element of `shape` from `src` to `dst` (each `itemsize` bytes).
 * Works in the widest unit (4, 2 or 1 bytes) that every offset and stride
 * allows, so that aligned float32/int32 data moves a word at a time; `dst` and
 * `src` must not overlap.
 */
export function copyStrided(dst: ByteLayout, src: ByteLayout, shape: readonly number[], itemsize: number): void {
  const ndim = shape.length;
  for (let i = 0; i < ndim; i++) if (shape[i] === 0) return;
  const g = gcdOf([itemsize, dst.byteOffset, src.byteOffset, ...dst.byteStrides, ...src.byteStrides]);
  const unit = g % 4 === 0 ? 4 : g % 2 === 0 ? 2 : 1;
  const words = (b: ArrayBufferLike): Uint8Array | Uint16Array | Uint32Array => {
    const n = Math.floor(b.byteLength / unit);
    return unit === 4 ? new Uint32Array(b, 0, n) : unit === 2 ? new Uint16Array(b, 0, n) : new Uint8Array(b, 0, n);
  };
  const d = words(dst.buffer);
  const s = words(src.buffer);
  const per = itemsize / unit;
  const dStr = dst.byteStrides.map((b) => b / unit);
  const sStr = src.byteStrides.map((b) => b / unit);
  const inner = ndim === 0 ? 1 : shape[ndim - 1]!;
  const dIn = ndim === 0 ? 0 : dStr[ndim - 1]!;
  const sIn = ndim === 0 ? 0 : sStr[ndim - 1]!;
  const index = new Array<number>(Math.max(ndim - 1, 0)).fill(0);
  let dBase = dst.byteOffset / unit;
  let sBase = src.byteOffset / unit;
  for (;;) {
    // innermost dimension
    let di = dBase;
    let si = sBase;
    if (per === 1) {
      for (let k = 0; k < inner; k++, di += dIn, si += sIn) d[di] = s[si]!;
    } else {
      for (let k = 0; k < inner; k++, di += dIn, si += sIn) for (let p = 0; p < per; p++) d[di + p] = s[si + p]!;
    }
    // odometer over the outer dimensions
    let axis = ndim - 2;
    while (axis >= 0) {
      index[axis]!++;
      dBase += dStr[axis]!;
      sBase += sStr[axis]!;
      if (index[axis]! < shape[axis]!) break;
      dBase -= dStr[axis]! * shape[axis]!;
      sBase -= sStr[axis]! * shape[axis]!;
      index[axis] = 0;
      axis--;
    }
    if (axis < 0) return;
  }
}
