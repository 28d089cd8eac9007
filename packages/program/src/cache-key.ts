import { createHash, type Hash } from 'node:crypto';

/** What a cache key is made of: JSON-like values, with bytes hashed by content. */
export type KeyPart =
  | string
  | number
  | boolean
  | null
  | undefined
  | Uint8Array
  | readonly KeyPart[]
  | { readonly [key: string]: KeyPart };

// Every value is written with a type tag and, where it has one, a length, so
// that different structures can never encode to the same byte stream. The
// text is gathered and hashed in one update per run of text (bytes break a
// run): the same bytes as one update per piece, since every string sits
// between ASCII tags, at a fraction of the calls into OpenSSL.
class KeyWriter {
  #text: string[] = [];
  constructor(private readonly hash: Hash) {}

  text(piece: string): void {
    this.#text.push(piece);
  }

  bytes(piece: Uint8Array): void {
    this.flush();
    this.hash.update(piece);
  }

  flush(): void {
    if (this.#text.length === 0) return;
    this.hash.update(this.#text.join(''));
    this.#text = [];
  }
}

function feed(out: KeyWriter, part: KeyPart): void {
  if (part === undefined) out.text('u;');
  else if (part === null) out.text('n;');
  else if (typeof part === 'boolean') out.text(part ? 't;' : 'f;');
  else if (typeof part === 'number') out.text(`d${String(part)};`);
  else if (typeof part === 'string') {
    out.text(`s${Buffer.byteLength(part)}:`);
    out.text(part);
  } else if (part instanceof Uint8Array) {
    out.text(`b${part.byteLength}:`);
    out.bytes(part);
  } else if (Array.isArray(part)) {
    out.text(`a${part.length}:`);
    for (const item of part as readonly KeyPart[]) feed(out, item);
  } else {
    const record = part as Record<string, KeyPart>;
    // the default sort orders by UTF-16 code units, as `<` does
    const names = Object.keys(record)
      .filter((k) => record[k] !== undefined)
      .sort();
    out.text(`o${names.length}:`);
    for (const k of names) {
      feed(out, k);
      feed(out, record[k]);
    }
  }
}

/**
 * A SHA-256 (hex) of `parts`. Object keys are sorted and `undefined` entries
 * dropped, so `{ a: 1, b: undefined }` and `{ a: 1 }` give the same key.
 */
export function cacheKey(parts: KeyPart): string {
  const hash = createHash('sha256');
  const out = new KeyWriter(hash);
  feed(out, parts);
  out.flush();
  return hash.digest('hex');
}

/** An options object (booleans, numbers, strings and arrays of them) as a key part. */
export function optionsKey(options: object): KeyPart {
  return options as { readonly [key: string]: KeyPart };
}
