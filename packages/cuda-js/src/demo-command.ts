import { Device, deviceCount, f32, i32, type Buffer } from '@cuda-js/core';
import { array, cuda, jit, type JitKernel, type JitTarget } from '@cuda-js/jit';
import { StridedMemoryView } from '@cuda-js/memory-view';

type Write = (text: string) => void;

/** `y = a·x + y`, one thread per element. */
function axpyKernel(target: JitTarget): JitKernel {
  return jit(
    function axpy(a: number, x: Float32Array, y: Float32Array) {
      const i = cuda.grid(1);
      if (i < y.length) y[i] = a * x[i]! + y[i]!;
    },
    { target },
  );
}

interface Grid2D {
  readonly shape: readonly number[];
  set(row: number, col: number, value: number): void;
}

/** Iterations until |z| > 2 for each pixel of the view [-2, 1] × [-1.5, 1.5], in f32. */
function mandelbrotKernel(target: JitTarget): JitKernel {
  return jit(
    function mandelbrot(out: Grid2D, maxIterations: number) {
      const [row, col] = cuda.grid(2);
      const h = out.shape[0]!;
      const w = out.shape[1]!;
      if (row >= h || col >= w) return;
      const cr = Math.fround(-2 + (3 * col) / w);
      const ci = Math.fround(-1.5 + (3 * row) / h);
      let zr = Math.fround(0);
      let zi = Math.fround(0);
      let n = 0;
      while (n < maxIterations && zr * zr + zi * zi <= 4) {
        const t = zr * zr - zi * zi + cr;
        zi = 2 * zr * zi + ci;
        zr = t;
        n++;
      }
      out.set(row, col, n);
    },
    { target, name: 'mandelbrot', fma: false },
  ); // no contraction: the f32 result is then exactly plain JS's
}

/** The same Mandelbrot count in plain JavaScript, rounding to f32 as the kernel does. */
function mandelbrotReference(h: number, w: number, maxIterations: number): Int32Array {
  const f = Math.fround;
  const out = new Int32Array(h * w);
  for (let row = 0; row < h; row++) {
    for (let col = 0; col < w; col++) {
      const cr = f(-2 + (3 * col) / w);
      const ci = f(-1.5 + (3 * row) / h);
      let zr = 0;
      let zi = 0;
      let n = 0;
      while (n < maxIterations && f(f(zr * zr) + f(zi * zi)) <= 4) {
        const t = f(f(f(zr * zr) - f(zi * zi)) + cr);
        zi = f(f(f(2 * zr) * zi) + ci);
        zr = t;
        n++;
      }
      out[row * w + col] = n;
    }
  }
  return out;
}

const ms = (start: number): string => `${(performance.now() - start).toFixed(1)} ms`;

/** Why there is no GPU to run on, or undefined when there is one. */
function noGpuReason(): string | undefined {
  try {
    return deviceCount() > 0 ? undefined : 'the driver reports no CUDA device';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Device memory holding `host`, and a view of it as a typed kernel argument. */
function onDevice(
  device: Device,
  host: Float32Array | Int32Array,
  shape: number[],
  dtype: 'float32' | 'int32',
): { buffer: Buffer; view: StridedMemoryView } {
  const buffer = device.allocate(host.byteLength);
  buffer.copyFrom(host);
  return { buffer, view: StridedMemoryView.fromPointer(buffer.ptr, { dtype, shape, exporter: buffer }) };
}

/**
 * `npm start`: JIT kernels (axpy and a 2-D Mandelbrot) on the GPU when there
 * is one and in the simulator otherwise, each checked against plain
 * JavaScript, with compile and run times. Returns the exit code.
 */
export function runDemo(write: Write = (t) => process.stdout.write(t)): number {
  const reason = noGpuReason();
  const target: JitTarget = reason === undefined ? 'gpu' : 'simulator';
  let device: Device | undefined;
  if (target === 'gpu') {
    device = Device.get(0).setCurrent();
    write(`cuda-js demo: JIT kernels on ${device.name} (${device.arch})\n`);
  } else {
    // the whole reason: a missing driver library's message lists every place tried, one a line
    write(
      `cuda-js demo: JIT kernels in the CPU simulator, as there is no GPU:\n${reason!
        .split('\n')
        .map((line) => `  ${line}\n`)
        .join('')}\n`,
    );
  }
  let failures = 0;

  // axpy
  const n = target === 'gpu' ? 1 << 24 : 1 << 16;
  const x = Float32Array.from({ length: n }, (_, i) => (i % 1000) / 7);
  const y = Float32Array.from({ length: n }, (_, i) => (i % 333) / 3);
  const a = 2.5;
  const expected = y.map((v, i) => Math.fround(Math.fround(a * x[i]!) + v));
  const axpy = axpyKernel(target);
  let start = performance.now();
  axpy.compile([f32, array(f32, 1), array(f32, 1)]);
  const axpyCompile = ms(start);
  let result: Float32Array;
  start = performance.now();
  if (device) {
    const dx = onDevice(device, x, [n], 'float32');
    const dy = onDevice(device, y, [n], 'float32');
    axpy.launch({ grid: Math.ceil(n / 256), block: 256 }, f32(a), dx.view, dy.view);
    result = new Float32Array(n);
    dy.buffer.copyTo(result);
    dx.buffer.close();
    dy.buffer.close();
  } else {
    result = y.slice();
    axpy.launch({ grid: Math.ceil(n / 256), block: 256 }, f32(a), x, result);
  }
  const axpyRun = ms(start);
  const axpyWrong = result.reduce(
    (count, v, i) => count + (Math.abs(v - expected[i]!) > 1e-5 * Math.max(1, Math.abs(expected[i]!)) ? 1 : 0),
    0,
  );
  failures += axpyWrong ? 1 : 0;
  write(
    `  axpy        n = ${n}: compile ${axpyCompile}, run ${axpyRun} (${target}), ${axpyWrong === 0 ? 'matches plain JS' : `${axpyWrong} elements differ from plain JS`}\n`,
  );

  // mandelbrot
  const [h, w] = target === 'gpu' ? [768, 1024] : [192, 256];
  const maxIterations = 200;
  const reference = mandelbrotReference(h, w, maxIterations);
  const mandelbrot = mandelbrotKernel(target);
  start = performance.now();
  mandelbrot.compile([array(i32, 2), i32]);
  const mandelCompile = ms(start);
  const pixels = new Int32Array(h * w);
  start = performance.now();
  const grid: [number, number] = [Math.ceil(h / 16), Math.ceil(w / 16)];
  if (device) {
    const out = onDevice(device, pixels, [h, w], 'int32');
    mandelbrot.launch({ grid, block: [16, 16] }, out.view, i32(maxIterations));
    out.buffer.copyTo(pixels);
    out.buffer.close();
  } else {
    const host = StridedMemoryView.fromBuffer(pixels, { dtype: 'int32', shape: [h, w] });
    mandelbrot.launch({ grid, block: [16, 16] }, host, i32(maxIterations));
  }
  const mandelRun = ms(start);
  const differ = pixels.reduce((count, v, i) => count + (v === reference[i] ? 0 : 1), 0);
  failures += differ ? 1 : 0;
  write(
    `  mandelbrot  ${w}×${h}: compile ${mandelCompile}, run ${mandelRun} (${target}), ${differ === 0 ? 'matches plain JS' : `${differ} pixels differ from plain JS`}\n`,
  );
  return failures === 0 ? 0 : 1;
}
