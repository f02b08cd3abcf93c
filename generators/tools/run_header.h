// SPDX-License-Identifier: MIT
// The header of a `maskapply hunt --json` or `maskapply tune --json` run, in the order both print it (users parse
// it): schema_version, provenance, seed, model, model_file (null for m5; the file for host or a model file),
// model_hash, n, budget, seconds_cap, seconds.
#pragma once

#include <nlohmann/json.hpp>

#include "commands.h"
#include "pattern_file.h"
#include "provenance.h"

namespace maskapply::cli {

template <class Args>
nlohmann::ordered_json run_header(int schema_version, const Args& a, const gen::CostModel& model, double seconds) {
  nlohmann::ordered_json j;
  j["schema_version"] = schema_version;
  for (const auto& [k, v] : gen::fields(gen::provenance())) j["provenance"][k] = v;
  j["seed"] = a.seed;
  j["model"] = model.name;
  j["model_file"] =
      a.model == "m5" ? nlohmann::json(nullptr) : nlohmann::json(a.model == "host" ? a.model_file : a.model);
  j["model_hash"] = gen::hunt::model_hash(model);
  j["n"] = a.n;
  j["budget"] = a.budget;
  j["seconds_cap"] = a.seconds;
  j["seconds"] = seconds;
  return j;
}

}  // namespace maskapply::cli
