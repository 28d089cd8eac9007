import { describe, expect, it } from 'vitest';
import { missingLibrary, probeDriver } from './driver-probe.js';

class Missing extends Error {}
const isMissing = (error: unknown): boolean => error instanceof Missing;

describe('missingLibrary', () => {
  it('is undefined where the library opens, the first line of the missing-library error where it does not', () => {
    expect(missingLibrary(() => 1, isMissing)).toBeUndefined();
    expect(
      missingLibrary(() => {
        throw new Missing("CUDA library 'nccl' was not found.\nPlaces tried, in order:\n  1. ...");
      }, isMissing),
    ).toBe("CUDA library 'nccl' was not found.");
  });

  it('throws any other error: a library that is there but fails is no skip', () => {
    expect(() =>
      missingLibrary(() => {
        throw new TypeError('broken');
      }, isMissing),
    ).toThrow('broken');
  });
});

describe('probeDriver', () => {
  it('tells an absent driver library from a driver without a device', () => {
    expect(probeDriver({ cuInit: () => 0 }, isMissing)).toBe('device');
    expect(
      probeDriver(
        {
          cuInit: () => {
            throw new Missing('no libcuda');
          },
        },
        isMissing,
      ),
    ).toBe('absent');
    expect(
      probeDriver(
        {
          cuInit: () => {
            throw new Error('CUDA_ERROR_NO_DEVICE');
          },
        },
        isMissing,
      ),
    ).toBe('no device');
  });
});
