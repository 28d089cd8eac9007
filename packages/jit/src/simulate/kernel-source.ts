import { withNestingBound } from '../errors.js';
import { NO_COLLECTIVES, type TypedKernel } from '../typing/typed-ir.js';
import { arrayVariables as v } from './array-variables.js';
import type { ScalarName } from '../typing/jit-types.js';
import { ExpressionSource, functionName, localName } from './expression-source.js';
import type { FaultSites } from './fault-sites.js';
import { I64NumberRanges } from './i64-number-ranges.js';
import { collectivesIn } from './ir-traversal.js';
import { MemoryPlan, memoryVariables as mv } from './memory-plan.js';
import { RUNTIME_NAMES, SIMULATOR_RECURSION_LIMIT } from './simulator-runtime.js';
import type { SourceContext } from './source-context.js';
import { StatementSource, THREAD_LABEL } from './statement-source.js';

/** What the generated function takes for an array parameter: typed array over the whole buffer, and the layout in elements. */
export interface ArrayArgument {
  readonly data: ArrayLike<number | bigint>;
  readonly offset: number;
  readonly shape: readonly number[];
  /** Strides used for addressing: compact ones for 'C' and 'F' parameters, the view's for 'A'. */
  readonly steps: readonly number[];
  /** The view's strides, as `dim(stride)` reads them. */
  readonly strides: readonly number[];
}

/** The generated function: grid and block extents (x, y, z), then one value per parameter (converted scalars, ArrayArguments), then the bytes of dynamic shared memory. */
export type GeneratedKernel = (
  nctaidX: number,
  nctaidY: number,
  nctaidZ: number,
  ntidX: number,
  ntidY: number,
  ntidZ: number,
  args: readonly unknown[],
  sharedBytes: number,
) => void;

/** How a kernel runs: threads one after another (fast), or in lockstep (collectives), per block or over the whole grid (a grid barrier). */
export interface SimulationMode {
  readonly lockstep: boolean;
  readonly grid: boolean;
}

/** The kernel's mode, from its declared collectives and those its IR has (either suffices). */
export function simulationMode(kernel: TypedKernel): SimulationMode {
  const declared = kernel.collectives ?? NO_COLLECTIVES;
  const found = collectivesIn(kernel.body);
  const grid = declared.grid || found.grid;
  return { lockstep: grid || declared.block || declared.warp || found.block || found.warp, grid };
}

/**
 * The JavaScript source of one specialized kernel, the body of
 * `new Function('rt', source)`, which returns the GeneratedKernel. `rt` is
 * the SimulatorRuntime; `sites` receives the fault sites.
 *
 * Fast mode (no collectives): it loops over blocks (z, y, x) and threads
 * (z, y, x) and runs the kernel body inline for each thread; array layouts
 * are read into constants once per run; shared memory is zeroed per block
 * and local arrays per thread.
 *
 * Lockstep mode: the body is a generator function per thread, which yields
 * at each collective; the runtime's scheduler runs the threads of a block
 * (or of the grid) until each waits or finishes, and passes the collectives.
 */
export function generateKernelSource(
  kernel: TypedKernel,
  sites: FaultSites,
  plan: MemoryPlan = new MemoryPlan(kernel.memories ?? []),
): string {
  return withNestingBound('the simulator', () => generateKernelSourceUnbounded(kernel, sites, plan));
}

