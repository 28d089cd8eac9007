import { CudaError, driver, LibraryNotFoundError, type CUcontext, type CUgraph } from '@cuda-js/bindings';
import { brandHandle } from '@cuda-js/bindings/runtime';
import { Stream, UnknownStreamHandleError } from '@cuda-js/streams';
import { probeDriver } from '@cuda-js/test-support/driver-probe';
import { describe, expect, it } from 'vitest';
import { debugDotFlags } from './graph-debug-print.js';
import { addConditionalNode, conditionalBodyCount, createCondition, unwrapConditions } from './graph-conditional.js';
import { GraphResources } from './graph-resources.js';
import { isGraphSource } from './graph-source.js';
import {
  CoreError,
  DeviceNotFoundError,
  Graph,
  CoreOptionError,
  GraphArgumentError,
  GraphBuilder,
  GraphCondition,
  GraphDefinition,
  GraphInstantiateError,
  GraphStateError,
  GraphUpdateError,
  launch,
} from '../index.js';

// The parts of graphs that need no GPU: resource holding and checks, option
// and argument checks, condition handling; then, with the driver library but
// no device (or without the driver library), every entry point fails with a
// named error before any GPU work.
// null handles for the internal entry points, which take branded handles
const nullGraph = brandHandle<CUgraph>(0n);
const nullContext = brandHandle<CUcontext>(0n);

const driverState = probeDriver(driver, (error) => error instanceof LibraryNotFoundError);
const hasDevice = driverState === 'device';
const driverAbsent = driverState === 'absent';
if (hasDevice)
  console.log(
    'graph.test.ts: a CUDA device is present; the no-device tests are skipped (graph.gpu.test.ts runs on it)',
  );
if (driverAbsent) console.log('graph.test.ts: the CUDA driver library is absent; the tests that need it are skipped');

describe('graph resources', () => {
  it('holds objects once each, ignores primitives, and merges and copies', () => {
    const r = new GraphResources();
    const a = { name: 'a' };
    r.retainAll([a, a, 1, 2n, 'x', null, undefined, () => 0]);
    expect(r.size).toBe(2);
    const other = new GraphResources();
    other.retain({});
    other.retain(a);
    r.merge(other);
    expect(r.size).toBe(3);
    r.merge(r);
    expect(r.size).toBe(3);
    const copy = r.copy();
    copy.retain({});
    expect(copy.size).toBe(4);
    expect(r.size).toBe(3);
  });

  it('refuses a launch once a held resource was closed, naming it', () => {
    const r = new GraphResources();
    const buffer = { closed: false, constructor: { name: 'Buffer' } };
    class Kernel {
      open = true;
      readonly name = 'axpy';
      checkOpen(): void {
        if (!this.open) throw new Error("kernel 'axpy' (its ObjectCode 'a.cu') is closed");
      }
    }
    const kernel = new Kernel();
    r.retain(buffer);
    r.retain(kernel);
    expect(() => r.check('Graph.launch')).not.toThrow();
    kernel.open = false;
    expect(() => r.check('Graph.launch')).toThrow(GraphStateError);
    expect(() => r.check('Graph.launch')).toThrow(
      /Graph\.launch: a Kernel 'axpy' that the graph uses can no longer run: kernel 'axpy' \(its ObjectCode 'a\.cu'\) is closed/,
    );
    kernel.open = true;
    buffer.closed = true;
    expect(() => r.check('Graph.launch')).toThrow(/a graph needs every resource it was built with to stay open/);
  });
});

