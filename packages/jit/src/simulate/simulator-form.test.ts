// The simulator forms of the intrinsic tables' rows: operands and named placeholders filled, an unknown one refused.
import { describe, expect, it } from 'vitest';
import { simulatorExpression } from './simulator-form.js';

describe('simulator forms', () => {
  it('fills the operands and the named placeholders', () => {
    expect(simulatorExpression('popc64($0)', ['x'])).toBe('popc64(x)');
    expect(simulatorExpression('(($o > $v || $v !== $v) ? $o : $v)', [], { o: 't1', v: 't2' })).toBe(
      '((t1 > t2 || t2 !== t2) ? t1 : t2)',
    );
    expect(simulatorExpression('(((1 << $lane) - 1) >>> 0)', [], { lane: '(lin & 31)' })).toBe(
      '(((1 << (lin & 31)) - 1) >>> 0)',
    );
  });

  it('refuses a placeholder that the use does not give', () => {
    expect(() => simulatorExpression('$0 + $1', ['a'])).toThrow(/names \$1/);
    expect(() => simulatorExpression('$ballot === $mask', [], { ballot: 'b' })).toThrow(/names \$mask/);
  });
});
