import { describe, expect, it } from 'vitest';
import { KernelBuilder as LoweringKernel } from '../lower/ir-builders.test-support.js';
import { lowerKernel } from '../lower/lower-kernel.js';
import { LoweringError } from '../lower/lowering-error.js';
import { KernelBuilder as SimulatedKernelBuilder, NO_POSITIONS } from '../simulate/ir-builders.test-support.js';
import { forEachDeepExpr } from '../simulate/ir-traversal.js';
import { SimulatedKernel } from '../simulate/simulated-kernel.js';
import type { Expr, Stmt } from './typed-ir.js';

// IR that the typer never makes: a statement and an expression of an op that typed-ir.ts does not have.
const bogusStatement = { op: 'bogus' } as unknown as Stmt;
const bogusExpression: Stmt = { op: 'expr', expr: { op: 'bogus', type: 'i32' } as unknown as Expr };

describe('a typed IR node of an unknown op', () => {
  it('is refused by lowering with a LoweringError naming the op', () => {
    for (const body of [[bogusStatement], [bogusExpression]]) {
      const kernel = new LoweringKernel('k').build(body);
      expect(() => lowerKernel(kernel)).toThrow(LoweringError);
      expect(() => lowerKernel(kernel)).toThrow(/unknown op 'bogus'/);
    }
  });

  it('is refused by the simulator and by the IR traversal, naming the op', () => {
    for (const body of [[bogusStatement], [bogusExpression]]) {
      expect(() => new SimulatedKernel(new SimulatedKernelBuilder().build(body), NO_POSITIONS)).toThrow(
        /simulator: .*unknown op 'bogus'/,
      );
      expect(() => forEachDeepExpr(body, () => {})).toThrow(/simulator: .*unknown op 'bogus'/);
    }
  });
});
