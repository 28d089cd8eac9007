// The `cuda-js` command line as a commander program, apart from what runs
// each command: cli.ts passes the commands in as functions that import their
// module when called, so that building and parsing the program loads nothing
// of the stack, and the tests parse with commands that record their calls.
import { Command } from 'commander';
import type { BuildKernelsOptions } from './build-kernels-command.js';
import type { InfoOptions } from './info-command.js';

/** What runs each command; each returns the process's exit code. */
export interface CliCommands {
  info(options: InfoOptions): Promise<number>;
  demo(): Promise<number>;
  buildKernels(entry: string, options: BuildKernelsOptions): Promise<number>;
}

/** The global options (help and version) that are not `info`'s. */
const GLOBAL_OPTIONS = new Set(['-h', '--help', '-V', '-v', '--version']);

/** Words given as a command that mean a global option. */
const OPTION_WORDS: Readonly<Record<string, string>> = Object.freeze({ version: '--version', v: '--version' });

/**
 * The words of the command line as the program parses them: nothing, or
 * options that are not global ones (`cuda-js --json`), run `info`, the default
 * command; `-v` is `--version` (commander takes one short flag, `-V`).
 */
export function cliArguments(args: readonly string[]): string[] {
  const first = args[0];
  if (first === '-v') return ['--version', ...args.slice(1)];
  if (first === undefined || (first.startsWith('-') && !GLOBAL_OPTIONS.has(first))) return ['info', ...args];
  return [...args];
}

/** The `cuda-js` program: `info` (the default: see {@link cliArguments}), `demo` and `build-kernels`. */
export function cliProgram(version: string, commands: CliCommands): Command {
  const program = new Command();
  program
    .name('cuda-js')
    .description('The CUDA stack for TypeScript and Node.js')
    .version(version, '-V, --version', 'print the version of cuda-js (also -v)')
    .showSuggestionAfterError()
    .configureOutput({
      // A word that is a global option's name (`cuda-js version`) is an unknown command that suggests the option.
      outputError: (text, write) =>
        write(
          text.replace(/^error: unknown command '([^']*)'\n$/, (line, word: string) =>
            Object.hasOwn(OPTION_WORDS, word)
              ? `error: unknown command '${word}'\n(Did you mean cuda-js ${OPTION_WORDS[word]}?)\n`
              : line,
          ),
        ),
    });
  program
    .command('info')
    .description(
      'report what works here (JIT compile, run), the driver, the GPUs and the CUDA libraries, headers and libdevice that cuda-js uses, found or not, and how (the default command)',
    )
    .option('--json', 'print the report as JSON')
    .option('--verbose', 'for each missing item, list every place searched')
    .option('--all', 'list every CUDA library pathfinder knows (cuBLAS, cuFFT, ...), not only those cuda-js uses')
    .action(async (options: { json?: boolean; verbose?: boolean; all?: boolean }) => {
      process.exitCode = await commands.info(options);
    });
  program
    .command('demo')
    .description(
      'the demo of `npm start`: JIT kernels on the GPU (or in the simulator without one), checked against plain JS',
    )
    .action(async () => {
      process.exitCode = await commands.demo();
    });
  program
    .command('build-kernels')
    .description(
      'compile the kernels that <entry> declares signatures for (jit(fn, { signatures }), or --signature) ahead of time, into an artifact that loads without libNVVM',
    )
    .argument('<entry>', 'the module that makes the kernels (imported: keep the app from running when it is)')
    .option('--arch <archs...>', 'the architectures to build cubins for: sm_90 (repeat it, or a comma list)')
    .option(
      '--ptx <archs...>',
      'the virtual architectures to keep PTX for (default: the newest --arch), which newer devices compile when loading',
    )
    .option('--no-ptx', 'keep no PTX')
    .option(
      '--signature <name=signature...>',
      "a signature to build for a kernel, in numba's text: 'axpy=void(float32, float32[:], float32[:])' (repeat it)",
    )
    .option('--out <dir>', 'the folder to write manifest.json, the code files and kernels.js into', 'kernels')
    .option('--json', 'print what was built as JSON')
    .action(
      async (
        entry: string,
        options: { arch?: string[]; ptx?: string[] | boolean; signature?: string[]; out: string; json?: boolean },
      ) => {
        const ptx = options.ptx === false ? false : Array.isArray(options.ptx) ? options.ptx : undefined;
        process.exitCode = await commands.buildKernels(entry, {
          arch: options.arch ?? [],
          ptx,
          signatures: options.signature ?? [],
          out: options.out,
          json: options.json,
        });
      },
    );
  return program;
}
