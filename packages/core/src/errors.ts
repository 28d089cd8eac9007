/** No CUDA device could be used: the driver says there is none, or the ordinal is out of range. */
export class DeviceNotFoundError extends Error {
  override readonly name = 'DeviceNotFoundError';
}

/** A LaunchConfig that is malformed, or that the device or kernel cannot run. */
export class LaunchConfigError extends RangeError {
  override readonly name = 'LaunchConfigError';
}

/** A kernel argument that cannot be passed: wrong kind, wrong size, host-only memory, closed. */
export class LaunchArgumentError extends TypeError {
  override readonly name = 'LaunchArgumentError';
  constructor(
    readonly kernelName: string,
    /** 0-based position of the argument. */
    readonly argumentIndex: number,
    message: string,
    /** The argument's name, where the launcher knows it (a JIT kernel's parameter name). */
    readonly argumentName?: string,
  ) {
    super(`${kernelName}: argument ${argumentIndex}${argumentName === undefined ? '' : ` ('${argumentName}')`}: ${message}`);
  }
}

/** A copy or fill whose source and destination do not fit. */
export class CopyError extends RangeError {
  override readonly name = 'CopyError';
}

/** A graph builder, graph definition or graph used in a state that does not allow it: the message says which state was expected. */
export class GraphStateError extends Error {
  override readonly name = 'GraphStateError';
}

/** A graph node or graph call given what it cannot take (a closed resource, a pageable host array, a condition of another graph). */
export class GraphArgumentError extends TypeError {
  override readonly name = 'GraphArgumentError';
}

/** A graph that the driver could not instantiate into an executable graph; the driver's error is the cause. */
export class GraphInstantiateError extends Error {
  override readonly name = 'GraphInstantiateError';
}

/** A graph that could not be updated from another: their topology or node kinds differ. The driver's error is the cause. */
export class GraphUpdateError extends Error {
  override readonly name = 'GraphUpdateError';
}
