// Decides, for every parameter of every C function, how it crosses into JS:
// an input (and of what kind), an out-parameter that becomes part of the
// return value, an array and the count that JS no longer passes, ...
// The rules follow the naming and const conventions of the CUDA headers;
// the few functions they do not fit are named in OVERRIDES.

/** Functions written by hand in native/src (callbacks, the launch fast path, typed attribute reads). */
export const HANDWRITTEN = new Set([
  'cuLaunchKernel',
  'cuLaunchKernelEx',
  'cuLaunchHostFunc',
  'cuStreamAddCallback',
  'cuPointerGetAttribute',
  // the option arrays must outlive the call: the driver writes into them at cuLinkComplete
  'cuLinkCreate',
  'cuLinkDestroy',
  // arrays that the driver owns and returns by address, and a non-const input array (native/src/graph-calls.cpp)
  'cuStreamGetCaptureInfo',
  'cuStreamUpdateCaptureDependencies',
  'cuGraphAddNode',
  // a JS callback that a graph calls at every launch (native/src/graph-host-functions.cpp)
  'cuGraphAddHostNode',
]);

/** Parameters whose direction the conventions get wrong. */
const DIRECTION_OVERRIDES = new Map([
  ['cuGraphAddMemAllocNode.nodeParams', 'inout-struct'],
  ['cuTensorMapReplaceAddress.tensorMap', 'inout-struct'],
  ['cuGraphAddNode.nodeParams', 'inout-struct'],
  ['cuMemGetDefaultMemPool.location', 'in-struct'],
  ['cuMemGetMemPool.location', 'in-struct'],
  ['cuMemPoolGetAccess.location', 'in-struct'],
  ['cuMemSetMemPool.location', 'in-struct'],
  ['cuMemPoolImportPointer.shareData', 'in-struct'],
  ['cuDevSmResourceSplitByCount.result', 'raw'],
  ['cuDevSmResourceSplitByCount.remaining', 'raw'],
  ['cuDevSmResourceSplitByCount.nbGroups', 'raw'],
  ['cuDeviceGetLuid.luid', 'raw'],
  // Destroy functions take the handle by address (and clear it): JS passes the handle.
  ['nvrtcDestroyProgram.prog', 'handle-ref'],
  ['nvvmDestroyProgram.prog', 'handle-ref'],
  ['nvJitLinkDestroy.handle', 'handle-ref'],
  // NVML's versioned structs are read and written: `version` goes in (see STRUCT_VERSIONS)
  ['nvmlDeviceGetMemoryInfo_v2.memory', 'inout-struct'],
]);

/** Raw out-buffers that the C function fills with more than one element: the JS buffer must hold this many bytes. */
export const RAW_MIN_BYTES = new Map([
  ['cuDeviceGetLuid.luid', 8], // an 8-byte LUID into a char*
]);

/**
 * Host pointers inside structs: the fields of each struct that may name JS
 * memory (an ArrayBuffer or a view), with the hand-written check
 * (native/src/memcpy-host-buffers.cpp) that the struct's codec calls once
 * every field is read: a JS buffer of a host side must hold every byte the
 * copy reads or writes there, and must not have been detached or resized
 * while the later fields were read. A bigint address is the caller's own.
 */
export const STRUCT_HOST_BUFFERS = new Map([
  ['CUDA_MEMCPY2D_v2', { fields: ['srcHost', 'dstHost'], check: 'checkMemcpyHostBuffers' }],
  ['CUDA_MEMCPY3D_v2', { fields: ['srcHost', 'dstHost'], check: 'checkMemcpyHostBuffers' }],
  ['CUDA_MEMCPY3D_PEER_v1', { fields: ['srcHost', 'dstHost'], check: 'checkMemcpyHostBuffers' }],
]);

