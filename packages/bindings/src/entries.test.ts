// The main entry is what a user of the bindings alone calls (the C API, its
// errors, the library loading); what the layers above are built on is the
// subpath `@cuda-js/bindings/runtime` (issue 30), as cuda.bindings shows its
// users the C API only.
import * as main from '@cuda-js/bindings';
import * as runtime from '@cuda-js/bindings/runtime';
import { describe, expect, it } from 'vitest';

const RUNTIME = [
  'OwnedHandle',
  'releaseInBackground',
  'releaseAsync',
  'backgroundReleaseFailures',
  'brandHandle',
  'skipDriverTeardownAtExit',
  'PACKED_LAUNCH_HEADER',
  'LAUNCH_QUEUE_RECORD',
];

describe('the entries of @cuda-js/bindings', () => {
  it('the runtime subpath holds the helpers of the layers above, and the main entry none of them', () => {
    expect(Object.keys(runtime).sort()).toEqual([...RUNTIME].sort());
    for (const name of RUNTIME) expect(Object.keys(main), name).not.toContain(name);
  });

  it('the main entry keeps the C API, the errors and the library loading', () => {
    for (const name of [
      'driver',
      'nvrtc',
      'nvjitlink',
      'nvvm',
      'nvml',
      'nccl',
      'CudaError',
      'ClosedResourceError',
      'LibraryNotFoundError',
      'AddonNotFoundError',
      'loadedLibraries',
      'hostArrayBuffer',
      'launchBlockingHostFunc',
      'duplicateFdFromProcess',
    ]) {
      expect(Object.keys(main), name).toContain(name);
    }
  });
});
