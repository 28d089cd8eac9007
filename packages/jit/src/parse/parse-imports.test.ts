// The parse stage depends on nothing above it: no module of parse/ imports
// from the stages after it (types, lower, compile, launch, simulate), the
// library or the dispatcher, so that it can be read, and changed, on its own.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const here = fileURLToPath(new URL('.', import.meta.url));
const ABOVE = /^\.\.\/(?:types|lower|compile|launch|simulate|library|aot)\/|^\.\.\/jit\.js$/;

describe('the parse stage', () => {
  it('imports nothing from the stages above it', () => {
    const offending: string[] = [];
    for (const file of readdirSync(here).filter(
      (f) => f.endsWith('.ts') && !f.includes('.test') && !f.includes('.test-support'),
    )) {
      const text = readFileSync(`${here}${file}`, 'utf8');
      for (const m of text.matchAll(/^(?:import|export)\b[^'"]*?\bfrom\s*'([^']+)'/gm))
        if (ABOVE.test(m[1]!)) offending.push(`${file} imports ${m[1]}`);
    }
    expect(offending).toEqual([]);
  });
});
