import { checkFindKernelsOptions } from './plugin-options.js';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from '@babel/parser';
import type { KernelImportBinding, KernelRecord, KernelRecordKind } from '@cuda-js/jit';
import MagicString, { type SourceMap as MagicSourceMap } from 'magic-string';
import { type AstNode, blankTypes, isNode, walk } from './blank-types.js';
import { freeNames } from './free-names.js';
import { KERNEL_RECORD_KEY, KERNEL_RECORD_VERSION } from './record-key.js';

/** The modules whose `jit`, `vectorize` and `reduce` define kernels, by default. */
export const DEFAULT_MODULES: readonly string[] = ['cuda-js', '@cuda-js/jit'];

export interface FindKernelsOptions {
  /** Module specifiers whose imports define kernels (default {@link DEFAULT_MODULES}). */
  readonly modules?: readonly string[] | undefined;
  /** The folder that records' files and ids are relative to (default: the current directory): no absolute path of the build machine is recorded. */
  readonly root?: string | undefined;
  /**
   * The source map of `code` back to the file as written, where an earlier
   * step of the build compiled it (TypeScript stripped by another plugin):
   * records then carry positions in the original file.
   */
  readonly inputMap?: SourceMapPayload | undefined;
  /** Kernel names that the build gives signatures of its own (the `aot` option's `signatures`): a module with such a kernel is built too. */
  readonly buildNames?: readonly string[] | undefined;
}

/** What {@link findKernels} found in a module, and the module with the records attached. */
export interface FoundKernels {
  readonly records: readonly KernelRecord[];
  /**
   * The JIT module (`cuda-js`, `@cuda-js/jit`) of the module's first `jit()`
   * or `jit.withConstants()` call that declares `signatures` in an object
   * written in the call, or whose kernel is one of `buildNames`: the module
   * has kernels to build ahead of time.
   */
  readonly declaresSignaturesFrom?: string;
  /** The names of the module's kernels, where its text says them (a `name` option written as a string, else the function's own name, else the name the kernel is assigned to). */
  readonly kernelNames: readonly string[];
  readonly code: string;
  readonly map: MagicSourceMap;
}

interface Definition {
  readonly kind: KernelRecordKind;
  /** The function itself (what is recorded). */
  readonly fn: AstNode;
  /** The node the record is attached around: the function, or the name that refers to it. */
  readonly at: AstNode;
  readonly name: string | undefined;
  /** The name the call that makes it is assigned to (`const saxpy = jit(...)`), where it is. */
  readonly binding?: string;
}

const FUNCTION_TYPES = new Set(['ArrowFunctionExpression', 'FunctionExpression', 'FunctionDeclaration']);

