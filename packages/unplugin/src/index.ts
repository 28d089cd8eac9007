/**
 * The cuda-js build plugin (on unplugin) for esbuild, vite, rollup,
 * rolldown, webpack and rspack: it records each kernel's source, its place
 * in the file as written and the imports its free names refer to, before
 * bundlers and minifiers rewrite them, and attaches the record to the
 * kernel function, where the JIT reads it instead of `fn.toString()`.
 *
 * ```ts
 * // vite.config.ts
 * import cudaJs from '@cuda-js/unplugin';
 * export default { plugins: [cudaJs.vite()] };
 * ```
 *
 * @packageDocumentation
 */
import { cudaJsPlugin } from './cuda-js-plugin.js';

export { cudaJsPlugin } from './cuda-js-plugin.js';
export { findKernels, DEFAULT_MODULES, type FindKernelsOptions, type FoundKernels } from './find-kernels.js';
export { KERNEL_RECORD_KEY, KERNEL_RECORD_VERSION } from './record-key.js';
export { PluginOptionError, type CudaJsPluginOptions, type CudaJsAotOptions } from './plugin-options.js';

export default cudaJsPlugin;
