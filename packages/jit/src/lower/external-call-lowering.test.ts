// Calls of linked code: one `declare` per symbol with C's ABI attributes, the
// call, array arguments as generic pointers; then what libNVVM makes of it
// (an `.extern .func` whose prototype is the one NVRTC gives the same C
// function, which nvlink checks when it links them).
import { Program } from '@cuda-js/program';
import { expect, it } from 'vitest';
import { deviceLinkRejects, nvlinkMissing } from '../compile/device-link.test-support.js';
import { describeWhen, nvrtcMissing } from '../compile/toolchain-environment.test-support.js';
import { MUL_F32_PTX } from '../linked-code-fixtures.test-support.js';
import { arrayType, type JitType, type ScalarName } from '../typing/jit-types.js';
import type { ExternalCall } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements, externFunctions } from './compiled-kernel.test-support.js';
import {
  KernelBuilder,
  call,
  constant,
  convert,
  exprStmt,
  f32,
  f64,
  i32,
  i64,
  pointerArg,
  valueArg,
} from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

const external = (symbol: string, args: readonly JitType[], returns: ScalarName): ExternalCall => ({
  symbol,
  args,
  returns,
  link: [],
});
const MUL = external('mul_f32', ['f32', 'f32'], 'f32');
const f32x1 = arrayType('f32', 1, 'C');
const boolx1 = arrayType('bool', 1, 'C');

/** x[0] = mul_f32(x[0], 2); x[1] = mul_f32(x[1], 3) */
function mulKernel() {
  const k = new KernelBuilder('muls');
  const x = k.array('x', 'f32');
  const mul = k.external(MUL);
  return k.build([
    exprStmt(x.store([i64(0)], call(mul, MUL, [valueArg(x.load(i64(0))), valueArg(f32(2))]))),
    exprStmt(x.store([i64(1)], call(mul, MUL, [valueArg(x.load(i64(1))), valueArg(f32(3))]))),
  ]);
}

// Every scalar type and both kinds of array, in and out: the C function of the same name is below.
const ABI_ARGS: readonly JitType[] = [
  'bool',
  'i8',
  'u8',
  'i16',
  'u16',
  'i32',
  'u32',
  'i64',
  'u64',
  'f32',
  'f64',
  f32x1,
  boolx1,
];
const ABI = external('abi_all', ABI_ARGS, 'bool');
const RESULTS: readonly ExternalCall[] = (['i8', 'u8', 'i16', 'u16', 'u32', 'u64', 'f64'] as const).map((t) =>
  external(`ret_${t}`, [t], t),
);
const ABI_CUDA = `
extern "C" __device__ bool abi_all(bool b, signed char c, unsigned char uc, short s, unsigned short us, int i, unsigned u, long long l, unsigned long long ul,
                                   float f, double d, float* p, bool* q) {
  p[0] = f + (float)d + c + uc + s + us + i + u + l + ul;
  q[0] = b;
  return !b;
}
extern "C" __device__ signed char ret_i8(signed char x) { return x + 1; }
extern "C" __device__ unsigned char ret_u8(unsigned char x) { return x + 1; }
extern "C" __device__ short ret_i16(short x) { return x + 1; }
extern "C" __device__ unsigned short ret_u16(unsigned short x) { return x + 1; }
extern "C" __device__ unsigned ret_u32(unsigned x) { return x + 1; }
extern "C" __device__ unsigned long long ret_u64(unsigned long long x) { return x + 1; }
extern "C" __device__ double ret_f64(double x) { return x + 1; }
`;

/** Calls abi_all with one value of each type (the shared array and a bool parameter as its arrays) and each ret_<t>. */
function abiKernel() {
  const k = new KernelBuilder('abi');
  const x = k.array('x', 'f32');
  const flags = k.array('flags', 'bool');
  const out = k.array('out', 'f64');
  const tile = k.shared('tile', 'f32', [32]);
  const abi = k.external(ABI);
  const values = ['bool', 'i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f32', 'f64'].map((t) =>
    valueArg(constant(t as ScalarName, t === 'bool' ? true : t === 'i64' || t === 'u64' ? 7n : 7)),
  );
  const body = [
    exprStmt(flags.store([i64(0)], call(abi, ABI, [...values, pointerArg(x.index), pointerArg(flags.index)]))),
    exprStmt(
      flags.store([i64(1)], call(abi, ABI, [...values, pointerArg(tile.index, 'shared'), pointerArg(flags.index)])),
    ),
  ];
  RESULTS.forEach((r, n) => {
    const index = k.external(r);
    const t = r.returns;
    const arg = valueArg(constant(t, t === 'u64' ? 5n : 5));
    body.push(exprStmt(out.store([i64(n)], convert('f64', call(index, r, [arg])))));
  });
  return k.build(body);
}

