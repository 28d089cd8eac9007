import { KernelArgumentError } from '../errors.js';

/** A {@link KernelArgumentError} that names the argument: `argument 'x' (1 of 3): ...`. */
export function argumentError(
  params: readonly string[],
  index: number,
  detail: string,
  cause?: unknown,
): KernelArgumentError {
  const name = params[index];
  const which = name === undefined ? `argument ${index}` : `argument '${name}' (${index + 1} of ${params.length})`;
  return new KernelArgumentError(`${which}: ${detail}`, undefined, cause === undefined ? undefined : { cause });
}

/** The error for a launch with the wrong number of arguments, listing the parameters. */
export function argumentCountError(params: readonly string[], given: number): KernelArgumentError {
  return new KernelArgumentError(
    `the kernel takes ${params.length} argument(s) (${params.join(', ')}), ${given} were given`,
  );
}