/**
 * The sizing rule of every host pointer (`void *`) that no byte-count
 * parameter sizes: the generator refuses to emit one without a rule here.
 * `bytes` is a C++ expression over the function's parameter names: the JS
 * buffer must hold at least that many bytes (a bigint address is the
 * caller's own, unchecked). `unread` says why the library never reads or
 * writes JS memory through the pointer (it is a key, a device address, data
 * handed back to a callback, an object of another library, or an image that
 * the handwritten loaders NUL-terminate), so no size applies. `regionSize`
 * names a `size_t *` parameter that tells the C function the region's size:
 * it starts as the JS buffer's byte count.
 */
export const HOST_POINTER_RULES = new Map([
  // attribute values: the attribute says the size (int for the reuse flags, cuuint64_t for the byte counts)
  [
    'cuMemPoolGetAttribute.value',
    { bytes: '(attr <= CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES ? sizeof(int) : sizeof(cuuint64_t))' },
  ],
  [
    'cuMemPoolSetAttribute.value',
    { bytes: '(attr <= CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES ? sizeof(int) : sizeof(cuuint64_t))' },
  ],
  ['cuDeviceGetGraphMemAttribute.value', { bytes: 'sizeof(cuuint64_t)' }],
  ['cuDeviceSetGraphMemAttribute.value', { bytes: 'sizeof(cuuint64_t)' }],
  ['cuPointerSetAttribute.value', { bytes: 'sizeof(unsigned int)' }], // CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, the one it sets
  // bool flags, an int of generation flags; a path is at least its NUL. `size` is "the size of the
  // memory region value points to" (the driver's documentation): the JS buffer's, not 0, so that a
  // path (CU_COREDUMP_FILE, CU_COREDUMP_PIPE) is read or written within the buffer
  [
    'cuCoredumpGetAttribute.value',
    { bytes: '(attrib == CU_COREDUMP_GENERATION_FLAGS ? sizeof(int) : sizeof(bool))', regionSize: 'size' },
  ],
  [
    'cuCoredumpGetAttributeGlobal.value',
    { bytes: '(attrib == CU_COREDUMP_GENERATION_FLAGS ? sizeof(int) : sizeof(bool))', regionSize: 'size' },
  ],
  [
    'cuCoredumpSetAttribute.value',
    { bytes: '(attrib == CU_COREDUMP_GENERATION_FLAGS ? sizeof(int) : sizeof(bool))', regionSize: 'size' },
  ],
  [
    'cuCoredumpSetAttributeGlobal.value',
    { bytes: '(attrib == CU_COREDUMP_GENERATION_FLAGS ? sizeof(int) : sizeof(bool))', regionSize: 'size' },
  ],
  // shareable handles: an fd, a Windows handle, or a 64-byte fabric handle, by handle type
  ['cuMemExportToShareableHandle.shareableHandle', { bytes: 'shareableHandleBytes(handleType)' }],
  ['cuMemImportFromShareableHandle.osHandle', { bytes: 'shareableHandleBytes(shHandleType)' }],
  ['cuMemPoolExportToShareableHandle.handle_out', { bytes: 'shareableHandleBytes(handleType)' }],
  ['cuMemPoolImportFromShareableHandle.handle', { bytes: 'shareableHandleBytes(handleType)' }],
  ['cuMemGetHandleForAddressRange.handle', { bytes: 'sizeof(int)' }], // a dma-buf file descriptor
  // the address is a key the driver looks up in its own tables
  ['cuMemFreeHost.p', { unread: 'the driver frees the allocation it made at this address' }],
  ['cuMemHostGetDevicePointer.p', { unread: 'the driver looks the address up' }],
  ['cuMemHostGetFlags.p', { unread: 'the driver looks the address up' }],
  ['cuMemHostUnregister.p', { unread: 'the driver looks the address up' }],
  ['cuMemRetainAllocationHandle.addr', { unread: 'the driver looks the address up' }],
  // device addresses, encoded into a descriptor, never read on the host
  ['cuTensorMapEncodeTiled.globalAddress', { unread: 'a device address, encoded only' }],
  ['cuTensorMapEncodeIm2col.globalAddress', { unread: 'a device address, encoded only' }],
  ['cuTensorMapEncodeIm2colWide.globalAddress', { unread: 'a device address, encoded only' }],
  ['cuTensorMapReplaceAddress.globalAddress', { unread: 'a device address, encoded only' }],
  // data handed back to a callback, or an object of another library
  ['cuDeviceRegisterAsyncNotification.userData', { unread: 'handed back to the callback' }],
  ['cuLogsRegisterCallback.userData', { unread: 'handed back to the callback' }],
  ['nvrtcSetFlowCallback.payload', { unread: 'handed back to the callback' }],
  ['cuUserObjectCreate.ptr', { unread: 'handed back to the destructor' }],
  ['cuDeviceGetNvSciSyncAttributes.nvSciSyncAttrList', { unread: "an NvSciSyncAttrList, NvSciSync's own object" }],
  // images: sized by their own headers; the handwritten loaders NUL-terminate them (images.md)
  ['cuModuleLoadData.image', { unread: 'an image, NUL-terminated by the handwritten loader' }],
  ['cuModuleLoadDataEx.image', { unread: 'an image, NUL-terminated by the handwritten loader' }],
  ['cuModuleLoadFatBinary.fatCubin', { unread: 'an image, NUL-terminated by the handwritten loader' }],
  ['cuLibraryLoadData.code', { unread: 'an image, NUL-terminated by the handwritten loader' }],
]);