function parseModule(code: string, id: string): AstNode | undefined {
  const path = id.replace(/[?#].*$/, '');
  const typescript = /\.[cm]?tsx?$/.test(path);
  const jsx = /\.[jt]sx$/.test(path);
  const plugins: ('typescript' | 'jsx')[] = [];
  if (typescript) plugins.push('typescript');
  if (jsx) plugins.push('jsx');
  try {
    return parse(code, { sourceType: 'unambiguous', plugins, errorRecovery: false }).program as unknown as AstNode;
  } catch {
    // the bundler reports what does not parse
    return undefined;
  }
}

/** Local name → import, for every value import of the module. */
function importsOf(program: AstNode): Map<string, KernelImportBinding> {
  const imports = new Map<string, KernelImportBinding>();
  for (const statement of program['body'] as AstNode[]) {
    if (statement.type !== 'ImportDeclaration' || statement['importKind'] === 'type') continue;
    const from = (statement['source'] as AstNode)['value'] as string;
    for (const s of statement['specifiers'] as AstNode[]) {
      if (s['importKind'] === 'type') continue;
      const local = (s['local'] as AstNode)['name'] as string;
      if (s.type === 'ImportDefaultSpecifier') imports.set(local, { from, name: 'default' });
      else if (s.type === 'ImportNamespaceSpecifier') imports.set(local, { from, name: '*' });
      else {
        const imported = s['imported'] as AstNode;
        imports.set(local, {
          from,
          name: (imported.type === 'Identifier' ? imported['name'] : imported['value']) as string,
        });
      }
    }
  }
  return imports;
}

/** Top-level functions of the module by name: `function f() {}`, `const f = () => {}` (exported or not). */
function moduleFunctions(program: AstNode): Map<string, AstNode> {
  const functions = new Map<string, AstNode>();
  for (const top of program['body'] as AstNode[]) {
    const statement =
      top.type === 'ExportNamedDeclaration' && isNode(top['declaration']) ? (top['declaration'] as AstNode) : top;
    if (statement.type === 'FunctionDeclaration' && isNode(statement['id']))
      functions.set((statement['id'] as AstNode)['name'] as string, statement);
    if (statement.type === 'VariableDeclaration') {
      for (const d of statement['declarations'] as AstNode[]) {
        const init = d['init'];
        if ((d['id'] as AstNode).type === 'Identifier' && isNode(init) && FUNCTION_TYPES.has(init.type))
          functions.set((d['id'] as AstNode)['name'] as string, init);
      }
    }
  }
  return functions;
}

/** What a callee is: `jit`, `jit.device`, `jit.withConstants`, `vectorize`, `reduce` of the JIT's modules (through any local name or namespace). */
function calleeKind(
  callee: AstNode,
  imports: ReadonlyMap<string, KernelImportBinding>,
  modules: readonly string[],
): 'jit' | 'device' | 'withConstants' | 'vectorize' | 'reduce' | undefined {
  const exported = (node: AstNode): string | undefined => {
    if (node.type === 'Identifier') {
      const b = imports.get(node['name'] as string);
      return b && modules.includes(b.from) && b.name !== '*' ? b.name : undefined;
    }
    if (
      node.type === 'MemberExpression' &&
      node['computed'] !== true &&
      (node['object'] as AstNode).type === 'Identifier'
    ) {
      const b = imports.get((node['object'] as AstNode)['name'] as string);
      if (b && modules.includes(b.from) && b.name === '*') return (node['property'] as AstNode)['name'] as string;
    }
    return undefined;
  };
  const direct = exported(callee);
  if (direct === 'jit' || direct === 'vectorize' || direct === 'reduce') return direct;
  if (
    callee.type === 'MemberExpression' &&
    callee['computed'] !== true &&
    exported(callee['object'] as AstNode) === 'jit'
  ) {
    const member = (callee['property'] as AstNode)['name'];
    if (member === 'device') return 'device';
    if (member === 'withConstants') return 'withConstants';
  }
  return undefined;
}

/** The function that a factory of `jit.withConstants` gives: its expression body, or what its `return` gives. */
function factoryResult(factory: AstNode): AstNode | undefined {
  const body = factory['body'] as AstNode;
  if (FUNCTION_TYPES.has(body.type)) return body;
  if (body.type !== 'BlockStatement') return undefined;
  for (const s of body['body'] as AstNode[])
    if (s.type === 'ReturnStatement' && isNode(s['argument']) && FUNCTION_TYPES.has((s['argument'] as AstNode).type))
      return s['argument'] as AstNode;
  return undefined;
}

function unwrapTs(node: AstNode): AstNode {
  let n = node;
  while (
    (n.type === 'TSAsExpression' ||
      n.type === 'TSSatisfiesExpression' ||
      n.type === 'TSNonNullExpression' ||
      n.type === 'ParenthesizedExpression') &&
    isNode(n['expression'])
  )
    n = n['expression'] as AstNode;
  return n;
}

/** The kernel function an argument names: a function written there, or the name of one of the module's functions. */
function definitionOf(
  kind: KernelRecordKind,
  argument: AstNode | undefined,
  functions: ReadonlyMap<string, AstNode>,
): Definition | undefined {
  if (!argument) return undefined;
  const arg = unwrapTs(argument);
  if (FUNCTION_TYPES.has(arg.type)) {
    const id = arg['id'];
    return { kind, fn: arg, at: arg, name: isNode(id) ? (id['name'] as string) : undefined };
  }
  if (arg.type === 'Identifier') {
    const fn = functions.get(arg['name'] as string);
    // the function's own name where it has one (`function f`), else the variable's (what `fn.name` is unbundled)
    if (fn)
      return {
        kind,
        fn,
        at: arg,
        name: isNode(fn['id']) ? ((fn['id'] as AstNode)['name'] as string) : (arg['name'] as string),
      };
  }
  return undefined;
}

/** The module that a callee's name is imported from: `jit`, `jit.device`, `ns.jit`. */
function calleeModule(callee: AstNode, imports: ReadonlyMap<string, KernelImportBinding>): string | undefined {
  let n = callee;
  while (n.type === 'MemberExpression') n = n['object'] as AstNode;
  return n.type === 'Identifier' ? imports.get(n['name'] as string)?.from : undefined;
}

/** The property `name` of an options argument that is an object written in the call, where it has one. */
function optionProperty(options: AstNode | undefined, name: string): AstNode | undefined {
  const o = options && unwrapTs(options);
  if (o?.type !== 'ObjectExpression') return undefined;
  return (o['properties'] as AstNode[]).find((p) => {
    if (p.type !== 'ObjectProperty' || p['computed'] === true) return false;
    const key = p['key'] as AstNode;
    return (key.type === 'Identifier' ? key['name'] : key['value']) === name;
  });
}

/** The kernel's name as the JIT gives it, where the text says it: the `name` option written as a string, else the function's own name, else the name it is assigned to, else 'kernel'. */
function kernelName(options: AstNode | undefined, d: Definition | undefined): string | undefined {
  const option = optionProperty(options, 'name');
  if (option) {
    const value = unwrapTs(option['value'] as AstNode);
    return value.type === 'StringLiteral' ? (value['value'] as string) : undefined;
  }
  return d?.name ?? d?.binding ?? (d ? 'kernel' : undefined);
}

/** The name of a property key that is written as a name or a string (`saxpy:`, `'saxpy':`). */
function keyName(key: AstNode): string | undefined {
  if (key.type === 'Identifier') return key['name'] as string;
  return key.type === 'StringLiteral' && key['value'] !== '' ? (key['value'] as string) : undefined;
}

/**
 * The calls that are assigned to a name, with the name: `const saxpy =
 * jit(...)` (exported or not, `let`, `var`), `saxpy = jit(...)`,
 * `exports.saxpy = jit(...)`, `{ saxpy: jit(...) }` (types and parentheses
 * around the call are looked through).
 */
function bindings(program: AstNode): Map<AstNode, string> {
  const out = new Map<AstNode, string>();
  walk(program, (n) => {
    if (n.type === 'VariableDeclarator' && (n['id'] as AstNode).type === 'Identifier' && isNode(n['init']))
      out.set(unwrapTs(n['init']), (n['id'] as AstNode)['name'] as string);
    else if (n.type === 'AssignmentExpression' && n['operator'] === '=') {
      const left = n['left'] as AstNode;
      const name =
        left.type === 'Identifier'
          ? (left['name'] as string)
          : left.type === 'MemberExpression' && left['computed'] !== true
            ? keyName(left['property'] as AstNode)
            : undefined;
      if (name !== undefined) out.set(unwrapTs(n['right'] as AstNode), name);
    } else if (n.type === 'ObjectProperty' && n['computed'] !== true && isNode(n['value'])) {
      const name = keyName(n['key'] as AstNode);
      if (name !== undefined) out.set(unwrapTs(n['value']), name);
    }
    return true;
  });
  return out;
}

function definitions(
  program: AstNode,
  imports: ReadonlyMap<string, KernelImportBinding>,
  modules: readonly string[],
  buildNames: readonly string[],
): { found: Definition[]; declaresSignaturesFrom: string | undefined; kernelNames: string[] } {
  const functions = moduleFunctions(program);
  const bound = bindings(program);
  const found: Definition[] = [];
  const kernelNames: string[] = [];
  let declaresSignaturesFrom: string | undefined;
  walk(program, (n) => {
    if (n.type !== 'CallExpression') return true;
    const kind = calleeKind(n['callee'] as AstNode, imports, modules);
    const args = (n['arguments'] as AstNode[]).filter((a) => a.type !== 'SpreadElement');
    let d: Definition | undefined;
    if (kind === 'jit') d = definitionOf('kernel', args[0], functions);
    else if (kind === 'device') d = definitionOf('device', args[0], functions);
    else if (kind === 'reduce') d = definitionOf('reduce', args[0], functions);
    else if (kind === 'vectorize')
      d = definitionOf(
        'vectorize',
        args[0] && unwrapTs(args[0]).type === 'ArrayExpression' ? args[1] : args[0],
        functions,
      );
    else if (kind === 'withConstants' && args[1] && FUNCTION_TYPES.has(unwrapTs(args[1]).type)) {
      const inner = factoryResult(unwrapTs(args[1]));
      if (inner)
        d = {
          kind: 'kernel',
          fn: inner,
          at: inner,
          name: isNode(inner['id']) ? (inner['id']['name'] as string) : undefined,
        };
    }
    const binding = bound.get(n);
    if (d && binding !== undefined && (kind === 'jit' || kind === 'withConstants')) d = { ...d, binding };
    const options = kind === 'jit' ? args[1] : kind === 'withConstants' ? args[2] : undefined;
    if (kind === 'jit' || kind === 'withConstants') {
      const name = kernelName(options, d);
      if (name !== undefined && !kernelNames.includes(name)) kernelNames.push(name);
      if (
        declaresSignaturesFrom === undefined &&
        (optionProperty(options, 'signatures') || (name !== undefined && buildNames.includes(name)))
      ) {
        declaresSignaturesFrom = calleeModule(n['callee'] as AstNode, imports);
      }
    }
    if (d && !found.some((f) => f.at === d.at)) found.push(d);
    return true;
  });
  return { found, declaresSignaturesFrom, kernelNames };
}

function fileOf(source: string, mapFile: string): string {
  if (source.startsWith('file://')) return fileURLToPath(source);
  return isAbsolute(source) ? source : resolve(dirname(mapFile), source);
}

/** Where the function is in the file as written: its start, and (through an input map) offsets of its text mapped one by one. */
function locate(
  fn: AstNode,
  file: string,
  inputMap: SourceMapPayload | undefined,
): Pick<KernelRecord, 'file' | 'line' | 'column' | 'positions'> {
  const start = fn.loc.start;
  if (!inputMap) return { file, line: start.line, column: start.column + 1 };
  const map = new SourceMap(inputMap);
  const positions: [number, number, number][] = [];
  let original: string | undefined;
  const seen = new Set<number>();
  walk(fn, (n) => {
    if (seen.has(n.start)) return true;
    seen.add(n.start);
    const e = map.findEntry(n.loc.start.line - 1, n.loc.start.column) as {
      generatedLine?: number;
      generatedColumn?: number;
      originalSource?: string;
      originalLine?: number;
      originalColumn?: number;
    };
    if (e.originalSource === undefined || e.originalLine === undefined || e.originalColumn === undefined) return true;
    original ??= e.originalSource;
    if (e.originalSource !== original) return true;
    // a node that starts after the mapped segment's start, on its line: carried on by the difference
    const carried =
      e.generatedLine === n.loc.start.line - 1 && e.generatedColumn !== undefined
        ? n.loc.start.column - e.generatedColumn
        : 0;
    positions.push([n.start - fn.start, e.originalLine + 1, e.originalColumn + 1 + carried]);
    return true;
  });
  if (original === undefined || positions.length === 0) return { file, line: start.line, column: start.column + 1 };
  positions.sort((a, b) => a[0] - b[0]);
  const first = positions[0]!;
  return { file: fileOf(original, file), line: first[1], column: first[2], positions };
}

/**
 * A file as records name it: relative to `root` (the build's root), with
 * `/`, so that a bundle holds no path of the machine that built it and
 * builds from two checkouts are the same (`src/app.ts`; `../lib/k.ts` for a
 * file beside the root). An absolute path only where no relative one exists
 * (another drive).
 */
export function recordFile(file: string, root: string): string {
  const rel = relative(resolve(root), file);
  return isAbsolute(rel) ? file : rel.split(sep).join('/');
}

/**
 * Finds the kernels and device functions of one module (`jit(fn)`,
 * `jit.device(fn)`, `jit.withConstants(c, factory)`, `vectorize(fn)`,
 * `reduce(fn)` of the JIT's modules, under any local name or namespace),
 * records each (kernel-record.ts of @cuda-js/jit) and attaches the record to
 * the function: the function expression `F` (or the name of a function of
 * the module) becomes `Object.defineProperty(F, Symbol.for(KEY), { value:
 * RECORD, configurable: true })`. Undefined where the module defines none.
 * `id` is the module's file (its extension says whether it is TypeScript).
 */
export function findKernels(code: string, id: string, options: FindKernelsOptions = {}): FoundKernels | undefined {
  checkFindKernelsOptions(options);
  const modules = options.modules ?? DEFAULT_MODULES;
  if (!modules.some((m) => code.includes(m))) return undefined;
  const program = parseModule(code, id);
  if (!program) return undefined;
  const imports = importsOf(program);
  const { found, declaresSignaturesFrom, kernelNames } = definitions(
    program,
    imports,
    modules,
    options.buildNames ?? [],
  );
  if (found.length === 0) return undefined;
  const file = id.replace(/[?#].*$/, '');
  const root = options.root ?? process.cwd();
  const s = new MagicString(code);
  const records: KernelRecord[] = [];
  for (const d of found) {
    const written = code.slice(d.fn.start, d.fn.end);
    const source = blankTypes(code, d.fn);
    const located = locate(d.fn, file, options.inputMap);
    const where = { ...located, file: recordFile(located.file, root) };
    const bound: Record<string, KernelImportBinding> = {};
    for (const name of freeNames(d.fn)) {
      const b = imports.get(name);
      if (b) bound[name] = b;
    }
    const record: KernelRecord = {
      version: KERNEL_RECORD_VERSION,
      id: `${where.file}:${where.line}:${where.column}`,
      kind: d.kind,
      ...(d.name !== undefined ? { name: d.name } : {}),
      ...(d.binding !== undefined ? { binding: d.binding } : {}),
      source,
      ...(source !== written && !where.positions ? { original: written } : {}),
      ...where,
      imports: bound,
    };
    records.push(record);
    s.appendLeft(d.at.start, 'Object.defineProperty(');
    s.appendRight(
      d.at.end,
      `, Symbol.for(${JSON.stringify(KERNEL_RECORD_KEY)}), { value: ${JSON.stringify(record)}, configurable: true })`,
    );
  }
  return {
    records,
    ...(declaresSignaturesFrom === undefined ? {} : { declaresSignaturesFrom }),
    kernelNames,
    code: s.toString(),
    map: s.generateMap({ source: file, file, includeContent: true, hires: 'boundary' }),
  };
}
