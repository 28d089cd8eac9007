/**
 * The protocol keys of DESIGN.md ("Protocols"). They are registry symbols, so
 * that a library implements a protocol without importing cuda-js: its own
 * `Symbol.for('dlpack')` is the same value as {@link DLPACK}. Protocols are
 * methods, found with `in`, never getters. `docs/protocols.md` is the spec.
 *
 * @module
 */

/** `obj[DLPACK](request)` returns a {@link DLPackTensor}: the analogue of `__dlpack__`. */
export const DLPACK: unique symbol = Symbol.for('dlpack');

/** `obj[DLPACK_DEVICE]()` returns `[deviceType, deviceId]`: the analogue of `__dlpack_device__`. */
export const DLPACK_DEVICE: unique symbol = Symbol.for('dlpack.device');

/** `obj[CUDA_ARRAY_INTERFACE]()` returns a {@link CudaArrayInterface}: the analogue of `__cuda_array_interface__` (version 3). */
export const CUDA_ARRAY_INTERFACE: unique symbol = Symbol.for('cuda.array_interface');

/** `obj[DLPACK_EXCHANGE_API]()` returns an External that points at a C `DLPackExchangeAPI` table: the analogue of `__dlpack_c_exchange_api__`. */
export const DLPACK_EXCHANGE_API: unique symbol = Symbol.for('dlpack.exchange_api');

/** `obj[CUDA_STREAM]()` returns `{ version: 0, handle }`: the analogue of `__cuda_stream__`. `@cuda-js/streams` exports the same key. */
export const CUDA_STREAM: unique symbol = Symbol.for('cuda.stream');
