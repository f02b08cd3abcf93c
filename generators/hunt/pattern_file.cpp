// SPDX-License-Identifier: MIT
#include "pattern_file.h"

#include <cmath>
#include <cstdio>
#include <sstream>

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

std::string pattern_file(const Find& f, const FileInfo& i) {
  std::ostringstream s;
  const std::string pilot(name(i.pilot)), fn(name(i.f));
  const PilotOptions& o = i.options;
  s << "# model regret " << fixed(f.score.regret, 4) << " (pilot cost / block oracle; vs best fixed strategy "
    << fixed(f.score.vs_fixed, 4) << ") for " << pilot << ", f = " << fn << ", model " << i.model_name
    << ", n = " << i.n << "\n";
  s << "# found by " << i.found_by << " (" << f.origin << ")";
  if (f.unshrunk > 0) s << ", shrunk from " << fixed(f.unshrunk, 4);
  s << "\n";
  s << "# options: the article's (tile " << o.tile << ", probe " << o.probe << ", xlo " << o.xlo << ", lo " << o.lo
    << ", verify " << o.verify_blocks << " blocks, bail " << o.bail << ", distrust " << o.distrust << "), d_max "
    << fixed(o.d_max.value_or(NAN), 4) << " from the model\n";
  s << "# in words: in tile " << f.score.mechanism.tile << " (the costliest), " << f.score.mechanism.words() << "\n";
  s << "# mechanism: " << f.score.mechanism.key() << "\n";
  s << "# reproduce: maskapply check --pattern " << i.path << " --f " << fn << " --model " << i.model_arg
    << " --kernel " << pilot << "\n";
  Pattern p = f.pattern;
  p.length = i.n;
  s << to_text(p);
  return s.str();
}

}  // namespace maskapply::gen::hunt
