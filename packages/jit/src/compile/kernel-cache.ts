// The JIT's first-level disk-cache entries: a kernel's cubin with its launch
// ABI, keyed by what the kernel is made of before it is typed (its text,
// every captured constant, the text of every device function it may call,
// the linked code, the signature, the compile options with the architecture,
// and the package versions). A hit then loads machine code without typing,
// lowering, loading libNVVM or running ptxas: the JIT's answer to numba's
// cache, whose key misses callees and globals. The toolchain's identity
// (the libNVVM file that compiled the entry: path, size, modification time)
// is kept in the entry and checked on every hit, so an upgraded toolkit
// compiles again. The second level, program's own cache of the PTX and
// cubin keyed by the NVVM IR, still serves a miss here whose IR is known.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheKey, nvvmToolchain, ObjectCode, type CompileCache, type KeyPart } from '@cuda-js/program';
import { deviceFunctionOf, type KernelConstant } from '../device-function.js';
import { ExternalDeviceFunction, type LinkInput } from '../external-device-function.js';
import { makerType } from '../typing/signature.js';
import { arrayType, isScalarName, pointerType, type ArrayType } from '../typing/jit-types.js';
import type { ArrayUse, KernelCollectives, KernelParam } from '../typing/typed-ir.js';
import { moduleFile } from '../module-file.js';

/** Bumped when the entry's metadata changes shape. */
const ENTRY_FORMAT = 1;

/**
 * The version of the package in the nearest package.json named `name` above
 * this module. The shipped layout (this module bundled into dist/index.js)
 * is tried first and alone, so a cache hit reads one small file and throws
 * nothing; the per-module build (dist/compile/) walks up.
 */
function packageVersion(name: string): string {
  const here = dirname(moduleFile(import.meta.url));
  const shipped = versionIn(join(here, '..'), name);
  if (shipped !== undefined) return shipped;
  let dir = here;
  for (let i = 0; i < 6; i++) {
    const version = versionIn(dir, name);
    if (version !== undefined) return version;
    dir = dirname(dir);
  }
  return 'unknown';
}

function versionIn(dir: string, name: string): string | undefined {
  const path = join(dir, 'package.json');
  if (!existsSync(path)) return undefined;
  try {
    const json = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; version?: string };
    return json.name === name ? String(json.version) : undefined;
  } catch {
    return undefined; // unreadable: go up
  }
}

// Written by the package's build (tooling/scripts/bundle-entry.mjs); absent when the sources run unbundled (tests).
declare const __CUDA_JS_PACKAGE_VERSION__: string | undefined;

/**
 * The version of `@cuda-js/jit` that this module belongs to: the one its
 * build wrote into it (an app bundle that inlines the JIT has no
 * package.json to read), else the nearest package.json's.
 */
export function jitVersion(): string {
  return (jitVersionCached ??=
    typeof __CUDA_JS_PACKAGE_VERSION__ === 'string' ? __CUDA_JS_PACKAGE_VERSION__ : packageVersion('@cuda-js/jit'));
}
let jitVersionCached: string | undefined;

let versions: KeyPart | undefined;
function packageVersions(): KeyPart {
  return (versions ??= { jit: jitVersion(), format: ENTRY_FORMAT });
}

/** A constant as a key part: by value, by bytes, or by source for device functions (recursively). */
function constantPart(value: KernelConstant, seen: Set<unknown>): KeyPart {
  if (typeof value === 'number') return ['number', Object.is(value, -0) ? '-0' : String(value)];
  if (typeof value === 'bigint') return ['bigint', value.toString()];
  if (typeof value === 'boolean') return ['boolean', value];
  const device = deviceFunctionOf(value);
  if (device) {
    if (seen.has(device)) return ['device', device.name, 'recursive'];
    seen.add(device);
    // its declared return type too: the same text with another `returns` compiles differently
    return ['device', device.parsed.source, device.returns ?? '', constantsPart(device.constants, seen)];
  }
  if (value instanceof ExternalDeviceFunction) {
    return [
      'external',
      value.symbol,
      value.args.map((t) => (typeof t === 'string' ? t : t.name)),
      value.returns,
      value.link.map(linkPart),
    ];
  }
  if (typeof value === 'function') return ['dtype', makerType(value) ?? `function ${value.name}`];
  if (ArrayBuffer.isView(value))
    return ['array', value.constructor.name, new Uint8Array(value.buffer, value.byteOffset, value.byteLength)];
  if (Array.isArray(value)) return ['list', value.map((v) => (typeof v === 'bigint' ? `${v}n` : String(v)))];
  return ['other', String(value)];
}

function linkPart(input: LinkInput): KeyPart {
  if (input instanceof ObjectCode) return ['object', input.codeType, input.code];
  // the include folders by name, as program's compile cache keys them (not the files in them)
  if ('cuda' in input) return ['cuda', input.cuda, [...(input.includePaths ?? [])], { ...(input.headers ?? {}) }];
  return ['ptx', input.ptx];
}

/** The constants of a kernel as a key part: numbers by value, arrays by bytes, device functions by their text (recursively). */
export function constantsPart(
  constants: Readonly<Record<string, KernelConstant>>,
  seen: Set<unknown> = new Set(),
): KeyPart {
  const out: Record<string, KeyPart> = {};
  for (const [name, value] of Object.entries(constants)) out[name] = constantPart(value, seen);
  return out;
}

