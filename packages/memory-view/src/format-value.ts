/**
 * A short description of any value for an error message, that never throws:
 * no `JSON.stringify` (bigints and cycles throw there), no `toString` of the
 * caller's objects (which may throw or lie), and a bounded length.
 */
export function formatValue(value: unknown, depth = 0): string {
  switch (typeof value) {
    case 'string':
      return value.length > 80 ? `'${escapeText(value.slice(0, 77))}...'` : `'${escapeText(value)}'`;
    case 'number':
      return Object.is(value, -0) ? '-0' : String(value);
    case 'bigint':
      return `${value}n`;
    case 'boolean':
    case 'undefined':
      return String(value);
    case 'symbol':
      return 'a symbol';
    case 'function':
      return 'a function';
    default:
      break;
  }
  if (value === null) return 'null';
  let isArray = false;
  try {
    isArray = Array.isArray(value);
  } catch {
    return 'a revoked proxy';
  }
  if (isArray && depth === 0) {
    try {
      const array = value as unknown[];
      const n = array.length;
      if (typeof n !== 'number' || n > 8) return `an array of ${typeof n === 'number' ? n : '?'} entries`;
      const parts: string[] = [];
      for (let i = 0; i < n; i++) parts.push(formatValue(array[i], depth + 1));
      return `[${parts.join(', ')}]`;
    } catch {
      return 'an array';
    }
  }
  if (isArray) return 'an array';
  return describeObject(value as object);
}

/** `a`/`an` before a word: by its first letter, as a reader says it (`an Int32Array`, `a Uint8Array`, `an Apache Arrow vector`). */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) && !/^u(?:int|ni|s)/i.test(noun) ? 'an' : 'a'} ${noun}`;
}

// An object by what it is, never by its own toString: a built-in by its tag
// (`a Float32Array`, `a Map`), an instance by its class (`an instance of Matrix`),
// a plain object by its first keys (`an object { not, shape }`); a Proxy whose
// traps throw, or a getter of Symbol.toStringTag that throws, falls back to `an object`.
function describeObject(value: object): string {
  try {
    const tag = Object.prototype.toString.call(value).slice(8, -1);
    if (tag !== 'Object' && /^[\w$ .-]{1,40}$/.test(tag)) return withArticle(tag);
    const proto = Object.getPrototypeOf(value) as object | null;
    if (proto !== null && proto !== Object.prototype) {
      const ctor = Object.getOwnPropertyDescriptor(proto, 'constructor')?.value as unknown;
      const name = typeof ctor === 'function' ? Object.getOwnPropertyDescriptor(ctor, 'name')?.value : undefined;
      if (typeof name === 'string' && /^[\w$]{1,40}$/.test(name)) return `an instance of ${name}`;
    }
    const keys = Object.keys(value);
    if (keys.length === 0) return proto === null ? 'an empty object with no prototype' : 'an empty object';
    const shown = keys
      .slice(0, 4)
      .map((k) => (/^[\w$]{1,30}$/.test(k) ? k : formatValue(k.length > 30 ? `${k.slice(0, 27)}...` : k, 1)));
    return `an object { ${shown.join(', ')}${keys.length > 4 ? ', ...' : ''} }`;
  } catch {
    return 'an object';
  }
}

function escapeText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this escapes
  return text.replace(/[\u0000-\u001f'\\]/g, (c) =>
    c === "'" ? "\\'" : c === '\\' ? '\\\\' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );
}
