import { createHash, type Hash } from 'node:crypto';

/** What a cache key is made of: JSON-like values, with bytes hashed by content. */
export type KeyPart = string | number | boolean | null | undefined | Uint8Array | readonly KeyPart[] | { readonly [key: string]: KeyPart };

// Every value is written with a type tag and, where it has one, a length, so
// that different structures can never encode to the same byte stream.
function feed(hash: Hash, part: KeyPart): void {
  if (part === undefined) hash.update('u;');
  else if (part === null) hash.update('n;');
  else if (typeof part === 'boolean') hash.update(part ? 't;' : 'f;');
  else if (typeof part === 'number') hash.update(`d${String(part)};`);
  else if (typeof part === 'string') hash.update(`s${Buffer.byteLength(part)}:`).update(part);
  else if (part instanceof Uint8Array) hash.update(`b${part.byteLength}:`).update(part);
  else if (Array.isArray(part)) {
    hash.update(`a${part.length}:`);
    for (const item of part as readonly KeyPart[]) feed(hash, item);
  } else {
    const entries = Object.entries(part as Record<string, KeyPart>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    hash.update(`o${entries.length}:`);
    for (const [k, v] of entries) {
      feed(hash, k);
      feed(hash, v);
    }
  }
}

/**
 * A SHA-256 (hex) of `parts`. Object keys are sorted and `undefined` entries
 * dropped, so `{ a: 1, b: undefined }` and `{ a: 1 }` give the same key.
 */
export function cacheKey(parts: KeyPart): string {
  const hash = createHash('sha256');
  feed(hash, parts);
  return hash.digest('hex');
}

/** An options object (booleans, numbers, strings and arrays of them) as a key part. */
export function optionsKey(options: object): KeyPart {
  return options as { readonly [key: string]: KeyPart };
}
