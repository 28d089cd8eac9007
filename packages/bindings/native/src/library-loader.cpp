// Opens each CUDA library on first use, at the path that @cuda-js/pathfinder
// found (asked through a JS function), and resolves driver entry points with
// cuGetProcAddress at explicit CUDA versions.
#include <dlfcn.h>

#include <atomic>
#include <cstdlib>
#include <mutex>

#include "nvjitlink-thread.h"
#include "runtime.h"

namespace cjs {
namespace {

// Process-wide: one dlopen handle per library, shared by every JS environment
// (the main thread and each worker_threads Worker). A handle is published
// (release) only after its path and, for the driver, its entry-point resolvers
// were written, so a reader that sees it (acquire) sees them too; the rest is
// written once under loadMutex and never changed again.
struct Library {
  std::atomic<void*> handle{nullptr};
  std::string path;
};
Library libraries[kLibCount];
std::mutex loadMutex;

using GetProcV2 = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
using GetProcV1 = CUresult (*)(const char*, void**, int, cuuint64_t);
GetProcV2 getProcV2 = nullptr;
GetProcV1 getProcV1 = nullptr;
std::atomic<int> cudaDriverVersion{0};

// Per environment: the JS helpers that setup() registered, as references of
// that environment only. Kept in the addon's instance data, which the
// environment frees (and with it the references) when it is torn down.
struct EnvHelpers {
  Napi::FunctionReference resolver;            // (name) => path; throws LibraryNotFoundError
  Napi::FunctionReference errorFactory;        // (kind, code, codeName, fn, message, log) => Error
  std::shared_ptr<HostCallChannel> hostCalls;  // made on the first host function (host-call-channel.h)
};

EnvHelpers* helpersOf(Napi::Env env) {
  if (!env) return nullptr;
  return env.GetInstanceData<EnvHelpers>();
}

/** Runs `job` where `lib` is loaded and unloaded: nvJitLink's thread for nvJitLink, this thread otherwise. */
template <class Job>
void onLoaderThread(Call& c, Lib lib, Job job) {
  if (lib == Lib::NvJitLink)
    onNvJitLinkThread(c, job);
  else
    job();
}

std::string versionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

void* openLibrary(Call& c, Lib lib) {
  Library& l = libraries[static_cast<int>(lib)];
  if (void* h = l.handle.load(std::memory_order_acquire)) return h;
  EnvHelpers* helpers = helpersOf(c.env);
  if (!helpers || helpers->resolver.IsEmpty())
    throw Napi::Error::New(c.env, "@cuda-js/bindings: the native addon was used before its JS entry set it up");
  // Pathfinder throws LibraryNotFoundError here, which reaches the caller as is.
  // No lock is held while JS runs or while the library loads (its initializers
  // may run on the nvJitLink thread, which other environments use meanwhile).
  Napi::Value path = helpers->resolver.Call({Napi::String::New(c.env, libraryName(lib))});
  if (!path.IsString()) throw Napi::Error::New(c.env, std::string("no path for library ") + libraryName(lib));
  std::string p = path.As<Napi::String>().Utf8Value();
  auto load = [&p] {
    void* handle = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    const char* why = handle ? nullptr : dlerror();  // per thread: read where dlopen ran
    return std::make_pair(handle, std::string(why ? why : "unknown error"));
  };
  // nvJitLink's initializers run on its own thread too, like every call into it.
  auto [h, why] = lib == Lib::NvJitLink ? onNvJitLinkThread(c, load) : load();
  if (!h) {
    throwValue(c.env, makeLibraryError(c.env, "load", 0, "", c.fn,
                                       std::string("could not load ") + libraryName(lib) + " from " + p + ": " + why, ""));
  }
  std::lock_guard<std::mutex> lock(loadMutex);
  if (void* first = l.handle.load(std::memory_order_acquire)) {
    // another thread opened it meanwhile: keep the first handle, drop our reference
    if (first != h) onLoaderThread(c, lib, [h] { dlclose(h); });
    return first;
  }
  l.path = p;
  if (lib == Lib::Cuda) {
    getProcV2 = reinterpret_cast<GetProcV2>(dlsym(h, "cuGetProcAddress_v2"));
    if (!getProcV2) getProcV1 = reinterpret_cast<GetProcV1>(dlsym(h, "cuGetProcAddress"));
    auto getVersion = reinterpret_cast<CUresult (*)(int*)>(dlsym(h, "cuDriverGetVersion"));
    int v = 0;
    if (getVersion) getVersion(&v);
    cudaDriverVersion.store(v, std::memory_order_release);
  }
  l.handle.store(h, std::memory_order_release);
  return h;
}

}  // namespace

const char* libraryName(Lib lib) {
  switch (lib) {
    case Lib::Cuda: return "cuda";
    case Lib::Nvrtc: return "nvrtc";
    case Lib::NvJitLink: return "nvJitLink";
    case Lib::Nvvm: return "nvvm";
    case Lib::Nvml: return "nvml";
    case Lib::Nccl: return "nccl";
  }
  return "?";
}

void initEnvironment(Napi::Env env) {
  // Freed by the environment at its teardown (node-addon-api's default finalizer deletes it).
  env.SetInstanceData<EnvHelpers>(new EnvHelpers());
}

void setHelpers(Napi::Env env, Napi::Function r, Napi::Function f) {
  EnvHelpers* helpers = helpersOf(env);
  if (!helpers) throw Napi::Error::New(env, "@cuda-js/bindings: setup() before the addon's environment was initialized");
  helpers->resolver = Napi::Persistent(r);
  helpers->errorFactory = Napi::Persistent(f);
}

std::shared_ptr<HostCallChannel>& hostCallChannelOf(Napi::Env env) {
  EnvHelpers* helpers = helpersOf(env);
  if (!helpers) throw Napi::Error::New(env, "@cuda-js/bindings: a host function before the addon's environment was initialized");
  return helpers->hostCalls;
}

Napi::Value makeLibraryError(Napi::Env env, const char* kind, long long code, const std::string& codeName, const char* fn,
                             const std::string& message, const std::string& log) {
  EnvHelpers* helpers = helpersOf(env);
  if (!helpers || helpers->errorFactory.IsEmpty()) return Napi::Error::New(env, std::string(fn) + ": " + codeName + ": " + message).Value();
  return helpers->errorFactory.Call({Napi::String::New(env, kind), Napi::Number::New(env, static_cast<double>(code)),
                                     Napi::String::New(env, codeName), Napi::String::New(env, fn), Napi::String::New(env, message),
                                     log.empty() ? env.Undefined() : Napi::String::New(env, log)});
}

bool perThreadDefaultStream() {
  // read once per process (a function-local static is initialized thread-safely)
  static const bool perThread = [] {
    const char* v = std::getenv("CUDA_JS_PER_THREAD_DEFAULT_STREAM");
    return v && v[0] && std::string(v) != "0";
  }();
  return perThread;
}

int driverVersion() {
  return cudaDriverVersion.load(std::memory_order_acquire);
}

/** nvJitLink's header maps each name to a versioned symbol (`__nvJitLinkCreate_12_0`); try those where the plain name is absent. */
void* versionedNvJitLinkSymbol(void* h, const char* symbol) {
  for (int major = 13; major >= 12; major--) {
    for (int minor = 9; minor >= 0; minor--) {
      std::string name = std::string("__") + symbol + "_" + std::to_string(major) + "_" + std::to_string(minor);
      if (void* p = dlsym(h, name.c_str())) return p;
    }
  }
  return nullptr;
}

void* librarySymbol(Call& c, Lib lib, const char* symbol) {
  void* h = openLibrary(c, lib);
  void* p = dlsym(h, symbol);
  if (!p && lib == Lib::NvJitLink) p = versionedNvJitLinkSymbol(h, symbol);
  if (!p) {
    const Library& l = libraries[static_cast<int>(lib)];
    throwValue(c.env, makeLibraryError(c.env, "missing", 0, "", c.fn,
                                       std::string(symbol) + " is not in " + l.path + " (the installed " + libraryName(lib) +
                                           " is older or newer than this function)",
                                       ""));
  }
  return p;
}

void* librarySymbolQuiet(Napi::Env, Lib lib, const char* symbol) {
  void* h = libraries[static_cast<int>(lib)].handle.load(std::memory_order_acquire);
  if (!h) return nullptr;
  void* p = dlsym(h, symbol);
  return p || lib != Lib::NvJitLink ? p : versionedNvJitLinkSymbol(h, symbol);
}

void* driverEntryPoint(Call& c, const char* name, int version, int perThreadVersion) {
  openLibrary(c, Lib::Cuda);
  const bool pt = perThreadDefaultStream() && perThreadVersion > 0;
  const int wanted = pt && perThreadVersion > version ? perThreadVersion : version;
  const int cudaDriverVersion = driverVersion();
  const std::string where = " (driver at " + libraries[0].path + ", CUDA " + versionText(cudaDriverVersion) + ")";
  if (cudaDriverVersion && cudaDriverVersion < version) {
    throwValue(c.env, makeLibraryError(c.env, "cuda", CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", c.fn,
                                       std::string(name) + " needs a driver for CUDA " + versionText(version) +
                                           " or newer; this driver supports CUDA " + versionText(cudaDriverVersion) + where,
                                       ""));
  }
  void* fn = nullptr;
  CUresult r = CUDA_ERROR_NOT_FOUND;
  const cuuint64_t flags = pt ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : CU_GET_PROC_ADDRESS_LEGACY_STREAM;
  if (getProcV2) {
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    r = getProcV2(name, &fn, wanted, flags, &status);
    if (r == CUDA_SUCCESS && status != CU_GET_PROC_ADDRESS_SUCCESS) r = CUDA_ERROR_NOT_FOUND;
  } else if (getProcV1) {
    r = getProcV1(name, &fn, wanted, flags);
  } else {
    void* direct = dlsym(libraries[0].handle.load(std::memory_order_acquire), name);
    if (direct) return direct;
  }
  if (r != CUDA_SUCCESS || !fn) {
    throwValue(c.env,
               makeLibraryError(c.env, "cuda", CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", c.fn,
                                std::string(name) + " (CUDA " + versionText(wanted) + " entry point) is not in this driver" + where, ""));
  }
  return fn;
}

}  // namespace cjs

namespace cjs {
Napi::Value loadedLibrariesNative(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Array out = Napi::Array::New(env);
  uint32_t k = 0;
  for (int i = 0; i < kLibCount; i++) {
    if (!libraries[i].handle.load(std::memory_order_acquire)) continue;
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", libraryName(static_cast<Lib>(i)));
    o.Set("path", libraries[i].path);
    out.Set(k++, o);
  }
  return out;
}
}  // namespace cjs
