// The generated enum checks and struct conversions, for every file that needs them.
#pragma once
#include "runtime.h"

namespace cjs {
#include "../generated/enums.inc"
#include "../generated/structs.inc"
}  // namespace cjs
