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
  return `an object (${Object.prototype.toString.call(value)})`;
}

function escapeText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this escapes
  return text.replace(/[\u0000-\u001f'\\]/g, (c) => (c === "'" ? "\\'" : c === '\\' ? '\\\\' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`));
}
