// Promise forms of the slow calls (compile, link, load, synchronize): the C
// call runs off the JS thread, the result or the named error comes back on
// the JS thread that asked. Compiling and loading (CPU work) run on libuv's
// pool. Waiting for the GPU (stream, event and context synchronization) runs
// on the addon's own wait threads instead, so that awaits of long kernels
// never hold libuv's few pool threads (which fs, dns and zlib need). Releases
// that may wait for the device (freeing pinned or non-pool memory, unloading
// a library) run in order on one release thread, for finalizers that must not
// block the event loop. Context-bound driver calls first make current, on the
// thread that runs them, the context that was current on the calling thread.
// nvJitLink's run on the nvJitLink thread (nvjitlink-thread.h).
#include <pthread.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>

#include "codecs.h"
#include "nvjitlink-thread.h"
#include "thread-promise.h"

namespace cjs {
namespace {

class CallWorker : public Napi::AsyncWorker {
 public:
  using Work = std::function<int()>;
  using Done = std::function<Napi::Value(Napi::Env)>;
  using Fail = std::function<void(Call&, int)>;

  CallWorker(Napi::Env env, const char* fn, Work work, Done done, Fail fail)
      : Napi::AsyncWorker(env, fn),
        fn_(fn),
        deferred_(Napi::Promise::Deferred::New(env)),
        work_(std::move(work)),
        done_(std::move(done)),
        fail_(std::move(fail)) {}

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

// ------------------------------------------------------------------ own threads
/**
 * Detached threads that run posted jobs in order of posting, up to
 * `maxThreads` at once; a thread is started when every one is busy and stays
 * for later jobs. Leaked on purpose, like the nvJitLink thread: nothing joins
 * them, exit never waits for them, and no static destructor runs under them.
 */
class ThreadPool {
 public:
  ThreadPool(const char* name, size_t maxThreads) : name_(name), max_(maxThreads) {}

  /** Queues `job`; returns why it could not, empty when queued. */
  std::string post(std::function<void()> job) {
    std::lock_guard<std::mutex> lock(m_);
    jobs_.push_back(std::move(job));
    if (jobs_.size() > idle_ && threads_ < max_) {
      try {
        std::thread(&ThreadPool::serve, this).detach();
        threads_++;
      } catch (const std::exception& e) {
        if (threads_ == 0) {
          jobs_.pop_back();
          return std::string("could not start a ") + name_ + " thread: " + e.what();
        }
        // the threads that run serve the queue
      }
    }
    ready_.notify_one();
    return "";
  }

 private:
  void serve() {
#if defined(__linux__)
    pthread_setname_np(pthread_self(), name_);  // 15 characters at most
#endif
    for (;;) {
      std::function<void()> job;
      {
        std::unique_lock<std::mutex> lock(m_);
        idle_++;
        ready_.wait(lock, [this] { return !jobs_.empty(); });
        idle_--;
        job = std::move(jobs_.front());
        jobs_.pop_front();
      }
      job();  // jobs catch what they throw
    }
  }

  const char* name_;
  const size_t max_;
  std::mutex m_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> jobs_;
  size_t threads_ = 0;
  size_t idle_ = 0;
};

/** GPU waits: one thread per concurrent wait (reused), so that waits on different streams do not queue behind each other. */
ThreadPool& waitThreads() {
  static ThreadPool* pool = new ThreadPool("cuda-js-wait", 64);
  return *pool;
}

/** Releases that may wait for the device: one thread, in order. */
ThreadPool& releaseThread() {
  static ThreadPool* pool = new ThreadPool("cuda-js-release", 1);
  return *pool;
}

/**
 * A Promise for `work` (a C call returning its status) run on `pool`: the JS
 * thread goes on at once; `settle` runs there with the status when the work is
 * done, unless that thread's environment (a Worker that ended) is gone by then.
 */
Napi::Value poolPromise(Napi::Env env, const char* name, ThreadPool& pool, std::function<int()> work,
                        std::function<void(Napi::Env, int, Napi::Promise::Deferred&)> settle) {
  auto status = std::make_shared<int>(0);
  return promiseFromThread(
      env, name, [&pool](std::function<void()> job) { return pool.post(std::move(job)); },
      [status, work = std::move(work)] { *status = work(); },
      [status, settle = std::move(settle)](Napi::Env e, Napi::Promise::Deferred& d) { settle(e, *status, d); });
}

void settleCu(const char* fn, Napi::Env env, int r, Napi::Promise::Deferred& d) {
  Call cc(env, fn);
  checkCu(cc, static_cast<CUresult>(r));
  d.Resolve(env.Undefined());
}

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

