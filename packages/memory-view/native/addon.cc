// The optional native DLPack helper of @cuda-js/memory-view: DLPack tensors as
// C structs, and the DLPack C exchange API table. No CUDA: device memory is an
// address that this code only passes on.
//
// Ownership rules (docs/protocols.md, "Native exchange"):
// - An exported tensor travels in an External whose value is a slot, a
//   pointer to the tensor pointer (DLManagedTensorVersioned** or
//   DLManagedTensor**). A consumer takes the tensor by reading the slot and
//   storing NULL in it; a slot that still holds a tensor when its External is
//   collected, or when the process exits, has its deleter called then.
// - An imported tensor is held by a record whose deleter call happens exactly
//   once: on release() from JS, when its owners are collected, or at exit.

#include <napi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "dlpack.h"
#include "dlpack_node.h"

namespace {

struct EnvState;

// Every live env, so that a deleter that comes late (another thread, after
// exit) can tell whether its env may still be used.
std::mutex g_mutex;
std::unordered_set<EnvState*> g_live_envs;
thread_local EnvState* t_state = nullptr;  // the env of this JS thread
// CUDA_JS_MEMORY_VIEW_TRACE=1 prints each deleter call to stderr (tests of the exit path read it).
const bool g_trace = std::getenv("CUDA_JS_MEMORY_VIEW_TRACE") != nullptr;

struct ExportCtx;
struct Slot;
struct ImportRec;

struct EnvState {
  napi_env env = nullptr;
  std::thread::id thread;
  napi_threadsafe_function tsfn = nullptr;  // brings off-thread deleters back to the JS thread
  Napi::FunctionReference describe;          // JS: object -> export description
  Napi::FunctionReference make_view;         // JS: import fields -> StridedMemoryView
  std::unordered_set<Slot*> slots;
  std::unordered_set<ImportRec*> imports;
  long live_exports = 0;
};

bool EnvAlive(EnvState* s) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return s != nullptr && g_live_envs.count(s) != 0;
}

// ---- exports: tensors that describe JS memory -----------------------------------

struct ExportCtx {
  EnvState* state = nullptr;
  napi_ref keep = nullptr;  // the view: keeps the memory alive until the deleter
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
  DLManagedTensorVersioned versioned{};
  DLManagedTensor legacy{};
};

void FreeExportOnJsThread(napi_env env, ExportCtx* ctx) {
  if (ctx->keep != nullptr) napi_delete_reference(env, ctx->keep);
  delete ctx;
}

void ReleaseExport(ExportCtx* ctx) {
  if (g_trace) std::fprintf(stderr, "memory-view: export deleted\n");
  std::unique_lock<std::mutex> lock(g_mutex);
  EnvState* s = ctx->state;
  if (s == nullptr || g_live_envs.count(s) == 0) {
    // The env is gone, and its references with it.
    lock.unlock();
    delete ctx;
    return;
  }
  s->live_exports--;
  if (std::this_thread::get_id() == s->thread) {
    napi_env env = s->env;
    lock.unlock();
    FreeExportOnJsThread(env, ctx);
  } else {
    napi_call_threadsafe_function(s->tsfn, ctx, napi_tsfn_nonblocking);
  }
}

void ExportDeleterVersioned(DLManagedTensorVersioned* self) {
  ReleaseExport(static_cast<ExportCtx*>(self->manager_ctx));
}

void ExportDeleterLegacy(DLManagedTensor* self) {
  ReleaseExport(static_cast<ExportCtx*>(self->manager_ctx));
}

int64_t ToInt64(const Napi::Value& v, const char* what) {
  if (!v.IsNumber()) throw Napi::TypeError::New(v.Env(), std::string(what) + " must be a number");
  double d = v.As<Napi::Number>().DoubleValue();
  if (d != static_cast<double>(static_cast<int64_t>(d))) throw Napi::TypeError::New(v.Env(), std::string(what) + " must be an integer");
  return static_cast<int64_t>(d);
}

std::vector<int64_t> ToInt64Vector(const Napi::Value& v, const char* what) {
  if (!v.IsArray()) throw Napi::TypeError::New(v.Env(), std::string(what) + " must be an array");
  Napi::Array a = v.As<Napi::Array>();
  std::vector<int64_t> out(a.Length());
  for (uint32_t i = 0; i < a.Length(); i++) out[i] = ToInt64(a.Get(i), what);
  return out;
}