it('declares each symbol once, and calls it with the arguments in order', () => {
  const ir = lowerKernel(mulKernel());
  expect(ir.match(/^declare float @mul_f32\(float, float\)$/gm)).toHaveLength(1);
  expect(ir.match(/= call float @mul_f32\(float %t\d+, float 0x4000000000000000\)/g)).toHaveLength(1);
  expect(ir.match(/= call float @mul_f32\(float %t\d+, float 0x4008000000000000\)/g)).toHaveLength(1);
});

it("writes C's ABI: bool zeroext i1, i8/i16 signext, u8/u16 zeroext, arrays as generic pointers (cast from shared)", () => {
  const ir = lowerKernel(abiKernel());
  expect(ir).toContain(
    'declare zeroext i1 @abi_all(i1 zeroext, i8 signext, i8 zeroext, i16 signext, i16 zeroext, i32, i32, i64, i64, float, double, float*, i8*)',
  );
  expect(ir).toMatch(
    /= call zeroext i1 @abi_all\(i1 zeroext true, i8 signext 7, i8 zeroext 7, i16 signext 7, i16 zeroext 7, i32 7, i32 7, i64 7, i64 7, float 0x401C000000000000, double 0x401C000000000000, float\* %p0\.x\.data, i8\* %p1\.flags\.data\)/,
  );
  expect(ir).toMatch(
    /(%t\d+) = addrspacecast float addrspace\(3\)\* getelementptr inbounds \(\[32 x float\], \[32 x float\] addrspace\(3\)\* @shared\$0\$tile, i64 0, i64 0\) to float\*\n.*call zeroext i1 @abi_all\(.*float\* \1, i8\* %p1\.flags\.data\)/,
  );
  expect(ir).toContain('declare signext i8 @ret_i8(i8 signext)');
  expect(ir).toContain('declare zeroext i8 @ret_u8(i8 zeroext)');
  expect(ir).toContain('declare signext i16 @ret_i16(i16 signext)');
  expect(ir).toContain('declare zeroext i16 @ret_u16(i16 zeroext)');
  expect(ir).toContain('declare i32 @ret_u32(i32)');
  expect(ir).toContain('declare i64 @ret_u64(i64)');
  expect(ir).toContain('declare double @ret_f64(double)');
});

it('passes local arrays without a cast and const arrays cast from addrspace(4)', () => {
  const k = new KernelBuilder('memories');
  const out = k.array('out', 'f64');
  const scratch = k.localArray('scratch', 'f32', [4]);
  const table = k.constArray('table', 'f32', [2], [1, 2]);
  const SUM = external('sum_f32', [f32x1, 'i32'], 'f64');
  const sum = k.external(SUM);
  const ir = lowerKernel(
    k.build([
      exprStmt(out.store([i64(0)], call(sum, SUM, [pointerArg(scratch.index, 'local'), valueArg(i32(4))]))),
      exprStmt(out.store([i64(1)], call(sum, SUM, [pointerArg(table.index, 'const'), valueArg(i32(2))]))),
    ]),
  );
  expect(ir).toMatch(/call double @sum_f32\(float\* %m0\.scratch, i32 4\)/);
  expect(ir).toMatch(
    /(%t\d+) = addrspacecast float addrspace\(4\)\* getelementptr inbounds \(\[2 x float\], \[2 x float\] addrspace\(4\)\* @const\$1\$table, i64 0, i64 0\) to float\*/,
  );
});

