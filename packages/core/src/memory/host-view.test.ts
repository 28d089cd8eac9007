// Buffer.asArrayBuffer / typedArray and their lifetime rules, without a GPU:
// the native hostArrayBuffer is replaced by a stand-in that makes a plain
// ArrayBuffer which references its owner, as the native one does (a strong
// reference until it is collected), and the memory resource records its
// releases. The driver's own checks are exercised in host-memory.gpu.test.ts.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { DLPACK, InvalidLayoutError, StridedMemoryView } from '@cuda-js/memory-view';
import { ClosedResourceError, HostFunctionDeadlockError, launchHostFunction } from '@cuda-js/streams';
import { describe, expect, it, vi } from 'vitest';

const made: { ptr: bigint; byteLength: number }[] = [];
const queued: (() => void)[] = [];

vi.mock('@cuda-js/bindings', async (importOriginal) => {
  const original = await importOriginal<typeof import('@cuda-js/bindings')>();
  return {
    ...original,
    hostArrayBuffer: (ptr: bigint, byteLength: number, owner: object) => {
      made.push({ ptr, byteLength });
      const buffer = new ArrayBuffer(byteLength);
      Object.defineProperty(buffer, 'owner', { value: owner }); // the native one holds a reference instead
      return buffer;
    },
    launchBlockingHostFunc: (_stream: bigint, run: () => void) => void queued.push(run),
  };
});

const { Buffer, HostViewError } = await import('../index.js');
// The stand-in driver's streams are made-up handles: each is wrapped once, as a foreign stream must be before a bigint of it is taken.
const { Stream: ForeignStream } = await import('@cuda-js/streams');
for (const handle of [0x5n, 0x6n, 0x9n, 0x55n, 0x77n]) ForeignStream.from(handle);
const { installDriverHooks } = await import('../context/driver-hooks.js');
type MemoryResource = import('../index.js').MemoryResource;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 5));

/** Collects garbage and lets finalizers run until `done()`; `done` runs in a job of its own, as a WeakRef's deref() keeps its target for the rest of the job. */
async function collectUntil(done: () => boolean, rounds = 40): Promise<void> {
  for (let i = 0; i < rounds; i++) {
    gc();
    await tick();
    if (done()) return;
    await tick();
  }
}

/** A pinned-like resource that records how its memory goes back. */
function recordingResource(isHostAccessible = true): MemoryResource & { released: string[] } {
  const released: string[] = [];
  return {
    released,
    isDeviceAccessible: true,
    isHostAccessible,
    device: undefined,
    allocate: () => {
      throw new Error('not used');
    },
    deallocate: (ptr) => void released.push(`now 0x${ptr.toString(16)}`),
    deallocateAsync: (ptr) => (released.push(`async 0x${ptr.toString(16)}`), Promise.resolve()),
    deallocateInBackground: (ptr) => void released.push(`background 0x${ptr.toString(16)}`),
  };
}