// An export description, built by JS (src/native/describe.ts):
// [keep, bytes: Uint8Array | null, ptr: bigint | null, byteOffset, deviceType,
//  deviceId, code, bits, lanes, flags, shape[], strides[]]
struct Description {
  Napi::Value keep;
  void* data = nullptr;
  uint64_t byte_offset = 0;
  DLDevice device{};
  DLDataType dtype{};
  uint64_t flags = 0;
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;
};

Description ReadDescription(Napi::Env env, Napi::Value value) {
  if (!value.IsArray() || value.As<Napi::Array>().Length() != 12) throw Napi::TypeError::New(env, "internal: malformed export description");
  Napi::Array a = value.As<Napi::Array>();
  Description d;
  d.keep = a.Get(0u);
  Napi::Value bytes = a.Get(1u);
  Napi::Value ptr = a.Get(2u);
  if (bytes.IsTypedArray()) {
    Napi::Uint8Array u8 = bytes.As<Napi::Uint8Array>();
    d.data = u8.Data();  // start of the buffer; the view's offset goes in byte_offset
  } else if (ptr.IsBigInt()) {
    bool lossless = false;
    d.data = reinterpret_cast<void*>(static_cast<uintptr_t>(ptr.As<Napi::BigInt>().Uint64Value(&lossless)));
  } else {
    throw Napi::TypeError::New(env, "internal: an export description needs a buffer or an address");
  }
  d.byte_offset = static_cast<uint64_t>(ToInt64(a.Get(3u), "byteOffset"));
  d.device.device_type = static_cast<DLDeviceType>(ToInt64(a.Get(4u), "device type"));
  d.device.device_id = static_cast<int32_t>(ToInt64(a.Get(5u), "device id"));
  d.dtype.code = static_cast<uint8_t>(ToInt64(a.Get(6u), "dtype code"));
  d.dtype.bits = static_cast<uint8_t>(ToInt64(a.Get(7u), "dtype bits"));
  d.dtype.lanes = static_cast<uint16_t>(ToInt64(a.Get(8u), "dtype lanes"));
  d.flags = static_cast<uint64_t>(ToInt64(a.Get(9u), "flags"));
  d.shape = ToInt64Vector(a.Get(10u), "shape");
  d.strides = ToInt64Vector(a.Get(11u), "strides");
  if (d.shape.size() != d.strides.size()) throw Napi::TypeError::New(env, "internal: shape and strides differ in length");
  return d;
}

ExportCtx* MakeExport(Napi::Env env, EnvState* s, Description&& d) {
  auto* ctx = new ExportCtx();
  ctx->state = s;
  napi_status st = napi_create_reference(env, d.keep, 1, &ctx->keep);
  if (st != napi_ok) {
    delete ctx;
    throw Napi::Error::New(env, "internal: cannot reference the exported view");
  }
  ctx->shape = std::move(d.shape);
  ctx->strides = std::move(d.strides);
  DLTensor t{};
  t.data = d.data;
  t.device = d.device;
  t.ndim = static_cast<int32_t>(ctx->shape.size());
  t.dtype = d.dtype;
  t.shape = ctx->shape.empty() ? nullptr : ctx->shape.data();
  t.strides = ctx->strides.empty() ? nullptr : ctx->strides.data();
  t.byte_offset = d.byte_offset;
  ctx->versioned.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  ctx->versioned.manager_ctx = ctx;
  ctx->versioned.deleter = ExportDeleterVersioned;
  ctx->versioned.flags = d.flags;
  ctx->versioned.dl_tensor = t;
  ctx->legacy.dl_tensor = t;
  ctx->legacy.manager_ctx = ctx;
  ctx->legacy.deleter = ExportDeleterLegacy;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    s->live_exports++;
  }
  return ctx;
}

// ---- slots: a tensor in an External, until a consumer takes it -----------------

struct Slot {
  void* tensor;  // first member: the External's value doubles as a DLManagedTensorVersioned**
  bool legacy;
  EnvState* state;
};

void CallTensorDeleter(void* tensor, bool legacy) {
  if (tensor == nullptr) return;
  if (legacy) {
    auto* t = static_cast<DLManagedTensor*>(tensor);
    if (t->deleter != nullptr) t->deleter(t);
  } else {
    auto* t = static_cast<DLManagedTensorVersioned*>(tensor);
    if (t->deleter != nullptr) t->deleter(t);
  }
}

