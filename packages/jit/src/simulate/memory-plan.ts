import { bfloat16Bits, float16Bits } from '@cuda-js/core';
import type { KernelMemory } from '../typing/typed-ir.js';
import { ELEMENT_TYPES, type ElementArray, type ElementArrayConstructor } from './element-types.js';
import { type BlockClock, type RaceReporter, SharedShadow } from './race-shadow.js';

/** One of the kernel's own arrays (typed-ir.ts's KernelMemory) as the simulator lays it out: compact, C order, from element 0. */
export interface MemoryLayout {
  readonly index: number;
  readonly memory: KernelMemory;
  readonly arrayConstructor: ElementArrayConstructor;
  /** Bytes per element. */
  readonly bytes: number;
  /** Extents in C order ([0] for a dynamic shared array, whose extent the launch gives). */
  readonly shape: readonly number[];
  /** Compact C strides in elements. */
  readonly steps: readonly number[];
  /** Elements (0 for a dynamic shared array). */
  readonly length: number;
}

/** Names of a memory's variables in generated code. */
export const memoryVariables = {
  /** The typed array of memory k (per block for shared, per thread for local). */
  data: (k: number): string => `m${k}`,
  /** The race shadow of shared memory k. */
  shadow: (k: number): string => `r${k}`,
  /** The extent of dynamic shared array k in this launch. */
  dynamicExtent: (k: number): string => `mn${k}`,
} as const;

function describe(m: KernelMemory): string {
  return `${m.space} array '${m.name}'`;
}

/** How the bits of f16 and bf16 elements are made (what generated code calls by these names). */
const ENCODERS = { float16Bits, bfloat16Bits } as const;

/** Elements of a const array in its typed array (bigints for i64/u64, 0/1 for bool, the bits of f16 and bf16). */
function constData(layout: MemoryLayout): ElementArray {
  const { memory } = layout;
  const data = memory.data;
  if (data === undefined) throw new Error(`simulator: the ${describe(memory)} has no data`);
  if (data.length !== layout.length)
    throw new Error(
      `simulator: the ${describe(memory)} has ${data.length} elements of data for shape [${memory.shape.join(', ')}]`,
    );
  const ctor = layout.arrayConstructor;
  const out = new ctor(layout.length);
  const big = memory.dtype === 'i64' || memory.dtype === 'u64';
  const bits = ELEMENT_TYPES[memory.dtype].bits;
  const encode = bits === undefined ? Number : ENCODERS[bits.encode];
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    (out as { [k: number]: number | bigint })[i] = big
      ? BigInt(v)
      : typeof v === 'boolean'
        ? v
          ? 1
          : 0
        : encode(Number(v));
  }
  return out;
}

/**
 * Where each of a kernel's memories lives in the simulator: shared arrays
 * per block (zeroed when the block starts; the dynamic ones are views of one
 * buffer of the launch's dynamic shared memory, so that they alias), local
 * arrays per thread (zeroed), const arrays made once from their data.
 */
export class MemoryPlan {
  readonly layouts: readonly MemoryLayout[];
  readonly shared: readonly MemoryLayout[];
  readonly locals: readonly MemoryLayout[];
  /** The const arrays' typed arrays, by memory index. */
  readonly constants: readonly (ElementArray | undefined)[];
  /** Bytes per unit of the dynamic shared memory's race shadow: the smallest element among the dynamic arrays. */
  readonly dynamicUnit: number;

