// SPDX-License-Identifier: MIT
// Workspace: the scratch buffers the article keeps as globals (tmp, s, idx). One per thread or per concurrent
// call; kernels and pilots touch no other mutable state, so calls on different workspaces are independent.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace maskapply {

class Workspace {
 public:
  // capacity: the most elements one detour pass may compress (the tile). Buffers are zero-filled. A capacity of
  // 0 is taken as 1 (pieces of one element: slow, but every kernel advances and finishes).
  explicit Workspace(size_t capacity = 4096) { reserve(capacity); }

  void reserve(size_t capacity) {
    capacity = capacity ? capacity : 1;
    if (capacity <= capacity_ && !tmp_.empty()) return;
    capacity_ = capacity;
    // tmp: compressed values; +16 for the last group of f and compress's full-register stores past the end.
    tmp_.assign(capacity + 16, 0.0f);
    s_.assign(capacity / 4 + 4, 0);
    idx_.assign(capacity / 4 + 4, 0);
  }
  size_t capacity() const { return capacity_; }
  // For tests: overwrites every byte of every buffer (all of it, slack included) with bytes from seed, so a
  // kernel that reads a slot it did not write in this call shows. Kernels never depend on the contents.
  void scribble(uint64_t seed) {
    const auto fill = [&seed](void* p, size_t bytes) {
      auto* b = static_cast<unsigned char*>(p);
      for (size_t i = 0; i < bytes; ++i) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        b[i] = static_cast<unsigned char>(seed >> 56);
      }
    };
    fill(tmp_.data(), tmp_.size() * sizeof(float));
    fill(s_.data(), s_.size());
    fill(idx_.data(), idx_.size() * sizeof(uint32_t));
  }
  float* tmp() { return tmp_.data(); }
  uint8_t* s() { return s_.data(); }
  uint32_t* idx() { return idx_.data(); }

 private:
  size_t capacity_ = 0;
  std::vector<float> tmp_;
  std::vector<uint8_t> s_;    // per register: lane mask (bits 0-3) + 16 * popcount
  std::vector<uint32_t> idx_; // compact detour: element offset of each non-empty register
};

}  // namespace maskapply