describe('graph options and arguments', () => {
  it('maps debug print options to the driver flags, refusing unknown ones', () => {
    const f = driver.CUgraphDebugDot_flags;
    expect(debugDotFlags(undefined, 'x')).toBe(0);
    expect(debugDotFlags({ verbose: true, handles: true, kernelNodeParams: false }, 'x')).toBe(
      f.CU_GRAPH_DEBUG_DOT_FLAGS_VERBOSE | f.CU_GRAPH_DEBUG_DOT_FLAGS_HANDLES,
    );
    expect(() => debugDotFlags({ verbos: true } as never, 'x')).toThrow(CoreOptionError);
    expect(() => debugDotFlags({ verbos: true } as never, 'x')).toThrow(
      /^x: unknown option 'verbos' \(did you mean 'verbose'\?\); known options: verbose, /,
    );
    expect(() => debugDotFlags({ verbose: 1 } as never, 'x')).toThrow(
      /x: option 'verbose' must be true or false; got 1/,
    );
    expect(() => debugDotFlags('all' as never, 'x')).toThrow(/options must be an object/);
  });

  it('checks complete() options before any driver call', () => {
    const r = new GraphResources();
    expect(() => Graph.instantiate(nullGraph, r, { autoFree: true } as never)).toThrow(
      /unknown option 'autoFree'; known options: autoFreeOnLaunch, uploadStream, deviceLaunch, useNodePriority$/,
    );
    expect(() => Graph.instantiate(nullGraph, r, { deviceLaunh: true } as never)).toThrow(
      "unknown option 'deviceLaunh' (did you mean 'deviceLaunch'?)",
    );
    expect(() => Graph.instantiate(nullGraph, r, { deviceLaunch: 'yes' } as never)).toThrow(CoreOptionError);
    expect(() => Graph.instantiate(nullGraph, r, { deviceLaunch: 'yes' } as never)).toThrow(
      `option 'deviceLaunch' must be true or false; got "yes"`,
    );
    expect(() => Graph.instantiate(nullGraph, r, { deviceLaunch: true, autoFreeOnLaunch: true })).toThrow(
      /cannot be combined/,
    );
    expect(() => Graph.instantiate(nullGraph, r, { uploadStream: 'stream' as never })).toThrow(
      /uploadStream must be a Stream/,
    );
  });

  it('counts the bodies of each conditional kind', () => {
    expect(conditionalBodyCount('if', undefined, 'x')).toBe(1);
    expect(conditionalBodyCount('while', undefined, 'x')).toBe(1);
    expect(conditionalBodyCount('if-else', undefined, 'x')).toBe(2);
    expect(conditionalBodyCount('switch', 5, 'x')).toBe(5);
    for (const bad of [0, -1, 1.5, undefined, '3', 1025, 1e6, 2 ** 32])
      expect(() => conditionalBodyCount('switch', bad as never, 'GraphBuilder.switch')).toThrow(
        /a switch needs an integer count of cases from 1 to 1024/,
      );
    expect(conditionalBodyCount('switch', 1024, 'GraphBuilder.switch')).toBe(1024);
  });

  it('passes a condition to kernels as its 64-bit handle', () => {
    const condition = new GraphCondition(brandHandle(0x1234n), brandHandle(0x99n), 1);
    expect(String(condition)).toBe('GraphCondition(0x1234, default 1)');
    expect(Object.isFrozen(condition)).toBe(true);
    const args = [1, condition, 2n];
    expect(unwrapConditions(args)).toEqual([1, 0x1234n, 2n]);
    expect(args[1]).toBe(condition);
    const plain = [1, 2];
    expect(unwrapConditions(plain)).toBe(plain);
  });

  it('refuses a condition that is not one, or one of another graph, before the driver', () => {
    const request = {
      graph: brandHandle<CUgraph>(0x10n),
      dependencies: [],
      edges: null,
      kind: 'if' as const,
      context: nullContext,
    };
    expect(() => addConditionalNode({ ...request, condition: 5n }, 'GraphBuilder.ifThen')).toThrow(GraphArgumentError);
    expect(() => addConditionalNode({ ...request, condition: 5n }, 'GraphBuilder.ifThen')).toThrow(
      /expected a GraphCondition \(from createCondition\(\)\), got 5n/,
    );
    const foreign = new GraphCondition(brandHandle(1n), brandHandle(0x20n), undefined);
    expect(() => addConditionalNode({ ...request, condition: foreign }, 'GraphDefinition.if')).toThrow(
      /was made for another graph \(0x20\)/,
    );
    for (const bad of [-1, 1.5, 2 ** 32, '1', null])
      expect(() => createCondition(nullGraph, nullContext, bad as never, 'x')).toThrow(
        /defaultValue must be an unsigned 32-bit integer/,
      );
  });

  it('knows graph sources', () => {
    expect(isGraphSource({})).toBe(false);
    expect(isGraphSource(null)).toBe(false);
    expect(isGraphSource(GraphBuilder)).toBe(false);
  });

  it('refuses joins of fewer than two builders, or of other things', () => {
    expect(() => GraphBuilder.join()).toThrow(/expected at least two builders, got 0/);
    expect(() => GraphBuilder.join({} as never, {} as never)).toThrow(GraphArgumentError);
    expect(() => GraphBuilder.join({} as never, {} as never)).toThrow(/expected GraphBuilders, got/);
  });

  it('makes no GraphBuilder or Graph through new: a named error, never a half-made object (issue 20)', () => {
    const NewBuilder = GraphBuilder as unknown as new (...args: unknown[]) => unknown;
    for (const args of [[{}], [], [null], [Symbol('GraphBuilder'), {}]]) {
      expect(() => new NewBuilder(...args)).toThrow(
        new GraphArgumentError(
          'GraphBuilder has no public constructor: use device.createGraphBuilder() or GraphBuilder.fromStream(stream)',
        ),
      );
    }
    const NewGraph = Graph as unknown as new (...args: unknown[]) => unknown;
    // a Graph over a made-up CUgraphExec would crash the process at launch
    expect(() => new NewGraph(5n, new GraphResources())).toThrow(
      new GraphArgumentError('Graph has no public constructor: complete a GraphBuilder or a GraphDefinition'),
    );
  });

  it('refuses to capture the default streams, and unknown definition options', () => {
    for (const s of [0n, 1n, 2n])
      expect(() => GraphBuilder.fromStream(s)).toThrow(/the default stream \(0x[0-2]\) cannot be captured/);
    expect(() => GraphBuilder.fromStream('s' as never)).toThrow(/GraphBuilder\.fromStream: stream must be a Stream/);
    expect(() => new GraphDefinition({ context: 1n } as never)).toThrow(
      /unknown option 'context'; known options: device$/,
    );
    expect(() => new GraphDefinition({ devise: 0 } as never)).toThrow(
      "GraphDefinition: unknown option 'devise' (did you mean 'device'?)",
    );
    expect(() => new GraphDefinition(null as never)).toThrow(GraphArgumentError);
  });

  it('names every graph error', () => {
    for (const [E, name] of [
      [GraphStateError, 'GraphStateError'],
      [GraphArgumentError, 'GraphArgumentError'],
      [GraphInstantiateError, 'GraphInstantiateError'],
      [GraphUpdateError, 'GraphUpdateError'],
    ] as const) {
      const e = new E('m');
      expect(e.name).toBe(name);
      expect(e).toBeInstanceOf(CoreError);
    }
  });
});