  /** `quiet`: without a current context to read (no cuInit yet), carry none and let the call itself fail. */
  explicit ContextCarry(Call& c, bool quiet = false) {
    using Get = decltype(&cuCtxGetCurrent);
    using Set = decltype(&cuCtxSetCurrent);
    static std::atomic<Get> getSlot{nullptr};
    static std::atomic<Set> setSlot{nullptr};
    Get get = resolved(getSlot, [&] { return driverEntryPoint(c, "cuCtxGetCurrent", 4000, 0); });
    Set set = resolved(setSlot, [&] { return driverEntryPoint(c, "cuCtxSetCurrent", 4000, 0); });
    CUresult r = get(&ctx);
    if (r != CUDA_SUCCESS) {
      ctx = nullptr;
      if (!quiet) checkCu(c, r);
    }
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
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuStreamSynchronize", 2000, 7000); });
  F f = fp;
  return poolPromise(
      c.env, "cuStreamSynchronizeAsync", waitThreads(), [f, s] { return static_cast<int>(f(s)); },
      [](Napi::Env env, int r, Napi::Promise::Deferred& d) { settleCu("cuStreamSynchronizeAsync", env, r, d); });
}

Napi::Value eventSynchronizeAsync(const Napi::CallbackInfo& info) {
  Call c(info, "cuEventSynchronizeAsync");
  c.argCount(1, 1);
  CUevent e = inHandle<CUevent>(c, 0, "hEvent");
  using F = decltype(&cuEventSynchronize);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuEventSynchronize", 2000, 0); });
  F f = fp;
  return poolPromise(
      c.env, "cuEventSynchronizeAsync", waitThreads(), [f, e] { return static_cast<int>(f(e)); },
      [](Napi::Env env, int r, Napi::Promise::Deferred& d) { settleCu("cuEventSynchronizeAsync", env, r, d); });
}

Napi::Value ctxSynchronizeAsync(const Napi::CallbackInfo& info) {
  Call c(info, "cuCtxSynchronizeAsync");
  c.argCount(0, 0);
  using F = decltype(&cuCtxSynchronize);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuCtxSynchronize", 2000, 0); });
  F f = fp;
  ContextCarry carry(c);
  return poolPromise(
      c.env, "cuCtxSynchronizeAsync", waitThreads(),
      [f, carry] {
        CUresult r = carry.apply();
        return static_cast<int>(r != CUDA_SUCCESS ? r : f());
      },
      [](Napi::Env env, int r, Napi::Promise::Deferred& d) { settleCu("cuCtxSynchronizeAsync", env, r, d); });
}

Napi::Value moduleLoadDataAsync(const Napi::CallbackInfo& info) {
  Call c(info, "cuModuleLoadDataAsync");
  c.argCount(1, 1);
  auto image = std::make_shared<std::vector<char>>(copyImage(c, 0, "image"));
  using F = decltype(&cuModuleLoadData);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuModuleLoadData", 2000, 0); });
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
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(c, "cuLibraryLoadData", 12000, 0); });
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
  // held until the compile returns: destroy refuses the program meanwhile
  auto use = std::make_shared<ProgramUse>(useProgram(c, prog, "prog"));
  auto options = std::make_shared<std::vector<std::string>>(copyStrings(c, 1, "options"));
  using F = decltype(&nvrtcCompileProgram);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return librarySymbol(c, Lib::Nvrtc, "nvrtcCompileProgram"); });
  F f = fp;
  return queue(new CallWorker(
      c.env, "nvrtcCompileProgramAsync",
      [f, prog, options, use]() mutable {
        auto ptrs = pointersTo(*options);
        int r = static_cast<int>(f(prog, static_cast<int>(ptrs.size()), ptrs.empty() ? nullptr : ptrs.data()));
        use.reset();
        return r;
      },
      undefinedResult, [prog](Call& cc, int r) { checkNvrtc(cc, static_cast<nvrtcResult>(r), prog); }));
}

Napi::Value nvvmCompileProgramAsync(const Napi::CallbackInfo& info) {
  Call c(info, "nvvmCompileProgramAsync");
  c.argCount(1, 2);
  nvvmProgram prog = inHandle<nvvmProgram>(c, 0, "prog");
  auto use = std::make_shared<ProgramUse>(useProgram(c, prog, "prog"));
  auto options = std::make_shared<std::vector<std::string>>(copyStrings(c, 1, "options"));
  using F = decltype(&nvvmCompileProgram);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return librarySymbol(c, Lib::Nvvm, "nvvmCompileProgram"); });
  F f = fp;
  return queue(new CallWorker(
      c.env, "nvvmCompileProgramAsync",
      [f, prog, options, use]() mutable {
        auto ptrs = pointersTo(*options);
        int r = static_cast<int>(f(prog, static_cast<int>(ptrs.size()), ptrs.empty() ? nullptr : ptrs.data()));
        use.reset();
        return r;
      },
      undefinedResult, [prog](Call& cc, int r) { checkNvvm(cc, static_cast<nvvmResult>(r), prog); }));
}

