// The CUDA toolkit's ptxas, which makes the cubins of an artifact from
// libNVVM's PTX at build time (where nvJitLink is absent, as on a machine
// with the toolkit's compilers only). Found by `CUDA_JS_PTXAS`, then in
// `$CUDA_HOME/bin`, `$CUDA_PATH/bin`, `/usr/local/cuda/bin`, then on PATH.
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KernelBuildError } from '../errors.js';

/** node:child_process, loaded on first use (building kernels), not when the JIT is imported. */
function childProcess(): typeof import('node:child_process') {
  return createRequire(import.meta.url)('node:child_process') as typeof import('node:child_process');
}

/** The variable that names the ptxas to use. */
export const PTXAS_VARIABLE = 'CUDA_JS_PTXAS';

/** The places ptxas is looked for, in order. */
export function ptxasCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const out: string[] = [];
  const own = env[PTXAS_VARIABLE];
  if (own) out.push(own);
  for (const root of [env['CUDA_HOME'], env['CUDA_PATH'], '/usr/local/cuda'])
    if (root) out.push(join(root, 'bin', 'ptxas'));
  for (const dir of (env['PATH'] ?? '').split(delimiter)) if (dir) out.push(join(dir, 'ptxas'));
  return out;
}

/** The first ptxas that exists, or undefined. */
export function findPtxas(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return ptxasCandidates(env).find((p) => existsSync(p));
}

/** ptxas's release (`13.0, V13.0.88`), from `ptxas --version`. */
export function ptxasVersion(path: string): string {
  const out = childProcess().execFileSync(path, ['--version'], { encoding: 'utf8' });
  return /release ([^\n]+)/.exec(out)?.[1]?.trim() ?? out.trim().split('\n').pop() ?? 'unknown';
}

/**
 * The cubin of `ptx` for the real architecture `arch` (`sm_90`).
 *
 * @throws {KernelBuildError} with ptxas's output when it refuses the PTX
 */
export function ptxasCubin(path: string, ptx: string, arch: string, name: string): Uint8Array {
  const dir = mkdtempSync(join(tmpdir(), 'cuda-js-aot-'));
  try {
    const input = join(dir, 'kernel.ptx');
    const output = join(dir, 'kernel.cubin');
    writeFileSync(input, ptx);
    try {
      childProcess().execFileSync(path, [`-arch=${arch}`, input, '-o', output], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      const e = error as { stderr?: string; stdout?: string; message: string };
      throw new KernelBuildError(
        `${name}: ptxas (${path}) refused the PTX for ${arch}:\n${`${e.stderr ?? ''}${e.stdout ?? ''}`.trim() || e.message}`,
        undefined,
        { cause: error },
      );
    }
    return new Uint8Array(readFileSync(output));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
