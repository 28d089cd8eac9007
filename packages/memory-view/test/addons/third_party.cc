// A test-only native addon that plays a third-party array library: it has its
// own tensors and its own DLPack exchange API table, and it consumes
// memory-view's objects through memory-view's table and Externals. Plain
// Node-API (no node-addon-api), as an unrelated library would be written.
#include <node_api.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "dlpack.h"
#include "dlpack_node.h"

namespace {

std::atomic<long> g_deleted{0};
std::atomic<long> g_live{0};
bool g_log = std::getenv("TP_LOG_DELETES") != nullptr;

#define CHECK(call)                                                   \
  do {                                                                \
    if ((call) != napi_ok) {                                          \
      napi_throw_error(env, nullptr, "third_party: " #call " failed"); \
      return nullptr;                                                 \
    }                                                                 \
  } while (0)

// ---- the library's own tensors ---------------------------------------------------

struct TpTensor {
  long id;
  std::vector<float> host;  // host data (device tensors: empty)
  uint64_t address = 0;     // device tensors: an address that is never dereferenced here
  DLDeviceType device = kDLCPU;
  std::vector<int64_t> shape, strides;
};

long g_next_id = 1;

struct TpManaged {
  TpTensor* owner;
  DLManagedTensorVersioned versioned;
  DLManagedTensor legacy;
};

void OnDelete(TpManaged* m) {
  g_deleted++;
  g_live--;
  if (g_log) std::fprintf(stderr, "third_party: deleted tensor %ld\n", m->owner->id);
  delete m;
}

TpManaged* Manage(TpTensor* t, uint32_t major) {
  auto* m = new TpManaged{};
  m->owner = t;
  DLTensor dl{};
  dl.data = t->device == kDLCPU && t->address == 0 ? static_cast<void*>(t->host.data()) : reinterpret_cast<void*>(t->address);
  dl.device = {t->device, 0};
  dl.ndim = static_cast<int32_t>(t->shape.size());
  dl.dtype = {kDLFloat, 32, 1};
  dl.shape = t->shape.data();
  dl.strides = t->strides.data();
  dl.byte_offset = 0;
  m->versioned.version = {major, 0};
  m->versioned.manager_ctx = m;
  m->versioned.deleter = [](DLManagedTensorVersioned* self) { OnDelete(static_cast<TpManaged*>(self->manager_ctx)); };
  m->versioned.flags = 0;
  m->versioned.dl_tensor = dl;
  m->legacy.dl_tensor = dl;
  m->legacy.manager_ctx = m;
  m->legacy.deleter = [](DLManagedTensor* self) { OnDelete(static_cast<TpManaged*>(self->manager_ctx)); };
  g_live++;
  return m;
}

// The tensors live as long as the process: the test only counts deleter calls.
TpTensor* NewTensor(size_t n, DLDeviceType device, uint64_t address) {
  auto* t = new TpTensor{};
  t->id = g_next_id++;
  t->device = device;
  t->address = address;
  if (device == kDLCPU) {
    t->host.resize(n);
    for (size_t i = 0; i < n; i++) t->host[i] = static_cast<float>(i);
  }
  t->shape = {static_cast<int64_t>(n)};
  t->strides = {1};
  return t;
}

TpTensor* TensorOf(napi_env env, napi_value obj) {
  napi_value handle;
  if (napi_get_named_property(env, obj, "handle", &handle) != napi_ok) return nullptr;
  void* data = nullptr;
  if (napi_get_value_external(env, handle, &data) != napi_ok) return nullptr;
  return static_cast<TpTensor*>(data);
}

// ---- its exchange API table (Node binding: dlpack_node.h) --------------------------

int TpAllocator(DLTensor*, DLManagedTensorVersioned**, void* ctx, void (*SetError)(void*, const char*, const char*)) {
  SetError(ctx, "NotImplementedError", "third_party allocates nothing");
  return -1;
}

int TpFromObject(void* py_object, DLManagedTensorVersioned** out) {
  auto* obj = static_cast<DLPackNodeObject*>(py_object);
  TpTensor* t = TensorOf(obj->env, obj->value);
  if (t == nullptr) {
    napi_throw_type_error(obj->env, nullptr, "third_party: not one of my tensors");
    return -1;
  }
  *out = &Manage(t, 1)->versioned;
  return 0;
}

int TpToObject(DLManagedTensorVersioned* tensor, void** out_py_object) {
  tensor->deleter(tensor);
  napi_throw_error(reinterpret_cast<DLPackNodeObject*>(out_py_object)->env, nullptr, "third_party: importing foreign tensors is not implemented");
  return -1;
}

int TpCurrentWorkStream(DLDeviceType device_type, int32_t, void** out) {
  // A fixed, recognisable stream value for CUDA; none for the host.
  *out = device_type == kDLCUDA ? reinterpret_cast<void*>(static_cast<uintptr_t>(0x5eed)) : nullptr;
  return 0;
}

const DLPackExchangeAPI g_api = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, nullptr}, TpAllocator, TpFromObject, TpToObject, nullptr, TpCurrentWorkStream,
};
// A table of a future major version that chains to the one above.
const DLPackExchangeAPI g_api_v2 = {
    {{2, 0}, const_cast<DLPackExchangeAPIHeader*>(&g_api.header)}, TpAllocator, TpFromObject, TpToObject, nullptr, TpCurrentWorkStream,
};
const DLPackExchangeAPI g_api_v2_alone = {
    {{2, 0}, nullptr}, TpAllocator, TpFromObject, TpToObject, nullptr, TpCurrentWorkStream,
};

