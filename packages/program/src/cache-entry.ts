import type { ObjectCodeType } from './object-code-type.js';

/** What the compile cache stores for one key: an ObjectCode's bytes and metadata. */
export interface CacheEntry {
  readonly codeType: ObjectCodeType;
  readonly name: string;
  readonly code: Uint8Array;
  /** Name expression → lowered (mangled) name. */
  readonly symbolMapping: Readonly<Record<string, string>>;
  /** What the storer keeps beside the code (the JIT keeps a kernel's launch ABI there); program itself stores none. */
  readonly metadata?: Readonly<Record<string, string>>;
}

/** Bytes the entry occupies in memory, roughly: the code plus its names. */
export function entrySize(entry: CacheEntry): number {
  let size = entry.code.byteLength + entry.name.length * 2 + 64;
  for (const [k, v] of Object.entries(entry.symbolMapping)) size += (k.length + v.length) * 2;
  for (const [k, v] of Object.entries(entry.metadata ?? {})) size += (k.length + v.length) * 2;
  return size;
}
