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
    expect(() => driver.cuMemPoolGetAttribute(1n as never, pool.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, new Uint32Array(1))).toThrow(
      /cuMemPoolGetAttribute: parameter 'the bytes it takes' = 8 bytes is more than parameter 'value' holds \(4 bytes\)/,
    );
    expect(() => driver.cuMemPoolSetAttribute(1n as never, pool.CU_MEMPOOL_ATTR_USED_MEM_HIGH, new Uint8Array(7))).toThrow(RangeError);
    reachedTheDriver(() => driver.cuMemPoolGetAttribute(1n as never, pool.CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, new Int32Array(1)));
    const graph = driver.CUgraphMem_attribute;
    expect(() => driver.cuDeviceGetGraphMemAttribute(0, graph.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, new Uint32Array(1))).toThrow(RangeError);
    reachedTheDriver(() => driver.cuDeviceGetGraphMemAttribute(0, graph.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, new BigUint64Array(1)));
  });

  it('hold a shareable handle of the handle type: an fd, or a 64-byte fabric handle', () => {
    const types = driver.CUmemAllocationHandleType;
    expect(() => driver.cuMemExportToShareableHandle(new Uint8Array(16), 1n as never, types.CU_MEM_HANDLE_TYPE_FABRIC, 0)).toThrow(
      /= 64 bytes is more than parameter 'shareableHandle' holds \(16 bytes\)/,
    );
    expect(() => driver.cuMemExportToShareableHandle(new Uint8Array(2), 1n as never, types.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0)).toThrow(RangeError);
    reachedTheDriver(() => driver.cuMemExportToShareableHandle(new Int32Array(1), 1n as never, types.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    expect(() => driver.cuMemGetHandleForAddressRange(new Uint8Array(2), 1n as never, 64, driver.CUmemRangeHandleType.CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD, 0)).toThrow(
      /parameter 'handle' holds \(2 bytes\)/,
    );
  });
});
