/**
 * C's printf formatting, for the simulator's `print` (typed-ir.ts): the
 * conversions d i u x X o c e E f F g G a A s and %%, with the flags
 * `-`, `+`, space, `#` and `0`, a width and a precision (either may be `*`),
 * and the length modifiers hh h l ll j z t L (which choose 32 or 64 bits
 * for integers, as C's varargs do). Integers are JS numbers (i32, u32) or
 * bigints (i64, u64), floats are numbers (f64). A conversion without an
 * argument left is printed as written.
 */

const CONVERSION = /%([-+ #0]*)(\*|\d+)?(?:\.(\*|\d*))?(hh|h|ll|l|j|z|t|L)?([diuxXocfFeEgGaAsp%])/g;

interface Spec {
  readonly left: boolean;
  readonly plus: boolean;
  readonly space: boolean;
  readonly alt: boolean;
  readonly zero: boolean;
  readonly width: number;
  readonly precision: number | undefined;
}

function pad(text: string, spec: Spec, sign: string, prefix: string, zeroAllowed: boolean): string {
  const body = sign + prefix + text;
  if (body.length >= spec.width) return body;
  if (spec.left) return body + ' '.repeat(spec.width - body.length);
  if (spec.zero && zeroAllowed) return sign + prefix + '0'.repeat(spec.width - body.length) + text;
  return ' '.repeat(spec.width - body.length) + body;
}

function toBigint(value: unknown): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'boolean') return value ? 1n : 0n;
  const n = Number(value);
  return Number.isFinite(n) ? BigInt(Math.trunc(n)) : 0n;
}

function integer(value: unknown, conversion: string, length: string | undefined, spec: Spec): string {
  const wide =
    length === 'l' || length === 'll' || length === 'j' || length === 'z' || length === 't' || length === 'L';
  const bits = wide ? 64 : length === 'h' ? 16 : length === 'hh' ? 8 : 32;
  const signed = conversion === 'd' || conversion === 'i';
  const v = signed ? BigInt.asIntN(bits, toBigint(value)) : BigInt.asUintN(bits, toBigint(value));
  const negative = v < 0n;
  const magnitude = negative ? -v : v;
  const radix = conversion === 'x' || conversion === 'X' ? 16 : conversion === 'o' ? 8 : 10;
  let digits = magnitude.toString(radix);
  if (conversion === 'X') digits = digits.toUpperCase();
  if (spec.precision !== undefined)
    digits = spec.precision === 0 && magnitude === 0n ? '' : digits.padStart(spec.precision, '0');
  let prefix = '';
  if (spec.alt && magnitude !== 0n && radix === 16) prefix = conversion === 'X' ? '0X' : '0x';
  if (spec.alt && radix === 8 && !digits.startsWith('0')) digits = `0${digits}`;
  const sign = negative ? '-' : signed && spec.plus ? '+' : signed && spec.space ? ' ' : '';
  return pad(digits, spec, sign, prefix, spec.precision === undefined);
}

/** A finite non-negative double as m * 2^e, m an integer. */
function decompose(x: number): [bigint, bigint] {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exponent = Number((bits >> 52n) & 0x7ffn);
  const fraction = bits & 0xfffffffffffffn;
  return exponent === 0 ? [fraction, -1074n] : [fraction | (1n << 52n), BigInt(exponent - 1075)];
}

/** round(x * 10^k) exactly, ties to even (as glibc rounds), for x >= 0 finite. */
function scaledRound(x: number, k: number): bigint {
  const [m, e] = decompose(x);
  let num = m;
  let den = 1n;
  if (e >= 0n) num <<= e;
  else den <<= -e;
  if (k >= 0) num *= 10n ** BigInt(k);
  else den *= 10n ** BigInt(-k);
  const q = num / den;
  const twice = (num - q * den) * 2n;
  return twice > den || (twice === den && (q & 1n) === 1n) ? q + 1n : q;
}

/** x >= 0 in fixed notation with `precision` decimals, exactly rounded. */
function fixed(x: number, precision: number, alt: boolean): string {
  const digits = scaledRound(x, precision)
    .toString()
    .padStart(precision + 1, '0');
  const whole = digits.slice(0, digits.length - precision);
  return precision > 0 ? `${whole}.${digits.slice(digits.length - precision)}` : alt ? `${whole}.` : whole;
}

/** x >= 0 as d.ddd (precision digits after the point) and its decimal exponent, exactly rounded. */
function scientific(x: number, precision: number): [string, number] {
  if (x === 0) return ['0'.repeat(precision + 1), 0];
  let e = Number(x.toExponential().split('e')[1]);
  let n = scaledRound(x, precision - e);
  // The shortest form's exponent can be one off (a rounding to a power of ten): correct it.
  if (n < 10n ** BigInt(precision)) n = scaledRound(x, precision - --e);
  if (n >= 10n ** BigInt(precision + 1)) n = scaledRound(x, precision - ++e);
  if (n >= 10n ** BigInt(precision + 1)) {
    n /= 10n;
    e++;
  }
  return [n.toString(), e];
}

/** x >= 0 as C's %e: d.ddde±XX. */
function exponential(x: number, precision: number, alt: boolean): string {
  const [digits, e] = scientific(x, precision);
  const mantissa = precision > 0 ? `${digits[0]}.${digits.slice(1)}` : alt ? `${digits}.` : digits;
  return `${mantissa}e${e < 0 ? '-' : '+'}${String(Math.abs(e)).padStart(2, '0')}`;
}

