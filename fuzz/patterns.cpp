// SPDX-License-Identifier: MIT
// Fuzz target `patterns`: the pattern-file parser (generators/pattern.h) on arbitrary text.
//
// Invariants, each checked on every input:
//   1. parse_pattern never crashes, hangs or throws, whatever the bytes;
//   2. a rejected text gets a message that says what was expected ("line L: expected ...");
//   3. an accepted pattern is well formed (period > 0 and at least its fixed segments, phase < period,
//      densities in [0, 1], raw segments of '0' / '1'), and its canonical text parses back to the same
//      pattern, which prints to the same text (parse -> print -> parse is the identity);
//   4. selected_at(p, i) agrees with selection(p, n) over the first n = min(4096, 2 * period) elements, and
//      make_data(selection, 0.5) selects exactly that selection under `a < 0.5`.
// A violation prints the input text (escaped) and the texts involved, and aborts.
//
// Input layout: the whole input is the pattern text (no FuzzedDataProvider).
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>

#include "fuzz.h"
#include "pattern.h"

using namespace maskapply;

namespace {

std::string escaped(std::string_view s) {
  std::string out;
  for (const unsigned char ch : s.substr(0, 2000)) {
    if (ch == '\n') out += "\\n\n";
    else if (ch >= 32 && ch < 127 && ch != '\\') out += static_cast<char>(ch);
    else {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", ch);
      out += b;
    }
  }
  return out;
}

[[noreturn]] void bad(std::string_view text, const std::string& what) {
  fuzz::fail("patterns", what + "\ninput text:\n" + escaped(text));
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char*** argv) {
  fuzz::set_program((*argv)[0]);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* bytes, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(bytes), size);
  gen::ParseResult r;
  try {
    r = gen::parse_pattern(text);
  } catch (const std::exception& e) {
    bad(text, std::string("parse_pattern threw: ") + e.what());
  }
  if (!r) {
    const std::string msg = r.error().message();
    if (msg.empty() || r.error().expected.empty()) bad(text, "rejected without saying what was expected: '" + msg + "'");
    return 0;
  }
  const gen::Pattern& p = r.pattern();
  uint64_t fixed = 0;
  for (size_t i = 0; i < p.segments.size(); ++i) {
    const gen::Segment& s = p.segments[i];
    if (s.kind != gen::Segment::Kind::bits && !(s.density >= 0 && s.density <= 1))
      bad(text, "accepted a density outside [0, 1]: " + std::to_string(s.density));
    if (s.kind == gen::Segment::Kind::bits && s.bits.find_first_not_of("01") != std::string::npos)
      bad(text, "accepted a raw segment with a character other than 0 and 1");
    if (!s.rest) fixed += p.segment_length(i);
  }
  if (p.segments.empty()) bad(text, "accepted a pattern without segments");
  if (p.period == 0 || p.period < fixed || p.phase >= p.period)
    bad(text, "accepted period " + std::to_string(p.period) + " with fixed segments of " + std::to_string(fixed) +
                  " and phase " + std::to_string(p.phase));

  const std::string printed = gen::to_text(p);
  const gen::ParseResult again = gen::parse_pattern(printed);
  if (!again) bad(text, "its canonical text does not parse: " + again.error().message() + "\nprinted:\n" + printed);
  if (!(again.pattern() == p)) bad(text, "parse -> print -> parse changed the pattern\nprinted:\n" + printed +
                                             "\nreprinted:\n" + gen::to_text(again.pattern()));
  if (gen::to_text(again.pattern()) != printed) bad(text, "printing is not stable\nprinted:\n" + printed);

  const size_t n = static_cast<size_t>(std::min<uint64_t>(4096, 2 * p.period));
  const std::vector<uint8_t> sel = gen::selection(p, n);
  if (sel.size() != n) bad(text, "selection(p, n) returned " + std::to_string(sel.size()) + " elements");
  for (size_t i = 0; i < n; ++i)
    if (gen::selected_at(p, i) != static_cast<bool>(sel[i]))
      bad(text, "selected_at and selection disagree at element " + std::to_string(i));
  const std::vector<float> data = gen::make_data(sel, 0.5f, p.seed);
  for (size_t i = 0; i < n; ++i)
    if ((data[i] < 0.5f) != static_cast<bool>(sel[i]))
      bad(text, "make_data(sel, 0.5) does not select element " + std::to_string(i) + " as the pattern does");
  return 0;
}
