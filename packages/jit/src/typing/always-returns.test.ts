import { parseScript, type ESTree } from 'meriyah';
import { describe, expect, it } from 'vitest';
import { alwaysReturns } from './always-returns.js';

/** The body of `function f() { <body> }`. */
function body(code: string): ESTree.BlockStatement {
  const program = parseScript(`function f() { ${code} }`, { next: true });
  return (program.body[0] as ESTree.FunctionDeclaration).body!;
}

describe('alwaysReturns', () => {
  it('follows returns through blocks and both branches of an if', () => {
    expect(alwaysReturns(body('return 1;'))).toBe(true);
    expect(alwaysReturns(body('let a = 1; { return a; }'))).toBe(true);
    expect(alwaysReturns(body('if (a) return 1; else return 2;'))).toBe(true);
    expect(alwaysReturns(body('if (a) { return 1; } return 2;'))).toBe(true);
    expect(alwaysReturns(body('if (a) return 1;'))).toBe(false);
    expect(alwaysReturns(body('a = 1;'))).toBe(false);
  });

  it('counts infinite loops without a way out as returning, other loops not', () => {
    expect(alwaysReturns(body('for (;;) { if (a) return 1; }'))).toBe(true);
    expect(alwaysReturns(body('while (true) { if (a) return 1; }'))).toBe(true);
    expect(alwaysReturns(body('for (;;) { if (a) break; }'))).toBe(false);
    // a break of an inner loop leaves that loop only; a labelled one may leave the outer
    expect(alwaysReturns(body('for (;;) { for (;;) break; if (a) return 1; }'))).toBe(true);
    expect(alwaysReturns(body('outer: for (;;) { for (;;) break outer; }'))).toBe(false);
    expect(alwaysReturns(body('while (a) { return 1; }'))).toBe(false);
    expect(alwaysReturns(body('do { return 1; } while (a);'))).toBe(false);
  });

  it('a labelled block returns unless a break leaves it', () => {
    expect(alwaysReturns(body('b: { return 1; }'))).toBe(true);
    expect(alwaysReturns(body('b: { if (a) break b; return 1; }'))).toBe(false);
  });
});
