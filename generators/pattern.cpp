// SPDX-License-Identifier: MIT
#include "pattern.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace maskapply::gen {

uint64_t mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  // splitmix64 steps over the inputs: cheap, well mixed, identical everywhere.
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (uint64_t v : {a, b, c, d}) x = mix_step(x, v);
  return x;
}

namespace {

std::string printable(std::string_view s) {
  std::string out;
  const size_t limit = 40;
  for (size_t i = 0; i < s.size() && i < limit; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
    } else {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (s.size() > limit) out += "...";
  return out;
}

ParseError error(size_t line, std::string expected, std::string_view got) {
  return ParseError{line, std::move(expected), printable(got)};
}

// Splits a line into tokens separated by spaces and tabs.
std::vector<std::string_view> tokens(std::string_view line) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    size_t j = i;
    while (j < line.size() && line[j] != ' ' && line[j] != '\t') ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

// A decimal integer without sign; nullopt on anything else or overflow.
std::optional<uint64_t> parse_uint(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  for (char c : s)
    if (c < '0' || c > '9') return std::nullopt;
  uint64_t v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// A density: decimal digits, optional fraction and exponent, value in [0, 1].
std::optional<double> parse_density(std::string_view s) {
  if (s.empty() || s.size() > 64) return std::nullopt;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) return std::nullopt;
  if (s[0] == '-' || s[0] == '+') return std::nullopt;
  double v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v, std::chars_format::general);
  if (ec != std::errc() || ptr != s.data() + s.size()) return std::nullopt;
  if (!(v >= 0.0 && v <= 1.0)) return std::nullopt;
  if (v == 0.0) v = 0.0;  // -0 cannot occur (no sign), but keep the canonical zero
  return v;
}

std::string format_double(double v) {
  char buf[64];
  const auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, ptr) : std::string("0");
}

constexpr const char* kSegmentExpected =
    "a segment LEN:DENSITY, LEN:~DENSITY, rest:DENSITY, rest:~DENSITY or =BITS (LEN a positive integer, DENSITY "
    "in [0, 1], BITS of 0 and 1)";

std::variant<Segment, ParseError> parse_segment(size_t line, std::string_view tok) {
  Segment s;
  if (tok[0] == '=') {
    const std::string_view bits = tok.substr(1);
    if (bits.empty()) return error(line, "at least one 0 or 1 after '='", tok);
    for (char c : bits)
      if (c != '0' && c != '1') return error(line, "only 0 and 1 after '=' (raw bits)", tok);
    s.kind = Segment::Kind::bits;
    s.bits = std::string(bits);
    s.length = bits.size();
    return s;
  }
  const size_t colon = tok.find(':');
  if (colon == std::string_view::npos) return error(line, kSegmentExpected, tok);
  const std::string_view len = tok.substr(0, colon);
  std::string_view dens = tok.substr(colon + 1);
  if (len == "rest") {
    s.rest = true;
  } else {
    const auto v = parse_uint(len);
    if (!v || *v == 0) return error(line, "a segment length: a positive integer or 'rest' before ':'", tok);
    if (*v > kMaxPeriod) return error(line, "a segment length of at most 2^40", tok);
    s.length = *v;
  }
  if (!dens.empty() && dens[0] == '~') {
    s.kind = Segment::Kind::random;
    dens.remove_prefix(1);
  }
  const auto d = parse_density(dens);
  if (!d) return error(line, "a density in [0, 1] after ':' (e.g. 1, 0, 0.25, ~0.25 for random)", tok);
  s.density = *d;
  return s;
}

}  // namespace

std::string ParseError::message() const {
  std::string m = line ? "line " + std::to_string(line) + ": " : std::string("pattern: ");
  m += "expected " + expected;
  if (!got.empty() || line) m += ", got '" + got + "'";
  return m;
}

uint64_t Pattern::segment_length(size_t i) const {
  const Segment& s = segments[i];
  if (!s.rest) return s.length;
  uint64_t fixed = 0;
  for (const Segment& t : segments)
    if (!t.rest) fixed += t.length;
  return fixed < period ? period - fixed : 0;
}

