/**
 * NCCL's environment defaults, set in `process.env` before the first NCCL
 * call of this process: NCCL reads its variables when it initializes, and
 * child processes (`child_process.fork`, `spawn` without an `env` of their
 * own) inherit them. `NCCL_NVLS_ENABLE=0` keeps NVLink SHARP (multicast
 * objects) off unless the user set it: multicast on a shared host can put its
 * GPUs out of service, and one process per GPU never needs it. A value the
 * user set, `1` included, is kept.
 */
export function applyNcclEnvironmentDefaults(): void {
  process.env['NCCL_NVLS_ENABLE'] ??= '0';
}
