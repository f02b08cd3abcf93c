// SPDX-License-Identifier: MIT
#include "plugin.h"

#include <setjmp.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "buffers.h"
#include "case_file.h"

namespace maskapply::testing {

// --- references and descriptions -------------------------------------------------------------------------------

void Reference::apply(float* a, size_t n) const {
  for (size_t i = 0; i < n; ++i)
    if (mask(a[i])) a[i] = f(a[i]);
}

std::string describe_mask(const MaskSpec& m) {
  std::ostringstream s;
  s << name(m.kind) << " thd=" << oracle::hex(m.thd);
  if (m.kind == MaskKind::bits_eq) s << " bits_mask=" << m.bits_mask << " bits_value=" << m.bits_value;
  return s.str();
}

std::optional<MaskSpec> parse_mask(std::string_view d) {
  // "<kind> thd=0x<8 hex>[ bits_mask=<dec> bits_value=<dec>]", any of the spaces possibly '_'.
  const auto field = [&](std::string_view key, int base) -> std::optional<uint32_t> {
    const size_t at = d.find(key);
    if (at == std::string_view::npos) return std::nullopt;
    const std::string rest(d.substr(at + key.size()));
    char* end = nullptr;
    const unsigned long v = std::strtoul(rest.c_str(), &end, base);
    if (end == rest.c_str() || v > 0xffffffffUL) return std::nullopt;
    return static_cast<uint32_t>(v);
  };
  for (size_t k = 0; k < kMaskNames.size(); ++k) {
    const std::string_view kind = kMaskNames[k];
    if (d.size() <= kind.size() || d.substr(0, kind.size()) != kind || (d[kind.size()] != ' ' && d[kind.size()] != '_'))
      continue;
    d.remove_prefix(kind.size() + 1);
    MaskSpec m;
    m.kind = static_cast<MaskKind>(k);
    const std::optional<uint32_t> thd = d.substr(0, 6) == "thd=0x" ? field("thd=0x", 16) : std::nullopt;
    if (!thd) return std::nullopt;
    std::memcpy(&m.thd, &*thd, 4);
    if (m.kind == MaskKind::bits_eq) {
      const auto bm = field("bits_mask=", 10), bv = field("bits_value=", 10);
      if (!bm || !bv) return std::nullopt;
      m.bits_mask = *bm, m.bits_value = *bv;
    }
    return m;
  }
  return std::nullopt;
}

Reference reference(Fn f, const MaskSpec& m) {
  return Reference{std::string(name(f)), describe_mask(m), [f](float x) { return oracle::apply_f(f, x); },
                   [m](float x) { return oracle::selected(m, x); }};
}

std::string describe(std::string_view kernel, std::string_view f, std::string_view mask, size_t n,
                     const PilotOptions& o, size_t misalign) {
  std::ostringstream s;
  s << "kernel=" << kernel << " f=" << f << " mask=" << mask << " n=" << n << " misalign=" << misalign
    << " tile=" << o.tile << " probe=" << o.probe;
  if (o.d_max) s << " d_max=" << *o.d_max;
  return s.str();
}

// --- the checks --------------------------------------------------------------------------------------------

HostileWorkspace draw_hostile_workspace(std::initializer_list<uint64_t> keys, std::span<const float> input,
                                        size_t tile, size_t salt) {
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) h = (h ^ (v & 0xff)) * 1099511628211ull;
  };
  for (const uint64_t k : keys) mix(k);
  mix(input.size()), mix(tile), mix(salt);
  for (const float x : input) mix(oracle::bits(x));
  HostileWorkspace w;
  w.garbage = h | 1;
  const uint64_t pick = (h >> 32) % 3, r = h >> 40;
  w.capacity = pick == 0 ? tile : pick == 1 ? 1 + r % tile : tile + 1 + r % (tile + 64);
  return w;
}

HostileWorkspace hostile_workspace(std::string_view subject, std::span<const float> input, size_t tile, size_t salt) {
  uint64_t key = 1469598103934665603ull;
  for (const unsigned char ch : subject) key = (key ^ ch) * 1099511628211ull;
  return draw_hostile_workspace({key}, input, tile, salt);
}