/**
 * String out-buffers (`char *buf, unsigned length`) whose header names the size
 * that is guaranteed to be large enough: the buffer has exactly that many bytes
 * (the named constant's value, from the header's #defines). Others get 1024.
 */
export const CHARBUF_SIZES = new Map([
  ['nvmlSystemGetDriverVersion.version', 'NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE'],
  ['nvmlSystemGetNVMLVersion.version', 'NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE'],
  ['nvmlDeviceGetName.name', 'NVML_DEVICE_NAME_V2_BUFFER_SIZE'],
  ['nvmlDeviceGetUUID.uuid', 'NVML_DEVICE_UUID_V2_BUFFER_SIZE'],
]);

/**
 * Versioned structs (a leading `unsigned int version` that the library checks):
 * the constant whose value the generated code puts in `version` before the
 * call, unless JS gives one.
 */
export const STRUCT_VERSIONS = new Map([['nvmlMemory_v2_t', 'nvmlMemory_v2']]);

/**
 * Counts whose arrays the naming conventions do not find, and the arrays that
 * each counts: `ncclCommInitAll(comm, ndev, devlist)` fills `ndev`
 * communicators and reads `ndev` device ordinals (taken as one array each
 * otherwise, the C function would write and read past them).
 */
const ARRAY_COUNTS = new Map([['ncclCommInitAll.ndev', ['comm', 'devlist']]]);

const COUNT_NAME = /^(num[A-Z_]\w*|count|n[A-Z]\w*|\w+Count)$/;
const STRUCT_ARRAY_NAME = /(s|Array|List|^map|^desc|Data)$/;

const INT_SIZES = new Map([
  ['char', 1],
  ['signed char', 1],
  ['unsigned char', 1],
  ['short', 2],
  ['unsigned short', 2],
  ['short int', 2],
  ['int', 4],
  ['signed', 4],
  ['unsigned', 4],
  ['unsigned int', 4],
  ['signed int', 4],
  ['_Bool', 1],
  ['long', 8],
  ['unsigned long', 8],
  ['long int', 8],
  ['long long', 8],
  ['unsigned long long', 8],
  ['long long int', 8],
  ['unsigned long long int', 8],
  ['unsigned long int', 8],
  ['int8_t', 1],
  ['uint8_t', 1],
  ['int16_t', 2],
  ['uint16_t', 2],
  ['int32_t', 4],
  ['uint32_t', 4],
  ['int64_t', 8],
  ['uint64_t', 8],
  ['size_t', 8],
  ['uintptr_t', 8],
  ['intptr_t', 8],
]);

/**
 * A resolver of type names for one set of declarations: what a name is at
 * bottom (`int`, `u64`, `float`, `enum`, `handle`, `struct`, `fnptr`, `void`).
 */
