// SPDX-License-Identifier: MIT
// Selection patterns: a small line-oriented text format for "which elements does the mask select", its parser
// and canonical printer, the per-element selection it describes, and float data whose `a < thd` selection is
// exactly that pattern. docs/generators.md has the format with examples.
//
//   # the article's v4 countertest: 512 selected, 512 not, the rest of 17 tiles selected
//   period 69632
//   seg 512:1 512:0 rest:1
//
// Lines (any order, except that `seg` lines append segments in order; `#` starts a comment):
//   period N      the pattern repeats every N elements (default: the sum of the segment lengths)
//   phase K       element i takes position (i + K) mod period (default 0; 0 <= K < period)
//   seed S        seeds the random segments (default 0)
//   length N      how many elements a tool should generate when not told (default 0: the tool decides)
//   seg TOKEN...  segments: LEN:D (regular: exactly floor(LEN*D) selected, evenly spaced), LEN:~D (random:
//                 each selected with probability D), rest:D / rest:~D (whatever the others leave of the
//                 period; at most one), =BITS (raw: a string of 0 and 1, one per element)
// The parser never throws and never crashes on any bytes: a malformed text gives a ParseError naming the line.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace maskapply::gen {

struct Segment {
  enum class Kind : uint8_t { regular, random, bits };
  Kind kind = Kind::regular;
  bool rest = false;     // takes the period's remainder; length is then 0 here and resolved by Pattern
  uint64_t length = 0;   // elements (regular / random, unless rest); bits: bits.size()
  double density = 0;    // in [0, 1], regular and random
  std::string bits;      // raw: '0' / '1' per element
  friend bool operator==(const Segment&, const Segment&) = default;
};

struct Pattern {
  uint64_t period = 0;   // always resolved: > 0 and >= the sum of fixed segment lengths
  uint64_t phase = 0;
  uint64_t seed = 0;
  uint64_t length = 0;
  std::vector<Segment> segments;
  friend bool operator==(const Pattern&, const Pattern&) = default;

  // Length of segment i within the period (resolves `rest`).
  uint64_t segment_length(size_t i) const;
};

// Limits that keep every accepted pattern cheap to use: a period or length beyond them is a parse error.
inline constexpr uint64_t kMaxPeriod = uint64_t{1} << 40;
inline constexpr uint64_t kMaxLength = uint64_t{1} << 40;

struct ParseError {
  size_t line = 0;        // 1-based; 0 for errors about the whole text (e.g. no segments)
  std::string expected;   // what the parser expected there
  std::string got;        // what it found (truncated, non-printable bytes escaped)
  std::string message() const;  // "line 3: expected ..., got '...'"
};

// Either a Pattern or a ParseError; never throws.
struct ParseResult {
  std::variant<Pattern, ParseError> value;
  explicit operator bool() const { return std::holds_alternative<Pattern>(value); }
  const Pattern& pattern() const { return std::get<Pattern>(value); }
  const ParseError& error() const { return std::get<ParseError>(value); }
};

ParseResult parse_pattern(std::string_view text);

// Canonical text: `period` always, then `phase`, `seed`, `length` when not 0, then one `seg` line with every
// segment (densities printed with 17 significant digits, so they parse back to the same double).
// parse_pattern(to_text(p)) == p for every p that parse_pattern returned.
std::string to_text(const Pattern& p);

// Whether element i (i >= 0 of an array) is selected; O(segments). Defined for any Pattern, also one built by
// hand that the parser would refuse: positions the segments do not reach are unselected, a rest segment gets what
// is left of the period (or nothing), raw bits past the string are 0.
bool selected_at(const Pattern& p, uint64_t i);
// The selection of elements [0, n) as 0 / 1.
std::vector<uint8_t> selection(const Pattern& p, size_t n);

// Special values sprinkled into generated data, each kept consistent with the selection: NaN, +inf and values
// at or above thd only where unselected; -inf, -0.0 / +0.0 and subnormals only where they are below thd.
struct Specials {
  double rate = 0;       // probability that an element becomes special (where one fits)
  bool nan = true, inf = true, zero = true, subnormal = true;
  friend bool operator==(const Specials&, const Specials&) = default;
};

// Float data whose selection under `a < thd` is exactly sel: selected values uniform in (0, thd) (or just
// below thd when thd <= 0), others uniform in [thd, 1) (or just above when thd >= 1); deterministic from seed.
// thd must be neither NaN nor -inf (nothing could be selected): throws std::invalid_argument otherwise.
std::vector<float> make_data(std::span<const uint8_t> sel, float thd, uint64_t seed, const Specials& sp = {});

// A counter-based random number (splitmix64 of the mixed inputs): the same on every platform.
uint64_t mix(uint64_t a, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0);

// One input's step of mix (mix is four of them from a fixed start).
inline uint64_t mix_step(uint64_t x, uint64_t v) {
  x ^= v + 0x9e3779b97f4a7c15ull + (x << 6) + (x >> 2);
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
// mix(a, b, c, d) for many d: the state after a, b and c computed once; the same bits as mix.
class Mix3 {
 public:
  Mix3(uint64_t a, uint64_t b, uint64_t c)
      : x_(mix_step(mix_step(mix_step(0x9e3779b97f4a7c15ull, a), b), c)) {}
  uint64_t operator()(uint64_t d) const { return mix_step(x_, d); }

 private:
  uint64_t x_;
};

}  // namespace maskapply::gen