Napi::Value nvJitLinkCompleteAsync(const Napi::CallbackInfo& info) {
  Call c(info, "nvJitLinkCompleteAsync");
  c.argCount(1, 1);
  nvJitLinkHandle h = inHandle<nvJitLinkHandle>(c, 0, "handle");
  auto use = std::make_shared<ProgramUse>(useProgram(c, h, "handle"));
  using F = decltype(&nvJitLinkComplete);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return librarySymbol(c, Lib::NvJitLink, "nvJitLinkComplete"); });
  F f = fp;
  // Not a libuv worker: nvJitLink runs on its own thread only (nvjitlink-thread.h).
  auto outcome = std::make_shared<NvJitLinkOutcome>();
  return nvJitLinkPromise(
      c.env, "nvJitLinkCompleteAsync",
      [f, h, outcome, use]() mutable {
        *outcome = nvJitLinkOutcome(f(h), h);
        use.reset();
      },
      [outcome](Napi::Env env, Napi::Promise::Deferred& d) {
        Call cc(env, "nvJitLinkCompleteAsync");
        checkNvJitLink(cc, *outcome);
        d.Resolve(env.Undefined());
      });
}

// ------------------------------------------------------------------ releases
/** A release that takes one handle or address: the C function, resolved on the JS thread. */
struct Release {
  const char* name;
  std::function<CUresult(uint64_t)> call;
};

Release releaseFor(Call& c, const Napi::Value& nameArg) {
  if (!nameArg.IsString()) c.typeError("parameter 'fn'", "the name of a release function", nameArg);
  const std::string name = nameArg.As<Napi::String>().Utf8Value();
  if (name == "cuMemFreeHost") {
    using F = decltype(&cuMemFreeHost);
    static std::atomic<F> slot{nullptr};
    F f = resolved(slot, [&] { return driverEntryPoint(c, "cuMemFreeHost", 2000, 0); });
    return {"cuMemFreeHost", [f](uint64_t h) { return f(reinterpret_cast<void*>(static_cast<uintptr_t>(h))); }};
  }
  if (name == "cuMemHostUnregister") {
    using F = decltype(&cuMemHostUnregister);
    static std::atomic<F> slot{nullptr};
    F f = resolved(slot, [&] { return driverEntryPoint(c, "cuMemHostUnregister", 4000, 0); });
    return {"cuMemHostUnregister", [f](uint64_t h) { return f(reinterpret_cast<void*>(static_cast<uintptr_t>(h))); }};
  }
  if (name == "cuMemFree") {
    using F = decltype(&cuMemFree_v2);
    static std::atomic<F> slot{nullptr};
    F f = resolved(slot, [&] { return driverEntryPoint(c, "cuMemFree", 3020, 0); });
    return {"cuMemFree", [f](uint64_t h) { return f(static_cast<CUdeviceptr>(h)); }};
  }
  if (name == "cuLibraryUnload") {
    using F = decltype(&cuLibraryUnload);
    static std::atomic<F> slot{nullptr};
    F f = resolved(slot, [&] { return driverEntryPoint(c, "cuLibraryUnload", 12000, 0); });
    return {"cuLibraryUnload", [f](uint64_t h) { return f(reinterpret_cast<CUlibrary>(static_cast<uintptr_t>(h))); }};
  }
  if (name == "cuModuleUnload") {
    using F = decltype(&cuModuleUnload);
    static std::atomic<F> slot{nullptr};
    F f = resolved(slot, [&] { return driverEntryPoint(c, "cuModuleUnload", 2000, 0); });
    return {"cuModuleUnload", [f](uint64_t h) { return f(reinterpret_cast<CUmodule>(static_cast<uintptr_t>(h))); }};
  }
  c.rangeError("parameter 'fn'",
               "must be one of cuMemFreeHost, cuMemFree, cuMemHostUnregister, cuLibraryUnload, cuModuleUnload; got '" + name + "'");
}

std::atomic<uint64_t> backgroundReleaseFailures{0};

/** `releaseInBackground(fn, handle)`: queues the release on the release thread and returns at once; a failure is only counted. */
Napi::Value releaseInBackground(const Napi::CallbackInfo& info) {
  Call c(info, "releaseInBackground");
  c.argCount(2, 2);
  Release r = releaseFor(c, info[0]);
  uint64_t handle = addressFrom(c, info[1], "parameter 'handle'");
  ContextCarry carry(c, true);
  std::string failed = releaseThread().post([r, handle, carry] {
    CUresult status = carry.apply();
    if (status == CUDA_SUCCESS) status = r.call(handle);
    if (status != CUDA_SUCCESS) backgroundReleaseFailures.fetch_add(1, std::memory_order_relaxed);
  });
  if (!failed.empty()) throw Napi::Error::New(c.env, std::string("releaseInBackground: ") + failed);
  return c.env.Undefined();
}

