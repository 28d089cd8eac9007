// A fresh process that imports one layer of the stack and says how long it
// took (cold-start benchmark, run.mjs): where a cold start's import time goes.
// usage: node imports.mjs <module>
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { emit, reason, sinceSpawnMs } from '../jit/bench-util.mjs';

// resolved from the JIT benchmark's folder, whose node_modules has every layer
const resolveLayer = createRequire(new URL('../jit/package.json', import.meta.url)).resolve;

const [name] = process.argv.slice(2);
const started = sinceSpawnMs();
const t0 = performance.now();
try {
  await import(pathToFileURL(resolveLayer(name)).href);
  emit({
    ok: true,
    module: name,
    importMs: performance.now() - t0,
    startedMs: started,
    maxRssKB: process.resourceUsage().maxRSS,
  });
} catch (error) {
  emit({ ok: false, module: name, error: reason(error) });
}
