import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: plain JS modules of the generator, with no type declarations
import { headerDefines, parseDeclarations, preprocess } from './c-declarations.mjs';
import { generatedBody as body, generatedNative, generatedTs, haveGcc } from './generated-code.test-support.js';

// declarations/nvml.h is written by hand from NVML's documentation: these pin
// the ABI facts it states, and what the generator makes of it.
const header = join(import.meta.dirname, 'declarations', 'nvml.h');

interface Field {
  name: string;
  base: string;
  dims: (number | string)[];
}
interface Decls {
  typedefs: Map<string, { base: string; pointers: number }>;
  enums: Map<string, { members: { name: string; value: number }[] }>;
  aggregates: Map<string, { fields: Field[] }>;
  functions: {
    name: string;
    params: { name: string; base: string; pointers: number }[];
    returns: { base: string; pointers: number };
  }[];
}

const FUNCTIONS = [
  'nvmlInit_v2',
  'nvmlShutdown',
  'nvmlErrorString',
  'nvmlSystemGetDriverVersion',
  'nvmlSystemGetNVMLVersion',
  'nvmlSystemGetCudaDriverVersion_v2',
  'nvmlDeviceGetCount_v2',
  'nvmlDeviceGetHandleByIndex_v2',
  'nvmlDeviceGetName',
  'nvmlDeviceGetUUID',
  'nvmlDeviceGetMemoryInfo',
  'nvmlDeviceGetMemoryInfo_v2',
  'nvmlDeviceGetUtilizationRates',
  'nvmlDeviceGetClockInfo',
  'nvmlDeviceGetMaxClockInfo',
  'nvmlDeviceGetTemperature',
  'nvmlDeviceGetPowerUsage',
  'nvmlDeviceGetEnforcedPowerLimit',
  'nvmlDeviceGetPciInfo_v3',
  'nvmlDeviceGetNvLinkState',
  'nvmlDeviceGetNvLinkVersion',
  'nvmlDeviceGetCudaComputeCapability',
];

