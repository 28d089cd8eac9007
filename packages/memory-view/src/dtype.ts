import { UnknownDTypeError } from './errors.js';
import { formatValue } from './format-value.js';
import type { DLDataType } from './protocols.js';

/** The `DLDataTypeCode` values of DLPack 1.3. */
export const DLDataTypeCode = {
  Int: 0,
  UInt: 1,
  Float: 2,
  /** Reserved by DLPack for testing: a pointer-sized opaque handle. */
  OpaqueHandle: 3,
  Bfloat: 4,
  Complex: 5,
  /** 8-bit storage per element. */
  Bool: 6,
  Float8_e3m4: 7,
  Float8_e4m3: 8,
  Float8_e4m3b11fnuz: 9,
  Float8_e4m3fn: 10,
  Float8_e4m3fnuz: 11,
  Float8_e5m2: 12,
  Float8_e5m2fnuz: 13,
  Float8_e8m0fnu: 14,
  Float6_e2m3fn: 15,
  Float6_e3m2fn: 16,
  Float4_e2m1fn: 17,
} as const;

/** A `DLDataTypeCode` value. */
export type DLDataTypeCodeValue = (typeof DLDataTypeCode)[keyof typeof DLDataTypeCode];

/**
 * An element type: a DLPack `(code, bits, lanes)` triple with its name, its
 * size in bytes and its CUDA-array-interface type string. Instances are
 * canonical (one object per triple), so `===` compares dtypes.
 */
export class DType implements DLDataType {
  /** Bytes per element, lanes included. Fractional (0.5, 0.75) for packed sub-byte types. */
  readonly itemsize: number;

  /** @internal use {@link dtypeOf} or {@link dtype}: instances are canonical. */
  constructor(
    /** The {@link DLDataTypeCode}. */
    readonly code: number,
    /** Bits of one lane. */
    readonly bits: number,
    /** Vector lanes (1 for scalars). */
    readonly lanes: number,
    /** `float32`, `bfloat16`, `float8_e4m3fn`, `float32x4` (four lanes), ... */
    readonly name: string,
    /**
     * The CUDA-array-interface (numpy) type string: `<f4`, `|u1`, `<c8`, `|b1`.
     * Types that numpy lacks (bfloat16, the float8 kinds, complex32, vectors,
     * the handle) get an opaque `|V<n>` of the right size, which describes the
     * bytes but not the type; packed sub-byte types have none.
     */
    readonly typestr: string | undefined,
  ) {
    this.itemsize = (bits * lanes) / 8;
  }

  /** Whether one element takes less than a whole number of bytes (packed fp4/fp6). */
  get isSubByte(): boolean {
    return (this.bits * this.lanes) % 8 !== 0;
  }

  /** This type with `lanes` lanes (`float32` → `float32x4`). */
  withLanes(lanes: number): DType {
    return dtypeOf(this.code, this.bits, lanes);
  }

  toString(): string {
    return this.name;
  }

  toJSON(): string {
    return this.name;
  }
}

interface BaseType {
  readonly code: number;
  readonly bits: number;
  readonly name: string;
  /** numpy kind letter where numpy has the type. */
  readonly kind?: 'i' | 'u' | 'f' | 'c' | 'b';
}

const BASE_TYPES: readonly BaseType[] = [
  { code: 0, bits: 8, name: 'int8', kind: 'i' },
  { code: 0, bits: 16, name: 'int16', kind: 'i' },
  { code: 0, bits: 32, name: 'int32', kind: 'i' },
  { code: 0, bits: 64, name: 'int64', kind: 'i' },
  { code: 1, bits: 8, name: 'uint8', kind: 'u' },
  { code: 1, bits: 16, name: 'uint16', kind: 'u' },
  { code: 1, bits: 32, name: 'uint32', kind: 'u' },
  { code: 1, bits: 64, name: 'uint64', kind: 'u' },
  { code: 2, bits: 16, name: 'float16', kind: 'f' },
  { code: 2, bits: 32, name: 'float32', kind: 'f' },
  { code: 2, bits: 64, name: 'float64', kind: 'f' },
  { code: 3, bits: 64, name: 'handle' },
  { code: 4, bits: 16, name: 'bfloat16' },
  { code: 5, bits: 32, name: 'complex32' },
  { code: 5, bits: 64, name: 'complex64', kind: 'c' },
  { code: 5, bits: 128, name: 'complex128', kind: 'c' },
  { code: 6, bits: 8, name: 'bool', kind: 'b' },
  { code: 7, bits: 8, name: 'float8_e3m4' },
  { code: 8, bits: 8, name: 'float8_e4m3' },
  { code: 9, bits: 8, name: 'float8_e4m3b11fnuz' },
  { code: 10, bits: 8, name: 'float8_e4m3fn' },
  { code: 11, bits: 8, name: 'float8_e4m3fnuz' },
  { code: 12, bits: 8, name: 'float8_e5m2' },
  { code: 13, bits: 8, name: 'float8_e5m2fnuz' },
  { code: 14, bits: 8, name: 'float8_e8m0fnu' },
  { code: 15, bits: 6, name: 'float6_e2m3fn' },
  { code: 16, bits: 6, name: 'float6_e3m2fn' },
  { code: 17, bits: 4, name: 'float4_e2m1fn' },
];

// Scalar dtypes indexed by [code][bits]: two array loads on the hot path, no hashing.
const SCALARS: (DType | undefined)[][] = [];
const BY_NAME = new Map<string, DType>();
const BY_TYPESTR = new Map<string, DType>();
// Vector dtypes, made on first use, keyed by one number: code, bits and lanes
// are checked to be integers of 8, 8 and 16 bits first, so the key is unique.
const VECTORS = new Map<number, DType>();
// The canonical instances: a look-alike (`Object.create(DType.prototype)`) is not a dtype.
const CANONICAL = new WeakSet<object>();

