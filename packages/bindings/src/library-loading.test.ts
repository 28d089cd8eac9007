import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

// Loading happens once per process, so these run the built package in a child process.
const DIST = join(import.meta.dirname, '..', 'dist', 'index.js');

function runChild(code: string, env: Record<string, string>): { out: string; status: number | null } {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { out: `${r.stdout}${r.stderr}`, status: r.status };
}

describe('library loading', () => {
  it('needs the built package (npm test builds it first)', () => {
    expect(existsSync(DIST), `${DIST} is missing: run the build`).toBe(true);
  });

  it('opens nothing at import, and throws LibraryNotFoundError on the first call into a missing library', () => {
    const { out, status } = runChild(
      `import { nvjitlink, loadedLibraries, LibraryNotFoundError } from ${JSON.stringify(DIST)};
       console.log('loaded-at-import=' + loadedLibraries().length);
       try { nvjitlink.nvJitLinkVersion(); console.log('no-error'); }
       catch (e) { console.log('error=' + e.name + ' instance=' + (e instanceof LibraryNotFoundError) + ' mentions=' + e.message.includes('/nonexistent/libnvJitLink.so.13')); }`,
      { CUDA_JS_LIB_NVJITLINK: '/nonexistent/libnvJitLink.so.13' },
    );
    expect(status, out).toBe(0);
    expect(out).toContain('loaded-at-import=0');
    expect(out).toContain('error=LibraryNotFoundError instance=true mentions=true');
  });

  it('reports what it opened, from where', () => {
    const { out, status } = runChild(
      `import { nvvm, loadedLibraries } from ${JSON.stringify(DIST)};
       try { nvvm.nvvmVersion(); } catch {}
       console.log(JSON.stringify(loadedLibraries()));`,
      {},
    );
    expect(status, out).toBe(0);
    const libs = JSON.parse(out.trim().split('\n').pop()!) as { name: string; path: string; foundVia: string }[];
    for (const lib of libs) {
      expect(lib.name).toBe('nvvm');
      expect(existsSync(lib.path)).toBe(true);
      expect(lib.foundVia).toBeTypeOf('string');
    }
  });

  it('honours CUDA_JS_PER_THREAD_DEFAULT_STREAM', () => {
    const code = `import { perThreadDefaultStream } from ${JSON.stringify(DIST)}; console.log('ptds=' + perThreadDefaultStream());`;
    expect(runChild(code, { CUDA_JS_PER_THREAD_DEFAULT_STREAM: '1' }).out).toContain('ptds=true');
    expect(runChild(code, { CUDA_JS_PER_THREAD_DEFAULT_STREAM: '0' }).out).toContain('ptds=false');
  });
});
