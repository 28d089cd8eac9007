// Fills StridedMemoryView's static constructors (fromAny, ...): the class file imports none of the factories.
import './install-view-constructors.js';
export { DLPACK, DLPACK_DEVICE, CUDA_ARRAY_INTERFACE, DLPACK_EXCHANGE_API, CUDA_STREAM } from './protocol-keys.js';
export {
  DLPackFlags,
  DLPACK_VERSION,
  type DLPackVersion,
  type DLDataType,
  type DLPackRequest,
  type DLPackTensor,
  type DLPackExporter,
  type CudaArrayInterface,
  type CudaArrayInterfaceExporter,
  type CudaStreamInfo,
  type CudaStreamLike,
  type DLPackExchangeApiExporter,
} from './protocols.js';
export {
  DLDeviceType,
  CPU_DEVICE,
  deviceTypeName,
  isCudaAccessible,
  isHostAccessible,
  type Device,
  type DLDeviceTypeCode,
} from './device.js';
export {
  DType,
  DLDataTypeCode,
  ALL_DTYPES,
  dtype,
  dtypeOf,
  dtypeFromTypestr,
  type DTypeLike,
  type DLDataTypeCodeValue,
} from './dtype.js';
export {
  MemoryViewError,
  UnknownDTypeError,
  InvalidLayoutError,
  OutOfBoundsError,
  DLPackVersionError,
  ReadOnlyViewError,
  ExporterClosedError,
  NotViewableError,
  AdapterNotImportedError,
  ProtocolError,
  StreamRequiredError,
  StreamOrderError,
  UnsupportedDeviceError,
  UnsupportedExportError,
  NativeHelperUnavailableError,
  UnreadableHostMemoryError,
  InvalidStreamError,
} from './errors.js';
export { ViewOptionError } from './view-option-error.js';
export {
  resolveStream,
  setDriverHooks,
  setStreamWaiter,
  driverHooks,
  NO_SYNC,
  LEGACY_DEFAULT_STREAM,
  PER_THREAD_DEFAULT_STREAM,
  type ConsumerStream,
  type DriverHooks,
} from './stream.js';
export { readStreamHandle, type StreamArgument, type StreamHandleFault } from './stream-argument.js';
export { StridedMemoryView } from './strided-memory-view.js';
export type { StridedMemoryViewInit } from './view-init.js';
export type { ViewOptions, BufferViewOptions, PointerViewOptions, SliceSpec } from './view-options.js';
export { isViewable } from './from-any.js';
export { CudaArrayInterfaceReader, type CudaArrayInterfaceLayout } from './cuda-array-interface-reader.js';
export { formatValue } from './format-value.js';
export { readShape } from './layout.js';
export { viewable, ViewableArgument, type ViewableParameters } from './viewable.js';
export type { AnyTypedArray, TypedArrayConstructor } from './typed-arrays.js';
export type {
  NdarrayLike,
  StdlibNdarrayLike,
  ArrowVectorLike,
  ArrowDataLike,
  ArrowTypeLike,
} from './adapters/host-arrays.js';
