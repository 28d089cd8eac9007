// TMA descriptors on a GPU (compute capability 9.0 or newer): a kernel that
// takes `const __grid_constant__ CUtensorMap` copies tiles of a 2-D f32
// matrix to shared memory with one cp.async.bulk.tensor each (inline PTX, an
// mbarrier waited on by every thread), and writes shared memory, as it lies
// there, to an output buffer. Every element is checked against the tile the
// host expects: inside the matrix, across its edges (zero fill), after
// replaceAddress, with the 128-byte swizzle, and through a captured graph.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DLDeviceType, StridedMemoryView } from '@cuda-js/memory-view';
import type { Stream } from '@cuda-js/streams';
import { describeGpu } from '@cuda-js/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Buffer, Device, launch, LaunchArgumentError, TensorMapDescriptor, TensorMapError } from '../index.js';
import { compileTestKernels } from '../test-kernels.test-support.js';

const ROWS = 128;
const COLS = 64;
const BOX_ROWS = 16;
const BOX_COLS = 32;
const TILE = BOX_ROWS * BOX_COLS;

// Kept in step with the constants above.
const SOURCE = String.raw`
// The CUtensorMap of cuda.h, declared here: NVRTC has no driver headers.
struct alignas(64) CUtensorMap {
  unsigned long long opaque[16];
};

constexpr int BOX_ROWS = ${BOX_ROWS};
constexpr int BOX_COLS = ${BOX_COLS};
constexpr int TILE = BOX_ROWS * BOX_COLS;
constexpr unsigned TILE_BYTES = TILE * sizeof(float);

// One block per tile: block b copies the box at (column, row) = (coords[2b], coords[2b + 1]) from global memory to
// shared memory with one TMA copy, then writes shared memory, as it lies there, to out[b * TILE ...].
extern "C" __global__ void load_tiles(const __grid_constant__ CUtensorMap map, const int* coords, float* out) {
  // 1024-byte aligned: the 128-byte swizzle pattern is a function of the shared address bits 4 to 9.
  __shared__ alignas(1024) float tile[TILE];
  __shared__ alignas(8) unsigned long long barrier;
  const unsigned tileAddress = static_cast<unsigned>(__cvta_generic_to_shared(tile));
  const unsigned barrierAddress = static_cast<unsigned>(__cvta_generic_to_shared(&barrier));
  const int column = coords[2 * blockIdx.x];
  const int row = coords[2 * blockIdx.x + 1];
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrierAddress), "r"(1) : "memory");
    // The barrier's initialization, visible to the async proxy that completes it.
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    // One arrival (this thread's) and the copy's bytes complete phase 0; the arrival token is not needed.
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrierAddress), "r"(TILE_BYTES) : "memory");
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :
                 : "r"(tileAddress), "l"(reinterpret_cast<unsigned long long>(&map)), "r"(column), "r"(row), "r"(barrierAddress)
                 : "memory");
  }
  // Every thread waits for phase 0 of the barrier: the copy's bytes have landed.
  unsigned done = 0;
  while (!done) {
    asm volatile(
        "{\n"
        "  .reg .pred complete;\n"
        "  mbarrier.try_wait.parity.shared::cta.b64 complete, [%1], %2;\n"
        "  selp.u32 %0, 1, 0, complete;\n"
        "}\n"
        : "=r"(done)
        : "r"(barrierAddress), "r"(0)
        : "memory");
  }
  for (int i = threadIdx.x; i < TILE; i += blockDim.x) out[blockIdx.x * TILE + i] = tile[i];
}

extern "C" __global__ void takes_pointer(float* p) {
  if (p != nullptr && threadIdx.x == 0) *p = 1.0f;
}
`;

/** A ROWS × COLS row-major matrix whose every element differs from every other and from 0 (the out-of-bounds fill). */
const matrix = (sign: number) =>
  Float32Array.from({ length: ROWS * COLS }, (_, k) => sign * (Math.floor(k / COLS) * 1000 + (k % COLS) + 1));