// ---- helpers for the consumer side ----------------------------------------------------

napi_value Num(napi_env env, double v) {
  napi_value out;
  napi_create_double(env, v, &out);
  return out;
}

// obj[Symbol.for('dlpack.exchange_api')]() -> the table, as a consumer library would look it up.
const DLPackExchangeAPI* ApiOfObject(napi_env env, napi_value obj) {
  napi_value global, symbol_ctor, symbol_for, key_str, key, method, external;
  if (napi_get_global(env, &global) != napi_ok) return nullptr;
  napi_get_named_property(env, global, "Symbol", &symbol_ctor);
  napi_get_named_property(env, symbol_ctor, "for", &symbol_for);
  napi_create_string_utf8(env, "dlpack.exchange_api", NAPI_AUTO_LENGTH, &key_str);
  if (napi_call_function(env, symbol_ctor, symbol_for, 1, &key_str, &key) != napi_ok) return nullptr;
  if (napi_get_property(env, obj, key, &method) != napi_ok) return nullptr;
  napi_valuetype type;
  napi_typeof(env, method, &type);
  if (type != napi_function) {
    napi_throw_type_error(env, nullptr, "third_party: the object has no Symbol.for('dlpack.exchange_api') method");
    return nullptr;
  }
  if (napi_call_function(env, obj, method, 0, nullptr, &external) != napi_ok) return nullptr;
  void* data = nullptr;
  if (napi_get_value_external(env, external, &data) != napi_ok) {
    napi_throw_type_error(env, nullptr, "third_party: the exchange API is not an External");
    return nullptr;
  }
  auto* api = static_cast<const DLPackExchangeAPI*>(data);
  if (api->header.version.major != DLPACK_MAJOR_VERSION) {
    napi_throw_error(env, nullptr, "third_party: exchange API of another major version");
    return nullptr;
  }
  return api;
}

// Visits every element's float, honouring strides and byte_offset.
template <typename F>
bool ForEachFloat(napi_env env, const DLTensor& t, F&& f) {
  if (t.dtype.code != kDLFloat || t.dtype.bits != 32 || t.dtype.lanes != 1) {
    napi_throw_type_error(env, nullptr, "third_party: only float32 tensors");
    return false;
  }
  if (t.device.device_type != kDLCPU) {
    napi_throw_type_error(env, nullptr, "third_party: only host tensors can be read here");
    return false;
  }
  char* base = static_cast<char*>(t.data) + t.byte_offset;
  std::vector<int64_t> index(t.ndim, 0);
  int64_t count = 1;
  for (int i = 0; i < t.ndim; i++) count *= t.shape[i];
  for (int64_t k = 0; k < count; k++) {
    int64_t offset = 0;
    int64_t step = 1;
    for (int i = t.ndim - 1; i >= 0; i--) {
      offset += index[i] * (t.strides != nullptr ? t.strides[i] : step);
      step *= t.shape[i];
    }
    f(reinterpret_cast<float*>(base + offset * 4));
    for (int i = t.ndim - 1; i >= 0; i--) {
      if (++index[i] < t.shape[i]) break;
      index[i] = 0;
    }
  }
  return true;
}

