import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describeGpu } from '@cuda-js/test-support';
import { expect, it } from 'vitest';

// JS host functions whose Worker is terminated before the driver calls them
// (host-call-channel.h): in a child process (a use after free is then its exit
// status), with the built package, as the other bindings GPU tests that spawn.
const DIST = join(import.meta.dirname, '..', 'dist', 'index.js');
const SCRIPT = join(import.meta.dirname, 'test-fixtures', 'host-function-lifetime-gpu.mjs');

describeGpu('JS host functions that outlive their Worker', () => {
  it('cuLaunchHostFunc, cuStreamAddCallback and a captured graph host function, 20 Workers each terminated at once: the process lives, the main thread goes on, nothing is left', () => {
    expect(existsSync(DIST), `${DIST} is missing: build first`).toBe(true);
    const r = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8', timeout: 110_000 });
    const out = `${r.stdout}${r.stderr}`;
    expect(r.signal, out).toBeNull();
    expect(r.status, out).toBe(0);
    const report = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      results: Record<string, { rounds: number; ranInWorkers: number }>;
      workersMs: number;
      main: { hostFunc: string; callback: [boolean, number]; graphCalls: number };
      recordsBefore: number;
      recordsAfter: number;
    };
    console.log(`host function lifetime: ${JSON.stringify(report)}`);
    for (const form of ['cuLaunchHostFunc', 'cuStreamAddCallback', 'graph']) {
      expect(report.results[form]?.rounds, form).toBe(20);
      // a call that beat the Worker's end ran at most once per host function (the graph's: twice per launch pair)
      expect(report.results[form]!.ranInWorkers, form).toBeLessThanOrEqual(form === 'graph' ? 40 : 20);
    }
    expect(report.main).toEqual({ hostFunc: 'ran', callback: [true, 0], graphCalls: 2 });
    // every record freed: the Workers' one-shot calls by the driver's thread, their graphs' host functions by the user objects' destructors
    expect(report.recordsAfter, 'host-call records left (a leak), or released by the driver later than 10 s').toBe(
      report.recordsBefore,
    );
  });
});
