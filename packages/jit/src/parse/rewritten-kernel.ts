import type { ESTree } from 'meriyah';
import { cuda } from '../cuda.js';
import { RewrittenKernelError, type JitError, type SourceLocator } from '../errors.js';
import { INTRINSIC_NAMES } from './intrinsic-names.js';
import { declaredNames, forEachName } from './kernel-names.js';

// members that only cuda has: not the casts (a namespace object has them too: `ns.f32`), nor Math's names (`Math.cbrt`)
const CUDA_MEMBERS: ReadonlySet<string> = new Set(
  Object.keys(cuda).filter((name) => !INTRINSIC_NAMES.has(name) && !Object.hasOwn(Math, name)),
);

/** What to do about a rewritten kernel, for every message that says so. */
export const PLUGIN_ADVICE =
  "build the app with the cuda-js build plugin, @cuda-js/unplugin, which records each kernel before bundlers and minifiers run (its default export's .vite(), .esbuild(), .rollup(), .rolldown(), .webpack() or .rspack() in the build's plugins), or leave the kernels' modules unminified";

/**
 * Evidence in a kernel's syntax tree that a bundler or minifier rewrote its
 * text, in words, or undefined: a free name used as `cuda` (`n.grid(1)`),
 * statements joined into comma sequences (`a = 1, b = 2;`), or the
 * minifiers' spellings of `true`, `false` and `undefined` (`!0`, `!1`, `void 0`).
 */
export function rewriteEvidence(
  params: readonly ESTree.Node[],
  body: unknown,
): { readonly text: string; readonly fatal: boolean } | undefined {
  const declared = declaredNames(params, body);
  let found: { text: string; fatal: boolean } | undefined;
  const visit = (node: unknown): void => {
    if (found !== undefined || node === null || typeof node !== 'object') return;
    if (Array.isArray(node)) {
      for (const child of node) visit(child);
      return;
    }
    const n = node as ESTree.Node & Record<string, unknown>;
    if (n.type === 'MemberExpression') {
      const m = n as ESTree.MemberExpression;
      if (
        !m.computed &&
        m.object.type === 'Identifier' &&
        m.property.type === 'Identifier' &&
        CUDA_MEMBERS.has(m.property.name) &&
        m.object.name !== 'cuda' &&
        !declared.has(m.object.name)
      ) {
        found = {
          text: `'${m.object.name}.${m.property.name}' reads a member of cuda from '${m.object.name}', a name the kernel does not declare: the import of cuda was renamed`,
          fatal: true,
        };
        return;
      }
    }
    if (
      n.type === 'ExpressionStatement' &&
      (n as ESTree.ExpressionStatement).expression.type === 'SequenceExpression'
    ) {
      found = {
        text: 'statements are joined into one comma sequence (a = 1, b = 2;), as minifiers write them',
        fatal: false,
      };
      return;
    }
    if (n.type === 'UnaryExpression') {
      const u = n as ESTree.UnaryExpression;
      if (
        (u.operator === '!' || u.operator === 'void') &&
        u.argument.type === 'Literal' &&
        typeof u.argument.value === 'number'
      ) {
        found = {
          text: `'${u.operator === 'void' ? 'void ' : '!'}${String(u.argument.value)}' is a minifier's spelling of ${u.operator === 'void' ? 'undefined' : u.argument.value === 0 ? 'true' : 'false'}`,
          fatal: false,
        };
        return;
      }
    }
    for (const key in n) if (key !== 'start' && key !== 'end' && key !== 'type') visit(n[key]);
  };
  visit(body);
  return found;
}

/** Whether the text has the shape of minified code: long, on one line, with no space after its commas and semicolons. */
export function looksMinified(source: string): boolean {
  return source.length > 80 && !source.includes('\n') && !/[,;] /.test(source);
}

/** Free names that are single letters, as a name mangler leaves them (for the message of an error that a rewritten text met). */
function mangledFreeNames(params: readonly ESTree.Node[], body: unknown): string[] {
  const declared = declaredNames(params, body);
  const names = new Set<string>();
  forEachName(body, (id) => {
    if (!declared.has(id.name) && /^[a-zA-Z_$]$/.test(id.name)) names.add(id.name);
  });
  return [...names];
}

/**
 * The error to throw for `error`, met by a kernel whose text `fn.toString()`
 * gave: a {@link RewrittenKernelError} (with `error` as its cause) where the
 * text shows that a bundler or minifier rewrote it, else `error` itself.
 */
export function explainRewrite(
  error: unknown,
  kernel: {
    readonly source: string;
    readonly params: readonly ESTree.Node[];
    readonly body: unknown;
    readonly locator: SourceLocator;
    readonly name: string;
  },
): unknown {
  if (error instanceof RewrittenKernelError) return error;
  const evidence =
    rewriteEvidence(kernel.params, kernel.body)?.text ??
    (looksMinified(kernel.source) ? 'the text is minified (one long line)' : undefined);
  const mangled = mangledFreeNames(kernel.params, kernel.body);
  const shown =
    evidence ??
    (mangled.length > 0 && looksMinified(kernel.source)
      ? `it reads single-letter names it does not declare (${mangled.join(', ')})`
      : undefined);
  if (shown === undefined) return error;
  const detail = error instanceof Error ? ((error as JitError).detail ?? error.message) : String(error);
  return rewrittenKernelError(kernel.name, `${shown}; the error it met: ${detail}`, kernel.locator, error);
}

/** A {@link RewrittenKernelError} for `kernel` with `evidence`, located at the kernel's start. */
export function rewrittenKernelError(
  kernel: string,
  evidence: string,
  locator: SourceLocator,
  cause?: unknown,
): RewrittenKernelError {
  return new RewrittenKernelError(
    `the text of the kernel '${kernel}' was rewritten by a bundler or minifier, so the JIT cannot read it as written (${evidence}); ${PLUGIN_ADVICE}`,
    { locator, loc: { start: 0, end: 1 } },
    cause === undefined ? undefined : { cause },
  );
}
