// Promise forms of the slow calls (compile, link, load, synchronize): the C
// call runs on a libuv worker thread, the result or the named error comes
// back on the main thread. Context-bound driver calls first make current, on
// the worker, the context that was current on the calling thread. nvJitLink's
// runs on the nvJitLink thread instead (nvjitlink-thread.h).
#include <functional>

#include "codecs.h"
#include "nvjitlink-thread.h"

namespace cjs {
namespace {

class CallWorker : public Napi::AsyncWorker {
 public:
  using Work = std::function<int()>;
  using Done = std::function<Napi::Value(Napi::Env)>;
  using Fail = std::function<void(Call&, int)>;

  CallWorker(Napi::Env env, const char* fn, Work work, Done done, Fail fail)
      : Napi::AsyncWorker(env, fn), fn_(fn), deferred_(Napi::Promise::Deferred::New(env)), work_(std::move(work)),
        done_(std::move(done)), fail_(std::move(fail)) {}

  Napi::Promise promise() const { return deferred_.Promise(); }

  void Execute() override { status_ = work_(); }

  void OnOK() override {
    try {
      if (status_ != 0) {
        Call c(Env(), fn_);
        fail_(c, status_);
      }
      deferred_.Resolve(done_(Env()));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    }
  }

 private:
  const char* fn_;
  Napi::Promise::Deferred deferred_;
  Work work_;
  Done done_;
  Fail fail_;
  int status_ = 0;
};

Napi::Value queue(CallWorker* w) {
  Napi::Promise p = w->promise();
  w->Queue();
  return p;
}

Napi::Value undefinedResult(Napi::Env env) {
  return env.Undefined();
}

/** The context current on this (the main) thread, and the function that makes it current on another. */
struct ContextCarry {
  CUcontext ctx = nullptr;
  decltype(&cuCtxSetCurrent) setCurrent = nullptr;

