// Builds a test-only native addon at test time with the C++ compiler and the
// running Node.js's headers (nothing is downloaded). Results are kept in
// build-test/, named by a hash of what went in, so that a second run (or a
// machine that received the folder, such as the GPU host) reuses them.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

const packageRoot = join(import.meta.dirname, '..');
const outDir = join(packageRoot, 'build-test');

/** Either the built addon's path, or why it could not be built (for a skip message). */
export type AddonBuild =
  | { readonly path: string; readonly reason?: undefined }
  | { readonly path?: undefined; readonly reason: string };

function nodeHeaders(): string | undefined {
  const candidates = [
    process.env['CUDA_JS_NODE_HEADERS'],
    join(dirname(process.execPath), '..', 'include', 'node'),
    join(homedir(), '.cache', 'node-gyp', process.versions.node, 'include', 'node'),
    join(homedir(), '.node-gyp', process.versions.node, 'include', 'node'),
  ];
  return candidates.find((dir) => dir !== undefined && existsSync(join(dir, 'node_api.h')));
}

/** Builds `test/addons/<name>.cc` (with native/dlpack.h on the include path) unless a build of the same inputs exists. */
export function buildTestAddon(name: string, extraFlags: readonly string[] = []): AddonBuild {
  const source = join(packageRoot, 'test', 'addons', `${name}.cc`);
  const header = join(packageRoot, 'native', 'dlpack.h');
  const nodeBinding = join(packageRoot, 'native', 'dlpack_node.h');
  const flags = [
    '-std=c++17',
    '-O1',
    '-shared',
    '-fPIC',
    '-DNAPI_VERSION=8',
    `-DNODE_GYP_MODULE_NAME=${name}`,
    ...extraFlags,
  ];
  const hash = createHash('sha256')
    .update(readFileSync(source))
    .update(readFileSync(header))
    .update(readFileSync(nodeBinding))
    .update(flags.join(' '))
    .update(`${process.platform}-${process.arch}`)
    .digest('hex')
    .slice(0, 16);
  const output = join(outDir, `${name}-${hash}.node`);
  if (existsSync(output)) return { path: output };
  const headers = nodeHeaders();
  if (headers === undefined)
    return {
      reason: `no Node.js headers (node_api.h) beside ${process.execPath} nor in the node-gyp cache; set CUDA_JS_NODE_HEADERS`,
    };
  const cxx = process.env['CXX'] ?? 'c++';
  mkdirSync(outDir, { recursive: true });
  const partial = `${output}.${process.pid}.tmp`;
  // Libraries (-l...) go after the source, as the linker wants them.
  const libs = flags.filter((f) => f.startsWith('-l'));
  const rest = flags.filter((f) => !f.startsWith('-l'));
  const result = spawnSync(cxx, [...rest, `-I${headers}`, `-I${dirname(header)}`, source, ...libs, '-o', partial], {
    encoding: 'utf8',
  });
  if (result.error) return { reason: `no C++ compiler (${cxx}): ${result.error.message}` };
  if (result.status !== 0) throw new Error(`building the test addon ${name} failed:\n${result.stderr}`);
  renameSync(partial, output);
  return { path: output };
}
