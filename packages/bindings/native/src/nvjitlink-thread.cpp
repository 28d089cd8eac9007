// The one thread that runs nvJitLink (why: nvjitlink-thread.h). A FIFO of jobs
// served by a detached thread that lives as long as the process: nothing joins
// it, so exit never waits for it, and its queue is never destroyed, so no
// static destructor runs while it waits.
#include "nvjitlink-thread.h"

#include <pthread.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

namespace cjs {
namespace {

struct Queue {
  std::mutex m;
  std::condition_variable ready;
  std::deque<std::function<void()>> jobs;
  std::atomic<size_t> size{0};  // jobs.size(), readable without the lock while spinning
  bool started = false;
};
Queue& queue() {
  static Queue* q = new Queue();  // leaked on purpose (see the top of this file)
  return *q;
}

thread_local bool isNvJitLinkThread = false;

// Calls come in bursts (create, add, complete, get, destroy), and waking a
// sleeping thread costs tens of µs on some machines: both sides spin this long
// before they sleep.
constexpr auto kSpin = std::chrono::microseconds(50);

inline void cpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

/** Spins until `ready()` or kSpin has passed; returns ready(). */
template <class Ready>
bool spinUntil(Ready ready) {
  const auto until = std::chrono::steady_clock::now() + kSpin;
  while (!ready()) {
    if (std::chrono::steady_clock::now() >= until) return false;
    for (int i = 0; i < 32; i++) cpuRelax();
  }
  return true;
}

// Linking recurses deeply (LLVM): at least the 8 MiB a main thread usually has, with room to spare.
constexpr size_t kStackBytes = size_t(16) << 20;

void* serve(void*) {
  isNvJitLinkThread = true;
#if defined(__linux__)
  pthread_setname_np(pthread_self(), "cuda-js-nvjlink");  // 15 characters at most
#endif
  Queue& q = queue();
  for (;;) {
    std::function<void()> job;
    spinUntil([&] { return q.size.load(std::memory_order_acquire) != 0; });
    {
      std::unique_lock<std::mutex> lock(q.m);
      q.ready.wait(lock, [&] { return !q.jobs.empty(); });
      job = std::move(q.jobs.front());
      q.jobs.pop_front();
      q.size.store(q.jobs.size(), std::memory_order_release);
    }
    job();  // jobs catch what they throw and hand it back to their caller
  }
  return nullptr;
}

/** Queues `job`, starting the thread on first use; returns why it could not, empty when queued. */
std::string post(std::function<void()> job) {
  Queue& q = queue();
  {
    std::lock_guard<std::mutex> lock(q.m);
    if (!q.started) {
      pthread_attr_t attr;
      pthread_attr_init(&attr);
      size_t size = 0;
      if (pthread_attr_getstacksize(&attr, &size) == 0 && size < kStackBytes) pthread_attr_setstacksize(&attr, kStackBytes);
      pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
      pthread_t thread;
      int e = pthread_create(&thread, &attr, serve, nullptr);
      pthread_attr_destroy(&attr);
      if (e != 0) return std::string("could not start the nvJitLink thread: ") + std::strerror(e);
      q.started = true;
    }
    q.jobs.push_back(std::move(job));
    q.size.store(q.jobs.size(), std::memory_order_release);
  }
  q.ready.notify_one();
  return "";
}

/** A blocked caller's side of one job; shared, so that neither side outlives it. */
struct Waiter {
  std::mutex m;
  std::condition_variable cv;
  std::atomic<bool> done{false};
  std::exception_ptr error;
};

// ------------------------------------------------------------------ test entry
double threadId() {
#if defined(__linux__)
  return static_cast<double>(syscall(SYS_gettid));
#elif defined(__APPLE__)
  uint64_t id = 0;
  pthread_threadid_np(nullptr, &id);
  return static_cast<double>(id);
#else
  return static_cast<double>(std::hash<std::thread::id>()(std::this_thread::get_id()) & ((uint64_t(1) << 53) - 1));
#endif
}

/**
 * Test-only: runs a job on the nvJitLink thread through the same two paths as
 * nvJitLink's functions (blocking, or a Promise like nvJitLinkCompleteAsync)
 * and reports `{ job, caller }`: the id of the thread that ran it and of the JS
 * thread that got the answer (kernel thread ids on Linux). `delayMs` keeps the
 * thread busy that long first.
 */
Napi::Value threadIdForTests(const Napi::CallbackInfo& info) {
  Call c(info, "__nvJitLinkThreadIdForTests");
  c.argCount(0, 2);
  Napi::Value asyncArg = c.arg(0);
  if (!asyncArg.IsUndefined() && !asyncArg.IsBoolean()) c.typeError("parameter 'async'", "a boolean", asyncArg);
  const bool async = asyncArg.IsBoolean() && asyncArg.As<Napi::Boolean>().Value();
  const double delayMs = c.length() > 1 ? inNum<double>(c, 1, "delayMs") : 0;
  if (!(delayMs >= 0 && delayMs <= 60000)) c.rangeError("parameter 'delayMs'", "must be in [0, 60000]");
  auto job = std::make_shared<double>(0);
  auto work = [job, delayMs] {
    if (delayMs > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(delayMs));
    *job = threadId();
  };
  auto report = [job](Napi::Env env) {
    Napi::Object o = Napi::Object::New(env);
    o.Set("job", *job);
    o.Set("caller", threadId());
    return o;
  };
  if (!async) {
    onNvJitLinkThread(c, work);
    return report(c.env);
  }
  return nvJitLinkPromise(c.env, "__nvJitLinkThreadIdForTests", work,
                          [report](Napi::Env env, Napi::Promise::Deferred& d) { d.Resolve(report(env)); });
}

}  // namespace

bool onTheNvJitLinkThread() {
  return isNvJitLinkThread;
}

void runOnNvJitLinkThread(Call& c, const std::function<void()>& job) {
  if (isNvJitLinkThread) return job();
  auto w = std::make_shared<Waiter>();
  std::string failed = post([w, &job] {  // `job` lives on: its caller waits below
    try {
      job();
    } catch (...) {
      w->error = std::current_exception();
    }
    std::lock_guard<std::mutex> lock(w->m);
    w->done.store(true, std::memory_order_release);
    w->cv.notify_one();
  });
  if (!failed.empty()) throw Napi::Error::New(c.env, std::string(c.fn) + ": " + failed);
  if (!spinUntil([&] { return w->done.load(std::memory_order_acquire); })) {
    std::unique_lock<std::mutex> lock(w->m);
    w->cv.wait(lock, [&] { return w->done.load(std::memory_order_acquire); });
  }
  if (!w->error) return;
  try {
    std::rethrow_exception(w->error);
  } catch (const std::exception& e) {
    throw Napi::Error::New(c.env, std::string(c.fn) + ": " + e.what());
  }
}

Napi::Promise nvJitLinkPromise(Napi::Env env, const char* name, std::function<void()> work, Settle settle) {
  return promiseFromThread(env, name, post, std::move(work), std::move(settle));
}

void registerNvJitLinkThreadForTests(Napi::Env env, Napi::Object exports) {
  exports.Set("__nvJitLinkThreadIdForTests", Napi::Function::New(env, threadIdForTests, "__nvJitLinkThreadIdForTests"));
}

}  // namespace cjs
