import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CommanderError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { cliArguments, cliProgram, type CliCommands } from './cli-program.js';

/** Parses `args` as the command line would, with commands that record their calls; returns the calls, the output and the error. */
async function parse(
  args: readonly string[],
): Promise<{ calls: string[]; out: string; err: string; error?: CommanderError }> {
  const calls: string[] = [];
  const commands: CliCommands = {
    info: async (options) => (calls.push(`info ${JSON.stringify(options)}`), 0),
    demo: async () => (calls.push('demo'), 0),
    buildKernels: async (entry, options) => (calls.push(`build-kernels ${entry} ${options.arch.join(',')}`), 0),
  };
  let out = '';
  let err = '';
  const program = cliProgram('1.2.3', commands);
  program.exitOverride();
  program.configureOutput({ ...program.configureOutput(), writeOut: (t) => (out += t), writeErr: (t) => (err += t) });
  try {
    await program.parseAsync(cliArguments(args), { from: 'user' });
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    return { calls, out, err, error };
  }
  return { calls, out, err };
}

afterEach(() => {
  process.exitCode = undefined;
});

describe('the cuda-js command line', () => {
  it('runs info with no command, or with only info options', async () => {
    expect((await parse([])).calls).toEqual(['info {}']);
    expect((await parse(['--json'])).calls).toEqual(['info {"json":true}']);
    expect((await parse(['info', '--verbose'])).calls).toEqual(['info {"verbose":true}']);
    expect((await parse(['--all'])).calls).toEqual(['info {"all":true}']);
    expect((await parse(['demo'])).calls).toEqual(['demo']);
    expect((await parse(['build-kernels', 'app.js', '--arch', 'sm_90'])).calls).toEqual(['build-kernels app.js sm_90']);
  });

  it('prints the version for -v, -V and --version, running no command', async () => {
    for (const flag of ['-v', '-V', '--version']) {
      const r = await parse([flag]);
      expect(r.out).toBe('1.2.3\n');
      expect(r.error?.code).toBe('commander.version');
      expect(r.calls).toEqual([]);
    }
  });

  it('says that a word which is no command is unknown, with a suggestion', async () => {
    const version = await parse(['version']);
    expect(version.error?.code).toBe('commander.unknownCommand');
    expect(version.err).toBe("error: unknown command 'version'\n(Did you mean cuda-js --version?)\n");
    const typo = await parse(['inof']);
    expect(typo.error?.code).toBe('commander.unknownCommand');
    expect(typo.err).toBe("error: unknown command 'inof'\n(Did you mean info?)\n");
    const other = await parse(['frobnicate']);
    expect(other.err).toBe("error: unknown command 'frobnicate'\n");
    for (const r of [version, typo, other]) expect(r.calls).toEqual([]);
  });
});

// The built CLI (the build runs before the tests in CI; `tsc -b` in packages/cuda-js here).
const builtCli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));

describe('cuda-js --version, run as a process', () => {
  it.skipIf(!existsSync(builtCli))('loads nothing of the stack (the commands import their modules when chosen)', () => {
    // a loader hook reports every module of the workspace that the CLI imports, but its own cli*.js
    const hook = `data:text/javascript,${encodeURIComponent(
      "export async function resolve(s, c, next) { const r = await next(s, c); if (/\\/packages\\/(?!cuda-js\\/dist\\/cli)/.test(r.url)) process.stderr.write('loaded ' + r.url + '\\n'); return r; }",
    )}`;
    const register = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module'; register(${JSON.stringify(hook)});`)}`;
    for (const flag of ['--version', '-v']) {
      const r = spawnSync(process.execPath, ['--no-warnings', '--import', register, builtCli, flag], {
        encoding: 'utf8',
      });
      expect(r.stderr).toBe('');
      expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      expect(r.status).toBe(0);
    }
  });
});
