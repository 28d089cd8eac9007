// A kernel artifact on disk and as a JavaScript module: `manifest.json`
// with the code beside it (one file per cubin or PTX, for apps that ship
// assets), and `kernels.js`, the same manifest with the code inside it as
// base64 (for apps that bundle: import it and a bundler embeds it).
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { readRegularFile } from '@cuda-js/pathfinder';
import { decodeCollectives, decodeParams } from '../compile/kernel-cache.js';
import { KernelArtifactFormatError } from '../errors.js';
import { KERNEL_ARTIFACT_FORMAT, type ArtifactCode, type ArtifactKernel, type ArtifactSpecialization, type KernelArtifact } from './kernel-artifact.js';

/** One piece of code in a written manifest: in a file beside it, or inline as base64. */
export interface SerializedArtifactCode {
  readonly kind: 'cubin' | 'ptx';
  readonly arch: string;
  /** The code's file, relative to the manifest's folder. */
  readonly file?: string;
  /** The code itself, base64. */
  readonly base64?: string;
  /** Its size in bytes, checked when it is read. */
  readonly bytes: number;
}

/** A kernel artifact as JSON: `manifest.json`, or the default export of `kernels.js`. */
export interface SerializedKernelArtifact {
  readonly format: number;
  readonly jitVersion: string;
  readonly toolchain: string;
  readonly kernels: readonly {
    readonly name: string;
    readonly hash: string;
    readonly definedAt?: string;
    readonly specializations: readonly (Omit<ArtifactSpecialization, 'code'> & { readonly code: readonly SerializedArtifactCode[] })[];
  }[];
}

/** The files {@link writeKernelArtifact} wrote. */
export interface WrittenKernelArtifact {
  /** `manifest.json`, naming the code files. */
  readonly manifest: string;
  /** `kernels.js`: an ES module whose default export is the manifest with the code inside it (and `kernels.d.ts` beside it). */
  readonly module: string;
  /** The cubin and PTX files. */
  readonly code: readonly string[];
}

/** One file of an artifact's folder: its name in the folder, and its content. */
export interface KernelArtifactFile {
  readonly name: string;
  readonly kind: 'manifest' | 'module' | 'types' | 'code';
  readonly data: Uint8Array | string;
}

function fileName(kernel: string, index: number, code: ArtifactCode): string {
  const base = kernel.replace(/[^A-Za-z0-9_.-]/g, '_');
  return `${base}.${index}.${code.arch}.${code.kind === 'cubin' ? 'cubin' : 'ptx'}`;
}

function serialized(artifact: KernelArtifact, code: (kernel: ArtifactKernel, index: number, c: ArtifactCode) => SerializedArtifactCode): SerializedKernelArtifact {
  return {
    format: artifact.format,
    jitVersion: artifact.jitVersion,
    toolchain: artifact.toolchain,
    kernels: artifact.kernels.map((k) => ({
      name: k.name,
      hash: k.hash,
      ...(k.definedAt === undefined ? {} : { definedAt: k.definedAt }),
      specializations: k.specializations.map((s, i) => ({ signature: s.signature, symbol: s.symbol, params: s.params, collectives: s.collectives, code: s.code.map((c) => code(k, i, c)) })),
    })),
  };
}

/** The artifact as JSON with its code inline (base64): what `kernels.js` exports. */
export function serializeKernelArtifact(artifact: KernelArtifact): SerializedKernelArtifact {
  return serialized(artifact, (_k, _i, c) => ({ kind: c.kind, arch: c.arch, bytes: c.data.byteLength, base64: Buffer.from(c.data.buffer, c.data.byteOffset, c.data.byteLength).toString('base64') }));
}

const MODULE_TYPES = `import type { SerializedKernelArtifact } from '@cuda-js/jit';
declare const artifact: SerializedKernelArtifact;
export default artifact;
`;

/**
 * The files of an artifact's folder, in memory (what {@link writeKernelArtifact}
 * writes, and what the build plugin emits as assets): `manifest.json` with
 * one file per cubin and PTX, and the module form, `kernels.js` (the
 * manifest with the code inline) with `kernels.d.ts`. Either form loads
 * with `loadKernelArtifact`.
 */
export function kernelArtifactFiles(artifact: KernelArtifact): KernelArtifactFile[] {
  const files: KernelArtifactFile[] = [];
  const manifest = serialized(artifact, (k, i, c) => {
    const name = fileName(k.name, i, c);
    files.push({ name, kind: 'code', data: c.data });
    return { kind: c.kind, arch: c.arch, file: name, bytes: c.data.byteLength };
  });
  files.push({ name: 'manifest.json', kind: 'manifest', data: `${JSON.stringify(manifest, null, 2)}\n` });
  const header = '// Kernels compiled ahead of time by cuda-js: load with loadKernelArtifact(artifact). Generated; do not edit.\n';
  files.push({ name: 'kernels.js', kind: 'module', data: `${header}const artifact = ${JSON.stringify(serializeKernelArtifact(artifact))};\nexport default artifact;\n` });
  files.push({ name: 'kernels.d.ts', kind: 'types', data: MODULE_TYPES });
  return files;
}

