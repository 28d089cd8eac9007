import { formatValue, UnsupportedArchitectureError } from './errors.js';

/** A GPU architecture: compute capability plus the family suffix (`a`: arch-specific, `f`: family). */
export interface Architecture {
  /** Compute capability major (9 for sm_90). */
  readonly major: number;
  /** Compute capability minor (0 for sm_90). */
  readonly minor: number;
  /** `''`, `'a'` (sm_90a) or `'f'` (sm_100f). */
  readonly suffix: '' | 'a' | 'f';
}

const ARCH_PATTERN = /^(sm|compute|lto)_(\d{2,3})([af]?)$/;

/**
 * Reads an architecture written as `sm_90`, `sm_90a`, `compute_100f`,
 * `lto_90`, or as a compute capability number (`90`, `'9.0'`).
 *
 * @throws {UnsupportedArchitectureError} for anything else
 */
export function parseArchitecture(value: unknown): Architecture {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 10 && value < 1000) {
    return { major: Math.floor(value / 10), minor: value % 10, suffix: '' };
  }
  if (typeof value === 'string') {
    const m = ARCH_PATTERN.exec(value);
    if (m) {
      const digits = Number(m[2]);
      return { major: Math.floor(digits / 10), minor: digits % 10, suffix: m[3] as Architecture['suffix'] };
    }
    const dotted = /^(\d{1,2})\.(\d)$/.exec(value);
    if (dotted) return { major: Number(dotted[1]), minor: Number(dotted[2]), suffix: '' };
  }
  throw new UnsupportedArchitectureError(
    value,
    `invalid architecture ${formatValue(value)}: write it as 'sm_90', 'sm_90a', 'compute_90' or 90`,
  );
}

/** The compute capability as one number: 90 for sm_90. */
export function computeCapability(arch: Architecture): number {
  return arch.major * 10 + arch.minor;
}

/** `sm_90a`: the real architecture, for cubin. */
export function smName(arch: Architecture): string {
  return `sm_${computeCapability(arch)}${arch.suffix}`;
}

/** `compute_90a`: the virtual architecture, for PTX and LTO-IR. */
export function computeName(arch: Architecture): string {
  return `compute_${computeCapability(arch)}${arch.suffix}`;
}