describe('Buffer host views', () => {
  it('asArrayBuffer gives the same ArrayBuffer of exactly the buffer, typedArray views it by dtype', () => {
    const resource = recordingResource();
    const b = new Buffer(0x10000n, 64, resource, 0n);
    const a = b.asArrayBuffer();
    expect(a.byteLength).toBe(64);
    expect(b.asArrayBuffer()).toBe(a);
    expect(made.at(-1)).toEqual({ ptr: 0x10000n, byteLength: 64 });
    const f = b.typedArray('float32');
    expect(f).toBeInstanceOf(Float32Array);
    expect([f.buffer, f.byteOffset, f.length]).toEqual([a, 0, 16]);
    expect(b.typedArray()).toBeInstanceOf(Uint8Array);
    expect((b.typedArray('int64') as BigInt64Array).length).toBe(8);
    expect(b.hasHostView).toBe(true);
    expect(() => new Buffer(0x20000n, 6, resource, 0n).typedArray('float32')).toThrow(InvalidLayoutError);
    b.close();
  });

  it('refuses device memory with a HostViewError, and a closed buffer with ClosedResourceError', () => {
    const device = new Buffer(0x30000n, 16, recordingResource(false), 0n);
    expect(() => device.asArrayBuffer()).toThrow(HostViewError);
    expect(() => device.typedArray('int32')).toThrow(/device memory .* allocate pinned/);
    device.close();
    const closed = new Buffer(0x40000n, 16, recordingResource(), 0n);
    closed.close();
    expect(() => closed.asArrayBuffer()).toThrow(ClosedResourceError);
  });

  it("close() without a view gives the memory back at once; an empty buffer's view holds nothing", () => {
    const resource = recordingResource();
    new Buffer(0x50000n, 16, resource, 0n).close();
    expect(resource.released).toEqual(['now 0x50000']);
    const empty = new Buffer(0x51000n, 0, resource, 0n);
    const before = made.length;
    expect(empty.asArrayBuffer().byteLength).toBe(0);
    expect((empty.typedArray('float32') as Float32Array).length).toBe(0);
    expect(made.length).toBe(before);
    empty.close();
    expect(resource.released).toEqual(['now 0x50000', 'now 0x51000']);
  });

  it('close() while a view lives closes the buffer and defers the release until the view is collected', async () => {
    const resource = recordingResource();
    const b = new Buffer(0x60000n, 16, resource, 0n);
    let view: Int32Array | undefined = b.typedArray('int32') as Int32Array;
    b.close();
    expect(b.closed).toBe(true);
    expect(() => b.ptr).toThrow(ClosedResourceError);
    expect(resource.released).toEqual([]); // the view may still be read and written
    view[0] = 7;
    expect(view[0]).toBe(7);
    b.close(); // twice: nothing more
    view = undefined;
    await collectUntil(() => resource.released.length > 0);
    expect(resource.released).toEqual(['background 0x60000']);
  });

  it('close() once the views were collected gives the memory back at once, and only once', async () => {
    const resource = recordingResource();
    const b = new Buffer(0x70000n, 16, resource, 0n);
    b.asArrayBuffer();
    await collectUntil(() => !b.hasHostView);
    expect(b.hasHostView).toBe(false);
    b.close();
    expect(resource.released).toEqual(['now 0x70000']);
    await collectUntil(() => false, 5);
    expect(resource.released).toEqual(['now 0x70000']);
  });

  it('closeAsync() while a view lives settles at once and defers the release too', async () => {
    const resource = recordingResource();
    const b = new Buffer(0x80000n, 16, resource, 0n);
    let view: ArrayBuffer | undefined = b.asArrayBuffer();
    await b.closeAsync();
    expect(resource.released).toEqual([]);
    expect(view.byteLength).toBe(16);
    view = undefined;
    await collectUntil(() => resource.released.length > 0);
    expect(resource.released).toEqual(['background 0x80000']);
  });

  it('a forgotten buffer whose view lives is not released until the view is gone', async () => {
    const resource = recordingResource();
    let view: Uint8Array | undefined = (() => new Buffer(0x90000n, 16, resource, 0n).typedArray() as Uint8Array)();
    await collectUntil(() => resource.released.length > 0, 10);
    expect(resource.released).toEqual([]);
    view[3] = 1;
    view = undefined;
    await collectUntil(() => resource.released.length > 0);
    expect(resource.released).toEqual(['background 0x90000']);
  });

  it("a StridedMemoryView of a pinned Buffer reads through the Buffer's own view (core's driver hook)", async () => {
    installDriverHooks();
    const resource = recordingResource();
    const b = new Buffer(0xa0000n, 32, resource, 0n);
    const whole = b.asArrayBuffer();
    new Uint8Array(whole).set(Array.from({ length: 32 }, (_, i) => i));
    const view = StridedMemoryView.fromDLPack(b).view({ dtype: 'uint16' });
    expect(view.device.type).toBe(3); // CUDAHost
    const u16 = view.typedArray() as Uint16Array;
    expect(u16.buffer).toBe(whole);
    expect(u16[1]).toBe(2 | (3 << 8));
    const tail = view.slice([8, 16]);
    expect((tail.typedArray() as Uint16Array).byteOffset).toBe(16);
    // the Buffer's close() waits for the views that memory-view made of it
    let kept: Uint16Array | undefined = u16;
    b.close();
    expect(resource.released).toEqual([]);
    kept = undefined;
    void kept;
    void whole;
    expect(typeof b[DLPACK]).toBe('function');
  });

  it('while a host function is pending, close() releases on the release thread and host copies are refused', async () => {
    const resource = recordingResource();
    const b = new Buffer(0xb0000n, 16, resource, 0x5n);
    const pending = launchHostFunction(0x5n, () => 'ran');
    expect(() => b.copyTo(new Uint8Array(16))).toThrow(HostFunctionDeadlockError);
    expect(() => b.copyFrom(new Uint8Array(16))).toThrow(/Buffer\.copyFrom would never return/);
    b.close();
    expect(resource.released).toEqual(['background 0xb0000']);
    queued.shift()!();
    await expect(pending).resolves.toBe('ran');
    const later = new Buffer(0xc0000n, 16, resource, 0x5n);
    later.close();
    expect(resource.released).toEqual(['background 0xb0000', 'now 0xc0000']);
  });

  it('a view of a Buffer reads only through the Buffer: not once it is closed, not outside it', () => {
    installDriverHooks();
    const b = new Buffer(0xd0000n, 16, recordingResource(), 0n);
    const early = StridedMemoryView.fromDLPack(b);
    const outside = StridedMemoryView.fromPointer(0xd0008n, {
      dtype: 'uint8',
      shape: [16],
      device: { type: 3, id: 0 },
      exporter: b,
    });
    expect(() => outside.typedArray()).toThrow(HostViewError);
    expect(() => outside.typedArray()).toThrow(/outside the Buffer at 0xd0000 \(16 bytes\)/);
    b.close();
    expect(() => early.typedArray()).toThrow(ClosedResourceError);
  });
});
