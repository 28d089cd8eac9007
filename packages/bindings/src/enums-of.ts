/** The enum objects among a generated module's exports (the rest are types only). */
export type EnumsOf<M> = {
  readonly [K in keyof M as M[K] extends Readonly<Record<string, unknown>> ? K : never]: M[K];
};

/** The numeric constants among a generated module's exports (its header's integer `#define`s). */
export type ConstantsOf<M> = { readonly [K in keyof M as M[K] extends number ? K : never]: M[K] };

/** Picks the numeric constants out of a generated module. */
export function constantsOf<M extends object>(module: M): ConstantsOf<M> {
  return Object.fromEntries(Object.entries(module).filter(([, v]) => typeof v === 'number')) as ConstantsOf<M>;
}

/** Picks the enum objects out of a generated module. */
export function enumsOf<M extends object>(module: M): EnumsOf<M> {
  return Object.fromEntries(
    Object.entries(module).filter(([, v]) => typeof v === 'object' && v !== null),
  ) as EnumsOf<M>;
}