describe('the NVML declarations', () => {
  it("states NVML's constants: buffer sizes, link count, the v2 memory struct's version", () => {
    const { constants, renames } = headerDefines(readFileSync(header, 'utf8')) as {
      constants: Map<string, number>;
      renames: Map<string, string>;
    };
    expect(Object.fromEntries(constants)).toMatchObject({
      NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE: 32,
      NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE: 16,
      NVML_DEVICE_NAME_BUFFER_SIZE: 64,
      NVML_DEVICE_NAME_V2_BUFFER_SIZE: 96,
      NVML_DEVICE_UUID_BUFFER_SIZE: 80,
      NVML_DEVICE_UUID_V2_BUFFER_SIZE: 96,
      NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE: 80,
      NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE: 80,
      NVML_NVLINK_MAX_LINKS: 18,
      NVML_VALUE_NOT_AVAILABLE: -1,
      nvmlMemory_v2: 0x02000028, // sizeof(nvmlMemory_v2_t) | 2 << 24
    });
    expect(Object.fromEntries(renames)).toEqual({
      nvmlInit: 'nvmlInit_v2',
      nvmlDeviceGetCount: 'nvmlDeviceGetCount_v2',
      nvmlDeviceGetHandleByIndex: 'nvmlDeviceGetHandleByIndex_v2',
      nvmlDeviceGetPciInfo: 'nvmlDeviceGetPciInfo_v3',
    });
  });

  it.skipIf(!haveGcc)(
    'declares the stable subset with the documented types, enums and struct fields in ABI order',
    () => {
      const d = parseDeclarations(preprocess(header)) as Decls;
      expect(d.functions.map((f) => f.name)).toEqual(FUNCTIONS);
      expect(d.typedefs.get('nvmlDevice_t')).toMatchObject({ base: 'struct nvmlDevice_st', pointers: 1 });
      const fields = (typedef: string) =>
        d.aggregates
          .get(d.typedefs.get(typedef)!.base)!
          .fields.map((f) => `${f.base} ${f.name}${f.dims.map((n) => `[${n}]`).join('')}`);
      expect(fields('nvmlPciInfo_t')).toEqual([
        'char busIdLegacy[16]',
        'unsigned int domain',
        'unsigned int bus',
        'unsigned int device',
        'unsigned int pciDeviceId',
        'unsigned int pciSubSystemId',
        'char busId[32]',
      ]);
      expect(fields('nvmlMemory_t')).toEqual([
        'unsigned long long total',
        'unsigned long long free',
        'unsigned long long used',
      ]);
      expect(fields('nvmlMemory_v2_t')).toEqual([
        'unsigned int version',
        'unsigned long long total',
        'unsigned long long reserved',
        'unsigned long long free',
        'unsigned long long used',
      ]);
      expect(fields('nvmlUtilization_t')).toEqual(['unsigned int gpu', 'unsigned int memory']);
      const members = (typedef: string) =>
        Object.fromEntries(d.enums.get(d.typedefs.get(typedef)!.base)!.members.map((m) => [m.name, m.value]));
      expect(members('nvmlClockType_t')).toEqual({
        NVML_CLOCK_GRAPHICS: 0,
        NVML_CLOCK_SM: 1,
        NVML_CLOCK_MEM: 2,
        NVML_CLOCK_VIDEO: 3,
        NVML_CLOCK_COUNT: 4,
      });
      expect(members('nvmlTemperatureSensors_t')).toEqual({ NVML_TEMPERATURE_GPU: 0, NVML_TEMPERATURE_COUNT: 1 });
      expect(members('nvmlEnableState_t')).toEqual({ NVML_FEATURE_DISABLED: 0, NVML_FEATURE_ENABLED: 1 });
      const returns = members('nvmlReturn_t');
      expect(returns).toMatchObject({
        NVML_SUCCESS: 0,
        NVML_ERROR_UNINITIALIZED: 1,
        NVML_ERROR_NOT_SUPPORTED: 3,
        NVML_ERROR_DRIVER_NOT_LOADED: 9,
        NVML_ERROR_ARGUMENT_VERSION_MISMATCH: 25,
        NVML_ERROR_UNKNOWN: 999,
      });
      expect(Object.keys(returns)).toHaveLength(32);
      const sig = (name: string) =>
        d.functions.find((f) => f.name === name)!.params.map((p) => `${p.base}${'*'.repeat(p.pointers)}`);
      expect(sig('nvmlDeviceGetHandleByIndex_v2')).toEqual(['unsigned int', 'nvmlDevice_t*']);
      expect(sig('nvmlDeviceGetNvLinkState')).toEqual(['nvmlDevice_t', 'unsigned int', 'nvmlEnableState_t*']);
      expect(sig('nvmlSystemGetDriverVersion')).toEqual(['char*', 'unsigned int']);
      expect(d.functions.find((f) => f.name === 'nvmlErrorString')!.returns).toMatchObject({
        base: 'char',
        pointers: 1,
      });
    },
  );
});

