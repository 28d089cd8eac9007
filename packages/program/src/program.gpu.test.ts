// On a GPU: compile, link, load and launch, and check the results; kernel
// attributes and occupancy against the device's own limits. The context,
// memory and launches come straight from @cuda-js/bindings.
import { errorOf } from '@cuda-js/test-support/errors';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { driver, type CUdeviceptr } from '@cuda-js/bindings';
import { describeGpu } from '@cuda-js/test-support';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CompileCache } from './compile-cache.js';
import { ClosedError, KernelNotFoundError, LinkError, ObjectCodeLoadError } from './errors.js';
import type { Kernel } from './kernel.js';
import { Linker } from './linker.js';
import { ObjectCode } from './object-code.js';
import { Program } from './program.js';
import { itWhen, nvJitLinkMissing } from './test-environment.js';

type Arg = { f32: number } | { i32: number } | { ptr: bigint };

const AXPY = `
template <typename T>
__global__ void axpy(T a, const T* x, T* y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void tiled(float* p, int n) {
  __shared__ float tile[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  tile[threadIdx.x] = i < n ? p[i] : 0.0f;
  __syncthreads();
  if (i < n) p[i] = tile[blockDim.x - 1 - threadIdx.x];
}
`;

const SIN_IR = `
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare float @__nv_sinf(float)
declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()

define void @sines(float* %out, float* %in, i32 %n) {
entry:
  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %bid = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %bdim = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()
  %base = mul i32 %bid, %bdim
  %i32 = add i32 %base, %tid
  %inside = icmp slt i32 %i32, %n
  br i1 %inside, label %work, label %done
work:
  %i = sext i32 %i32 to i64
  %pin = getelementptr float, float* %in, i64 %i
  %x = load float, float* %pin
  %y = call float @__nv_sinf(float %x)
  %pout = getelementptr float, float* %out, i64 %i
  store float %y, float* %pout
  br label %done
done:
  ret void
}

!nvvm.annotations = !{!0}
!0 = !{void (float*, float*, i32)* @sines, !"kernel", i32 1}
!nvvmir.version = !{!1}
!1 = !{i32 2, i32 0}
`;

// A device function in NVVM IR, called from C++; the two meet as LTO-IR.
const SCALE_IR = `
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-i128:128:128-f32:32:32-f64:64:64-v16:16:16-v32:32:32-v64:64:64-v128:128:128-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

define float @scale_by_three(float %x) {
entry:
  %y = fmul float %x, 3.000000e+00
  ret float %y
}

!nvvmir.version = !{!0}
!0 = !{i32 2, i32 0}
`;
const APPLY_CXX = `
extern "C" __device__ float scale_by_three(float);
extern "C" __global__ void apply(float* p, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = scale_by_three(p[i]) + 1.0f;
}
`;

// Hand-written PTX of an old ISA (8.0, CUDA 12.0), which every CUDA 12 and 13
// driver reads, whatever the NVRTC on the machine emits.
const ADD_ONE_PTX = `.version 8.0
.target sm_80
.address_size 64

.visible .entry add_one(
	.param .u64 add_one_param_0,
	.param .u32 add_one_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<5>;

	ld.param.u64 	%rd1, [add_one_param_0];
	ld.param.u32 	%r2, [add_one_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__done;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f1, [%rd4];
	add.f32 	%f2, %f1, 0f3F800000;
	st.global.f32 	[%rd4], %f2;
$L__done:
	ret;
}
`;
// The same ISA, calling a function that nothing defines.
const CALLS_MISSING_PTX = `.version 8.0
.target sm_80
.address_size 64

.extern .func (.param .b32 result) gone(.param .b32 x);

.visible .entry uses_gone(
	.param .u64 uses_gone_param_0
)
{
	.reg .f32 	%f<3>;
	.reg .b64 	%rd<3>;

	ld.param.u64 	%rd1, [uses_gone_param_0];
	cvta.to.global.u64 	%rd2, %rd1;
	ld.global.f32 	%f1, [%rd2];
	{
	.param .b32 arg;
	.param .b32 ret;
	st.param.f32 	[arg], %f1;
	call.uni (ret), gone, (arg);
	ld.param.f32 	%f2, [ret];
	}
	st.global.f32 	[%rd2], %f2;
	ret;
}
`;

let device = 0;
let arch = '';
const allocations: CUdeviceptr[] = [];
const root = mkdtempSync(join(tmpdir(), 'program-gpu-'));

