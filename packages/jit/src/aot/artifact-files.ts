// A kernel artifact on disk and as a JavaScript module: `manifest.json`
// with the code beside it (one file per cubin or PTX, for apps that ship
// assets), and `kernels.js`, the same manifest with the code inside it as
// base64 (for apps that bundle: import it and a bundler embeds it).
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readRegularFile } from '@cuda-js/pathfinder';
import { parseArchitecture } from '@cuda-js/program';
import { decodeCollectives, decodeParams } from '../compile/kernel-cache.js';
import { KernelArtifactFormatError } from '../errors.js';
import { signatureKey } from '../typing/jit-types.js';
import {
  KERNEL_ARTIFACT_FORMAT,
  type ArtifactCode,
  type ArtifactKernel,
  type ArtifactSpecialization,
  type KernelArtifact,
} from './kernel-artifact.js';

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
    readonly specializations: readonly (Omit<ArtifactSpecialization, 'code'> & {
      readonly code: readonly SerializedArtifactCode[];
    })[];
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

/** The longest kernel name kept in a code file's name (file systems take 255 bytes). */
const MAX_NAME_IN_FILE = 64;

/**
 * Names for the code files of one artifact: readable (the kernel's name,
 * the signature's index, the architecture), of safe characters only, and
 * distinct even where kernel names differ only in characters that are
 * replaced (`a/b`, `a_b`) or in case (`Scale`, `scale` on macOS and Windows).
 */
function codeFileNamer(): (kernel: string, index: number, code: ArtifactCode) => string {
  const used = new Set<string>();
  const safe = (text: string) => text.replace(/[^A-Za-z0-9_.-]/g, '_');
  return (kernel, index, code) => {
    const base = safe(kernel).slice(0, MAX_NAME_IN_FILE);
    const rest = `${index}.${safe(code.arch)}.${code.kind === 'cubin' ? 'cubin' : 'ptx'}`;
    let name = `${base}.${rest}`;
    // '~' is never in a safe name: a numbered one is no other kernel's
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base}~${n}.${rest}`;
    used.add(name.toLowerCase());
    return name;
  };
}

function serialized(
  artifact: KernelArtifact,
  code: (kernel: ArtifactKernel, index: number, c: ArtifactCode) => SerializedArtifactCode,
): SerializedKernelArtifact {
  return {
    format: artifact.format,
    jitVersion: artifact.jitVersion,
    toolchain: artifact.toolchain,
    kernels: artifact.kernels.map((k) => ({
      name: k.name,
      hash: k.hash,
      ...(k.definedAt === undefined ? {} : { definedAt: k.definedAt }),
      specializations: k.specializations.map((s, i) => ({
        signature: s.signature,
        symbol: s.symbol,
        params: s.params,
        collectives: s.collectives,
        code: s.code.map((c) => code(k, i, c)),
      })),
    })),
  };
}

/**
 * The artifact as JSON with its code inline (base64): what `kernels.js` exports.
 *
 * @throws {KernelArtifactFormatError} for an artifact that {@link readKernelArtifact} would refuse (one made by hand)
 */
export function serializeKernelArtifact(artifact: KernelArtifact): SerializedKernelArtifact {
  readKernelArtifact(artifact);
  return serialized(artifact, (_k, _i, c) => ({
    kind: c.kind,
    arch: c.arch,
    bytes: c.data.byteLength,
    base64: Buffer.from(c.data.buffer, c.data.byteOffset, c.data.byteLength).toString('base64'),
  }));
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
 *
 * @throws {KernelArtifactFormatError} for an artifact that {@link readKernelArtifact} would refuse (one made by hand)
 */
export function kernelArtifactFiles(artifact: KernelArtifact): KernelArtifactFile[] {
  // what is written is what reads back: an artifact made by hand is checked as a read one is
  readKernelArtifact(artifact);
  const files: KernelArtifactFile[] = [];
  const fileName = codeFileNamer();
  const manifest = serialized(artifact, (k, i, c) => {
    const name = fileName(k.name, i, c);
    files.push({ name, kind: 'code', data: c.data });
    return { kind: c.kind, arch: c.arch, file: name, bytes: c.data.byteLength };
  });
  files.push({ name: 'manifest.json', kind: 'manifest', data: `${JSON.stringify(manifest, null, 2)}\n` });
  const header =
    '// Kernels compiled ahead of time by cuda-js: load with loadKernelArtifact(artifact). Generated; do not edit.\n';
  files.push({
    name: 'kernels.js',
    kind: 'module',
    data: `${header}const artifact = ${JSON.stringify(serializeKernelArtifact(artifact))};\nexport default artifact;\n`,
  });
  files.push({ name: 'kernels.d.ts', kind: 'types', data: MODULE_TYPES });
  return files;
}

/**
 * Writes `artifact` into the folder `out` (made where missing): the
 * manifest and its code files, and the module form (`kernels.js` with
 * `kernels.d.ts`); see {@link kernelArtifactFiles}.
 *
 * @throws {KernelArtifactFormatError} for an artifact that {@link readKernelArtifact} would refuse (one made by hand), before anything is written
 */
export function writeKernelArtifact(artifact: KernelArtifact, out: string): WrittenKernelArtifact {
  const files = kernelArtifactFiles(artifact);
  mkdirSync(out, { recursive: true });
  const code: string[] = [];
  for (const file of files) {
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

/** A code file's name as the manifest gives it: one name in the manifest's folder (what writeKernelArtifact writes), never a path out of it. */
function codeFileName(file: string, where: string): string {
  if (file === '' || file === '.' || file === '..' || /[/\\\0]/.test(file))
    fail(where, `the code file ${JSON.stringify(file)} is not a file name in the artifact's folder`);
  return file;
}

