/**
 * Helpers for the typer's tests: type a real function (parsed from its own
 * text, positions in the test file), find IR nodes by op, and check where an
 * error points. Not shipped (packages/jit/tsconfig.json excludes it).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import type { KernelConstant } from '../device-function.js';
import { JitError } from '../errors.js';
import { parseKernel } from '../parse/parse-kernel.js';
import { captureCallSite } from '../parse/source-locator.js';
import type { JitType } from './jit-types.js';
import { typeKernel } from './type-kernel.js';
import type { Expr, Stmt, TypedKernel } from './typed-ir.js';

type Kernel = (...args: never[]) => unknown;

/** The typed IR of `fn` for `signature`. */
export function typed(
  fn: Kernel,
  signature: readonly JitType[],
  constants?: Record<string, KernelConstant>,
): TypedKernel {
  return typeKernel(parseKernel(fn, captureCallSite()), signature, { symbol: 'k', constants });
}

/** The error that typing `fn` throws (a JitError, else the test fails). */
export function typingError(
  fn: Kernel,
  signature: readonly JitType[],
  constants?: Record<string, KernelConstant>,
): JitError {
  const parsed = parseKernel(fn, captureCallSite());
  try {
    typeKernel(parsed, signature, { symbol: 'k', constants });
  } catch (error) {
    if (error instanceof JitError) return error;
    throw error;
  }
  throw new Error('expected the kernel to be refused');
}

type IrNode = Expr | Stmt;

/** Every IR node of `op` in `tree` (a kernel's body, an expression, ...), depth first, inlined bodies included. */
export function nodesOf<O extends IrNode['op']>(tree: unknown, op: O): Extract<IrNode, { op: O }>[] {
  const out: IrNode[] = [];
  const visit = (value: unknown): void => {
    if (value === null || typeof value !== 'object') return;
    if (Array.isArray(value)) {
      for (const v of value) visit(v);
      return;
    }
    const node = value as Record<string, unknown>;
    if (node['op'] === op) out.push(node as unknown as IrNode);
    for (const [key, child] of Object.entries(node)) if (key !== 'loc') visit(child);
  };
  visit(tree);
  return out as Extract<IrNode, { op: O }>[];
}

/** The one node of `op` in `tree`. */
export function onlyNodeOf<O extends IrNode['op']>(tree: unknown, op: O): Extract<IrNode, { op: O }> {
  const found = nodesOf(tree, op);
  expect(found, `exactly one '${op}'`).toHaveLength(1);
  return found[0]!;
}

/** A tree without its Locs, to compare with toEqual. */
export function withoutLocs<T>(tree: T): T {
  return JSON.parse(
    JSON.stringify(tree, (key, value) => (key === 'loc' ? undefined : typeof value === 'bigint' ? `${value}n` : value)),
  ) as T;
}

/** Where errors are expected: lines of a test file marked with `// <marker>`. */
export class MarkedLines {
  readonly file: string;
  readonly lines: readonly string[];

  constructor(url: string) {
    this.file = fileURLToPath(url);
    this.lines = readFileSync(this.file, 'utf8').split('\n');
  }

  /** The 1-based line and column of `token` on the line marked `marker`. */
  position(marker: string, token: string): { line: number; column: number } {
    const index = this.lines.findIndex((l) => l.includes(`// ${marker}`));
    if (index === -1) throw new Error(`no line marked ${marker}`);
    const column = this.lines[index]!.indexOf(token);
    if (column === -1) throw new Error(`'${token}' is not on the line marked ${marker}`);
    return { line: index + 1, column: column + 1 };
  }

  /** Asserts that `error` points at `token` on the line marked `marker`. */
  expectAt(error: JitError, marker: string, token: string): void {
    const { line, column } = this.position(marker, token);
    expect(error.file).toBe(this.file);
    expect({ line: error.line, column: error.column }).toEqual({ line, column });
    expect(error.message.startsWith(`${this.file}:${line}:${column}: `)).toBe(true);
  }
}