ParseResult parse_pattern(std::string_view text) {
  Pattern p;
  struct Seen {
    size_t line = 0;
  };
  Seen period_seen, phase_seen, seed_seen, length_seen;
  size_t rest_line = 0, seg_lines = 0;
  uint64_t fixed = 0;
  size_t line_no = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    ++line_no;
    pos = end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (const size_t hash = line.find('#'); hash != std::string_view::npos) line = line.substr(0, hash);
    const auto tok = tokens(line);
    if (tok.empty()) {
      if (end == text.size()) break;
      continue;
    }
    const std::string_view key = tok[0];
    if (key == "period" || key == "phase" || key == "seed" || key == "length") {
      Seen& seen = key == "period" ? period_seen : key == "phase" ? phase_seen : key == "seed" ? seed_seen
                                                                                              : length_seen;
      if (seen.line)
        return {error(line_no, "at most one '" + std::string(key) + "' line (the first is line " +
                                   std::to_string(seen.line) + ")", line)};
      if (tok.size() != 2)
        return {error(line_no, "'" + std::string(key) + "' followed by exactly one non-negative integer", line)};
      const auto v = parse_uint(tok[1]);
      if (!v) return {error(line_no, "a non-negative decimal integer after '" + std::string(key) + "'", tok[1])};
      if (key == "period" && (*v == 0 || *v > kMaxPeriod))
        return {error(line_no, "a period in [1, 2^40]", tok[1])};
      if (key == "length" && *v > kMaxLength) return {error(line_no, "a length of at most 2^40", tok[1])};
      seen.line = line_no;
      (key == "period" ? p.period : key == "phase" ? p.phase : key == "seed" ? p.seed : p.length) = *v;
    } else if (key == "seg") {
      if (tok.size() < 2) return {error(line_no, std::string("at least one segment after 'seg': ") + kSegmentExpected, line)};
      ++seg_lines;
      for (size_t t = 1; t < tok.size(); ++t) {
        auto s = parse_segment(line_no, tok[t]);
        if (auto* e = std::get_if<ParseError>(&s)) return {*e};
        Segment& seg = std::get<Segment>(s);
        if (seg.rest) {
          if (rest_line) return {error(line_no, "at most one 'rest' segment (the first is on line " +
                                                  std::to_string(rest_line) + ")", tok[t])};
          rest_line = line_no;
        } else {
          fixed += seg.length;
          if (fixed > kMaxPeriod) return {error(line_no, "segments that sum to at most 2^40 elements", tok[t])};
        }
        p.segments.push_back(std::move(seg));
      }
    } else {
      return {error(line_no, "a line starting with 'period', 'phase', 'seed', 'length', 'seg' or '#'", key)};
    }
    if (end == text.size()) break;
  }
  if (!seg_lines) return {ParseError{0, "at least one 'seg' line", ""}};
  if (period_seen.line) {
    if (rest_line && fixed >= p.period)
      return {ParseError{rest_line, "room for the 'rest' segment: the other segments take " + std::to_string(fixed) +
                                        " of the period " + std::to_string(p.period) + " (line " +
                                        std::to_string(period_seen.line) + ")",
                         "rest"}};
    if (!rest_line && fixed != p.period)
      return {ParseError{period_seen.line,
                         "segments that sum to the period, or a 'rest' segment: they sum to " + std::to_string(fixed),
                         std::to_string(p.period)}};
  } else {
    if (rest_line) return {ParseError{rest_line, "a 'period' line: 'rest' needs it", "rest"}};
    p.period = fixed;
  }
  if (p.phase >= p.period)
    return {ParseError{phase_seen.line, "a phase below the period " + std::to_string(p.period),
                       std::to_string(p.phase)}};
  return {p};
}

std::string to_text(const Pattern& p) {
  std::string out = "period " + std::to_string(p.period) + "\n";
  if (p.phase) out += "phase " + std::to_string(p.phase) + "\n";
  if (p.seed) out += "seed " + std::to_string(p.seed) + "\n";
  if (p.length) out += "length " + std::to_string(p.length) + "\n";
  out += "seg";
  for (const Segment& s : p.segments) {
    out += ' ';
    if (s.kind == Segment::Kind::bits) {
      out += '=' + s.bits;
      continue;
    }
    out += s.rest ? std::string("rest") : std::to_string(s.length);
    out += s.kind == Segment::Kind::random ? ":~" : ":";
    out += format_double(s.density);
  }
  out += "\n";
  return out;
}

