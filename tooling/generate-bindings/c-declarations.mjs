// A purpose-built reader of preprocessed C headers (cuda.h, nvvm.h and the
// hand-written NVRTC/nvJitLink declarations). The headers are run through
// `gcc -E` first, so this sees only declarations: typedefs, enums, structs,
// unions and function prototypes, all of regular shape.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const STUBS = join(import.meta.dirname, 'stubs');

/** The header's declarations after the C preprocessor, with system headers replaced by empty stubs. */
export function preprocess(headerPath, defines = []) {
  return execFileSync(
    'gcc',
    ['-E', '-P', '-nostdinc', '-I', STUBS, ...defines.map((d) => `-D${d}`), '-x', 'c', headerPath],
    {
      encoding: 'utf8',
      maxBuffer: 64 << 20,
    },
  );
}

/** Removes `__attribute__((...))` groups, which carry nothing the bindings need. */
function stripAttributes(text) {
  let out = '';
  let i = 0;
  while (i < text.length) {
    const at = text.indexOf('__attribute__', i);
    if (at < 0) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, at);
    let j = text.indexOf('(', at);
    let depth = 0;
    for (; j < text.length; j++) {
      if (text[j] === '(') depth++;
      else if (text[j] === ')' && --depth === 0) break;
    }
    i = j + 1;
  }
  return out;
}

function tokenize(text) {
  const tokens = [];
  const re = /\s*(?:([A-Za-z_]\w*)|(0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*)|(<<|>>|[{}()[\];,*=|&~+\-:<>^/!?.]))/gy;
  let m;
  let position = 0;
  while ((m = re.exec(text))) {
    if (m[1]) tokens.push({ k: 'id', v: m[1] });
    else if (m[2]) tokens.push({ k: 'num', v: m[2] });
    else tokens.push({ k: 'p', v: m[3] });
    position = re.lastIndex;
  }
  const rest = text.slice(position).trim();
  if (rest) throw new Error(`cannot tokenize near: ${rest.slice(0, 80)}`);
  return tokens;
}

class Cursor {
  constructor(tokens) {
    this.t = tokens;
    this.i = 0;
  }
  peek(o = 0) {
    return this.t[this.i + o];
  }
  next() {
    if (this.i >= this.t.length) throw new Error('unexpected end of declarations');
    return this.t[this.i++];
  }
  is(v, o = 0) {
    return this.t[this.i + o]?.v === v;
  }
  eat(v) {
    if (!this.is(v)) throw new Error(`expected '${v}' at token ${this.i}, got '${this.peek()?.v}' (${this.context()})`);
    return this.next();
  }
  context() {
    return this.t
      .slice(Math.max(0, this.i - 8), this.i + 8)
      .map((t) => t.v)
      .join(' ');
  }
  done() {
    return this.i >= this.t.length;
  }
}

const QUALIFIERS = new Set(['const', 'volatile', 'extern', 'static', 'inline', '__inline', 'restrict', '__restrict']);
const BUILTIN_WORDS = new Set([
  'unsigned',
  'signed',
  'int',
  'char',
  'short',
  'long',
  'float',
  'double',
  'void',
  '_Bool',
]);

/**
 * Reads a type specifier: `const unsigned long long`, `struct CUctx_st`,
 * `CUdeviceptr`, or an inline `struct { ... }` / `enum { ... }` body.
 */
