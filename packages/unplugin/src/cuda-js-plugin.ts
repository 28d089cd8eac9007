import { readFileSync } from 'node:fs';
import type { SourceMapPayload } from 'node:module';
import { createUnplugin, type UnpluginInstance } from 'unplugin';
import { findKernels } from './find-kernels.js';
import { checkPluginOptions, type CudaJsPluginOptions } from './plugin-options.js';

const SCRIPT = /\.[cm]?[jt]sx?$/;

/** The map of the earlier steps of the build (rollup, vite, rolldown), where the code differs from the file as written. */
function inputMapOf(context: unknown, code: string, file: string): SourceMapPayload | undefined {
  let onDisk: string | undefined;
  try {
    onDisk = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  if (onDisk === code) return undefined;
  // rollup, vite and rolldown call the hook with their own plugin context; webpack's loader has the input map
  const own = context as { getCombinedSourcemap?: () => unknown; getNativeBuildContext?: () => { inputSourceMap?: unknown } };
  let map: unknown;
  try {
    map = own.getCombinedSourcemap?.() ?? own.getNativeBuildContext?.().inputSourceMap;
  } catch {
    return undefined;
  }
  if (!map) return undefined;
  const payload = (typeof map === 'string' ? JSON.parse(map) : JSON.parse(JSON.stringify(map))) as SourceMapPayload;
  return Array.isArray(payload.sources) && typeof payload.mappings === 'string' && payload.mappings !== '' ? payload : undefined;
}

/**
 * The cuda-js build plugin, one implementation for every bundler that
 * unplugin serves: `.vite()`, `.esbuild()`, `.rollup()`, `.rolldown()`,
 * `.webpack()`, `.rspack()`. It runs before other transforms (`enforce:
 * 'pre'`), finds the kernels of each module and attaches their records
 * (see findKernels), so that what minifiers and scope hoisting do later
 * changes nothing for the JIT.
 */
export const cudaJsPlugin: UnpluginInstance<CudaJsPluginOptions | undefined, false> = createUnplugin((raw: CudaJsPluginOptions | undefined) => {
  const options = checkPluginOptions(raw ?? {});
  const include = options.include;
  const wanted = (id: string): boolean => {
    const path = id.replace(/[?#].*$/, '');
    if (include instanceof RegExp) return include.test(path);
    if (typeof include === 'function') return include(path);
    return SCRIPT.test(path) && !/[\\/]node_modules[\\/]/.test(path);
  };
  return {
    name: 'cuda-js',
    enforce: 'pre',
    transformInclude: wanted,
    transform(code, id) {
      const file = id.replace(/[?#].*$/, '');
      const found = findKernels(code, file, { ...(options.modules ? { modules: options.modules } : {}), ...(options.root ? { root: options.root } : {}), inputMap: inputMapOf(this, code, file) });
      if (!found) return undefined;
      for (const record of found.records) options.onKernel?.(record, file);
      return { code: found.code, map: found.map };
    },
  };
});