/** x >= 0 as C's %g: %e's exponent X after rounding to P digits chooses f (P > X >= -4) or e; trailing zeros go unless `#`. */
function general(x: number, precision: number, alt: boolean): string {
  const p = precision === 0 ? 1 : precision;
  const [, e] = scientific(x, p - 1);
  let text = p > e && e >= -4 ? fixed(x, p - 1 - e, alt) : exponential(x, p - 1, alt);
  if (!alt) text = text.replace(/\.(\d*?)0+(e|$)/, (_, kept: string, end: string) => (kept ? `.${kept}${end}` : end));
  return text;
}

/** x >= 0 as C's %a (glibc's form: a rounding may carry into the leading digit, 0x2.0p+0). */
function hexFloat(x: number, precision: number | undefined, upper: boolean): string {
  const [m, e] = decompose(x);
  let lead: bigint;
  let exponent: number;
  if (m === 0n) {
    lead = 0n;
    exponent = 0;
  } else if (m < 1n << 52n) {
    lead = 0n; // subnormal: 0x0.xxxp-1022
    exponent = -1022;
  } else {
    lead = 1n;
    exponent = Number(e) + 52;
  }
  let fraction = m & ((1n << 52n) - 1n);
  let digits: string;
  if (precision !== undefined && precision < 13) {
    const drop = BigInt((13 - precision) * 4);
    const full = (lead << 52n) | fraction;
    let kept = full >> drop;
    const rest = full & ((1n << drop) - 1n);
    const half = 1n << (drop - 1n);
    if (rest > half || (rest === half && (kept & 1n) === 1n)) kept += 1n;
    const bits = BigInt(precision * 4);
    lead = kept >> bits;
    fraction = kept & ((1n << bits) - 1n);
    digits = precision === 0 ? '' : fraction.toString(16).padStart(precision, '0');
  } else {
    digits = fraction.toString(16).padStart(13, '0');
    digits = precision === undefined ? digits.replace(/0+$/, '') : digits.padEnd(precision, '0');
  }
  const text = `0x${lead}${digits ? `.${digits}` : ''}p${exponent < 0 ? '-' : '+'}${Math.abs(exponent)}`;
  return upper ? text.toUpperCase() : text;
}

function float(value: unknown, conversion: string, spec: Spec): string {
  const x = typeof value === 'bigint' ? Number(value) : Number(value);
  const upper = conversion === 'F' || conversion === 'E' || conversion === 'G' || conversion === 'A';
  const negative = x < 0 || Object.is(x, -0);
  const sign = negative ? '-' : spec.plus ? '+' : spec.space ? ' ' : '';
  const a = Math.abs(x);
  if (!Number.isFinite(a)) {
    const text = Number.isNaN(a) ? 'nan' : 'inf';
    return pad(
      upper ? text.toUpperCase() : text,
      spec,
      Number.isNaN(a) ? (spec.plus ? '+' : spec.space ? ' ' : '') : sign,
      '',
      false,
    );
  }
  const precision = spec.precision ?? 6;
  let text: string;
  switch (conversion.toLowerCase()) {
    case 'f':
      text = fixed(a, precision, spec.alt);
      break;
    case 'e':
      text = exponential(a, precision, spec.alt);
      break;
    case 'g':
      text = general(a, precision, spec.alt);
      break;
    default:
      text = hexFloat(a, spec.precision, upper);
      if (text.startsWith('0x') || text.startsWith('0X')) return pad(text.slice(2), spec, sign, text.slice(0, 2), true);
  }
  return pad(upper ? text.toUpperCase() : text, spec, sign, '', true);
}

/** Formats `format` with `args` as C's printf does. */
export function formatPrintf(format: string, args: readonly unknown[]): string {
  let next = 0;
  const take = (): unknown => (next < args.length ? args[next++] : undefined);
  return format.replace(
    CONVERSION,
    (
      whole,
      flags: string,
      width: string | undefined,
      precision: string | undefined,
      length: string | undefined,
      conversion: string,
    ) => {
      if (conversion === '%') return '%';
      const needed = (width === '*' ? 1 : 0) + (precision === '*' ? 1 : 0) + 1;
      if (args.length - next < needed) return whole;
      let w = width === undefined ? 0 : width === '*' ? Number(take()) : Number(width);
      let left = flags.includes('-');
      if (w < 0) {
        left = true;
        w = -w;
      }
      let p: number | undefined =
        precision === undefined ? undefined : precision === '*' ? Number(take()) : Number(precision || 0);
      if (p !== undefined && p < 0) p = undefined;
      const spec: Spec = {
        left,
        plus: flags.includes('+'),
        space: flags.includes(' '),
        alt: flags.includes('#'),
        zero: flags.includes('0') && !left,
        width: w,
        precision: p,
      };
      const value = take();
      switch (conversion) {
        case 'd':
        case 'i':
        case 'u':
        case 'x':
        case 'X':
        case 'o':
          return integer(value, conversion, length, spec);
        case 'c':
          return pad(String.fromCharCode(Number(toBigint(value) & 0xffn)), spec, '', '', false);
        case 's':
        case 'p':
          return pad(String(value), spec, '', '', false);
        default:
          return float(value, conversion, spec);
      }
    },
  );
}
