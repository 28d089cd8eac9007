import { describe, expect, it } from 'vitest';
import { CudaError, driver } from './index.js';
import { haveLibrary } from './test-fixtures/libraries.js';

// The hand-written graph calls (native/src/graph-calls.cpp, graph-host-functions.cpp)
// without a GPU: their arguments are checked before any driver call, and a
// driver failure is a CudaError after which nothing leaks or crashes.
const hasDriver = haveLibrary('cuda');
let hasDevice = false;
if (hasDriver) {
  try {
    driver.cuInit(0);
    hasDevice = true;
  } catch {
    // no device: the driver refuses what follows before it looks at a handle
  }
}
if (!hasDriver)
  console.log('graph-calls.test.ts: the CUDA driver library is absent; the tests that call it are skipped');
if (hasDevice)
  console.log(
    'graph-calls.test.ts: a CUDA device is present; the made-up-handle tests are skipped (graph.gpu.test.ts of core covers these calls)',
  );

describe('graph calls refuse bad arguments before the driver', () => {
  it('cuStreamUpdateCaptureDependencies: arrays that share a count must agree', () => {
    expect(() => driver.cuStreamUpdateCaptureDependencies(0n, [1n as never], [{}, {}], 0)).toThrow(RangeError);
    expect(() => driver.cuStreamUpdateCaptureDependencies(0n, [1n as never], [{}, {}], 0)).toThrow(
      /parameter 'dependencyData'.* has 2 elements, but an array that shares its count has 1|parameter 'dependencies'.* has 1 elements/,
    );
    expect(() => driver.cuStreamUpdateCaptureDependencies('s' as never, null, null, 0)).toThrow(
      /cuStreamUpdateCaptureDependencies: parameter 'hStream' must be a bigint/,
    );
    expect(() => (driver.cuStreamUpdateCaptureDependencies as (...a: unknown[]) => unknown)(0n)).toThrow(TypeError);
  });

  it('cuStreamGetCaptureInfo takes only the stream', () => {
    expect(() => driver.cuStreamGetCaptureInfo(0 as never)).toThrow(
      /cuStreamGetCaptureInfo: parameter 'hStream' must be a bigint/,
    );
    expect(() => (driver.cuStreamGetCaptureInfo as (...a: unknown[]) => unknown)(0n, null, null)).toThrow(TypeError);
  });

  it('cuGraphAddNode checks its node parameters by field', () => {
    expect(() => driver.cuGraphAddNode(0n, null, null, 'kernel' as never)).toThrow(TypeError);
    expect(() => driver.cuGraphAddNode(0n, null, null, { type: 'conditional' as never })).toThrow(
      /cuGraphAddNode: parameter 'nodeParams'\.type must be a number/,
    );
  });

  it('cuGraphAddHostNode needs a graph and a function', () => {
    expect(() => driver.cuGraphAddHostNode(0n, null, () => undefined)).toThrow(
      /cuGraphAddHostNode: parameter 'hGraph' is NULL \(0n\): a host node needs a graph/,
    );
    expect(() => driver.cuGraphAddHostNode(1n as never, null, 'f' as never)).toThrow(
      /cuGraphAddHostNode: parameter 'callback' must be a function/,
    );
    expect(() => driver.cuGraphAddHostNode(1n as never, [1n as never, 5 as never], () => undefined)).toThrow(
      /parameter 'dependencies'\[1\]/,
    );
  });

  it('cuLaunchHostFunc checks its callback before the driver', () => {
    expect(() => driver.cuLaunchHostFunc(0x1234n as never, 5 as never)).toThrow(
      /cuLaunchHostFunc: parameter 'callback' must be a function/,
    );
  });
});

// Only NULL handles reach the driver here: some drivers dereference a made-up stream or graph handle
// before they check anything (Debian's libcuda 535 does, for graphs even before cuInit).
describe.skipIf(!hasDriver || hasDevice)('graph calls when the driver refuses (no device, NULL handles)', () => {
  it('each failure is a CudaError naming the function', () => {
    for (const [name, call] of [
      ['cuStreamGetCaptureInfo', () => driver.cuStreamGetCaptureInfo(0n)],
      ['cuStreamUpdateCaptureDependencies', () => driver.cuStreamUpdateCaptureDependencies(0n, [], null, 1)],
      [
        'cuGraphAddNode',
        () => driver.cuGraphAddNode(0n, null, null, { type: driver.CUgraphNodeType.CU_GRAPH_NODE_TYPE_EMPTY }),
      ],
      ['cuLaunchHostFunc', () => driver.cuLaunchHostFunc(0n, () => undefined)],
    ] as const) {
      let caught: unknown;
      try {
        call();
      } catch (error) {
        caught = error;
      }
      expect(caught, name).toBeInstanceOf(CudaError);
      expect((caught as CudaError).functionName, name).toBe(name);
    }
  });
});
