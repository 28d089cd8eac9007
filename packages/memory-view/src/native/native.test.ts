import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  DLPACK_EXCHANGE_API,
  DLPackVersionError,
  ExporterClosedError,
  ProtocolError,
  setDriverHooks,
  StreamRequiredError,
  StridedMemoryView,
} from '../index.js';
import {
  currentWorkStream,
  exchangeApi,
  exchangeApiVersion,
  fromExchangeApi,
  fromManagedTensor,
  nativeCounts,
  nativeHelperPath,
  nativeHelperStatus,
  toManagedTensor,
} from './index.js';
import { collectUntil } from '../../test/gc.js';
import { loadThirdParty, tensorClass, thirdPartyBuild } from '../../test/third-party.js';
import { values } from '../../test/values.js';

const helper = nativeHelperStatus();
const skipReason = !helper.available ? helper.reason : thirdPartyBuild.reason;
const describeNative = skipReason === undefined ? describe : describe.skip;
const title = (name: string) => (skipReason === undefined ? name : `${name} (skipped: ${skipReason})`);

afterEach(() => setDriverHooks({}));

describe('the native helper entry', () => {
  it('loads lazily, and says where it looked when it cannot', () => {
    expect(nativeHelperPath()).toMatch(/memory_view_dlpack\.node$/);
    expect(typeof helper.available).toBe('boolean');
    if (!helper.available) expect(helper.reason).toMatch(/native DLPack helper did not load/);
  });
});

