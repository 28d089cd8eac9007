// A fixture app built by webpack or rspack as an ES module for node, with
// the stack's packages kept as imports: the config that the bundler tests
// (bundlers.test.ts, aot.test.ts) share.
import { join } from 'node:path';
import { rspack } from '@rspack/core';
import webpack from 'webpack';

/** What to build: the app's folder and entry, where to write, and the plugin instance. */
export interface WebpackBuild {
  readonly bundler: 'webpack' | 'rspack';
  /** The app's folder (the fixtures' TypeScript loader for webpack is beside it). */
  readonly app: string;
  /** The entry, relative to `app` (`./main.ts`). */
  readonly entry: string;
  readonly outDir: string;
  readonly fileName: string;
  readonly minify: boolean;
  readonly sourcemap: boolean;
  /** Imports that stay imports. */
  readonly external: RegExp;
  readonly plugin: unknown;
}

/** Builds it; rejects with webpack's report where the build has errors. */
export async function webpackBuild(b: WebpackBuild): Promise<void> {
  const make = b.bundler === 'rspack' ? (rspack as unknown as typeof webpack) : webpack;
  // rspack's own TypeScript loader (SWC); for webpack, esbuild's (fixtures/typescript-loader.cjs); the plugin runs before either (a 'pre' loader)
  const typescript =
    b.bundler === 'rspack'
      ? { loader: 'builtin:swc-loader', options: { jsc: { parser: { syntax: 'typescript' } } } }
      : { loader: join(b.app, '../typescript-loader.cjs') };
  const config: webpack.Configuration = {
    mode: b.minify ? 'production' : 'none',
    target: 'node',
    context: b.app,
    entry: b.entry,
    output: { path: b.outDir, filename: b.fileName, module: true, library: { type: 'module' }, chunkFormat: 'module' },
    experiments: { outputModule: true },
    externalsType: 'module',
    externals: [
      ({ request }: { request?: string }, callback: (error?: Error, result?: string) => void) =>
        request !== undefined && b.external.test(request) ? callback(undefined, request) : callback(),
    ],
    resolve: { extensions: ['.ts', '.js'], extensionAlias: { '.js': ['.ts', '.js'] } },
    module: { rules: [{ test: /\.ts$/, ...typescript, type: 'javascript/auto' }] },
    devtool: b.sourcemap ? 'source-map' : false,
    optimization: { minimize: b.minify },
    plugins: [b.plugin as webpack.WebpackPluginInstance],
  };
  await new Promise<void>((done, failed) =>
    make(config, (error, stats) =>
      error ? failed(error) : stats?.hasErrors() ? failed(new Error(stats.toString())) : done(),
    ),
  );
}