CheckResult check(const Subject& s, const Reference& ref, std::span<const float> input, const PilotOptions& o,
                  size_t misalign, const HostileWorkspace& w) {
  CheckResult r;
  std::vector<float> expected(input.begin(), input.end());
  ref.apply(expected.data(), expected.size());
  SentinelBuffer buf(input, misalign);
  Workspace ws(w.capacity ? w.capacity : o.tile);
  if (w.garbage) ws.scribble(w.garbage);
  s.run(buf.data(), buf.size(), ws, o, r.trace);
  r.output.assign(buf.data(), buf.data() + buf.size());
  const bool traced = !r.trace.runs.empty();
  const oracle::Mismatch mm = oracle::compare(s.name, input, expected, r.output, o.tile, traced ? &r.trace : nullptr);
  const std::string sentinel = buf.check();
  r.mismatches = mm.count;
  r.ok = !mm && sentinel.empty();
  if (!r.ok)
    r.message = describe(s.name, ref.f_name, ref.mask_name, input.size(), o, misalign) +
                (w.capacity || w.garbage ? " workspace=" + std::to_string(ws.capacity()) : "") + ": " +
                (mm ? mm.message : "") + (sentinel.empty() ? "" : (mm ? "; " : "") + sentinel);
  return r;
}

std::string check_guarded(const Subject& s, const Reference& ref, std::span<const float> input,
                          const PilotOptions& o) {
  const size_t n = input.size();
  std::vector<float> expected(input.begin(), input.end());
  ref.apply(expected.data(), n);
  for (const bool at_end : {true, false}) {
    GuardedArray g(n, at_end);
    if (n) std::memcpy(g.data(), input.data(), n * sizeof(float));
    const HostileWorkspace w = hostile_workspace(s.name, input, o.tile, at_end);
    Workspace ws(w.capacity);
    ws.scribble(w.garbage);
    Trace t;
    const std::string fault = catch_fault([&] { s.run(g.data(), n, ws, o, t); });
    std::string why;
    if (!fault.empty()) {
      const auto addr = static_cast<long long>(fault_address());
      const auto a = static_cast<long long>(reinterpret_cast<uintptr_t>(g.data()));
      const long long off = addr - a;
      why = fault + ", " +
            (off < 0 ? std::to_string(-off) + " bytes before"
                     : std::to_string(off - static_cast<long long>(n * sizeof(float))) + " bytes past the end of") +
            " the array (guard page at its " + (at_end ? "end" : "start") + ")";
    } else if (const oracle::Mismatch mm =
                   oracle::compare(s.name, input, expected, g.span(), o.tile, t.runs.empty() ? nullptr : &t)) {
      why = "guarded array: " + mm.message;
    }
    if (!why.empty()) return describe(s.name, ref.f_name, ref.mask_name, n, o, 0) + ": " + why;
  }
  return {};
}

CheckResult check_exactly_once(const Subject& s, std::string_view mask_name, const std::function<bool(float)>& mask,
                               std::span<const float> input, const PilotOptions& o, size_t misalign) {
  const Reference ref{"bits_inc", std::string(mask_name), [](float x) { return oracle::apply_f(Fn::bits_inc, x); },
                      mask};
  CheckResult r = check(s, ref, input, o, misalign);
  for (size_t i = 0; i < input.size() && i < r.output.size(); ++i) {
    const uint32_t in = oracle::bits(input[i]), out = oracle::bits(r.output[i]);
    const bool sel = mask(input[i]);
    if (out == (sel ? in + 1 : in)) continue;
    const uint32_t times = out - in;
    r.ok = false;
    r.message = describe(s.name, ref.f_name, ref.mask_name, input.size(), o, misalign) + ": element " +
                std::to_string(i) + (sel ? " (selected)" : " (unselected)") + " got f " +
                (times < 16 ? std::to_string(times) + " times" : "a wrong value") + ": input " +
                oracle::hex(input[i]) + " output " + oracle::hex(r.output[i]) +
                (r.message.empty() ? "" : " (" + r.message + ")");
    break;
  }
  return r;
}

std::string check_trace(const Trace& t, size_t n) {
  size_t at = 0;
  for (size_t i = 0; i < t.runs.size(); ++i) {
    const Run& r = t.runs[i];
    std::ostringstream s;
    s << "run " << i << " " << name(r.strategy) << " [" << r.begin << ", " << r.end << ")";
    if (r.begin != at) return s.str() + (r.begin < at ? " overlaps" : " leaves a gap") + " after " + std::to_string(at);
    if (r.end <= r.begin) return s.str() + " is empty or reversed";
    at = r.end;
  }
  if (at != n) return "the runs end at " + std::to_string(at) + ", not at n = " + std::to_string(n);
  if (t.tiles.empty()) return {};
  at = 0;
  for (const TileDecision& d : t.tiles) {
    if (d.begin != at || d.end <= d.begin)
      return "tile " + std::to_string(d.index) + " [" + std::to_string(d.begin) + ", " + std::to_string(d.end) +
             ") does not continue at " + std::to_string(at);
    if (d.bail != kNoBail && (d.bail < d.begin || d.bail >= d.end))
      return "tile " + std::to_string(d.index) + " bails at " + std::to_string(d.bail) + ", outside it";
    for (const Run& run : t.runs)
      if (run.begin < d.end && d.begin < run.end && (run.begin < d.begin || run.end > d.end))
        return "run [" + std::to_string(run.begin) + ", " + std::to_string(run.end) + ") crosses tile " +
               std::to_string(d.index);
    at = d.end;
  }
  if (at != n) return "the tiles end at " + std::to_string(at) + ", not at n = " + std::to_string(n);
  return {};
}

