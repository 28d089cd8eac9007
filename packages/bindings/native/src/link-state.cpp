// cuLinkCreate and cuLinkDestroy, by hand: the driver keeps the option arrays
// that cuLinkCreate is given and writes into optionValues later, at
// cuLinkComplete (the sizes of the logs it filled, the wall time). Arrays that
// live only for the call (as generated code passes them) took that write in
// freed memory: heap corruption, seen once the driver's JIT cache was cold and
// ptxas wrote its logs. Here the arrays live as long as the link state and are
// freed by cuLinkDestroy.
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "runtime.h"

namespace cjs {
namespace {

struct LinkOptions {
  std::vector<CUjit_option> options;
  std::vector<void*> values;
};

struct LinkStates {
  std::mutex m;
  std::unordered_map<CUlinkState, std::unique_ptr<LinkOptions>> kept;
};

LinkStates& linkStates() {
  static LinkStates* states = new LinkStates();  // leaked: other threads may still link at exit
  return *states;
}

Napi::Value linkCreate(const Napi::CallbackInfo& info) {
  Call call(info, "cuLinkCreate");
  using F = decltype(&cuLinkCreate_v2);
  call.argCount(0, 2);
  size_t n1 = 0;
  CUjit_option* options = inArray<CUjit_option>(call, 0, "options", n1);
  size_t n2 = 0;
  void** values = inArray<void*>(call, 1, "optionValues", n2);
  size_t count = sharedCount(call, {{n1, "options"}, {n2, "optionValues"}});
  auto kept = std::make_unique<LinkOptions>();
  if (options != nullptr && count > 0) kept->options.assign(options, options + count);
  if (values != nullptr && count > 0) kept->values.assign(values, values + count);
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(call, "cuLinkCreate", 6050, 0); });
  CUlinkState state{};
  checkCu(call, fp(static_cast<unsigned int>(count), kept->options.empty() ? nullptr : kept->options.data(),
                   kept->values.empty() ? nullptr : kept->values.data(), &state));
  {
    std::lock_guard<std::mutex> lock(linkStates().m);
    linkStates().kept[state] = std::move(kept);
  }
  return valueTo(call.env, state);
}

Napi::Value linkDestroy(const Napi::CallbackInfo& info) {
  Call call(info, "cuLinkDestroy");
  using F = decltype(&cuLinkDestroy);
  call.argCount(1, 1);
  CUlinkState state = inHandle<CUlinkState>(call, 0, "state");
  static std::atomic<F> fpSlot{nullptr};
  F fp = resolved(fpSlot, [&] { return driverEntryPoint(call, "cuLinkDestroy", 5050, 0); });
  checkCu(call, fp(state));
  {
    std::lock_guard<std::mutex> lock(linkStates().m);
    linkStates().kept.erase(state);
  }
  return call.env.Undefined();
}

}  // namespace

void registerLinkState(Napi::Env env, Napi::Object driver) {
  driver.Set("cuLinkCreate", Napi::Function::New(env, linkCreate, "cuLinkCreate"));
  driver.Set("cuLinkDestroy", Napi::Function::New(env, linkDestroy, "cuLinkDestroy"));
}

}  // namespace cjs