  explicit ContextCarry(Call& c) {
    using Get = decltype(&cuCtxGetCurrent);
    static Get get = nullptr;
    static decltype(&cuCtxSetCurrent) set = nullptr;
    if (!get) get = reinterpret_cast<Get>(driverEntryPoint(c, "cuCtxGetCurrent", 4000, 0));
    if (!set) set = reinterpret_cast<decltype(&cuCtxSetCurrent)>(driverEntryPoint(c, "cuCtxSetCurrent", 4000, 0));
    checkCu(c, get(&ctx));
    setCurrent = set;
  }
  CUresult apply() const { return ctx ? setCurrent(ctx) : CUDA_SUCCESS; }
};

std::vector<char> copyImage(Call& c, size_t i, const char* name) {
  Bytes b = inBytes(c, i, name);
  std::vector<char> out(b.size + 1, 0);  // a trailing NUL, as PTX text needs
  if (b.size) std::memcpy(out.data(), b.data, b.size);
  return out;
}

template <class T>
std::vector<T> copyArray(Call& c, size_t i, const char* name) {
  size_t n = 0;
  T* p = inArray<T>(c, i, name, n);
  return p ? std::vector<T>(p, p + n) : std::vector<T>();
}

std::vector<std::string> copyStrings(Call& c, size_t i, const char* name) {
  size_t n = 0;
  const char** p = inStringArray(c, i, name, n);
  std::vector<std::string> out;
  for (size_t k = 0; p && k < n; k++) out.emplace_back(p[k]);
  return out;
}

std::vector<const char*> pointersTo(const std::vector<std::string>& strings) {
  std::vector<const char*> out;
  for (const auto& s : strings) out.push_back(s.c_str());
  return out;
}

Napi::Value streamSynchronizeAsync(const Napi::CallbackInfo& info) {
  Call c(info, "cuStreamSynchronizeAsync");
  c.argCount(1, 1);
  CUstream s = inHandle<CUstream>(c, 0, "hStream");
  using F = decltype(&cuStreamSynchronize);
  static F fp = nullptr;
  if (!fp) fp = reinterpret_cast<F>(driverEntryPoint(c, "cuStreamSynchronize", 2000, 7000));
  F f = fp;
  return queue(new CallWorker(
      c.env, "cuStreamSynchronizeAsync", [f, s] { return static_cast<int>(f(s)); }, undefinedResult,
      [](Call& cc, int r) { checkCu(cc, static_cast<CUresult>(r)); }));
}

Napi::Value eventSynchronizeAsync(const Napi::CallbackInfo& info) {
  Call c(info, "cuEventSynchronizeAsync");
  c.argCount(1, 1);
  CUevent e = inHandle<CUevent>(c, 0, "hEvent");
  using F = decltype(&cuEventSynchronize);
  static F fp = nullptr;
  if (!fp) fp = reinterpret_cast<F>(driverEntryPoint(c, "cuEventSynchronize", 2000, 0));
  F f = fp;
  return queue(new CallWorker(
      c.env, "cuEventSynchronizeAsync", [f, e] { return static_cast<int>(f(e)); }, undefinedResult,
      [](Call& cc, int r) { checkCu(cc, static_cast<CUresult>(r)); }));
}

Napi::Value ctxSynchronizeAsync(const Napi::CallbackInfo& info) {
  Call c(info, "cuCtxSynchronizeAsync");
  c.argCount(0, 0);
  using F = decltype(&cuCtxSynchronize);
  static F fp = nullptr;
  if (!fp) fp = reinterpret_cast<F>(driverEntryPoint(c, "cuCtxSynchronize", 2000, 0));
  F f = fp;
  ContextCarry carry(c);
  return queue(new CallWorker(
      c.env, "cuCtxSynchronizeAsync",
      [f, carry] {
        CUresult r = carry.apply();
        return static_cast<int>(r != CUDA_SUCCESS ? r : f());
      },
      undefinedResult, [](Call& cc, int r) { checkCu(cc, static_cast<CUresult>(r)); }));
}

Napi::Value moduleLoadDataAsync(const Napi::CallbackInfo& info) {
  Call c(info, "cuModuleLoadDataAsync");
  c.argCount(1, 1);
  auto image = std::make_shared<std::vector<char>>(copyImage(c, 0, "image"));
  using F = decltype(&cuModuleLoadData);
  static F fp = nullptr;
  if (!fp) fp = reinterpret_cast<F>(driverEntryPoint(c, "cuModuleLoadData", 2000, 0));
  F f = fp;
  ContextCarry carry(c);
  auto module = std::make_shared<CUmodule>(nullptr);
  return queue(new CallWorker(
      c.env, "cuModuleLoadDataAsync",
      [f, carry, image, module] {
        CUresult r = carry.apply();
        return static_cast<int>(r != CUDA_SUCCESS ? r : f(module.get(), image->data()));
      },
      [module](Napi::Env env) { return valueTo(env, *module); }, [](Call& cc, int r) { checkCu(cc, static_cast<CUresult>(r)); }));
}

Napi::Value libraryLoadDataAsync(const Napi::CallbackInfo& info) {
  Call c(info, "cuLibraryLoadDataAsync");
  c.argCount(1, 5);
  auto image = std::make_shared<std::vector<char>>(copyImage(c, 0, "code"));
  auto jitOptions = std::make_shared<std::vector<CUjit_option>>(copyArray<CUjit_option>(c, 1, "jitOptions"));
  auto jitValues = std::make_shared<std::vector<void*>>(copyArray<void*>(c, 2, "jitOptionsValues"));
  auto libOptions = std::make_shared<std::vector<CUlibraryOption>>(copyArray<CUlibraryOption>(c, 3, "libraryOptions"));
  auto libValues = std::make_shared<std::vector<void*>>(copyArray<void*>(c, 4, "libraryOptionValues"));
  if (jitOptions->size() != jitValues->size()) c.rangeError("parameter 'jitOptionsValues'", "must have one value per jit option");
  if (libOptions->size() != libValues->size()) c.rangeError("parameter 'libraryOptionValues'", "must have one value per library option");
  using F = decltype(&cuLibraryLoadData);
  static F fp = nullptr;
  if (!fp) fp = reinterpret_cast<F>(driverEntryPoint(c, "cuLibraryLoadData", 12000, 0));
  F f = fp;
  auto library = std::make_shared<CUlibrary>(nullptr);
  return queue(new CallWorker(
      c.env, "cuLibraryLoadDataAsync",
      [=] {
        return static_cast<int>(f(library.get(), image->data(), jitOptions->data(), jitValues->data(),
                                  static_cast<unsigned int>(jitOptions->size()), libOptions->data(), libValues->data(),
                                  static_cast<unsigned int>(libOptions->size())));
      },
      [library](Napi::Env env) { return valueTo(env, *library); }, [](Call& cc, int r) { checkCu(cc, static_cast<CUresult>(r)); }));
}

Napi::Value nvrtcCompileProgramAsync(const Napi::CallbackInfo& info) {
  Call c(info, "nvrtcCompileProgramAsync");
  c.argCount(1, 2);
  nvrtcProgram prog = inHandle<nvrtcProgram>(c, 0, "prog");
  auto options = std::make_shared<std::vector<std::string>>(copyStrings(c, 1, "options"));
  using F = decltype(&nvrtcCompileProgram);
  static F fp = nullptr;
  if (!fp) fp = reinterpret_cast<F>(librarySymbol(c, Lib::Nvrtc, "nvrtcCompileProgram"));
  F f = fp;
  return queue(new CallWorker(
      c.env, "nvrtcCompileProgramAsync",
      [f, prog, options] {
        auto ptrs = pointersTo(*options);
        return static_cast<int>(f(prog, static_cast<int>(ptrs.size()), ptrs.empty() ? nullptr : ptrs.data()));
      },
      undefinedResult, [prog](Call& cc, int r) { checkNvrtc(cc, static_cast<nvrtcResult>(r), prog); }));
}

Napi::Value nvvmCompileProgramAsync(const Napi::CallbackInfo& info) {
  Call c(info, "nvvmCompileProgramAsync");
  c.argCount(1, 2);
  nvvmProgram prog = inHandle<nvvmProgram>(c, 0, "prog");
  auto options = std::make_shared<std::vector<std::string>>(copyStrings(c, 1, "options"));
  using F = decltype(&nvvmCompileProgram);
  static F fp = nullptr;
  if (!fp) fp = reinterpret_cast<F>(librarySymbol(c, Lib::Nvvm, "nvvmCompileProgram"));
  F f = fp;
  return queue(new CallWorker(
      c.env, "nvvmCompileProgramAsync",
      [f, prog, options] {
        auto ptrs = pointersTo(*options);
        return static_cast<int>(f(prog, static_cast<int>(ptrs.size()), ptrs.empty() ? nullptr : ptrs.data()));
      },
      undefinedResult, [prog](Call& cc, int r) { checkNvvm(cc, static_cast<nvvmResult>(r), prog); }));
}

Napi::Value nvJitLinkCompleteAsync(const Napi::CallbackInfo& info) {
  Call c(info, "nvJitLinkCompleteAsync");
  c.argCount(1, 1);
  nvJitLinkHandle h = inHandle<nvJitLinkHandle>(c, 0, "handle");
  using F = decltype(&nvJitLinkComplete);
  static F fp = nullptr;
  if (!fp) fp = reinterpret_cast<F>(librarySymbol(c, Lib::NvJitLink, "nvJitLinkComplete"));
  F f = fp;
  // Not a libuv worker: nvJitLink runs on its own thread only (nvjitlink-thread.h).
  auto outcome = std::make_shared<NvJitLinkOutcome>();
  return nvJitLinkPromise(
      c.env, "nvJitLinkCompleteAsync", [f, h, outcome] { *outcome = nvJitLinkOutcome(f(h), h); },
      [outcome](Napi::Env env, Napi::Promise::Deferred& d) {
        Call cc(env, "nvJitLinkCompleteAsync");
        checkNvJitLink(cc, *outcome);
        d.Resolve(env.Undefined());
      });
}

}  // namespace

void registerAsyncCalls(Napi::Env env, Napi::Object exports) {
  Napi::Object driver = exports.Get("driver").As<Napi::Object>();
  driver.Set("cuStreamSynchronizeAsync", Napi::Function::New(env, streamSynchronizeAsync, "cuStreamSynchronizeAsync"));
  driver.Set("cuEventSynchronizeAsync", Napi::Function::New(env, eventSynchronizeAsync, "cuEventSynchronizeAsync"));
  driver.Set("cuCtxSynchronizeAsync", Napi::Function::New(env, ctxSynchronizeAsync, "cuCtxSynchronizeAsync"));
  driver.Set("cuModuleLoadDataAsync", Napi::Function::New(env, moduleLoadDataAsync, "cuModuleLoadDataAsync"));
  driver.Set("cuLibraryLoadDataAsync", Napi::Function::New(env, libraryLoadDataAsync, "cuLibraryLoadDataAsync"));
  exports.Get("nvrtc").As<Napi::Object>().Set("nvrtcCompileProgramAsync", Napi::Function::New(env, nvrtcCompileProgramAsync, "nvrtcCompileProgramAsync"));
  exports.Get("nvvm").As<Napi::Object>().Set("nvvmCompileProgramAsync", Napi::Function::New(env, nvvmCompileProgramAsync, "nvvmCompileProgramAsync"));
  exports.Get("nvjitlink").As<Napi::Object>().Set("nvJitLinkCompleteAsync", Napi::Function::New(env, nvJitLinkCompleteAsync, "nvJitLinkCompleteAsync"));
}

}  // namespace cjs