// --- sweeps ------------------------------------------------------------------------------------------------

namespace {

// The values that make kernels and masks go wrong: ±0, ±inf, quiet and signalling NaNs with payloads (both
// signs), denormals, the extremes, ±1 and ±0.5 with their neighbours.
constexpr uint32_t kSpecials[] = {
    0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00000, 0x7fc00001, 0x7fffffff,
    0x7f800001, 0x7fa00000, 0xffbfffff, 0x7fa5a5a4, 0x00000001, 0x80000001, 0x007fffff, 0x807fffff,
    0x00800000, 0x80800000, 0x7f7fffff, 0xff7fffff, 0x3f800000, 0xbf800000, 0x3f7fffff, 0x3f800001,
    0x3f000000, 0x3effffff, 0x3f000001, 0xbf000000};

float draw_value(std::mt19937_64& rng) {
  switch (rng() % 4) {
    case 0: return oracle::from_bits(static_cast<uint32_t>(rng()));  // any bit pattern
    case 1: return oracle::from_bits(kSpecials[rng() % std::size(kSpecials)]);
    case 2: return -static_cast<float>((rng() >> 40) + 1) * 0x1p-24f;
    default: return static_cast<float>((rng() >> 40) + 1) * 0x1p-23f;  // (0, 2)
  }
}

}  // namespace

std::vector<float> seeded_data(const std::function<bool(float)>& mask, size_t n, uint64_t seed, double density,
                               double special) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  // Two pools: values the mask selects and values it does not (either may stay empty: always / never masks).
  std::vector<float> sel, unsel;
  for (int i = 0; i < 4096 && (sel.size() < 64 || unsel.size() < 64); ++i) {
    const float x = draw_value(rng);
    (mask(x) ? sel : unsel).push_back(x);
  }
  std::vector<float> v(n);
  for (float& x : v) {
    if (u01(rng) < special) {
      x = oracle::from_bits(kSpecials[rng() % std::size(kSpecials)]);
      continue;
    }
    const bool want = u01(rng) < density;
    const std::vector<float>& pool = (want && !sel.empty()) || unsel.empty() ? sel : unsel;
    x = pool.empty() ? draw_value(rng) : pool[rng() % pool.size()];
  }
  return v;
}

std::string sweep(const Subject& s, const Reference& ref, const SweepOptions& so) {
  for (size_t n = 0; n <= so.max_n; ++n) {
    const uint64_t seed = so.seed * 1000003u + n;
    const double density = std::array{0.0, 0.05, 0.5, 0.95, 1.0}[n % 5];
    const std::vector<float> data = seeded_data(ref.mask, n, seed, density);
    for (size_t mis = 0; mis < 16; ++mis) {
      const CheckResult r = check(s, ref, data, so.options, mis, hostile_workspace(s.name, data, so.options.tile, mis));
      if (r.ok) continue;
      const std::string path = write_user_case(UserCase{s.name, ref.f_name, ref.mask_name, mis, so.options, data},
                                               failure_dir(), s.name + ".sweep", r.message);
      return "sweep (seed " + std::to_string(so.seed) + "): " + r.message + "\ncase file: " +
             (path.empty() ? "(not written)" : path);
    }
    if (so.guard_every && n % so.guard_every == 0)
      if (const std::string e = check_guarded(s, ref, data, so.options); !e.empty()) {
        const std::string path = write_user_case(UserCase{s.name, ref.f_name, ref.mask_name, 0, so.options, data},
                                                 failure_dir(), s.name + ".sweep", e);
        return "sweep (seed " + std::to_string(so.seed) + "): " + e + "\ncase file: " +
               (path.empty() ? "(not written)" : path);
      }
  }
  return {};
}

// --- case files --------------------------------------------------------------------------------------------