napi_value GetArgs(napi_env env, napi_callback_info info, size_t n, napi_value* argv) {
  size_t argc = n;
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  return nullptr;
}

// ---- exported functions -------------------------------------------------------------------

// create(n) -> External handle of a host tensor [n] with values 0..n-1
napi_value Create(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GetArgs(env, info, 1, argv);
  double n;
  CHECK(napi_get_value_double(env, argv[0], &n));
  napi_value out;
  CHECK(napi_create_external(env, NewTensor(static_cast<size_t>(n), kDLCPU, 0), nullptr, nullptr, &out));
  return out;
}

// createDevice(address: bigint, n) -> External handle of a CUDA tensor at a fake address
napi_value CreateDevice(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  GetArgs(env, info, 2, argv);
  uint64_t address;
  bool lossless;
  double n;
  CHECK(napi_get_value_bigint_uint64(env, argv[0], &address, &lossless));
  CHECK(napi_get_value_double(env, argv[1], &n));
  napi_value out;
  CHECK(napi_create_external(env, NewTensor(static_cast<size_t>(n), kDLCUDA, address), nullptr, nullptr, &out));
  return out;
}

// createHostAt(address: bigint, n) -> External handle of a tensor that says host memory at a made-up address
napi_value CreateHostAt(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  GetArgs(env, info, 2, argv);
  uint64_t address;
  bool lossless;
  double n;
  CHECK(napi_get_value_bigint_uint64(env, argv[0], &address, &lossless));
  CHECK(napi_get_value_double(env, argv[1], &n));
  napi_value out;
  CHECK(napi_create_external(env, NewTensor(static_cast<size_t>(n), kDLCPU, address), nullptr, nullptr, &out));
  return out;
}

// values(handle) -> Float32Array copy of a host tensor's data
napi_value Values(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GetArgs(env, info, 1, argv);
  void* data;
  CHECK(napi_get_value_external(env, argv[0], &data));
  auto* t = static_cast<TpTensor*>(data);
  void* bytes;
  napi_value ab, out;
  CHECK(napi_create_arraybuffer(env, t->host.size() * 4, &bytes, &ab));
  std::memcpy(bytes, t->host.data(), t->host.size() * 4);
  CHECK(napi_create_typedarray(env, napi_float32_array, t->host.size(), ab, 0, &out));
  return out;
}

// set(handle, i, value): writes through the library's own pointer
napi_value Set(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  GetArgs(env, info, 3, argv);
  void* data;
  double i, v;
  CHECK(napi_get_value_external(env, argv[0], &data));
  CHECK(napi_get_value_double(env, argv[1], &i));
  CHECK(napi_get_value_double(env, argv[2], &v));
  static_cast<TpTensor*>(data)->host[static_cast<size_t>(i)] = static_cast<float>(v);
  return nullptr;
}

// makeSlot(handle, legacy, major) -> External whose value is a slot holding a new managed tensor
napi_value MakeSlot(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  GetArgs(env, info, 3, argv);
  void* data;
  bool legacy;
  uint32_t major;
  CHECK(napi_get_value_external(env, argv[0], &data));
  CHECK(napi_get_value_bool(env, argv[1], &legacy));
  CHECK(napi_get_value_uint32(env, argv[2], &major));
  TpManaged* m = Manage(static_cast<TpTensor*>(data), major);
  auto* slot = new void*(legacy ? static_cast<void*>(&m->legacy) : static_cast<void*>(&m->versioned));
  struct Hint { bool legacy; };
  napi_value out;
  CHECK(napi_create_external(
      env, slot,
      [](napi_env, void* d, void* hint) {
        auto* s = static_cast<void**>(d);
        bool is_legacy = static_cast<Hint*>(hint)->legacy;
        if (*s != nullptr) {
          if (is_legacy) static_cast<DLManagedTensor*>(*s)->deleter(static_cast<DLManagedTensor*>(*s));
          else static_cast<DLManagedTensorVersioned*>(*s)->deleter(static_cast<DLManagedTensorVersioned*>(*s));
        }
        delete s;
        delete static_cast<Hint*>(hint);
      },
      new Hint{legacy}, &out));
  return out;
}

