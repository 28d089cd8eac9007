import { KERNEL_RECORD_KEY as JIT_KEY, KERNEL_RECORD_VERSION as JIT_VERSION, type KernelRecord } from '@cuda-js/jit';
import { describe, expect, it } from 'vitest';
import { findKernels } from './find-kernels.js';
import { KERNEL_RECORD_KEY, KERNEL_RECORD_VERSION } from './record-key.js';

const APP = `import { jit, cuda as gpu, f32, vectorize } from 'cuda-js';
import * as cj from '@cuda-js/jit';
import { helper } from './helper.js';

export const scale = jit((a: Float32Array, s: number) => {
  const i = gpu.grid(1);
  if (i < a.length) a[i] = f32(a[i]! * s) as number;
});

function add(a: number, b?: number): number {
  return a + (b ?? 0);
}
const addKernel = cj.jit.device(add);
const twice = cj.jit((x: Float32Array) => { x[0] = helper(x[0]!); }, { constants: { helper } });
const u = vectorize(['f32(f32)'], (x: number) => x * 2);
const w = cj.jit.withConstants({ N: 4 }, ({ N }) => (a: Float32Array) => { a[0] = N; });
const notAKernel = other((a: number) => a);
`;

describe('findKernels', () => {
  it('writes the key and version that the JIT reads', () => {
    expect(KERNEL_RECORD_KEY).toBe(JIT_KEY);
    expect(KERNEL_RECORD_VERSION).toBe(JIT_VERSION);
  });

  it('records jit, jit.device, vectorize and jit.withConstants kernels, under any local name or namespace', () => {
    const found = findKernels(APP, '/app/src/main.ts', { root: '/app' })!;
    expect(found.records.map((r) => [r.kind, r.name, r.id])).toEqual([
      ['kernel', undefined, 'src/main.ts:5:26'],
      ['device', 'add', 'src/main.ts:10:1'],
      ['kernel', undefined, 'src/main.ts:14:22'],
      ['vectorize', undefined, 'src/main.ts:15:35'],
      ['kernel', undefined, 'src/main.ts:16:53'],
    ]);
    const scale = found.records[0]!;
    expect(scale.imports).toEqual({ gpu: { from: 'cuda-js', name: 'cuda' }, f32: { from: 'cuda-js', name: 'f32' } });
    expect(found.records[2]!.imports).toEqual({ helper: { from: './helper.js', name: 'helper' } });
    expect(scale.file).toBe('src/main.ts');
  });

  it('records the name each kernel is assigned to, which names it where no name option or function name does', () => {
    const found = findKernels(APP, '/app/src/main.ts', { root: '/app' })!;
    expect(found.records.map((r) => r.binding)).toEqual(['scale', undefined, 'twice', undefined, 'w']);
    expect(found.kernelNames).toEqual(['scale', 'twice', 'w']);
    const shapes = `import { jit } from 'cuda-js';
import * as cj from '@cuda-js/jit';
export let a = jit((x: Float32Array) => { x[0] = 1; });
var b: unknown = (cj.jit((x: Float32Array) => { x[0] = 2; }) as unknown);
let c;
c = jit((x: Float32Array) => { x[0] = 3; });
const kernels = { d: jit((x: Float32Array) => { x[0] = 4; }), 'e': jit(function own(x: Float32Array) { x[0] = 5; }) };
exports.f = jit((x: Float32Array) => { x[0] = 6; }, { name: 'given' });
const g = wrap(jit((x: Float32Array) => { x[0] = 7; }));
const h = jit.withConstants({ N: 1 }, ({ N }) => (x: Float32Array) => { x[0] = N; });
`;
    const more = findKernels(shapes, '/app/src/k.ts', { root: '/app' })!;
    expect(more.records.map((r) => [r.name, r.binding])).toEqual([
      [undefined, 'a'],
      [undefined, 'b'],
      [undefined, 'c'],
      [undefined, 'd'],
      ['own', 'e'],
      [undefined, 'f'],
      [undefined, undefined],
      [undefined, 'h'],
    ]);
    expect(more.kernelNames).toEqual(['a', 'b', 'c', 'd', 'own', 'given', 'kernel', 'h']);
  });

  it('records files relative to the root: no absolute path of the build machine is in a record or the code', () => {
    for (const root of ['/home/builder/app', '/srv/ci/work/app/']) {
      const found = findKernels(APP, `${root.replace(/\/$/, '')}/src/main.ts`, { root })!;
      expect(found.records.map((r) => r.file)).toEqual(Array(5).fill('src/main.ts'));
      expect(found.records.every((r) => r.id.startsWith('src/main.ts:'))).toBe(true);
      expect(found.code).not.toContain(root.replace(/\/$/, ''));
    }
    // a file beside the root: a relative path still
    const beside = findKernels(APP, '/work/lib/k.ts', { root: '/work/app' })!;
    expect(beside.records[0]!.file).toBe('../lib/k.ts');
    expect(beside.records[0]!.id).toBe('../lib/k.ts:5:26');
  });

  it('blanks the types out of the recorded text, keeping its layout', () => {
    const found = findKernels(APP, '/app/src/main.ts')!;
    const scale = found.records[0]!;
    expect(scale.source).toBe(
      '(a              , s        ) => {\n  const i = gpu.grid(1);\n  if (i < a.length) a[i] = f32(a[i]  * s)          ;\n}',
    );
    expect(scale.original).toBe(
      '(a: Float32Array, s: number) => {\n  const i = gpu.grid(1);\n  if (i < a.length) a[i] = f32(a[i]! * s) as number;\n}',
    );
    expect(found.records[1]!.source).toBe('function add(a        , b         )         {\n  return a + (b ?? 0);\n}');
  });

  it('attaches each record to its function where the function is written, or where its name is passed', () => {
    const { code } = findKernels(APP, '/app/src/main.ts')!;
    expect(code).toContain('export const scale = jit(Object.defineProperty((a: Float32Array, s: number) => {');
    expect(code).toContain('cj.jit.device(Object.defineProperty(add, Symbol.for("cuda-js.kernel-record"), { value: {');
    expect(code).toContain('const notAKernel = other((a: number) => a);');
    // the record itself is plain data that evaluates back to what was found
    const literal =
      /jit\(Object\.defineProperty\(\(a: Float32Array, s: number\)[\s\S]*?\{ value: (\{.*?\}), configurable: true \}\)/.exec(
        code,
      )![1]!;
    expect((JSON.parse(literal) as KernelRecord).id).toMatch(/main\.ts:5:26$/);
  });

  it('leaves modules without kernels alone', () => {
    expect(findKernels("import { cuda } from 'cuda-js';\nconsole.log(cuda);", '/a.ts')).toBeUndefined();
    expect(findKernels('const jit = (f) => f; jit(() => 1);', '/b.js')).toBeUndefined();
    expect(findKernels("import { jit } from 'cuda-js'; jit(", '/c.js')).toBeUndefined();
  });

  it('maps positions through the map of an earlier compile step', () => {
    // the code as a compiler gave it (types gone, one line shifted down), with a map back to the .ts
    const compiled = "import { jit, cuda } from 'cuda-js';\n\nexport const k = jit((a) => {\n  a[0] = 1;\n});\n";
    // line 3 of the output is line 7 of the original, columns as they are; line 4 is line 8 col 3
    const mappings = ';;AAIA,qBAAoB;AACpB,EAAE';
    const found = findKernels(compiled, '/app/out.js', {
      root: '/app',
      inputMap: {
        version: 3,
        file: 'out.js',
        sources: ['/app/src/k.ts'],
        names: [],
        mappings,
        sourceRoot: '',
      } as never,
    })!;
    const r = found.records[0]!;
    expect(r.file).toBe('src/k.ts');
    expect(r.id).toBe(`src/k.ts:${r.line}:${r.column}`);
    expect(r.positions!.length).toBeGreaterThan(0);
    expect(r.original).toBeUndefined();
  });

  it('says which JIT module a call that declares signatures (in an object written in the call) comes from: the aot build', () => {
    expect(findKernels(APP, '/app/src/main.ts')?.declaresSignaturesFrom).toBeUndefined();
    const declared = `import { jit, f32, array } from 'cuda-js';
import * as cj from '@cuda-js/jit';
const plain = jit((x: Float32Array) => { x[0] = 1; }, { name: 'plain' });
const k = cj.jit.withConstants({ N: 4 }, ({ N }) => (a: Float32Array) => { a[0] = N; }, { signatures: [[array(f32, 1)]] });
const later = jit((x: Float32Array) => { x[0] = 2; }, { 'signatures': [[array(f32, 1)]] });
`;
    expect(findKernels(declared, '/app/src/k.ts')?.declaresSignaturesFrom).toBe('@cuda-js/jit');
    expect(findKernels(declared.replace(/^const k = .*$/m, ''), '/app/src/k.ts')?.declaresSignaturesFrom).toBe(
      'cuda-js',
    );
    // options given by a name are not read (the aot option says so)
    expect(
      findKernels(
        `import { jit } from 'cuda-js';\nconst o = { signatures: [] };\nexport const k = jit((x: Float32Array) => { x[0] = 1; }, o);\n`,
        '/app/k.ts',
      )?.declaresSignaturesFrom,
    ).toBeUndefined();
  });
});
