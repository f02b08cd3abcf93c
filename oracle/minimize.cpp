// SPDX-License-Identifier: MIT
#include "minimize.h"

#include <algorithm>
#include <numeric>

#include "oracle.h"

namespace maskapply::testing {

std::string oracle_failure(const Case& c) {
  const CheckResult r = run_case(c);
  return r.ok ? std::string() : r.message;
}

std::string Minimized::summary() const {
  return "minimized from n=" + std::to_string(original_n) + " tile=" + std::to_string(original_tile) + " to n=" +
         std::to_string(c.data.size()) + " tile=" + std::to_string(c.options.tile) + " in " + std::to_string(runs) +
         " runs";
}

namespace {

class Minimizer {
 public:
  Minimizer(const Failure& fails, size_t budget, const std::function<bool(float)>& selected, Minimized& m)
      : fails_(fails), budget_(budget), selected_(selected), m_(m) {}

  // Keeps cand when it still fails.
  bool keeps(const Case& cand) {
    if (m_.runs >= budget_) return false;
    ++m_.runs;
    std::string why = fails_(cand);
    if (why.empty()) return false;
    m_.c = cand, m_.why = std::move(why);
    return true;
  }
  bool out_of_budget() const { return m_.runs >= budget_; }

  // 1. Length. True when n got smaller.
  bool shrink_length() {
    const size_t n0 = m_.c.data.size();
    // a) The shortest failing prefix of at most 32 elements.
    for (size_t k = 0; k < std::min<size_t>(n0, 33); ++k)
      if (keeps(with_data(0, k))) break;
    // b) Cut the end, halving the cut: what fails at index p keeps failing in a prefix that holds p's block.
    for (size_t cut = top_power(m_.c.data.size()); cut >= 1; cut /= 2)
      while (cut < m_.c.data.size() && keeps(with_data(0, m_.c.data.size() - cut))) {
      }
    // c) Drop the front by whole periods -- blocks of 16, the workspace's pieces, tiles, and the first common
    //    multiple of each with 16 -- so every element after the cut keeps its place in a block, a piece and a
    //    tile.
    const size_t cap = m_.c.workspace ? m_.c.workspace->capacity : 0, tile = m_.c.options.tile;
    for (const size_t unit : {size_t{16}, cap, std::lcm(size_t{16}, cap), tile, std::lcm(size_t{16}, tile)}) {
      if (unit == 0) continue;
      for (size_t k = m_.c.data.size() / unit; k >= 1; k /= 2)
        while (k * unit < m_.c.data.size() && keeps(with_data(k * unit, m_.c.data.size()))) {
        }
    }
    // d) Aligned chunks anywhere: from half the array down to 16 elements (down to 1 once n <= 256).
    size_t chunk = 16;
    while (chunk * 2 <= m_.c.data.size() / 2) chunk *= 2;
    for (; chunk >= 1 && !out_of_budget(); chunk /= 2) {
      if (chunk < 16 && m_.c.data.size() > 256) break;
      for (size_t start = 0; start < m_.c.data.size() && !out_of_budget();) {
        Case cand = m_.c;
        const size_t end = std::min(start + chunk, cand.data.size());
        cand.data.erase(cand.data.begin() + static_cast<long>(start), cand.data.begin() + static_cast<long>(end));
        if (!keeps(cand)) start += chunk;
      }
    }
    return m_.c.data.size() < n0;
  }

  // 2. The tile (and the calibration blocks). True when anything changed.
  bool shrink_tile() {
    bool changed = false;
    const size_t tile0 = m_.c.options.tile;
    for (size_t t = 16; t < tile0 && !out_of_budget(); t *= 2) {
      Case cand = m_.c;
      cand.options.tile = t;
      cand.options.probe = std::min(cand.options.probe, t);
      cand.options.calib_len = std::min(cand.options.calib_len, t);
      if (cand.options.validate().empty() && keeps(cand)) {
        changed = true;
        break;
      }
    }
    for (size_t b = 0; b < m_.c.options.calib_blocks && !out_of_budget(); ++b) {
      Case cand = m_.c;
      cand.options.calib_blocks = b;
      if (keeps(cand)) {
        changed = true;
        break;
      }
    }
    return changed;
  }

  // 0. The workspace the case failed on, pinned: the default draw is a hash of the data, so without this every
  // shorter candidate would run on another capacity and garbage.
  void pin_workspace() {
    if (m_.c.workspace) return;
    Case cand = m_.c;
    cand.workspace = case_workspace(m_.c);
    keeps(cand);
  }

  // 3. The contents: misalignment 0, a workspace of the tile's capacity, then simpler values that keep each
  // element's selection.
  void shrink_contents() {
    if (m_.c.data.size() > 256) return;
    if (m_.c.misalign) {
      Case cand = m_.c;
      cand.misalign = 0;
      keeps(cand);
    }
    if (m_.c.workspace && m_.c.workspace->capacity != m_.c.options.tile) {
      Case cand = m_.c;
      cand.workspace->capacity = cand.options.tile;
      keeps(cand);
    }
    static constexpr float kSimple[] = {0.0f, 0.5f, 0.25f, 1.0f, 2.0f, -1.0f, 0.75f, 3.0f};
    for (size_t i = 0; i < m_.c.data.size() && !out_of_budget(); ++i) {
      const bool sel = selected(m_.c.data[i]);
      for (const float v : kSimple) {
        if (oracle::bits(v) == oracle::bits(m_.c.data[i])) break;  // already the simplest that works
        if (selected(v) != sel) continue;
        Case cand = m_.c;
        cand.data[i] = v;
        if (keeps(cand)) break;
      }
    }
  }

 private:
  static size_t top_power(size_t n) {  // the largest power of two <= n / 2 (1 for small n)
    size_t p = 1;
    while (p * 4 <= n) p *= 2;
    return p;
  }
  Case with_data(size_t begin, size_t end) const {
    Case cand = m_.c;
    cand.data.assign(m_.c.data.begin() + static_cast<long>(begin), m_.c.data.begin() + static_cast<long>(end));
    return cand;
  }

  bool selected(float x) const { return selected_ ? selected_(x) : oracle::selected(m_.c.mask, x); }

  const Failure& fails_;
  const size_t budget_;
  const std::function<bool(float)>& selected_;
  Minimized& m_;
};

}  // namespace

Minimized minimize(const Case& c, const Failure& fails, size_t budget, const std::function<bool(float)>& selected) {
  Minimized m;
  m.c = c, m.original_n = c.data.size(), m.original_tile = c.options.tile;
  m.runs = 1;
  m.why = fails(c);
  if (m.why.empty()) return m;
  Minimizer z(fails, budget, selected, m);
  z.pin_workspace();
  z.shrink_length();
  for (int round = 0; round < 8 && z.shrink_tile(); ++round) z.shrink_length();
  z.shrink_contents();
  z.shrink_length();  // simpler contents can make a shorter prefix fail
  return m;
}

}  // namespace maskapply::testing
