// SPDX-License-Identifier: MIT
// Buffers that catch out-of-bounds access: sentinels around the array (writes), and arrays placed flush against
// PROT_NONE guard pages (reads and writes fault at once).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace maskapply::testing {

// n floats at a chosen misalignment (in floats from a 64-byte boundary), with kPad sentinel floats of a fixed
// NaN pattern on both sides. check() says which sentinel changed, if any.
class SentinelBuffer {
 public:
  static constexpr size_t kPad = 32;
  static constexpr uint32_t kSentinel = 0x7fa5a5a5u;  // a signalling NaN no kernel produces
  SentinelBuffer(std::span<const float> init, size_t misalign_floats = 0);
  float* data() { return storage_.data() + offset_; }
  size_t size() const { return n_; }
  std::span<float> span() { return {data(), n_}; }
  std::string check() const;  // empty when every sentinel is intact

 private:
  std::vector<float> storage_;
  size_t offset_ = 0, n_ = 0;
};

// Room for up to `capacity` floats between two PROT_NONE pages, mapped once: GuardedArray's placement (below,
// which is one of these sized to its array) without a mapping per array. place(n, at_end) returns n floats flush
// against the trailing page (at_end) or starting exactly at the leading one, so any access outside them by one
// byte faults, as with GuardedArray(n, at_end).
// For harnesses that check every input against guard pages (the fuzz targets own one each): the mmap, mprotect
// and munmap per input, and the fresh pages they fault in, cost more than a small input's whole check. What the
// region held before is not cleared; the caller writes the array.
class GuardPages {
 public:
  explicit GuardPages(size_t capacity);
  ~GuardPages();
  GuardPages(const GuardPages&) = delete;
  GuardPages& operator=(const GuardPages&) = delete;
  float* place(size_t n, bool at_end);  // n <= capacity(), else throws std::length_error
  size_t capacity() const { return capacity_; }

 private:
  void* base_ = nullptr;
  size_t bytes_ = 0, body_ = 0, capacity_ = 0;
  char* first_ = nullptr;
};

// n floats between two PROT_NONE pages. With at_end, the array ends exactly at the trailing guard page; else it
// starts exactly at the leading one. Any access outside [data, data+n) by even one byte faults.
class GuardedArray {
 public:
  GuardedArray(size_t n, bool at_end);
  float* data() { return data_; }
  size_t size() const { return n_; }
  std::span<float> span() { return {data_, n_}; }

 private:
  GuardPages pages_;  // mapped for exactly n floats
  float* data_ = nullptr;
  size_t n_ = 0;
};

}  // namespace maskapply::testing
