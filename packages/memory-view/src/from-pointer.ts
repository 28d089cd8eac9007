import { DLPackFlags } from './protocols.js';
import { StridedMemoryView } from './strided-memory-view.js';
import { CHECKED_VIEW_INIT, checkViewInit } from './view-init.js';
import { checkViewOptions, POINTER_VIEW_OPTIONS } from './view-option-error.js';
import type { PointerViewOptions } from './view-options.js';

/** @internal `StridedMemoryView.fromPointer`: the init-object constructor's checks, with fromPointer's defaults and messages. */
export function viewFromPointer(ptr: bigint, options: PointerViewOptions): StridedMemoryView {
  if (typeof ptr !== 'bigint') throw new TypeError(`fromPointer: ptr must be a bigint address, got ${typeof ptr}`);
  if (options === null || typeof options !== 'object')
    throw new TypeError('fromPointer: options { dtype, shape } are required');
  const { dtype, shape, strides, device, readonly, exporter, stream, release } = checkViewOptions<PointerViewOptions>(
    'StridedMemoryView.fromPointer',
    options,
    POINTER_VIEW_OPTIONS,
  ) as PointerViewOptions;
  const init = checkViewInit(
    { ptr, dtype, shape, strides, device, flags: readonly ? DLPackFlags.READ_ONLY : 0, exporter, stream, release },
    'fromPointer',
  );
  return new StridedMemoryView(init, CHECKED_VIEW_INIT);
}
