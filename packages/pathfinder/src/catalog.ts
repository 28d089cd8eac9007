/**
 * What pathfinder knows about each CUDA library: data, not code.
 *
 * `sonames` maps a CUDA major version to the file names that library has in
 * that release; a `*` stands for any minor version (`libnvrtc-builtins.so.13.*`).
 * Several majors may share a soname (libnvvm.so.4 ships in 11, 12 and 13); the
 * major then comes from where the file lies (see `toolkit-version.ts`).
 */
import { TOOLKIT_TARGET } from './architecture.js';

export interface LibraryDescriptor {
  /** The name used with `findLibrary`, as cuda.pathfinder spells it. */
  readonly name: string;
  readonly description: string;
  readonly sonames: Readonly<Partial<Record<CudaMajor, readonly string[]>>>;
  /** Found only through the system loader (or an explicit override): the driver and NVML. */
  readonly systemOnly: boolean;
  /** Folders under site-packages that NVIDIA's pip wheels install it into, per major. */
  readonly pipDirectories: Readonly<Partial<Record<CudaMajor, readonly string[]>>>;
  /**
   * Folders under a toolkit root (CUDA_PATH, CUDA_HOME, /usr/local/cuda, a conda
   * prefix); `<target>` stands for the toolkit's target folder of the architecture
   * searched (`x86_64-linux`; `sbsa-linux`, then `aarch64-linux`, on arm64).
   */
  readonly toolkitDirectories: readonly string[];
}

export type CudaMajor = 11 | 12 | 13;
/** Newest first: the order in which candidates of equal rank are preferred. */
export const CUDA_MAJORS: readonly CudaMajor[] = [13, 12, 11];

// A toolkit that cross-compiles also holds other architectures' targets: only this one's are searched.
const LIB_DIRS = ['lib64', 'lib', `targets/${TOOLKIT_TARGET}/lib`] as const;
const NVVM_DIRS = ['nvvm/lib64', 'nvvm/lib', ...LIB_DIRS] as const;

function perMajor(name: string, versions: Partial<Record<CudaMajor, string>>): Partial<Record<CudaMajor, string[]>> {
  const out: Partial<Record<CudaMajor, string[]>> = {};
  for (const major of CUDA_MAJORS) {
    const suffix = versions[major];
    if (suffix !== undefined) out[major] = [`lib${name}.so.${suffix}`];
  }
  return out;
}

function wheels(cu12Component: string, extra12: readonly string[] = []): Partial<Record<CudaMajor, string[]>> {
  return {
    13: ['nvidia/cu13/lib'],
    12: [`nvidia/${cu12Component}/lib`, ...extra12],
    11: [`nvidia/${cu12Component}/lib`, ...extra12],
  };
}

function toolkitLibrary(
  name: string,
  description: string,
  versions: Partial<Record<CudaMajor, string>>,
  cu12Component: string,
): LibraryDescriptor {
  return {
    name,
    description,
    sonames: perMajor(name, versions),
    systemOnly: false,
    pipDirectories: wheels(cu12Component),
    toolkitDirectories: LIB_DIRS,
  };
}

export const LIBRARY_CATALOG: readonly LibraryDescriptor[] = [
  {
    name: 'cuda',
    description: 'CUDA driver API (libcuda), installed with the NVIDIA driver',
    sonames: { 13: ['libcuda.so.1'], 12: ['libcuda.so.1'], 11: ['libcuda.so.1'] },
    systemOnly: true,
    pipDirectories: {},
    toolkitDirectories: [],
  },
  {
    name: 'nvml',
    description: 'NVIDIA Management Library, installed with the NVIDIA driver',
    sonames: { 13: ['libnvidia-ml.so.1'], 12: ['libnvidia-ml.so.1'], 11: ['libnvidia-ml.so.1'] },
    systemOnly: true,
    pipDirectories: {},
    toolkitDirectories: [],
  },
  {
    name: 'nvrtc',
    description: 'NVRTC, the runtime C++ compiler',
    sonames: {
      13: ['libnvrtc.so.13'],
      12: ['libnvrtc.so.12'],
      11: ['libnvrtc.so.11.2', 'libnvrtc.so.11.1', 'libnvrtc.so.11.0'],
    },
    systemOnly: false,
    pipDirectories: wheels('cuda_nvrtc'),
    toolkitDirectories: LIB_DIRS,
  },
  {
    name: 'nvrtc-builtins',
    description: 'NVRTC built-in headers, loaded by NVRTC itself',
    sonames: {
      13: ['libnvrtc-builtins.so.13.*'],
      12: ['libnvrtc-builtins.so.12.*'],
      11: ['libnvrtc-builtins.so.11.*'],
    },
    systemOnly: false,
    pipDirectories: wheels('cuda_nvrtc'),
    toolkitDirectories: LIB_DIRS,
  },
  toolkitLibrary('nvJitLink', 'nvJitLink, the JIT linker (LTO-IR, PTX, cubin)', { 13: '13', 12: '12' }, 'nvjitlink'),
  {
    name: 'nvvm',
    description: 'libNVVM, the NVVM IR compiler',
    sonames: { 13: ['libnvvm.so.4'], 12: ['libnvvm.so.4'], 11: ['libnvvm.so.4'] },
    systemOnly: false,
    pipDirectories: {
      13: ['nvidia/cu13/lib', 'nvidia/cu13/nvvm/lib64'],
      12: ['nvidia/cuda_nvcc/nvvm/lib64'],
      11: ['nvidia/cuda_nvcc/nvvm/lib64'],
    },
    toolkitDirectories: NVVM_DIRS,
  },
  toolkitLibrary('cudart', 'CUDA runtime', { 13: '13', 12: '12', 11: '11.0' }, 'cuda_runtime'),
  toolkitLibrary('nvfatbin', 'nvFatbin, builds fat binaries', { 13: '13', 12: '12' }, 'nvfatbin'),
  {
    ...toolkitLibrary('cupti', 'CUPTI, the profiling tools interface', { 13: '13', 12: '12' }, 'cuda_cupti'),
    sonames: { 13: ['libcupti.so.13'], 12: ['libcupti.so.12'], 11: ['libcupti.so.11.*'] },
    toolkitDirectories: [...LIB_DIRS, 'extras/CUPTI/lib64'],
  },
  toolkitLibrary('cublas', 'cuBLAS', { 13: '13', 12: '12', 11: '11' }, 'cublas'),
  toolkitLibrary('cublasLt', 'cuBLASLt', { 13: '13', 12: '12', 11: '11' }, 'cublas'),
  toolkitLibrary('cufft', 'cuFFT', { 13: '12', 12: '11', 11: '10' }, 'cufft'),
  toolkitLibrary('curand', 'cuRAND', { 13: '10', 12: '10', 11: '10' }, 'curand'),
  toolkitLibrary('cusparse', 'cuSPARSE', { 13: '12', 12: '12', 11: '11' }, 'cusparse'),
  toolkitLibrary('cusolver', 'cuSOLVER', { 13: '12', 12: '11', 11: '11' }, 'cusolver'),
  {
    // NCCL keeps soname 2 across CUDA majors, so a find says nothing of the major;
    // the nvidia-nccl-cu11/cu12/cu13 wheels all install into nvidia/nccl/lib.
    name: 'nccl',
    description: 'NCCL, the NVIDIA Collective Communications Library',
    sonames: { 13: ['libnccl.so.2'], 12: ['libnccl.so.2'], 11: ['libnccl.so.2'] },
    systemOnly: false,
    pipDirectories: { 13: ['nvidia/nccl/lib'] },
    toolkitDirectories: LIB_DIRS,
  },
];

