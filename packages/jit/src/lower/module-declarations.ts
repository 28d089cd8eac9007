// What a module holds besides its kernel: the functions it calls but does
// not define (libdevice's `__nv_*`, NVVM intrinsics, vprintf), each declared
// once, and the globals it defines (shared and constant arrays, format
// strings, the grid barrier's counter), each under a unique symbol.
import { LoweringError } from './lowering-error.js';

export class ModuleDeclarations {
  private readonly declared = new Map<string, string>();
  private readonly globals = new Map<string, string>();

  /**
   * Declares `@name` with `returnType` and `parameterTypes` (once) and returns `@name`.
   *
   * @throws {LoweringError} when `@name` was declared with another type, or is a global of the module
   */
  declare(name: string, returnType: string, parameterTypes: readonly string[]): string {
    const line = `declare ${returnType} @${name}(${parameterTypes.join(', ')})`;
    const known = this.declared.get(name);
    if (known === undefined) {
      if (this.globals.has(name))
        throw new LoweringError(`@${name} is a global of the module; it cannot also be declared as a function`);
      this.declared.set(name, line);
    } else if (known !== line) {
      throw new LoweringError(`@${name} is declared twice, with different types: '${known}' and '${line}'`);
    }
    return `@${name}`;
  }

  /**
   * Defines the global `@name` as `definition` (the text after `@name = `), once: a second
   * call with the same name returns `@name` and keeps the first definition. Names here contain
   * a `$`, which a kernel's symbol (a C identifier) never does, so they cannot collide with it.
   */
  defineGlobal(name: string, definition: string): string {
    if (!this.globals.has(name)) this.globals.set(name, `@${name} = ${definition}`);
    return `@${name}`;
  }

  /** A global's name from `base` (`printf$`, …) that no definition uses yet: `base0`, `base1`, … */
  freshGlobalName(base: string): string {
    for (let n = 0; ; n++) if (!this.globals.has(`${base}${n}`)) return `${base}${n}`;
  }

  /** The `declare` lines, in first-use order. */
  lines(): readonly string[] {
    return [...this.declared.values()];
  }

  /** The global definitions, in first-definition order. */
  globalLines(): readonly string[] {
    return [...this.globals.values()];
  }
}