function parseSpecifier(c, ctx) {
  let isConst = false;
  const words = [];
  let aggregate;
  for (;;) {
    const t = c.peek();
    if (!t) break;
    if (t.v === '_Alignas') {
      // alignment does not change how a value is read or written from JS
      c.next();
      c.eat('(');
      for (let depth = 1; depth > 0; ) {
        const u = c.next();
        if (u.v === '(') depth++;
        if (u.v === ')') depth--;
      }
      continue;
    }
    if (t.k === 'id' && QUALIFIERS.has(t.v)) {
      if (t.v === 'const') isConst = true;
      c.next();
      continue;
    }
    if (t.v === 'struct' || t.v === 'union' || t.v === 'enum') {
      c.next();
      const kind = t.v;
      let tag;
      if (c.peek()?.k === 'id') tag = c.next().v;
      if (c.is('{')) {
        aggregate = kind === 'enum' ? parseEnumBody(c, tag, ctx) : parseAggregateBody(c, kind, tag, ctx);
      } else {
        aggregate = { kind, tag, ref: true };
      }
      continue;
    }
    if (t.k === 'id' && BUILTIN_WORDS.has(t.v)) {
      words.push(c.next().v);
      continue;
    }
    if (t.k === 'id' && words.length === 0 && !aggregate) {
      words.push(c.next().v);
      continue;
    }
    break;
  }
  return { isConst, name: words.join(' '), aggregate };
}

function evalEnumExpression(tokens, known) {
  const expr = tokens
    .map((t) => {
      if (t.k === 'num') return String(Number(BigInt(t.v.replace(/[uUlL]+$/, ''))));
      if (t.k === 'id') {
        if (!(t.v in known)) throw new Error(`unknown enum constant ${t.v}`);
        return `(${known[t.v]})`;
      }
      return t.v;
    })
    .join(' ');
  // Only numbers, known constants and C operators reach here.
  const value = Function(`"use strict"; return (${expr});`)();
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(`enum expression ${expr} is not a number`);
  return value;
}

function parseEnumBody(c, tag, ctx) {
  c.eat('{');
  const members = [];
  let next = 0;
  while (!c.is('}')) {
    const name = c.next().v;
    let value = next;
    if (c.is('=')) {
      c.next();
      const expr = [];
      let depth = 0;
      while (!(depth === 0 && (c.is(',') || c.is('}')))) {
        const t = c.next();
        if (t.v === '(') depth++;
        if (t.v === ')') depth--;
        expr.push(t);
      }
      value = evalEnumExpression(expr, ctx.constants);
    }
    ctx.constants[name] = value;
    members.push({ name, value });
    next = value + 1;
    if (c.is(',')) c.next();
  }
  c.eat('}');
  return { kind: 'enum', tag, members };
}

/** A declarator: pointers, a name (maybe absent), array sizes, or a function-pointer shape. */
function parseDeclarator(c, ctx) {
  let pointers = 0;
  const pointerConst = [];
  while (c.is('*')) {
    c.next();
    pointers++;
    let pc = false;
    while (c.peek()?.k === 'id' && QUALIFIERS.has(c.peek().v)) pc = c.next().v === 'const' || pc;
    pointerConst.push(pc);
  }
  // Function pointer: `(*name)(params)`.
  if (c.is('(') && c.is('*', 1)) {
    c.next();
    c.next();
    const name = c.peek()?.k === 'id' ? c.next().v : undefined;
    c.eat(')');
    const params = parseParams(c, ctx);
    return { name, pointers, functionPointer: { params } };
  }
  let name;
  if (c.peek()?.k === 'id') name = c.next().v;
  const dims = [];
  while (c.is('[')) {
    c.next();
    const expr = [];
    while (!c.is(']')) expr.push(c.next());
    c.eat(']');
    let size;
    try {
      size = expr.length ? evalEnumExpression(expr, ctx.constants) : 0;
    } catch {
      size = expr.map((t) => t.v).join(' '); // e.g. `8 - sizeof(X)`: the C++ side takes the size from the type
    }
    dims.push(size);
  }
  let bits;
  if (c.is(':')) {
    c.next();
    bits = Number(c.next().v);
  }
  let params;
  if (c.is('(')) params = parseParams(c, ctx);
  return { name, pointers, pointerConst, dims, bits, params };
}