export interface KernelSourceKeyInput {
  /** The kernel's text (`fn.toString()`). */
  readonly source: string;
  readonly constants: Readonly<Record<string, KernelConstant>>;
  /** The signature's key (`signatureKey`). */
  readonly signature: string;
  /** The kernel's symbol. */
  readonly symbol: string;
  /** The compile options that change the code, the architecture resolved. */
  readonly options: Readonly<Record<string, string | number | boolean | undefined>>;
}

/** The first-level key of a kernel specialization (a hex digest). */
export function kernelSourceKey(input: KernelSourceKeyInput): string {
  return cacheKey({
    kind: 'cuda-js jit kernel',
    versions: packageVersions(),
    source: input.source,
    constants: constantsPart(input.constants, new Set()),
    signature: input.signature,
    symbol: input.symbol,
    options: input.options,
  });
}

/** What a first-level entry gives back. */
export interface CachedKernel {
  readonly symbol: string;
  readonly params: readonly KernelParam[];
  readonly collectives: KernelCollectives;
  /** The cubin. */
  readonly code: Uint8Array;
}

interface ToolchainStamp {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

function stampOf(path: string | undefined): ToolchainStamp | undefined {
  if (path === undefined) return undefined;
  try {
    const s = statSync(path);
    return { path, size: s.size, mtimeMs: s.mtimeMs };
  } catch {
    return undefined;
  }
}

function sameStamp(a: ToolchainStamp | undefined, b: unknown): boolean {
  const o = b as Partial<ToolchainStamp> | null;
  return (
    a !== undefined &&
    o !== null &&
    typeof o === 'object' &&
    a.path === o.path &&
    a.size === o.size &&
    a.mtimeMs === o.mtimeMs
  );
}

/** The entry of `key` when it is whole and was compiled by the libNVVM that is there now; else undefined (a miss). */
export function readCachedKernel(cache: CompileCache, key: string): CachedKernel | undefined {
  const entry = cache.get(key);
  if (entry?.codeType !== 'cubin' || entry.metadata === undefined) return undefined;
  try {
    const abi = JSON.parse(entry.metadata['abi'] ?? '') as { symbol: unknown; params: unknown; collectives: unknown };
    const stamp = JSON.parse(entry.metadata['toolchain'] ?? 'null') as unknown;
    if (!sameStamp(stampOf((stamp as { path?: string } | null)?.path), stamp)) return undefined;
    const params = decodeParams(abi.params);
    const collectives = decodeCollectives(abi.collectives);
    if (typeof abi.symbol !== 'string' || !params || !collectives) return undefined;
    return { symbol: abi.symbol, params, collectives, code: entry.code };
  } catch {
    return undefined; // damaged metadata: compile again
  }
}

/** Stores a compiled specialization (its cubin) under `key`, stamped with the libNVVM that compiled it. */
export function writeCachedKernel(cache: CompileCache, key: string, kernel: CachedKernel): void {
  const stamp = stampOf(nvvmToolchain().path);
  if (!stamp) return; // an unknown toolchain cannot be checked on a hit: keep nothing
  const abi = { symbol: kernel.symbol, params: kernel.params, collectives: kernel.collectives };
  cache.set(key, {
    codeType: 'cubin',
    name: kernel.symbol,
    code: kernel.code,
    symbolMapping: {},
    metadata: { abi: JSON.stringify(abi), toolchain: JSON.stringify(stamp) },
  });
}

/** Launch parameters read back from JSON, or undefined where they are not well formed. */
export function decodeParams(value: unknown): KernelParam[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const out: KernelParam[] = [];
  for (const p of value as Record<string, unknown>[]) {
    if (p === null || typeof p !== 'object' || typeof p['name'] !== 'string') return undefined;
    if (p['kind'] === 'scalar' && isScalarName(p['type']) && Number.isInteger(p['local'])) {
      out.push({ kind: 'scalar', name: p['name'], type: p['type'], local: p['local'] as number });
      continue;
    }
    const t = p['type'] as Partial<ArrayType> | null;
    const use = p['use'] as Partial<ArrayUse> | null;
    if (p['kind'] !== 'array' || t === null || typeof t !== 'object' || use === null || typeof use !== 'object')
      return undefined;
    if (
      !isScalarName(t.dtype) ||
      (t.ndim !== 1 && t.ndim !== 2 && t.ndim !== 3) ||
      (t.layout !== 'C' && t.layout !== 'F' && t.layout !== 'A')
    )
      return undefined;
    const flags = [use.shape, use.strides, use.written, t.readonly];
    if (!flags.every((f) => typeof f === 'boolean')) return undefined;
    out.push({
      kind: 'array',
      name: p['name'],
      type:
        t.pointer === true && t.ndim === 1 && t.layout === 'C'
          ? pointerType(t.dtype)
          : arrayType(t.dtype, t.ndim, t.layout, t.readonly === true),
      use: { shape: use.shape === true, strides: use.strides === true, written: use.written === true },
    });
  }
  return out;
}

/** Collectives read back from JSON, or undefined where they are not well formed. */
export function decodeCollectives(value: unknown): KernelCollectives | undefined {
  const c = value as Partial<KernelCollectives> | null;
  if (
    c === null ||
    typeof c !== 'object' ||
    typeof c.block !== 'boolean' ||
    typeof c.warp !== 'boolean' ||
    typeof c.grid !== 'boolean'
  )
    return undefined;
  return { block: c.block, warp: c.warp, grid: c.grid };
}