/** The names `findLibrary` accepts. */
export const SUPPORTED_LIBRARIES: readonly string[] = LIBRARY_CATALOG.map((d) => d.name);

/** The compilers whose majors should agree (cuda-python issues #839, #1977). */
export const COMPILER_LIBRARIES: readonly string[] = ['nvrtc', 'nvJitLink', 'nvvm'];

export function libraryDescriptor(name: string): LibraryDescriptor | undefined {
  return LIBRARY_CATALOG.find((d) => d.name === name);
}

export interface HeaderDescriptor {
  readonly name: string;
  /** A file whose presence marks the right folder. */
  readonly marker: string;
  /** Folders under a toolkit root or a conda prefix (`<target>` as in {@link LibraryDescriptor.toolkitDirectories}). */
  readonly toolkitDirectories: readonly string[];
  /** Folders under site-packages (NVIDIA's wheels). */
  readonly pipDirectories: readonly string[];
  /** Distribution folders (Debian's nvidia-cuda-dev puts headers in /usr/include). */
  readonly systemDirectories: readonly string[];
}

const INCLUDE_DIRS = ['include', `targets/${TOOLKIT_TARGET}/include`] as const;

export const HEADER_CATALOG: readonly HeaderDescriptor[] = [
  {
    name: 'cuda',
    marker: 'cuda.h',
    toolkitDirectories: INCLUDE_DIRS,
    pipDirectories: ['nvidia/cu13/include', 'nvidia/cuda_runtime/include'],
    systemDirectories: ['/usr/include'],
  },
  {
    name: 'cudart',
    marker: 'cuda_runtime.h',
    toolkitDirectories: INCLUDE_DIRS,
    pipDirectories: ['nvidia/cu13/include', 'nvidia/cuda_runtime/include'],
    systemDirectories: ['/usr/include'],
  },
  {
    name: 'nvrtc',
    marker: 'nvrtc.h',
    toolkitDirectories: INCLUDE_DIRS,
    pipDirectories: ['nvidia/cu13/include', 'nvidia/cuda_nvrtc/include'],
    systemDirectories: ['/usr/include'],
  },
  {
    name: 'nvvm',
    marker: 'nvvm.h',
    toolkitDirectories: ['nvvm/include', ...INCLUDE_DIRS],
    pipDirectories: ['nvidia/cu13/include', 'nvidia/cu13/nvvm/include', 'nvidia/cuda_nvcc/nvvm/include'],
    systemDirectories: [],
  },
  {
    name: 'cccl',
    marker: 'cuda/std/version',
    toolkitDirectories: ['include/cccl', `targets/${TOOLKIT_TARGET}/include/cccl`, ...INCLUDE_DIRS],
    pipDirectories: ['nvidia/cu13/include/cccl', 'nvidia/cuda_cccl/include', 'nvidia/cu13/include'],
    systemDirectories: [],
  },
];

export const SUPPORTED_HEADERS: readonly string[] = HEADER_CATALOG.map((d) => d.name);

export const LIBDEVICE_FILE = 'libdevice.10.bc';
export const LIBDEVICE_TOOLKIT_DIRECTORIES: readonly string[] = ['nvvm/libdevice'];
export const LIBDEVICE_PIP_DIRECTORIES: readonly string[] = [
  'nvidia/cu13/nvvm/libdevice',
  'nvidia/cuda_nvcc/nvvm/libdevice',
];
/** Debian's nvidia-cuda-toolkit. */
export const LIBDEVICE_SYSTEM_DIRECTORIES: readonly string[] = ['/usr/lib/nvidia-cuda-toolkit/libdevice'];
