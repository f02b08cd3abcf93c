// SPDX-License-Identifier: MIT
// One CSV field as RFC 4180 writes it: in double quotes, each embedded double quote doubled, so commas, quotes
// and line breaks inside a label survive a spreadsheet or Python's csv module.
#pragma once

#include <string>
#include <string_view>

namespace maskapply::gen {

inline std::string csv_field(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace maskapply::gen
