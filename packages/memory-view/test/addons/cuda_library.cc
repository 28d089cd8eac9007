// A test-only native addon that plays a third-party CUDA library for the GPU
// tests: it allocates device memory, owns streams, exports device tensors
// through its DLPack exchange API table, consumes memory-view's exported
// tensors, and gives the tests the driver calls that memory-view deliberately
// lacks (event record + stream wait, pointer → device). The driver is opened
// with dlopen at first use, declared here by hand: no CUDA headers needed, so
// that it builds (and loads) on a machine without CUDA.
#include <dlfcn.h>
#include <node_api.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>

#include "dlpack.h"
#include "dlpack_node.h"

namespace {

// ---- the few driver API declarations used (CUDA driver API, stable ABI) -----------
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st* CUcontext;
typedef struct CUstream_st* CUstream;
typedef struct CUevent_st* CUevent;
typedef unsigned long long CUdeviceptr;
typedef void (*CUhostFn)(void* userData);
const CUresult CUDA_SUCCESS = 0;
const CUresult CUDA_ERROR_NOT_READY = 600;
const unsigned CU_STREAM_NON_BLOCKING = 1;
const unsigned CU_EVENT_DISABLE_TIMING = 2;
const int CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL = 9;

struct Driver {
  void* lib = nullptr;
  CUresult (*cuInit)(unsigned);
  CUresult (*cuDeviceGet)(CUdevice*, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
  CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
  CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
  CUresult (*cuStreamCreate)(CUstream*, unsigned);
  CUresult (*cuStreamDestroy)(CUstream);
  CUresult (*cuStreamSynchronize)(CUstream);
  CUresult (*cuStreamQuery)(CUstream);
  CUresult (*cuEventCreate)(CUevent*, unsigned);
  CUresult (*cuEventRecord)(CUevent, CUstream);
  CUresult (*cuStreamWaitEvent)(CUstream, CUevent, unsigned);
  CUresult (*cuEventDestroy)(CUevent);
  CUresult (*cuLaunchHostFunc)(CUstream, CUhostFn, void*);
  CUresult (*cuPointerGetAttribute)(void*, int, CUdeviceptr);
  CUresult (*cuGetErrorName)(CUresult, const char**);
} d;

std::string g_load_error;

template <typename T>
bool Sym(T& fn, const char* name) {
  fn = reinterpret_cast<T>(dlsym(d.lib, name));
  if (fn == nullptr) g_load_error = std::string("libcuda.so.1 has no ") + name;
  return fn != nullptr;
}

bool LoadDriver() {
  if (d.lib != nullptr) return true;
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    g_load_error = std::string("dlopen(libcuda.so.1) failed: ") + dlerror();
    return false;
  }
  d.lib = lib;
  bool ok = Sym(d.cuInit, "cuInit") && Sym(d.cuDeviceGet, "cuDeviceGet") && Sym(d.cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain") &&
            Sym(d.cuCtxSetCurrent, "cuCtxSetCurrent") && Sym(d.cuMemAlloc, "cuMemAlloc_v2") && Sym(d.cuMemFree, "cuMemFree_v2") &&
            Sym(d.cuMemcpyHtoD, "cuMemcpyHtoD_v2") && Sym(d.cuMemcpyDtoH, "cuMemcpyDtoH_v2") && Sym(d.cuMemsetD32Async, "cuMemsetD32Async") &&
            Sym(d.cuStreamCreate, "cuStreamCreate") && Sym(d.cuStreamDestroy, "cuStreamDestroy_v2") &&
            Sym(d.cuStreamSynchronize, "cuStreamSynchronize") && Sym(d.cuStreamQuery, "cuStreamQuery") && Sym(d.cuEventCreate, "cuEventCreate") &&
            Sym(d.cuEventRecord, "cuEventRecord") && Sym(d.cuStreamWaitEvent, "cuStreamWaitEvent") && Sym(d.cuEventDestroy, "cuEventDestroy_v2") &&
            Sym(d.cuLaunchHostFunc, "cuLaunchHostFunc") && Sym(d.cuPointerGetAttribute, "cuPointerGetAttribute") &&
            Sym(d.cuGetErrorName, "cuGetErrorName");
  if (!ok) d.lib = nullptr;
  return ok;
}

// Throws a JS error for a failed driver call; true when the call succeeded.
bool Check(napi_env env, CUresult rc, const char* what) {
  if (rc == CUDA_SUCCESS) return true;
  const char* name = "?";
  if (d.cuGetErrorName != nullptr) d.cuGetErrorName(rc, &name);
  std::string message = std::string("cuda_library: ") + what + " failed: " + name + " (" + std::to_string(rc) + ")";
  napi_value code, msg, error;
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
  napi_create_string_utf8(env, message.c_str(), NAPI_AUTO_LENGTH, &msg);
  napi_create_error(env, code, msg, &error);
  napi_value num;
  napi_create_int32(env, rc, &num);
  napi_set_named_property(env, error, "result", num);
  napi_throw(env, error);
  return false;
}

bool Ready(napi_env env) {
  if (LoadDriver()) return true;
  napi_throw_error(env, "NO_DRIVER", g_load_error.c_str());
  return false;
}

size_t Args(napi_env env, napi_callback_info info, size_t n, napi_value* argv) {
  size_t argc = n;
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  return argc;
}

uint64_t BigArg(napi_env env, napi_value v) {
  uint64_t out = 0;
  bool lossless;
  napi_get_value_bigint_uint64(env, v, &out, &lossless);
  return out;
}

napi_value Big(napi_env env, uint64_t v) {
  napi_value out;
  napi_create_bigint_uint64(env, v, &out);
  return out;
}

napi_value Undefined(napi_env env) {
  napi_value out;
  napi_get_undefined(env, &out);
  return out;
}

CUdevice g_device = 0;

// ---- functions for the tests ------------------------------------------------------------

// init() -> device ordinal 0, with its primary context current on this thread
napi_value Init(napi_env env, napi_callback_info) {
  if (!Ready(env)) return nullptr;
  if (!Check(env, d.cuInit(0), "cuInit")) return nullptr;
  if (!Check(env, d.cuDeviceGet(&g_device, 0), "cuDeviceGet")) return nullptr;
  CUcontext ctx;
  if (!Check(env, d.cuDevicePrimaryCtxRetain(&ctx, g_device), "cuDevicePrimaryCtxRetain")) return nullptr;
  if (!Check(env, d.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")) return nullptr;
  napi_value out;
  napi_create_int32(env, g_device, &out);
  return out;
}

napi_value Alloc(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  double bytes;
  napi_get_value_double(env, argv[0], &bytes);
  CUdeviceptr p = 0;
  if (!Check(env, d.cuMemAlloc(&p, static_cast<size_t>(bytes)), "cuMemAlloc")) return nullptr;
  return Big(env, p);
}

napi_value Free(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  if (!Check(env, d.cuMemFree(BigArg(env, argv[0])), "cuMemFree")) return nullptr;
  return Undefined(env);
}

// upload(ptr, typedArray)
napi_value Upload(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Args(env, info, 2, argv);
  napi_typedarray_type type;
  size_t length, offset;
  void* data;
  napi_value ab;
  napi_get_typedarray_info(env, argv[1], &type, &length, &data, &ab, &offset);
  size_t bytes = length * (type == napi_float64_array || type == napi_bigint64_array || type == napi_biguint64_array ? 8 : type == napi_float32_array || type == napi_int32_array || type == napi_uint32_array ? 4 : type == napi_int16_array || type == napi_uint16_array ? 2 : 1);
  if (!Check(env, d.cuMemcpyHtoD(BigArg(env, argv[0]), data, bytes), "cuMemcpyHtoD")) return nullptr;
  return Undefined(env);
}

// download(ptr, bytes) -> ArrayBuffer
napi_value Download(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Args(env, info, 2, argv);
  double bytes;
  napi_get_value_double(env, argv[1], &bytes);
  void* data;
  napi_value ab;
  napi_create_arraybuffer(env, static_cast<size_t>(bytes), &data, &ab);
  if (!Check(env, d.cuMemcpyDtoH(data, BigArg(env, argv[0]), static_cast<size_t>(bytes)), "cuMemcpyDtoH")) return nullptr;
  return ab;
}

// memsetAsync(ptr, value, count, stream)
napi_value MemsetAsync(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  Args(env, info, 4, argv);
  uint32_t value;
  double count;
  napi_get_value_uint32(env, argv[1], &value);
  napi_get_value_double(env, argv[2], &count);
  CUstream s = reinterpret_cast<CUstream>(static_cast<uintptr_t>(BigArg(env, argv[3])));
  if (!Check(env, d.cuMemsetD32Async(BigArg(env, argv[0]), value, static_cast<size_t>(count), s), "cuMemsetD32Async")) return nullptr;
  return Undefined(env);
}

napi_value StreamCreate(napi_env env, napi_callback_info) {
  CUstream s;
  if (!Check(env, d.cuStreamCreate(&s, CU_STREAM_NON_BLOCKING), "cuStreamCreate")) return nullptr;
  return Big(env, reinterpret_cast<uintptr_t>(s));
}

napi_value StreamDestroy(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  if (!Check(env, d.cuStreamDestroy(reinterpret_cast<CUstream>(static_cast<uintptr_t>(BigArg(env, argv[0])))), "cuStreamDestroy")) return nullptr;
  return Undefined(env);
}

napi_value StreamSynchronize(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  if (!Check(env, d.cuStreamSynchronize(reinterpret_cast<CUstream>(static_cast<uintptr_t>(BigArg(env, argv[0])))), "cuStreamSynchronize")) return nullptr;
  return Undefined(env);
}

// streamDone(stream) -> true when all its work is done, false while some is pending
napi_value StreamDone(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  CUresult rc = d.cuStreamQuery(reinterpret_cast<CUstream>(static_cast<uintptr_t>(BigArg(env, argv[0]))));
  if (rc != CUDA_SUCCESS && rc != CUDA_ERROR_NOT_READY && !Check(env, rc, "cuStreamQuery")) return nullptr;
  napi_value out;
  napi_get_boolean(env, rc == CUDA_SUCCESS, &out);
  return out;
}

// waitStream(producer, consumer): work submitted to consumer from now on waits for producer's work so far
napi_value WaitStream(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Args(env, info, 2, argv);
  CUstream producer = reinterpret_cast<CUstream>(static_cast<uintptr_t>(BigArg(env, argv[0])));
  CUstream consumer = reinterpret_cast<CUstream>(static_cast<uintptr_t>(BigArg(env, argv[1])));
  CUevent e;
  if (!Check(env, d.cuEventCreate(&e, CU_EVENT_DISABLE_TIMING), "cuEventCreate")) return nullptr;
  bool ok = Check(env, d.cuEventRecord(e, producer), "cuEventRecord") && Check(env, d.cuStreamWaitEvent(consumer, e, 0), "cuStreamWaitEvent");
  d.cuEventDestroy(e);  // destroying a recorded event is deferred by the driver until it completes
  return ok ? Undefined(env) : nullptr;
}

// pointerDevice(ptr) -> device ordinal
napi_value PointerDevice(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  int ordinal = -1;
  if (!Check(env, d.cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, BigArg(env, argv[0])), "cuPointerGetAttribute")) return nullptr;
  napi_value out;
  napi_create_int32(env, ordinal, &out);
  return out;
}

// A gate that holds a stream: a host function spins on it until opened.
struct Gate {
  std::atomic<bool> open{false};
};

// blockStream(stream) -> gate External; the stream's later work waits until openGate(gate)
napi_value BlockStream(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  auto* gate = new Gate();  // leaked on purpose: the driver thread may still read it after the test
  CUstream s = reinterpret_cast<CUstream>(static_cast<uintptr_t>(BigArg(env, argv[0])));
  CUresult rc = d.cuLaunchHostFunc(
      s,
      [](void* p) {
        auto* g = static_cast<Gate*>(p);
        while (!g->open.load()) {
        }
      },
      gate);
  if (!Check(env, rc, "cuLaunchHostFunc")) return nullptr;
  napi_value out;
  napi_create_external(env, gate, nullptr, nullptr, &out);
  return out;
}

napi_value OpenGate(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  void* gate;
  napi_get_value_external(env, argv[0], &gate);
  static_cast<Gate*>(gate)->open.store(true);
  return Undefined(env);
}

// sumSlot(External) -> sum of a contiguous float32 CUDA tensor taken from memory-view's slot (deleted after)
napi_value SumSlot(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  void* data;
  napi_get_value_external(env, argv[0], &data);
  void** slot = static_cast<void**>(data);
  auto* t = static_cast<DLManagedTensorVersioned*>(*slot);
  if (t == nullptr) {
    napi_throw_error(env, nullptr, "cuda_library: empty slot");
    return nullptr;
  }
  *slot = nullptr;
  const DLTensor& dl = t->dl_tensor;
  int64_t count = 1;
  bool contiguous = true;
  int64_t step = 1;
  for (int i = dl.ndim - 1; i >= 0; i--) {
    if (dl.shape[i] != 1 && dl.strides[i] != step) contiguous = false;
    step *= dl.shape[i];
    count *= dl.shape[i];
  }
  if (dl.device.device_type != kDLCUDA || dl.dtype.code != kDLFloat || dl.dtype.bits != 32 || !contiguous) {
    t->deleter(t);
    napi_throw_error(env, nullptr, "cuda_library: expected a contiguous float32 CUDA tensor");
    return nullptr;
  }
  std::string host(static_cast<size_t>(count) * 4, '\0');
  CUdeviceptr src = static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(dl.data)) + dl.byte_offset;
  CUresult rc = d.cuMemcpyDtoH(host.data(), src, host.size());
  t->deleter(t);
  if (!Check(env, rc, "cuMemcpyDtoH")) return nullptr;
  double sum = 0;
  const float* f = reinterpret_cast<const float*>(host.data());
  for (int64_t i = 0; i < count; i++) sum += f[i];
  napi_value out;
  napi_create_double(env, sum, &out);
  return out;
}

// ---- the library's exchange API for its device tensors -------------------------------------

struct DeviceTensor {
  CUdeviceptr ptr;
  int64_t shape[1];
  int64_t strides[1];
};

std::atomic<uintptr_t> g_current_stream{0};
std::atomic<long> g_exported{0};
std::atomic<long> g_deleted{0};

int LibFromObject(void* py_object, DLManagedTensorVersioned** out) {
  auto* obj = static_cast<DLPackNodeObject*>(py_object);
  napi_value handle;
  void* data = nullptr;
  if (napi_get_named_property(obj->env, obj->value, "handle", &handle) != napi_ok || napi_get_value_external(obj->env, handle, &data) != napi_ok) {
    napi_throw_type_error(obj->env, nullptr, "cuda_library: not one of my tensors");
    return -1;
  }
  auto* dt = static_cast<DeviceTensor*>(data);
  auto* m = new DLManagedTensorVersioned{};
  m->version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  m->manager_ctx = nullptr;
  m->deleter = [](DLManagedTensorVersioned* self) {
    g_deleted++;
    delete self;
  };
  m->dl_tensor.data = reinterpret_cast<void*>(static_cast<uintptr_t>(dt->ptr));
  m->dl_tensor.device = {kDLCUDA, g_device};
  m->dl_tensor.ndim = 1;
  m->dl_tensor.dtype = {kDLFloat, 32, 1};
  m->dl_tensor.shape = dt->shape;
  m->dl_tensor.strides = dt->strides;
  g_exported++;
  *out = m;
  return 0;
}

int LibAllocator(DLTensor*, DLManagedTensorVersioned**, void* ctx, void (*SetError)(void*, const char*, const char*)) {
  SetError(ctx, "NotImplementedError", "cuda_library allocates through its own API");
  return -1;
}

int LibToObject(DLManagedTensorVersioned* t, void** out) {
  t->deleter(t);
  napi_throw_error(reinterpret_cast<DLPackNodeObject*>(out)->env, nullptr, "cuda_library: no import");
  return -1;
}

int LibCurrentWorkStream(DLDeviceType type, int32_t, void** out) {
  *out = type == kDLCUDA ? reinterpret_cast<void*>(g_current_stream.load()) : nullptr;
  return 0;
}

const DLPackExchangeAPI g_api = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, nullptr}, LibAllocator, LibFromObject, LibToObject, nullptr, LibCurrentWorkStream,
};