/** `releaseAsync(fn, handle)`: the same release on the release thread, as a Promise that rejects with the CudaError. */
Napi::Value releaseAsync(const Napi::CallbackInfo& info) {
  Call c(info, "releaseAsync");
  c.argCount(2, 2);
  Release r = releaseFor(c, info[0]);
  uint64_t handle = addressFrom(c, info[1], "parameter 'handle'");
  ContextCarry carry(c, true);
  const char* fn = r.name;
  return poolPromise(
      c.env, "releaseAsync", releaseThread(),
      [r, handle, carry] {
        CUresult status = carry.apply();
        return static_cast<int>(status != CUDA_SUCCESS ? status : r.call(handle));
      },
      [fn](Napi::Env env, int status, Napi::Promise::Deferred& d) { settleCu(fn, env, status, d); });
}

/** `backgroundReleaseFailures()`: how many background releases the driver refused (for tests and diagnostics). */
Napi::Value releaseFailures(const Napi::CallbackInfo& info) {
  return Napi::Number::New(info.Env(), static_cast<double>(backgroundReleaseFailures.load(std::memory_order_relaxed)));
}

/**
 * Test-only: `__waitThreadSleepForTests(ms)` sleeps `ms` on a wait thread, as a
 * Promise, the way the synchronize calls wait for the GPU; and
 * `__releaseThreadSleepForTests(ms)` on the release thread.
 */
Napi::Value sleepOn(const Napi::CallbackInfo& info, ThreadPool& pool, const char* name) {
  Call c(info, name);
  c.argCount(1, 1);
  const double ms = inNum<double>(c, 0, "ms");
  if (!(ms >= 0 && ms <= 60000)) c.rangeError("parameter 'ms'", "must be in [0, 60000]");
  return poolPromise(
      c.env, name, pool,
      [ms] {
        std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms));
        return 0;
      },
      [](Napi::Env env, int, Napi::Promise::Deferred& d) { d.Resolve(env.Undefined()); });
}
Napi::Value waitThreadSleep(const Napi::CallbackInfo& info) {
  return sleepOn(info, waitThreads(), "__waitThreadSleepForTests");
}
Napi::Value releaseThreadSleep(const Napi::CallbackInfo& info) {
  return sleepOn(info, releaseThread(), "__releaseThreadSleepForTests");
}

}  // namespace

void registerAsyncCalls(Napi::Env env, Napi::Object exports) {
  Napi::Object driver = exports.Get("driver").As<Napi::Object>();
  driver.Set("cuStreamSynchronizeAsync", Napi::Function::New(env, streamSynchronizeAsync, "cuStreamSynchronizeAsync"));
  driver.Set("cuEventSynchronizeAsync", Napi::Function::New(env, eventSynchronizeAsync, "cuEventSynchronizeAsync"));
  driver.Set("cuCtxSynchronizeAsync", Napi::Function::New(env, ctxSynchronizeAsync, "cuCtxSynchronizeAsync"));
  driver.Set("cuModuleLoadDataAsync", Napi::Function::New(env, moduleLoadDataAsync, "cuModuleLoadDataAsync"));
  driver.Set("cuLibraryLoadDataAsync", Napi::Function::New(env, libraryLoadDataAsync, "cuLibraryLoadDataAsync"));
  exports.Get("nvrtc").As<Napi::Object>().Set("nvrtcCompileProgramAsync",
                                              Napi::Function::New(env, nvrtcCompileProgramAsync, "nvrtcCompileProgramAsync"));
  exports.Get("nvvm").As<Napi::Object>().Set("nvvmCompileProgramAsync",
                                             Napi::Function::New(env, nvvmCompileProgramAsync, "nvvmCompileProgramAsync"));
  exports.Set("releaseInBackground", Napi::Function::New(env, releaseInBackground, "releaseInBackground"));
  exports.Set("releaseAsync", Napi::Function::New(env, releaseAsync, "releaseAsync"));
  exports.Set("backgroundReleaseFailures", Napi::Function::New(env, releaseFailures, "backgroundReleaseFailures"));
  exports.Set("__waitThreadSleepForTests", Napi::Function::New(env, waitThreadSleep, "__waitThreadSleepForTests"));
  exports.Set("__releaseThreadSleepForTests", Napi::Function::New(env, releaseThreadSleep, "__releaseThreadSleepForTests"));
  exports.Get("nvjitlink")
      .As<Napi::Object>()
      .Set("nvJitLinkCompleteAsync", Napi::Function::New(env, nvJitLinkCompleteAsync, "nvJitLinkCompleteAsync"));
}

}  // namespace cjs