const ELF_MAGIC = [0x7f, 0x45, 0x4c, 0x46];

/** Where code of one kind is the other (a cubin is an ELF file, PTX is text): the code files were swapped or mislabelled. */
function checkCodeBytes(kind: 'cubin' | 'ptx', arch: string, data: Uint8Array, where: string): void {
  const elf = data.byteLength >= 4 && ELF_MAGIC.every((b, i) => data[i] === b);
  if (kind === 'cubin' && !elf) fail(where, `the cubin for ${arch} is not an ELF file (is it PTX, or another file?)`);
  if (kind === 'ptx' && (elf || data.includes(0)))
    fail(where, `the PTX for ${arch} is not text (is it a cubin, or another file?)`);
}

/** An entry's code: in memory (`data`), inline (`base64`) or in a file beside the manifest (`file`), of the size it says. */
function readCode(c: SerializedArtifactCode | ArtifactCode, baseDir: string | undefined, where: string): ArtifactCode {
  if (c === null || typeof c !== 'object' || (c.kind !== 'cubin' && c.kind !== 'ptx') || typeof c.arch !== 'string')
    fail(where, 'a code entry is not { kind, arch, file | base64, bytes }');
  const { kind, arch } = c;
  try {
    parseArchitecture(arch);
  } catch {
    fail(where, `the ${kind} says its architecture is ${JSON.stringify(arch)}, which is none ('sm_90', 'compute_90')`);
  }
  const serialized = c as Partial<SerializedArtifactCode>;
  const bytes = serialized.bytes;
  let data: Uint8Array;
  const given = (c as Partial<ArtifactCode>).data;
  if (given instanceof Uint8Array) data = given;
  else if (typeof serialized.base64 === 'string') data = new Uint8Array(Buffer.from(serialized.base64, 'base64'));
  else if (typeof serialized.file === 'string') {
    const name = codeFileName(serialized.file, where);
    if (baseDir === undefined)
      fail(
        where,
        `the code ${name} is a file, and the artifact was given as an object: load its folder or manifest.json instead`,
      );
    if (!Number.isSafeInteger(bytes) || bytes! < 0)
      fail(where, `the ${kind} for ${arch} says it has ${String(bytes)} bytes`);
    const path = join(baseDir, name);
    try {
      data = new Uint8Array(readRegularFile(path, { exactBytes: bytes! }, (problem) => new Error(problem)));
    } catch (error) {
      throw new KernelArtifactFormatError(
        `${where}: the code file ${path} cannot be read (${(error as Error).message})`,
        undefined,
        { cause: error },
      );
    }
  } else fail(where, `the ${kind} for ${arch} has neither a file nor base64 code`);
  if (!(given instanceof Uint8Array) || bytes !== undefined) {
    if (data.byteLength !== bytes)
      fail(where, `the ${kind} for ${arch} has ${data.byteLength} bytes, the manifest says ${String(bytes)}`);
  }
  checkCodeBytes(kind, arch, data, where);
  return { kind, arch, data };
}

type ReadableKernel = SerializedKernelArtifact['kernels'][number] | ArtifactKernel;
type ReadableSpecialization = ReadableKernel['specializations'][number];

function readSpecialization(
  s: ReadableSpecialization,
  k: ReadableKernel,
  baseDir: string | undefined,
  where: string,
): ArtifactSpecialization {
  const params = decodeParams(s?.params);
  const collectives = decodeCollectives(s?.collectives);
  if (
    !params ||
    !collectives ||
    typeof s.signature !== 'string' ||
    typeof s.symbol !== 'string' ||
    !Array.isArray(s.code)
  )
    fail(where, `the entry of kernel ${k.name} has a damaged signature`);
  if (s.symbol === '' || s.symbol.includes('\0'))
    fail(where, `the entry of kernel ${k.name} names the entry point ${JSON.stringify(s.symbol)}, which no code has`);
  // the launch finds the entry by its signature and lays the arguments out by its parameters: they must say the same
  const laidOut = signatureKey(params.map((p) => p.type));
  if (laidOut !== s.signature)
    fail(where, `the entry of kernel ${k.name} for (${s.signature}) lays out parameters of (${laidOut})`);
  const code = (s.code as readonly (SerializedArtifactCode | ArtifactCode)[]).map((c) =>
    readCode(c, baseDir, `${where} (kernel ${k.name})`),
  );
  return { signature: s.signature, symbol: s.symbol, params, collectives, code };
}

