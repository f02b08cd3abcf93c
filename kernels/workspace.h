// SPDX-License-Identifier: MIT
// Workspace: the scratch buffers the article keeps as globals (tmp, s, idx). One per thread or per concurrent
// call; kernels and pilots touch no other mutable state, so calls on different workspaces are independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

namespace maskapply {

class Workspace {
 public:
  // capacity: the most elements one detour pass may compress (the tile). A new workspace's buffers are
  // zero-filled. A capacity of 0 is taken as 1 (pieces of one element: slow, but every kernel advances and
  // finishes).
  explicit Workspace(size_t capacity = 4096) { reserve(capacity); }

  // Grows the buffers to at least capacity (never shrinks them). The new buffers are zero-filled, unless the
  // workspace was scribbled: then they hold garbage too (scribble's stream from its seed + the new capacity), so
  // a pilot or tiled_detour that grows an undersized test workspace to its tile still finds it dirty.
  void reserve(size_t capacity) {
    capacity = capacity ? capacity : 1;
    if (capacity <= capacity_ && tmp_) return;
    capacity_ = capacity;
    // tmp: compressed values; +16 for the last group of f and compress's full-register stores past the end.
    // make_unique<T[]> value-initializes: one memset per buffer.
    tmp_size_ = capacity + 16;
    slots_ = capacity / 4 + 4;
    tmp_ = std::make_unique<float[]>(tmp_size_);
    s_ = std::make_unique<uint8_t[]>(slots_);
    idx_ = std::make_unique<uint32_t[]>(slots_);
    if (hostile_) fill(garbage_ + capacity_);
  }
  size_t capacity() const { return capacity_; }
  // For tests: overwrites every byte of every buffer (all of it, slack included) with bytes from seed, so a
  // kernel that reads a slot it did not write in this call shows. Kernels never depend on the contents.
  // Byte i of the stream is the top byte of the LCG state x(i+1), x(k+1) = a x(k) + c mod 2^64, the seed x(0);
  // one stream runs through tmp, s and idx in that order. Eight bytes at a time from eight states that each
  // step by eight (x(k+8) = a^8 x(k) + c (a^7 + ... + 1)): the same bytes as one step per byte, faster.
  // From then on the workspace stays hostile: a reserve() that grows it fills the new buffers the same way.
  // (No lambda or helper inside fill: one function, so a fuzz build inlines all of it where its caller is
  // uninstrumented.)
  void scribble(uint64_t seed) {
    hostile_ = true, garbage_ = seed;
    fill(seed);
  }
  float* tmp() { return tmp_.get(); }
  uint8_t* s() { return s_.get(); }
  uint32_t* idx() { return idx_.get(); }

 private:
  void fill(uint64_t seed) {
    constexpr uint64_t a = 6364136223846793005ull, c = 1442695040888963407ull;
    uint64_t a8 = 1, c8 = 0;
    for (int j = 0; j < 8; ++j) c8 = c8 * a + c, a8 *= a;
    unsigned char* const parts[3] = {reinterpret_cast<unsigned char*>(tmp_.get()), s_.get(),
                                     reinterpret_cast<unsigned char*>(idx_.get())};
    const size_t sizes[3] = {tmp_size_ * sizeof(float), slots_, slots_ * sizeof(uint32_t)};
    for (int part = 0; part < 3; ++part) {
      unsigned char* const b = parts[part];
      const size_t bytes = sizes[part];
      size_t i = 0;
      if (bytes >= 8) {
        uint64_t x[8];
        for (int j = 0; j < 8; ++j) x[j] = seed = seed * a + c;
        for (;; i += 8) {
          for (int j = 0; j < 8; ++j) b[i + j] = static_cast<unsigned char>(x[j] >> 56);
          if (i + 16 > bytes) break;
          for (uint64_t& xj : x) xj = xj * a8 + c8;
        }
        seed = x[7];
        i += 8;
      }
      for (; i < bytes; ++i) {
        seed = seed * a + c;
        b[i] = static_cast<unsigned char>(seed >> 56);
      }
    }
  }
  size_t capacity_ = 0, tmp_size_ = 0, slots_ = 0;
  std::unique_ptr<float[]> tmp_;
  std::unique_ptr<uint8_t[]> s_;    // per register: lane mask (bits 0-3) + 16 * popcount
  std::unique_ptr<uint32_t[]> idx_; // compact detour: element offset of each non-empty register
  bool hostile_ = false;            // scribbled: growth fills with garbage from garbage_ + capacity
  uint64_t garbage_ = 0;
};

}  // namespace maskapply