describe('what the generator makes of them', () => {
  it('an nvml namespace of every declared function, plus the unversioned aliases', () => {
    const table = readFileSync(join(generatedNative, 'functions.inc'), 'utf8');
    for (const name of FUNCTIONS) expect(table).toContain(`{"nvml", "${name}", js_${name}},`);
    for (const [alias, target] of [
      ['nvmlInit', 'nvmlInit_v2'],
      ['nvmlDeviceGetCount', 'nvmlDeviceGetCount_v2'],
      ['nvmlDeviceGetHandleByIndex', 'nvmlDeviceGetHandleByIndex_v2'],
      ['nvmlDeviceGetPciInfo', 'nvmlDeviceGetPciInfo_v3'],
    ])
      expect(table).toContain(`{"nvml", "${alias}", js_${target}},`);
    const coverage = JSON.parse(readFileSync(join(generatedTs, 'coverage.json'), 'utf8')) as {
      headerFunctions: { nvml: string[] };
    };
    expect(coverage.headerFunctions.nvml).toEqual([...FUNCTIONS].sort());
  });

  it('opens libnvidia-ml through pathfinder and checks every status into NvmlError', () => {
    for (const name of FUNCTIONS) {
      const b = body(name);
      expect(b, name).toContain(`librarySymbol(call, Lib::Nvml, "${name}")`);
      if (name === 'nvmlErrorString') expect(b).toContain('const char* s = fp(a0);');
      else expect(b, name).toMatch(/^ {2}checkNvml\(call, fp\(.*\)\);$/m);
    }
    expect(readFileSync(join(generatedNative, 'enums.inc'), 'utf8')).toMatch(
      /inline const char\* nvmlReturn_tName\(long long v\) \{[\s\S]*?case 999: return "NVML_ERROR_UNKNOWN";/,
    );
  });

  it('device handles are type-tagged Externals, made by nvmlDeviceGetHandleByIndex_v2 and checked everywhere else', () => {
    const h = createHash('sha256').update('cuda-js external handle nvmlDevice_t').digest('hex');
    expect(readFileSync(join(generatedNative, 'functions.inc'), 'utf8')).toContain(
      `static const ExternalKind kExternal_nvmlDevice_t = {{0x${h.slice(0, 16)}ULL, 0x${h.slice(16, 32)}ULL}, "nvmlDevice_t", "nvmlDeviceGetHandleByIndex_v2"};`,
    );
    expect(body('nvmlDeviceGetHandleByIndex_v2')).toContain('return outExternal(env, o1, kExternal_nvmlDevice_t);');
    for (const name of FUNCTIONS.filter(
      (n) => n.startsWith('nvmlDevice') && !n.startsWith('nvmlDeviceGetCount') && n !== 'nvmlDeviceGetHandleByIndex_v2',
    )) {
      expect(body(name), name).toContain(
        'P<F, 0> a0 = inExternal<P<F, 0>>(call, 0, "device", kExternal_nvmlDevice_t);',
      );
      expect(body(name), name).not.toContain('inHandle');
    }
    const handles = readFileSync(join(generatedTs, 'handles.ts'), 'utf8');
    expect(handles).toContain("export type nvmlDevice_t = ExternalHandle<'nvmlDevice_t'>;");
    const ts = readFileSync(join(generatedTs, 'nvml.ts'), 'utf8');
    expect(ts).toContain('nvmlDeviceGetName(device: H.nvmlDevice_t): string;');
    expect(ts).toContain('nvmlDeviceGetHandleByIndex_v2(index: number): H.nvmlDevice_t;');
    expect(ts).not.toMatch(/nvmlDevice_t \| NullHandle/);
  });

  it('string buffers have the size NVML guarantees; char arrays in structs are strings; v2 structs carry their version', () => {
    expect(body('nvmlDeviceGetName')).toContain('char o1[96] = {0};  // NVML_DEVICE_NAME_V2_BUFFER_SIZE');
    expect(body('nvmlDeviceGetUUID')).toContain('char o1[96] = {0};  // NVML_DEVICE_UUID_V2_BUFFER_SIZE');
    expect(body('nvmlSystemGetDriverVersion')).toContain(
      'char o0[80] = {0};  // NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE',
    );
    expect(body('nvmlSystemGetNVMLVersion')).toContain('char o0[80] = {0};  // NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE');
    expect(body('nvmlDeviceGetName')).toContain('fp(a0, o1, static_cast<P<F, 2>>(sizeof(o1)))');
    expect(body('nvmlDeviceGetName')).toContain('return textTo(env, o1);');
    expect(body('nvmlDeviceGetMemoryInfo_v2')).toMatch(
      /a1\.version = 33554472; {2}\/\/ nvmlMemory_v2\n {2}inStructInto\(call, 1, "memory", a1\);/,
    );
    const structs = readFileSync(join(generatedNative, 'structs.inc'), 'utf8');
    expect(structs).toContain('o.Set("busId", textTo(env, in.busId));');
    expect(structs).toContain(
      'if (has(o, "busIdLegacy")) textFrom(call, o.Get("busIdLegacy"), out.busIdLegacy, path, "busIdLegacy");',
    );
    const ts = readFileSync(join(generatedTs, 'nvml.ts'), 'utf8');
    expect(ts).toMatch(/export interface nvmlPciInfo_t \{\n {2}busIdLegacy\?: string;[\s\S]*? {2}busId\?: string;\n\}/);
    expect(ts).toContain('export const NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;');
    expect(ts).toContain('export const nvmlMemory_v2 = 33554472;');
    expect(ts).toContain(
      'nvmlDeviceGetMemoryInfo_v2(device: H.nvmlDevice_t, memory?: nvmlMemory_v2_t | null): nvmlMemory_v2_t;',
    );
  });
});
