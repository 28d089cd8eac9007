import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JS modules of the generator, with no type declarations
import { headerDefines, parseDeclarations, preprocess } from './c-declarations.mjs';
// @ts-expect-error: plain JS modules of the generator, with no type declarations
import { classifyFunction, TypeModel } from './classify.mjs';
import { generatedBody as body, generatedNative, generatedTs, haveGcc } from './generated-code.test-support.js';

// declarations/nccl.h is written by hand from NCCL's API reference: these pin
// the ABI facts it states, and what the generator makes of it.
const header = join(import.meta.dirname, 'declarations', 'nccl.h');

interface Param {
  name: string;
  base: string;
  pointers: number;
  role?: string;
  kind?: string;
}
interface Decls {
  typedefs: Map<string, { base: string; pointers: number }>;
  enums: Map<string, { members: { name: string; value: number }[] }>;
  aggregates: Map<string, { fields: { name: string; base: string; dims: number[] }[] }>;
  functions: { name: string; params: Param[]; returns: { base: string; pointers: number } }[];
}

const FUNCTIONS = [
  'ncclGetVersion',
  'ncclGetUniqueId',
  'ncclCommInitRank',
  'ncclCommInitAll',
  'ncclCommFinalize',
  'ncclCommDestroy',
  'ncclCommAbort',
  'ncclGetErrorString',
  'ncclGetLastError',
  'ncclCommGetAsyncError',
  'ncclCommCount',
  'ncclCommCuDevice',
  'ncclCommUserRank',
  'ncclReduce',
  'ncclBroadcast',
  'ncclAllReduce',
  'ncclReduceScatter',
  'ncclAllGather',
  'ncclSend',
  'ncclRecv',
  'ncclGroupStart',
  'ncclGroupEnd',
];
const COLLECTIVES = [
  'ncclReduce',
  'ncclBroadcast',
  'ncclAllReduce',
  'ncclReduceScatter',
  'ncclAllGather',
  'ncclSend',
  'ncclRecv',
];

describe('the NCCL declarations', () => {
  it('state the size of a unique id', () => {
    const { constants } = headerDefines(readFileSync(header, 'utf8')) as { constants: Map<string, number> };
    expect(Object.fromEntries(constants)).toEqual({ NCCL_UNIQUE_ID_BYTES: 128 });
  });

  it.skipIf(!haveGcc)("declare NCCL's functions, enums and the unique id, in nccl.h's parameter order", () => {
    const d = parseDeclarations(preprocess(header)) as Decls;
    expect(d.functions.map((f) => f.name)).toEqual(FUNCTIONS);
    expect(d.typedefs.get('ncclComm_t')).toMatchObject({ base: 'struct ncclComm', pointers: 1 });
    expect(d.typedefs.get('CUstream')).toMatchObject({ base: 'struct CUstream_st', pointers: 1 });
    expect(d.typedefs.get('CUdeviceptr')).toMatchObject({ base: 'unsigned long long', pointers: 0 });
    const id = d.aggregates.get(d.typedefs.get('ncclUniqueId')!.base)!;
    expect(id.fields.map((f) => `${f.base} ${f.name}[${f.dims.join('][')}]`)).toEqual(['char internal[128]']);
    const members = (typedef: string) =>
      Object.fromEntries(d.enums.get(d.typedefs.get(typedef)!.base)!.members.map((m) => [m.name, m.value]));
    expect(members('ncclResult_t')).toEqual({
      ncclSuccess: 0,
      ncclUnhandledCudaError: 1,
      ncclSystemError: 2,
      ncclInternalError: 3,
      ncclInvalidArgument: 4,
      ncclInvalidUsage: 5,
      ncclRemoteError: 6,
      ncclInProgress: 7,
      ncclNumResults: 8,
    });
    expect(members('ncclRedOp_t')).toEqual({
      ncclSum: 0,
      ncclProd: 1,
      ncclMax: 2,
      ncclMin: 3,
      ncclAvg: 4,
      ncclNumOps: 5,
      ncclMaxRedOp: 0x7fffffff,
    });
    expect(members('ncclDataType_t')).toMatchObject({
      ncclInt8: 0,
      ncclUint8: 1,
      ncclInt32: 2,
      ncclUint32: 3,
      ncclInt64: 4,
      ncclUint64: 5,
      ncclFloat16: 6,
      ncclFloat32: 7,
      ncclFloat64: 8,
      ncclBfloat16: 9,
    });
    const sig = (name: string) =>
      d.functions.find((f) => f.name === name)!.params.map((p) => `${p.base}${'*'.repeat(p.pointers)} ${p.name}`);
    expect(sig('ncclAllReduce')).toEqual([
      'CUdeviceptr sendbuff',
      'CUdeviceptr recvbuff',
      'size_t count',
      'ncclDataType_t datatype',
      'ncclRedOp_t op',
      'ncclComm_t comm',
      'CUstream stream',
    ]);
    expect(sig('ncclReduce')).toEqual([
      'CUdeviceptr sendbuff',
      'CUdeviceptr recvbuff',
      'size_t count',
      'ncclDataType_t datatype',
      'ncclRedOp_t op',
      'int root',
      'ncclComm_t comm',
      'CUstream stream',
    ]);
    expect(sig('ncclSend')).toEqual([
      'CUdeviceptr sendbuff',
      'size_t count',
      'ncclDataType_t datatype',
      'int peer',
      'ncclComm_t comm',
      'CUstream stream',
    ]);
    expect(sig('ncclCommInitRank')).toEqual(['ncclComm_t* comm', 'int nranks', 'ncclUniqueId commId', 'int rank']);
    expect(sig('ncclCommInitAll')).toEqual(['ncclComm_t* comm', 'int ndev', 'int* devlist']);
  });

  it.skipIf(!haveGcc)(
    'ncclCommInitAll: ndev counts both arrays (communicators out, device ordinals in), never one handle',
    () => {
      const d = parseDeclarations(preprocess(header)) as Decls;
      const fn = d.functions.find((f) => f.name === 'ncclCommInitAll')!;
      const ps = classifyFunction(fn, fn.name, new TypeModel(d), new Map()) as Param[];
      expect(ps.map((p) => `${p.name}:${p.role}/${p.kind}`)).toEqual([
        'comm:out/out-array-sized',
        'ndev:count/count',
        'devlist:in/array',
      ]);
    },
  );
});