// consumeSlot(External, legacy) -> sum of the float32 elements; takes the tensor and deletes it
napi_value ConsumeSlot(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  GetArgs(env, info, 2, argv);
  void* data;
  bool legacy;
  CHECK(napi_get_value_external(env, argv[0], &data));
  CHECK(napi_get_value_bool(env, argv[1], &legacy));
  void** slot = static_cast<void**>(data);
  void* tensor = *slot;
  if (tensor == nullptr) {
    napi_throw_error(env, nullptr, "third_party: the slot is empty");
    return nullptr;
  }
  *slot = nullptr;  // taken
  double sum = 0;
  const DLTensor& t = legacy ? static_cast<DLManagedTensor*>(tensor)->dl_tensor : static_cast<DLManagedTensorVersioned*>(tensor)->dl_tensor;
  bool ok = ForEachFloat(env, t, [&](float* p) { sum += *p; });
  if (legacy) static_cast<DLManagedTensor*>(tensor)->deleter(static_cast<DLManagedTensor*>(tensor));
  else static_cast<DLManagedTensorVersioned*>(tensor)->deleter(static_cast<DLManagedTensorVersioned*>(tensor));
  return ok ? Num(env, sum) : nullptr;
}

// takeSlot(External) -> External to the bare tensor pointer, held (not deleted) by the library
napi_value HoldSlot(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GetArgs(env, info, 1, argv);
  void* data;
  CHECK(napi_get_value_external(env, argv[0], &data));
  void** slot = static_cast<void**>(data);
  napi_value out;
  if (*slot == nullptr) {
    napi_get_null(env, &out);
    return out;
  }
  CHECK(napi_create_external(env, *slot, nullptr, nullptr, &out));
  *slot = nullptr;
  return out;
}

// deleteHeld(External from takeSlot): the consumer's deleter call
napi_value DeleteHeld(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GetArgs(env, info, 1, argv);
  void* data;
  CHECK(napi_get_value_external(env, argv[0], &data));
  auto* t = static_cast<DLManagedTensorVersioned*>(data);
  t->deleter(t);
  return nullptr;
}

// deleteHeldOnThread(External from holdSlot): the deleter call, from another thread
napi_value DeleteHeldOnThread(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GetArgs(env, info, 1, argv);
  void* data;
  CHECK(napi_get_value_external(env, argv[0], &data));
  auto* t = static_cast<DLManagedTensorVersioned*>(data);
  std::thread worker([t] { t->deleter(t); });
  worker.join();
  return nullptr;
}

// slotIsFull(External) -> whether the slot still holds a tensor
napi_value SlotIsFull(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GetArgs(env, info, 1, argv);
  void* data;
  CHECK(napi_get_value_external(env, argv[0], &data));
  napi_value out;
  napi_get_boolean(env, *static_cast<void**>(data) != nullptr, &out);
  return out;
}

// sumViaExchange(obj) -> sum, through obj's exchange API table (owning path)
napi_value SumViaExchange(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GetArgs(env, info, 1, argv);
  const DLPackExchangeAPI* api = ApiOfObject(env, argv[0]);
  if (api == nullptr) return nullptr;
  DLManagedTensorVersioned* t = nullptr;
  DLPackNodeObject obj{env, argv[0]};
  if (api->managed_tensor_from_py_object_no_sync(&obj, &t) != 0) return nullptr;  // its error is pending on our env
  double sum = 0;
  bool ok = ForEachFloat(env, t->dl_tensor, [&](float* p) { sum += *p; });
  t->deleter(t);
  return ok ? Num(env, sum) : nullptr;
}

