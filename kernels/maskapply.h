// SPDX-License-Identifier: MIT
// maskapply: a[mask] = f(a[mask]) on NEON. The public entry header.
//   blend.h    blend, blend_skip, blend_verified, density
//   detour.h   detour, detour_skip, tiled_detour
//   compact.h  compact, compact_skip
//   pilot.h    pilot_v1, pilot_v2, pilot_v3, pilot_v3_5, pilot_v4, pilot_v5, PilotOptions, bsl_calibrate
//   trace.h    Trace, Run, TileDecision (the decision trace)
//   work.h     Work, WorkCounts (the work each kernel executes, in the cost model's terms; NoWork by default)
//   functions.h / masks.h  the f catalog and the built-in masks
#pragma once

#include "blend.h"
#include "compact.h"
#include "detour.h"
#include "functions.h"
#include "masks.h"
#include "pilot.h"
#include "trace.h"
#include "work.h"
#include "workspace.h"
