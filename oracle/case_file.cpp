// SPDX-License-Identifier: MIT
#include "case_file.h"

#include <charconv>
#include <cstring>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <type_traits>

namespace maskapply::testing {
namespace {

std::string hex32(uint32_t u) {
  char b[12];
  std::snprintf(b, sizeof b, "%08x", u);
  return b;
}
std::string num(double x) {
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", x);
  return b;
}

bool parse_u32_hex(std::string_view s, uint32_t& out) {
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s.remove_prefix(2);
  if (s.empty() || s.size() > 8) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && p == s.data() + s.size();
}
bool parse_u64_hex(std::string_view s, uint64_t& out) {
  if (s.empty() || s.size() > 16) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, 16);
  return ec == std::errc() && p == s.data() + s.size();
}
bool parse_size(std::string_view s, size_t& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}
bool parse_double(std::string_view s, double& out) {
  // from_chars for double is in libstdc++ 11+; strtod would accept trailing junk.
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return !s.empty() && ec == std::errc() && p == s.data() + s.size();
}

bool is_space(char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n'; }

std::vector<std::string_view> words(std::string_view line) {
  std::vector<std::string_view> w;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_space(line[i])) ++i;
    const size_t b = i;
    while (i < line.size() && !is_space(line[i])) ++i;
    if (i > b) w.push_back(line.substr(b, i - b));
  }
  return w;
}

}  // namespace

std::string to_text(const Case& c, std::string_view comment) {
  std::ostringstream s;
  s << "# maskapply case v1\n";
  if (!comment.empty()) {
    std::istringstream lines{std::string(comment)};
    for (std::string l; std::getline(lines, l);) s << "# " << l << "\n";
  }
  s << "kernel " << name(c.kernel) << "\n";
  s << "f " << name(c.f) << "\n";
  uint32_t thd;
  std::memcpy(&thd, &c.mask.thd, 4);
  s << "mask " << name(c.mask.kind) << " 0x" << hex32(thd);
  if (c.mask.kind == MaskKind::bits_eq) s << " 0x" << hex32(c.mask.bits_mask) << " 0x" << hex32(c.mask.bits_value);
  s << "\nmisalign " << c.misalign << "\n";
  const PilotOptions& o = c.options;
  s << "options";
  for_each_option_field([&](const char* k, auto PilotOptions::*p) {
    s << ' ' << k << '=';
    if constexpr (std::is_floating_point_v<option_field_t<decltype(p)>>)
      s << num(o.*p);
    else
      s << o.*p;
  });
  s << " d_max=" << (o.d_max ? num(*o.d_max) : std::string("timed")) << "\n";
  if (c.workspace) {
    char g[24];
    std::snprintf(g, sizeof g, "%016llx", static_cast<unsigned long long>(c.workspace->garbage));
    s << "workspace capacity=" << c.workspace->capacity << " garbage=0x" << g << "\n";
  }
  s << "data " << c.data.size() << "\n";
  for (size_t i = 0; i < c.data.size(); ++i) {
    uint32_t u;
    std::memcpy(&u, &c.data[i], 4);
    s << hex32(u) << ((i % 8 == 7 || i + 1 == c.data.size()) ? "\n" : " ");
  }
  return s.str();
}