export class TypeModel {
  constructor(decls) {
    this.decls = decls;
    this.aggregateNames = new Map(); // aggregate key -> typedef name
    for (const [name, t] of decls.typedefs) {
      if (
        t.pointers === 0 &&
        !t.functionPointer &&
        (t.base.startsWith('struct') || t.base.startsWith('union')) &&
        !this.aggregateNames.has(t.base)
      ) {
        this.aggregateNames.set(t.base, name);
      }
    }
    this.enumNames = new Map();
    for (const [name, t] of decls.typedefs)
      if (t.base.startsWith('enum') && t.pointers === 0) this.enumNames.set(name, t.base);
  }

  /** What `name` is, following typedefs; `pointers` counts the typedefs' own pointer levels. */
  resolve(name) {
    let pointers = 0;
    let current = name;
    let brand;
    for (let depth = 0; depth < 20; depth++) {
      if (INT_SIZES.has(current)) {
        const size = INT_SIZES.get(current);
        // 64-bit integers named CU... are addresses or handles (CUdeviceptr, CUtexObject, ...): bigint only.
        if (size === 8 && brand && /^CU/.test(brand) && pointers === 0) return { cat: 'handle', brand, pointers };
        return { cat: size === 8 ? 'u64' : 'int', size, pointers, brand };
      }
      if (current === 'float' || current === 'double') return { cat: 'float', pointers, brand };
      if (current === 'void') return { cat: 'void', pointers, brand };
      if (current.startsWith('enum')) return { cat: 'enum', pointers, brand, enumKey: current };
      if (current.startsWith('struct') || current.startsWith('union')) {
        if (pointers > 0 && brand) return { cat: 'handle', brand, pointers: pointers - 1 };
        return { cat: 'struct', pointers, brand: brand ?? this.aggregateNames.get(current) ?? current, key: current };
      }
      const t = this.decls.typedefs.get(current);
      if (!t) throw new Error(`unknown type ${current}`);
      if (t.functionPointer) return { cat: 'fnptr', pointers, brand: name };
      brand ??= current;
      if (t.base.startsWith('enum') && pointers === 0 && t.pointers === 0)
        return { cat: 'enum', pointers, brand: current, enumKey: t.base };
      pointers += t.pointers;
      if (t.pointers > 0 && (t.base.startsWith('struct') || t.base === 'void'))
        return { cat: 'handle', brand: current, pointers: pointers - 1 };
      current = t.base;
    }
    throw new Error(`typedef chain too deep for ${name}`);
  }
}

function scalarKind(r) {
  switch (r.cat) {
    case 'int':
    case 'float':
      return 'num';
    case 'enum':
      return 'enum';
    case 'u64':
      return 'u64';
    case 'handle':
      return 'handle';
    default:
      return undefined;
  }
}

/**
 * Classifies the parameters of `fn` (`{ name, params }`, its C name without
 * version suffix in `jsName`). Returns `{ params: [...], supported, reason }`
 * where each param has `role` ('in' | 'out' | 'count' | 'size-of'), `kind`
 * and for arrays `countIndex`.
 */
