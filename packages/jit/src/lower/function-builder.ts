// Builds the text of one LLVM function: basic blocks of instructions, with
// unique names for values and labels. It knows nothing of the kernel
// language; the lowering files say what to emit.

/** A value in IR text: its operand text (`%t3`, `42`, `0x3FF0000000000000`) and LLVM type. */
export interface IrValue {
  readonly ref: string;
  readonly llvmType: string;
}

interface Block {
  readonly label: string;
  readonly instructions: string[];
  terminated: boolean;
}

export class FunctionBuilder {
  private readonly blocks: Block[] = [];
  private current: Block;
  private readonly prologue: string[] = [];
  private nextValue = 0;
  private nextLabel = 0;

  constructor() {
    this.current = { label: 'entry', instructions: [], terminated: false };
    this.blocks.push(this.current);
  }

  /** The label of the block being filled: the predecessor that a phi names for the value just computed. */
  get currentLabel(): string {
    return this.current.label;
  }

  /** Whether the block being filled has ended (after a branch or return); code after it is unreachable. */
  get isTerminated(): boolean {
    return this.current.terminated;
  }

  /** A fresh label, not yet placed: `hint.N`. */
  newLabel(hint: string): string {
    return `${hint}.${this.nextLabel++}`;
  }

  /** A fresh value name, `%hintN`. */
  newValue(hint = 't'): string {
    return `%${hint}${this.nextValue++}`;
  }

  /** An instruction at the top of the entry block (allocas, so that the optimizer promotes them to registers). */
  emitInEntry(instruction: string): void {
    this.prologue.push(instruction);
  }

  /** An instruction without a result (store, call of a void function). */
  emit(instruction: string): void {
    this.openIfTerminated();
    this.current.instructions.push(instruction);
  }

  /** An instruction with a result: `%tN = <rhs>`; returns `%tN`. */
  compute(rhs: string, hint = 't'): string {
    const name = this.newValue(hint);
    this.emit(`${name} = ${rhs}`);
    return name;
  }

  /** Ends the current block with `br label %target`. */
  branch(target: string): void {
    this.terminate(`br label %${target}`);
  }

  /** Ends the current block with a conditional branch on an i1. */
  branchIf(condition: string, whenTrue: string, whenFalse: string): void {
    this.terminate(`br i1 ${condition}, label %${whenTrue}, label %${whenFalse}`);
  }

  /** Ends the current block with `instruction` (a `br` or `ret`). */
  terminate(instruction: string): void {
    this.emit(instruction);
    this.current.terminated = true;
  }

  /** Places `label` here: the current block falls through into it when it has not ended. */
  startBlock(label: string): void {
    if (!this.current.terminated) this.branch(label);
    this.current = { label, instructions: [], terminated: false };
    this.blocks.push(this.current);
  }

  /** The function body, `{` to `}`, with `ret void` closing a block left open at the end. */
  body(): string {
    if (!this.current.terminated) this.terminate('ret void');
    const lines: string[] = [];
    for (const [i, block] of this.blocks.entries()) {
      lines.push(`${block.label}:`);
      if (i === 0) for (const instruction of this.prologue) lines.push(`  ${instruction}`);
      for (const instruction of block.instructions) lines.push(`  ${instruction}`);
    }
    return `{\n${lines.join('\n')}\n}`;
  }

  // Code after a break, continue or return still has to sit in a block: an
  // unreachable one, which the optimizer deletes.
  private openIfTerminated(): void {
    if (!this.current.terminated) return;
    this.current = { label: this.newLabel('unreachable'), instructions: [], terminated: false };
    this.blocks.push(this.current);
  }
}
