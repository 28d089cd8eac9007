/**
 * Whether a function body always ends in a `return` (it cannot run off its
 * end): what a device function that returns a value must do, since kernels
 * have no `undefined`. Conservative: a path this cannot follow counts as one
 * that falls through (the user then adds a final `return`).
 */
import type { ESTree } from 'meriyah';

type Node = ESTree.Node;

const isLoop = (n: Node): n is ESTree.ForStatement | ESTree.WhileStatement | ESTree.DoWhileStatement =>
  n.type === 'ForStatement' || n.type === 'WhileStatement' || n.type === 'DoWhileStatement';

/** A loop test that is always true: none, `true`, or a nonzero number. */
function alwaysTrue(test: ESTree.Expression | null | undefined): boolean {
  if (!test) return true;
  return (
    test.type === 'Literal' &&
    (test.value === true || (typeof test.value === 'number' && test.value !== 0 && !Number.isNaN(test.value)))
  );
}

/** Whether a `break` inside `node` leaves the statement that `node` is the body of (labelled `label`, a loop if `loop`). */
function breaksOut(node: Node | null | undefined, label: string | undefined, loop: boolean): boolean {
  if (!node) return false;
  switch (node.type) {
    case 'BreakStatement': {
      const target = (node as ESTree.BreakStatement).label?.name;
      return target === undefined ? loop : target === label;
    }
    case 'BlockStatement':
      return (node as ESTree.BlockStatement).body.some((s) => breaksOut(s, label, loop));
    case 'IfStatement': {
      const n = node as ESTree.IfStatement;
      return breaksOut(n.consequent, label, loop) || breaksOut(n.alternate, label, loop);
    }
    case 'LabeledStatement': {
      const n = node as ESTree.LabeledStatement;
      // an inner label of the same name hides the outer one
      return n.label.name === label ? false : breaksOut(n.body, label, loop);
    }
    default:
      // an unlabelled break inside an inner loop leaves that loop only
      if (isLoop(node)) return breaksOut(node.body, label, false);
      return false;
  }
}

function loopAlwaysReturns(
  node: ESTree.ForStatement | ESTree.WhileStatement | ESTree.DoWhileStatement,
  label: string | undefined,
): boolean {
  if (node.type === 'DoWhileStatement') return false;
  return alwaysTrue(node.test) && !breaksOut(node.body, label, true);
}

export function alwaysReturns(node: Node | null | undefined): boolean {
  if (!node) return false;
  switch (node.type) {
    case 'ReturnStatement':
      return true;
    case 'BlockStatement':
      return (node as ESTree.BlockStatement).body.some((s) => alwaysReturns(s));
    case 'IfStatement': {
      const n = node as ESTree.IfStatement;
      return alwaysReturns(n.consequent) && alwaysReturns(n.alternate);
    }
    case 'LabeledStatement': {
      const n = node as ESTree.LabeledStatement;
      if (isLoop(n.body)) return loopAlwaysReturns(n.body, n.label.name);
      return alwaysReturns(n.body) && !breaksOut(n.body, n.label.name, false);
    }
    default:
      if (isLoop(node)) return loopAlwaysReturns(node, undefined);
      return false;
  }
}
