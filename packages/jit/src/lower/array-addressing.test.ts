// Element addressing for the three layouts in 1 to 3 dimensions, extents
// and strides, as TypedKernel's comment defines them; libNVVM and ptxas
// accept every combination.
import { expect, it } from 'vitest';
import { describeWhen } from '../compile/toolchain-environment.test-support.js';
import type { Layout, ScalarName } from '../typing/jit-types.js';
import type { Expr } from '../typing/typed-ir.js';
import { compileAndAssemble, compileRequirements } from './compiled-kernel.test-support.js';
import { KernelBuilder, binary, convert, exprStmt, globalIndex, i64, special } from './ir-builders.test-support.js';
import { lowerKernel } from './lower-kernel.js';

const LAYOUTS: readonly Layout[] = ['C', 'F', 'A'];
const DIMS = [1, 2, 3] as const;

/** out[i, j, k] = x[i, j, k] + 1 on the thread's index, then out's extents (when passed) and strides into `dims`. */
function copyKernel(dtype: ScalarName, ndim: 1 | 2 | 3, layout: Layout, shape = true) {
  const k = new KernelBuilder(`copy_${dtype}_${ndim}${layout}`);
  const x = k.array('x', dtype, ndim, layout, { written: false, shape });
  const out = k.array('out', dtype, ndim, layout, { shape });
  const dims = k.array('dims', 'i64');
  const registers = ['tid.x', 'tid.y', 'tid.z'] as const;
  const indices: Expr[] = registers.slice(0, ndim).map((r) => convert('i64', special(r)));
  const value =
    dtype === 'bool'
      ? x.load(...indices)
      : binary('add', x.load(...indices), {
          op: 'const',
          type: dtype,
          value: dtype.startsWith('f') ? 1.5 : dtype.endsWith('64') ? 1n : 1,
        });
  const body = [exprStmt(out.store(indices, value))];
  for (let d = 0; d < ndim; d++) {
    if (shape) body.push(exprStmt(dims.store([i64(2 * d)], out.shape(d))));
    body.push(exprStmt(dims.store([i64(2 * d + 1)], out.stride(d))));
  }
  return k.build(body);
}

/** The instructions that compute `out`'s element pointer in a copy kernel. */
function addressOf(layout: Layout, ndim: 1 | 2 | 3): string {
  const k = new KernelBuilder('address');
  const out = k.array('out', 'f32', ndim, layout);
  const names = ['i', 'j', 'k'].slice(0, ndim).map((n) => k.scalar(n, 'i64'));
  const ir = lowerKernel(
    k.build([
      exprStmt(
        out.store(
          names.map((n) => n.get),
          { op: 'const', type: 'f32', value: 0 },
        ),
      ),
    ]),
  );
  const body = ir.slice(ir.indexOf('store i64 %p'), ir.indexOf('getelementptr'));
  // name the loaded indices i, j, k and the parameters s0.. / st0.. for reading
  let text = body;
  for (const [n, name] of ['i', 'j', 'k'].slice(0, ndim).entries()) {
    const loaded = new RegExp(`(%t\\d+) = load i64, i64\\* %l${n}\\.${name}`).exec(text)![1]!;
    text = text.replaceAll(new RegExp(`${loaded}(?!\\d)`, 'g'), name);
  }
  return [...text.matchAll(/= (mul|add) i64 ([^,]+), ([^\n]+)/g)]
    .map((m) => `${m[1]} ${m[2]!.replace(/%p\d+\.out\./, '')} ${m[3]!.replace(/%p\d+\.out\./, '')}`)
    .join('; ')
    .replace(/%t\d+/g, '_');
}

it('addresses C arrays by ((i0 * s1) + i1) * s2 + i2, a 1-D one by i0', () => {
  expect(addressOf('C', 1)).toBe('');
  expect(addressOf('C', 2)).toBe('mul i shape1; add _ j');
  expect(addressOf('C', 3)).toBe('mul i shape1; add _ j; mul _ shape2; add _ k');
});

it('addresses F arrays by i0 + s0 * (i1 + s1 * i2)', () => {
  expect(addressOf('F', 2)).toBe('mul j shape0; add _ i');
  expect(addressOf('F', 3)).toBe('mul k shape1; add _ j; mul _ shape0; add _ i');
});

it('addresses A arrays by Σ ik * stride_k', () => {
  expect(addressOf('A', 1)).toBe('mul i stride0');
  expect(addressOf('A', 3)).toBe('mul i stride0; mul j stride1; add _ _; mul k stride2; add _ _');
});

it('addresses with getelementptr inbounds on the element type, aligned to the element', () => {
  const ir = lowerKernel(copyKernel('f64', 2, 'A'));
  expect(ir).toMatch(/getelementptr inbounds double, double\* %p1\.out\.data, i64 %t\d+/);
  expect(ir).toMatch(/store double %t\d+, double\* %t\d+, align 8/);
});

it('derives the strides of C and F arrays from their extents when they are not passed', () => {
  const c = lowerKernel(copyKernel('i32', 3, 'C'));
  expect(c).toMatch(/mul i64 %p1\.out\.shape1, %p1\.out\.shape2/);
  const f = lowerKernel(copyKernel('i32', 3, 'F'));
  expect(f).toMatch(/mul i64 %p1\.out\.shape0, %p1\.out\.shape1/);
  // a 1-D C array's stride is 1
  expect(lowerKernel(copyKernel('i32', 1, 'C'))).toMatch(/store i64 1, i64\*/);
});

describeWhen(compileRequirements, 'array addressing through libNVVM and ptxas', () => {
  it('compiles loads, stores, extents and strides for every layout and 1 to 3 dimensions', () => {
    for (const layout of LAYOUTS) for (const ndim of DIMS) compileAndAssemble(copyKernel('f32', ndim, layout));
  });

  it('compiles arrays of every element type, bool (bytes) included', () => {
    for (const dtype of ['bool', 'i8', 'u8', 'i16', 'u16', 'i32', 'u32', 'i64', 'u64', 'f64'] as const)
      compileAndAssemble(copyKernel(dtype, 2, 'A'));
  });

  it('compiles A arrays indexed by strides alone, and 1-D indexing by the global thread index', () => {
    for (const ndim of DIMS) compileAndAssemble(copyKernel('f64', ndim, 'A', false));
    const k = new KernelBuilder('grid_index');
    const out = k.array('out', 'f32');
    compileAndAssemble(k.build([exprStmt(out.store([globalIndex()], { op: 'const', type: 'f32', value: 2 }))]));
  });

  it('loads bools as a byte compared with 0 and stores them as 0 or 1 bytes', () => {
    const { ptx } = compileAndAssemble(copyKernel('bool', 1, 'C'));
    expect(ptx).toMatch(/ld\.global(\.nc)?\.u8/);
    expect(ptx).toMatch(/st\.global\.u8/);
  });
});