function parseParams(c, ctx) {
  c.eat('(');
  const params = [];
  if (c.is('void') && c.is(')', 1)) {
    c.next();
  }
  while (!c.is(')')) {
    const spec = parseSpecifier(c, ctx);
    const d = parseDeclarator(c, ctx);
    params.push(makeType(spec, d, ctx));
    if (c.is(',')) c.next();
  }
  c.eat(')');
  return params;
}

function makeType(spec, d, ctx) {
  return {
    name: d.name,
    base:
      spec.aggregate && !spec.aggregate.ref
        ? registerAnonymous(spec.aggregate, ctx)
        : spec.aggregate?.ref
          ? `${spec.aggregate.kind} ${spec.aggregate.tag}`
          : spec.name,
    isConst: spec.isConst,
    pointers: d.pointers,
    dims: d.dims ?? [],
    bits: d.bits,
    functionPointer: d.functionPointer,
  };
}

function registerAnonymous(aggregate, ctx) {
  if (aggregate.kind === 'enum') {
    const key = aggregate.tag ? `enum ${aggregate.tag}` : `enum #${ctx.anon++}`;
    ctx.enums.set(key, aggregate);
    return key;
  }
  const key = aggregate.tag ? `${aggregate.kind} ${aggregate.tag}` : `${aggregate.kind} #${ctx.anon++}`;
  aggregate.key = key;
  // Defined inside another aggregate: C gives the tag file scope, C++ nests it, so C++ names it by decltype.
  aggregate.nested = aggregate.nestedBody ?? false;
  ctx.aggregates.set(key, aggregate);
  return key;
}

function parseAggregateBody(c, kind, tag, ctx) {
  c.eat('{');
  const nestedBody = (ctx.depth ?? 0) > 0;
  ctx.depth = (ctx.depth ?? 0) + 1;
  const fields = [];
  while (!c.is('}')) {
    const before = c.i;
    const spec = parseSpecifier(c, ctx);
    if (c.i === before) throw new Error(`cannot parse member near: ${c.context()}`);
    if (c.is(';')) {
      // An anonymous struct or union member: its fields belong to the parent.
      fields.push({ anonymous: true, base: registerAnonymous(spec.aggregate, ctx) });
      c.next();
      continue;
    }
    for (;;) {
      const d = parseDeclarator(c, ctx);
      fields.push(makeType(spec, d, ctx));
      if (c.is(',')) {
        c.next();
        continue;
      }
      break;
    }
    c.eat(';');
  }
  c.eat('}');
  ctx.depth--;
  return { kind, tag, fields, nestedBody };
}

/**
 * Parses preprocessed header text into its declarations:
 * `{ typedefs, enums, aggregates, functions, constants }`.
 */
export function parseDeclarations(text) {
  const c = new Cursor(tokenize(stripAttributes(text)));
  const ctx = { typedefs: new Map(), enums: new Map(), aggregates: new Map(), functions: [], constants: {}, anon: 0 };
  while (!c.done()) {
    if (c.is(';')) {
      c.next();
      continue;
    }
    const isTypedef = c.is('typedef');
    if (isTypedef) c.next();
    const spec = parseSpecifier(c, ctx);
    const baseKey = spec.aggregate && !spec.aggregate.ref ? registerAnonymous(spec.aggregate, ctx) : undefined;
    if (c.is(';')) {
      c.next();
      continue;
    }
    for (;;) {
      const before = c.i;
      const d = parseDeclarator(c, ctx);
      if (c.i === before && !c.is(';') && !c.is(',')) throw new Error(`cannot parse declaration near: ${c.context()}`);
      const type = makeType(
        { ...spec, aggregate: baseKey ? { ref: true, kind: '', tag: '' } : spec.aggregate },
        d,
        ctx,
      );
      if (baseKey) type.base = baseKey;
      if (isTypedef) {
        ctx.typedefs.set(d.name, type);
      } else if (d.params) {
        ctx.functions.push({
          name: d.name,
          returns: { base: type.base, isConst: type.isConst, pointers: type.pointers },
          params: d.params,
        });
      }
      if (c.is(',')) {
        c.next();
        continue;
      }
      break;
    }
    c.eat(';');
  }
  return ctx;
}