// fillViaExchange(obj, value): writes every element, refusing read-only tensors
napi_value FillViaExchange(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  GetArgs(env, info, 2, argv);
  double value;
  CHECK(napi_get_value_double(env, argv[1], &value));
  const DLPackExchangeAPI* api = ApiOfObject(env, argv[0]);
  if (api == nullptr) return nullptr;
  DLManagedTensorVersioned* t = nullptr;
  DLPackNodeObject obj{env, argv[0]};
  if (api->managed_tensor_from_py_object_no_sync(&obj, &t) != 0) return nullptr;
  if (t->flags & DLPACK_FLAG_BITMASK_READ_ONLY) {
    t->deleter(t);
    napi_throw_error(env, "READ_ONLY", "third_party: the tensor is read-only");
    return nullptr;
  }
  ForEachFloat(env, t->dl_tensor, [&](float* p) { *p = static_cast<float>(value); });
  t->deleter(t);
  return nullptr;
}

// sumViaDLTensor(obj) -> sum, through the non-owning dltensor_from_py_object_no_sync
napi_value SumViaDLTensor(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GetArgs(env, info, 1, argv);
  const DLPackExchangeAPI* api = ApiOfObject(env, argv[0]);
  if (api == nullptr) return nullptr;
  if (api->dltensor_from_py_object_no_sync == nullptr) {
    napi_throw_error(env, nullptr, "third_party: no dltensor_from_py_object_no_sync");
    return nullptr;
  }
  DLTensor t{};
  DLPackNodeObject obj{env, argv[0]};
  if (api->dltensor_from_py_object_no_sync(&obj, &t) != 0) return nullptr;
  double sum = 0;
  if (!ForEachFloat(env, t, [&](float* p) { sum += *p; })) return nullptr;
  return Num(env, sum);
}

// describeViaExchange(obj) -> { data: bigint, deviceType, deviceId, ndim, shape, strides, byteOffset, flags }
napi_value DescribeViaExchange(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  GetArgs(env, info, 1, argv);
  const DLPackExchangeAPI* api = ApiOfObject(env, argv[0]);
  if (api == nullptr) return nullptr;
  DLManagedTensorVersioned* t = nullptr;
  DLPackNodeObject obj{env, argv[0]};
  if (api->managed_tensor_from_py_object_no_sync(&obj, &t) != 0) return nullptr;
  napi_value out, v, shape, strides;
  napi_create_object(env, &out);
  napi_create_bigint_uint64(env, reinterpret_cast<uintptr_t>(t->dl_tensor.data), &v);
  napi_set_named_property(env, out, "data", v);
  napi_set_named_property(env, out, "deviceType", Num(env, t->dl_tensor.device.device_type));
  napi_set_named_property(env, out, "deviceId", Num(env, t->dl_tensor.device.device_id));
  napi_set_named_property(env, out, "byteOffset", Num(env, static_cast<double>(t->dl_tensor.byte_offset)));
  napi_set_named_property(env, out, "flags", Num(env, static_cast<double>(t->flags)));
  napi_set_named_property(env, out, "version", Num(env, t->version.major * 100 + t->version.minor));
  napi_set_named_property(env, out, "code", Num(env, t->dl_tensor.dtype.code));
  napi_set_named_property(env, out, "bits", Num(env, t->dl_tensor.dtype.bits));
  napi_set_named_property(env, out, "lanes", Num(env, t->dl_tensor.dtype.lanes));
  napi_create_array_with_length(env, t->dl_tensor.ndim, &shape);
  napi_create_array_with_length(env, t->dl_tensor.ndim, &strides);
  for (int i = 0; i < t->dl_tensor.ndim; i++) {
    napi_set_element(env, shape, i, Num(env, static_cast<double>(t->dl_tensor.shape[i])));
    napi_set_element(env, strides, i, Num(env, static_cast<double>(t->dl_tensor.strides[i])));
  }
  napi_set_named_property(env, out, "shape", shape);
  napi_set_named_property(env, out, "strides", strides);
  t->deleter(t);
  return out;
}