/** Whether `value` is one of the canonical {@link DType} instances (not merely an object with its prototype). */
export function isDType(value: unknown): value is DType {
  return value !== null && typeof value === 'object' && CANONICAL.has(value);
}

function typestrOf(base: BaseType, lanes: number): string | undefined {
  const bytes = (base.bits * lanes) / 8;
  if (!Number.isInteger(bytes)) return undefined;
  if (lanes === 1 && base.kind) return `${bytes === 1 ? '|' : '<'}${base.kind}${bytes}`;
  return `|V${bytes}`;
}

for (const base of BASE_TYPES) {
  const t = new DType(base.code, base.bits, 1, base.name, typestrOf(base, 1));
  CANONICAL.add(t);
  (SCALARS[base.code] ??= [])[base.bits] = t;
  BY_NAME.set(base.name, t);
  if (base.kind) for (const prefix of ['<', '|', '=']) BY_TYPESTR.set(`${prefix}${base.kind}${t.itemsize}`, t);
}

/** Every scalar (one-lane) dtype, in DLPack code order. */
export const ALL_DTYPES: readonly DType[] = Object.freeze(BASE_TYPES.map((b) => SCALARS[b.code]![b.bits]!));

function isUint(value: unknown, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= max;
}

function unknown(code: number, bits: number, lanes: number): never {
  const known = BASE_TYPES.filter((b) => b.code === code).map((b) => b.bits);
  const detail =
    known.length === 0
      ? `type code ${code} is not a DLPack 1.3 code`
      : `code ${code} takes bits ${known.join('/')}, not ${bits}`;
  throw new UnknownDTypeError(`unknown DLPack dtype (code ${code}, bits ${bits}, lanes ${lanes}): ${detail}`);
}

/** The dtype of a DLPack `(code, bits, lanes)` triple. Throws {@link UnknownDTypeError} for anything DLPack 1.3 does not define. */
export function dtypeOf(code: number, bits: number, lanes = 1): DType {
  if (!isUint(code, 0xff) || !isUint(bits, 0xff) || !isUint(lanes, 0xffff) || lanes === 0) {
    throw new UnknownDTypeError(
      `unknown DLPack dtype (code ${formatValue(code)}, bits ${formatValue(bits)}, lanes ${formatValue(lanes)}): ` +
        'code and bits must be integers from 0 to 255 and lanes must be an integer from 1 to 65535',
    );
  }
  if (lanes === 1) {
    const t = SCALARS[code]?.[bits];
    if (t !== undefined) return t;
    return unknown(code, bits, lanes);
  }
  const key = code + bits * 256 + lanes * 65536;
  const cached = VECTORS.get(key);
  if (cached !== undefined) return cached;
  const scalar = SCALARS[code]?.[bits];
  if (scalar === undefined) return unknown(code, bits, lanes);
  const base = BASE_TYPES.find((b) => b.code === code && b.bits === bits)!;
  const t = new DType(code, bits, lanes, `${scalar.name}x${lanes}`, typestrOf(base, lanes));
  CANONICAL.add(t);
  VECTORS.set(key, t);
  return t;
}

/** Anything that names a dtype: a {@link DType}, a name (`'float32'`, `'int8x4'`) or a DLPack `{ code, bits, lanes }`. */
export type DTypeLike = DType | string | DLDataType;

/** The dtype named by `spec`. Throws {@link UnknownDTypeError} for an unknown name or triple. */
export function dtype(spec: DTypeLike): DType {
  if (isDType(spec)) return spec;
  if (typeof spec === 'string') {
    const t = BY_NAME.get(spec);
    if (t !== undefined) return t;
    const vector = /^(.+)x(\d+)$/.exec(spec);
    const base = vector ? BY_NAME.get(vector[1]!) : undefined;
    if (base && vector) return dtypeOf(base.code, base.bits, Number(vector[2]));
    throw new UnknownDTypeError(
      `unknown dtype name ${formatValue(spec)}; known names: ${[...BY_NAME.keys()].join(', ')} (and <name>x<lanes> for vectors)`,
    );
  }
  if (spec !== null && typeof spec === 'object') {
    // Each field is read once: a getter or a Proxy cannot answer twice.
    const code = spec.code;
    const bits = spec.bits;
    const lanes = spec.lanes;
    return dtypeOf(code, bits, lanes ?? 1);
  }
  throw new UnknownDTypeError(`not a dtype: ${formatValue(spec)}`);
}

/**
 * The dtype of a CUDA-array-interface type string (`<f4`, `|u1`, `<c16`, `|b1`).
 * A map lookup, no parsing. Opaque `V` types and big-endian strings are refused
 * with {@link UnknownDTypeError}.
 */
export function dtypeFromTypestr(typestr: string): DType {
  const t = typeof typestr === 'string' ? BY_TYPESTR.get(typestr) : undefined;
  if (t !== undefined) return t;
  if (typeof typestr === 'string' && typestr.startsWith('>') && typestr.length > 2 && typestr.slice(2) !== '1') {
    throw new UnknownDTypeError(`typestr '${typestr}' is big-endian; only little-endian data can be viewed`);
  }
  if (typeof typestr === 'string' && /^[<>|=]V\d+$/.test(typestr)) {
    throw new UnknownDTypeError(
      `typestr '${typestr}' is opaque bytes: the element type cannot be known from it; use DLPack for bfloat16, float8 and vector types`,
    );
  }
  throw new UnknownDTypeError(
    `unknown typestr ${formatValue(typestr)}; known: ${[...new Set([...BY_TYPESTR.values()].map((d) => d.typestr))].join(', ')}`,
  );
}