/**
 * Writes `artifact` into the folder `out` (made where missing): the
 * manifest and its code files, and the module form (`kernels.js` with
 * `kernels.d.ts`); see {@link kernelArtifactFiles}.
 */
export function writeKernelArtifact(artifact: KernelArtifact, out: string): WrittenKernelArtifact {
  mkdirSync(out, { recursive: true });
  const code: string[] = [];
  for (const file of kernelArtifactFiles(artifact)) {
    writeFileSync(join(out, file.name), file.data);
    if (file.kind === 'code') code.push(join(out, file.name));
  }
  return { manifest: join(out, 'manifest.json'), module: join(out, 'kernels.js'), code };
}

/** The largest manifest.json read: its code lies in files beside it, so this is far more than any needs. */
const MAX_MANIFEST_BYTES = 64 << 20;

function fail(where: string, problem: string): never {
  throw new KernelArtifactFormatError(`${where}: ${problem}; build it again with cuda-js build-kernels`);
}

function readCode(c: SerializedArtifactCode, baseDir: string | undefined, where: string): ArtifactCode {
  if (c === null || typeof c !== 'object' || (c.kind !== 'cubin' && c.kind !== 'ptx') || typeof c.arch !== 'string') fail(where, 'a code entry is not { kind, arch, file | base64, bytes }');
  let data: Uint8Array;
  if (typeof c.base64 === 'string') data = new Uint8Array(Buffer.from(c.base64, 'base64'));
  else if (typeof c.file === 'string') {
    if (baseDir === undefined) fail(where, `the code ${c.file} is a file, and the artifact was given as an object: load its folder or manifest.json instead`);
    if (!Number.isSafeInteger(c.bytes) || c.bytes < 0) fail(where, `the ${c.kind} for ${c.arch} says it has ${String(c.bytes)} bytes`);
    try {
      data = new Uint8Array(readRegularFile(join(baseDir, c.file), { exactBytes: c.bytes }, (problem) => new Error(problem)));
    } catch (error) {
      throw new KernelArtifactFormatError(`${where}: the code file ${join(baseDir, c.file)} cannot be read (${(error as Error).message})`, undefined, { cause: error });
    }
  } else fail(where, `the ${c.kind} for ${c.arch} has neither a file nor base64 code`);
  if (data.byteLength !== c.bytes) fail(where, `the ${c.kind} for ${c.arch} has ${data.byteLength} bytes, the manifest says ${c.bytes}`);
  return { kind: c.kind, arch: c.arch, data };
}

/**
 * Reads an artifact: a folder that `writeKernelArtifact` wrote, its
 * `manifest.json`, or the object that its `kernels.js` exports.
 *
 * @throws {KernelArtifactFormatError} where it is not an artifact of this format, or a code file is missing or of the wrong size
 */
export function readKernelArtifact(source: string | SerializedKernelArtifact): KernelArtifact {
  let json: SerializedKernelArtifact;
  let baseDir: string | undefined;
  let where = 'kernel artifact';
  if (typeof source === 'string') {
    let path = resolve(source);
    try {
      if (statSync(path).isDirectory()) path = join(path, 'manifest.json');
      where = path;
      json = JSON.parse(readRegularFile(path, { maxBytes: MAX_MANIFEST_BYTES }, (problem) => new Error(problem)).toString('utf8')) as SerializedKernelArtifact;
    } catch (error) {
      throw new KernelArtifactFormatError(`kernel artifact ${path}: cannot be read as a manifest (${(error as Error).message})`, undefined, { cause: error });
    }
    baseDir = dirname(path);
  } else json = source;
  if (json === null || typeof json !== 'object' || !Array.isArray(json.kernels)) fail(where, 'not a kernel artifact (no kernels list)');
  if (json.format !== KERNEL_ARTIFACT_FORMAT) fail(where, `format ${String(json.format)}, this @cuda-js/jit reads format ${KERNEL_ARTIFACT_FORMAT}`);
  const kernels = json.kernels.map((k): ArtifactKernel => {
    if (k === null || typeof k !== 'object' || typeof k.name !== 'string' || typeof k.hash !== 'string' || !Array.isArray(k.specializations))
      fail(where, 'a kernel entry is not { name, hash, specializations }');
    const specializations = k.specializations.map((s: SerializedKernelArtifact['kernels'][number]['specializations'][number]): ArtifactSpecialization => {
      const params = decodeParams(s?.params);
      const collectives = decodeCollectives(s?.collectives);
      if (!params || !collectives || typeof s.signature !== 'string' || typeof s.symbol !== 'string' || !Array.isArray(s.code)) fail(where, `the entry of kernel ${k.name} has a damaged signature`);
      return { signature: s.signature, symbol: s.symbol, params, collectives, code: s.code.map((c: SerializedArtifactCode) => readCode(c, baseDir, `${where} (kernel ${k.name})`)) };
    });
    return { name: k.name, hash: k.hash, ...(typeof k.definedAt === 'string' ? { definedAt: k.definedAt } : {}), specializations };
  });
  return { format: KERNEL_ARTIFACT_FORMAT, jitVersion: String(json.jitVersion), toolchain: String(json.toolchain), kernels };
}
