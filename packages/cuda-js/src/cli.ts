#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { runBuildKernels } from './build-kernels-command.js';
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
program
  .command('build-kernels')
  .description('compile the kernels that <entry> declares signatures for (jit(fn, { signatures })) ahead of time, into an artifact that loads without libNVVM')
  .argument('<entry>', 'the module that makes the kernels (imported: keep the app from running when it is)')
  .option('--arch <archs...>', 'the architectures to build cubins for: sm_90 (repeat it, or a comma list)', [])
  .option('--ptx <archs...>', 'the virtual architectures to keep PTX for (default: the newest --arch), which newer devices compile when loading')
  .option('--no-ptx', 'keep no PTX')
  .option('--out <dir>', 'the folder to write manifest.json, the code files and kernels.js into', 'kernels')
  .option('--json', 'print what was built as JSON')
  .action(async (entry: string, options: { arch: string[]; ptx?: string[] | boolean; out: string; json?: boolean }) => {
    const ptx = options.ptx === false ? false : Array.isArray(options.ptx) ? options.ptx : undefined;
    process.exitCode = await runBuildKernels(entry, { arch: options.arch, ptx, out: options.out, json: options.json });
  });
await program.parseAsync();