std::string failure_dir() {
  const char* d = std::getenv("MASKAPPLY_FAILURE_DIR");
  const std::string dir = d && *d ? d : "failures";
  std::error_code ec;
  const auto p = std::filesystem::absolute(dir, ec);
  return ec ? dir : p.string();
}

namespace {

// One word, so the case stays parseable: white space becomes '_'.
std::string word(std::string_view s) {
  std::string w(s.empty() ? std::string_view("unnamed") : s);
  for (char& ch : w)
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') ch = '_';
  return w;
}

}  // namespace

std::string to_text(const UserCase& c, std::string_view comment) {
  Case bundled;  // the bundled writer does options and data; the kernel, f and mask lines are the user's
  bundled.misalign = c.misalign, bundled.options = c.options, bundled.data = c.data;
  std::istringstream in(to_text(bundled, comment));
  std::ostringstream out;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("kernel ", 0) == 0) line = "kernel " + word(c.kernel);
    else if (line.rfind("f ", 0) == 0) line = "f " + word(c.f);
    else if (line.rfind("mask ", 0) == 0) line = "mask " + word(c.mask);
    out << line << "\n";
  }
  return out.str();
}

std::pair<std::optional<UserCase>, std::string> parse_user_case(std::string_view text) {
  // The names are free text here: take them out, and let the bundled parser read the rest.
  UserCase c;
  std::string rest;
  size_t pos = 0;
  while (pos < text.size()) {
    const size_t eol = std::min(text.find('\n', pos), text.size());
    std::string line(text.substr(pos, eol - pos));
    pos = eol + 1;
    const auto take = [&](const char* key, std::string& into, const char* placeholder) {
      const std::string k = std::string(key) + " ";
      if (line.rfind(k, 0) != 0) return false;
      into = line.substr(k.size());
      line = placeholder;
      return true;
    };
    take("kernel", c.kernel, "kernel blend") || take("f", c.f, "f sqrt") || take("mask", c.mask, "mask always 0x0");
    rest += line + "\n";
  }
  CaseParse p = parse_case(rest);
  if (!p.value) return {std::nullopt, p.error};
  c.misalign = p.value->misalign, c.options = p.value->options, c.data = std::move(p.value->data);
  return {std::move(c), {}};
}

std::string write_user_case(const UserCase& c, const std::string& dir, const std::string& file_name,
                            std::string_view comment) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  const std::string path = dir + "/" + file_name + ".case";
  std::ofstream out(path);
  out << to_text(c, comment);
  return out ? path : std::string();
}

std::pair<std::optional<UserCase>, std::string> read_user_case(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  if (!in) return {std::nullopt, path + ": cannot read"};
  auto [c, error] = parse_user_case(text.str());
  if (!c) return {std::nullopt, path + ": " + error};
  return {std::move(c), {}};
}

CheckResult replay_case(const std::string& path, const Subject& s, const Reference& ref) {
  const auto [c, error] = read_user_case(path);
  CheckResult r;
  if (!c) {
    r.ok = false, r.message = error;
    return r;
  }
  r = check(s, ref, c->data, c->options, c->misalign);
  if (r.ok)
    if (std::string e = check_guarded(s, ref, c->data, c->options); !e.empty()) r.ok = false, r.message = std::move(e);
  return r;
}

// --- faults ------------------------------------------------------------------------------------------------

namespace {
thread_local sigjmp_buf* t_jump = nullptr;
thread_local uintptr_t t_fault_addr = 0;

void on_fault(int sig, siginfo_t* info, void*) {
  if (t_jump) {
    t_fault_addr = reinterpret_cast<uintptr_t>(info->si_addr);
    siglongjmp(*t_jump, sig);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

void install_fault_handler() {
  static const bool installed = [] {
    static std::vector<char> alt(1 << 16);
    stack_t ss{};
    ss.ss_sp = alt.data();
    ss.ss_size = alt.size();
    sigaltstack(&ss, nullptr);
    struct sigaction sa{};
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, nullptr);
    sigaction(SIGBUS, &sa, nullptr);
    return true;
  }();
  (void)installed;
}
}  // namespace

uintptr_t fault_address() { return t_fault_addr; }

std::string catch_fault(const std::function<void()>& call) {
  install_fault_handler();
  sigjmp_buf buf;
  if (const int sig = sigsetjmp(buf, 1); sig != 0) {
    t_jump = nullptr;
    std::ostringstream s;
    s << (sig == SIGBUS ? "SIGBUS" : "SIGSEGV") << " at address 0x" << std::hex << t_fault_addr;
    return s.str();
  }
  t_jump = &buf;
  call();
  t_jump = nullptr;
  return {};
}

}  // namespace maskapply::testing