function attribute(name: string): number {
  return driver.cuDeviceGetAttribute(
    driver.CUdevice_attribute[name as keyof typeof driver.CUdevice_attribute] as number,
    device,
  );
}

function toDevice(values: Float32Array): CUdeviceptr {
  const p = driver.cuMemAlloc(values.byteLength);
  allocations.push(p);
  driver.cuMemcpyHtoD(p, values, values.byteLength);
  return p;
}

function fromDevice(p: CUdeviceptr, length: number): Float32Array {
  const out = new Float32Array(length);
  driver.cuMemcpyDtoH(out, p, out.byteLength);
  return out;
}

/** Packs `args` at the offsets the driver reports for the kernel, launches, and waits. */
function launch(kernel: Kernel, grid: number, block: number, args: readonly Arg[]): void {
  const params = kernel.parameters;
  expect(params).toHaveLength(args.length);
  const buffer = new ArrayBuffer(kernel.parameterBufferSize);
  const view = new DataView(buffer);
  args.forEach((arg, i) => {
    const { offset, size } = params[i]!;
    if ('f32' in arg) view.setFloat32(offset, arg.f32, true);
    else if ('i32' in arg) view.setInt32(offset, arg.i32, true);
    else view.setBigUint64(offset, arg.ptr, true);
    expect(size).toBe('ptr' in arg ? 8 : 4);
  });
  const packed = driver.createKernelParams(
    buffer,
    params.map((p) => p.offset),
    params.map((p) => p.size),
  );
  driver.cuLaunchKernel(kernel.getFunction(), grid, 1, 1, block, 1, 1, 0, 0n, packed);
  driver.cuCtxSynchronize();
}

function ramp(n: number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, (_, i) => (i - n / 2) * scale);
}

