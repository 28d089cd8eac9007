// The generated bindings: one JS function per C function of the four libraries.
#include "codecs.h"
#include "nvjitlink-thread.h"

namespace cjs {
#include "../generated/functions.inc"

const GeneratedFunction* generatedFunctions(size_t* count) {
  *count = sizeof(kGeneratedFunctions) / sizeof(kGeneratedFunctions[0]);
  return kGeneratedFunctions;
}
}  // namespace cjs
