// Opens each CUDA library on first use, at the path that @cuda-js/pathfinder
// found (asked through a JS function), and resolves driver entry points with
// cuGetProcAddress at explicit CUDA versions.
#include <dlfcn.h>

#include <cstdlib>

#include "nvjitlink-thread.h"
#include "runtime.h"

namespace cjs {
namespace {

struct Library {
  void* handle = nullptr;
  std::string path;
};
Library libraries[kLibCount];

Napi::FunctionReference resolver;      // (name) => path; throws LibraryNotFoundError
Napi::FunctionReference errorFactory;  // (kind, code, codeName, fn, message, log) => Error

using GetProcV2 = CUresult (*)(const char*, void**, int, cuuint64_t, CUdriverProcAddressQueryResult*);
using GetProcV1 = CUresult (*)(const char*, void**, int, cuuint64_t);
GetProcV2 getProcV2 = nullptr;
GetProcV1 getProcV1 = nullptr;
int cudaDriverVersion = 0;
int perThread = -1;

std::string versionText(int v) {
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

void* openLibrary(Call& c, Lib lib) {
  Library& l = libraries[static_cast<int>(lib)];
  if (l.handle) return l.handle;
  if (resolver.IsEmpty()) throw Napi::Error::New(c.env, "@cuda-js/bindings: the native addon was used before its JS entry set it up");
  // Pathfinder throws LibraryNotFoundError here, which reaches the caller as is.
  Napi::Value path = resolver.Call({Napi::String::New(c.env, libraryName(lib))});
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
  l.handle = h;
  l.path = p;
  if (lib == Lib::Cuda) {
    getProcV2 = reinterpret_cast<GetProcV2>(dlsym(h, "cuGetProcAddress_v2"));
    if (!getProcV2) getProcV1 = reinterpret_cast<GetProcV1>(dlsym(h, "cuGetProcAddress"));
    auto getVersion = reinterpret_cast<CUresult (*)(int*)>(dlsym(h, "cuDriverGetVersion"));
    if (getVersion) getVersion(&cudaDriverVersion);
  }
  return h;
}

}  // namespace

const char* libraryName(Lib lib) {
  switch (lib) {
    case Lib::Cuda: return "cuda";
    case Lib::Nvrtc: return "nvrtc";
    case Lib::NvJitLink: return "nvJitLink";
    case Lib::Nvvm: return "nvvm";
  }
  return "?";
}

void setHelpers(Napi::Env, Napi::Function r, Napi::Function f) {
  resolver = Napi::Persistent(r);
  resolver.SuppressDestruct();
  errorFactory = Napi::Persistent(f);
  errorFactory.SuppressDestruct();
}

Napi::Value makeLibraryError(Napi::Env env, const char* kind, long long code, const std::string& codeName, const char* fn,
                             const std::string& message, const std::string& log) {
  if (errorFactory.IsEmpty()) return Napi::Error::New(env, std::string(fn) + ": " + codeName + ": " + message).Value();
  return errorFactory.Call({Napi::String::New(env, kind), Napi::Number::New(env, static_cast<double>(code)),
                            Napi::String::New(env, codeName), Napi::String::New(env, fn), Napi::String::New(env, message),
                            log.empty() ? env.Undefined() : Napi::String::New(env, log)});
}

bool perThreadDefaultStream() {
  if (perThread < 0) {
    const char* v = std::getenv("CUDA_JS_PER_THREAD_DEFAULT_STREAM");
    perThread = v && v[0] && std::string(v) != "0" ? 1 : 0;
  }
  return perThread == 1;
}

int driverVersion() {
  return cudaDriverVersion;
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
                                           " is older or newer than this function)", ""));
  }
  return p;
}

void* librarySymbolQuiet(Napi::Env, Lib lib, const char* symbol) {
  void* h = libraries[static_cast<int>(lib)].handle;
  if (!h) return nullptr;
  void* p = dlsym(h, symbol);
  return p || lib != Lib::NvJitLink ? p : versionedNvJitLinkSymbol(h, symbol);
}

void* driverEntryPoint(Call& c, const char* name, int version, int perThreadVersion) {
  openLibrary(c, Lib::Cuda);
  const bool pt = perThreadDefaultStream() && perThreadVersion > 0;
  const int wanted = pt && perThreadVersion > version ? perThreadVersion : version;
  const std::string where = " (driver at " + libraries[0].path + ", CUDA " + versionText(cudaDriverVersion) + ")";
  if (cudaDriverVersion && cudaDriverVersion < version) {
    throwValue(c.env, makeLibraryError(c.env, "cuda", CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", c.fn,
                                       std::string(name) + " needs a driver for CUDA " + versionText(version) +
                                           " or newer; this driver supports CUDA " + versionText(cudaDriverVersion) + where, ""));
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
    void* direct = dlsym(libraries[0].handle, name);
    if (direct) return direct;
  }
  if (r != CUDA_SUCCESS || !fn) {
    throwValue(c.env, makeLibraryError(c.env, "cuda", CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", c.fn,
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
    if (!libraries[i].handle) continue;
    Napi::Object o = Napi::Object::New(env);
    o.Set("name", libraryName(static_cast<Lib>(i)));
    o.Set("path", libraries[i].path);
    out.Set(k++, o);
  }
  return out;
}
}  // namespace cjs
