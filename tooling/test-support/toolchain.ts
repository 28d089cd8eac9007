// The CUDA toolkit's ptxas as a judge of PTX, and skips with a reason: shared
// by the real-library tests of program and the JIT.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'vitest';

/** The ptxas of the CUDA toolkit, where there is one. */
export const ptxasPath: string | undefined = (() => {
  const roots = [process.env['CUDA_HOME'], process.env['CUDA_PATH'], '/usr/local/cuda'].filter((r): r is string => !!r);
  for (const root of roots) if (existsSync(join(root, 'bin', 'ptxas'))) return join(root, 'bin', 'ptxas');
  try {
    return execFileSync('sh', ['-c', 'command -v ptxas'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
})();

/**
 * The environment that hides libNVVM and libdevice from pathfinder (paths
 * that do not exist): a child process run with it finds neither, and every
 * JIT compile fails, as on a machine without the CUDA toolkit.
 */
export const HIDE_NVVM: Readonly<Record<string, string>> = {
  CUDA_JS_LIB_NVVM: '/nonexistent/cuda-js-hidden/libnvvm.so',
  CUDA_JS_LIBDEVICE_DIR: '/nonexistent/cuda-js-hidden',
};

/** Why ptxas cannot judge PTX here, or undefined. */
export const ptxasMissing: string | undefined = ptxasPath ? undefined : 'no ptxas (CUDA toolkit) on this machine';

/** Runs ptxas on `ptx` for `arch`: undefined when it accepts the PTX, else what it printed. */
export function ptxasRejects(ptx: string | Uint8Array, arch = 'sm_90'): string | undefined {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-ptxas-'));
  try {
    writeFileSync(join(dir, 'in.ptx'), ptx);
    execFileSync(ptxasPath!, [`-arch=${arch}`, join(dir, 'in.ptx'), '-o', join(dir, 'out.cubin')], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return undefined;
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    return `${e.stderr ?? ''}${e.stdout ?? ''}` || e.message;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A describe that runs only when every requirement is met; else skipped, with the first reason in its name. */
export function describeWhen(reasons: readonly (string | undefined)[], name: string, body: () => void): void {
  const reason = reasons.find((r) => r !== undefined);
  if (reason === undefined) describe(name, body);
  else describe.skip(`${name} (skipped: ${reason})`, body);
}

/** An it that runs only when every requirement is met; else skipped, with the first reason in its name. */
export function itWhen(
  reasons: readonly (string | undefined)[],
  name: string,
  body: (context: TestContext) => unknown,
  timeout?: number,
): void {
  const reason = reasons.find((r) => r !== undefined);
  if (reason === undefined) it(name, body, timeout);
  else it.skip(`${name} (skipped: ${reason})`, body, timeout);
}