void FinalizeSlot(napi_env, void* data, void*) {
  auto* slot = static_cast<Slot*>(data);
  void* tensor = slot->tensor;
  slot->tensor = nullptr;
  if (EnvAlive(slot->state)) slot->state->slots.erase(slot);
  CallTensorDeleter(tensor, slot->legacy);  // dropped before use
  delete slot;
}

Napi::Value MakeSlot(Napi::Env env, EnvState* s, void* tensor, bool legacy) {
  auto* slot = new Slot{tensor, legacy, s};
  s->slots.insert(slot);
  return Napi::External<Slot>::New(env, slot, [](Napi::Env e, Slot* p) { FinalizeSlot(e, p, nullptr); });
}

// ---- imports: tensors from elsewhere, seen from JS --------------------------------

struct ImportRec {
  void* tensor;
  bool legacy;
  bool released = false;
  bool buffer_owned = false;  // host memory lent to JS as an ArrayBuffer: the buffer decides
  int owners = 0;
  napi_ref buffer_weak = nullptr;
  EnvState* state;
};

void ReleaseImport(napi_env env, ImportRec* r) {
  if (r->released) return;
  r->released = true;
  if (g_trace) std::fprintf(stderr, "memory-view: import released\n");
  if (env != nullptr && r->buffer_weak != nullptr) {
    // Freed memory must not stay reachable from JS: detach the buffer if it still lives.
    napi_value ab = nullptr;
    if (napi_get_reference_value(env, r->buffer_weak, &ab) == napi_ok && ab != nullptr) napi_detach_arraybuffer(env, ab);
  }
  if (EnvAlive(r->state)) r->state->imports.erase(r);
  void* tensor = r->tensor;
  r->tensor = nullptr;
  CallTensorDeleter(tensor, r->legacy);
}

void DropImportOwner(napi_env env, ImportRec* r) {
  if (--r->owners > 0) return;
  if (env != nullptr && r->buffer_weak != nullptr && EnvAlive(r->state)) napi_delete_reference(env, r->buffer_weak);
  delete r;
}

