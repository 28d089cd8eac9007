#!/usr/bin/env node
import { Command } from 'commander';
import { runDemo } from './demo-command.js';
import { runInfo } from './info-command.js';

const program = new Command();
program.name('cuda-js').description('The CUDA stack for TypeScript and Node.js');
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
