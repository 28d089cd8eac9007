#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { runDemo } from './demo-command.js';
import { runInfo } from './info-command.js';

const program = new Command();
// src/cli.ts and dist/cli.js both sit one folder below the package's package.json.
const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
program.name('cuda-js').description('The CUDA stack for TypeScript and Node.js').version(version, '-V, --version', 'print the version of cuda-js');
program
  .command('info', { isDefault: true })
  .description('report the CUDA libraries, headers and libdevice found, and how')
  .option('--json', 'print the report as JSON')
  .option('--verbose', 'for each missing item, list every place searched')
  .action((options: { json?: boolean; verbose?: boolean }) => {
    process.exitCode = runInfo(options);
  });
program
  .command('demo')
  .description('the demo of `npm start`: JIT kernels on the GPU (or in the simulator without one), checked against plain JS')
  .action(() => {
    process.exitCode = runDemo();
  });
program.parse();
