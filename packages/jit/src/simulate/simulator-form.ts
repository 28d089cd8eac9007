// The simulator form of an intrinsic table's row (intrinsics/forms.ts): a
// JavaScript expression whose `$0`, `$1`, … are the operands' generated code
// and whose `$name` are a family's own placeholders.

/** `form` with `$0`, `$1`, … replaced by `operands` and `$name` by `named[name]` (the form brackets what needs it). */
export function simulatorExpression(
  form: string,
  operands: readonly string[],
  named: Readonly<Record<string, string>> = {},
): string {
  return form.replace(/\$(\d+|[A-Za-z]\w*)/g, (whole, key: string) => {
    const value = /^\d+$/.test(key) ? operands[Number(key)] : named[key];
    if (value === undefined)
      throw new Error(`simulator: the intrinsic form '${form}' names ${whole}, which this use does not give`);
    return value;
  });
}
