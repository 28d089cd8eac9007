// The prebuilt N-API addons that the native packages (bindings, memory-view's
// DLPack helper) ship, and how the workspace build makes them: one for this
// machine, and on Linux one for each other architecture the packages ship
// (linux-x64 and linux-arm64, glibc), cross-compiled with the GNU toolchain
// for it (Debian's g++-aarch64-linux-gnu, or g++-x86-64-linux-gnu on an Arm
// host). Where that toolchain is not installed, or CUDA_JS_CROSS_PREBUILDS=0,
// the cross prebuild is skipped with the reason printed; the build goes on.
// Used by build-prebuilds.mjs (the packages' builds) and pack-smoke.mjs.
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';

/** The `prebuilds/` folders that every published native package carries. */
export const SHIPPED_PREBUILDS = ['linux-x64', 'linux-arm64'];

// GNU target triplets of the Linux architectures that are shipped (Debian's cross-compiler prefixes).
const GNU_TRIPLETS = { x64: 'x86_64-linux-gnu', arm64: 'aarch64-linux-gnu' };
const DEBIAN_CROSS_PACKAGES = { x64: 'g++-x86-64-linux-gnu', arm64: 'g++-aarch64-linux-gnu' };

const works = (command) => spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0;

/**
 * The prebuilds to make here: `{ folder, arch, env, stripBin }` for this machine
 * and each cross build whose toolchain is found, and `{ folder, skipped }` (the
 * reason) for each shipped one that cannot be made here.
 */
export function prebuildTargets() {
  const host = { folder: `${process.platform}-${process.arch}`, arch: process.arch, env: {}, stripBin: 'strip' };
  if (process.platform !== 'linux') return [host];
  const targets = [host];
  for (const folder of SHIPPED_PREBUILDS) {
    const arch = folder.slice('linux-'.length);
    if (arch === process.arch) continue;
    if (process.env.CUDA_JS_CROSS_PREBUILDS === '0') {
      targets.push({ folder, skipped: 'CUDA_JS_CROSS_PREBUILDS=0' });
      continue;
    }
    const triplet = GNU_TRIPLETS[arch];
    const cxx = `${triplet}-g++`;
    if (!works(cxx) || !works(`${triplet}-gcc`) || !works(`${triplet}-strip`)) {
      targets.push({
        folder,
        skipped: `no ${triplet} cross toolchain (${cxx}; on Debian: apt-get install ${DEBIAN_CROSS_PACKAGES[arch]})`,
      });
      continue;
    }
    // node-gyp's Makefile takes the compilers (and the linker, CXX) from these.
    targets.push({ folder, arch, env: { CC: `${triplet}-gcc`, CXX: cxx }, stripBin: `${triplet}-strip` });
  }
  return targets;
}

/**
 * Builds `<pkg>/prebuilds/<target.folder>/<name>.node` from `<pkg>/native`
 * with prebuildify (N-API, so one build serves every Node.js >= 20; stripped).
 * Built from a copy in build/prebuild-<folder> (inside the package, so that
 * binding.gyp still finds node-addon-api), so that a source build in
 * native/build is neither used nor clobbered. Headers come from beside the
 * running Node.js where they are installed (Debian's and the official
 * tarballs' layout; N-API's headers are the same for every architecture),
 * so nothing is downloaded. Rejects with prebuildify's error.
 */
export async function buildPrebuild({ pkg, name, target, quiet = false }) {
  const nativeDir = join(pkg, 'native');
  const workDir = join(pkg, 'build', `prebuild-${target.folder}`);
  rmSync(workDir, { recursive: true, force: true });
  cpSync(nativeDir, workDir, { recursive: true, filter: (source) => source !== join(nativeDir, 'build') });
  const require = createRequire(join(pkg, 'package.json'));
  const prebuildify = require('prebuildify');
  const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js');
  // node-gyp reads its options from npm_config_* variables, and the compilers from CC and CXX.
  const env = { ...target.env };
  const beside = join(dirname(process.execPath), '..');
  if (!process.env.npm_config_nodedir && existsSync(join(beside, 'include', 'node', 'node_api.h')))
    env.npm_config_nodedir = beside;
  env.npm_config_loglevel = process.env.npm_config_loglevel ?? 'warn';
  env.JOBS = process.env.JOBS ?? String(Math.max(1, Math.min(4, availableParallelism())));
  // prebuildify copies process.env into the build's environment when it is called, so it is set just for the call.
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  let done;
  try {
    done = new Promise((resolve, reject) => {
      prebuildify(
        {
          cwd: workDir,
          out: pkg,
          name,
          napi: true,
          targets: [process.versions.node],
          arch: target.arch,
          platform: process.platform,
          strip: true,
          stripBin: target.stripBin,
          nodeGyp,
          quiet,
        },
        (error) => (error ? reject(error) : resolve()),
      );
    });
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
  await done;
  rmSync(workDir, { recursive: true, force: true });
  return join(pkg, 'prebuilds', target.folder, `${name}.node`);
}
