import type { ESTree } from 'meriyah';
import { UnsupportedSyntaxError } from '../errors.js';
import type { SourceLocator } from '../errors.js';

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

/** Whether a node names `cuda` (`cuda`, or `ns.cuda` as bundlers write it). */
function namesCuda(node: ESTree.Node): boolean {
  if (node.type === 'Identifier') return node.name === 'cuda';
  return (
    node.type === 'MemberExpression' &&
    !node.computed &&
    node.property.type === 'Identifier' &&
    node.property.name === 'cuda'
  );
}

/**
 * The argument of a call that may be an array literal: the shape of
 * `cuda.shared.array([16, 16], f32)` and `cuda.local.array`, the index of
 * `cuda.atomic.add(a, [i, j], v)`. Nowhere else are array literals allowed.
 */
function arrayLiteralArgument(call: ESTree.CallExpression): number | undefined {
  const callee = call.callee;
  if (callee.type !== 'MemberExpression' || callee.computed || callee.property.type !== 'Identifier') return undefined;
  const group = callee.object;
  if (
    group.type !== 'MemberExpression' ||
    group.computed ||
    group.property.type !== 'Identifier' ||
    !namesCuda(group.object)
  )
    return undefined;
  if ((group.property.name === 'shared' || group.property.name === 'local') && callee.property.name === 'array')
    return 0;
  if (group.property.name === 'atomic') return 1;
  return undefined;
}

/**
 * Refuses, when a kernel is made, any syntax that no signature can make
 * valid, so that the error shows at the definition rather than at the
 * first launch.
 */
export function checkSyntax(root: ESTree.Node, locator: SourceLocator): void {
  const refuse = (n: ESTree.Node, what: string): never => {
    throw new UnsupportedSyntaxError(unsupportedMessage(what), {
      locator,
      loc: { start: n.start ?? 0, end: n.end ?? 0 },
    });
  };
  const visit = (node: unknown): void => {
    if (node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const n = node as ESTree.Node & Record<string, unknown>;
    if (typeof n.type !== 'string') return;
    if (n.type === 'CallExpression') {
      const call = n as ESTree.CallExpression;
      const allowed = arrayLiteralArgument(call);
      const literal = allowed === undefined ? undefined : call.arguments[allowed];
      if (literal?.type === 'ArrayExpression') {
        visit(call.callee);
        call.arguments.forEach((arg) => {
          if (arg !== literal) return visit(arg);
          for (const element of literal.elements) {
            if (element === null) refuse(literal, 'an array literal with holes');
            visit(element);
          }
        });
        return;
      }
    }
    if (!SUPPORTED.has(n.type)) refuse(n, unsupportedNodePhrase(n.type));
    for (const key in n) if (key !== 'start' && key !== 'end' && key !== 'type') visit(n[key]);
  };
  visit(root);
}
