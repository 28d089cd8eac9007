#!/usr/bin/env node
// The `cuda-js` command. Only commander and this file load before a command
// runs: each command imports its module (and so the stack) when it is chosen,
// so that `cuda-js --version`, `--help` and a mistyped command answer at once.
import { readFileSync } from 'node:fs';
import { cliArguments, cliProgram } from './cli-program.js';

// src/cli.ts and dist/cli.js both sit one folder below the package's package.json.
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

const program = cliProgram(version, {
  info: async (options) => (await import('./info-command.js')).runInfo(options),
  demo: async () => (await import('./demo-command.js')).runDemo(),
  buildKernels: async (entry, options) => (await import('./build-kernels-command.js')).runBuildKernels(entry, options),
});
await program.parseAsync(cliArguments(process.argv.slice(2)), { from: 'user' });
