// What the generator's tests read: where its outputs are, whether its preprocessor is here, and the generated C++ functions.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..', '..');
/** The generated C++ (functions.inc, enums.inc, structs.inc, c_declarations.h). */
export const generatedNative = join(root, 'packages', 'bindings', 'native', 'generated');
/** The generated TypeScript (one module per namespace, handles.ts, coverage.json). */
export const generatedTs = join(root, 'packages', 'bindings', 'src', 'generated');
/** Whether gcc, the generator's preprocessor, is here. */
export const haveGcc = spawnSync('gcc', ['--version']).status === 0;

let bodies: ReadonlyMap<string, string> | undefined;

/** Each generated function's body in functions.inc, by its C++ name (`js_cuInit`); read once. */
export function generatedBodies(): ReadonlyMap<string, string> {
  bodies ??= new Map(
    [
      ...readFileSync(join(generatedNative, 'functions.inc'), 'utf8').matchAll(
        /^static Napi::Value (js_\w+)\(const Napi::CallbackInfo& info\) \{\n([\s\S]*?)\n\}$/gm,
      ),
    ].map((m) => [m[1]!, m[2]!]),
  );
  return bodies;
}

/** The body of the generated function of C function `name`; throws where there is none. */
export function generatedBody(name: string): string {
  const b = generatedBodies().get(`js_${name}`);
  if (!b) throw new Error(`no generated function ${name}`);
  return b;
}