it('refuses calls that break the contract: another type, another array, an unknown or misnamed external, a conflicting declaration', () => {
  const build = (
    args: Parameters<typeof call>[2],
    declaration: ExternalCall = MUL,
    named: ExternalCall = MUL,
    index = 0,
  ) => {
    const k = new KernelBuilder('bad');
    k.array('x', 'f32');
    k.external(declaration);
    return () => lowerKernel(k.build([exprStmt(call(index, named, args))]));
  };
  expect(build([valueArg(f64(1)), valueArg(f32(2))])).toThrow(/argument 1 of 'mul_f32' is a f32, given a f64/);
  expect(build([valueArg(f32(1))])).toThrow(/'mul_f32' takes 2 argument\(s\), the call gives 1/);
  expect(build([pointerArg(0), valueArg(f32(2))])).toThrow(
    /argument 1 of 'mul_f32' is a f32, given array\(f32, 1, 'C'\)/,
  );
  const SUM64 = external('sum_f64', [arrayType('f64', 1, 'C')], 'f64');
  expect(build([pointerArg(0)], SUM64, SUM64)).toThrow(
    /argument 1 of 'sum_f64' is array\(f64, 1, 'C'\), given array\(f32, 1, 'C'\)/,
  );
  expect(build([valueArg(f32(1)), valueArg(f32(2))], MUL, MUL, 3)).toThrow(
    /call of external 3, which the kernel does not have/,
  );
  expect(build([valueArg(f32(1)), valueArg(f32(2))], MUL, external('other', ['f32', 'f32'], 'f32'))).toThrow(
    /call of 'other' names external 0, which is 'mul_f32'/,
  );
  expect(
    build(
      [valueArg(f32(1)), valueArg(f32(2))],
      external('bad', ['f32', 'f32'], 'f32'),
      external('bad', ['f32', 'f32'], 'f32'),
    ),
  ).toThrow(/external symbol 'bad' is the kernel's own/);
  // two entries of one symbol with different types cannot be declared in one module
  const k = new KernelBuilder('conflict');
  const M64 = external('mul_f32', ['f64', 'f64'], 'f64');
  const a = k.external(MUL);
  const b = k.external(M64);
  const conflict = k.build([
    exprStmt(call(a, MUL, [valueArg(f32(1)), valueArg(f32(2))])),
    exprStmt(call(b, M64, [valueArg(f64(1)), valueArg(f64(2))])),
  ]);
  expect(() => lowerKernel(conflict)).toThrow(/@mul_f32 is declared twice, with different types/);
});

describeWhen(compileRequirements, 'calls of linked code through libNVVM and ptxas', () => {
  it('compile to a call of an .extern .func, which ptxas assembles as relocatable code', () => {
    const { ptx } = compileAndAssemble(mulKernel());
    expect(externFunctions(ptx)).toEqual(['mul_f32']);
    expect(ptx).toMatch(
      /\.extern \.func\s+\(\.param \.b32 func_retval0\) mul_f32\s*\(\s*\.param \.b32 mul_f32_param_0,\s*\.param \.b32 mul_f32_param_1\s*\)/,
    );
    expect(ptx.match(/call\.uni \(retval0\),\s+mul_f32,/g)).toHaveLength(2);
  });

  it('compile every type of the ABI', () => {
    const { ptx } = compileAndAssemble(abiKernel());
    expect(externFunctions(ptx).sort()).toEqual(['abi_all', ...RESULTS.map((r) => r.symbol)].sort());
  });
});

describeWhen(
  [...compileRequirements, nvlinkMissing],
  'calls of linked code, device-linked by nvlink (no driver)',
  () => {
    it('link with the PTX function written by hand', () => {
      const { ptx } = compileAndAssemble(mulKernel());
      expect(deviceLinkRejects([ptx, MUL_F32_PTX])).toBeUndefined();
      // without it, the link says what is missing
      expect(deviceLinkRejects([ptx])).toMatch(/Undefined reference to 'mul_f32'/);
    });

    it('link with a PTX function of another prototype: nvlink refuses it', () => {
      const { ptx } = compileAndAssemble(mulKernel());
      const wide = MUL_F32_PTX.replace('.param .b32 b)', '.param .b64 b)');
      expect(deviceLinkRejects([ptx, wide])).toMatch(/Prototype doesn't match for 'mul_f32'/);
    });

    describeWhen([nvrtcMissing], 'with C functions compiled by NVRTC', () => {
      it('match the prototype of every type, arguments and results', () => {
        const { ptx } = compileAndAssemble(abiKernel());
        const definitions = new TextDecoder().decode(
          new Program(ABI_CUDA, 'c++', { arch: 'sm_90', relocatableDeviceCode: true, name: 'abi.cu' }).compile('ptx')
            .code,
        );
        expect(deviceLinkRejects([ptx, definitions])).toBeUndefined();
      });

      it('and a C function of other types does not', () => {
        const { ptx } = compileAndAssemble(mulKernel());
        const doubled = new TextDecoder().decode(
          new Program('extern "C" __device__ double mul_f32(double a, double b) { return a * b; }', 'c++', {
            arch: 'sm_90',
            relocatableDeviceCode: true,
          }).compile('ptx').code,
        );
        expect(deviceLinkRejects([ptx, doubled])).toMatch(/Prototype doesn't match for 'mul_f32'/);
      });
    });
  },
);
