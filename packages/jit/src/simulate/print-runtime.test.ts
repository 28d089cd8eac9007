import { afterEach, describe, expect, test } from 'vitest';
import {
  KernelBuilder,
  NO_POSITIONS,
  binary,
  compare,
  convert,
  expr,
  f64,
  get,
  i32,
  i64,
  print,
  set,
  special,
  syncthreads,
  u32,
  u64,
  when,
} from './ir-builders.test-support.js';
import { formatPrintf } from './print-runtime.js';
import { SimulatedKernel } from './simulated-kernel.js';
import { setSimulatorPrintSink } from './simulator-runtime.js';

describe('formatPrintf is C printf', () => {
  // Each expected text is what glibc's printf printed for the same format and arguments (gcc 12).
  const cases: [string, unknown[], string][] = [
    ['%d', [42], '42'],
    ['%d', [-7], '-7'],
    ['%5d|', [42], '   42|'],
    ['%-5d|', [42], '42   |'],
    ['%05d', [-42], '-0042'],
    ['%+d', [5], '+5'],
    ['% d', [5], ' 5'],
    ['%.3d', [7], '007'],
    ['%.0d|', [0], '|'],
    ['%u', [4294967295], '4294967295'],
    ['%x', [255], 'ff'],
    ['%X', [48879], 'BEEF'],
    ['%#x', [255], '0xff'],
    ['%#o', [8], '010'],
    ['%o', [8], '10'],
    ['%08x', [3735928559], 'deadbeef'],
    ['%lld', [-9223372036854775808n], '-9223372036854775808'],
    ['%llu', [18446744073709551615n], '18446744073709551615'],
    ['%ld', [1234567890123n], '1234567890123'],
    ['%lx', [18446744073709551615n], 'ffffffffffffffff'],
    ['%20lld|', [-5n], '                  -5|'],
    ['%f', [3.24159265358979], '3.241593'],
    ['%.2f', [2.675], '2.67'],
    ['%10.3f|', [-1.5], '    -1.500|'],
    ['%-10.1f|', [2.25], '2.2       |'],
    ['%+.1f', [0.05], '+0.1'],
    ['%f', [1e22], '10000000000000000000000.000000'],
    ['%.0f', [0.5], '0'],
    ['%.0f', [1.5], '2'],
    ['%#.0f', [3], '3.'],
    ['%f', [-0], '-0.000000'],
    ['%010.2f', [-3.24159], '-000003.24'],
    ['%e', [12345.678], '1.234568e+04'],
    ['%.2e', [0.000123], '1.23e-04'],
    ['%E', [1e100], '1.000000E+100'],
    ['%e', [0], '0.000000e+00'],
    ['%.0e', [5e-300], '5e-300'],
    ['%12.4e|', [-1.0], ' -1.0000e+00|'],
    ['%g', [100000], '100000'],
    ['%g', [1000000], '1e+06'],
    ['%g', [0.0001], '0.0001'],
    ['%g', [1e-5], '1e-05'],
    ['%g', [3.25159265], '3.25159'],
    ['%.3g', [1234.5], '1.23e+03'],
    ['%G', [1e-10], '1E-10'],
    ['%#g', [1.5], '1.50000'],
    ['%g', [0], '0'],
    ['%.10g', [0.1], '0.1'],
    ['%g', [123456789], '1.23457e+08'],
    ['%f %F', [Infinity, -Infinity], 'inf -INF'],
    ['%e %g', [NaN, Infinity], 'nan inf'],
    ['%5.1f|', [NaN], '  nan|'],
    ['%a', [1.0], '0x1p+0'],
    ['%a', [0.5], '0x1p-1'],
    ['%a', [3.0], '0x1.8p+1'],
    ['%a', [0.1], '0x1.999999999999ap-4'],
    ['%.2a', [1.0], '0x1.00p+0'],
    ['%.1a', [1.96875], '0x2.0p+0'],
    ['%A', [255.5], '0X1.FFP+7'],
    ['%a', [0], '0x0p+0'],
    ['%c%c', [72, 105], 'Hi'],
    ['100%%', [], '100%'],
    ['%d %d %d', [1, 2, 3], '1 2 3'],
    ['%*d|', [6, 42], '    42|'],
    ['%-*d|', [6, 42], '42    |'],
    ['%.*f', [2, 2.34567], '2.35'],
    ['%hhd', [300], '44'],
    ['%hu', [70000], '4464'],
    ['%i', [-12], '-12'],
  ];
  for (const [format, args, expected] of cases) {
    test(`${format} of ${args.map(String).join(', ') || 'nothing'}`, () => {
      expect(formatPrintf(format, args)).toBe(expected);
    });
  }

  test('exact rounding of doubles with many digits, and long precisions', () => {
    expect(formatPrintf('%.20f', [0.1])).toBe('0.10000000000000000555');
    expect(formatPrintf('%.17g', [0.1])).toBe('0.10000000000000001');
    expect(formatPrintf('%.3e', [9.9995])).toBe('9.999e+00'); // 9.9995 is below ...5 in binary
    expect(formatPrintf('%.0e', [9.5])).toBe('1e+01'); // a tie, to even: 10
    expect(formatPrintf('%e', [1e23])).toBe('1.000000e+23');
    expect(formatPrintf('%.0f', [2.5])).toBe('2');
    expect(formatPrintf('%f', [5e-324])).toBe('0.000000');
    expect(formatPrintf('%g', [5e-324])).toBe('4.94066e-324');
  });

  test('a conversion without an argument left is printed as written; extra arguments are ignored', () => {
    expect(formatPrintf('%d and %d', [1])).toBe('1 and %d');
    expect(formatPrintf('no conversions\n', [1, 2])).toBe('no conversions\n');
  });

  test('integers take the width that the length modifier names, as varargs do', () => {
    expect(formatPrintf('%d', [2n ** 32n + 5n])).toBe('5');
    expect(formatPrintf('%u', [-1])).toBe('4294967295');
    expect(formatPrintf('%lld', [-3])).toBe('-3');
    expect(formatPrintf('%llu', [-1n])).toBe('18446744073709551615');
  });
});