Napi::Object DescribeImport(Napi::Env env, EnvState* s, void* tensor, bool legacy) {
  const DLTensor* t;
  uint64_t flags = 0;
  uint32_t major = 1, minor = 0;
  if (legacy) {
    t = &static_cast<DLManagedTensor*>(tensor)->dl_tensor;
  } else {
    auto* v = static_cast<DLManagedTensorVersioned*>(tensor);
    major = v->version.major;
    minor = v->version.minor;
    if (major != DLPACK_MAJOR_VERSION) {
      // Nothing past `flags` may be read; only the deleter may be called.
      CallTensorDeleter(tensor, false);
      Napi::Object mismatch = Napi::Object::New(env);
      Napi::Array version = Napi::Array::New(env, 2);
      version.Set(0u, Napi::Number::New(env, major));
      version.Set(1u, Napi::Number::New(env, minor));
      mismatch.Set("versionMismatch", version);
      return mismatch;
    }
    flags = v->flags;
    t = &v->dl_tensor;
  }
  auto* rec = new ImportRec{tensor, legacy};
  rec->state = s;
  s->imports.insert(rec);
  rec->owners = 1;
  Napi::External<ImportRec> handle = Napi::External<ImportRec>::New(env, rec, [](Napi::Env e, ImportRec* r) {
    if (!r->buffer_owned) ReleaseImport(e, r);
    DropImportOwner(e, r);
  });

  Napi::Object fields = Napi::Object::New(env);
  fields.Set("handle", handle);
  fields.Set("legacy", Napi::Boolean::New(env, legacy));
  Napi::Object version = Napi::Object::New(env);
  version.Set("major", Napi::Number::New(env, major));
  version.Set("minor", Napi::Number::New(env, minor));
  fields.Set("version", version);
  fields.Set("flags", Napi::Number::New(env, static_cast<double>(flags)));
  Napi::Object device = Napi::Object::New(env);
  device.Set("type", Napi::Number::New(env, t->device.device_type));
  device.Set("id", Napi::Number::New(env, t->device.device_id));
  fields.Set("device", device);
  Napi::Object dtype = Napi::Object::New(env);
  dtype.Set("code", Napi::Number::New(env, t->dtype.code));
  dtype.Set("bits", Napi::Number::New(env, t->dtype.bits));
  dtype.Set("lanes", Napi::Number::New(env, t->dtype.lanes));
  fields.Set("dtype", dtype);
  int32_t ndim = t->ndim;
  if (ndim < 0 || (ndim > 0 && t->shape == nullptr)) {
    fields.Set("invalid", Napi::String::New(env, "the tensor has a negative ndim or no shape"));
    return fields;
  }
  Napi::Array shape = Napi::Array::New(env, ndim);
  for (int32_t i = 0; i < ndim; i++) shape.Set(static_cast<uint32_t>(i), Napi::Number::New(env, static_cast<double>(t->shape[i])));
  fields.Set("shape", shape);
  if (t->strides == nullptr) {
    fields.Set("strides", env.Null());  // compact row-major, as producers before 1.2 may say
  } else {
    Napi::Array strides = Napi::Array::New(env, ndim);
    for (int32_t i = 0; i < ndim; i++) strides.Set(static_cast<uint32_t>(i), Napi::Number::New(env, static_cast<double>(t->strides[i])));
    fields.Set("strides", strides);
  }

  // Host memory becomes an ArrayBuffer over the producer's memory (zero-copy);
  // every other device keeps a bigint address.
  bool lent = false;
  if (t->device.device_type == kDLCPU && t->data != nullptr) {
    int64_t lo = 0, hi = 0;
    bool empty = false;
    for (int32_t i = 0; i < ndim; i++) {
      int64_t extent = t->shape[i];
      int64_t stride = t->strides == nullptr ? 0 : t->strides[i];
      if (extent == 0) empty = true;
      if (t->strides == nullptr) continue;
      int64_t reach = (extent - 1) * stride;
      if (reach < 0) lo += reach; else hi += reach;
    }
    if (t->strides == nullptr) {
      int64_t count = 1;
      for (int32_t i = 0; i < ndim; i++) count *= t->shape[i];
      hi = count - 1;
    }
    uint64_t bits = static_cast<uint64_t>(t->dtype.bits) * t->dtype.lanes;
    if ((flags & DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED) != 0) bits = ((bits + 7) / 8) * 8;
    if (!empty && bits % 8 == 0) {
      int64_t itemsize = static_cast<int64_t>(bits / 8);
      char* first = static_cast<char*>(t->data) + t->byte_offset + lo * itemsize;
      size_t length = static_cast<size_t>((hi - lo + 1) * itemsize);
      napi_value ab = nullptr;
      rec->owners++;
      napi_status st = napi_create_external_arraybuffer(
          env, first, length,
          [](napi_env e, void*, void* hint) {
            auto* r = static_cast<ImportRec*>(hint);
            ReleaseImport(e, r);
            DropImportOwner(e, r);
          },
          rec, &ab);
      if (st == napi_ok) {
        rec->buffer_owned = true;
        napi_create_reference(env, ab, 0, &rec->buffer_weak);
        fields.Set("data", Napi::Value(env, ab));
        fields.Set("byteOffset", Napi::Number::New(env, static_cast<double>(-lo * itemsize)));
        lent = true;
      } else {
        // Runtimes that forbid external buffers: fall back to the address.
        rec->owners--;
        bool pending = false;
        napi_is_exception_pending(env, &pending);
        if (pending) {
          napi_value ignored;
          napi_get_and_clear_last_exception(env, &ignored);
        }
      }
    }
  }
  if (!lent) {
    fields.Set("data", Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(t->data))));
    fields.Set("byteOffset", Napi::Number::New(env, static_cast<double>(t->byte_offset)));
  }
  return fields;
}

// ---- the exchange API table that memory-view offers --------------------------

EnvState* CurrentState() {
  return t_state;
}

// Moves a JS exception pending on our env to the caller's env, where the
// caller will see it (each addon has its own env; see dlpack_node.h).
void MoveExceptionTo(napi_env ours, napi_env caller) {
  bool pending = false;
  napi_is_exception_pending(ours, &pending);
  if (!pending) return;
  napi_value error = nullptr;
  napi_get_and_clear_last_exception(ours, &error);
  if (caller != nullptr) napi_throw(caller, error);
}

