// The NVVM forms of the intrinsic tables' rows, made instructions: LLVM lines
// with placeholders and bindings, calls declared from their own types, and
// inline PTX whose `$0` are its operands.
import { describe, expect, it } from 'vitest';
import { FunctionBuilder } from './function-builder.js';
import type { LoweringContext } from './lowering-context.js';
import { ModuleDeclarations } from './module-declarations.js';
import { fillPlaceholders, lowerAsmForm, lowerLlvmForm } from './nvvm-form.js';

function context(): { ctx: LoweringContext; text: () => string; declarations: ModuleDeclarations } {
  const builder = new FunctionBuilder();
  const declarations = new ModuleDeclarations();
  const ctx = { builder, declarations } as unknown as LoweringContext;
  return { ctx, declarations, text: () => builder.body() };
}

describe('NVVM forms', () => {
  it('fills placeholders, binds values and declares what the lines call', () => {
    const { ctx, text, declarations } = context();
    const r = lowerLlvmForm(
      ctx,
      { llvm: ['%c = call $t @llvm.cttz.$t($t $0, i1 false)', '%p = add $t %c, 1'] },
      { t: 'i64', 0: '%x' },
    );
    expect(text()).toMatch(/(%t\d+) = call i64 @llvm\.cttz\.i64\(i64 %x, i1 false\)\n\s*(%t\d+) = add i64 \1, 1/);
    expect(r).toMatch(/^%t\d+$/);
    expect(declarations.lines()).toEqual(['declare i64 @llvm.cttz.i64(i64, i1)']);
  });

  it('emits a line without a binding as it is, and declares a call of nothing', () => {
    const { ctx, text, declarations } = context();
    expect(lowerLlvmForm(ctx, { llvm: ['call void @llvm.nvvm.membar.gl()'] }, {})).toBeUndefined();
    expect(text()).toContain('call void @llvm.nvvm.membar.gl()');
    expect(declarations.lines()).toEqual(['declare void @llvm.nvvm.membar.gl()']);
  });

  it('refuses a placeholder that the use does not give', () => {
    expect(() => fillPlaceholders('add $t $0, $1', { t: 'i32', 0: '%a' })).toThrow(/names \$1/);
  });

  it('keeps inline PTX operands and fills only the named placeholders', () => {
    expect(fillPlaceholders('atom$space.add.noftz.$type $0, [$1], $2;', { space: '.global', type: 'f16' }, true)).toBe(
      'atom.global.add.noftz.f16 $0, [$1], $2;',
    );
    const { ctx, text } = context();
    const r = lowerAsmForm(ctx, { ptx: 'mov.u64 $0, %clock64;', constraints: '=l', result: 'i64' }, {});
    expect(r).toMatch(/^%t\d+$/);
    expect(text()).toMatch(/%t\d+ = call i64 asm sideeffect "mov\.u64 \$0, %clock64;", "=l"\(\)/);
    const s = context();
    expect(
      lowerAsmForm(
        s.ctx,
        { ptx: 'activemask.b32 $0;', constraints: '=r', result: 'i32', convergent: true, sideEffect: false },
        {},
      ),
    ).toMatch(/^%t\d+$/);
    expect(s.text()).toMatch(/call i32 asm "activemask\.b32 \$0;", "=r"\(\) convergent/);
  });
});