const FIRST = matrix(1);
const SECOND = matrix(-1);

/**
 * The box at (column, row) of `m` as TMA lays it in shared memory: row-major,
 * zeros outside the matrix; with the 128-byte swizzle (one 128-byte box row
 * per shared row, the tile 1024-byte aligned), the 16-byte chunk c of box row
 * r lands at chunk c ^ (r mod 8).
 */
function expectedTile(m: Float32Array, column: number, row: number, swizzled = false): number[] {
  const out = new Array<number>(TILE).fill(Number.NaN);
  for (let r = 0; r < BOX_ROWS; r++) {
    for (let c = 0; c < BOX_COLS; c++) {
      const i = row + r;
      const j = column + c;
      const value = i >= 0 && i < ROWS && j >= 0 && j < COLS ? m[i * COLS + j]! : 0;
      const at = swizzled ? (((c >> 2) ^ (r & 7)) << 2) | (c & 3) : c;
      out[r * BOX_COLS + at] = value;
    }
  }
  return out;
}

/** Tiles as (column, row) of their first element: inside, at the far corner, across both far edges, and before the start. */
const TILES: readonly (readonly [number, number])[] = [
  [0, 0],
  [32, 16],
  [0, 112],
  [32, 48],
  [48, 120],
  [-16, -8],
];

// gc() without --expose-gc on the command line (memory-view's tests do the same).
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const tick = (ms = 5): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Collects garbage until `done()`; `done` runs in a job of its own, as a WeakRef's deref() keeps its target for the rest of the job. */
async function collectUntil(done: () => boolean, rounds = 100): Promise<boolean> {
  for (let i = 0; i < rounds; i++) {
    gc();
    await tick();
    if (done()) return true;
    await tick(10);
  }
  return false;
}