void ThrowOn(napi_env caller, napi_env ours, const Napi::Error& e) {
  napi_value error = e.Value();
  bool pending = false;
  napi_is_exception_pending(ours, &pending);
  if (pending) napi_get_and_clear_last_exception(ours, &error);
  if (caller != nullptr) napi_throw(caller, error);
}

void ThrowMessageOn(napi_env caller, const char* message) {
  if (caller != nullptr) napi_throw_error(caller, nullptr, message);
}

// Runs a JS callback of the state; nullptr when it threw (the error is left pending on our env).
napi_value CallJs(EnvState* s, Napi::FunctionReference& fn, size_t argc, const napi_value* argv) {
  napi_value result = nullptr;
  napi_value global = nullptr;
  napi_get_global(s->env, &global);
  napi_status st = napi_call_function(s->env, global, fn.Value(), argc, argv, &result);
  return st == napi_ok ? result : nullptr;
}

// describe(obj, owning): an owning description retains the view until the deleter.
napi_value Describe(EnvState* s, napi_value obj, bool owning) {
  napi_value argv[2] = {obj, nullptr};
  napi_get_boolean(s->env, owning, &argv[1]);
  return CallJs(s, s->describe, 2, argv);
}

int ApiAllocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                 void (*SetError)(void* error_ctx, const char* kind, const char* message)) {
  if (prototype == nullptr || out == nullptr) {
    if (SetError) SetError(error_ctx, "ValueError", "memory-view allocator: prototype and out must not be NULL");
    return -1;
  }
  if (prototype->device.device_type != kDLCPU) {
    if (SetError) SetError(error_ctx, "UnsupportedDeviceError", "memory-view allocates host (kDLCPU) memory only; it has no CUDA driver");
    return -1;
  }
  uint64_t bits = static_cast<uint64_t>(prototype->dtype.bits) * prototype->dtype.lanes;
  uint64_t count = 1;
  for (int32_t i = 0; i < prototype->ndim; i++) {
    if (prototype->shape[i] < 0) {
      if (SetError) SetError(error_ctx, "ValueError", "memory-view allocator: negative extent");
      return -1;
    }
    count *= static_cast<uint64_t>(prototype->shape[i]);
  }
  size_t bytes = static_cast<size_t>((count * bits + 7) / 8);
  size_t rounded = std::max<size_t>(256, (bytes + 255) / 256 * 256);
  void* mem = std::aligned_alloc(256, rounded);
  if (mem == nullptr) {
    if (SetError) SetError(error_ctx, "MemoryError", "memory-view allocator: out of host memory");
    return -1;
  }
  std::memset(mem, 0, rounded);
  struct Owned {
    std::vector<int64_t> shape, strides;
    void* mem;
    DLManagedTensorVersioned t;
  };
  auto* o = new Owned{};
  o->mem = mem;
  o->shape.assign(prototype->shape, prototype->shape + prototype->ndim);
  o->strides.resize(prototype->ndim);
  int64_t step = 1;
  for (int32_t i = prototype->ndim - 1; i >= 0; i--) {
    o->strides[i] = step;
    step *= o->shape[i];
  }
  o->t.version = {DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION};
  o->t.manager_ctx = o;
  o->t.deleter = [](DLManagedTensorVersioned* self) {
    auto* owned = static_cast<Owned*>(self->manager_ctx);
    std::free(owned->mem);
    delete owned;
  };
  o->t.flags = 0;
  o->t.dl_tensor.data = mem;
  o->t.dl_tensor.device = prototype->device;
  o->t.dl_tensor.ndim = prototype->ndim;
  o->t.dl_tensor.dtype = prototype->dtype;
  o->t.dl_tensor.shape = o->shape.empty() ? nullptr : o->shape.data();
  o->t.dl_tensor.strides = o->strides.empty() ? nullptr : o->strides.data();
  o->t.dl_tensor.byte_offset = 0;
  *out = &o->t;
  return 0;
}

