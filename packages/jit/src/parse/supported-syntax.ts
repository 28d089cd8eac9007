import type { ESTree } from 'meriyah';
import { UnsupportedSyntaxError } from '../errors.js';
import type { SourceMapper } from './source-locator.js';

/** The syntax tree nodes that kernels may contain (what each means is the `types` stage's business). */
const SUPPORTED: ReadonlySet<string> = new Set([
  'BlockStatement',
  'ExpressionStatement',
  'VariableDeclaration',
  'VariableDeclarator',
  'IfStatement',
  'ForStatement',
  'WhileStatement',
  'DoWhileStatement',
  'LabeledStatement',
  'BreakStatement',
  'ContinueStatement',
  'ReturnStatement',
  'EmptyStatement',
  'Literal',
  'Identifier',
  'BinaryExpression',
  'LogicalExpression',
  'UnaryExpression',
  'UpdateExpression',
  'AssignmentExpression',
  'ConditionalExpression',
  'MemberExpression',
  'CallExpression',
  'SequenceExpression',
  'ParenthesizedExpression',
  'ArrayPattern',
]);

/** What to say of an unsupported node, where more can be said than its name. */
const ADVICE: Readonly<Record<string, string>> = {
  ForInStatement: "'for...in'; write a counting loop",
  ForOfStatement: "'for...of'; write a counting loop",
  FunctionDeclaration: 'a nested function (device functions come with jit.device)',
  FunctionExpression: 'a function inside a kernel',
  ArrowFunctionExpression: 'a function inside a kernel',
  SwitchStatement: "'switch'; write if/else",
  TryStatement: 'exceptions',
  ThrowStatement: 'exceptions',
  TemplateLiteral: 'strings',
  ObjectExpression: 'object and array literals',
  ArrayExpression: 'object and array literals',
  ObjectPattern: 'object destructuring',
  NewExpression: "'new'",
  ThisExpression: "'this'",
  AwaitExpression: "'await'",
  YieldExpression: "'yield'",
  ClassDeclaration: 'classes',
  ClassExpression: 'classes',
  SpreadElement: 'spread arguments',
  TaggedTemplateExpression: 'strings',
  ChainExpression: "optional chaining ('?.')",
};

/** The message of {@link UnsupportedSyntaxError} for a node kernels do not support. */
export function unsupportedMessage(what: string): string {
  return `${what} is not supported in kernels`;
}

/** The phrase for an unsupported node type (`'switch'; write if/else`). */
export function unsupportedNodePhrase(type: string): string {
  return ADVICE[type] ?? `'${type}'`;
}

/**
 * Refuses, when a kernel is made, any syntax that no signature can make
 * valid, so that the error shows at the definition rather than at the
 * first launch.
 */
export function checkSyntax(root: ESTree.Node, locator: SourceMapper): void {
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const n = node as ESTree.Node & Record<string, unknown>;
    if (typeof n.type !== 'string') return;
    if (!SUPPORTED.has(n.type)) {
      throw new UnsupportedSyntaxError(unsupportedMessage(unsupportedNodePhrase(n.type)), { locator, loc: { start: n.start ?? 0, end: n.end ?? 0 } });
    }
    for (const key in n) if (key !== 'start' && key !== 'end' && key !== 'type') visit(n[key]);
  };
  visit(root);
}
