/**
 * The kernel attributes that {@link Kernel.getAttribute} reads, by camelCase
 * name, with their `CUfunction_attribute` names.
 */
export const KERNEL_ATTRIBUTES = {
  /** Most threads per block this kernel can be launched with (registers and shared memory permitting). */
  maxThreadsPerBlock: 'CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK',
  /** Static shared memory per block, in bytes. */
  sharedSizeBytes: 'CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES',
  /** Constant memory the kernel uses, in bytes. */
  constSizeBytes: 'CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES',
  /** Local memory per thread, in bytes. */
  localSizeBytes: 'CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES',
  /** Registers per thread. */
  numRegs: 'CU_FUNC_ATTRIBUTE_NUM_REGS',
  /** PTX virtual architecture the kernel was compiled for, as major*10+minor (90). */
  ptxVersion: 'CU_FUNC_ATTRIBUTE_PTX_VERSION',
  /** Binary architecture, as major*10+minor (90). */
  binaryVersion: 'CU_FUNC_ATTRIBUTE_BINARY_VERSION',
  /** Whether it was compiled with -Xptxas --dlcm=ca. */
  cacheModeCa: 'CU_FUNC_ATTRIBUTE_CACHE_MODE_CA',
  /** Most dynamic shared memory per block, in bytes (settable). */
  maxDynamicSharedSizeBytes: 'CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES',
  /** Preferred shared memory carveout, percent of the maximum (settable). */
  preferredSharedMemoryCarveout: 'CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT',
  /** Whether a cluster size must be given at launch. */
  clusterSizeMustBeSet: 'CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET',
  /** Compile-time cluster dimensions (0 when none; settable). */
  requiredClusterWidth: 'CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH',
  requiredClusterHeight: 'CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT',
  requiredClusterDepth: 'CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH',
  /** Whether clusters larger than the portable size (8) are allowed (settable). */
  nonPortableClusterSizeAllowed: 'CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED',
  /** Block scheduling policy preference of clusters (settable). */
  clusterSchedulingPolicyPreference: 'CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE',
} as const;

/** The name of a kernel attribute. */
export type KernelAttributeName = keyof typeof KERNEL_ATTRIBUTES;

/** The attributes that the driver lets a program change (`cuKernelSetAttribute`). */
export const SETTABLE_KERNEL_ATTRIBUTES: readonly KernelAttributeName[] = [
  'maxDynamicSharedSizeBytes',
  'preferredSharedMemoryCarveout',
  'requiredClusterWidth',
  'requiredClusterHeight',
  'requiredClusterDepth',
  'nonPortableClusterSizeAllowed',
  'clusterSchedulingPolicyPreference',
];

/** Every attribute of a kernel on one device. */
export type KernelAttributes = { readonly [K in KernelAttributeName]: number };
