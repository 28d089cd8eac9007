import { LibraryNotFoundError } from '@cuda-js/pathfinder';

export { LibraryNotFoundError };

/** What every failed CUDA library call carries. */
export abstract class CudaLibraryError extends Error {
  /** The numeric status code the C function returned. */
  readonly code: number;
  /** The code's name in its enum (`CUDA_ERROR_NO_DEVICE`, `NVRTC_ERROR_COMPILATION`, ...). */
  readonly codeName: string;
  /** The C function that failed. */
  readonly functionName: string;
  /** The library's own description of the code (`cuGetErrorString`, `nvrtcGetErrorString`, ...). */
  readonly libraryMessage: string;
  /** The compiler's or linker's log, where there is one. */
  readonly log: string | undefined;

  constructor(code: number, codeName: string, functionName: string, libraryMessage: string, log?: string) {
    const detail = libraryMessage && libraryMessage !== codeName ? `: ${libraryMessage}` : '';
    super(`${functionName} failed with ${codeName} (${code})${detail}${log ? `\n${log.trimEnd()}` : ''}`);
    this.code = code;
    this.codeName = codeName;
    this.functionName = functionName;
    this.libraryMessage = libraryMessage;
    this.log = log;
  }
}

/** A CUDA driver API call failed (a `CUresult` other than `CUDA_SUCCESS`). */
export class CudaError extends CudaLibraryError {
  override readonly name = 'CudaError';
}

/** An NVRTC call failed; `log` holds the program log for compile failures. */
export class NvrtcError extends CudaLibraryError {
  override readonly name = 'NvrtcError';
}

/** An nvJitLink call failed; `log` holds the linker's error log. */
export class NvJitLinkError extends CudaLibraryError {
  override readonly name = 'NvJitLinkError';
}

/** A libNVVM call failed; `log` holds the program log for compile and verify failures. */
export class NvvmError extends CudaLibraryError {
  override readonly name = 'NvvmError';
}

/** An NVML call failed (an `nvmlReturn_t` other than `NVML_SUCCESS`); `libraryMessage` is `nvmlErrorString`'s. */
export class NvmlError extends CudaLibraryError {
  override readonly name = 'NvmlError';
}

/**
 * An NCCL call failed (an `ncclResult_t` other than `ncclSuccess`):
 * `libraryMessage` is `ncclGetErrorString`'s, and {@link lastError} the more
 * specific `ncclGetLastError` text, where NCCL left one.
 */
export class NcclError extends CudaLibraryError {
  override readonly name = 'NcclError';

  /** `ncclGetLastError` at the failure ("invalid usage (run with NCCL_DEBUG=WARN for details)", ...). */
  get lastError(): string | undefined {
    return this.log;
  }
}

/** A library was found but could not be loaded (wrong architecture, missing dependency, ...). */
export class LibraryLoadError extends Error {
  override readonly name = 'LibraryLoadError';
  constructor(
    readonly functionName: string,
    message: string,
  ) {
    super(`${functionName}: ${message}`);
  }
}

/** The loaded library lacks the function that was called (it is older, or newer, than the function). */
export class FunctionNotFoundError extends Error {
  override readonly name = 'FunctionNotFoundError';
  constructor(
    readonly functionName: string,
    message: string,
  ) {
    super(`${functionName}: ${message}`);
  }
}

/**
 * Memory that cannot be viewed from the host as it was asked (`hostArrayBuffer`):
 * the driver does not report the address as pinned or managed memory, the range
 * leaves its allocation, or the JS engine refuses an ArrayBuffer over it.
 */
export class HostViewError extends Error {
  override readonly name = 'HostViewError';
  constructor(
    readonly functionName: string,
    message: string,
  ) {
    super(`${functionName}: ${message}`);
  }
}

/** Builds the error that the native addon throws for a failed call. */
export function makeLibraryError(
  kind: string,
  code: number,
  codeName: string,
  functionName: string,
  message: string,
  log?: string,
): Error {
  switch (kind) {
    case 'cuda':
      return new CudaError(code, codeName, functionName, message, log);
    case 'nvrtc':
      return new NvrtcError(code, codeName, functionName, message, log);
    case 'nvjitlink':
      return new NvJitLinkError(code, codeName, functionName, message, log);
    case 'nvvm':
      return new NvvmError(code, codeName, functionName, message, log);
    case 'nvml':
      return new NvmlError(code, codeName, functionName, message, log);
    case 'nccl':
      return new NcclError(code, codeName, functionName, message, log);
    case 'load':
      return new LibraryLoadError(functionName, message);
    case 'missing':
      return new FunctionNotFoundError(functionName, message);
    case 'host-view':
      return new HostViewError(functionName, message);
    default:
      return new Error(`${functionName}: ${message}`);
  }
}

/**
 * A file descriptor of another process that could not be copied into this one
 * (`duplicateFdFromProcess`: Linux's `pidfd_open` and `pidfd_getfd`). `code`
 * is errno's name (`EPERM`, `ESRCH`, `EBADF`, `ENOSYS`, ...), and the message
 * says what to check.
 */
export class FdDuplicationError extends Error {
  override readonly name = 'FdDuplicationError';
  constructor(
    /** The process whose descriptor was asked for. */
    readonly pid: number,
    /** The descriptor's number in that process. */
    readonly fd: number,
    /** The system call that failed: `pidfd_open` or `pidfd_getfd`. */
    readonly syscall: string,
    /** errno's value. */
    readonly errno: number,
    /** errno's name, as Node.js names system errors (`EPERM`). */
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}
