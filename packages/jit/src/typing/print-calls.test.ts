import { describe, expect, it } from 'vitest';
import { cuda } from '../cuda.js';
import { KernelTypeError } from '../errors.js';
import { array } from './signature.js';
import { MarkedLines, onlyNodeOf, typed, typingError, withoutLocs } from './typer.test-support.js';

const here = new MarkedLines(import.meta.url);
const f32x1 = array('f32', 1);

describe('cuda.printf', () => {
  it('keeps the format; f32 args become f64, small integers and bools i32, literals take the conversion', () => {
    const k = typed(
      (x: Float32Array, small: Uint8Array, big: BigInt64Array) => {
        const i = cuda.grid(1);
        cuda.printf('%d %5.2f|%u %lld %llu %x %% %e %c\n', i, x[i], small[i], big[i], 7, i > 0, 1, 65);
      },
      [f32x1, array('u8', 1), array('i64', 1)],
    );
    const print = onlyNodeOf(k.body, 'print');
    expect(print.format).toBe('%d %5.2f|%u %lld %llu %x %% %e %c\n');
    expect(withoutLocs(print.args).map((a) => [a.op, a.type])).toEqual([
      ['local', 'i32'],
      ['convert', 'f64'],
      ['convert', 'i32'],
      ['load', 'i64'],
      ['const', 'u64'],
      ['convert', 'i32'],
      ['const', 'f64'],
      ['const', 'i32'],
    ]);
    expect(print.args[4]).toMatchObject({ value: 7n });
  });

  it('widens 32-bit integers for 64-bit conversions, refuses narrowing and mismatched kinds', () => {
    const k = typed(
      (n: number, u: number) => {
        cuda.printf('%ld %lu\n', n, u);
      },
      ['i32', 'u32'],
    );
    expect(onlyNodeOf(k.body, 'print').args.map((a) => [a.op, a.type])).toEqual([
      ['convert', 'i64'],
      ['convert', 'u64'],
    ]);
    const narrow = typingError(
      (n: bigint) => {
        cuda.printf('%d\n', n); // P-narrow
      },
      ['i64'],
    );
    expect(narrow).toBeInstanceOf(KernelTypeError);
    expect(narrow.detail).toBe('printf: %d prints a 32-bit integer, the argument is i64: write %lld');
    here.expectAt(narrow, 'P-narrow', 'n)');
    expect(() =>
      typed(
        (x: number) => {
          cuda.printf('%d\n', x);
        },
        ['f64'],
      ),
    ).toThrow(/printf: %d prints an integer, the argument is f64: write %f, or convert it: cuda\.i32\(x\)/);
    expect(() =>
      typed(
        (n: number) => {
          cuda.printf('%f\n', n);
        },
        ['i32'],
      ),
    ).toThrow(/printf: %f prints a float, the argument is i32: write %d, or convert it: cuda\.f64\(x\)/);
  });

  it('checks the format: a string literal, one argument per conversion, conversions printf has', () => {
    const count = typingError(
      (n: number) => {
        cuda.printf('%d %d\n', n); // P-count
      },
      ['i32'],
    );
    expect(count.detail).toBe('printf: the format has 2 conversion(s), 1 argument(s) given');
    here.expectAt(count, 'P-count', 'cuda.printf');
    const cases: [string, RegExp][] = [
      ['%s', /%s is not supported \(strings are no values in kernels\)/],
      ['%*d', /'\*' widths and precisions \(%\*d\) are not supported/],
      ['%Lf', /the length 'L' \(%Lf\) is not supported/],
      ['%y', /'%y' is not a conversion printf has/],
      ['100%', /the format ends in an unfinished conversion '%'/],
    ];
    for (const [format, message] of cases) {
      expect(() =>
        typed(
          (n: number) => {
            cuda.printf(FORMAT, n);
          },
          ['i32'],
          { FORMAT: format as unknown as number },
        ),
      ).toThrow(/cuda\.printf's format is a string literal/);
      expect(() =>
        typed(new Function('n', `cuda.printf(${JSON.stringify(format)}, n);`) as (n: number) => void, ['i32']),
      ).toThrow(message);
    }
  });
});

const FORMAT = '';

describe('console.log', () => {
  it('makes the format from the types: text and constants as JavaScript writes them, values by conversion', () => {
    const k = typed(
      (x: Float32Array, d: Float64Array, big: BigUint64Array, n: number) => {
        const i = cuda.grid(1);
        console.log('x[', i, '] =', x[i], d[i], big[i], n, 100, 0.5, true, i > 2, '50%');
      },
      [f32x1, array('f64', 1), array('u64', 1), 'u32'],
    );
    const print = onlyNodeOf(k.body, 'print');
    expect(print.format).toBe('x[ %d ] = %.7g %.15g %llu %u 100 0.5 true %d 50%%\n');
    expect(print.args.map((a) => [a.op, a.type])).toEqual([
      ['local', 'i32'],
      ['convert', 'f64'],
      ['load', 'f64'],
      ['load', 'u64'],
      ['local', 'u32'],
      ['convert', 'i32'],
    ]);
    const empty = typed(() => {
      console.log();
    }, []);
    expect(withoutLocs(empty.body)).toEqual([{ op: 'print', format: '\n', args: [] }]);
  });

  it('is a statement: it gives no value', () => {
    const error = typingError(
      (x: Float32Array) => {
        x[0] = console.log(x[0]) as unknown as number; // P-value
      },
      [f32x1],
    );
    expect(error.detail).toBe('console.log(...) gives no value: call it as a statement');
    here.expectAt(error, 'P-value', 'console.log');
  });

  it('strings are refused outside printing', () => {
    expect(() =>
      typed(
        (x: Float32Array) => {
          x[0] = 'a' as unknown as number;
        },
        [f32x1],
      ),
    ).toThrow(/strings \(other than the text of cuda\.printf and console\.log\) is not supported in kernels/);
  });
});
