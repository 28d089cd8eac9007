import { readFileSync } from 'node:fs';

/**
 * The public functions that a `cuda.h` declares, read from the header text
 * itself (comments dropped, the `__CUDA_API_VERSION_INTERNAL` sections left
 * out, `#define cuX cuX_v2` spellings folded into `cuX`). Used by the coverage
 * test, independently of the generator's own parser.
 */
export function cudaHeaderFunctions(headerPath: string): string[] {
  const raw = readFileSync(headerPath, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/\/\/.*$/gm, '');
  let depth = 0;
  let skipAt = -1; // depth of the internal section being skipped; < -1 while in its #else
  const kept: string[] = [];
  for (const line of raw.split('\n')) {
    const t = line.trim();
    if (/^#\s*if/.test(t)) {
      depth++;
      if (skipAt === -1 && /__CUDA_API_VERSION_INTERNAL/.test(t) && !/!\s*defined/.test(t)) skipAt = depth;
    } else if (/^#\s*else/.test(t)) {
      if (skipAt === depth) skipAt = -2 - depth;
      else if (skipAt === -2 - depth) skipAt = depth;
    } else if (/^#\s*endif/.test(t)) {
      if (skipAt === depth || skipAt === -2 - depth) skipAt = -1;
      depth--;
    } else if (skipAt < 0) {
      kept.push(line);
    }
  }
  const text = kept.join('\n');
  const spelled = new Map<string, string>();
  for (const m of text.matchAll(/^\s*#define\s+(cu\w+)\s+(?:__CUDA_API_PT(?:DS|SZ)\((cu\w+)\)|(cu\w+))\s*$/gm)) {
    const target = (m[2] ?? m[3])!;
    if (target.replace(/_v\d+$/, '') === m[1]) spelled.set(target, m[1]!);
  }
  const names = new Set([...text.matchAll(/CUDAAPI\s+(cu\w+)\s*\(/g)].map((m) => spelled.get(m[1]!) ?? m[1]!));
  return [...names].sort();
}