function generateKernelSourceUnbounded(
  kernel: TypedKernel,
  sites: FaultSites,
  plan: MemoryPlan = new MemoryPlan(kernel.memories ?? []),
): string {
  const mode = simulationMode(kernel);
  const temporaries: string[] = [];
  const context: SourceContext = {
    temporary(initial) {
      const name = `t${temporaries.length}`;
      temporaries.push(`${name} = ${initial}`);
      return name;
    },
    addFaultSite: (site) => sites.add(site),
  };
  const ranges = new I64NumberRanges(kernel);
  const functions = (kernel.functions ?? []).flatMap((_f, index) => functionSource(kernel, index, ranges, sites, plan));
  const statements = new StatementSource(
    new ExpressionSource(kernel, ranges, context, { plan, lockstep: mode.lockstep }),
  );
  const threadIndent = ' '.repeat(14);
  const body = statements.generate(kernel.body, mode.lockstep ? '    ' : `${threadIndent}  `);

  const prologue: string[] = [];
  const paramOfLocal = new Map<number, number>();
  kernel.params.forEach((p, i) => {
    if (p.kind === 'scalar') {
      prologue.push(`  const p${i} = args[${i}]; // ${p.name}: ${p.type}`);
      paramOfLocal.set(p.local, i);
      return;
    }
    prologue.push(
      `  const a${i} = args[${i}], ${v.data(i)} = a${i}.data, ${v.offset(i)} = a${i}.offset; // ${p.name}: ${p.type.name}`,
    );
    for (let k = 0; k < p.type.ndim; k++) {
      prologue.push(
        `  const ${v.extent(i, k)} = a${i}.shape[${k}], ${v.step(i, k)} = a${i}.steps[${k}], ${v.stride(i, k)} = a${i}.strides[${k}];`,
      );
    }
  });
  const owned = new Set((kernel.functions ?? []).flatMap((f) => f.locals));
  const locals = kernel.locals.flatMap((local, id) => {
    if (owned.has(id)) return []; // a recursive function's: each call declares its own
    const param = paramOfLocal.get(id);
    if (param !== undefined) return [`${localName(id)} = p${param}`];
    return [`${localName(id)} = ${zeroOf(local.type, ranges.isNumberLocal(id))}`];
  });
  if (functions.length > 0 && mode.lockstep) locals.push('depth = 0');

  // The kernel's own arrays.
  const constants: string[] = [];
  const shared: string[] = [];
  const localArrays: string[] = [];
  for (const layout of plan.layouts) {
    const k = layout.index;
    const m = layout.memory;
    const comment = ` // ${m.space} ${m.name}: ${m.dtype}[${m.dynamic ? '' : m.shape.join('][')}]`;
    if (m.space === 'const') constants.push(`const ${mv.data(k)} = constants[${k}];${comment}`);
    else if (m.space === 'shared')
      shared.push(`const ${mv.data(k)} = blk.memories[${k}], ${mv.shadow(k)} = blk.shadows[${k}];${comment}`);
    else localArrays.push(`const ${mv.data(k)} = new ${layout.arrayConstructor.name}(${layout.length});${comment}`);
    if (m.dynamic)
      prologue.push(
        `  const ${mv.dynamicExtent(k)} = Math.floor(sharedBytes / ${layout.bytes}); // dynamic shared ${m.name}`,
      );
  }

  const name = `simulate_${kernel.symbol.replace(/[^\w$]/g, '_')}`;
  const head = [
    `'use strict';`,
    `// ${kernel.symbol}, generated by the cuda-js simulator from the typed IR${mode.lockstep ? ` (lockstep mode${mode.grid ? ', the whole grid at once' : ''})` : ''}.`,
    `const { ${RUNTIME_NAMES.join(', ')} } = rt;`,
    ...constants,
    `return function ${name}(nctaidX, nctaidY, nctaidZ, ntidX, ntidY, ntidZ, args, sharedBytes) {`,
    ...prologue,
  ];
  const lets = (indent: string, names: readonly string[]): string[] =>
    names.length > 0 ? [`${indent}let ${names.join(', ')};`] : [];

  if (mode.lockstep) {
    return [
      ...head,
      `  function* thread(s, lin, tidX, tidY, tidZ, ctaidX, ctaidY, ctaidZ, q, blk) {`,
      ...shared.map((line) => `    ${line}`),
      ...localArrays.map((line) => `    ${line}`),
      ...lets('    ', locals),
      ...lets('    ', temporaries),
      ...functions.map((line) => `    ${line}`),
      ...body,
      `  }`,
      `  runLockstep(thread, nctaidX, nctaidY, nctaidZ, ntidX, ntidY, ntidZ, sharedBytes);`,
      `};`,
      '',
    ].join('\n');
  }

  const hasShared = shared.length > 0;
  return [
    ...head,
    ...(hasShared
      ? [`  const blk = blockMemory(sharedBytes, ntidX, ntidY, ntidZ);`, ...shared.map((line) => `  ${line}`)]
      : []),
    ...localArrays.map((line) => `  ${line}`),
    ...lets('  ', temporaries),
    `  let ctaidX = 0, ctaidY = 0, ctaidZ = 0, tidX = 0, tidY = 0, tidZ = 0${hasShared ? ', lin = 0' : ''}${functions.length > 0 ? ', depth = 0' : ''};`,
    ...functions.map((line) => `  ${line}`),
    `  try {`,
    `    for (ctaidZ = 0; ctaidZ < nctaidZ; ctaidZ++) {`,
    `      for (ctaidY = 0; ctaidY < nctaidY; ctaidY++) {`,
    `        for (ctaidX = 0; ctaidX < nctaidX; ctaidX++) {`,
    ...(hasShared ? [`          blk.begin(ctaidX, ctaidY, ctaidZ);`] : []),
    `          for (tidZ = 0; tidZ < ntidZ; tidZ++) {`,
    `            for (tidY = 0; tidY < ntidY; tidY++) {`,
    `              ${THREAD_LABEL}: for (tidX = 0; tidX < ntidX; tidX++) {`,
    ...lets(`${threadIndent}  `, locals),
    ...(hasShared ? [`${threadIndent}  lin = (tidZ * ntidY + tidY) * ntidX + tidX;`] : []),
    ...plan.locals.map(
      (l) =>
        `${threadIndent}  ${mv.data(l.index)}.fill(${l.memory.dtype === 'i64' || l.memory.dtype === 'u64' ? '0n' : '0'});`,
    ),
    ...body,
    `              }`,
    `            }`,
    `          }`,
    `        }`,
    `      }`,
    `    }`,
    `  } catch (error) {`,
    `    throw locateFault(error, [ctaidX, ctaidY, ctaidZ], [tidX, tidY, tidZ]);`,
    `  }`,
    `};`,
    '',
  ].join('\n');
}

