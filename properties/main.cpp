// SPDX-License-Identifier: MIT
// The properties' main: sets the RapidCheck budget for this platform before RapidCheck reads RC_PARAMS, prints
// what runs (code path, emulation, budget, failure directory), then runs the gtest properties.
#include <gtest/gtest.h>

#include <cstdio>

#include "platform.h"
#include "support.h"

int main(int argc, char** argv) {
  const std::string params = maskapply::prop::configure_budget();
  ::testing::InitGoogleTest(&argc, argv);
  std::printf("maskapply properties: %s%s; RC_PARAMS=\"%s\"; failures go to %s\n", MASKAPPLY_PLATFORM_NAME,
              maskapply::prop::emulated() ? " under an emulator" : "", params.c_str(),
              maskapply::prop::failure_dir().c_str());
  std::fflush(stdout);
  return RUN_ALL_TESTS();
}
