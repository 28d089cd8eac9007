// CUDA_JS_FAST_EXIT=1 skips the driver's teardown at exit: asked of the
// addon only then, and never under a CUDA profiler or sanitizer. The exit
// itself (status kept, stdio flushed) is checked in a child process.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { applyFastExit } from './fast-exit.js';

describe('applyFastExit', () => {
  it('does nothing unless CUDA_JS_FAST_EXIT is 1, nor under a profiler', () => {
    expect(applyFastExit({})).toBe(false);
    expect(applyFastExit({ CUDA_JS_FAST_EXIT: '0' })).toBe(false);
    expect(applyFastExit({ CUDA_JS_FAST_EXIT: '1', CUDA_INJECTION64_PATH: '/opt/nsight/libInjection.so' })).toBe(false);
  });

  it('ends a process that registered it with its own exit status and its output flushed', () => {
    const script = `
      import { skipDriverTeardownAtExit } from '@cuda-js/bindings/runtime';
      const registered = skipDriverTeardownAtExit();
      process.on('exit', () => process.stdout.write('exit handler ran\\n'));
      console.log(registered ? 'registered' : 'not registered');
      process.exitCode = 3;`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: import.meta.dirname,
    });
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/^(registered|not registered)\nexit handler ran\n$/);
    if (process.platform === 'linux') expect(r.stdout).toMatch(/^registered/);
  });
});
