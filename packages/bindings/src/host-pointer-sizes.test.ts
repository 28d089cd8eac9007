// Issue 20: 32 generated functions took a host pointer with no size, so a JS buffer smaller than
// what the driver writes there was written past its end. Each now has a sizing rule
// (tooling/generate-bindings/classify.mjs, HOST_POINTER_RULES), checked before the driver is looked for.
import { describe, expect, it } from 'vitest';
import { CudaError, driver, LibraryNotFoundError } from './index.js';

/** What a call that passed every check gives here: the driver's own answer, or no driver. */
function reachedTheDriver(call: () => unknown): void {
  try {
    call();
  } catch (error) {
    expect(error instanceof CudaError || error instanceof LibraryNotFoundError, String(error)).toBe(true);
  }
}

describe('host pointers the driver writes or reads through', () => {
  const pool = driver.CUmemPool_attribute;
  it('hold what the attribute says: an int for the reuse flags, a cuuint64_t for byte counts', () => {
    expect(() =>
      driver.cuMemPoolGetAttribute(1n as never, pool.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, new Uint32Array(1)),
    ).toThrow(
      /cuMemPoolGetAttribute: parameter 'the bytes it takes' = 8 bytes is more than parameter 'value' holds \(4 bytes\)/,
    );
    expect(() =>
      driver.cuMemPoolSetAttribute(1n as never, pool.CU_MEMPOOL_ATTR_USED_MEM_HIGH, new Uint8Array(7)),
    ).toThrow(RangeError);
    reachedTheDriver(() =>
      driver.cuMemPoolGetAttribute(1n as never, pool.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, new Int32Array(1)),
    );
    const graph = driver.CUgraphMem_attribute;
    expect(() =>
      driver.cuDeviceGetGraphMemAttribute(0, graph.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, new Uint32Array(1)),
    ).toThrow(RangeError);
    reachedTheDriver(() =>
      driver.cuDeviceGetGraphMemAttribute(0, graph.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, new BigUint64Array(1)),
    );
  });

  it('hold a shareable handle of the handle type: an fd, or a 64-byte fabric handle', () => {
    const types = driver.CUmemAllocationHandleType;
    expect(() =>
      driver.cuMemExportToShareableHandle(new Uint8Array(16), 1n as never, types.CU_MEM_HANDLE_TYPE_FABRIC, 0),
    ).toThrow(/= 64 bytes is more than parameter 'shareableHandle' holds \(16 bytes\)/);
    expect(() =>
      driver.cuMemExportToShareableHandle(
        new Uint8Array(2),
        1n as never,
        types.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
        0,
      ),
    ).toThrow(RangeError);
    reachedTheDriver(() =>
      driver.cuMemExportToShareableHandle(
        new Int32Array(1),
        1n as never,
        types.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
        0,
      ),
    );
    expect(() =>
      driver.cuMemGetHandleForAddressRange(
        new Uint8Array(2),
        1n as never,
        64,
        driver.CUmemRangeHandleType.CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD,
        0,
      ),
    ).toThrow(/parameter 'handle' holds \(2 bytes\)/);
  });

  it('every other sized rule too: each too small a buffer is a RangeError before the driver, one that fits reaches it', () => {
    const types = driver.CUmemAllocationHandleType;
    const FD = types.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    const FABRIC = types.CU_MEM_HANDLE_TYPE_FABRIC;
    const core = driver.CUcoredumpSettings;
    const graph = driver.CUgraphMem_attribute;
    // [what, a call with too small a buffer, the same call with one that fits]
    const cases: [string, (small: boolean) => unknown][] = [
      [
        'cuDeviceSetGraphMemAttribute',
        (small) =>
          driver.cuDeviceSetGraphMemAttribute(
            0,
            graph.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH,
            small ? new Uint32Array(1) : new BigUint64Array(1),
          ),
      ],
      [
        'cuPointerSetAttribute',
        (small) =>
          driver.cuPointerSetAttribute(
            small ? new Uint8Array(2) : new Uint32Array(1),
            driver.CUpointer_attribute.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
            0x1000n as never,
          ),
      ],
      [
        'cuCoredumpGetAttribute',
        (small) =>
          driver.cuCoredumpGetAttribute(
            core.CU_COREDUMP_GENERATION_FLAGS,
            small ? new Uint8Array(2) : new Int32Array(1),
          ),
      ],
      [
        'cuCoredumpGetAttributeGlobal',
        (small) =>
          driver.cuCoredumpGetAttributeGlobal(
            core.CU_COREDUMP_GENERATION_FLAGS,
            small ? new Uint8Array(3) : new Int32Array(1),
          ),
      ],
      [
        'cuCoredumpSetAttribute',
        (small) =>
          driver.cuCoredumpSetAttribute(
            core.CU_COREDUMP_ENABLE_ON_EXCEPTION,
            small ? new Uint8Array(0) : new Uint8Array(1),
          ),
      ],
      [
        'cuCoredumpSetAttributeGlobal',
        (small) =>
          driver.cuCoredumpSetAttributeGlobal(
            core.CU_COREDUMP_GENERATION_FLAGS,
            small ? new Uint8Array(1) : new Int32Array(1),
          ),
      ],
      [
        'cuMemImportFromShareableHandle',
        (small) => driver.cuMemImportFromShareableHandle(small ? new Uint8Array(63) : new Uint8Array(64), FABRIC),
      ],
      [
        'cuMemPoolExportToShareableHandle',
        (small) =>
          driver.cuMemPoolExportToShareableHandle(small ? new Uint8Array(2) : new Int32Array(1), 1n as never, FD, 0),
      ],
      [
        'cuMemPoolImportFromShareableHandle',
        (small) =>
          driver.cuMemPoolImportFromShareableHandle(small ? new Uint8Array(32) : new Uint8Array(64), FABRIC, 0),
      ],
    ];
    for (const [name, call] of cases) {
      expect(() => call(true), name).toThrow(RangeError);
      expect(() => call(true), name).toThrow(new RegExp(`^${name}: .* is more than parameter '\\w+' holds`));
      reachedTheDriver(() => call(false));
    }
  });
});