  constructor(memories: readonly KernelMemory[]) {
    this.layouts = memories.map((memory, index) => {
      const element = ELEMENT_TYPES[memory.dtype];
      if (element === undefined)
        throw new Error(`simulator: the ${describe(memory)} has no scalar dtype ('${String(memory.dtype)}')`);
      const shape = [...memory.shape];
      if (memory.dynamic) {
        if (memory.space !== 'shared' || shape.length !== 1)
          throw new Error(`simulator: the dynamic ${describe(memory)} must be a 1-D shared array`);
      } else if (shape.length === 0 || !shape.every((n) => Number.isSafeInteger(n) && n >= 0)) {
        throw new Error(`simulator: the ${describe(memory)} has shape [${shape.join(', ')}]`);
      }
      const steps = shape.map((_, k) => shape.slice(k + 1).reduce((a, n) => a * n, 1));
      const length = memory.dynamic ? 0 : shape.reduce((a, n) => a * n, 1);
      return {
        index,
        memory,
        arrayConstructor: element.arrayConstructor,
        bytes: element.arrayConstructor.BYTES_PER_ELEMENT,
        shape,
        steps,
        length,
      };
    });
    this.shared = this.layouts.filter((l) => l.memory.space === 'shared');
    this.locals = this.layouts.filter((l) => l.memory.space === 'local');
    this.constants = this.layouts.map((l) => (l.memory.space === 'const' ? constData(l) : undefined));
    const dynamic = this.shared.filter((l) => l.memory.dynamic);
    this.dynamicUnit = dynamic.length === 0 ? 1 : Math.min(...dynamic.map((l) => l.bytes));
  }

  get hasShared(): boolean {
    return this.shared.length > 0;
  }

  /** Shadow units per element of shared memory k. */
  unitsPerElement(k: number): number {
    const layout = this.layouts[k]!;
    return layout.memory.dynamic ? layout.bytes / this.dynamicUnit : 1;
  }

  /** One block's shared memory and race shadows, for a launch with `sharedBytes` of dynamic shared memory. */
  block(sharedBytes: number, clock: BlockClock, report: RaceReporter): BlockMemory {
    return new BlockMemory(this, sharedBytes, clock, report);
  }
}

/** One block's shared arrays (by memory index) and their race shadows. */
export class BlockMemory {
  readonly memories: (ElementArray | undefined)[];
  readonly shadows: (SharedShadow | undefined)[];
  readonly #buffers: Uint8Array[] = [];
  readonly #shadowList: SharedShadow[] = [];

  constructor(
    plan: MemoryPlan,
    readonly sharedBytes: number,
    readonly clock: BlockClock,
    report: RaceReporter,
  ) {
    this.memories = plan.layouts.map(() => undefined);
    this.shadows = plan.layouts.map(() => undefined);
    let dynamicBuffer: ArrayBuffer | undefined;
    let dynamicShadow: SharedShadow | undefined;
    for (const layout of plan.shared) {
      const ctor = layout.arrayConstructor;
      if (layout.memory.dynamic) {
        if (dynamicBuffer === undefined) {
          dynamicBuffer = new ArrayBuffer(sharedBytes);
          this.#buffers.push(new Uint8Array(dynamicBuffer));
          dynamicShadow = new SharedShadow(Math.ceil(sharedBytes / plan.dynamicUnit), clock, report);
          this.#shadowList.push(dynamicShadow);
        }
        this.memories[layout.index] = new ctor(dynamicBuffer, 0, Math.floor(sharedBytes / layout.bytes));
        this.shadows[layout.index] = dynamicShadow;
      } else {
        const array = new ctor(layout.length);
        this.#buffers.push(new Uint8Array(array.buffer));
        this.memories[layout.index] = array;
        const shadow = new SharedShadow(layout.length, clock, report);
        this.#shadowList.push(shadow);
        this.shadows[layout.index] = shadow;
      }
    }
  }

  /** Block (bx, by, bz) starts: its shared memory is zeroed, and it begins a new epoch. */
  begin(bx: number, by: number, bz: number): void {
    for (const b of this.#buffers) b.fill(0);
    if (this.clock.global.exhausted) this.#restart();
    this.clock.begin(bx, by, bz);
  }

  #restart(): void {
    for (const s of this.#shadowList) s.clear();
    this.clock.clear();
    this.clock.global.restart();
  }
}