int ApiFromObject(void* py_object, DLManagedTensorVersioned** out) {
  auto* obj = static_cast<DLPackNodeObject*>(py_object);
  EnvState* s = CurrentState();
  napi_env caller = obj == nullptr ? nullptr : obj->env;
  if (s == nullptr || obj == nullptr || out == nullptr) {
    ThrowMessageOn(caller, "memory-view exchange API: no object, no output, or called off the JS thread");
    return -1;
  }
  Napi::Env env(s->env);
  Napi::HandleScope scope(env);
  try {
    napi_value desc = Describe(s, obj->value, true);
    if (desc == nullptr) {
      MoveExceptionTo(s->env, caller);
      return -1;
    }
    ExportCtx* ctx = MakeExport(env, s, ReadDescription(env, Napi::Value(env, desc)));
    *out = &ctx->versioned;
    return 0;
  } catch (const Napi::Error& e) {
    ThrowOn(caller, s->env, e);
    return -1;
  } catch (...) {
    ThrowMessageOn(caller, "memory-view: unexpected failure while exporting a tensor");
    return -1;
  }
}

// Shape and strides that live as long as the view they describe.
struct BorrowedLayout {
  std::vector<int64_t> shape, strides;
};

int ApiDLTensorFromObject(void* py_object, DLTensor* out) {
  auto* obj = static_cast<DLPackNodeObject*>(py_object);
  EnvState* s = CurrentState();
  napi_env caller = obj == nullptr ? nullptr : obj->env;
  if (s == nullptr || obj == nullptr || out == nullptr) {
    ThrowMessageOn(caller, "memory-view exchange API: no object, no output, or called off the JS thread");
    return -1;
  }
  Napi::Env env(s->env);
  try {
    napi_value desc = Describe(s, obj->value, false);
    if (desc == nullptr) {
      MoveExceptionTo(s->env, caller);
      return -1;
    }
    Description d = ReadDescription(env, Napi::Value(env, desc));
    // The view (d.keep) outlives this call in the caller's handle scope; hang the arrays on it.
    BorrowedLayout* layout = nullptr;
    void* existing = nullptr;
    if (napi_unwrap(env, d.keep, &existing) == napi_ok && existing != nullptr) {
      layout = static_cast<BorrowedLayout*>(existing);
    } else {
      layout = new BorrowedLayout{d.shape, d.strides};
      napi_status st = napi_wrap(env, d.keep, layout, [](napi_env, void* p, void*) { delete static_cast<BorrowedLayout*>(p); }, nullptr, nullptr);
      if (st != napi_ok) {
        delete layout;
        throw Napi::Error::New(env, "memory-view: cannot attach the layout to the view");
      }
    }
    out->data = d.data;
    out->device = d.device;
    out->ndim = static_cast<int32_t>(layout->shape.size());
    out->dtype = d.dtype;
    out->shape = layout->shape.empty() ? nullptr : layout->shape.data();
    out->strides = layout->strides.empty() ? nullptr : layout->strides.data();
    out->byte_offset = d.byte_offset;
    return 0;
  } catch (const Napi::Error& e) {
    ThrowOn(caller, s->env, e);
    return -1;
  } catch (...) {
    ThrowMessageOn(caller, "memory-view: unexpected failure while describing a tensor");
    return -1;
  }
}

int ApiToObject(DLManagedTensorVersioned* tensor, void** out_py_object) {
  auto* out = reinterpret_cast<DLPackNodeObject*>(out_py_object);
  EnvState* s = CurrentState();
  napi_env caller = out == nullptr ? nullptr : out->env;
  if (s == nullptr || tensor == nullptr || out == nullptr) {
    if (tensor != nullptr && tensor->deleter != nullptr) tensor->deleter(tensor);  // its ownership was given to us
    ThrowMessageOn(caller, "memory-view exchange API: no tensor, no output, or called off the JS thread");
    return -1;
  }
  Napi::Env env(s->env);
  try {
    Napi::Object fields = DescribeImport(env, s, tensor, false);
    napi_value arg = fields;
    napi_value view = CallJs(s, s->make_view, 1, &arg);
    if (view == nullptr) {  // makeView gave the tensor back before it threw
      MoveExceptionTo(s->env, caller);
      return -1;
    }
    out->value = view;
    return 0;
  } catch (const Napi::Error& e) {
    ThrowOn(caller, s->env, e);
    return -1;
  }
}

int ApiCurrentWorkStream(DLDeviceType, int32_t, void** out_current_stream) {
  // memory-view owns no stream; NULL is the legacy default stream for CUDA.
  if (out_current_stream != nullptr) *out_current_stream = nullptr;
  return 0;
}

