// SPDX-License-Identifier: MIT
#include "pattern_file.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <type_traits>

namespace maskapply::gen::hunt {

std::string fixed(double x, int digits) {
  if (std::isnan(x)) return "n/a";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::string pattern_file_name(Kernel pilot, Fn f, double regret) {
  return std::string(name(pilot)) + "-" + std::string(name(f)) + "-" + fixed(regret, 4) + ".pattern";
}

namespace {

std::string g17(double x) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", x);
  return buf;
}

bool parse_double(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return *end == '\0' && std::isfinite(v);
}

}  // namespace

std::string options_text(const PilotOptions& o) {
  // The whole-number fields but seed, then seed, then the doubles (every field but d_max).
  std::string ints, doubles;
  for_each_option_field([&](const char* k, auto PilotOptions::*p) {
    if constexpr (std::is_floating_point_v<option_field_t<decltype(p)>>) {
      doubles += " " + std::string(k) + "=" + g17(o.*p);
    } else if (std::string_view(k) != "seed") {
      ints += (ints.empty() ? "" : " ") + std::string(k) + "=" + std::to_string(o.*p);
    }
  });
  return ints + " seed=" + std::to_string(o.seed) + doubles;
}

std::variant<PilotOptions, std::string> parse_options_text(const std::string& text) {
  PilotOptions o;
  std::istringstream in(text);
  for (std::string kv; in >> kv;) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) return "expected NAME=VALUE, got '" + kv + "'";
    const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
    const std::optional<bool> set = set_option_field(o, k, v);
    const bool known = set.has_value(), ok = set.value_or(false);
    if (!known && !PilotOptions::retired(k).empty()) return PilotOptions::retired(k);
    if (!known) {
      std::string names;
      for_each_option_field([&](const char* name, auto) { names += (names.empty() ? "" : ", ") + std::string(name); });
      return "unknown option '" + k + "' (known: " + names + ")";
    }
    if (!ok) return "bad value '" + v + "' for option " + k;
  }
  if (const std::string e = o.validate(); !e.empty()) return e;
  return o;
}

std::string model_hash(const CostModel& m) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : m.to_json()) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  char buf[40];
  std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
  return buf;
}

std::optional<Head> read_head(const std::string& text) {
  const std::string line = text.substr(0, text.find('\n'));
  const std::string lead = "# model regret ";
  if (line.rfind(lead, 0) != 0) return std::nullopt;
  Head h;
  size_t at = lead.size();
  while (at < line.size() && (std::isdigit(static_cast<unsigned char>(line[at])) || line[at] == '.')) h.regret += line[at++];
  // The fields after the last " for pilot_v": each up to its ", NAME = " separator (names hold no comma).
  size_t p = line.rfind(" for pilot_v");
  if (h.regret.empty() || p == std::string::npos || p < at) return std::nullopt;
  p += 5;
  const auto field = [&](const std::string& sep, std::string* out) {
    const size_t q = line.find(sep, p);
    if (q == std::string::npos) return false;
    *out = line.substr(p, q - p), p = q + sep.size();
    return !out->empty();
  };
  std::string n;
  if (!field(", f = ", &h.pilot) || !field(", model ", &h.f) || !field(", n = ", &h.model)) return std::nullopt;
  while (p < line.size() && std::isdigit(static_cast<unsigned char>(line[p]))) n += line[p++];
  if (n.empty() || n.size() > 12) return std::nullopt;
  h.n = std::stoull(n);
  return h;
}

std::string read_reproduce(const std::string& text) {
  const std::string lead = "\n# reproduce: maskapply ";
  const size_t p = text.find(lead);
  if (p == std::string::npos) return {};
  const size_t b = p + lead.size();
  return text.substr(b, text.find('\n', b) - b);
}

std::string pattern_file(const Find& f, const FileInfo& i) {
  std::ostringstream s;
  const std::string pilot(name(i.pilot)), fn(name(i.f));
  const PilotOptions& o = i.options;
  s << "# model regret " << fixed(f.score.regret, 4) << " (pilot cost / block oracle; vs best fixed strategy "
    << fixed(f.score.vs_fixed, 4) << ") for " << pilot << ", f = " << fn << ", model " << i.model.name
    << ", n = " << i.n << "\n";
  s << "# found by " << i.found_by << " (" << f.origin << ")";
  if (f.unshrunk > 0) s << ", shrunk from " << fixed(f.unshrunk, 4);
  s << "\n";
  s << "# in words: in tile " << f.score.mechanism.tile << " (the costliest), " << f.score.mechanism.words() << "\n";
  s << "# mechanism: " << f.score.mechanism.key() << "\n";
  s << "# options: " << options_text(o) << "\n";
  s << "# d_max: " << g17(o.d_max.value_or(NAN)) << " from " << (i.dmax_given ? "--dmax" : "model " + i.model.name)
    << "\n";
  s << "# model: " << i.model.name << (i.model_file.empty() ? "" : " file " + i.model_file) << " hash "
    << model_hash(i.model) << "\n";
  s << "# reproduce: maskapply check --pattern " << i.path << " --f " << fn << " --model " << i.model_arg
    << " --kernel " << pilot << "\n";
  Pattern p = f.pattern;
  p.length = i.n;
  s << to_text(p);
  return s.str();
}

std::variant<Recorded, std::string> read_recorded(const std::string& text) {
  Recorded r;
  std::optional<double> d_max;
  std::istringstream in(text);
  size_t no = 0;
  for (std::string line; std::getline(in, line);) {
    ++no;
    const std::string at = "line " + std::to_string(no) + ": ";
    std::istringstream w(line);
    std::string hash, key;
    if (!(w >> hash >> key) || hash != "#") continue;
    if (key == "options:") {
      std::string rest, first;
      std::getline(w, rest);
      if (!(std::istringstream(rest) >> first) || first.find('=') == std::string::npos) continue;  // prose
      auto o = parse_options_text(rest);
      if (auto* e = std::get_if<std::string>(&o)) return at + "`# options:`: " + *e;
      r.options = std::get<PilotOptions>(o);
    } else if (key == "d_max:") {
      std::string v, from;
      if (!(w >> v >> from) || from != "from") return at + "expected `# d_max: VALUE from SOURCE`";
      double d = 0;
      if (!parse_double(v, d)) return at + "bad d_max '" + v + "'";
      d_max = d;
      std::string src;
      std::getline(w, src);
      r.dmax_source = src.substr(src.find_first_not_of(' ') == std::string::npos ? src.size()
                                                                                  : src.find_first_not_of(' '));
      if (r.dmax_source != "--dmax" && r.dmax_source.rfind("model ", 0) != 0)
        return at + "d_max must come from `model NAME` or `--dmax`, got '" + r.dmax_source + "'";
    } else if (key == "model:") {
      std::string word;
      if (!(w >> r.model_name)) return at + "expected `# model: NAME [file FILE] hash HASH`";
      while (w >> word) {
        if (word == "file" && w >> r.model_file) continue;
        if (word == "hash" && w >> r.model_hash) continue;
        return at + "expected `# model: NAME [file FILE] hash HASH`, got '" + word + "'";
      }
      if (r.model_hash.empty()) return at + "`# model:` without a hash";
    }
  }
  if (d_max && !r.options) return std::string("`# d_max:` without `# options:`");
  if (r.options) r.options->d_max = d_max;
  return r;
}

}  // namespace maskapply::gen::hunt
