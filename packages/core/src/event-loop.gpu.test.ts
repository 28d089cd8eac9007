import { spawnSync } from 'node:child_process';
import { describeGpu } from '@cuda-js/test-support';
import { expect, it } from 'vitest';

// Nothing that the stack does behind the user's back may block the event loop
// while a kernel runs: not awaits of the GPU (they wait on the addon's own
// threads, not on libuv's pool, which fs needs), and not the finalizers of
// forgotten buffers (cuMemFreeHost waits for the device; it runs on the
// bindings' release thread). Each runs in a child process: with --expose-gc,
// and with libuv's default pool of 4 threads. Built outputs (dist) are used
// there, as Node 20 does not run TypeScript.
const PRELUDE = `
  import { readFile } from 'node:fs/promises';
  import { Device, LegacyPinnedMemoryResource, launch, u64 } from '@cuda-js/core';
  import { driver, nvrtc } from '@cuda-js/bindings';
import { backgroundReleaseFailures } from '@cuda-js/bindings/runtime';
  const device = Device.get(0).setCurrent();
  const p = nvrtc.nvrtcCreateProgram('extern "C" __global__ void spin(unsigned long long cycles) { long long s = clock64(); while ((unsigned long long)(clock64() - s) < cycles) {} }', 'spin.cu', [], []);
  nvrtc.nvrtcCompileProgram(p, ['--gpu-architecture=' + device.arch]);
  const library = driver.cuLibraryLoadData(nvrtc.nvrtcGetCUBIN(p));
  nvrtc.nvrtcDestroyProgram(p);
  const spin = { handle: driver.cuLibraryGetKernel(library, 'spin'), name: 'spin' };
  const cycles = (ms) => u64(BigInt(device.attributes.clockRate) * BigInt(ms)); // clockRate is in kHz
  const ticking = () => { const t = { ticks: 0 }; t.timer = setInterval(() => t.ticks++, 10); return t; };
`;

function runChild(script: string, args: string[] = []): { out: string; status: number | null } {
  const child = spawnSync(process.execPath, [...args, '--input-type=module', '-e', PRELUDE + script], {
    encoding: 'utf8',
    cwd: new URL('..', import.meta.url).pathname,
    env: { ...process.env, UV_THREADPOOL_SIZE: '4' },
    timeout: 120_000,
  });
  return { out: `${child.stdout}${child.stderr}`, status: child.status };
}

function lastJson<T>(out: string): T {
  return JSON.parse(out.trim().split('\n').pop()!) as T;
}

describeGpu('the event loop while a kernel runs', () => {
  it("eight concurrent await stream.synchronized() leave libuv's pool free: fs.promises.readFile completes meanwhile", () => {
    const { out, status } = runChild(`
      const streams = Array.from({ length: 8 }, () => device.createStream());
      for (const s of streams) launch(s, { grid: 1, block: 1 }, spin, cycles(400));
      const start = performance.now();
      const t = ticking();
      const waits = streams.map((s) => s.synchronized().then(() => performance.now() - start));
      const text = await readFile('package.json');
      const readMs = performance.now() - start;
      const busyWhileRead = streams.filter((s) => !s.isDone).length;
      const waited = await Promise.all(waits);
      clearInterval(t.timer);
      console.log(JSON.stringify({ readMs, bytes: text.length, busyWhileRead, waited, ticks: t.ticks }));
    `);
    expect(status, out).toBe(0);
    const r = lastJson<{ readMs: number; bytes: number; busyWhileRead: number; waited: number[]; ticks: number }>(out);
    expect(r.bytes).toBeGreaterThan(0);
    expect(r.busyWhileRead, 'the read finished while the kernels still ran').toBeGreaterThan(0);
    expect(r.readMs).toBeLessThan(300);
    for (const ms of r.waited) expect(ms).toBeGreaterThanOrEqual(300);
    expect(r.ticks).toBeGreaterThanOrEqual(20);
  });

  it('20 dropped LegacyPinnedMemoryResource buffers collected during a ~300 ms kernel leave a 10 ms timer ticking', () => {
    const { out, status } = runChild(
      `
      const stream = device.createStream();
      const resource = new LegacyPinnedMemoryResource();
      let collected = 0;
      const watch = new FinalizationRegistry(() => collected++);
      (() => { for (let i = 0; i < 20; i++) watch.register(resource.allocate(1 << 20), i); })(); // dropped without close()
      launch(stream, { grid: 1, block: 1 }, spin, cycles(300));
      const t = ticking();
      // collect while the kernel runs, and let the finalizers run
      for (let i = 0; i < 5 && collected < 20; i++) { globalThis.gc(); await new Promise((r) => setTimeout(r, 1)); }
      const collectedWhileBusy = stream.isDone ? -1 : collected;
      await stream.synchronized();
      clearInterval(t.timer);
      await new Promise((r) => setTimeout(r, 50)); // the release thread finishes its queue
      console.log(JSON.stringify({ ticks: t.ticks, collected, collectedWhileBusy, failures: backgroundReleaseFailures() }));
    `,
      ['--expose-gc'],
    );
    expect(status, out).toBe(0);
    const r = lastJson<{ ticks: number; collected: number; collectedWhileBusy: number; failures: number }>(out);
    expect(r.collectedWhileBusy, 'the buffers were collected while the kernel still ran').toBe(20);
    expect(r.ticks).toBeGreaterThanOrEqual(20);
    expect(r.failures).toBe(0);
  });

  it('Buffer.closeAsync() of pinned memory does not block during a kernel, and close() twice is safe', () => {
    const { out, status } = runChild(`
      const stream = device.createStream();
      const buffers = Array.from({ length: 8 }, () => new LegacyPinnedMemoryResource().allocate(1 << 20));
      launch(stream, { grid: 1, block: 1 }, spin, cycles(300));
      const t = ticking();
      const start = performance.now();
      const closing = Promise.all(buffers.map((b) => b.closeAsync()));
      const returnedMs = performance.now() - start;
      const closed = buffers.every((b) => b.closed);
      await closing;
      await stream.synchronized();
      clearInterval(t.timer);
      for (const b of buffers) { b.close(); await b.closeAsync(); }
      console.log(JSON.stringify({ returnedMs, closed, ticks: t.ticks }));
    `);
    expect(status, out).toBe(0);
    const r = lastJson<{ returnedMs: number; closed: boolean; ticks: number }>(out);
    expect(r.closed).toBe(true);
    expect(r.returnedMs).toBeLessThan(50);
    expect(r.ticks).toBeGreaterThanOrEqual(20);
  });
});
