import { errorOf } from '@cuda-js/test-support/errors';
import { LibraryNotFoundError } from '@cuda-js/pathfinder';
import { describe, expect, it } from 'vitest';
import { resolveArchitecture } from './device-architecture.js';
import { ArchitectureRequiredError } from './errors.js';

// Where the driver library cannot be found, a compile with no arch says so in
// a whole sentence. The override names a file that does not exist (so it holds
// on GPU hosts too); it is set before the first driver call (each test file has its own process).
process.env['CUDA_JS_LIB_CUDA'] = '/nonexistent/cuda-js-test/libcuda.so.1';

describe('resolveArchitecture without the driver library', () => {
  it('asks for arch, naming the missing library in a whole sentence, with the places tried in the cause', () => {
    const error = errorOf<ArchitectureRequiredError>(() => resolveArchitecture(undefined));
    expect(error).toBeInstanceOf(ArchitectureRequiredError);
    expect(error.message).toBe(
      "no 'arch' option was given and the current device's architecture is not available (CUDA library 'cuda' was not found: error.cause lists the places tried); pass arch explicitly, for example { arch: 'sm_90' }",
    );
    expect(error.cause).toBeInstanceOf(LibraryNotFoundError);
    expect((error.cause as Error).message).toContain(
      '\nPlaces tried, in order:\n  1. [override] CUDA_JS_LIB_CUDA=/nonexistent/cuda-js-test/libcuda.so.1: ',
    );
  });

  it('takes a given arch without asking the driver', () => {
    expect(resolveArchitecture('sm_90')).toMatchObject({ major: 9, minor: 0 });
  });
});