CaseParse parse_case(std::string_view text) {
  CaseParse r;
  Case c;
  bool seen_kernel = false, seen_f = false, seen_mask = false, seen_data = false;
  size_t line_no = 0, pos = 0;
  const auto fail = [&](const std::string& what) {
    r.error = "line " + std::to_string(line_no) + ": " + what;
    return r;
  };
  while (pos < text.size() && !seen_data) {
    const size_t eol = std::min(text.find('\n', pos), text.size());
    const std::string_view line = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line_no;
    const auto w = words(line);
    if (w.empty() || w[0][0] == '#') continue;
    const std::string_view key = w[0];
    if (key == "kernel") {
      const auto k = w.size() == 2 ? kernel_from_name(w[1]) : std::nullopt;
      if (!k) return fail("expected `kernel NAME` with NAME a canonical kernel name");
      c.kernel = *k, seen_kernel = true;
    } else if (key == "f") {
      const auto f = w.size() == 2 ? fn_from_name(w[1]) : std::nullopt;
      if (!f) return fail("expected `f NAME` with NAME one of sqrt frfrexp sin35 sin10 pow10 fma13 bits_inc");
      c.f = *f, seen_f = true;
    } else if (key == "mask") {
      const auto kind = w.size() >= 3 ? mask_from_name(w[1]) : std::nullopt;
      uint32_t thd = 0;
      if (!kind || !parse_u32_hex(w[2], thd)) return fail("expected `mask KIND 0xTHDBITS`");
      c.mask.kind = *kind;
      std::memcpy(&c.mask.thd, &thd, 4);
      if (*kind == MaskKind::bits_eq) {
        if (w.size() != 5 || !parse_u32_hex(w[3], c.mask.bits_mask) || !parse_u32_hex(w[4], c.mask.bits_value))
          return fail("expected `mask bits_eq 0xTHD 0xBITS_MASK 0xBITS_VALUE`");
      } else if (w.size() != 3) {
        return fail("expected `mask KIND 0xTHDBITS` and nothing after it");
      }
      seen_mask = true;
    } else if (key == "misalign") {
      if (w.size() != 2 || !parse_size(w[1], c.misalign) || c.misalign > 15)
        return fail("expected `misalign K` with K in [0, 15]");
    } else if (key == "options") {
      for (size_t i = 1; i < w.size(); ++i) {
        const size_t eq = w[i].find('=');
        if (eq == std::string_view::npos) return fail("expected KEY=VALUE in options, got `" + std::string(w[i]) + "`");
        const std::string_view k = w[i].substr(0, eq), v = w[i].substr(eq + 1);
        PilotOptions& o = c.options;
        const std::optional<bool> set = set_option_field(o, k, v);
        const bool known = set.has_value();
        bool ok = set.value_or(true);
        if (!known && k == "d_max") {
          double d = 0;
          if (v == "timed") o.d_max.reset();
          else if ((ok = parse_double(v, d))) o.d_max = d;
        } else if (!known) {
          const std::string r = PilotOptions::retired(k);
          return fail(r.empty() ? "unknown option `" + std::string(k) + "`" : r);
        }
        if (!ok) return fail("bad value for option `" + std::string(k) + "`: `" + std::string(v) + "`");
      }
      if (const std::string err = c.options.validate(); !err.empty()) return fail("invalid options: " + err);
      if (c.options.tile > (size_t{1} << 24)) return fail("tile larger than 2^24 elements");
    } else if (key == "workspace") {
      HostileWorkspace ws;
      const bool ok = w.size() == 3 && w[1].rfind("capacity=", 0) == 0 && w[2].rfind("garbage=0x", 0) == 0 &&
                      parse_size(w[1].substr(9), ws.capacity) && ws.capacity >= 1 && ws.capacity <= (size_t{1} << 25) &&
                      parse_u64_hex(w[2].substr(10), ws.garbage);
      if (!ok) return fail("expected `workspace capacity=C garbage=0xHEX` with C in [1, 2^25], HEX up to 16 digits");
      c.workspace = ws;
    } else if (key == "data") {
      size_t n = 0;
      if (w.size() != 2 || !parse_size(w[1], n) || n > (size_t{1} << 26))
        return fail("expected `data N` with N at most 2^26");
      c.data.reserve(n);
      const auto rest = words(text.substr(std::min(pos, text.size())));
      if (rest.size() != n)
        return fail("expected " + std::to_string(n) + " hex values after `data`, found " + std::to_string(rest.size()));
      for (const std::string_view h : rest) {
        uint32_t u;
        if (!parse_u32_hex(h, u)) return fail("bad hex value `" + std::string(h) + "` in data");
        float x;
        std::memcpy(&x, &u, 4);
        c.data.push_back(x);
      }
      seen_data = true;
    } else {
      return fail("unknown key `" + std::string(key) +
                  "` (expected kernel, f, mask, misalign, options, workspace or data)");
    }
  }
  if (!seen_kernel || !seen_f || !seen_mask || !seen_data) {
    line_no = 0;
    return fail("incomplete case: needs kernel, f, mask and data lines");
  }
  r.value = std::move(c);
  return r;
}

HostileWorkspace case_workspace(const Case& c) {
  return c.workspace ? *c.workspace : hostile_workspace(c.kernel, c.f, c.data, c.options.tile, c.misalign);
}

CheckResult run_case(const Case& c) {
  return check_kernel(c.kernel, c.f, c.mask, c.data, c.options, c.misalign, case_workspace(c));
}

std::string write_case_file(const Case& c, const std::string& dir, const std::string& name, std::string_view comment) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = dir + "/" + name + ".case";
  std::ofstream out(path);
  out << to_text(c, comment);
  return out ? path : std::string();
}

}  // namespace maskapply::testing