const DLPackExchangeAPI g_api = {
    {{DLPACK_MAJOR_VERSION, DLPACK_MINOR_VERSION}, nullptr},
    ApiAllocator,
    ApiFromObject,
    ApiToObject,
    ApiDLTensorFromObject,
    ApiCurrentWorkStream,
};

// ---- functions for src/native ------------------------------------------------------

EnvState* State(const Napi::CallbackInfo& info) {
  return static_cast<EnvState*>(info.Data());
}

// setCallbacks(describe, makeView)
Napi::Value SetCallbacks(const Napi::CallbackInfo& info) {
  EnvState* s = State(info);
  s->describe = Napi::Persistent(info[0].As<Napi::Function>());
  s->make_view = Napi::Persistent(info[1].As<Napi::Function>());
  return info.Env().Undefined();
}

// exportTensor(description, legacy) -> External slot
Napi::Value ExportTensor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  EnvState* s = State(info);
  bool legacy = info[1].ToBoolean().Value();
  ExportCtx* ctx = MakeExport(env, s, ReadDescription(env, info[0]));
  void* tensor = legacy ? static_cast<void*>(&ctx->legacy) : static_cast<void*>(&ctx->versioned);
  return MakeSlot(env, s, tensor, legacy);
}

// importTensor(slot External, legacy) -> fields | { versionMismatch } | null (slot already taken)
Napi::Value ImportTensor(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsExternal()) throw Napi::TypeError::New(env, "expected an External that holds a DLPack tensor slot");
  void** slot = static_cast<void**>(info[0].As<Napi::External<void>>().Data());
  if (slot == nullptr || *slot == nullptr) return env.Null();
  void* tensor = *slot;
  *slot = nullptr;  // taken: the slot's finalizer will not call the deleter
  return DescribeImport(env, State(info), tensor, info[1].ToBoolean().Value());
}

// release(handle): the deleter of an import, now (exactly once)
Napi::Value Release(const Napi::CallbackInfo& info) {
  auto* rec = info[0].As<Napi::External<ImportRec>>().Data();
  ReleaseImport(info.Env(), rec);
  return info.Env().Undefined();
}

const DLPackExchangeAPI* ApiOf(Napi::Env env, const Napi::Value& v) {
  if (!v.IsExternal()) throw Napi::TypeError::New(env, "Symbol.for('dlpack.exchange_api') must return an External to a DLPackExchangeAPI table");
  auto* api = static_cast<const DLPackExchangeAPI*>(v.As<Napi::External<void>>().Data());
  if (api == nullptr) throw Napi::TypeError::New(env, "the exchange API External is NULL");
  // Walk to a table of our major version, as the header's prev_api allows.
  const DLPackExchangeAPIHeader* h = &api->header;
  while (h != nullptr && h->version.major != DLPACK_MAJOR_VERSION) h = h->prev_api;
  if (h == nullptr) return nullptr;
  return reinterpret_cast<const DLPackExchangeAPI*>(h);
}

// exchangeApiVersion(External) -> [major, minor] of the table's head
Napi::Value ExchangeApiVersion(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!info[0].IsExternal()) throw Napi::TypeError::New(env, "expected an External");
  auto* api = static_cast<const DLPackExchangeAPI*>(info[0].As<Napi::External<void>>().Data());
  Napi::Array out = Napi::Array::New(env, 2);
  out.Set(0u, Napi::Number::New(env, api->header.version.major));
  out.Set(1u, Napi::Number::New(env, api->header.version.minor));
  return out;
}

// fromExchangeApi(obj, External) -> fields | null (no table of major 1)
Napi::Value FromExchangeApi(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DLPackExchangeAPI* api = ApiOf(env, info[1]);
  if (api == nullptr) return env.Null();
  if (api->managed_tensor_from_py_object_no_sync == nullptr) throw Napi::Error::New(env, "the exchange API has no managed_tensor_from_py_object_no_sync");
  DLManagedTensorVersioned* tensor = nullptr;
  DLPackNodeObject obj{env, info[0]};
  int rc = api->managed_tensor_from_py_object_no_sync(&obj, &tensor);
  if (rc != 0 || tensor == nullptr) {
    bool pending = false;
    napi_is_exception_pending(env, &pending);
    if (pending) return env.Undefined();  // the producer's own error propagates
    throw Napi::Error::New(env, "the object's exchange API failed to export it (managed_tensor_from_py_object_no_sync returned " + std::to_string(rc) + ")");
  }
  return DescribeImport(env, State(info), tensor, false);
}

