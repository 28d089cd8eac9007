// The launch stage: argument types at launch, and launching one specialization.
export { argumentTypes, type LaunchTarget } from './argument-types.js';
export { KernelLauncher, type ForallOptions } from './kernel-launcher.js';
export { forallConfig } from './forall.js';
export { kernelArgumentLayout } from './kernel-argument-layout.js';
export { kernelScalarOf, dtypeOfScalar } from './kernel-dtype.js';