// Issue 20: the host sides of CUDA_MEMCPY2D/3D (srcHost, dstHost) were unsized: a JS buffer smaller than the
// rows the copy touches was read or written past its end, and a dstHost buffer was written into a scratch copy.
describe('the host sides of a 2-D or 3-D copy', () => {
  const HOST = driver.CUmemorytype.CU_MEMORYTYPE_HOST;
  const DEVICE = driver.CUmemorytype.CU_MEMORYTYPE_DEVICE;
  const copy2D = (dst: unknown, rows: number, pitch = 16) =>
    ({
      srcMemoryType: DEVICE,
      srcDevice: 0x7000_0000n,
      srcPitch: pitch,
      dstMemoryType: HOST,
      dstHost: dst,
      dstPitch: pitch,
      WidthInBytes: 16,
      Height: rows,
    }) as never;

  it('hold every row the copy touches: x + (y + Height - 1) * pitch + WidthInBytes bytes', () => {
    expect(() => driver.cuMemcpy2D(copy2D(new Uint8Array(63), 4))).toThrow(
      "cuMemcpy2D: parameter 'pCopy'.dstHost holds 63 bytes, but the copy writes up to byte 64 of it (XInBytes, Y, Z, Pitch, Height, WidthInBytes, Depth)",
    );
    reachedTheDriver(() => driver.cuMemcpy2D(copy2D(new Uint8Array(64), 4)));
    // the offset of the first row counts too, and the last row needs only its width
    expect(() =>
      driver.cuMemcpy2D({ ...(copy2D(new Uint8Array(64), 2, 32) as object), dstXInBytes: 8, dstY: 1 } as never),
    ).toThrow(/holds 64 bytes, but the copy writes up to byte 88/);
    reachedTheDriver(() =>
      driver.cuMemcpy2D({ ...(copy2D(new Uint8Array(88), 2, 32) as object), dstXInBytes: 8, dstY: 1 } as never),
    );
    // srcHost is read: the same rule, for a view's own bytes (not its whole ArrayBuffer)
    const src = new Uint8Array(new ArrayBuffer(256), 200, 40);
    expect(() =>
      driver.cuMemcpy2DAsync(
        {
          srcMemoryType: HOST,
          srcHost: src,
          srcPitch: 16,
          dstMemoryType: DEVICE,
          dstDevice: 0x7000_0000n,
          dstPitch: 16,
          WidthInBytes: 16,
          Height: 3,
        } as never,
        0n as never,
      ),
    ).toThrow(/pCopy'\.srcHost holds 40 bytes, but the copy reads up to byte 48/);
    // a side of device memory ignores its host field; a bigint address is the caller's own
    reachedTheDriver(() => driver.cuMemcpy2D({ ...(copy2D(0x1000n, 1000) as object) } as never));
    reachedTheDriver(() =>
      driver.cuMemcpy2D({
        ...(copy2D(new Uint8Array(1), 4) as object),
        dstMemoryType: DEVICE,
        dstDevice: 0x8000_0000n,
      } as never),
    );
    // past 2^64 bytes
    expect(() => driver.cuMemcpy2D(copy2D(new Uint8Array(64), 2 ** 40, 2 ** 40))).toThrow(/writes past 2\^64 bytes/);
  });

  it('count the slices of a 3-D copy, in cuMemcpy3D, its peer form and a graph memcpy node', () => {
    const copy3D = (dst: unknown) =>
      ({
        srcMemoryType: DEVICE,
        srcDevice: 0x7000_0000n,
        srcPitch: 16,
        srcHeight: 4,
        dstMemoryType: HOST,
        dstHost: dst,
        dstPitch: 16,
        dstHeight: 4,
        WidthInBytes: 16,
        Height: 4,
        Depth: 3,
      }) as never;
    expect(() => driver.cuMemcpy3D(copy3D(new Float32Array(47)))).toThrow(
      /cuMemcpy3D: parameter 'pCopy'\.dstHost holds 188 bytes, but the copy writes up to byte 192/,
    );
    reachedTheDriver(() => driver.cuMemcpy3D(copy3D(new Float32Array(48))));
    expect(() =>
      driver.cuMemcpy3DPeer({ ...(copy3D(new Uint8Array(100)) as object), srcContext: 0n, dstContext: 0n } as never),
    ).toThrow(/pCopy'\.dstHost holds 100 bytes/);
    expect(() => driver.cuGraphAddMemcpyNode(0n as never, [], copy3D(new Uint8Array(8)), 0n as never)).toThrow(
      /dstHost holds 8 bytes, but the copy writes up to byte 192/,
    );
  });

  it('refuse a buffer detached while the later fields were read (the pointer would dangle)', () => {
    const dst = new ArrayBuffer(64);
    const copy = {
      srcMemoryType: DEVICE,
      srcDevice: 0x7000_0000n,
      srcPitch: 16,
      dstMemoryType: HOST,
      dstHost: dst,
      dstPitch: 16,
      WidthInBytes: 16,
      get Height() {
        structuredClone(dst, { transfer: [dst] }); // detaches dst
        return 4;
      },
    };
    expect(() => driver.cuMemcpy2D(copy as never)).toThrow(
      /pCopy'\.dstHost is a buffer that was detached or resized while the copy's fields were read/,
    );
  });
});
