// The host sides of cuMemcpy2D/3D (and their async, peer and graph-node
// forms): a srcHost or dstHost given as a JS buffer is checked against every
// byte the driver reads or writes through it, after the whole struct was read.
#include <limits>

#include "codecs.h"

namespace cjs {
namespace {

constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

/** a * b + c, or false where it does not fit 64 bits. */
bool mulAdd(uint64_t a, uint64_t b, uint64_t c, uint64_t& out) {
  if (a != 0 && b > kMax / a) return false;
  uint64_t product = a * b;
  if (product > kMax - c) return false;
  out = product + c;
  return true;
}

/** One host side of a copy: the bytes from the pointer that it touches. */
struct HostSide {
  const char* field;  // "srcHost"
  CUmemorytype type;
  const void* pointer;
  const Napi::Value& value;
  uint64_t x, y, z, pitch, height;  // XInBytes, Y, Z, Pitch, the height of a slice (3-D)
};

/**
 * The copy touches rows y .. y + Height - 1 of slices z .. z + Depth - 1 of
 * the side, WidthInBytes from x in each: its last byte is at
 * x + ((z + Depth - 1) * height + y + Height - 1) * pitch + WidthInBytes - 1.
 */
void checkSide(const Call& c, const HostSide& side, uint64_t width, uint64_t rows, uint64_t depth, const std::string& path) {
  if (side.type != CU_MEMORYTYPE_HOST || side.value.IsEmpty()) return;
  const uint8_t* data = nullptr;
  size_t size = 0;
  if (!hostBufferBytes(side.value, &data, &size)) return;  // a bigint address (the caller's own) or null
  const std::string what = joinPath(path, side.field);
  if (static_cast<const void*>(data) != side.pointer) {
    c.rangeError(what,
                 "is a buffer that was detached or resized while the copy's fields were read; the copy would use memory it no longer has");
  }
  if (width == 0 || rows == 0 || depth == 0) return;
  uint64_t slice = 0, row = 0, last = 0;
  bool fits =
      mulAdd(side.z + depth - 1, side.height, side.y + rows - 1, slice) && mulAdd(slice, side.pitch, side.x, row) && row <= kMax - width;
  if (fits) last = row + width;
  if (!fits || last > size) {
    c.rangeError(what, "holds " + std::to_string(size) + " bytes, but the copy " + (side.field[0] == 's' ? "reads" : "writes") +
                           (fits ? " up to byte " + std::to_string(last) : " past 2^64 bytes") +
                           " of it (XInBytes, Y, Z, Pitch, Height, WidthInBytes, Depth)");
  }
}

template <class Copy>
void check3D(const Call& c, const Copy& copy, const Napi::Value& srcHost, const Napi::Value& dstHost, const std::string& path) {
  checkSide(c,
            {"srcHost", copy.srcMemoryType, copy.srcHost, srcHost, copy.srcXInBytes, copy.srcY, copy.srcZ, copy.srcPitch, copy.srcHeight},
            copy.WidthInBytes, copy.Height, copy.Depth, path);
  checkSide(c,
            {"dstHost", copy.dstMemoryType, copy.dstHost, dstHost, copy.dstXInBytes, copy.dstY, copy.dstZ, copy.dstPitch, copy.dstHeight},
            copy.WidthInBytes, copy.Height, copy.Depth, path);
}

}  // namespace

void checkMemcpyHostBuffers(const Call& c, const CUDA_MEMCPY2D_v2& copy, const Napi::Value& srcHost, const Napi::Value& dstHost,
                            const std::string& path) {
  checkSide(c, {"srcHost", copy.srcMemoryType, copy.srcHost, srcHost, copy.srcXInBytes, copy.srcY, 0, copy.srcPitch, 0}, copy.WidthInBytes,
            copy.Height, 1, path);
  checkSide(c, {"dstHost", copy.dstMemoryType, copy.dstHost, dstHost, copy.dstXInBytes, copy.dstY, 0, copy.dstPitch, 0}, copy.WidthInBytes,
            copy.Height, 1, path);
}

void checkMemcpyHostBuffers(const Call& c, const CUDA_MEMCPY3D_v2& copy, const Napi::Value& srcHost, const Napi::Value& dstHost,
                            const std::string& path) {
  check3D(c, copy, srcHost, dstHost, path);
}

void checkMemcpyHostBuffers(const Call& c, const CUDA_MEMCPY3D_PEER_v1& copy, const Napi::Value& srcHost, const Napi::Value& dstHost,
                            const std::string& path) {
  check3D(c, copy, srcHost, dstHost, path);
}

}  // namespace cjs
