// Module hooks (node:module register) for a child process that runs this
// package's TypeScript sources as they are, with no build: a relative `.js`
// import from a `.ts` file resolves to the `.ts` beside it, which TypeScript
// strips of its types. Every module loaded is appended, one URL a line, to
// the file named by LOADED_MODULES_LOG, so that a test sees what an import
// really loaded.
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export async function resolve(specifier, context, nextResolve) {
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.endsWith('.ts')) {
    const source = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (existsSync(fileURLToPath(source))) return { url: source.href, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}

export async function load(url, context, nextLoad) {
  const log = process.env.LOADED_MODULES_LOG;
  if (log) appendFileSync(log, `${url}\n`);
  if (!url.endsWith('.ts')) return nextLoad(url, context);
  const path = fileURLToPath(url);
  const { outputText } = ts.transpileModule(readFileSync(path, 'utf8'), {
    fileName: path,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
  });
  return { format: 'module', source: outputText, shortCircuit: true };
}
