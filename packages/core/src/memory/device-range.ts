import { CudaError, driver, type CUdeviceptr } from '@cuda-js/bindings';
import { brandHandle } from '@cuda-js/bindings/runtime';

/**
 * Why `[ptr, ptr + bytes)` is not memory that the driver knows as one
 * allocation (cuPointerGetAttribute: its range's start and size), or
 * undefined when it is. A raw address that JS gives is checked with this
 * before the driver is handed it for a copy: a made-up address in a graph's
 * memcpy node ends the process when the graph runs.
 */
export function deviceRangeProblem(ptr: bigint, bytes: number): string | undefined {
  const attributes = driver.CUpointer_attribute;
  const where = `0x${ptr.toString(16)}`;
  let start: bigint;
  let size: bigint;
  try {
    const address = brandHandle<CUdeviceptr>(ptr);
    start = BigInt(
      driver.cuPointerGetAttribute(attributes.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, address) as bigint | number,
    );
    size = BigInt(driver.cuPointerGetAttribute(attributes.CU_POINTER_ATTRIBUTE_RANGE_SIZE, address) as bigint | number);
  } catch (error) {
    if (
      error instanceof CudaError &&
      (error.codeName === 'CUDA_ERROR_INVALID_VALUE' || error.codeName === 'CUDA_ERROR_NOT_SUPPORTED')
    ) {
      return `${where} is no memory that the driver knows (${error.codeName})`;
    }
    throw error;
  }
  // An address the driver does not know answers a range of 0 (unregistered host memory, say).
  if (size === 0n || ptr < start) return `${where} is no memory that the driver knows (it has no allocation there)`;
  const end = start + size;
  if (ptr + BigInt(bytes) > end)
    return `${bytes} bytes at ${where} reach past the end of its allocation (0x${start.toString(16)} + ${size} bytes)`;
  return undefined;
}
