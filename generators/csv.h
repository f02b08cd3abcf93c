// SPDX-License-Identifier: MIT
// One CSV field as RFC 4180 writes it: in double quotes, each embedded double quote doubled, so commas, quotes
// and line breaks inside a label survive a spreadsheet or Python's csv module. Numbers in their shortest form
// that reads back to the same value.
#pragma once

#include <charconv>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace maskapply::gen {

inline std::string csv_field(std::string_view s) {
  std::string out = "\"";
  for (const char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// A float or double as the shortest decimal that parses back (strtod, std::from_chars, Python's float) to the same
// bits: std::to_chars without a precision. 0.1f is "0.1", 1.0/3 is "0.3333333333333333", -0.0 is "-0";
// infinities are "inf" and "-inf", a NaN "nan" or "-nan" (its payload is not kept).
template <class T>
  requires std::is_floating_point_v<T>
std::string csv_number(T x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return r.ec == std::errc() ? std::string(buf, r.ptr) : std::string("nan");
}

}  // namespace maskapply::gen
