/**
 * A frozen table looked up by names from user text (a kernel's source, a
 * signature string): without a prototype, so that `constructor`,
 * `toString` or `__proto__` are no entry of it (`TABLE[name]` is undefined
 * for them, as for any other unknown name).
 */
export function nameTable<T>(entries: Readonly<Record<string, T>>): Readonly<Record<string, T>> {
  return Object.freeze(Object.assign(Object.create(null) as Record<string, T>, entries));
}