namespace {

// Segment starts within the period, for lookup.
struct Layout {
  std::vector<uint64_t> start;  // start[i] of segment i; start.back() == period
  explicit Layout(const Pattern& p) {
    uint64_t fixed = 0;
    for (const Segment& s : p.segments)
      if (!s.rest) fixed += s.length;
    uint64_t at = 0;
    for (const Segment& s : p.segments) {
      start.push_back(at);
      at += s.rest ? (fixed < p.period ? p.period - fixed : 0) : s.length;
    }
    start.push_back(at);
  }
};

bool segment_selects(const Pattern& p, size_t idx, uint64_t j, uint64_t rep) {
  const Segment& s = p.segments[idx];
  switch (s.kind) {
    case Segment::Kind::bits: return j < s.bits.size() && s.bits[j] == '1';
    case Segment::Kind::regular:
      // Evenly spaced: element j is selected when floor((j+1) d) steps up; exactly floor(len * d) in all.
      return std::floor(static_cast<double>(j + 1) * s.density) > std::floor(static_cast<double>(j) * s.density);
    case Segment::Kind::random: {
      if (s.density >= 1.0) return true;
      const uint64_t threshold = static_cast<uint64_t>(s.density * 18446744073709551616.0);
      return mix(p.seed, idx, rep, j) < threshold;
    }
  }
  return false;
}

bool selected_with(const Pattern& p, const Layout& l, uint64_t i) {
  const uint64_t x = i + p.phase;
  const uint64_t rep = x / p.period, pos = x % p.period;
  const size_t idx = static_cast<size_t>(std::upper_bound(l.start.begin(), l.start.end(), pos) - l.start.begin()) - 1;
  if (idx >= p.segments.size()) return false;  // only a hand-built pattern whose segments do not fill the period
  return segment_selects(p, idx, pos - l.start[idx], rep);
}

}  // namespace

bool selected_at(const Pattern& p, uint64_t i) {
  if (p.period == 0 || p.segments.empty()) return false;
  return selected_with(p, Layout(p), i);
}

std::vector<uint8_t> selection(const Pattern& p, size_t n) {
  std::vector<uint8_t> sel(n);
  if (p.period == 0 || p.segments.empty()) return sel;
  const Layout l(p);
  if (l.start.back() != p.period || p.phase >= p.period) {
    // A hand-built pattern the parser would refuse: element by element, with the same meaning as selected_at.
    for (size_t i = 0; i < n; ++i) sel[i] = selected_with(p, l, i);
    return sel;
  }
  // Walk segment by segment rather than searching per element.
  uint64_t x = p.phase;
  size_t idx = static_cast<size_t>(std::upper_bound(l.start.begin(), l.start.end(), x) - l.start.begin()) - 1;
  uint64_t rep = 0;
  for (size_t i = 0; i < n; ++i) {
    while (x >= l.start[idx + 1]) {
      ++idx;
      if (idx + 1 == l.start.size()) idx = 0, x = 0, ++rep;
    }
    sel[i] = segment_selects(p, idx, x - l.start[idx], rep);
    ++x;
  }
  return sel;
}

std::vector<float> make_data(std::span<const uint8_t> sel, float thd, uint64_t seed, const Specials& sp) {
  if (std::isnan(thd) || thd == -std::numeric_limits<float>::infinity())
    throw std::invalid_argument("make_data: thd must be neither NaN nor -inf (got " + std::to_string(thd) + ")");
  std::vector<float> a(sel.size());
  const float inf = std::numeric_limits<float>::infinity();
  const uint64_t special_threshold =
      sp.rate >= 1.0 ? ~uint64_t{0} : sp.rate > 0 ? static_cast<uint64_t>(sp.rate * 18446744073709551616.0) : 0;
  for (size_t i = 0; i < sel.size(); ++i) {
    const uint64_t r = mix(seed, i);
    const float u = (static_cast<float>(r >> 40) + 0.5f) * 0x1p-24f;  // in (0, 1)
    float x;
    if (sel[i]) {
      x = thd > 0 ? u * thd : thd - u * std::max(1.0f, std::fabs(thd));
      if (!(x < thd)) x = std::nextafter(thd, -inf);
    } else {
      x = thd < 1 ? thd + u * (1 - thd) : thd + u * thd;
      if (!(x >= thd)) x = thd;
    }
    if (special_threshold && mix(seed, i, 1) < special_threshold) {
      float options[6];
      size_t k = 0;
      const float sub = 0x1p-149f * static_cast<float>(1 + (r & 1023));
      if (sel[i]) {
        if (sp.inf) options[k++] = -inf;
        if (sp.zero && 0.0f < thd) options[k++] = 0.0f, options[k++] = -0.0f;
        if (sp.subnormal && sub < thd) options[k++] = sub;
        if (sp.subnormal && -sub < thd) options[k++] = -sub;
      } else {
        if (sp.nan) options[k++] = std::numeric_limits<float>::quiet_NaN();
        if (sp.inf) options[k++] = inf;
        if (sp.zero && !(0.0f < thd)) options[k++] = 0.0f;
        if (sp.subnormal && !(sub < thd)) options[k++] = sub;
      }
      if (k) x = options[mix(seed, i, 2) % k];
    }
    a[i] = x;
  }
  return a;
}

}  // namespace maskapply::gen