/** The object-like `#define`s of a raw (not preprocessed) header, comments removed: `[name, body]` in the header's order. */
function* objectLikeDefines(rawHeader) {
  const text = rawHeader.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/.*$/gm, '');
  for (const m of text.matchAll(/^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(?![\w(])[ \t]*(.*?)[ \t]*$/gm))
    if (m[2]) yield [m[1], m[2]];
}

/**
 * The object-like `#define`s of a raw (not preprocessed) declarations header:
 * integer constants (`#define NVML_DEVICE_NAME_V2_BUFFER_SIZE 96`, or an
 * integer expression of earlier ones: {@link integerDefines}) and renames
 * (`#define nvmlInit nvmlInit_v2`). Function-like macros and anything else are left out.
 */
export function headerDefines(rawHeader) {
  const integers = integerDefines(rawHeader);
  const constants = new Map([...integers].map(([name, { value }]) => [name, value]));
  const renames = new Map();
  for (const [name, body] of objectLikeDefines(rawHeader))
    if (!integers.has(name) && /^[A-Za-z_]\w*$/.test(body)) renames.set(name, body);
  return { constants, renames };
}

/** Operators a macro's integer expression may use (C's, which mean the same on BigInts). */
const DEFINE_OPERATORS = new Set(['(', ')', '+', '-', '*', '/', '<<', '>>', '&', '|', '^', '~']);

/**
 * The integer `#define`s of a raw (not preprocessed) header whose names match
 * `names`, in the header's order, each as `{ value, cast, body }`: bodies that
 * are an integer literal, a name defined earlier (a macro, or an enum member
 * in `known`), a C expression of those, or such an expression under one cast
 * covering the whole body, `((CUstream)0x1)`, where `castKind(type)` says what
 * the type holds: `'number'` or `'bigint'` (pointers, handles, 64-bit
 * integers). A value is a bigint where the cast says so or it is past the safe
 * integers. Function-like macros, API renames (`#define cuMemAlloc
 * cuMemAlloc_v2`) and other bodies are left out; a negative value from an
 * unsigned literal (its width unknown) and a name defined twice with two
 * values are errors.
 */
export function integerDefines(rawHeader, { names = /^/, known = {}, castKind = () => undefined } = {}) {
  const defines = new Map();
  for (const [name, body] of objectLikeDefines(rawHeader)) {
    if (!names.test(name)) continue;
    let tokens;
    try {
      tokens = tokenize(body);
    } catch {
      continue;
    }
    const cast = wholeCast(tokens, castKind);
    if (cast) tokens = cast.operand;
    let value;
    let unsigned = false;
    try {
      const expr = tokens
        .map((t) => {
          if (t.k === 'num') {
            unsigned ||= /u/i.test(t.v);
            return `${BigInt(t.v.replace(/[uUlL]+$/, ''))}n`;
          }
          if (t.k === 'id') {
            const earlier = defines.get(t.v)?.value ?? known[t.v];
            if (earlier === undefined) throw new Error(`unknown name ${t.v}`);
            return `(${BigInt(earlier)}n)`;
          }
          if (!DEFINE_OPERATORS.has(t.v)) throw new Error(`operator ${t.v}`);
          return t.v;
        })
        .join(' ');
      // Only BigInt literals and C operators reach here.
      value = Function(`"use strict"; return (${expr});`)();
    } catch {
      continue; // not an integer expression: not a constant
    }
    if (typeof value !== 'bigint') continue;
    if (unsigned && value < 0n)
      throw new Error(`#define ${name} ${body}: a negative value from an unsigned literal of unknown width`);
    const safe = value <= BigInt(Number.MAX_SAFE_INTEGER) && value >= BigInt(Number.MIN_SAFE_INTEGER);
    const big = cast ? cast.kind === 'bigint' : !safe;
    if (!big && !safe) throw new Error(`#define ${name} ${body}: past the safe integers for a ${cast.type}`);
    const entry = { value: big ? value : Number(value), cast: cast?.type, body };
    const before = defines.get(name);
    if (before && before.value !== entry.value)
      throw new Error(`#define ${name} has two values: ${before.body} and ${body}`);
    defines.set(name, entry);
  }
  return defines;
}

