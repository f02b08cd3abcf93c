// SPDX-License-Identifier: MIT
// Properties 6, 7 and 8, on the parts the strategies are built from: the compress / expand tables, the density
// count, and blend_verified's bail-out.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <sstream>

#include "blend.h"
#include "buffers.h"
#include "functions.h"
#include "masks.h"
#include "support.h"

namespace maskapply::prop {
namespace {

// A register mask with lane j all-ones where bit j of m is set.
uint32x4_t lanes(unsigned m) {
  const uint32_t l[4] = {m & 1 ? ~0u : 0, m & 2 ? ~0u : 0, m & 4 ? ~0u : 0, m & 8 ? ~0u : 0};
  return vld1q_u32(l);
}

std::string hex4(const float* p) {
  std::ostringstream s;
  for (int j = 0; j < 4; ++j) s << (j ? " " : "") << oracle::hex(p[j]);
  return s.str();
}

// 6. Tables: for every 4-bit lane mask and any register, expand(f(compress(v))) equals the blend of f(v) and v;
//    compress puts the selected lanes first, in order; the lane code is mask + 16 * popcount. And for a block of
//    four registers with any masks, compress_block / f / expand_four equals the blend register by register.
RC_GTEST_PROP(Tables, expandOfFOfCompressEqualsTheBlendOfFvAndVForEveryLaneMask, ()) {
  const Fn f = *gen::any_fn();
  std::array<float, 16> v;
  for (float& x : v) x = *gen::any_float();
  std::array<unsigned, 4> block_masks;
  for (unsigned& m : block_masks) m = *rc::gen::inRange(0u, 16u);
  RC_TAG(name(f));
  visit_fn(f, [&](auto fn) {
    const float32x4_t x = vld1q_f32(v.data());
    alignas(16) float fv[4];
    vst1q_f32(fv, fn(x));
    for (unsigned m = 0; m < 16; ++m) {
      const std::string where = "f " + std::string(name(f)) + ", lane mask " + std::to_string(m) + ", register " +
                                hex4(v.data());
      const uint32_t code = maskapply::detail::lane_code(lanes(m));
      RC_ASSERT(code == m + 16u * static_cast<unsigned>(std::popcount(m)));
      alignas(16) float packed[4];
      maskapply::detail::compress_store(packed, x, code);
      for (unsigned lane = 0, out = 0; lane < 4; ++lane)
        if (m >> lane & 1u) {
          if (bits(packed[out]) != bits(v[lane]))
            RC_FAIL("compress: " + where + ": packed lane " + std::to_string(out) + " is " +
                    oracle::hex(packed[out]) + ", expected lane " + std::to_string(lane) + " " + oracle::hex(v[lane]));
          ++out;
        }
      vst1q_f32(packed, fn(vld1q_f32(packed)));
      alignas(16) float dst[4] = {v[0], v[1], v[2], v[3]};
      maskapply::detail::expand_store(dst, packed, code);
      for (unsigned lane = 0; lane < 4; ++lane) {
        const float want = (m >> lane & 1u) ? fv[lane] : v[lane];
        if (bits(dst[lane]) != bits(want))
          RC_FAIL("expand: " + where + ": lane " + std::to_string(lane) + " is " + oracle::hex(dst[lane]) +
                  ", the blend of f(v) and v is " + oracle::hex(want));
      }
    }
    // A block of four registers: the offsets between registers.
    maskapply::detail::Block b;
    for (size_t j = 0; j < 4; ++j) b.v[j] = vld1q_f32(v.data() + 4 * j), b.m[j] = lanes(block_masks[j]);
    alignas(16) float tmp[32];
    std::array<uint32_t, 4> code;
    const size_t size = maskapply::detail::compress_block(tmp, b, code);
    size_t want_size = 0;
    for (unsigned m : block_masks) want_size += static_cast<size_t>(std::popcount(m));
    RC_ASSERT(size == want_size);
    maskapply::detail::apply_packed(tmp, size, fn);
    alignas(16) std::array<float, 16> dst = v;
    maskapply::detail::expand_four({dst.data(), dst.data() + 4, dst.data() + 8, dst.data() + 12}, tmp, code);
    alignas(16) float fb[16];
    for (size_t j = 0; j < 4; ++j) vst1q_f32(fb + 4 * j, fn(b.v[j]));
    for (size_t i = 0; i < 16; ++i) {
      const float want = (block_masks[i / 4] >> (i % 4) & 1u) ? fb[i] : v[i];
      if (bits(dst[i]) != bits(want))
        RC_FAIL("block of four with lane masks " + std::to_string(block_masks[0]) + "," +
                std::to_string(block_masks[1]) + "," + std::to_string(block_masks[2]) + "," +
                std::to_string(block_masks[3]) + ", f " + std::string(name(f)) + ": element " + std::to_string(i) +
                " is " + oracle::hex(dst[i]) + ", the blend is " + oracle::hex(want));
    }
  });
}

// 7. density equals the scalar count of selected elements, for any mask, data, length and misalignment.
RC_GTEST_PROP(Density, equalsTheScalarCountOfSelectedElements, ()) {
  const std::vector<float> data = (*gen::float_array(2000)).v;
  const MaskSpec m = *gen::any_mask(data);
  const size_t mis = *rc::gen::inRange<size_t>(0, 16);
  RC_TAG(name(m.kind));
  testing::SentinelBuffer buf(data, mis);
  const size_t got = visit_mask(m, [&](auto mask) { return density(buf.data(), buf.size(), mask); });
  const size_t want = oracle::count(data.data(), data.size(), m);
  RC_ASSERT(got == want);
  RC_ASSERT(buf.check().empty());
}

// 8. blend_verified returns where it stopped; [0, stop) is processed, [stop, n) untouched; it stops after the
//    first piece (not the last) whose density is below bail * d_max, and nowhere else; its pieces are whole
//    blocks of 16 but the last, so it executes no more tails than one blend over the span.
RC_GTEST_PROP(BlendVerified, stopsExactlyAfterTheFirstBlockBelowBailTimesDmaxPrefixDoneRestUntouched, ()) {
  const Fn f = *gen::any_fn();
  const size_t tile = *rc::gen::element(size_t{16}, size_t{64}, size_t{200}, size_t{512});
  const Shaped s = *gen::tiled(tile);
  const std::vector<float>& data = s.v;
  const size_t n = data.size();
  const size_t blocks = *rc::gen::weightedOneOf<size_t>({{2, rc::gen::just<size_t>(8)},
                                                        {2, rc::gen::inRange<size_t>(0, 40)}});
  const double bail = *rc::gen::weightedElement<double>({{4, 0.75}, {1, 0.0}, {1, 0.5}, {1, 1.0}, {1, 2.0}});
  const double d_max = *gen::d_max();
  const size_t mis = *rc::gen::inRange<size_t>(0, 16);
  classify(data, s.mask);

  // The contract, element by element: pieces of whole blocks of 16, n / blocks rounded down to 16 (at least 16),
  // at most `blocks` of them, the last taking the rest (so fewer when n < 16 * blocks); blend_verified stops after
  // the first one (not the last) below bail * d_max, else at n.
  const auto stop = [&](const std::vector<float>& d) {
    const size_t size = d.size(), nb0 = blocks ? blocks : 1;
    const size_t len = std::max<size_t>(16, size / nb0 / 16 * 16);
    const size_t nb = size ? std::min(nb0, (size + len - 1) / len) : 0;
    for (size_t b = 0; b < nb; ++b) {
      const size_t begin = b * len, end = b + 1 == nb ? size : begin + len;
      const size_t cur = oracle::count(d.data() + begin, end - begin, s.mask);
      if (end < size && static_cast<double>(cur) / static_cast<double>(end - begin) < bail * d_max) return end;
    }
    return size;
  };
  const size_t stops = stop(data), first_len = std::max<size_t>(16, n / (blocks ? blocks : 1) / 16 * 16);
  RC_CLASSIFY(stops < n, "bails");
  RC_CLASSIFY(stops < n && stops > first_len, "bails after block 2+");

  // What the property checks on a case's data and misalignment. Empty when blend_verified keeps the contract.
  const auto broken = [&](const testing::Case& x) -> std::string {
    const size_t size = x.data.size(), want = stop(x.data);
    testing::SentinelBuffer buf(x.data, x.misalign);
    const size_t got = visit_fn(f, [&](auto fn) {
      return blend_verified(buf.data(), size, fn, mask::Less{s.mask.thd}, d_max, blocks, bail);
    });
    std::vector<float> expected = x.data;
    oracle::apply(expected.data(), want, f, s.mask);
    const std::string where = "blend_verified(n=" + std::to_string(size) + ", blocks=" + std::to_string(blocks) +
                              ", bail=" + std::to_string(bail) + ", d_max=" + std::to_string(d_max) + ", misalign=" +
                              std::to_string(x.misalign) + "): ";
    if (got != want)
      return where + "returned " + std::to_string(got) + ", the first block below bail * d_max ends at " +
             std::to_string(want);
    for (size_t i = 0; i < size; ++i)
      if (bits(buf.data()[i]) != bits(expected[i]))
        return where + (i < got ? "processed prefix" : "untouched rest") + " differs at " + std::to_string(i) +
               ": input " + oracle::hex(x.data[i]) + " expected " + oracle::hex(expected[i]) + " actual " +
               oracle::hex(buf.data()[i]);
    const std::string sentinel = buf.check();
    return sentinel.empty() ? sentinel : where + sentinel;
  };

  testing::Case c;  // replays the same blocks through the registry's blend_verified (one tile)
  c.kernel = Kernel::blend_verified, c.f = f, c.mask = s.mask, c.misalign = mis, c.data = data;
  c.options.verify_blocks = blocks ? blocks : 1, c.options.bail = bail, c.options.d_max = d_max;
  const auto one_tile = [](testing::Case& x) {
    x.options.tile = std::max<size_t>(16, x.data.size()), x.options.probe = std::min<size_t>(256, x.options.tile);
  };
  one_tile(c);
  if (const std::string why = broken(c); !why.empty()) {
    // Shrunk under the same blocks, bail and d_max (the tile the minimizer tries means nothing here: one tile).
    testing::Minimized m = testing::minimize(c, broken);
    if (m.why.empty()) m.c = c, m.why = why;
    one_tile(m.c);
    if (m.c.data.size() != c.data.size()) save_case(c, why, ".drawn");
    save_case(m.c, m.why + "\n" + m.summary());
    RC_FAIL(m.why + " [" + m.summary() + "]");
  }
}

}  // namespace
}  // namespace maskapply::prop