/** The initial value of a local of type `type` (an i64 held as a number starts at 0). */
function zeroOf(type: ScalarName, asNumber: boolean): string {
  return type === 'bool' ? 'false' : type === 'u64' || (type === 'i64' && !asNumber) ? '0n' : '0';
}

/**
 * Recursive function `index` of the kernel as a JavaScript function
 * `fN(params...)` (lines), which sees the thread's position where it is
 * declared. Each call has its own locals and temporaries; the nesting of
 * calls is counted in `depth` and bounded by SIMULATOR_RECURSION_LIMIT (a
 * named SimulatorError at the function, not the engine's stack overflow).
 */
function functionSource(
  kernel: TypedKernel,
  index: number,
  ranges: I64NumberRanges,
  sites: FaultSites,
  plan: MemoryPlan,
): string[] {
  const f = kernel.functions![index]!;
  const temporaries: string[] = [];
  const context: SourceContext = {
    temporary(initial) {
      const name = `t${temporaries.length}`;
      temporaries.push(`${name} = ${initial}`);
      return name;
    },
    addFaultSite: (site) => sites.add(site),
  };
  const statements = new StatementSource(new ExpressionSource(kernel, ranges, context, { plan, lockstep: false }));
  const body = statements.generate(f.body, '  ');
  const site = sites.add({ kind: 'recursion', loc: f.loc, function: index, name: f.name });
  const params = new Set(f.params);
  const locals = f.locals.flatMap((id) =>
    params.has(id) ? [] : [`${localName(id)} = ${zeroOf(kernel.locals[id]!.type, ranges.isNumberLocal(id))}`],
  );
  const lets = [...locals, ...temporaries];
  return [
    `function ${functionName(index)}(${f.params.map(localName).join(', ')}) { // ${f.name}${f.returns ? `: ${f.returns}` : ''}`,
    `  if (++depth > ${SIMULATOR_RECURSION_LIMIT}) recursionTooDeep(${site});`,
    ...(lets.length > 0 ? [`  let ${lets.join(', ')};`] : []),
    ...body,
    `  depth--;`,
    ...(f.result !== undefined ? [`  return ${localName(f.result)};`] : []),
    `}`,
  ];
}
