#!/usr/bin/env node
import { Command } from 'commander';
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
  .description('the demo of `npm start`: for now, the library report')
  .action(() => {
    process.exitCode = runInfo({});
  });
program.parse();
