// SPDX-License-Identifier: MIT
#include "buffers.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>

namespace maskapply::testing {

SentinelBuffer::SentinelBuffer(std::span<const float> init, size_t misalign_floats) : n_(init.size()) {
  // 16 floats = 64 bytes: vector<float> data is at least 16-byte aligned; find the 64-byte boundary by address.
  storage_.resize(n_ + 2 * kPad + 32);
  for (float& x : storage_) std::memcpy(&x, &kSentinel, sizeof x);
  const auto addr = reinterpret_cast<uintptr_t>(storage_.data() + kPad);
  const size_t to64 = ((64 - addr % 64) % 64) / sizeof(float);
  offset_ = kPad + to64 + misalign_floats % 16;
  if (n_) std::memcpy(data(), init.data(), n_ * sizeof(float));
}

std::string SentinelBuffer::check() const {
  for (size_t i = 0; i < storage_.size(); ++i) {
    if (i >= offset_ && i < offset_ + n_) continue;
    uint32_t u;
    std::memcpy(&u, &storage_[i], sizeof u);
    if (u != kSentinel) {
      const long long rel = static_cast<long long>(i) - static_cast<long long>(offset_);
      return "sentinel at offset " + std::to_string(rel) + " (array is [0, " + std::to_string(n_) +
             ")) was overwritten";
    }
  }
  return {};
}

GuardedArray::GuardedArray(size_t n, bool at_end) : pages_(n), data_(pages_.place(n, at_end)), n_(n) {}

GuardPages::GuardPages(size_t capacity) : capacity_(capacity) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  body_ = (capacity * sizeof(float) + page - 1) / page * page;
  bytes_ = body_ + 2 * page;
  base_ = mmap(nullptr, bytes_, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (base_ == MAP_FAILED) throw std::runtime_error("GuardPages: mmap failed");
  first_ = static_cast<char*>(base_) + page;
  if (body_ && mprotect(first_, body_, PROT_READ | PROT_WRITE) != 0) throw std::runtime_error("GuardPages: mprotect");
}

GuardPages::~GuardPages() {
  if (base_) munmap(base_, bytes_);
}

float* GuardPages::place(size_t n, bool at_end) {
  if (n > capacity_)
    throw std::length_error("GuardPages: " + std::to_string(n) + " floats do not fit in " +
                            std::to_string(capacity_));
  return reinterpret_cast<float*>(at_end ? first_ + body_ - n * sizeof(float) : first_);
}

}  // namespace maskapply::testing