describeGpu('Program, Linker, ObjectCode and Kernel on the GPU', () => {
  beforeAll(() => {
    driver.cuInit(0);
    device = driver.cuDeviceGet(0);
    const context = driver.cuDevicePrimaryCtxRetain(device);
    driver.cuCtxSetCurrent(context);
    arch = `sm_${attribute('CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR')}${attribute('CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR')}`;
  });

  afterAll(() => {
    for (const p of allocations) driver.cuMemFree(p);
    driver.cuDevicePrimaryCtxRelease(device);
    rmSync(root, { recursive: true, force: true });
  });

  it('compiles C++ to a cubin for the current device (no arch given) and runs a template kernel', () => {
    const cubin = new Program(AXPY, 'c++').compile('cubin', { nameExpressions: ['axpy<float>'] });
    const kernel = cubin.getKernel('axpy<float>');
    const n = 1000;
    const x = ramp(n, 0.5);
    const y = ramp(n, -0.25);
    const px = toDevice(x);
    const py = toDevice(y);
    launch(kernel, Math.ceil(n / 128), 128, [{ f32: 2 }, { ptr: px }, { ptr: py }, { i32: n }]);
    const got = fromDevice(py, n);
    for (let i = 0; i < n; i++) expect(got[i]).toBe(Math.fround(Math.fround(2 * x[i]!) + y[i]!));
    // The same kernel by its lowered name.
    expect(cubin.getKernel(cubin.symbolMapping.get('axpy<float>')!).handle).toBe(kernel.handle);
  });

  it("reports each parameter's offset and size as the C++ ABI lays them out", () => {
    const kernel = new Program(AXPY, 'c++')
      .compile('cubin', { nameExpressions: ['axpy<double>'] })
      .getKernel('axpy<double>');
    expect(kernel.parameters.map((p) => [p.index, p.offset, p.size])).toEqual([
      [0, 0, 8],
      [1, 8, 8],
      [2, 16, 8],
      [3, 24, 4],
    ]);
    expect(kernel.parameterCount).toBe(4);
    expect(kernel.parameterBufferSize).toBe(28);
  });

  it('loads PTX through the driver JIT and runs it', async () => {
    const ptx = ObjectCode.fromPtxText(ADD_ONE_PTX);
    expect(ptx.compatibility()).toMatchObject({ loadable: true });
    await ptx.loadAsync();
    const n = 1000;
    const data = ramp(n);
    const p = toDevice(data);
    launch(ptx.getKernel('add_one'), 4, 256, [{ ptr: p }, { i32: n }]);
    expect(Array.from(fromDevice(p, n))).toEqual(Array.from(data, (v) => v + 1));
  });

  it("loads NVRTC's PTX where the driver reads its ISA, and says why not where it does not", async () => {
    const ptx = await new Program(AXPY, 'c++').compileAsync('ptx', { checkCompatibility: false });
    const report = ptx.compatibility()!;
    if (report.loadable) {
      const n = 256;
      const data = ramp(n);
      const p = toDevice(data);
      launch(ptx.getKernel('tiled'), 1, n, [{ ptr: p }, { i32: n }]);
      expect(Array.from(fromDevice(p, n))).toEqual(Array.from(data).reverse());
    } else {
      // NVRTC newer than the driver (minor-version compatibility covers cubin only).
      await expect(ptx.loadAsync()).rejects.toThrow(ObjectCodeLoadError);
      expect(() => ptx.getKernel('tiled')).toThrow(report.message);
    }
  });

  it('gives attributes and occupancy that agree with the device limits', () => {
    const kernel = new Program(AXPY, 'c++').compile('cubin').getKernel('tiled');
    const a = kernel.attributes();
    const cc =
      attribute('CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR') * 10 +
      attribute('CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR');
    expect(a.sharedSizeBytes).toBe(256 * 4);
    expect(a.binaryVersion).toBe(cc);
    expect(a.numRegs).toBeGreaterThan(0);
    expect(a.numRegs).toBeLessThanOrEqual(255);
    expect(a.maxThreadsPerBlock).toBeGreaterThan(0);
    expect(a.maxThreadsPerBlock).toBeLessThanOrEqual(attribute('CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK'));
    expect(a.localSizeBytes).toBe(0);
    expect(kernel.getAttribute('numRegs', 0)).toBe(a.numRegs);
    const limited = new Program(AXPY, 'c++', { maxRegisters: 16 })
      .compile('cubin', { nameExpressions: ['axpy<double>'] })
      .getKernel('axpy<double>');
    expect(limited.getAttribute('numRegs')).toBeLessThanOrEqual(16);

    const sms = attribute('CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT');
    const blocks = kernel.occupancy.maxActiveBlocksPerMultiprocessor(256);
    expect(blocks).toBeGreaterThanOrEqual(1);
    expect(blocks * 256).toBeLessThanOrEqual(attribute('CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR'));
    expect(blocks * a.sharedSizeBytes).toBeLessThanOrEqual(
      attribute('CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR'),
    );
    expect(blocks).toBeLessThanOrEqual(attribute('CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR'));

    const best = kernel.occupancy.maxPotentialBlockSize();
    expect(best.blockSize % attribute('CU_DEVICE_ATTRIBUTE_WARP_SIZE')).toBe(0);
    expect(best.blockSize).toBeLessThanOrEqual(a.maxThreadsPerBlock);
    expect(best.minGridSize).toBe(kernel.occupancy.maxActiveBlocksPerMultiprocessor(best.blockSize) * sms);
    expect(kernel.occupancy.maxPotentialBlockSize(0, 64).blockSize).toBeLessThanOrEqual(64);

    const dynamic = kernel.occupancy.availableDynamicSharedMemoryPerBlock(1, 256);
    expect(dynamic).toBeGreaterThan(0);
    expect(dynamic + a.sharedSizeBytes).toBeLessThanOrEqual(
      attribute('CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN'),
    );

    const optIn = attribute('CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN') - a.sharedSizeBytes;
    kernel.setAttribute('maxDynamicSharedSizeBytes', optIn);
    expect(kernel.getAttribute('maxDynamicSharedSizeBytes')).toBe(optIn);
  });

  it('answers the cluster occupancy queries on devices with clusters', (context) => {
    if (attribute('CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH') !== 1) context.skip('this device has no thread block clusters');
    const kernel = new Program(AXPY, 'c++').compile('cubin').getKernel('tiled');
    const sms = attribute('CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT');
    // Portable cluster sizes go up to 8 on every device with clusters.
    expect(kernel.occupancy.maxPotentialClusterSize({ grid: sms * 8, block: 256 })).toBeGreaterThanOrEqual(8);
    const clusters = kernel.occupancy.maxActiveClusters({ grid: sms * 8, block: 256, cluster: 2 });
    expect(clusters).toBeGreaterThanOrEqual(1);
    expect(clusters * 2).toBeLessThanOrEqual(sms * kernel.occupancy.maxActiveBlocksPerMultiprocessor(256));
    // Dynamic shared memory (LaunchConfig's sharedMemory) limits the blocks that share a multiprocessor, so the resident clusters too.
    const shared = 40 * 1024;
    const launchConfigShaped = {
      grid: sms * 8,
      block: { x: 256 },
      cluster: [2, 1, 1] as const,
      sharedMemory: shared,
      cooperative: false,
    };
    const fewer = kernel.occupancy.maxActiveClusters(launchConfigShaped);
    expect(fewer).toBeGreaterThanOrEqual(1);
    expect(fewer).toBeLessThan(clusters);
    expect(fewer * 2).toBeLessThanOrEqual(sms * kernel.occupancy.maxActiveBlocksPerMultiprocessor(256, shared));
  });

  it('names the kernels a module has when one is missing', () => {
    const cubin = new Program(AXPY, 'c++').compile('cubin');
    const error = errorOf<KernelNotFoundError>(() => {
      cubin.getKernel('tile');
    });
    expect(error).toBeInstanceOf(KernelNotFoundError);
    expect(error!.available).toContain('tiled');
  });

  it('ends its kernels when the ObjectCode is closed', () => {
    const cubin = new Program(AXPY, 'c++').compile('cubin');
    const kernel = cubin.getKernel('tiled');
    cubin.close();
    expect(() => kernel.getFunction()).toThrow(ClosedError);
    expect(() => kernel.attributes()).toThrow(ClosedError);
    cubin.close();
  });

  it('runs a cubin that came from the disk cache', () => {
    const directory = join(root, 'cache');
    const compile = (cache: CompileCache): ObjectCode =>
      new Program(AXPY, 'c++').compile('cubin', { cache, nameExpressions: ['axpy<float>'] });
    compile(new CompileCache({ directory }));
    const later = new CompileCache({ directory });
    const cached = compile(later);
    expect(later.stats().diskHits).toBe(1);
    const n = 64;
    const y = ramp(n);
    const py = toDevice(y);
    const px = toDevice(new Float32Array(n).fill(1));
    launch(cached.getKernel('axpy<float>'), 1, n, [{ f32: 3 }, { ptr: px }, { ptr: py }, { i32: n }]);
    expect(Array.from(fromDevice(py, n))).toEqual(Array.from(y, (v) => v + 3));
  });

  itWhen([nvJitLinkMissing], 'compiles NVVM IR to PTX, links it with nvJitLink to a cubin, and runs it', () => {
    const program = new Program(SIN_IR, 'nvvm', { useLibdevice: true });
    const ptx = program.compile('ptx');
    const linker = new Linker([ptx], { arch });
    expect(linker.backend).toBe('nvJitLink');
    const cubin = linker.link('cubin');
    expect(cubin.codeType).toBe('cubin');
    const n = 4096;
    const x = ramp(n, 0.003);
    const px = toDevice(x);
    const py = toDevice(new Float32Array(n));
    launch(cubin.getKernel('sines'), n / 256, 256, [{ ptr: py }, { ptr: px }, { i32: n }]);
    const got = fromDevice(py, n);
    // libdevice's sinf is within 2 ulp of the exact result (CUDA Programming Guide, mathematical functions).
    const ulp = (v: number): number => 2 ** (Math.floor(Math.log2(Math.max(Math.abs(v), 2 ** -126))) - 23);
    for (let i = 0; i < n; i++) {
      const exact = Math.sin(x[i]!);
      expect(Math.abs(got[i]! - exact)).toBeLessThanOrEqual(2 * ulp(exact));
    }
    // compile('cubin') does the same in one step.
    const direct = program.compile('cubin');
    launch(direct.getKernel('sines'), n / 256, 256, [{ ptr: py }, { ptr: px }, { i32: n }]);
    expect(fromDevice(py, n)).toEqual(got);
  });

  itWhen([nvJitLinkMissing], 'links C++ LTO-IR with NVVM LTO-IR and runs the result', async () => {
    const cxx = new Program(APPLY_CXX, 'c++', { relocatableDeviceCode: true }).compile('ltoir');
    const nvvm = new Program(SCALE_IR, 'nvvm').compile('ltoir');
    expect([cxx.codeType, nvvm.codeType]).toEqual(['ltoir', 'ltoir']);
    const info: string[] = [];
    const cubin = await new Linker([cxx, nvvm], { arch, verbose: true }).linkAsync('cubin', {
      logs: (t) => info.push(t),
    });
    const n = 300;
    const data = ramp(n, 0.125);
    const p = toDevice(data);
    launch(cubin.getKernel('apply'), Math.ceil(n / 128), 128, [{ ptr: p }, { i32: n }]);
    expect(Array.from(fromDevice(p, n))).toEqual(Array.from(data, (v) => Math.fround(Math.fround(v * 3) + 1)));
    // After link-time optimization, nvJitLink can also hand back the PTX.
    const ptx = new Linker([cxx, nvvm], { arch }).link('ptx');
    expect(new TextDecoder().decode(ptx.code)).toContain('.entry apply(');
  });

  // Issue 20: an entry of another kind under a link's key (a cubin for link('ptx')) was served as it was.
  itWhen(
    [nvJitLinkMissing],
    'serves a cached link only of the kind asked for, and writes over one of another kind',
    () => {
      const directory = join(root, 'link-cache-kind');
      const inputs = () => [
        new Program(APPLY_CXX, 'c++', { relocatableDeviceCode: true }).compile('ltoir'),
        new Program(SCALE_IR, 'nvvm').compile('ltoir'),
      ];
      const first = new Linker(inputs(), { arch }).link('ptx', { cache: new CompileCache({ directory }) });
      const shard = readdirSync(directory).find((name) => /^[0-9a-f]{2}$/.test(name))!;
      const key = readdirSync(join(directory, shard))[0]!.replace(/\.bin$/, '');
      new CompileCache({ directory }).set(key, {
        codeType: 'cubin',
        name: 'x',
        code: new Uint8Array([0x7f, 0x45, 0x4c, 0x46]),
        symbolMapping: {},
      });
      const again = new Linker(inputs(), { arch }).link('ptx', { cache: new CompileCache({ directory }) });
      expect(again.codeType).toBe('ptx');
      expect(again.code).toEqual(first.code);
      expect(new CompileCache({ directory }).get(key)?.codeType).toBe('ptx'); // written over
    },
  );

  itWhen([nvJitLinkMissing], 'compiles a PTX program through the linker and runs it', () => {
    const ptx = new TextDecoder().decode(new Program(AXPY, 'c++').compile('ptx').code);
    const cubin = new Program(ptx, 'ptx', { maxRegisters: 32 }).compile('cubin');
    const kernel = cubin.getKernel('tiled');
    expect(kernel.getAttribute('numRegs')).toBeLessThanOrEqual(32);
    const data = ramp(128);
    const p = toDevice(data);
    launch(kernel, 1, 128, [{ ptr: p }, { i32: 128 }]);
    expect(Array.from(fromDevice(p, 128))).toEqual(Array.from(data).reverse());
  });

  it("links PTX with the driver's cuLink* when asked, and runs the result", () => {
    const info: string[] = [];
    const linker = new Linker([ObjectCode.fromPtxText(ADD_ONE_PTX)], { arch, backend: 'driver', verbose: true });
    expect(linker.backend).toBe('driver');
    const cubin = linker.link('cubin', { logs: (t) => info.push(t) });
    expect(cubin.codeType).toBe('cubin');
    expect(info.join('')).toContain('add_one');
    const data = ramp(64);
    const p = toDevice(data);
    launch(cubin.getKernel('add_one'), 1, 64, [{ ptr: p }, { i32: 64 }]);
    expect(Array.from(fromDevice(p, 64))).toEqual(Array.from(data, (v) => v + 1));
  });

  it("puts the driver linker's error log in its LinkError", () => {
    const error = errorOf<LinkError>(() => {
      new Linker([ObjectCode.fromPtxText(CALLS_MISSING_PTX)], { arch, backend: 'driver' }).link('cubin');
    });
    expect(error).toBeInstanceOf(LinkError);
    expect(error!.backend).toBe('driver');
    expect(error!.errorLog).toContain('gone');
  });

  itWhen([nvJitLinkMissing], 'throws LinkError with the error log for an unresolved function', () => {
    const cxx = new Program(
      'extern "C" __device__ float missing_fn(float);\nextern "C" __global__ void k(float* p) { p[0] = missing_fn(p[0]); }',
      'c++',
      {
        relocatableDeviceCode: true,
      },
    ).compile('ltoir');
    const error = errorOf<LinkError>(() => {
      new Linker([cxx], { arch }).link('cubin');
    });
    expect(error).toBeInstanceOf(LinkError);
    expect(error!.backend).toBe('nvJitLink');
    expect(error!.errorLog).toContain('missing_fn');
    expect(error!.message).toContain('error log:');
  });
});
