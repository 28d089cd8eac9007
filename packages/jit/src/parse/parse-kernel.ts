import { countStage } from '../pipeline-counts.js';
import { parseScript, type ESTree } from 'meriyah';
import { UnsupportedSyntaxError, withNestingBound, type SourceLocator } from '../errors.js';
import { definitionSite } from './definition-site.js';
import { kernelRecordOf, type KernelRecord } from './kernel-record.js';
import { JIT_MODULES, restoreJitNames } from './kernel-names.js';
import { RecordedLocator } from './recorded-locator.js';
import { explainRewrite, rewriteEvidence, rewrittenKernelError } from './rewritten-kernel.js';
import { SourceMapper, type CallSite } from './source-locator.js';
import { checkSyntax } from './supported-syntax.js';

/** A kernel function as text and syntax tree, with the way back to the user's file. */
export interface ParsedKernel {
  /**
   * The function's name (`axpy`): its own, else (from the build plugin's
   * record) the name its kernel is assigned to; `kernel` where it has
   * neither, and then `named` is false.
   */
  readonly name: string;
  /** Whether `name` is the function's or the record's, not the fallback `kernel`. */
  readonly named: boolean;
  /** `fn.toString()`, or the text the build plugin recorded: every offset in the tree and in the typed IR is an offset in this text. */
  readonly source: string;
  /** What the build plugin recorded of the function (kernel-record.ts), where it did. */
  readonly record?: KernelRecord;
  /** Parameter names, in order. */
  readonly params: readonly string[];
  /** The parameter nodes, for messages. */
  readonly paramNodes: readonly ESTree.Node[];
  /** The body: a block, or the expression of an arrow function. */
  readonly body: ESTree.BlockStatement | ESTree.Expression;
  readonly locator: SourceLocator;
}

// How a function's text is made parseable as an expression: `function f() {}`
// and arrows as they are, in parentheses; methods (`f() {}`) inside an object.
const WRAPPERS: readonly { readonly before: string; readonly after: string }[] = [
  { before: '(', after: '\n)' },
  { before: '({', after: '\n})' },
];

type FunctionNode = ESTree.ArrowFunctionExpression | ESTree.FunctionExpression;

function findFunction(program: ESTree.Program): FunctionNode | undefined {
  const statement = program.body[0];
  if (program.body.length !== 1 || statement?.type !== 'ExpressionStatement') return undefined;
  const e = statement.expression;
  if (e.type === 'ArrowFunctionExpression' || e.type === 'FunctionExpression') return e;
  if (e.type === 'ObjectExpression' && e.properties.length === 1) {
    const p = e.properties[0];
    if (p?.type === 'Property' && p.value.type === 'FunctionExpression') return p.value;
  }
  return undefined;
}

/** Shifts every `start`/`end` of the tree by `-delta`, so that offsets are offsets in the function's own text. */
function shiftRanges(node: unknown, delta: number): void {
  if (node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const child of node) shiftRanges(child, delta);
    return;
  }
  const n = node as { start?: number; end?: number; range?: [number, number] } & Record<string, unknown>;
  if (typeof n.start === 'number') n.start -= delta;
  if (typeof n.end === 'number') n.end -= delta;
  delete n.range;
  for (const key of Object.keys(n)) {
    if (key !== 'start' && key !== 'end') shiftRanges(n[key], delta);
  }
}

/**
 * Parses a kernel function's text (`Function.prototype.toString`) with
 * meriyah. Arrow functions, `function` expressions and methods are accepted;
 * async functions, generators, rest and default parameters are not.
 */
export function parseKernel(fn: (...args: never[]) => unknown, callSite: CallSite | undefined): ParsedKernel {
  countStage('parsed');
  return withNestingBound('parsing', () => parseKernelUnbounded(fn, callSite));
}

function parseKernelUnbounded(fn: (...args: never[]) => unknown, callSite: CallSite | undefined): ParsedKernel {
  if (typeof fn !== 'function')
    throw new TypeError(`jit: expected a function, got ${fn === null ? 'null' : typeof fn}`);
  const record = kernelRecordOf(fn);
  const source = record ? record.source : Function.prototype.toString.call(fn);
  const locator: SourceLocator = record
    ? new RecordedLocator(record)
    : new SourceMapper(source, callSite, () => definitionSite(fn));
  const own = record ? (record.name ?? record.binding) : fn.name || undefined;
  const name = own ?? 'kernel';
  if (/\{\s*\[native code\]\s*\}\s*$/.test(source)) {
    throw new UnsupportedSyntaxError(
      `jit: '${fn.name || 'function'}' is a native or bound function; pass the kernel function itself`,
    );
  }
  let node: FunctionNode | undefined;
  let firstError: unknown;
  for (const wrapper of WRAPPERS) {
    try {
      const program = parseScript(`${wrapper.before}${source}${wrapper.after}`, { ranges: true, next: true });
      node = findFunction(program);
      if (node) {
        shiftRanges(node, wrapper.before.length);
        break;
      }
    } catch (error) {
      firstError ??= error;
    }
  }
  if (!node) {
    const detail = firstError instanceof Error ? firstError.message : 'not a function expression';
    throw new UnsupportedSyntaxError(`jit: the kernel's text does not parse as a function (${detail})`, {
      locator,
      loc: { start: 0, end: Math.min(source.length, 1) },
    });
  }
  const at = (n: ESTree.Node) => ({ locator, loc: { start: n.start ?? 0, end: n.end ?? 0 } });
  if (node.async) throw new UnsupportedSyntaxError('kernels cannot be async functions', at(node));
  if (node.generator) throw new UnsupportedSyntaxError('kernels cannot be generators', at(node));
  const params: string[] = [];
  for (const p of node.params) {
    if (p.type !== 'Identifier')
      throw new UnsupportedSyntaxError(
        'kernel parameters must be plain names (no defaults, rest or destructuring)',
        at(p),
      );
    params.push(p.name);
  }
  const body = node.body;
  if (!body) throw new UnsupportedSyntaxError('the kernel has no body', at(node));
  restoreJitNames(node.params, body, record ? aliasesOf(record) : new Map());
  if (!record) {
    // a text that a minifier rewrote is refused now, with what gave it away
    const evidence = rewriteEvidence(node.params, body);
    if (evidence?.fatal) throw rewrittenKernelError(name, evidence.text, locator);
  }
  try {
    checkSyntax(body, locator);
  } catch (error) {
    throw record ? error : explainRewrite(error, { source, params: node.params, body, locator, name });
  }
  return {
    name,
    named: own !== undefined,
    source,
    ...(record ? { record } : {}),
    params,
    paramNodes: node.params,
    body: body as ESTree.BlockStatement | ESTree.Expression,
    locator,
  };
}

/** Local name → the JIT's own name, for each import of the JIT's modules that the record says the kernel reads under another name. */
function aliasesOf(record: KernelRecord): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const [local, binding] of Object.entries(record.imports)) {
    if (JIT_MODULES.has(binding.from) && binding.name !== '*' && binding.name !== 'default' && binding.name !== local)
      aliases.set(local, binding.name);
  }
  return aliases;
}
