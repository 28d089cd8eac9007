import { describe, expect, it } from 'vitest';
import { SUPPORTED_HEADERS, SUPPORTED_LIBRARIES } from '@cuda-js/pathfinder';
import { runInfo } from './info-command.js';

function capture(options: Parameters<typeof runInfo>[0]): string {
  let text = '';
  expect(runInfo(options, (t) => (text += t))).toBe(0);
  return text;
}

describe('cuda-js info', () => {
  it('reports every catalog entry, found or missing, as JSON', () => {
    const rows = JSON.parse(capture({ json: true })) as { kind: string; name: string; found: boolean; path?: string; foundVia?: string }[];
    expect(rows.filter((r) => r.kind === 'library').map((r) => r.name)).toEqual([...SUPPORTED_LIBRARIES]);
    expect(rows.filter((r) => r.kind === 'headers').map((r) => r.name)).toEqual([...SUPPORTED_HEADERS]);
    for (const row of rows) expect(row.found ? typeof row.path : row.foundVia).toBe(row.found ? 'string' : undefined);
  });

  it('prints a table and names what is missing; --verbose lists where it looked', () => {
    const text = capture({ verbose: true });
    expect(text).toContain('cuda-js: CUDA libraries on this machine');
    for (const name of SUPPORTED_LIBRARIES) expect(text).toContain(name);
    const rows = JSON.parse(capture({ json: true })) as { name: string; found: boolean }[];
    const missing = rows.filter((r) => !r.found);
    if (missing.length) {
      expect(text).toContain(`missing: ${missing.map((r) => r.name).join(', ')}`);
      expect(text).toContain('was not found. Places tried, in order:');
    } else {
      expect(text).toContain('everything in the catalog was found');
    }
  });
});
