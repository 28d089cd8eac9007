// The device link without a driver or nvJitLink: the CUDA toolkit's ptxas
// assembles each PTX module as relocatable code (`-c`, extern functions left
// to the link) and nvlink links them, checking that every called function is
// defined with the prototype it is called with. The tests of linked code use
// it where the Linker of @cuda-js/program has no backend. Not part of the
// package.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ptxasPath } from '@cuda-js/test-support/toolchain';

/** The toolkit's nvlink, beside its ptxas. */
export const nvlinkPath: string | undefined =
  ptxasPath && existsSync(join(dirname(ptxasPath), 'nvlink')) ? join(dirname(ptxasPath), 'nvlink') : undefined;

/** Why PTX cannot be device-linked here without a driver, or undefined. */
export const nvlinkMissing: string | undefined =
  ptxasPath === undefined
    ? 'no ptxas (CUDA toolkit) on this machine'
    : nvlinkPath === undefined
      ? 'no nvlink beside ptxas'
      : undefined;

/** What a failed tool printed. */
function printed(error: unknown): string {
  const e = error as { stderr?: string; stdout?: string; message: string };
  return `${e.stderr ?? ''}${e.stdout ?? ''}` || e.message;
}

/** Runs `body` in a fresh temporary folder, removed afterwards. */
function inTemporaryFolder<T>(body: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-nvlink-'));
  try {
    return body(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ptxas -c: undefined when it accepts `ptx` as relocatable code (calls of extern functions left to a link), else what it printed. */
export function ptxasRelocatableRejects(ptx: string, arch = 'sm_90'): string | undefined {
  return inTemporaryFolder((dir) => {
    writeFileSync(join(dir, 'in.ptx'), ptx);
    try {
      execFileSync(ptxasPath!, ['-c', `-arch=${arch}`, join(dir, 'in.ptx'), '-o', join(dir, 'in.o')], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
      return undefined;
    } catch (error) {
      return printed(error);
    }
  });
}

/**
 * Links PTX modules as the device linker does: each assembled by `ptxas -c`,
 * then `nvlink -arch=<arch>` of all of them. Undefined when the link
 * succeeds, else what ptxas or nvlink printed (an undefined reference, a
 * prototype that does not match).
 */
export function deviceLinkRejects(modules: readonly string[], arch = 'sm_90'): string | undefined {
  return inTemporaryFolder((dir) => {
    const objects: string[] = [];
    try {
      modules.forEach((ptx, k) => {
        writeFileSync(join(dir, `m${k}.ptx`), ptx);
        execFileSync(ptxasPath!, ['-c', `-arch=${arch}`, join(dir, `m${k}.ptx`), '-o', join(dir, `m${k}.o`)], {
          encoding: 'utf8',
          stdio: 'pipe',
        });
        objects.push(join(dir, `m${k}.o`));
      });
      execFileSync(nvlinkPath!, [`-arch=${arch}`, ...objects, '-o', join(dir, 'linked.cubin')], {
        encoding: 'utf8',
        stdio: 'pipe',
      });
      return undefined;
    } catch (error) {
      return printed(error);
    }
  });
}