// currentWorkStream(External, deviceType, deviceId) -> bigint
Napi::Value CurrentWorkStream(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const DLPackExchangeAPI* api = ApiOf(env, info[0]);
  if (api == nullptr || api->current_work_stream == nullptr) throw Napi::Error::New(env, "the exchange API has no current_work_stream of major version 1");
  void* stream = nullptr;
  int rc = api->current_work_stream(static_cast<DLDeviceType>(info[1].As<Napi::Number>().Int32Value()), info[2].As<Napi::Number>().Int32Value(), &stream);
  if (rc != 0) throw Napi::Error::New(env, "current_work_stream failed (" + std::to_string(rc) + ")");
  return Napi::BigInt::New(env, static_cast<uint64_t>(reinterpret_cast<uintptr_t>(stream)));
}

// counts() -> { exports, slots, imports }: what is alive, for tests
Napi::Value Counts(const Napi::CallbackInfo& info) {
  EnvState* s = State(info);
  Napi::Object out = Napi::Object::New(info.Env());
  long exports;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    exports = s->live_exports;
  }
  out.Set("exports", Napi::Number::New(info.Env(), static_cast<double>(exports)));
  out.Set("slots", Napi::Number::New(info.Env(), static_cast<double>(s->slots.size())));
  out.Set("imports", Napi::Number::New(info.Env(), static_cast<double>(s->imports.size())));
  return out;
}

void CallJsDeleteExport(napi_env env, napi_value, void*, void* data) {
  auto* ctx = static_cast<ExportCtx*>(data);
  if (env == nullptr) {
    delete ctx;  // the function is being torn down
    return;
  }
  FreeExportOnJsThread(env, ctx);
}

// At exit: every tensor still owned here gets its deleter, once.
void Cleanup(void* arg) {
  auto* s = static_cast<EnvState*>(arg);
  std::vector<Slot*> slots(s->slots.begin(), s->slots.end());
  for (Slot* slot : slots) {
    void* tensor = slot->tensor;
    slot->tensor = nullptr;
    CallTensorDeleter(tensor, slot->legacy);
  }
  s->slots.clear();
  std::vector<ImportRec*> imports(s->imports.begin(), s->imports.end());
  for (ImportRec* r : imports) ReleaseImport(nullptr, r);
  s->imports.clear();
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_live_envs.erase(s);
  }
  if (s->tsfn != nullptr) napi_release_threadsafe_function(s->tsfn, napi_tsfn_abort);
  if (t_state == s) t_state = nullptr;
  s->describe.Reset();
  s->make_view.Reset();
  // `s` itself is left: finalizers that run after this see it is no longer live.
}

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  auto* s = new EnvState();
  s->env = env;
  s->thread = std::this_thread::get_id();
  napi_value name = Napi::String::New(env, "memory-view DLPack deleter");
  napi_create_threadsafe_function(env, nullptr, nullptr, name, 0, 1, nullptr, nullptr, nullptr, CallJsDeleteExport, &s->tsfn);
  napi_unref_threadsafe_function(env, s->tsfn);  // must not keep the process alive
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_live_envs.insert(s);
  }
  t_state = s;
  napi_add_env_cleanup_hook(env, Cleanup, s);

  auto fn = [&](const char* n, Napi::Function::Callback cb) { exports.Set(n, Napi::Function::New(env, cb, n, s)); };
  fn("setCallbacks", SetCallbacks);
  fn("exportTensor", ExportTensor);
  fn("importTensor", ImportTensor);
  fn("release", Release);
  fn("fromExchangeApi", FromExchangeApi);
  fn("exchangeApiVersion", ExchangeApiVersion);
  fn("currentWorkStream", CurrentWorkStream);
  fn("counts", Counts);
  exports.Set("exchangeApi", Napi::External<void>::New(env, const_cast<DLPackExchangeAPI*>(&g_api)));
  exports.Set("dlpackVersion", Napi::Number::New(env, DLPACK_MAJOR_VERSION * 100 + DLPACK_MINOR_VERSION));
  return exports;
}

}  // namespace

NODE_API_MODULE(memory_view_dlpack, Init)
