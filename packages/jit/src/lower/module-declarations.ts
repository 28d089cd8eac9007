// The functions a module calls but does not define (libdevice's `__nv_*`,
// NVVM intrinsics), each declared once.

export class ModuleDeclarations {
  private readonly declared = new Map<string, string>();

  /** Declares `@name` with `returnType` and `parameterTypes` (once) and returns `@name`. */
  declare(name: string, returnType: string, parameterTypes: readonly string[]): string {
    if (!this.declared.has(name)) this.declared.set(name, `declare ${returnType} @${name}(${parameterTypes.join(', ')})`);
    return `@${name}`;
  }

  /** The `declare` lines, in first-use order. */
  lines(): readonly string[] {
    return [...this.declared.values()];
  }
}