function readKernel(k: ReadableKernel, baseDir: string | undefined, where: string, names: Set<string>): ArtifactKernel {
  if (
    k === null ||
    typeof k !== 'object' ||
    typeof k.name !== 'string' ||
    typeof k.hash !== 'string' ||
    !Array.isArray(k.specializations)
  )
    fail(where, 'a kernel entry is not { name, hash, specializations }');
  // the runtime finds an entry by name and a specialization by signature: a second one would never be served, or served instead
  if (names.has(k.name)) fail(where, `two kernels are named ${k.name}`);
  names.add(k.name);
  const signatures = new Set<string>();
  const specializations = (k.specializations as readonly ReadableSpecialization[]).map((s) => {
    const spec = readSpecialization(s, k, baseDir, where);
    if (signatures.has(spec.signature)) fail(where, `kernel ${k.name} lists the signature (${spec.signature}) twice`);
    signatures.add(spec.signature);
    return spec;
  });
  return {
    name: k.name,
    hash: k.hash,
    ...(typeof k.definedAt === 'string' ? { definedAt: k.definedAt } : {}),
    specializations,
  };
}

function readArtifact(
  json: SerializedKernelArtifact | KernelArtifact,
  baseDir: string | undefined,
  where: string,
): KernelArtifact {
  if (json === null || typeof json !== 'object' || !Array.isArray(json.kernels))
    fail(where, 'not a kernel artifact (no kernels list)');
  if (json.format !== KERNEL_ARTIFACT_FORMAT)
    fail(where, `format ${String(json.format)}, this @cuda-js/jit reads format ${KERNEL_ARTIFACT_FORMAT}`);
  const names = new Set<string>();
  const kernels = (json.kernels as readonly ReadableKernel[]).map((k) => readKernel(k, baseDir, where, names));
  return {
    format: KERNEL_ARTIFACT_FORMAT,
    jitVersion: String(json.jitVersion),
    toolchain: String(json.toolchain),
    kernels,
  };
}

/**
 * The path of a `file:` URL naming an artifact's folder or manifest
 * (`new URL('./kernels-aot/', import.meta.url)`: beside the module, wherever
 * the process runs).
 *
 * @throws {KernelArtifactFormatError} for a URL of another scheme
 */
export function artifactPath(url: URL): string {
  if (url.protocol !== 'file:')
    throw new KernelArtifactFormatError(
      `kernel artifact ${url.href}: only a file: URL names a folder or manifest.json; load other URLs yourself and pass the artifact`,
    );
  return fileURLToPath(url);
}

/**
 * Reads an artifact: a folder that `writeKernelArtifact` wrote, its
 * `manifest.json`, the object that its `kernels.js` exports, or an artifact
 * in memory (checked the same way, field by field). A path is resolved
 * against the working directory (`process.cwd()`), as `fs` resolves one; a
 * `file:` URL (`new URL('./kernels-aot/', import.meta.url)`) names the folder
 * or manifest beside a module.
 *
 * @throws {KernelArtifactFormatError} where it is not an artifact of this format, or a code file is missing, outside its folder, of the wrong size or of the other kind
 */
export function readKernelArtifact(source: string | URL | SerializedKernelArtifact | KernelArtifact): KernelArtifact {
  if (source instanceof URL) source = artifactPath(source);
  if (typeof source !== 'string') {
    try {
      return readArtifact(source, undefined, 'kernel artifact');
    } catch (error) {
      if (error instanceof KernelArtifactFormatError) throw error;
      // a getter or Proxy trap of the object that threw: name it as what it is
      throw new KernelArtifactFormatError(
        `kernel artifact: the object cannot be read as one (${error instanceof Error ? `${error.name}: ${error.message}` : String(error)})`,
        undefined,
        {
          cause: error,
        },
      );
    }
  }
  let json: SerializedKernelArtifact;
  let path = resolve(source);
  try {
    if (statSync(path).isDirectory()) path = join(path, 'manifest.json');
    json = JSON.parse(
      readRegularFile(path, { maxBytes: MAX_MANIFEST_BYTES }, (problem) => new Error(problem)).toString('utf8'),
    ) as SerializedKernelArtifact;
  } catch (error) {
    throw new KernelArtifactFormatError(
      `kernel artifact ${path}: cannot be read as a manifest (${(error as Error).message})`,
      undefined,
      { cause: error },
    );
  }
  return readArtifact(json, dirname(path), path);
}