describe('print statements in kernels', () => {
  afterEach(() => {
    setSimulatorPrintSink(undefined);
  });

  test('each thread prints at once, in the order the threads run, into the sink given to the kernel', () => {
    const b = new KernelBuilder();
    const x = b.local('x', 'f64');
    const kernel = b.build([
      expr(set(x, binary('mul', convert('f64', special('tid.x')), f64(0.5)))),
      print('thread %d of block %u: %.2f %lld %llu\n', [
        special('tid.x'),
        convert('u32', special('ctaid.x')),
        get(x, 'f64'),
        i64(-(2n ** 62n)),
        u64(2n ** 64n - 1n),
      ]),
    ]);
    const lines: string[] = [];
    new SimulatedKernel(kernel, NO_POSITIONS, { print: (text) => lines.push(text) }).run([2, 1, 1], [2, 1, 1], []);
    expect(lines).toEqual([
      'thread 0 of block 0: 0.00 -4611686018427387904 18446744073709551615\n',
      'thread 1 of block 0: 0.50 -4611686018427387904 18446744073709551615\n',
      'thread 0 of block 1: 0.00 -4611686018427387904 18446744073709551615\n',
      'thread 1 of block 1: 0.50 -4611686018427387904 18446744073709551615\n',
    ]);
  });

  test('in lockstep mode, between barriers; through the module sink when the kernel has none', () => {
    const b = new KernelBuilder();
    const kernel = b.build([
      print('a%d ', [special('tid.x')]),
      syncthreads(),
      when(compare('eq', special('tid.x'), i32(0)), [print('b%u\n', [u32(7)])]),
    ]);
    const out: string[] = [];
    setSimulatorPrintSink((text) => out.push(text));
    new SimulatedKernel(kernel, NO_POSITIONS).run([1, 1, 1], [3, 1, 1], []);
    expect(out.join('')).toBe('a0 a1 a2 b7\n');
  });
});