// allocateVia(obj, n, deviceType) -> the producer's object (through its allocator and to_py_object), filled with 2*i
napi_value AllocateVia(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  GetArgs(env, info, 3, argv);
  double n;
  int32_t device;
  CHECK(napi_get_value_double(env, argv[1], &n));
  CHECK(napi_get_value_int32(env, argv[2], &device));
  const DLPackExchangeAPI* api = ApiOfObject(env, argv[0]);
  if (api == nullptr) return nullptr;
  int64_t shape[1] = {static_cast<int64_t>(n)};
  DLTensor proto{};
  proto.device = {static_cast<DLDeviceType>(device), 0};
  proto.ndim = 1;
  proto.dtype = {kDLFloat, 32, 1};
  proto.shape = shape;
  std::string error;
  DLManagedTensorVersioned* t = nullptr;
  int rc = api->managed_tensor_allocator(&proto, &t, &error, [](void* ctx, const char* kind, const char* message) {
    *static_cast<std::string*>(ctx) = std::string(kind) + ": " + message;
  });
  if (rc != 0) {
    napi_throw_error(env, "ALLOCATOR", error.c_str());
    return nullptr;
  }
  ForEachFloat(env, t->dl_tensor, [&, i = 0](float* p) mutable { *p = static_cast<float>(2 * i++); });
  DLPackNodeObject made{env, nullptr};
  if (api->managed_tensor_to_py_object_no_sync(t, reinterpret_cast<void**>(&made)) != 0) return nullptr;
  return made.value;
}

// currentStreamVia(obj, deviceType) -> bigint
napi_value CurrentStreamVia(napi_env env, napi_callback_info info) {
  napi_value argv[2];
  GetArgs(env, info, 2, argv);
  int32_t device;
  CHECK(napi_get_value_int32(env, argv[1], &device));
  const DLPackExchangeAPI* api = ApiOfObject(env, argv[0]);
  if (api == nullptr) return nullptr;
  void* stream = nullptr;
  if (api->current_work_stream(static_cast<DLDeviceType>(device), 0, &stream) != 0) return nullptr;
  napi_value out;
  napi_create_bigint_uint64(env, reinterpret_cast<uintptr_t>(stream), &out);
  return out;
}

napi_value Deleted(napi_env env, napi_callback_info) {
  return Num(env, static_cast<double>(g_deleted.load()));
}

napi_value Live(napi_env env, napi_callback_info) {
  return Num(env, static_cast<double>(g_live.load()));
}

napi_value Init(napi_env env, napi_value exports) {
  struct Fn {
    const char* name;
    napi_callback cb;
  } fns[] = {
      {"create", Create},           {"createDevice", CreateDevice},   {"createHostAt", CreateHostAt},   {"values", Values},
      {"set", Set},                 {"makeSlot", MakeSlot},           {"consumeSlot", ConsumeSlot},
      {"holdSlot", HoldSlot},       {"deleteHeld", DeleteHeld},       {"deleteHeldOnThread", DeleteHeldOnThread},       {"slotIsFull", SlotIsFull},
      {"sumViaExchange", SumViaExchange}, {"fillViaExchange", FillViaExchange}, {"sumViaDLTensor", SumViaDLTensor},
      {"describeViaExchange", DescribeViaExchange}, {"allocateVia", AllocateVia}, {"currentStreamVia", CurrentStreamVia},
      {"deleted", Deleted},         {"live", Live},
  };
  for (const Fn& f : fns) {
    napi_value fn;
    napi_create_function(env, f.name, NAPI_AUTO_LENGTH, f.cb, nullptr, &fn);
    napi_set_named_property(env, exports, f.name, fn);
  }
  napi_value api, api2, api2alone;
  napi_create_external(env, const_cast<DLPackExchangeAPI*>(&g_api), nullptr, nullptr, &api);
  napi_create_external(env, const_cast<DLPackExchangeAPI*>(&g_api_v2), nullptr, nullptr, &api2);
  napi_create_external(env, const_cast<DLPackExchangeAPI*>(&g_api_v2_alone), nullptr, nullptr, &api2alone);
  napi_set_named_property(env, exports, "api", api);
  napi_set_named_property(env, exports, "apiV2", api2);
  napi_set_named_property(env, exports, "apiV2Alone", api2alone);
  return exports;
}

}  // namespace

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)
