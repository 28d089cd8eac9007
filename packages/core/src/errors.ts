import type { OptionProblem } from '@cuda-js/options';
/**
 * The root of every error that @cuda-js/core defines: one `instanceof` check
 * for them all. Use after `close()` is the bindings' shared
 * `ClosedResourceError`; `IpcError` is the streams' (one class for the stack);
 * failed driver calls are the bindings' `CudaError`.
 */
export class CoreError extends Error {
  override readonly name: string = 'CoreError';
}

/**
 * An options object of @cuda-js/core with an unknown key (named with the
 * nearest known one: `swizle` → `swizzle`) or a value of the wrong type. The
 * one options error of the package, from the stack's options checker.
 */
export class CoreOptionError extends CoreError {
  override readonly name = 'CoreOptionError';
  constructor(
    /** What was wrong: the key, what was expected, the suggestion. */
    readonly problem: OptionProblem,
  ) {
    super(problem.message);
  }
}

/** No CUDA device could be used: the driver says there is none, or the ordinal is out of range. */
export class DeviceNotFoundError extends CoreError {
  override readonly name = 'DeviceNotFoundError';
}

/** A LaunchConfig that is malformed, or that the device or kernel cannot run. */
export class LaunchConfigError extends CoreError {
  override readonly name = 'LaunchConfigError';
}

/** A kernel argument that cannot be passed: wrong kind, wrong size, host-only memory, closed. */
export class LaunchArgumentError extends CoreError {
  override readonly name = 'LaunchArgumentError';
  constructor(
    readonly kernelName: string,
    /** 0-based position of the argument. */
    readonly argumentIndex: number,
    message: string,
    /** The argument's name, where the launcher knows it (a JIT kernel's parameter name). */
    readonly argumentName?: string,
    /** `cause`: the error that says more (a protocol error of memory-view, say). */
    options?: ErrorOptions,
  ) {
    super(
      `${kernelName}: argument ${argumentIndex}${argumentName === undefined ? '' : ` ('${argumentName}')`}: ${message}`,
      options,
    );
  }
}

/**
 * A launch of a launch batch that failed when the batch was submitted: the
 * driver refused it, or another CUDA context was current. The launches
 * before it in the batch were enqueued; it and those after it were not.
 */
export class LaunchBatchError extends CoreError {
  override readonly name = 'LaunchBatchError';
  constructor(
    /** 0-based index of the failed launch among the batch's launches, in the order they were recorded. */
    readonly launchIndex: number,
    /** The failed launch's kernel. */
    readonly kernelName: string,
    /** How many of the batch's launches were enqueued. */
    readonly enqueued: number,
    message: string,
    /** `cause`: the driver's error (a CudaError), where it was one. */
    options?: ErrorOptions,
  ) {
    super(
      `launchBatch: launch ${launchIndex} (${kernelName}) failed: ${message}; it and the launches recorded after it were not enqueued (${enqueued} of the batch's launches were)`,
      options,
    );
  }
}

/** A kernel's parameter table (`LaunchableKernel.parameters`) that describes no kernel, or not the one the driver knows: overlapping, unsorted, too long, or of other sizes than the driver's. */
export class KernelParametersError extends CoreError {
  override readonly name = 'KernelParametersError';
}

/** A copy or fill whose source and destination do not fit. */
export class CopyError extends CoreError {
  override readonly name = 'CopyError';
}

/**
 * A memory argument that cannot be used: a managed-memory location that is
 * no Device or Host (or a NUMA node where any host is meant), buffers that are
 * not managed, a fill value out of range, a size that is no byte count, pool
 * options that contradict each other.
 */
export class MemoryArgumentError extends CoreError {
  override readonly name = 'MemoryArgumentError';
}

/** A graph builder, graph definition or graph used in a state that does not allow it: the message says which state was expected. */
export class GraphStateError extends CoreError {
  override readonly name = 'GraphStateError';
}

/** A graph node or graph call given what it cannot take (a closed resource, a pageable host array, a condition of another graph). */
export class GraphArgumentError extends CoreError {
  override readonly name = 'GraphArgumentError';
}

/** A graph that the driver could not instantiate into an executable graph; the driver's error is the cause. */
export class GraphInstantiateError extends CoreError {
  override readonly name = 'GraphInstantiateError';
}

/** A graph that could not be updated from another: their topology or node kinds differ. The driver's error is the cause. */
export class GraphUpdateError extends CoreError {
  override readonly name = 'GraphUpdateError';
}

/**
 * A tensor map (TMA descriptor) that cannot be made or re-addressed: an array,
 * layout, box or option that `cuTensorMapEncodeTiled` would refuse, checked
 * before any driver call; the message says which rule and which dimension.
 */
export class TensorMapError extends CoreError {
  override readonly name = 'TensorMapError';
}

/**
 * An IPC handle or descriptor that cannot be used (malformed, of a pool that
 * is not IPC-enabled, asked of an imported pool): one class for the whole
 * stack, from `@cuda-js/streams`, whose interprocess events throw it too.
 */
export { IpcError } from '@cuda-js/streams';

/**
 * Memory of one device used with a stream, kernel or communicator of another,
 * where no peer access makes that legal (`DeviceMemoryResource.peerAccessibleBy`);
 * checked before any driver call.
 */
export class DeviceMismatchError extends CoreError {
  override readonly name = 'DeviceMismatchError';
}

/** Two devices that cannot address each other's memory (`device.canAccessPeer(other)` is false) were asked to. */
export class PeerAccessError extends CoreError {
  override readonly name = 'PeerAccessError';
}

/**
 * A collective or point-to-point call given what NCCL cannot take: a dtype
 * NCCL has no type for, sizes that do not fit the communicator's world size,
 * an unknown reduction, a rank out of range; checked before any NCCL call.
 */
export class CollectiveArgumentError extends CoreError {
  override readonly name = 'CollectiveArgumentError';
}

/** A communicator or collective used in a state that does not allow it: the work of a group awaited inside it, an asynchronous group function. */
export class CommunicatorStateError extends CoreError {
  override readonly name = 'CommunicatorStateError';
}