describe('what the generator makes of them', () => {
  it('an nccl namespace of every declared function', () => {
    const table = readFileSync(join(generatedNative, 'functions.inc'), 'utf8');
    for (const name of FUNCTIONS) expect(table).toContain(`{"nccl", "${name}", js_${name}},`);
    const coverage = JSON.parse(readFileSync(join(generatedTs, 'coverage.json'), 'utf8')) as {
      headerFunctions: { nccl: string[] };
    };
    expect(coverage.headerFunctions.nccl).toEqual([...FUNCTIONS].sort());
  });

  it('opens libnccl through pathfinder and checks every status into NcclError', () => {
    for (const name of FUNCTIONS) {
      const b = body(name);
      expect(b, name).toContain(`librarySymbol(call, Lib::Nccl, "${name}")`);
      if (name === 'ncclGetErrorString' || name === 'ncclGetLastError') expect(b).toContain('const char* s = fp(a0);');
      else expect(b, name).toMatch(/^ {2}checkNccl\(call, fp\(.*\)\);$/m);
    }
    expect(readFileSync(join(generatedNative, 'enums.inc'), 'utf8')).toMatch(
      /inline const char\* ncclResult_tName\(long long v\) \{[\s\S]*?case 7: return "ncclInProgress";/,
    );
  });

  it('communicators are tracked: made by the init functions, held by every call, untracked before destroy and abort', () => {
    expect(body('ncclCommInitRank')).toMatch(/checkNccl\(call, fp\(&o0, a1, a2, a3\)\);\n {2}trackProgram\(o0\);/);
    expect(body('ncclCommInitAll')).toContain('std::vector<std::remove_pointer_t<P<F, 0>>> o0(c1);');
    expect(body('ncclCommInitAll')).toMatch(/size_t c1 = sharedCount\(call, \{\{n2, "devlist"\}\}\);/);
    expect(body('ncclCommInitAll')).toContain('for (auto h : o0) trackProgram(h);');
    for (const name of ['ncclCommDestroy', 'ncclCommAbort']) {
      expect(body(name), name).toContain('untrackProgram(call, a0, "comm");');
      expect(body(name), name).not.toContain('useProgram');
    }
    for (const name of [
      ...COLLECTIVES,
      'ncclCommFinalize',
      'ncclCommCount',
      'ncclCommCuDevice',
      'ncclCommUserRank',
      'ncclCommGetAsyncError',
    ]) {
      expect(body(name), name).toMatch(/ProgramUse u\d = useProgram\(call, a\d, "comm"\);/);
    }
    // NCCL ignores ncclGetLastError's comm (NULL is allowed): it is not checked
    expect(body('ncclGetLastError')).not.toMatch(/useProgram|untrackProgram/);
  });

  it('buffers are device addresses and streams CUstreams, as in the driver bindings', () => {
    for (const name of COLLECTIVES) {
      expect(body(name), name).toMatch(/P<F, 0> a0 = inHandle<P<F, 0>>\(call, 0, "(send|recv)buff"\);/);
      expect(body(name), name).toMatch(/inHandle<P<F, \d>>\(call, \d, "stream"\);/);
      expect(body(name), name).not.toMatch(/inHostPtr|inRaw/);
    }
    const ts = readFileSync(join(generatedTs, 'nccl.ts'), 'utf8');
    expect(ts).toContain(
      'ncclAllReduce(sendbuff: H.CUdeviceptr | NullHandle, recvbuff: H.CUdeviceptr | NullHandle, count: bigint | number, datatype: number, op: number, comm: H.ncclComm_t | NullHandle, stream: H.CUstream | NullHandle): void;',
    );
    expect(ts).toContain('ncclCommInitAll(devlist?: readonly (number)[] | ArrayBufferView | null): H.ncclComm_t[];');
    expect(ts).toContain('ncclGetUniqueId(): ncclUniqueId;');
    expect(ts).toContain('export const NCCL_UNIQUE_ID_BYTES = 128;');
    expect(readFileSync(join(generatedTs, 'handles.ts'), 'utf8')).toContain(
      "export type ncclComm_t = Handle<'ncclComm_t'>;",
    );
  });
});
