// Lowers statements to basic blocks. Loops take the one shape that serves
// `for`, `while` and `do … while`:
//
//   head:  test (when there is one) → body or exit
//   body:  … `continue` → next, `break` → exit
//   next:  update; postTest (when there is one) → head or exit
//   exit:
//
// Barriers, fences and sleep are barrier-lowering.ts's and clock-lowering.ts's, print print-lowering.ts's.
import type { Stmt } from '../typing/typed-ir.js';
import { lowerBarrier, lowerFence } from './barrier-lowering.js';
import { lowerSleep } from './clock-lowering.js';
import { truthy } from './conversion-lowering.js';
import { lowerExpression } from './expression-lowering.js';
import type { LoweringContext } from './lowering-context.js';
import { unknownNode } from '../typing/unknown-node.js';
import { LoweringError } from './lowering-error.js';
import { lowerPrint } from './print-lowering.js';

/** Where `break` and `continue` naming a loop or labelled block go. */
interface JumpTargets {
  readonly breakTo: string;
  /** Undefined for labelled blocks, which `continue` cannot name. */
  readonly continueTo: string | undefined;
}

export type JumpScope = ReadonlyMap<number, JumpTargets>;

export function lowerStatements(ctx: LoweringContext, statements: readonly Stmt[], scope: JumpScope = new Map()): void {
  for (const statement of statements) lowerStatement(ctx, statement, scope);
}

function lowerStatement(ctx: LoweringContext, statement: Stmt, scope: JumpScope): void {
  const b = ctx.builder;
  switch (statement.op) {
    case 'expr':
      lowerExpression(ctx, statement.expr);
      return;
    case 'if': {
      const test = truthy(ctx, lowerExpression(ctx, statement.test));
      const thenStart = b.newLabel('if.then');
      const join = b.newLabel('if.end');
      const elseStart = statement.otherwise.length > 0 ? b.newLabel('if.else') : join;
      b.branchIf(test.ref, thenStart, elseStart);
      b.startBlock(thenStart);
      lowerStatements(ctx, statement.then, scope);
      if (elseStart !== join) {
        if (!b.isTerminated) b.branch(join);
        b.startBlock(elseStart);
        lowerStatements(ctx, statement.otherwise, scope);
      }
      b.startBlock(join);
      return;
    }
    case 'loop': {
      const head = b.newLabel('loop.head');
      const body = b.newLabel('loop.body');
      const next = b.newLabel('loop.next');
      const exit = b.newLabel('loop.exit');
      b.startBlock(head);
      if (statement.test) b.branchIf(truthy(ctx, lowerExpression(ctx, statement.test)).ref, body, exit);
      b.startBlock(body);
      const inner = new Map(scope).set(statement.id, { breakTo: exit, continueTo: next });
      lowerStatements(ctx, statement.body, inner);
      b.startBlock(next);
      lowerStatements(ctx, statement.update, scope);
      if (statement.postTest) b.branchIf(truthy(ctx, lowerExpression(ctx, statement.postTest)).ref, head, exit);
      else b.branch(head);
      b.startBlock(exit);
      return;
    }
    case 'block': {
      const exit = b.newLabel('block.end');
      lowerStatements(ctx, statement.body, new Map(scope).set(statement.id, { breakTo: exit, continueTo: undefined }));
      b.startBlock(exit);
      return;
    }
    case 'break': {
      const target = scope.get(statement.target);
      if (!target) throw new LoweringError(`break to ${statement.target}, which does not enclose it`);
      b.branch(target.breakTo);
      return;
    }
    case 'continue': {
      const target = scope.get(statement.target)?.continueTo;
      if (!target) throw new LoweringError(`continue to ${statement.target}, which is not an enclosing loop`);
      b.branch(target);
      return;
    }
    case 'return':
      b.terminate('ret void');
      return;
    case 'barrier':
      lowerBarrier(
        ctx,
        statement.scope,
        statement.mask === undefined ? undefined : lowerExpression(ctx, statement.mask),
      );
      return;
    case 'fence':
      lowerFence(ctx, statement.scope);
      return;
    case 'sleep':
      lowerSleep(ctx, lowerExpression(ctx, statement.nanoseconds));
      return;
    case 'print':
      lowerPrint(
        ctx,
        statement.format,
        statement.args.map((a) => lowerExpression(ctx, a)),
      );
      return;
    default:
      return unknownNode(statement, (detail) => new LoweringError(detail));
  }
}