export function classifyFunction(fn, jsName, model, siblings) {
  const ps = fn.params.map((p, index) => {
    const r = model.resolve(p.base);
    return { ...p, index, r, total: p.pointers + r.pointers, role: undefined, kind: undefined };
  });
  const override = (p) => DIRECTION_OVERRIDES.get(`${jsName}.${p.name}`);

  const isCharBase = (p) => p.r.cat === 'int' && p.r.size === 1 && (p.base === 'char' || p.r.brand === undefined);
  const arrayCapable = (p) => {
    if (override(p)) return false;
    if (p.total === 1 && p.r.cat === 'struct') return STRUCT_ARRAY_NAME.test(p.name ?? '');
    if (p.total === 1 && !isCharBase(p) && p.r.cat !== 'void' && scalarKind(p.r)) return true;
    if (p.total === 2 && p.r.cat === 'void' && /[Vv]alues$|^data$/.test(p.name ?? '')) return true;
    if (p.total === 2 && isCharBase(p) && p.isConst) return true; // const char **options with a count
    return false;
  };

  /** `c` counts the arrays of `group`: inputs count from their lengths, a non-const array beside a const one is filled. */
  const countArrays = (c, group) => {
    const anyConst = group.some((g) => g.isConst && g.total === 1);
    c.role = 'count';
    c.kind = 'count';
    c.arrays = group.map((g) => g.index);
    for (const g of group) {
      if (!g.isConst && g.total === 1 && anyConst && g.r.cat !== 'struct')
        Object.assign(g, { role: 'out', kind: 'out-array-sized', countIndex: c.index });
      else
        Object.assign(g, {
          role: 'in',
          kind: g.total === 2 && isCharBase(g) ? 'string-array' : 'array',
          countIndex: c.index,
          optional: true,
        });
    }
  };

  // 1. Arrays and the counts that JS derives from their lengths.
  for (const c of ps) {
    const counted = ARRAY_COUNTS.get(`${jsName}.${c.name}`);
    if (counted) {
      const group = counted.map((name) => {
        const g = ps.find((q) => q.name === name);
        if (g?.total !== 1) throw new Error(`${jsName}: ARRAY_COUNTS names ${name}, which is no pointer parameter`);
        return g;
      });
      countArrays(c, group);
      continue;
    }
    if (c.role || !COUNT_NAME.test(c.name ?? '') || c.total > 1 || !(c.r.cat === 'int' || c.r.cat === 'u64')) continue;
    const group = [];
    if (c.total === 0) {
      const backward = [];
      const forward = [];
      for (let i = c.index - 1; i >= 0 && !ps[i].role && arrayCapable(ps[i]); i--) backward.unshift(ps[i]);
      for (
        let i = c.index + 1;
        i < ps.length && !ps[i].role && arrayCapable(ps[i]) && /(s|Array|List|[Vv]alues|^data)$/.test(ps[i].name ?? '');
        i++
      )
        forward.push(ps[i]);
      // numOptions counts `options`: a name match decides the direction, else the arrays before the count.
      const named = (g) => g.length > 0 && c.name.toLowerCase().includes((g[0].name ?? '#').toLowerCase());
      group.push(...(named(forward) && !named(backward) ? forward : backward.length ? backward : forward));
      if (group.length === 0) continue;
      const enumerate = /Enumerate/.test(jsName);
      if (enumerate) {
        // cuModuleEnumerateFunctions(functions, numFunctions, mod): JS gives the count, gets the array.
        for (const g of group) Object.assign(g, { role: 'out', kind: 'out-array-sized', countIndex: c.index });
        continue;
      }
      countArrays(c, group);
    } else if (c.total === 1 && !c.isConst) {
      // `T *items, size_t *numItems`: ask for the count, then fill.
      for (
        let i = c.index - 1;
        i >= 0 && !ps[i].role && ps[i].total === 1 && !ps[i].isConst && arrayCapable(ps[i]);
        i--
      )
        group.unshift(ps[i]);
      if (group.length === 0) continue;
      c.role = 'count';
      c.kind = 'query-count';
      c.arrays = group.map((g) => g.index);
      for (const g of group) Object.assign(g, { role: 'out', kind: 'out-array-query', countIndex: c.index });
    }
  }

  // 2. Everything else, one parameter at a time.
  for (const p of ps) {
    if (p.role) continue;
    const o = override(p);
    if (o) {
      if (o === 'raw') Object.assign(p, { role: 'in', kind: 'raw' });
      else if (o === 'handle-ref') Object.assign(p, { role: 'in', kind: 'handle-ref' });
      else if (o === 'in-struct') Object.assign(p, { role: 'in', kind: 'struct-ptr' });
      else if (o === 'inout-struct') Object.assign(p, { role: 'inout', kind: 'inout-struct' });
      continue;
    }
    const next = ps[p.index + 1];
    if (p.functionPointer || (p.r.cat === 'fnptr' && p.total === 0)) {
      Object.assign(p, { role: 'in', kind: 'fnptr' });
    } else if (p.total === 0) {
      const k = scalarKind(p.r);
      if (k) Object.assign(p, { role: 'in', kind: k });
      else if (p.r.cat === 'struct') Object.assign(p, { role: 'in', kind: 'struct-value' });
      else Object.assign(p, { role: 'in', kind: 'raw' });
    } else if (p.total === 1 && isCharBase(p) && p.isConst) {
      if (next && next.name === 'size' && next.total === 0) {
        Object.assign(p, { role: 'in', kind: 'bytes' });
        Object.assign(next, { role: 'size-of', kind: 'size-of', of: p.index });
      } else Object.assign(p, { role: 'in', kind: 'string' });
    } else if (p.total === 1 && isCharBase(p)) {
      const sizeFn = siblings?.get(`${jsName}Size`);
      if (next && /^len(gth)?$/.test(next.name ?? '') && next.total === 0) {
        Object.assign(p, { role: 'out', kind: 'out-charbuf' });
        Object.assign(next, { role: 'size-of', kind: 'buffer-length', of: p.index });
      } else if (sizeFn) {
        Object.assign(p, { role: 'out', kind: 'out-sized', sizeFn, text: /Ptx|PTX|Log/.test(jsName) });
      } else Object.assign(p, { role: 'in', kind: 'raw' });
    } else if (p.total === 1 && p.r.cat === 'void') {
      const sizeFn = siblings?.get(`${jsName}Size`);
      if (sizeFn && !p.isConst) {
        Object.assign(p, { role: 'out', kind: 'out-sized', sizeFn, text: /Ptx|PTX|Log/.test(jsName) });
      } else if (next && next.name === 'size' && next.total === 0 && (p.isConst || p.name === 'data')) {
        Object.assign(p, { role: 'in', kind: 'bytes' });
        Object.assign(next, { role: 'size-of', kind: 'size-of', of: p.index });
      } else Object.assign(p, { role: 'in', kind: 'hostptr', writable: !p.isConst });
    } else if (p.total === 1 && p.r.cat === 'struct') {
      if (p.isConst) Object.assign(p, { role: 'in', kind: 'struct-ptr' });
      else if (/Get|Encode|Export/.test(jsName) || /_out$|^p[A-Z]/.test(p.name ?? ''))
        Object.assign(p, { role: 'out', kind: 'out-struct' });
      else Object.assign(p, { role: 'in', kind: 'struct-ptr' });
    } else if (
      p.total === 1 &&
      scalarKind(p.r) &&
      !p.isConst &&
      /Get(?!Num)/.test(jsName) &&
      siblings?.get(jsName.replace(/Get/, 'GetNum'))
    ) {
      // nvrtcGetSupportedArchs(int*) sized by nvrtcGetNumSupportedArchs(int*)
      Object.assign(p, {
        role: 'out',
        kind: 'out-array-counted',
        countFn: siblings.get(jsName.replace(/Get/, 'GetNum')),
      });
    } else if (p.total === 1 && scalarKind(p.r)) {
      if (p.isConst) Object.assign(p, { role: 'in', kind: 'array-nocount' });
      else Object.assign(p, { role: 'out', kind: `out-${scalarKind(p.r)}` });
    } else if (p.total === 1 && p.r.cat === 'fnptr') {
      Object.assign(p, { role: 'in', kind: 'raw' });
    } else if (p.total === 2 && isCharBase(p) && p.isConst) {
      Object.assign(p, { role: 'out', kind: 'out-cstring' });
    } else if (
      p.total === 2 &&
      p.r.cat === 'void' &&
      !p.isConst &&
      next?.total === 1 &&
      next.r.cat === 'u64' &&
      /size/i.test(next.name ?? '')
    ) {
      Object.assign(p, { role: 'out', kind: 'out-blob' });
      Object.assign(next, { role: 'size-of', kind: 'blob-size', of: p.index });
    } else if (p.total === 2 && !p.isConst) {
      Object.assign(p, { role: 'out', kind: 'out-address' });
    } else {
      Object.assign(p, { role: 'in', kind: 'raw' });
    }
  }
  return ps;
}
