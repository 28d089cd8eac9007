#!/usr/bin/env node
// What running every nvJitLink call on the addon's own nvJitLink thread costs:
// the round trip of a blocking call and of a Promise through that thread,
// beside a plain call into the addon (the anchor); then, where nvJitLink is
// installed, a real nvJitLink call (nvJitLinkVersion) and whole links of a
// small PTX (blocking and Promise form), to set the hop against a link.
//   node tooling/bench/nvjitlink-thread/bench.mjs [--calls 20000] [--rounds 9] [--links 50] [--arch sm_90]
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const here = import.meta.dirname;
const root = join(here, '..', '..', '..');
const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const CALLS = Number(arg('calls', 20000));
const ROUNDS = Number(arg('rounds', 9));
const LINKS = Number(arg('links', 50));
const ARCH = arg('arch', 'sm_90');

const addon = createRequire(join(root, 'packages', 'bindings', 'package.json'))('node-gyp-build')(
  join(root, 'packages', 'bindings'),
); // its prebuild, as the package loads it
const { nvjitlink } = await import(pathToFileURL(join(root, 'packages', 'bindings', 'dist', 'index.js')).href);

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median over rounds of µs per call of `fn`, called `calls` times a round (awaited when it returns a Promise). */
async function perCall(fn, calls, isAsync) {
  const rounds = [];
  for (let r = 0; r < ROUNDS + 1; r++) {
    const t0 = process.hrtime.bigint();
    if (isAsync) for (let i = 0; i < calls; i++) await fn();
    else for (let i = 0; i < calls; i++) fn();
    const us = Number(process.hrtime.bigint() - t0) / 1000 / calls;
    if (r > 0) rounds.push(us); // the first round warms up
  }
  return median(rounds);
}

const rows = [];
const anchor = await perCall(() => addon.perThreadDefaultStream(), CALLS, false);
rows.push(['plain call into the addon (anchor)', anchor]);
rows.push([
  'blocking hop to the nvJitLink thread',
  await perCall(() => addon.__nvJitLinkThreadIdForTests(false), CALLS, false),
]);
rows.push([
  'Promise hop (post, settle on the JS thread)',
  await perCall(() => addon.__nvJitLinkThreadIdForTests(true), Math.max(1, CALLS / 10), true),
]);

let linkNote = '';
try {
  const v = nvjitlink.nvJitLinkVersion();
  rows.push([
    `nvJitLinkVersion() (nvJitLink ${v.major}.${v.minor})`,
    await perCall(() => nvjitlink.nvJitLinkVersion(), CALLS, false),
  ]);
  const ptx = readFileSync(join(here, '..', 'launch', 'empty-kernel.ptx'));
  const T = nvjitlink.nvJitLinkInputType;
  const link = async (isAsync) => {
    const h = nvjitlink.nvJitLinkCreate([`-arch=${ARCH}`]);
    try {
      nvjitlink.nvJitLinkAddData(h, T.NVJITLINK_INPUT_PTX, ptx, 'empty-kernel.ptx');
      if (isAsync) await nvjitlink.nvJitLinkCompleteAsync(h);
      else nvjitlink.nvJitLinkComplete(h);
      nvjitlink.nvJitLinkGetLinkedCubin(h);
    } finally {
      nvjitlink.nvJitLinkDestroy(h);
    }
  };
  rows.push([`link of a small PTX, blocking (${ARCH})`, await perCall(() => link(false), LINKS, true)]);
  rows.push([`link of a small PTX, nvJitLinkCompleteAsync (${ARCH})`, await perCall(() => link(true), LINKS, true)]);
} catch (e) {
  linkNote = `nvJitLink rows left out: ${e.name}: ${e.message.split('\n')[0]}`;
}

console.log(
  `${ROUNDS} rounds (median per call; ${CALLS} calls a round, links ${LINKS} a round), Node.js ${process.version}:`,
);
for (const [label, us] of rows) {
  const ratio = label.includes('anchor') ? '' : `  (${(us / anchor).toFixed(1)}x the anchor)`;
  console.log(`  ${label.padEnd(52)} ${us.toFixed(3).padStart(10)} µs${ratio}`);
}
if (linkNote) console.log(`  ${linkNote}`);
