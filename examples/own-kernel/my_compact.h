// SPDX-License-Identifier: MIT
// A user's own kernel and pilot, as someone maintaining a NEON masked-apply kernel would write them, tested
// with maskapply's plug-in API. my_compact is the article's compact detour (pilot v3): compress the selected
// lanes of every non-empty register, apply f to the packed values, expand back through the list of non-empty
// registers. Its expand is unrolled by four, so the article pads that list to a multiple of four with entries
// (s = 0, idx = 0) -- which point at register 0. Each group of four loads its four registers first and stores
// them after, so when register 0 is selected and shares the last group with a padding entry, the padding store
// writes register 0's *original* value back over its result. Padded<true> is that code; Padded<false> expands
// the last k % 4 registers one by one and has no padding entry.
#pragma once

#include <maskapply/maskapply.h>

namespace mine {

using maskapply::Workspace;
namespace d = maskapply::detail;

// One span of n <= ws.capacity() elements; a tail of n % 16 goes through maskapply's blend_tail.
template <bool Padded, class F, class M>
void compact_span(float* p, size_t n, F& f, M& mask, Workspace& ws) {
  const size_t body = n & ~size_t{15};
  float* const tmp = ws.tmp();
  uint8_t* const s = ws.s();
  uint32_t* const idx = ws.idx();
  float* ptr = tmp;
  size_t k = 0;
  for (size_t i = 0; i < body; i += 16) {
    const d::Block b = d::load_block(p + i, mask);
    std::array<uint32_t, 4> code;
    ptr += d::compress_block(ptr, b, code);
    for (size_t j = 0; j < 4; ++j) {
      s[k] = static_cast<uint8_t>(code[j]);
      idx[k] = static_cast<uint32_t>(i + 4 * j);
      k += code[j] != 0;
    }
  }
  const size_t size = static_cast<size_t>(ptr - tmp);
  d::apply_packed(tmp, size, f);
  ptr = tmp;
  // Expands registers r..r+3: load all four, then store all four (the article's order).
  const auto expand_group = [&](size_t r) {
    std::array<float32x4_t, 4> old;
    for (size_t j = 0; j < 4; ++j) old[j] = vld1q_f32(p + idx[r + j]);
    size_t off = 0;
    for (size_t j = 0; j < 4; ++j) {
      const uint8x16x2_t t{{vreinterpretq_u8_f32(vld1q_f32(ptr + off)), vreinterpretq_u8_f32(old[j])}};
      const uint8x16_t ix = vld1q_u8(maskapply::kExpandTable[s[r + j] & 15].data());
      vst1q_f32(p + idx[r + j], vreinterpretq_f32_u8(vqtbl2q_u8(t, ix)));
      off += s[r + j] >> 4;
    }
    ptr += off;
  };
  if constexpr (Padded) {
    for (size_t j = 0; j < 3; ++j) s[k + j] = 0, idx[k + j] = 0;  // the article's padding
    k = (k + 3) & ~size_t{3};
    for (size_t r = 0; r < k; r += 4) expand_group(r);
  } else {
    size_t r = 0;
    for (; r + 4 <= k; r += 4) expand_group(r);
    for (; r < k; ++r) {  // the rest one at a time: no padding entry
      d::expand_store(p + idx[r], ptr, s[r]);
      ptr += s[r] >> 4;
    }
  }
  d::blend_tail(p + body, n - body, f, mask);
}

// a[i] = f(a[i]) where mask(a[i]), for any n, in spans of the workspace's capacity.
template <bool Padded, class F, class M>
void my_compact(float* a, size_t n, F f, M mask, Workspace& ws) {
  for (size_t i = 0; i < n; i += ws.capacity())
    compact_span<Padded>(a + i, std::min(ws.capacity(), n - i), f, mask, ws);
}

// A two-way pilot: per tile, count the probe at its head; blend when the count reaches d_max * probe, else
// my_compact (the fixed one). Reports each tile and its run to the observer (maskapply::Trace in tests).
template <class F, class M, class Obs>
void my_pilot(float* a, size_t n, F f, M mask, Workspace& ws, const maskapply::PilotOptions& o, Obs& obs) {
  ws.reserve(o.tile);
  const double d_max = o.d_max.value_or(0.8);
  const auto hi = static_cast<long long>(std::clamp(d_max, -2.0, 2.0) * static_cast<double>(o.probe));
  for (size_t i = 0, t = 0; i < n; i += o.tile, ++t) {
    const size_t len = std::min(o.tile, n - i);
    const size_t probe = std::min(o.probe, len);
    // Scaled to the full probe, so a short last tile is judged like the others.
    const auto count = static_cast<long long>(maskapply::density(a + i, probe, mask) * o.probe / probe);
    const bool dense = count >= hi;
    if (dense)
      maskapply::blend(a + i, len, f, mask);
    else
      my_compact<false>(a + i, len, f, mask, ws);
    maskapply::TileDecision td;
    td.index = t, td.begin = i, td.end = i + len, td.source = maskapply::CountSource::probe;
    td.count = count, td.hi = hi, td.d_max = d_max;
    obs.tile(td);
    obs.run(maskapply::Run{i, i + len, dense ? maskapply::Strategy::blend : maskapply::Strategy::compact});
  }
}

}  // namespace mine
