/**
 * A kernel argument passed by value as raw bytes, such as a
 * {@link TensorMapDescriptor} for a `const __grid_constant__ CUtensorMap`
 * parameter: `launch` copies {@link byteLength} bytes into the parameter,
 * which must be exactly that size (a `LaunchArgumentError` otherwise), and
 * refuses the argument once it is {@link closed}.
 */
export abstract class ByValueArgument {
  /** The size of the value: the size the kernel's parameter must have. */
  abstract get byteLength(): number;

  /** Whether the value can no longer be passed (the memory it names was closed). */
  get closed(): boolean {
    return false;
  }

  /** Copies the value's {@link byteLength} bytes into `target` at `offset`, as the kernel's C type lays them out. */
  abstract writeTo(target: Uint8Array, offset: number): void;
}
