// The launch fast path: a kernel's parameter pointers are built once
// (createKernelParams) over a reusable ArrayBuffer, so that a launch is one
// native call that reads ten plain arguments and converts nothing per kernel
// argument. Written against the C N-API to keep the call as cheap as it gets.
#include "codecs.h"

namespace cjs {
namespace {

const napi_type_tag kKernelParamsTag = {0x6375646a73706172ULL, 0x6b65726e656c7073ULL};

struct KernelParams {
  std::vector<void*> pointers;
  napi_ref buffer = nullptr;  // keeps the ArrayBuffer (and so the pointers) alive
};

void finalizeParams(napi_env env, void* data, void*) {
  auto* kp = static_cast<KernelParams*>(data);
  if (kp->buffer) napi_delete_reference(env, kp->buffer);
  delete kp;
}

Napi::Value createKernelParams(const Napi::CallbackInfo& info) {
  Call c(info, "createKernelParams");
  c.argCount(2, 2);
  Napi::Value b = info[0];
  Napi::ArrayBuffer buffer;
  size_t offset = 0, length = 0;
  if (b.IsArrayBuffer()) {
    buffer = b.As<Napi::ArrayBuffer>();
    length = buffer.ByteLength();
  } else if (b.IsTypedArray()) {
    auto view = b.As<Napi::TypedArray>();
    buffer = view.ArrayBuffer();
    offset = view.ByteOffset();
    length = view.ByteLength();
  } else {
    c.typeError("parameter 'buffer'", "an ArrayBuffer (or a typed array over one)", b);
  }
  if (!info[1].IsArray()) c.typeError("parameter 'offsets'", "an array of byte offsets", info[1]);
  auto offsets = info[1].As<Napi::Array>();
  auto* kp = new KernelParams();
  std::unique_ptr<KernelParams> guard(kp);
  uint8_t* base = static_cast<uint8_t*>(buffer.Data()) + offset;
  for (uint32_t i = 0; i < offsets.Length(); i++) {
    std::string what = "parameter 'offsets'[" + std::to_string(i) + "]";
    uint32_t off = numFrom<uint32_t>(c, offsets.Get(i), what);
    if (off >= length)
      c.rangeError(what, "= " + std::to_string(off) + " is past the end of the buffer (" + std::to_string(length) + " bytes)");
    kp->pointers.push_back(base + off);
  }
  napi_value external;
  NAPI_THROW_IF_FAILED(c.env, napi_create_external(c.env, kp, finalizeParams, nullptr, &external), Napi::Value());
  guard.release();
  napi_create_reference(c.env, buffer, 1, &kp->buffer);
  napi_type_tag_object(c.env, external, &kKernelParamsTag);
  return Napi::Value(c.env, external);
}

/** The parameter array of a KernelParams value, or nullptr for null; throws for anything else. */
void** paramsFrom(Call& c, napi_env env, napi_value v) {
  napi_valuetype t;
  napi_typeof(env, v, &t);
  if (t == napi_null || t == napi_undefined) return nullptr;
  bool ours = false;
  if (t == napi_external) napi_check_object_type_tag(env, v, &kKernelParamsTag, &ours);
  if (!ours) c.typeError("parameter 'kernelParams'", "the result of createKernelParams, or null", Napi::Value(env, v));
  void* data = nullptr;
  napi_get_value_external(env, v, &data);
  auto* kp = static_cast<KernelParams*>(data);
  return kp->pointers.empty() ? nullptr : kp->pointers.data();
}

bool u32Arg(napi_env env, napi_value v, uint32_t* out) {
  double d;
  if (napi_get_value_double(env, v, &d) != napi_ok) return false;
  if (!(d >= 0 && d <= 4294967295.0) || static_cast<double>(static_cast<uint32_t>(d)) != d) return false;
  *out = static_cast<uint32_t>(d);
  return true;
}

bool u64Arg(napi_env env, napi_value v, uint64_t* out) {
  bool lossless = false;
  return napi_get_value_bigint_uint64(env, v, out, &lossless) == napi_ok && lossless;
}

napi_value launchKernelSlowError(napi_env env, size_t argc, napi_value* argv) {
  // Only reached with bad input: say exactly which argument is wrong.
  Call c(Napi::Env(env), "cuLaunchKernel");
  static const char* names[] = {"f",         "gridDimX",  "gridDimY",       "gridDimZ", "blockDimX",
                                "blockDimY", "blockDimZ", "sharedMemBytes", "hStream",  "kernelParams"};
  if (argc != 10) throw Napi::TypeError::New(env, "cuLaunchKernel: expected 10 arguments, got " + std::to_string(argc));
  for (int i = 0; i < 9; i++) {
    Napi::Value v(env, argv[i]);
    std::string what = std::string("parameter '") + names[i] + "'";
    if (i == 0 || i == 8)
      addressFrom(c, v, what);
    else
      numFrom<uint32_t>(c, v, what);
  }
  paramsFrom(c, env, argv[9]);
  throw Napi::Error::New(env, "cuLaunchKernel: invalid arguments");
}

napi_value launchKernel(napi_env env, napi_callback_info cbinfo) {
  size_t argc = 11;
  napi_value argv[11];
  napi_get_cb_info(env, cbinfo, &argc, argv, nullptr, nullptr);
  try {
    uint64_t f, stream;
    uint32_t dims[7];
    bool ok = argc == 10 && u64Arg(env, argv[0], &f) && u64Arg(env, argv[8], &stream);
    for (int i = 0; ok && i < 7; i++) ok = u32Arg(env, argv[i + 1], &dims[i]);
    if (!ok) return launchKernelSlowError(env, argc, argv);
    Call c(Napi::Env(env), "cuLaunchKernel");
    void** params = paramsFrom(c, env, argv[9]);
    using F = decltype(&cuLaunchKernel);
    static std::atomic<F> fpSlot{nullptr};
    F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuLaunchKernel", 4000, 7000); });
    CUresult r = fp(reinterpret_cast<CUfunction>(static_cast<uintptr_t>(f)), dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], dims[6],
                    reinterpret_cast<CUstream>(static_cast<uintptr_t>(stream)), params, nullptr);
    if (r != CUDA_SUCCESS) checkCu(c, r);
  } catch (const Napi::Error& e) {
    e.ThrowAsJavaScriptException();
  }
  return nullptr;
}

Napi::Value launchKernelEx(const Napi::CallbackInfo& info) {
  Call c(info, "cuLaunchKernelEx");
  c.argCount(3, 3);
  Napi::Value cfg = info[0];
  if (!cfg.IsObject()) c.typeError("parameter 'config'", "an object", cfg);
  Napi::Object o = cfg.As<Napi::Object>();
  CUlaunchConfig config{};
  static const char* dimNames[] = {"gridDimX", "gridDimY", "gridDimZ", "blockDimX", "blockDimY", "blockDimZ"};
  unsigned int* dims[] = {&config.gridDimX, &config.gridDimY, &config.gridDimZ, &config.blockDimX, &config.blockDimY, &config.blockDimZ};
  for (int i = 0; i < 6; i++)
    *dims[i] = has(o, dimNames[i]) ? numFrom<unsigned int>(c, o.Get(dimNames[i]), std::string("config.") + dimNames[i]) : 1;
  if (has(o, "sharedMemBytes")) config.sharedMemBytes = numFrom<unsigned int>(c, o.Get("sharedMemBytes"), "config.sharedMemBytes");
  if (has(o, "hStream"))
    config.hStream = reinterpret_cast<CUstream>(static_cast<uintptr_t>(addressFrom(c, o.Get("hStream"), "config.hStream")));
  if (has(o, "attrs")) {
    Napi::Value a = o.Get("attrs");
    if (!a.IsArray()) c.typeError("config.attrs", "an array of { id, value }", a);
    auto arr = a.As<Napi::Array>();
    CUlaunchAttribute* attrs = c.alloc<CUlaunchAttribute>(arr.Length());
    for (uint32_t i = 0; i < arr.Length(); i++) {
      std::string what = "config.attrs[" + std::to_string(i) + "]";
      Napi::Value e = arr.Get(i);
      if (!e.IsObject()) c.typeError(what, "an object { id, value }", e);
      Napi::Object eo = e.As<Napi::Object>();
      attrs[i].id = numFrom<CUlaunchAttributeID>(c, eo.Get("id"), what + ".id");
      Napi::Value v = eo.Get("value");
      if (v.IsNumber()) {
        // a plain number fills the union's first int (cooperative, priority, memSyncDomain, ...)
        attrs[i].value.cooperative = numFrom<int>(c, v, what + ".value");
      } else if (!v.IsUndefined()) {
        valueFrom(c, v, attrs[i].value, what, "value");
      }
    }
    config.attrs = attrs;
    config.numAttrs = arr.Length();
  }
  CUfunction f = inHandle<CUfunction>(c, 1, "f");
  void** params = paramsFrom(c, c.env, info[2]);
  using F = decltype(&cuLaunchKernelEx);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuLaunchKernelEx", 11060, 11060); });
  checkCu(c, fp(&config, f, params, nullptr));
  return c.env.Undefined();
}

}  // namespace

void registerLaunch(Napi::Env env, Napi::Object driver) {
  driver.Set("createKernelParams", Napi::Function::New(env, createKernelParams, "createKernelParams"));
  napi_value fn;
  napi_create_function(env, "cuLaunchKernel", NAPI_AUTO_LENGTH, launchKernel, nullptr, &fn);
  driver.Set("cuLaunchKernel", Napi::Value(env, fn));
  driver.Set("cuLaunchKernelEx", Napi::Function::New(env, launchKernelEx, "cuLaunchKernelEx"));
}

}  // namespace cjs
