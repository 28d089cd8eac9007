import { fenceRow } from '../intrinsics/fences.js';
import type { Expr, Stmt } from '../typing/typed-ir.js';
import { unknownNode } from '../typing/unknown-node.js';
import type { ExpressionSource, InlineBodySource } from './expression-source.js';

/** The label of the innermost thread loop: `return` continues it with the next thread. */
export const THREAD_LABEL = 'thread';

const label = (id: number): string => `L${id}`;

/**
 * Generates JavaScript statements for the typed IR's statements. Loops
 * become JavaScript loops of the same shape where one fits (`for` with its
 * update, `do ... while`), so that `continue` is JavaScript's own; other
 * loops get a labelled body block that `continue` leaves.
 */
export class StatementSource implements InlineBodySource {
  /** How `continue` reaches each enclosing loop, by loop id. */
  #continues = new Map<number, string>();
  /** What `return` becomes: the next thread of the loop (fast mode) or the generator's end (lockstep mode). */
  readonly #returnCode: string;
  /** Inside an inlined device function's body (a function of its own). */
  #inlined = 0;

  constructor(private readonly expressions: ExpressionSource) {
    this.#returnCode = expressions.lockstep ? 'return;' : `continue ${THREAD_LABEL};`;
    expressions.attach(this);
  }

  inlineBody(body: readonly Stmt[]): string[] {
    // Loops outside are not reachable from the body's function: a continue there would be no JavaScript.
    const outer = this.#continues;
    this.#continues = new Map();
    this.#inlined++;
    try {
      return this.generate(body, '  ');
    } finally {
      this.#inlined--;
      this.#continues = outer;
    }
  }

  generate(statements: readonly Stmt[], indent: string): string[] {
    const lines: string[] = [];
    for (const s of statements) this.#statement(s, indent, lines);
    return lines;
  }

  #expr(e: Expr): string {
    return this.expressions.generate(e).code;
  }

  #statement(s: Stmt, indent: string, lines: string[]): void {
    const inner = `${indent}  `;
    switch (s.op) {
      case 'expr':
        lines.push(`${indent}${this.#expr(s.expr)};`);
        return;
      case 'if':
        lines.push(`${indent}if (${this.#expr(s.test)}) {`, ...this.generate(s.then, inner));
        if (s.otherwise.length > 0) lines.push(`${indent}} else {`, ...this.generate(s.otherwise, inner));
        lines.push(`${indent}}`);
        return;
      case 'loop':
        this.#loop(s, indent, lines);
        return;
      case 'block':
        lines.push(`${indent}${label(s.id)}: {`, ...this.generate(s.body, inner), `${indent}}`);
        return;
      case 'break':
        lines.push(`${indent}break ${label(s.target)};`);
        return;
      case 'continue': {
        const how = this.#continues.get(s.target);
        if (how === undefined)
          throw new Error(`simulator: 'continue' names loop ${s.target}, which does not enclose it`);
        lines.push(`${indent}${how};`);
        return;
      }
      case 'return':
        if (this.#inlined > 0)
          throw new Error(
            "simulator: a 'return' statement in an inlined device function's body (its returns are assignments and breaks)",
          );
        lines.push(`${indent}${this.#returnCode}`);
        return;
      case 'barrier': {
        const op = { op: 'barrier', scope: s.scope } as const;
        if (s.scope === 'warp') {
          if (s.mask === undefined) throw new Error('simulator: the typed IR has a warp barrier without its mask');
          lines.push(`${indent}${this.expressions.collectiveCode(op, s.loc, 'c1', [this.#expr(s.mask)])};`);
        } else {
          lines.push(`${indent}${this.expressions.collectiveCode(op, s.loc, 'c0', [])};`);
        }
        return;
      }
      case 'fence': {
        // The simulator's threads see each other's writes at once: nothing to wait for (the row's form is a comment).
        const row = fenceRow(s.scope);
        if (!row) throw new Error(`simulator: the typed IR has a fence of scope '${s.scope}', which has no row`);
        lines.push(`${indent}${row.simulator}`);
        return;
      }
      case 'sleep':
        // The simulator does not sleep; the operand is still evaluated.
        lines.push(`${indent}void ${this.#expr(s.nanoseconds)};`);
        return;
      case 'print': {
        const site = this.expressions.addPrintSite(s.format, s.loc);
        lines.push(`${indent}print(${site}, [${s.args.map((a) => this.#expr(a)).join(', ')}]);`);
        return;
      }
      default:
        return unknownNode(s, (detail) => new Error(`simulator: ${detail}`));
    }
  }

  #loop(s: Extract<Stmt, { op: 'loop' }>, indent: string, lines: string[]): void {
    const inner = `${indent}  `;
    // Each iteration spends one step of the launch's budget: `while (true) {}` stops with a SimulatorError at the loop.
    const site = this.expressions.addLoopSite(s.loc);
    const step = `if (--budget.left < 0) budgetSpent(${site});`;
    const name = label(s.id);
    const test = s.test === undefined ? '' : this.#expr(s.test);
    const simpleUpdate = s.update.every((u) => u.op === 'expr');
    if (s.postTest === undefined && simpleUpdate) {
      // for (; test; update) body
      const update = s.update.map((u) => (u.op === 'expr' ? this.#expr(u.expr) : '')).join(', ');
      this.#continues.set(s.id, `continue ${name}`);
      lines.push(
        `${indent}${name}: for (; ${test}; ${update}) {`,
        `${inner}${step}`,
        ...this.generate(s.body, inner),
        `${indent}}`,
      );
    } else if (s.test === undefined && s.update.length === 0 && s.postTest !== undefined) {
      // do body while (postTest): JavaScript's continue goes to the test, as the IR's does.
      this.#continues.set(s.id, `continue ${name}`);
      const body = this.generate(s.body, inner);
      lines.push(`${indent}${name}: do {`, `${inner}${step}`, ...body, `${indent}} while (${this.#expr(s.postTest)});`);
    } else {
      // Any other combination: continue leaves the body block, then update and postTest run.
      const bodyLabel = `${name}body`;
      this.#continues.set(s.id, `break ${bodyLabel}`);
      const body = this.generate(s.body, `${inner}  `);
      this.#continues.delete(s.id); // update and postTest are outside the body: a continue there is not the IR's
      lines.push(`${indent}${name}: for (;;) {`, `${inner}${step}`);
      if (s.test !== undefined) lines.push(`${inner}if (!${test}) break ${name};`);
      lines.push(`${inner}${bodyLabel}: {`, ...body, `${inner}}`, ...this.generate(s.update, inner));
      if (s.postTest !== undefined) lines.push(`${inner}if (!${this.#expr(s.postTest)}) break ${name};`);
      lines.push(`${indent}}`);
    }
    this.#continues.delete(s.id);
  }
}
