/**
 * The free names that kernels use without passing them: `cuda` and the
 * scalar casts (core's scalar makers `f32(x)`, `i32(x)`, ...). Parse needs
 * them to tell them from free variables (also reached through a bundler's
 * namespace object, `import_jit.f32`); typing/intrinsics.ts maps each cast to
 * its scalar type. Here, below both, so that parse imports nothing of types.
 */
export const CAST_NAMES = Object.freeze([
  'bool',
  'i8',
  'u8',
  'i16',
  'u16',
  'i32',
  'u32',
  'i64',
  'u64',
  'f16',
  'bf16',
  'f32',
  'f64',
] as const);

/**
 * Names that a compiler or bundler may reach through a namespace object
 * (`__vi_import_0__.cuda`, `import_jit.f32`, `jit_1.cuda`): a member of a free
 * name that is one of these is taken as the name itself.
 */
export const INTRINSIC_NAMES: ReadonlySet<string> = new Set(['cuda', ...CAST_NAMES]);
