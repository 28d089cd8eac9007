// The kernel's parameter list in NVVM IR, as TypedKernel's ABI says: a
// scalar is one value (bool as i8); an array is its data pointer, then ndim
// i64 extents if `use.shape`, then ndim i64 strides if `use.strides`.
import type { ArrayType, ScalarName } from '../typing/jit-types.js';
import type { ArrayUse, TypedKernel } from '../typing/typed-ir.js';
import { identifierPart, memoryType } from './llvm-types.js';

/** One parameter of the IR function. */
export interface AbiParameter {
  readonly llvmType: string;
  /** `%name` in the function. */
  readonly ref: string;
}

/** A scalar kernel parameter: its IR parameter and the local that holds it. */
export interface ScalarBinding {
  readonly kind: 'scalar';
  readonly type: ScalarName;
  readonly local: number;
  readonly parameter: AbiParameter;
}

/** An array kernel parameter: the data pointer and, where passed, extents and strides. */
export interface ArrayBinding {
  readonly kind: 'array';
  readonly type: ArrayType;
  readonly use: ArrayUse;
  /** The data pointer, typed as a pointer to the element's memory type (`float*`, `i8*` for bool). */
  readonly data: AbiParameter;
  /** ndim i64 extents, or undefined when they are not passed. */
  readonly extents: readonly AbiParameter[] | undefined;
  /** ndim i64 strides in elements, or undefined when they are not passed. */
  readonly strides: readonly AbiParameter[] | undefined;
}

export type ParameterBinding = ScalarBinding | ArrayBinding;

/** The ABI of `kernel`: one binding per kernel parameter (by index) and the flat IR parameter list. */
export interface KernelAbi {
  readonly bindings: readonly ParameterBinding[];
  readonly parameters: readonly AbiParameter[];
}

export function kernelAbi(kernel: TypedKernel): KernelAbi {
  const parameters: AbiParameter[] = [];
  const add = (llvmType: string, name: string): AbiParameter => {
    const p = { llvmType, ref: `%${name}` };
    parameters.push(p);
    return p;
  };
  const bindings = kernel.params.map((param, index): ParameterBinding => {
    const base = `p${index}.${identifierPart(param.name)}`;
    if (param.kind === 'scalar') {
      return { kind: 'scalar', type: param.type, local: param.local, parameter: add(memoryType(param.type), base) };
    }
    const { type, use } = param;
    const data = add(`${memoryType(type.dtype)}*`, `${base}.data`);
    const dims = Array.from({ length: type.ndim }, (_, k) => k);
    const extents = use.shape ? dims.map((k) => add('i64', `${base}.shape${k}`)) : undefined;
    const strides = use.strides ? dims.map((k) => add('i64', `${base}.stride${k}`)) : undefined;
    return { kind: 'array', type, use, data, extents, strides };
  });
  return { bindings, parameters };
}