/** `((T)e)` or `(T)e` over a whole macro body, where `castKind(T)` knows T: the type, its kind and the tokens of `e`. */
function wholeCast(tokens, castKind) {
  let inner = tokens;
  if (inner[0]?.v === '(' && closingParen(inner, 0) === inner.length - 1) inner = inner.slice(1, -1);
  if (inner[0]?.v !== '(') return undefined;
  const close = closingParen(inner, 0);
  const typeTokens = inner.slice(1, close);
  if (
    close < 0 ||
    close === inner.length - 1 ||
    !typeTokens.length ||
    typeTokens.some((t) => t.k !== 'id' && t.v !== '*')
  )
    return undefined;
  const type = typeTokens
    .map((t) => t.v)
    .join(' ')
    .replace(/ \*/g, '*');
  const kind = castKind(type);
  return kind === 'number' || kind === 'bigint' ? { type, kind, operand: inner.slice(close + 1) } : undefined;
}

/** The index of the `)` that closes the `(` at `open`, or -1. */
function closingParen(tokens, open) {
  let depth = 0;
  for (let i = open; i < tokens.length; i++) {
    if (tokens[i].v === '(') depth++;
    else if (tokens[i].v === ')' && --depth === 0) return i;
  }
  return -1;
}

/** `#define cuX cuX_v2` and `#define cuX __CUDA_API_PTDS(cuX_v2)` lines of the raw header: C name of each versioned symbol. */
export function versionedNames(rawHeader) {
  const map = new Map();
  const re = /^\s*#define\s+(cu\w+)\s+(?:__CUDA_API_PT(?:DS|SZ)\((cu\w+)\)|(cu\w+))\s*$/gm;
  let m;
  while ((m = re.exec(rawHeader))) {
    const target = m[2] ?? m[3];
    // only versioned spellings of the same function (cuMemAlloc -> cuMemAlloc_v2), not renames
    if (target.replace(/_v\d+$/, '') === m[1] && target !== m[1]) map.set(target, m[1]);
  }
  return map;
}

/** A parameter list reduced to its types, for matching a prototype against the PFN typedefs (`CUdevice_v1` reads as `CUdevice`). */
export function signatureKey(typeTexts) {
  return typeTexts
    .map((t) =>
      t
        .replace(/\b(CU\w+?)_v\d+\b/g, '$1')
        .replace(/\s*\*\s*/g, '*')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .join(',');
}

/**
 * `PFN_<name>_v<NNNNN>[_ptds|_ptsz]` typedefs of cudaTypedefs.h: for each
 * entry point, every version with its parameter types, and the per-thread
 * variants.
 */
export function procVersions(typedefsHeader) {
  const versions = new Map();
  const re = /PFN_(cu\w+?)_v(\d+)(_pt(?:ds|sz))?\)\s*\(([^)]*)\)/g;
  let m;
  while ((m = re.exec(typedefsHeader))) {
    const [, name, version, perThread, params] = m;
    const types =
      params.trim() === 'void' || params.trim() === ''
        ? []
        : params.split(',').map((p) =>
            p
              .trim()
              .replace(/\b\w+$/, '')
              .trim(),
          );
    const list = versions.get(name) ?? [];
    list.push({ version: Number(version), perThread: Boolean(perThread), key: signatureKey(types) });
    versions.set(name, list);
  }
  return versions;
}
