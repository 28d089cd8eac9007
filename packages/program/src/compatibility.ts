// Will the driver load what a compiler produced? PTX is JIT-compiled by the
// driver, which accepts only PTX ISA versions up to its own CUDA release; a
// cubin loads on any driver of the same CUDA major or newer (minor-version
// compatibility), never on an older major.

/** A CUDA release as major.minor. */
export interface CudaVersion {
  readonly major: number;
  readonly minor: number;
}

/** A PTX ISA version, as in the `.version` directive. */
export interface PtxIsaVersion {
  readonly major: number;
  readonly minor: number;
}

// The PTX ISA release history (PTX ISA manual, "Release Notes"): the first CUDA release of each ISA.
const FIRST_CUDA_OF_PTX_ISA: Readonly<Record<string, readonly [number, number]>> = {
  '6.0': [9, 0],
  '6.1': [9, 1],
  '6.2': [9, 2],
  '6.3': [10, 0],
  '6.4': [10, 1],
  '6.5': [10, 2],
  '7.0': [11, 0],
  '7.1': [11, 1],
  '7.2': [11, 2],
  '7.3': [11, 3],
  '7.4': [11, 4],
  '7.5': [11, 5],
  '7.6': [11, 6],
  '7.7': [11, 7],
  '7.8': [11, 8],
  '8.0': [12, 0],
  '8.1': [12, 1],
  '8.2': [12, 2],
  '8.3': [12, 3],
  '8.4': [12, 4],
  '8.5': [12, 5],
  '8.6': [12, 7],
  '8.7': [12, 8],
  '8.8': [12, 9],
  '9.0': [13, 0],
  '9.1': [13, 1],
};

/** `12.2` from the `cuDriverGetVersion` number 12020. */
export function cudaVersionFromInteger(value: number): CudaVersion {
  return { major: Math.floor(value / 1000), minor: Math.floor((value % 1000) / 10) };
}

export function formatCudaVersion(v: CudaVersion): string {
  return `${v.major}.${v.minor}`;
}

function compare(a: CudaVersion, b: CudaVersion): number {
  return a.major - b.major || a.minor - b.minor;
}

const decoder = new TextDecoder();

/** The `.version` of PTX text (only the header is read), or undefined when there is none. */
export function ptxIsaVersion(ptx: string | Uint8Array): PtxIsaVersion | undefined {
  const head = typeof ptx === 'string' ? ptx.slice(0, 4096) : decoder.decode(ptx.subarray(0, 4096));
  const m = /^\s*\.version\s+(\d+)\.(\d+)/m.exec(head);
  return m ? { major: Number(m[1]), minor: Number(m[2]) } : undefined;
}

/**
 * The oldest CUDA release (driver, nvJitLink or ptxas) that reads this PTX
 * ISA. ISAs newer than the table follow its pattern (ISA 9.x is CUDA 13.x)
 * and are marked `estimated`.
 */
export function minimumCudaForPtxIsa(isa: PtxIsaVersion): CudaVersion & { readonly estimated: boolean } {
  const known = FIRST_CUDA_OF_PTX_ISA[`${isa.major}.${isa.minor}`];
  if (known) return { major: known[0], minor: known[1], estimated: false };
  return { major: isa.major + 4, minor: isa.minor, estimated: true };
}

/** What produced some code, for messages: `NVRTC 13.0`, `libNVVM (CUDA 13.0)`. */
export interface Producer {
  readonly name: string;
  /** The producer's CUDA release, where known. */
  readonly cudaVersion: CudaVersion | undefined;
}

/** The answer of {@link checkCompatibility}. */
export interface CompatibilityReport {
  /** False when the driver will refuse the code. */
  readonly loadable: boolean;
  readonly codeType: string;
  readonly producer: Producer;
  /** The driver's CUDA release (`cuDriverGetVersion`). */
  readonly driverCudaVersion: CudaVersion;
  /** For PTX: its ISA version and the oldest CUDA release that reads it. */
  readonly ptxIsa?: PtxIsaVersion;
  readonly requiredCudaVersion?: CudaVersion;
  /** What is wrong and what to do; empty when loadable. */
  readonly message: string;
}

/**
 * Whether a driver of `driverVersion` (the number `cuDriverGetVersion`
 * returns) can load `code` of `codeType` that `producer` made. Only PTX and
 * cubin are judged; other kinds go through a linker first and are reported
 * loadable here.
 */
export function checkCompatibility(
  code: string | Uint8Array,
  codeType: string,
  producer: Producer,
  driverVersion: number,
): CompatibilityReport {
  const driver = cudaVersionFromInteger(driverVersion);
  const base = { codeType, producer, driverCudaVersion: driver };
  const by = `${producer.name}${producer.cudaVersion ? ` (CUDA ${formatCudaVersion(producer.cudaVersion)})` : ''}`;
  if (codeType === 'ptx') {
    const isa = ptxIsaVersion(code);
    if (!isa) return { ...base, loadable: true, message: '' };
    const required = minimumCudaForPtxIsa(isa);
    if (compare(required, driver) <= 0)
      return { ...base, loadable: true, ptxIsa: isa, requiredCudaVersion: required, message: '' };
    const message =
      `PTX ISA ${isa.major}.${isa.minor} from ${by} needs a driver of CUDA ${formatCudaVersion(required)} or newer${required.estimated ? ' (estimated)' : ''}, ` +
      `but the driver supports CUDA ${formatCudaVersion(driver)}, so it cannot load this PTX. ` +
      (required.major === driver.major
        ? `Compile to 'cubin' instead (minor-version compatibility lets a CUDA ${required.major}.x cubin load on this driver), update the driver, or use a toolchain no newer than CUDA ${formatCudaVersion(driver)}.`
        : `Update the driver to CUDA ${formatCudaVersion(required)} or newer, or compile with a CUDA ${driver.major}.x toolchain (NVRTC, libNVVM and nvJitLink of that major).`);
    return { ...base, loadable: false, ptxIsa: isa, requiredCudaVersion: required, message };
  }
  if (codeType === 'cubin' && producer.cudaVersion && producer.cudaVersion.major > driver.major) {
    const message =
      `a cubin from ${by} needs a driver of CUDA ${producer.cudaVersion.major}.0 or newer, but the driver supports CUDA ${formatCudaVersion(driver)}. ` +
      `Minor-version compatibility covers one major only: update the driver, or compile with a CUDA ${driver.major}.x toolchain.`;
    return { ...base, loadable: false, requiredCudaVersion: { major: producer.cudaVersion.major, minor: 0 }, message };
  }
  return { ...base, loadable: true, message: '' };
}

const warned = new Set<string>();

/**
 * Emits a `CudaCompatibilityWarning` process warning for a report that is not
 * loadable, once per distinct message in a process.
 */
export function warnIfIncompatible(report: CompatibilityReport): void {
  if (report.loadable || warned.has(report.message)) return;
  warned.add(report.message);
  process.emitWarning(report.message, { type: 'CudaCompatibilityWarning', code: 'CUDA_JS_INCOMPATIBLE_CODE' });
}
