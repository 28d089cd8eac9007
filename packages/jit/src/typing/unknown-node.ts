/**
 * The `default` of every switch over the typed IR's node kinds (`expr.op`,
 * `statement.op`) in the stages that read the IR (lower, simulate): `node`
 * has the type `never` where the switch handles every kind, so a kind added
 * to typed-ir.ts and not handled there is a compile error at that switch,
 * not a runtime surprise. At run time (IR made by hand, or cast) it throws
 * the stage's error, naming the kind.
 */
export function unknownNode(node: never, error: (detail: string) => Error): never {
  throw error(`the typed IR has a node of unknown op '${String((node as { readonly op?: unknown }).op)}'`);
}