describeGpu('TensorMapDescriptor on a GPU', () => {
  let device: Device;
  let skipReason: string | undefined;
  let k: ReturnType<typeof compileTestKernels> | undefined;
  const kernel = (name: string) => k!.kernels[name]!;
  beforeAll(() => {
    device = Device.get(0).setCurrent();
    const { major, minor } = device.computeCapability;
    if (major < 9) skipReason = `TMA needs compute capability 9.0 or newer; device 0 is ${major}.${minor}`;
    else k = compileTestKernels(SOURCE, ['load_tiles', 'takes_pointer'], device.arch);
  });
  afterAll(() => k?.unload());

  /** A device copy of `values` and its 2-D float32 view. */
  function upload(values: Float32Array, stream: Stream): { buffer: Buffer; view: StridedMemoryView } {
    const buffer = device.allocate(values.byteLength, { stream });
    buffer.copyFrom(values, { stream });
    return {
      buffer,
      view: StridedMemoryView.fromAny(buffer, { stream: stream.handle }).view({
        dtype: 'float32',
        shape: [ROWS, COLS],
      }),
    };
  }

  /** Launches load_tiles over `tiles` (one block each) and returns each block's output. */
  function loadTiles(map: unknown, tiles: readonly (readonly [number, number])[], stream: Stream): number[][] {
    using coords = device.allocate(tiles.length * 8, { stream });
    coords.copyFrom(Int32Array.from(tiles.flat()), { stream });
    using out = device.allocate(tiles.length * TILE * 4, { stream });
    out.fill(0xff, { stream }); // NaN: an element the kernel did not write shows
    launch(stream, { grid: tiles.length, block: 128 }, kernel('load_tiles'), map, coords, out);
    const host = new Float32Array(tiles.length * TILE);
    out.copyTo(host, { stream });
    return tiles.map((_, b) => Array.from(host.subarray(b * TILE, (b + 1) * TILE)));
  }

  it('loads tiles inside the matrix and across its edges (zeros outside), every element', (context) => {
    if (skipReason) context.skip(skipReason);
    using stream = device.createStream();
    const { buffer, view } = upload(FIRST, stream);
    using _ = buffer;
    const map = TensorMapDescriptor.tiled(view, { box: [BOX_ROWS, BOX_COLS] });
    expect(map.device).toBe(device);
    expect(map.address).toBe(buffer.ptr);
    expect(map.bytes.byteLength).toBe(128);
    expect(map.bytes.some((b) => b !== 0)).toBe(true);
    expect(String(map)).toBe('TensorMapDescriptor(tiled float32 [128, 64], box [16, 32])');
    const got = loadTiles(map, TILES, stream);
    TILES.forEach(([column, row], b) =>
      expect(got[b], `tile at (${column}, ${row})`).toEqual(expectedTile(FIRST, column, row)),
    );
  });

  it('replaceAddress points the same map at a second matrix, given as a view or as a Buffer', (context) => {
    if (skipReason) context.skip(skipReason);
    using stream = device.createStream();
    const first = upload(FIRST, stream);
    const second = upload(SECOND, stream);
    using _a = first.buffer;
    using _b = second.buffer;
    const map = TensorMapDescriptor.tiled(first.view, { box: [BOX_ROWS, BOX_COLS] });
    const before = map.bytes;
    map.replaceAddress(second.view);
    expect(map.address).toBe(second.buffer.ptr);
    expect(map.target).toBe(second.view);
    expect(map.bytes).not.toEqual(before);
    let got = loadTiles(map, TILES, stream);
    TILES.forEach(([column, row], b) =>
      expect(got[b], `second matrix, tile at (${column}, ${row})`).toEqual(expectedTile(SECOND, column, row)),
    );
    map.replaceAddress(first.buffer);
    expect(map.target).toBe(first.buffer);
    got = loadTiles(map, TILES, stream);
    TILES.forEach(([column, row], b) =>
      expect(got[b], `first matrix again, tile at (${column}, ${row})`).toEqual(expectedTile(FIRST, column, row)),
    );
    // A layout other than the map's is refused before the driver, and the map is unchanged.
    const wide = StridedMemoryView.fromAny(second.buffer, { stream: stream.handle }).view({
      dtype: 'float32',
      shape: [COLS, ROWS],
    });
    expect(() => map.replaceAddress(wide)).toThrow(TensorMapError);
    expect(map.address).toBe(first.buffer.ptr);
  });

  it('swizzle 128B lays each 128-byte box row out with its 16-byte chunks permuted by the row', (context) => {
    if (skipReason) context.skip(skipReason);
    using stream = device.createStream();
    const { buffer, view } = upload(FIRST, stream);
    using _ = buffer;
    const map = TensorMapDescriptor.tiled(view, { box: [BOX_ROWS, BOX_COLS], swizzle: '128B', l2Promotion: '128B' });
    expect(map.swizzle).toBe('128B');
    const got = loadTiles(map, TILES, stream);
    TILES.forEach(([column, row], b) =>
      expect(got[b], `swizzled tile at (${column}, ${row})`).toEqual(expectedTile(FIRST, column, row, true)),
    );
  });

  it('a captured graph holds the bytes of the map at capture: a later replaceAddress changes only new launches', (context) => {
    if (skipReason) context.skip(skipReason);
    using stream = device.createStream();
    const first = upload(FIRST, stream);
    const second = upload(SECOND, stream);
    using _a = first.buffer;
    using _b = second.buffer;
    const map = TensorMapDescriptor.tiled(first.view, { box: [BOX_ROWS, BOX_COLS] });
    const tiles = TILES.slice(0, 2);
    using coords = device.allocate(tiles.length * 8, { stream });
    coords.copyFrom(Int32Array.from(tiles.flat()), { stream });
    using out = device.allocate(tiles.length * TILE * 4, { stream });
    using builder = device.createGraphBuilder().beginBuilding();
    launch(builder, { grid: tiles.length, block: 128 }, kernel('load_tiles'), map, coords, out);
    builder.endBuilding();
    using graph = builder.complete();
    map.replaceAddress(second.view);
    out.fill(0xff, { stream });
    graph.launch(stream);
    const host = new Float32Array(tiles.length * TILE);
    out.copyTo(host, { stream });
    tiles.forEach(([column, row], b) =>
      expect(Array.from(host.subarray(b * TILE, (b + 1) * TILE)), `graph, tile at (${column}, ${row})`).toEqual(
        expectedTile(FIRST, column, row),
      ),
    );
    const direct = loadTiles(map, tiles, stream);
    tiles.forEach(([column, row], b) =>
      expect(direct[b], `launch, tile at (${column}, ${row})`).toEqual(expectedTile(SECOND, column, row)),
    );
  });

  it('launch checks the parameter size and refuses a map whose memory was closed', (context) => {
    if (skipReason) context.skip(skipReason);
    using stream = device.createStream();
    const { buffer, view } = upload(FIRST, stream);
    const map = TensorMapDescriptor.tiled(view, { box: [BOX_ROWS, BOX_COLS] });
    expect(() => launch(stream, { grid: 1, block: 1 }, kernel('takes_pointer'), map)).toThrow(LaunchArgumentError);
    expect(() => launch(stream, { grid: 1, block: 1 }, kernel('takes_pointer'), map)).toThrow(
      "takes_pointer: argument 0: the kernel's parameter is 8 bytes, but TensorMapDescriptor(tiled float32 [128, 64], box [16, 32]) (128 bytes, by value) was given",
    );
    using coords = device.allocate(8, { stream });
    expect(() => launch(stream, { grid: 1, block: 1 }, kernel('load_tiles'), coords, coords, coords)).toThrow(
      "argument 0: the kernel's parameter is 128 bytes, but a Buffer (a pointer, 8 bytes) was given",
    );
    expect(map.closed).toBe(false);
    buffer.close();
    expect(map.closed).toBe(true);
    expect(() => launch(stream, { grid: 1, block: 1 }, kernel('load_tiles'), map, coords, coords)).toThrow(
      /argument 0: TensorMapDescriptor\(.*\): the memory it addresses was closed/,
    );
  });

  it('holds the memory it addresses while it lives, and only then', async (context) => {
    if (skipReason) context.skip(skipReason);
    using stream = device.createStream();
    // Nothing but the map references the Buffer and its view.
    const make = () => {
      const { buffer, view } = upload(FIRST, stream);
      return { map: TensorMapDescriptor.tiled(view, { box: [BOX_ROWS, BOX_COLS] }), buffer: new WeakRef(buffer) };
    };
    let made: { map: TensorMapDescriptor | undefined; buffer: WeakRef<Buffer> } = make();
    expect(await collectUntil(() => made.buffer.deref() === undefined, 20)).toBe(false);
    expect(loadTiles(made.map, [[0, 0]], stream)[0]).toEqual(expectedTile(FIRST, 0, 0));
    // Without the map, the Buffer goes (the check can fail).
    made = { map: undefined, buffer: made.buffer };
    expect(await collectUntil(() => made.buffer.deref() === undefined)).toBe(true);
  });

  it('refuses, before the driver, a box it cannot map, host memory and memory of another device', (context) => {
    if (skipReason) context.skip(skipReason);
    using stream = device.createStream();
    const { buffer, view } = upload(FIRST, stream);
    using _ = buffer;
    expect(() => TensorMapDescriptor.tiled(view, { box: [BOX_ROWS, BOX_COLS + 1] })).toThrow(TensorMapError);
    expect(() => TensorMapDescriptor.tiled(new Float32Array(ROWS * COLS), { box: [BOX_COLS] })).toThrow(
      'host memory the GPU cannot address',
    );
    if (Device.count() > 1) {
      const other = StridedMemoryView.fromPointer(buffer.ptr, {
        dtype: 'float32',
        shape: [ROWS, COLS],
        device: { type: DLDeviceType.CUDA, id: 1 },
      });
      expect(() => TensorMapDescriptor.tiled(other, { box: [BOX_ROWS, BOX_COLS] })).toThrow(
        'the array lives on CUDA device 1, but the tensor map is for device 0',
      );
    }
  });
});
