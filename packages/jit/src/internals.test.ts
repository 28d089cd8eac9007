import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as jit from '@cuda-js/jit';
import * as internals from '@cuda-js/jit/internals';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const srcDir = dirname(fileURLToPath(import.meta.url));
const TYPED_IR = 'typing/typed-ir.ts';

/** Each name an entry exports (types included), with the files (relative to src/) that declare what it names. */
function exportsOf(entry: string): Map<string, string[]> {
  const program = ts.createProgram([join(srcDir, entry)], {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    types: [],
  });
  const checker = program.getTypeChecker();
  const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(join(srcDir, entry))!)!;
  return new Map(
    checker.getExportsOfModule(moduleSymbol).map((symbol) => {
      const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
      return [symbol.name, (target.declarations ?? []).map((d) => relative(srcDir, d.getSourceFile().fileName))];
    }),
  );
}

describe('@cuda-js/jit/internals', () => {
  it('holds the typed IR tables, which the main entry does not export', () => {
    expect(Object.keys(internals).sort()).toEqual(['ATOMIC_TYPES', 'MATH_FUNCTIONS', 'SHUFFLE_TYPES']);
    expect(internals.MATH_FUNCTIONS.sqrt).toEqual({ arity: 1, int: false, libdevice: true, jsMath: true });
    for (const name of Object.keys(internals)) expect(name in jit).toBe(false);
  });

  it("holds the compiler's IR types, and the main entry exports none of them (types included)", () => {
    const main = exportsOf('index.ts');
    const ir = exportsOf('internals.ts');
    for (const name of [
      'Stmt',
      'Expr',
      'BinaryOperator',
      'UnaryOperator',
      'CompareOperator',
      'TypedKernel',
      'TypedFunction',
      'ElementRef',
      'KernelParam',
    ]) {
      expect(ir.get(name), name).toEqual([TYPED_IR]);
      expect(main.has(name), name).toBe(false);
    }
    expect([...main].filter(([, files]) => files.includes(TYPED_IR)).map(([name]) => name)).toEqual([]);
    expect(main.has('jit') && main.has('cuda') && main.has('KernelArray')).toBe(true);
  });
});
