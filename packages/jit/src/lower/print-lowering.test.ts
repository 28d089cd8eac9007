// printf through vprintf: the format as a constant string of the module, the
// arguments in a naturally aligned struct, and the call; ptxas accepts the
// call to vprintf, which the CUDA driver provides.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, convert, f32, f64, i64, print, special, u32, u64 } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

function printKernel() {
  const k = new KernelBuilder('prints');
  const x = k.array('x', 'f32', 1, 'C', { written: false });
  return k.build([
    print(
      'thread %d of %u: %f, %lld %llu\n',
      special('tid.x'),
      u32(7),
      convert('f64', x.load(i64(0))),
      i64(-5),
      u64(2n ** 64n - 1n),
    ),
    print('no arguments, "quoted" \\ 100%% done ✓\n'),
  ]);
}

it('writes the format as an addrspace(4) constant string, escaped, with its NUL', () => {
  const ir = lowerKernel(printKernel());
  expect(ir).toContain(
    '@printf$0 = internal addrspace(4) constant [32 x i8] c"thread %d of %u: %f, %lld %llu\\0A\\00", align 1',
  );
  // UTF-8 bytes, quotes and backslashes escaped.
  expect(ir).toContain(
    '@printf$1 = internal addrspace(4) constant [41 x i8] c"no arguments, \\22quoted\\22 \\5C 100%% done \\E2\\9C\\93\\0A\\00", align 1',
  );
  expect(ir).toContain('declare i32 @vprintf(i8*, i8*)');
});

it('packs the arguments in a struct at their natural alignment and passes it (or null) with the format', () => {
  const ir = lowerKernel(printKernel());
  expect(ir).toMatch(/(%printf\.args\.\d+) = alloca \{ i32, i32, double, i64, i64 \}, align 8/);
  const slot = /(%printf\.args\.\d+) = alloca/.exec(ir)![1]!;
  const stores = [...ir.matchAll(/store (\w+) [^,]+, \w+\* (%t\d+), align (\d)/g)].map((m) => `${m[1]}/${m[3]}`);
  expect(stores).toEqual(['i32/4', 'i32/4', 'double/8', 'i64/8', 'i64/8']);
  expect(ir).toContain(
    `getelementptr inbounds { i32, i32, double, i64, i64 }, { i32, i32, double, i64, i64 }* ${slot}, i32 0, i32 4`,
  );
  expect(ir).toMatch(
    /(%t\d+) = addrspacecast i8 addrspace\(4\)\* getelementptr inbounds \(\[32 x i8\], \[32 x i8\] addrspace\(4\)\* @printf\$0, i64 0, i64 0\) to i8\*/,
  );
  expect(ir).toMatch(/call i32 @vprintf\(i8\* %t\d+, i8\* %t\d+\)/);
  expect(ir).toMatch(/call i32 @vprintf\(i8\* %t\d+, i8\* null\)/);
});

it('refuses arguments that vprintf does not take as they are (the typer widens f32 and bool)', () => {
  const k = new KernelBuilder('print_f32');
  expect(() => lowerKernel(k.build([print('%f', f32(1))]))).toThrow(/print argument of type f32/);
});

describeWhen(compileRequirements, 'print through libNVVM and ptxas', () => {
  it('assembles to a call of vprintf with the format in .const memory and the arguments in .local memory', () => {
    const { ptx } = compileAndAssemble(printKernel(), {}, ['vprintf']);
    expect(ptx).toMatch(/\.extern \.func\s+\(\.param \.b32 func_retval0\) vprintf/);
    expect(ptx.match(/call\.uni \(retval0\),\s+vprintf,/g)).toHaveLength(2);
    expect(ptx).toMatch(/\.const \.align 1 \.b8 printf\$0\[32\] = \{116, 104, 114, 101, 97, 100, 32, 37, 100/);
    expect(ptx).toMatch(/cvta\.const\.u64/);
    expect(ptx).toMatch(/\.local \.align 8 \.b8 \t?__local_depot0\[32\];/);
    expect(ptx).toMatch(/st\.local\.(v2\.)?u32\s+\[%rd\d+\], (%r\d+|\{%r\d+, %r\d+\});/);
    expect(ptx).toMatch(/st\.local\.f64\s+\[%rd\d+\+8\], %fd\d+;/);
    expect(ptx).toMatch(/st\.local\.u64\s+\[%rd\d+\+16\]/);
    expect(ptx).toMatch(/st\.local\.u64\s+\[%rd\d+\+24\]/);
  });

  it('still passes f64 constants through the struct', () => {
    const k = new KernelBuilder('print_const');
    expect(compileAndAssemble(k.build([print('%g\n', f64(0.5))]), {}, ['vprintf']).ptx).toMatch(
      /st\.local\.(f64|u64|b64)/,
    );
  });
});