// No made-up graph handle reaches the driver here: some drivers dereference one (NULL they check).
describe.skipIf(hasDevice || driverAbsent)('graphs without a device', () => {
  it('a definition, a builder from a stream, and a condition fail with DeviceNotFoundError', () => {
    expect(() => new GraphDefinition()).toThrow(DeviceNotFoundError);
    expect(() => new GraphDefinition()).toThrow(/no CUDA device: the driver \(cuInit\) reports CUDA_ERROR_NO_DEVICE/);
    // a raw handle is taken only once wrapped (issue 20: a made-up one crashed the process)
    expect(() => GraphBuilder.fromStream(0x1234n)).toThrow(UnknownStreamHandleError);
    expect(() =>
      GraphBuilder.fromStream({ [Symbol.for('cuda.stream')]: () => ({ version: 0, handle: 0x1234n }) } as never),
    ).toThrow(DeviceNotFoundError);
  });

  it('the driver calls of graphs fail with CudaError, not a crash', () => {
    // conditional nodes need a CUDA 12.3 driver: an older one (Debian's may be) is a GraphStateError that says so
    if (driver.cuDriverGetVersion() < 12030)
      expect(() => createCondition(nullGraph, nullContext, 1, 'x')).toThrow(
        /'if' conditional nodes need a CUDA 12\.3 driver or newer; this one is CUDA \d+\.\d+/,
      );
    else expect(() => createCondition(nullGraph, nullContext, 1, 'x')).toThrow(CudaError);
    expect(() => Graph.instantiate(nullGraph, new GraphResources())).toThrow(GraphInstantiateError);
    expect(() => Graph.instantiate(nullGraph, new GraphResources())).toThrow(
      /could not instantiate the graph \(CUDA_ERROR_\w+\)/,
    );
    expect(() =>
      launch(
        { [Symbol.for('cuda.stream')]: () => ({ version: 0, handle: 0x1234n }) } as never,
        { grid: 1, block: 1 },
        1n,
      ),
    ).toThrow(CudaError);
  });
});

describe.skipIf(!driverAbsent)('graphs without the driver library', () => {
  it('every entry point throws LibraryNotFoundError naming libcuda', () => {
    expect(() => new GraphDefinition()).toThrow(LibraryNotFoundError);
    expect(() => GraphBuilder.fromStream(Stream.from(0x1234n))).toThrow(LibraryNotFoundError); // a raw handle is taken only once wrapped
    expect(() => Graph.instantiate(nullGraph, new GraphResources())).toThrow(LibraryNotFoundError);
  });
});