describeNative(title('native DLPack tensors in Externals'), () => {
  const tp = skipReason === undefined ? loadThirdParty() : (undefined as never);

  it('exports a view as DLManagedTensorVersioned*: a native consumer takes it, reads it, deletes it once', () => {
    const data = Float32Array.from({ length: 12 }, (_, i) => i);
    const before = nativeCounts();
    const slot = toManagedTensor(
      StridedMemoryView.fromAny(data)
        .view({ shape: [3, 4] })
        .slice([0, 3, 2], [1, 4, 2]),
    );
    expect(nativeCounts().exports).toBe(before.exports + 1);
    expect(tp.slotIsFull(slot)).toBe(true);
    expect(tp.consumeSlot(slot, false)).toBe(1 + 3 + 9 + 11);
    expect(tp.slotIsFull(slot)).toBe(false);
    expect(nativeCounts().exports).toBe(before.exports);
  });

  it('exports views of SharedArrayBuffers and of device pointers', () => {
    const shared = new Float32Array(new SharedArrayBuffer(16));
    shared.set([1, 2, 3, 4]);
    expect(tp.consumeSlot(toManagedTensor(shared.subarray(1)), false)).toBe(9);
    const d = tp.describeViaExchange(StridedMemoryView.fromPointer(0xabc00n, { dtype: 'float32', shape: [3] }));
    expect([d.data, d.deviceType]).toEqual([0xabc00n, 2]);
  });

  it('exports the legacy DLManagedTensor too', () => {
    const slot = toManagedTensor(new Float32Array([1, 2, 3]), { legacy: true });
    expect(tp.consumeSlot(slot, true)).toBe(6);
  });

  it('deletes an export that nobody took when its External is collected', async () => {
    await collectUntil(() => false, 3); // earlier tests' garbage first
    const before = nativeCounts();
    (() => {
      toManagedTensor(new Float32Array(8));
    })();
    expect(nativeCounts().exports).toBe(before.exports + 1);
    await collectUntil(() => nativeCounts().exports === before.exports);
    expect(nativeCounts()).toEqual(before);
  });

  it('keeps the view’s memory until the native consumer’s deleter, even across close()', async () => {
    let released = 0;
    const tracked = StridedMemoryView.fromPointer(0x1000n, { dtype: 'uint8', shape: [4], release: () => released++ });
    const slot = toManagedTensor(tracked);
    const held = tp.holdSlot(slot)!; // the consumer holds the tensor, not yet deleted
    tracked.close();
    expect(released).toBe(0);
    tp.deleteHeld(held);
    await collectUntil(() => released > 0);
    expect(released).toBe(1);
  });

  it('takes a deleter call from another thread back to the JS thread', async () => {
    let released = 0;
    const tracked = StridedMemoryView.fromPointer(0x2000n, { dtype: 'uint8', shape: [4], release: () => released++ });
    const before = nativeCounts().exports;
    const held = tp.holdSlot(toManagedTensor(tracked))!;
    tracked.close();
    tp.deleteHeldOnThread(held); // joins the thread before returning
    expect(nativeCounts().exports).toBe(before);
    await collectUntil(() => released > 0);
    expect(released).toBe(1);
  });

  it('imports a native tensor zero-copy: writes on either side are seen on the other', () => {
    const handle = tp.create(6);
    const view = fromManagedTensor(tp.makeSlot(handle, false, 1));
    expect([view.shape, view.strides, view.dtype.name, view.device]).toEqual([[6], [1], 'float32', { type: 1, id: 0 }]);
    expect(values(view)).toEqual([0, 1, 2, 3, 4, 5]);
    tp.set(handle, 2, 42);
    expect(values(view)[2]).toBe(42);
    (view.typedArray() as Float32Array)[5] = -5;
    expect(tp.values(handle)[5]).toBe(-5);
  });

  it('calls the imported tensor’s deleter exactly once on close(), and detaches its buffer', () => {
    const handle = tp.create(4);
    const before = tp.deleted();
    const view = fromManagedTensor(tp.makeSlot(handle, false, 1));
    const alias = view.typedArray() as Float32Array;
    view.slice([1, 3]).close();
    view.close();
    expect(tp.deleted()).toBe(before + 1);
    expect(alias.length).toBe(0); // the freed memory is out of JS's reach
    expect(() => values(view)).toThrow(ExporterClosedError);
  });

  it('calls the imported tensor’s deleter exactly once when view and buffer are collected', async () => {
    const handle = tp.create(4);
    await collectUntil(() => false, 3); // earlier tests' garbage first
    const before = tp.deleted();
    (() => {
      fromManagedTensor(tp.makeSlot(handle, false, 1)).slice([0, 2]);
    })();
    await collectUntil(() => tp.deleted() > before);
    await collectUntil(() => false, 3);
    expect(tp.deleted()).toBe(before + 1);
  });

  it('imports the legacy DLManagedTensor, and refuses an empty slot', () => {
    const handle = tp.create(3);
    const slot = tp.makeSlot(handle, true, 1);
    const view = fromManagedTensor(slot, { legacy: true });
    expect(values(view)).toEqual([0, 1, 2]);
    expect(() => fromManagedTensor(slot, { legacy: true })).toThrow(/slot is empty/);
    expect(() => fromManagedTensor(slot)).toThrow(ProtocolError);
    view.close();
  });

  it('on a major version mismatch only calls the deleter, then throws DLPackVersionError', () => {
    const before = tp.deleted();
    expect(() => fromManagedTensor(tp.makeSlot(tp.create(2), false, 2))).toThrow(DLPackVersionError);
    expect(tp.deleted()).toBe(before + 1);
  });

  // The child runs the built entry (dist/): Node.js 20 cannot import the TypeScript source.
  const builtEntry = join(import.meta.dirname, '..', '..', 'dist', 'native', 'index.js');
  const exitTitle = 'calls every deleter once when the process exits before use';
  it.skipIf(!existsSync(builtEntry))(
    existsSync(builtEntry) ? exitTitle : `${exitTitle} (skipped: ${builtEntry} is not built; run the build first)`,
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'memory-view-exit-'));
      try {
        const script = join(dir, 'exit.mjs');
        writeFileSync(
          script,
          [
            `import { createRequire } from 'node:module';`,
            `import * as native from ${JSON.stringify(pathToFileURL(builtEntry).href)};`,
            `const tp = createRequire(import.meta.url)(${JSON.stringify(thirdPartyBuild.path)});`,
            // an import never closed, an export of it never taken, an export of JS memory never taken
            `const view = native.fromManagedTensor(tp.makeSlot(tp.create(4), false, 1));`,
            `globalThis.keep = [view, native.toManagedTensor(view), native.toManagedTensor(new Float32Array(2))];`,
            `console.log('counts', JSON.stringify(native.nativeCounts()));`,
          ].join('\n'),
        );
        const run = spawnSync(process.execPath, [script], {
          encoding: 'utf8',
          env: {
            ...process.env,
            CUDA_JS_MEMORY_VIEW_ADDON: nativeHelperPath(),
            CUDA_JS_MEMORY_VIEW_TRACE: '1',
            TP_LOG_DELETES: '1',
          },
        });
        expect(run.status, run.stderr).toBe(0);
        expect(run.stdout).toContain('counts {"exports":2,"slots":2,"imports":1}');
        const lines = run.stderr.split('\n');
        expect(lines.filter((l) => l === 'memory-view: export deleted')).toHaveLength(2);
        expect(lines.filter((l) => l === 'memory-view: import released')).toHaveLength(1);
        // the third party's tensor, imported and never closed: its deleter ran once, at exit
        expect(lines.filter((l) => l.startsWith('third_party: deleted tensor'))).toHaveLength(1);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

describeNative(title('the DLPack C exchange API: a third-party library consumes memory-view'), () => {
  const tp = skipReason === undefined ? loadThirdParty() : (undefined as never);

  it('exposes a DLPack 1.3 table on every view, the same External each time', () => {
    const view = StridedMemoryView.fromAny(new Float32Array(2));
    expect(DLPACK_EXCHANGE_API in view).toBe(true);
    expect(view[DLPACK_EXCHANGE_API]!()).toBe(exchangeApi());
    expect(exchangeApiVersion(exchangeApi())).toEqual([1, 3]);
  });

  it('lets the library read a strided view through managed_tensor_from_py_object_no_sync', () => {
    const data = Float32Array.from({ length: 12 }, (_, i) => i);
    const view = StridedMemoryView.fromAny(data)
      .view({ shape: [3, 4] })
      .slice([undefined, undefined, -1], [0, 4, 3]);
    expect(tp.sumViaExchange(view)).toBe(8 + 11 + 4 + 7 + 0 + 3);
    const d = tp.describeViaExchange(view);
    expect([d.shape, d.strides, d.byteOffset, d.version, d.code, d.bits, d.lanes]).toEqual([
      [3, 2],
      [-4, 3],
      32,
      103,
      2,
      32,
      1,
    ]);
  });

  it('lets the library write through a writable view, and refuses a read-only one', () => {
    const data = new Float32Array(4);
    tp.fillViaExchange(StridedMemoryView.fromAny(data).slice([1, 3]), 7);
    expect(Array.from(data)).toEqual([0, 7, 7, 0]);
    const ro = StridedMemoryView.fromBuffer(data, { dtype: 'float32', readonly: true });
    expect(() => tp.fillViaExchange(ro, 1)).toThrow(/read-only/);
    expect(Array.from(data)).toEqual([0, 7, 7, 0]);
  });

  it('hands device pointers over as they are', () => {
    const view = StridedMemoryView.fromPointer(0x7f00_1234_5600n, {
      dtype: 'float32',
      shape: [2, 8],
      device: { type: 2, id: 3 },
      readonly: true,
    });
    const d = tp.describeViaExchange(view);
    expect([d.data, d.deviceType, d.deviceId, d.flags & 1, d.shape]).toEqual([0x7f00_1234_5600n, 2, 3, 1, [2, 8]]);
  });

  it('lets the library borrow a DLTensor without ownership (dltensor_from_py_object_no_sync)', () => {
    const view = StridedMemoryView.fromAny(new Float32Array([1, 2, 3, 4])).slice([0, 4, 2]);
    expect(tp.sumViaDLTensor(view)).toBe(4);
    expect(tp.sumViaDLTensor(view)).toBe(4); // the layout hung on the view is reused
  });

  it('allocates host tensors for the library and hands them back as views', () => {
    const made = tp.allocateVia(StridedMemoryView.fromAny(new Float32Array(1)), 5, 1);
    expect(made).toBeInstanceOf(StridedMemoryView);
    expect(values(made as StridedMemoryView)).toEqual([0, 2, 4, 6, 8]);
    expect(() => tp.allocateVia(StridedMemoryView.fromAny(new Float32Array(1)), 5, 2)).toThrow(
      /UnsupportedDeviceError: memory-view allocates host/,
    );
  });

  it('reports no current work stream (memory-view owns none)', () => {
    expect(tp.currentStreamVia(StridedMemoryView.fromAny(new Float32Array(1)), 2)).toBe(0n);
    expect(currentWorkStream(exchangeApi(), 2, 0)).toBe(0n);
  });

  it('propagates the JS error of an object that cannot be viewed', () => {
    const notViewable = { [DLPACK_EXCHANGE_API]: () => exchangeApi() };
    expect(() => tp.sumViaExchange(notViewable)).toThrow(/implements no array protocol|cannot be viewed/);
  });
});

describeNative(title('the DLPack C exchange API: memory-view consumes a third-party library'), () => {
  const tp = skipReason === undefined ? loadThirdParty() : (undefined as never);
  const Tensor = skipReason === undefined ? tensorClass(tp) : (undefined as never);

  it('views the library’s tensors through its table, zero-copy, from fromAny', () => {
    const handle = tp.create(4);
    const before = tp.deleted();
    const view = StridedMemoryView.fromAny(new Tensor(handle));
    expect(values(view)).toEqual([0, 1, 2, 3]);
    tp.set(handle, 0, 9);
    expect(values(view)[0]).toBe(9);
    view.close();
    expect(tp.deleted()).toBe(before + 1);
  });

  it('orders the consumer stream after the library’s current work stream', () => {
    const waits: bigint[][] = [];
    setDriverHooks({ waitStream: (p, c) => waits.push([p, c]) });
    const device = new Tensor(tp.createDevice(0xd000n, 8));
    const view = fromExchangeApi(device, { stream: 0x99n });
    expect([view.ptr, view.device, view.stream]).toEqual([0xd000n, { type: 2, id: 0 }, 0x99n]);
    fromExchangeApi(device, { stream: 0x5eedn });
    fromExchangeApi(device, { stream: -1 });
    expect(waits).toEqual([[0x5eedn, 0x99n]]);
    expect(currentWorkStream(device, 2, 0)).toBe(0x5eedn);
  });

  it('needs a stream for CUDA memory, and gives the tensor back when it refuses', () => {
    const before = tp.deleted();
    expect(() => fromExchangeApi(new Tensor(tp.createDevice(0xd000n, 8)))).toThrow(StreamRequiredError);
    expect(tp.deleted()).toBe(before + 1);
  });

  it('walks prev_api to a table of major version 1, and refuses a chain without one', () => {
    const V2 = tensorClass(tp, tp.apiV2);
    expect(values(fromExchangeApi(new V2(tp.create(2))))).toEqual([0, 1]);
    const Alone = tensorClass(tp, tp.apiV2Alone);
    expect(() => fromExchangeApi(new Alone(tp.create(2)))).toThrow(DLPackVersionError);
  });

  it('passes the library’s own error through', () => {
    const Fake = tensorClass(tp);
    expect(() => fromExchangeApi(new Fake({}))).toThrow(/not one of my tensors/);
  });

  it('views an object of memory-view’s own table directly, without a native round trip', () => {
    const view = StridedMemoryView.fromAny(new Float32Array([1, 2, 3]));
    expect(fromExchangeApi(view)).toBe(view);
    const alone = { [DLPACK_EXCHANGE_API]: () => exchangeApi() };
    expect(() => fromExchangeApi(alone)).toThrow(/implements no array protocol/);
  });
});

afterAll(() => undefined);