// deviceTensor(ptr, n) -> External handle for the library's tensor class
napi_value DeviceTensorOf(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  Args(env, info, 2, argv);
  double n;
  napi_get_value_double(env, argv[1], &n);
  auto* dt = new DeviceTensor{BigArg(env, argv[0]), {static_cast<int64_t>(n)}, {1}};
  napi_value out;
  napi_create_external(env, dt, [](napi_env, void* p, void*) { delete static_cast<DeviceTensor*>(p); }, nullptr, &out);
  return out;
}

napi_value SetCurrentStream(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  Args(env, info, 1, argv);
  g_current_stream.store(static_cast<uintptr_t>(BigArg(env, argv[0])));
  return Undefined(env);
}

napi_value ExchangeCounts(napi_env env, napi_callback_info) {
  napi_value out, a, b;
  napi_create_object(env, &out);
  napi_create_double(env, static_cast<double>(g_exported.load()), &a);
  napi_create_double(env, static_cast<double>(g_deleted.load()), &b);
  napi_set_named_property(env, out, "exported", a);
  napi_set_named_property(env, out, "deleted", b);
  return out;
}

napi_value ModuleInit(napi_env env, napi_value exports) {
  struct Fn {
    const char* name;
    napi_callback cb;
  } fns[] = {
      {"init", Init},
      {"alloc", Alloc},
      {"free", Free},
      {"upload", Upload},
      {"download", Download},
      {"memsetAsync", MemsetAsync},
      {"streamCreate", StreamCreate},
      {"streamDestroy", StreamDestroy},
      {"streamSynchronize", StreamSynchronize},
      {"streamDone", StreamDone},
      {"waitStream", WaitStream},
      {"pointerDevice", PointerDevice},
      {"blockStream", BlockStream},
      {"openGate", OpenGate},
      {"sumSlot", SumSlot},
      {"deviceTensor", DeviceTensorOf},
      {"setCurrentStream", SetCurrentStream},
      {"exchangeCounts", ExchangeCounts},
  };
  for (const Fn& f : fns) {
    napi_value fn;
    napi_create_function(env, f.name, NAPI_AUTO_LENGTH, f.cb, nullptr, &fn);
    napi_set_named_property(env, exports, f.name, fn);
  }
  napi_value api;
  napi_create_external(env, const_cast<DLPackExchangeAPI*>(&g_api), nullptr, nullptr, &api);
  napi_set_named_property(env, exports, "api", api);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, ModuleInit)
