import { SimulatorError, type SourceLocator } from '../errors.js';
import type { TypedKernel } from '../types/typed-ir.js';
import { bigintToFloat32 } from './bigint-to-float32.js';
import { fmaFloat32, fmaFloat64 } from './exact-fma.js';
import type { FaultSites } from './fault-sites.js';
import { floatToI64, floatToInt, floatToU64 } from './float-to-integer.js';
import { absI32, absI64, maxBigint, maxNumber, minBigint, minNumber, roundHalfUp, signBigint, signNumber } from './math-formulas.js';
import { SimulatorFault } from './simulator-fault.js';

/** The functions that generated kernels call: the cold paths that fail, and helpers too long to write inline. */
export interface SimulatorRuntime {
  /** An index outside `0..extent-1` in some dimension at fault site `site`. */
  outOfBounds(site: number, indices: readonly number[], extents: readonly number[]): never;
  /** An integer division or remainder by zero at fault site `site`. */
  divisionByZero(site: number): never;
  /** Turns a fault into a SimulatorError that names the position and the thread; other errors pass through. */
  locateFault(error: unknown, block: readonly number[], thread: readonly number[]): unknown;
  floatToInt: typeof floatToInt;
  floatToI64: typeof floatToI64;
  floatToU64: typeof floatToU64;
  bigintToFloat32: typeof bigintToFloat32;
  fmaFloat32: typeof fmaFloat32;
  fmaFloat64: typeof fmaFloat64;
  roundHalfUp: typeof roundHalfUp;
  signNumber: typeof signNumber;
  signBigint: typeof signBigint;
  minNumber: typeof minNumber;
  maxNumber: typeof maxNumber;
  minBigint: typeof minBigint;
  maxBigint: typeof maxBigint;
  absI32: typeof absI32;
  absI64: typeof absI64;
}

/** The runtime's member names, which the generated code takes into local constants once. */
export const RUNTIME_NAMES = [
  'outOfBounds',
  'divisionByZero',
  'locateFault',
  'floatToInt',
  'floatToI64',
  'floatToU64',
  'bigintToFloat32',
  'fmaFloat32',
  'fmaFloat64',
  'roundHalfUp',
  'signNumber',
  'signBigint',
  'minNumber',
  'maxNumber',
  'minBigint',
  'maxBigint',
  'absI32',
  'absI64',
] as const satisfies readonly (keyof SimulatorRuntime)[];

/** An index as the message shows it: all digits; a huge one came from a bigint and was rounded on the way. */
function formatNumber(value: number): string {
  if (Number.isSafeInteger(value)) return String(value);
  return Number.isInteger(value) ? `${BigInt(value)} (approximately)` : String(value);
}

export function createSimulatorRuntime(kernel: TypedKernel, sites: FaultSites, locator: SourceLocator): SimulatorRuntime {
  const paramName = (index: number): string => kernel.params[index]?.name ?? `#${index}`;
  return {
    outOfBounds(site, indices, extents) {
      const s = sites.get(site);
      const name = s.kind === 'bounds' ? paramName(s.array) : '?';
      const k = indices.findIndex((index, dim) => !(index >= 0 && index < (extents[dim] ?? 0)));
      const dim = Math.max(k, 0);
      const index = formatNumber(indices[dim] ?? NaN);
      const extent = extents[dim] ?? 0;
      const detail =
        extents.length === 1
          ? `index ${index} is out of bounds of '${name}' (length ${extent})`
          : `index ${index} is out of bounds for dimension ${dim} of '${name}' (shape [${extents.join(', ')}], indices [${indices.map(formatNumber).join(', ')}])`;
      throw new SimulatorFault(site, detail);
    },
    divisionByZero(site) {
      const s = sites.get(site);
      throw new SimulatorFault(site, s.kind === 'division' && s.operator === 'rem' ? 'integer remainder by zero' : 'integer division by zero');
    },
    locateFault(error, block, thread) {
      if (!(error instanceof SimulatorFault)) return error;
      const detail = `${error.detail}, in thread (${thread.join(', ')}) of block (${block.join(', ')})`;
      return new SimulatorError(detail, { locator, loc: sites.get(error.site).loc });
    },
    floatToInt,
    floatToI64,
    floatToU64,
    bigintToFloat32,
    fmaFloat32,
    fmaFloat64,
    roundHalfUp,
    signNumber,
    signBigint,
    minNumber,
    maxNumber,
    minBigint,
    maxBigint,
    absI32,
    absI64,
  };
}
