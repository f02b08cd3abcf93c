// SPDX-License-Identifier: MIT
// Property 16: the work the cost model charges for a trace is the work that ran, term by term. Every kernel and
// pilot runs with an f and a mask that count their vector calls (one call = one register of 4 lanes) and a work
// observer (work.h) that counts what the shared building blocks execute: registers blended (B), counted by a
// verified blend (V), compressed (C), expanded (E = D - C), booked by compact (K), skipped (S), the switches
// between empty and non-empty blocks a skip kernel takes (M), registers the probe read (Q) and registers of the
// packed f pass (F). The trace it reported is then priced by regret.h's model_regret under one unit model per
// count: every constant 0 but that term's, which is 1 (T = 1 for f; for the mask, B = C = D = S = Q = 1, every
// register a strategy loads being masked once). Each charge must equal its count exactly: the tail as one local
// block, the probe over what it read, the calibration, every verify piece and every workspace pass. So every
// term of a printed regret prices executed work, and a change that only makes a kernel do more (or less) work
// than the model charges for its trace fails here.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <sstream>
#include <vector>

#include "article.h"
#include "oracle.h"
#include "registry.h"
#include "regret.h"
#include "support.h"

namespace maskapply::prop {
namespace {

struct Calls {
  size_t f = 0, mask = 0;
};

// The catalog's f and mask, chosen at run time, each vector call counted.
struct CountingFn {
  Fn id;
  Calls* calls;
  MASKAPPLY_INLINE float32x4_t operator()(float32x4_t x) const {
    ++calls->f;
    return visit_fn(id, [x](auto fn) { return fn(x); });
  }
};
struct CountingMask {
  MaskSpec spec;
  Calls* calls;
  MASKAPPLY_INLINE uint32x4_t operator()(float32x4_t v) const {
    ++calls->mask;
    return visit_mask(spec, [v](auto m) { return m(v); });
  }
};

// A model with every constant 0: the start of each unit model.
::maskapply::gen::CostModel zero(const char* name) {
  ::maskapply::gen::CostModel m;
  m.name = name;
  m.B = m.D = m.C = m.S = m.K = m.M = m.V = m.Q = m.F = 0;
  m.T.fill(0.0);
  return m;
}

// One count and the model under which the cost of a trace is that count.
struct Unit {
  const char* term;  // the model's term
  ::maskapply::gen::CostModel model;
  size_t executed = 0;
};

// The unit models, with what the run counted for each.
std::vector<Unit> units(const Calls& calls, const WorkCounts& w) {
  std::vector<Unit> u;
  const auto add = [&](const char* term, size_t executed, auto set) {
    ::maskapply::gen::CostModel m = zero(term);
    set(m);
    u.push_back({term, m, executed});
  };
  add("T (vector f calls)", calls.f, [](auto& m) { m.T.fill(1.0); });
  // Every register a strategy loads is masked once (blend B, compress C, a skipped block S, the probe Q);
  // expand, f and the bookkeeping call no mask (E = D - C = 0, T = K = V = F = 0).
  add("mask calls", calls.mask, [](auto& m) { m.B = m.D = m.C = m.S = m.Q = 1; });
  add("B (registers blended)", w[Work::blended], [](auto& m) { m.B = 1; });
  add("V (registers counted by a verified blend)", w[Work::counted], [](auto& m) { m.V = 1; });
  add("C (registers compressed)", w[Work::compressed], [](auto& m) { m.C = m.D = 1; });
  add("D - C (registers expanded)", w[Work::expanded], [](auto& m) { m.D = 1; });
  add("K (registers booked by compact)", w[Work::booked], [](auto& m) { m.K = 1; });
  add("S (registers of skipped blocks)", w[Work::skipped], [](auto& m) { m.S = 1; });
  add("M (switches between empty and non-empty blocks)", w[Work::switched], [](auto& m) { m.M = 1; });
  add("Q (registers the probe read)", w[Work::probed], [](auto& m) { m.Q = 1; });
  add("F (registers of the packed f pass)", w[Work::packed], [](auto& m) { m.F = 1; });
  return u;
}

// What one run of c executed.
struct Executed {
  Trace trace;
  Calls calls;
  WorkCounts work;
  std::vector<uint8_t> sel;  // the mask over c.data
};
Executed execute(const testing::Case& c, size_t capacity) {
  Executed e;
  std::vector<float> a = c.data;
  Workspace ws(capacity);
  run_kernel_with(c.kernel, CountingFn{c.f, &e.calls}, CountingMask{c.mask, &e.calls}, a.data(), a.size(), ws,
                  c.options, &e.trace, e.work);
  e.sel.resize(c.data.size());
  for (size_t i = 0; i < e.sel.size(); ++i) e.sel[i] = oracle::selected(c.mask, c.data[i]) ? 1 : 0;
  return e;
}

// Empty when every count of e equals the model's charge for its trace; else every term, those that differ marked.
std::string differences(const testing::Case& c, size_t capacity, const Executed& e) {
  std::ostringstream why;
  bool differ = false;
  for (const Unit& u : units(e.calls, e.work)) {
    const double charged = ::maskapply::gen::model_regret(e.trace, e.sel, u.model, c.f, c.options).whole_pilot_cost;
    const bool same = charged == static_cast<double>(u.executed);
    differ |= !same;
    why << "\n  " << (same ? "  " : "! ") << u.term << ": executed " << u.executed << ", charged " << charged;
  }
  if (!differ) return {};
  std::ostringstream head;
  head << name(c.kernel) << " over n = " << c.data.size() << " (workspace capacity " << capacity << "), a trace of "
       << e.trace.runs.size() << " runs and " << e.trace.tiles.size()
       << " tiles; the work it executed against what the model charges for that trace (! differs):" << why.str();
  return head.str();
}

// 16. For any kernel or pilot, f, mask, options (injected or timed d_max), n and workspace capacity: the vector
//     f calls, the mask calls and each kind of work it executes equal what the model charges for the trace it
//     reported, term by term. A plain kernel gets, in half the cases, tile-structured data (segments of drawn
//     density: empty runs and switches) instead of element-wise floats.
RC_GTEST_PROP(ExecutedWork, equalsWhatTheModelChargesForTheTraceTermByTerm, ()) {
  testing::Case c;
  c.kernel = *gen::any_kernel();
  c.f = *gen::any_fn();
  auto shaped = gen::options_and_data(c);
  if (!shaped && *rc::gen::arbitrary<bool>()) {
    Shaped t = *gen::tiled(c.options.tile);
    c.data = std::move(t.v);
    shaped = t.mask;
  }
  c.mask = shaped ? *shaped : *gen::any_mask(c.data);
  if (is_pilot(c.kernel) && *rc::gen::weightedElement<bool>({{9, false}, {1, true}})) c.options.d_max.reset();
  const size_t capacity = *rc::gen::element(c.options.tile, size_t{16}, size_t{100}, size_t{4096}, size_t{20000});
  RC_TAG(name(c.kernel));
  classify(c.data, c.mask);

  const Executed e = execute(c, capacity);
  const WorkCounts& work = e.work;
  RC_CLASSIFY(e.calls.f > 4 * ((e.sel.size() + 15) / 16), "f ran more often than one blend over the array would");
  RC_CLASSIFY(work[Work::skipped] > 0, "blocks skipped");
  RC_CLASSIFY(work[Work::switched] > 1, "several switches");
  RC_CLASSIFY(work[Work::compressed] > 0 && work[Work::expanded] == 0, "compressed, nothing expanded");
  RC_CLASSIFY(work[Work::expanded] > 0 && work[Work::expanded] < work[Work::compressed],
              "expanded fewer than compressed");
  RC_CLASSIFY(work[Work::counted] > 0, "a verified blend counted");
  RC_CLASSIFY(work[Work::probed] > 0, "a probe read");
  if (const std::string why = differences(c, capacity, e); !why.empty()) {
    save_case(c, why);
    RC_FAIL(why);
  }
}

// 16, on fixed inputs: the article's three countertests (step, offset390, cycle17: the data that makes v3, v3.5
// and v4 pay, v4 bailing and then distrusting its probe for 16 tiles) through every kernel and pilot, with the
// article's options and m5's d_max for the countertest's f, on workspaces of one tile and of 100 elements. The
// random property can take hundreds of cases to reach a long skip run or v4's distrust; these reach them every
// time. Also checks that they do: over all runs, every kind of work is done at least once.
TEST(ExecutedWork, equalsWhatTheModelChargesOnTheArticlesCountertests) {
  const ::maskapply::gen::CostModel m5 = ::maskapply::gen::CostModel::m5();
  const size_t n = 18 * 4096 + 2 * 2048 + 37;  // calibration, 17 tiles and a short last one with a tail
  WorkCounts all;
  size_t distrusted = 0;
  for (const ::maskapply::gen::ArticleCase& a : ::maskapply::gen::article_countertests())
    for (const Kernel k : kAllKernels)
      for (const size_t capacity : {size_t{4096}, size_t{100}}) {
        testing::Case c;
        c.kernel = k;
        c.f = a.f;
        c.mask = MaskSpec{MaskKind::less, a.thd, 0, 0};
        c.data = a.data(n, 1);
        c.options = ::maskapply::gen::model_options(m5, a.f);
        const Executed e = execute(c, capacity);
        for (size_t w = 0; w < kWorkKinds; ++w) all.n[w] += e.work.n[w];
        for (const TileDecision& t : e.trace.tiles) distrusted += t.source == CountSource::previous;
        EXPECT_EQ(differences(c, capacity, e), "") << a.name << ", " << name(k) << ", f " << name(a.f);
      }
  for (size_t w = 0; w < kWorkKinds; ++w)
    EXPECT_GT(all.n[w], 0u) << "no run did any " << kWorkNames[w] << ": the fixture no longer covers that term";
  EXPECT_GT(distrusted, 0u) << "pilot_v4 never distrusted its probe: the cycle no longer makes it bail";
}

// 16, on pilot_v6's one-pass compact (a cheap f: frfrexp, d_max 0.07 under m5, below v6_band): tiles of sparse
// random data (density 0.05 from a fixed LCG seed, 1), which the probe sends to the band and whose random empty
// blocks the run must compress, not skip, and tiles whose probe is in the band and whose rest is empty, where the
// run stops after its second piece. Checks that both happen, then the work term by term.
// pilot_v6 on f under m5's options over `tiles` decided tiles and a short tail of 37, every element unselected
// (0.75 against the mask's 0.5; 0.25 selects one): the fixed inputs below fill it.
testing::Case pilot_v6_case(Fn f, size_t tiles) {
  testing::Case c;
  c.kernel = Kernel::pilot_v6;
  c.f = f;
  c.mask = MaskSpec{MaskKind::less, 0.5f, 0, 0};
  c.options = ::maskapply::gen::model_options(::maskapply::gen::CostModel::m5(), c.f);
  c.data.assign(c.options.calib_blocks * c.options.calib_len + tiles * c.options.tile + 37, 0.75f);
  return c;
}

// Runs c on workspaces of one tile and of 100 elements; for each, covered(runs, bails) with the trace's count of
// runs of strategy s and of tiles whose run stopped early (the fixture's coverage assertions), then the work term
// by term.
template <class Covered>
void charged_on_both_workspaces(const testing::Case& c, Strategy s, Covered&& covered) {
  for (const size_t capacity : {c.options.tile, size_t{100}}) {
    const Executed e = execute(c, capacity);
    size_t runs = 0, bails = 0;
    for (const maskapply::Run& r : e.trace.runs) runs += r.strategy == s;
    for (const TileDecision& t : e.trace.tiles) bails += t.bail != kNoBail;
    covered(runs, bails);
    EXPECT_EQ(differences(c, capacity, e), "") << "workspace capacity " << capacity;
  }
}

TEST(ExecutedWork, equalsWhatTheModelChargesOnPilotV6sOnePassCompact) {
  testing::Case c = pilot_v6_case(Fn::frfrexp, 6);
  c.options.v6_cs = 0;  // the probe's table (the compact score has a test of its own below)
  const size_t region = c.options.calib_blocks * c.options.calib_len, tile = c.options.tile;
  uint64_t x = 1;  // the seed
  for (size_t i = 0; i < c.data.size(); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const size_t t = i < region ? 0 : (i - region) / tile;
    const bool sparse_rest = t % 2 == 1 && (i - region) % tile >= c.options.probe;
    if (!sparse_rest && (x >> 33) % 100 < 5) c.data[i] = 0.25f;
  }
  charged_on_both_workspaces(c, Strategy::compact, [](size_t compact, size_t stopped) {
    EXPECT_GE(compact, 4u) << "the band no longer runs: the fixture does not cover the one-pass compact";
    EXPECT_GE(stopped, 2u) << "no one-pass compact stopped at a sparse piece";
  });
}

// 16, on pilot_v6's compact score (a cheap f: frfrexp, d_max 0.2 under m5): tiles alternate between sparse random
// data (5 % from a fixed LCG seed, 1), where compact runs, and runs of 8 full blocks between 8 empty ones, where
// the score hands over to blend_skip and its counted blocks run alone (blend_skip_verified) until sparse data brings
// compact back.
TEST(ExecutedWork, equalsWhatTheModelChargesOnPilotV6sCompactScore) {
  testing::Case c = pilot_v6_case(Fn::frfrexp, 6);
  ASSERT_EQ(c.options.v6_cs, 1u);
  const size_t region = c.options.calib_blocks * c.options.calib_len, tile = c.options.tile;
  uint64_t x = 1;  // the seed
  for (size_t i = region; i < c.data.size(); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const size_t t = (i - region) / tile, block = (i - region) / 16;
    const bool on = t % 2 == 0 ? (x >> 33) % 100 < 5 : block % 16 < 8;
    if (on) c.data[i] = 0.25f;
  }
  charged_on_both_workspaces(c, Strategy::blend_skip_verified, [&](size_t counted, size_t) {
    EXPECT_GE(counted, 4u) << "the fixture does not cover blend_skip's counted blocks";
  });
  const Executed e = execute(c, tile);
  size_t compact = 0, skip = 0;
  for (const maskapply::Run& r : e.trace.runs) compact += r.strategy == Strategy::compact, skip += r.strategy == Strategy::blend_skip;
  EXPECT_GE(compact, 3u) << "the fixture does not cover compact coming back after blend_skip";
  EXPECT_GE(skip, 3u) << "the fixture does not cover blend_skip";
}

// 16, on pilot_v6's one-pass detour (a dear f: sin35, d_max 0.56 under m5, hi 143, lo6 40 of 256) and the verified
// blend's bail going on in it: tiles in a cycle of four. (0) a probe of 64 selected (the detour from the tile's
// start), then dense random data (density 0.5 from a fixed LCG seed, 1): the run never stops; (1) the same probe,
// then 3 pieces of that data and an empty rest: the run stops after the first empty piece and compact_skip runs
// the rest; (2) a full probe piece, a piece of 0.5 (the blend bails on it, at least v6_lo dense), then the data
// of (1): the detour runs from piece 2 and stops; (3) a full probe piece and an empty rest: the blend bails on an
// empty piece, compact_skip. Checks that each happens, then the work term by term.
TEST(ExecutedWork, equalsWhatTheModelChargesOnPilotV6sOnePassDetourAndTheBlendsBailIntoIt) {
  testing::Case c = pilot_v6_case(Fn::sin35, 8);
  const size_t region = c.options.calib_blocks * c.options.calib_len, tile = c.options.tile, probe = c.options.probe;
  uint64_t x = 1;  // the seed
  for (size_t i = region; i < c.data.size(); ++i) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    const size_t at = (i - region) % tile, kind = (i - region) / tile % 4;
    const bool dense = (x >> 33) % 2 == 0;
    bool sel;
    if (at < probe) sel = kind >= 2 || at < 64;
    else if (kind == 0) sel = dense;
    else if (kind == 1) sel = at < 4 * probe && dense;
    else if (kind == 2) sel = at < 5 * probe && dense;
    else sel = false;
    if (sel) c.data[i] = 0.25f;
  }
  charged_on_both_workspaces(c, Strategy::detour, [&](size_t detour, size_t bails) {
    EXPECT_GE(detour, 6u) << "the fixture does not cover pilot_v6's one-pass detour";
    EXPECT_GE(bails, 6u) << "no one-pass detour stopped, or no verified blend bailed";
  });
  // The cycle's kinds 1 .. 3 as the model and the reference run them (one case of each kind covers the tile).
  const Executed e = execute(c, c.options.tile);
  size_t after_blend = 0;
  for (size_t k = 1; k < e.trace.runs.size(); ++k)
    after_blend +=
        e.trace.runs[k - 1].strategy == Strategy::blend_skip_verified && e.trace.runs[k].strategy == Strategy::detour;
  EXPECT_GE(after_blend, 2u) << "the verified blend's bail never went on in the one-pass detour";
}

// pilot_v6's verified blend for a dear f skips its empty blocks as one blend_skip run across its pieces (sin35:
// d_max 0.56, hi 143 of 256, pieces of 16 blocks, bailing below 0.588): in every tile the blocks q with q % 8 of 0
// or 7 are empty, the rest full (0.75 per piece: it never bails on them), so that each piece ends and begins with
// an empty block: the run's switches cross the pieces' boundaries, a switch charged at a piece's start is one the
// kernel did not execute. Odd tiles are empty from piece 5 on: the blend bails after piece 5 (compact_skip on).
TEST(ExecutedWork, equalsWhatTheModelChargesOnPilotV6sVerifiedBlendSkipAcrossItsPieces) {
  testing::Case c = pilot_v6_case(Fn::sin35, 4);
  const size_t region = c.options.calib_blocks * c.options.calib_len, tile = c.options.tile;
  for (size_t i = region; i < c.data.size(); ++i) {
    const size_t at = (i - region) % tile, q = at / 16, t = (i - region) / tile;
    if (q % 8 != 0 && q % 8 != 7 && (t % 2 == 0 || q < 6 * 16)) c.data[i] = 0.25f;
  }
  charged_on_both_workspaces(c, Strategy::blend_skip_verified, [](size_t runs, size_t bails) {
    EXPECT_GE(runs, 4u) << "the fixture does not cover pilot_v6's verified blend";
    EXPECT_GE(bails, 2u) << "no verified blend bailed";
  });
}

// pilot_v6's blend_skip for a cheap f whose probe is above hi and lo (frfrexp: hi 18, lo 40 of 256): tiles whose
// probe is dense and whose rest alternates dense and empty blocks, so that the run pays its switches.
TEST(ExecutedWork, equalsWhatTheModelChargesOnPilotV6sBlendSkipForACheapF) {
  testing::Case c = pilot_v6_case(Fn::frfrexp, 4);
  const size_t region = c.options.calib_blocks * c.options.calib_len, tile = c.options.tile;
  for (size_t i = region; i < c.data.size(); ++i) {
    const size_t at = (i - region) % tile;
    if (at < c.options.probe || (at / 16) % 3 == 0) c.data[i] = 0.25f;  // a full probe; then one block in three
  }
  charged_on_both_workspaces(c, Strategy::blend_skip, [](size_t skip, size_t) {
    EXPECT_GE(skip, 4u) << "the fixture does not cover pilot_v6's blend_skip for a cheap f";
  });
}

// pilot_v6's switch score when d_max < 0 (sqrt under m5: no probe; switch 3, blend from 17, back from 6, one block
// in 4 counted in blend): one selected element in the blocks below, by the block g of the tile, in a cycle of four
// tiles. (0) blocks 0 .. 15 alternate (blend from block 8), then empty (six counted empty blocks: blend_skip from
// block 32, on probation), blocks 80 .. 95 alternate again (blend at once), and from block 96 every block (the tile
// ends in blend); (1) starts in blend, every block to 127, then empty (blend_skip again); (2) empty; (3) every
// other block (blend_skip and blend by turns, the probation's switch sending it back). A short last tile of 37
// elements goes on in the mode it finds. Checks that blend's counted blocks, several blend_skip runs and a tile
// that starts in blend occur, then the work term by term (blend_skip's switches across its runs, blend's counts).
TEST(ExecutedWork, equalsWhatTheModelChargesOnPilotV6sSwitchScore) {
  testing::Case c = pilot_v6_case(Fn::sqrt, 8);
  const size_t region = c.options.calib_blocks * c.options.calib_len, tile = c.options.tile;
  for (size_t i = region; i < c.data.size(); ++i) {
    const size_t at = (i - region) % tile, g = at / 16, kind = (i - region) / tile % 4;
    if (at % 16 != 5 || (i - region) / tile >= 8) continue;
    const bool sel = kind == 0 ? (g < 16 && g % 2 == 0) || (g >= 80 && g < 96 && g % 2 == 0) || g >= 96
                     : kind == 1 ? g < 128
                     : kind == 3 ? g % 2 == 0
                                 : false;
    if (sel) c.data[i] = 0.25f;
  }
  charged_on_both_workspaces(c, Strategy::blend_verified, [](size_t counted, size_t) {
    EXPECT_GE(counted, 20u) << "the fixture does not cover blend's counted blocks";
  });
  const Executed e = execute(c, c.options.tile);
  size_t skips = 0, starts_in_blend = 0;
  for (const maskapply::Run& r : e.trace.runs) skips += r.strategy == Strategy::blend_skip;
  for (const TileDecision& t : e.trace.tiles) {
    if (t.source == CountSource::calibration) continue;
    for (const maskapply::Run& r : e.trace.runs)
      if (r.begin == t.begin) starts_in_blend += r.strategy == Strategy::blend || r.strategy == Strategy::blend_verified;
  }
  EXPECT_GE(skips, 8u) << "blend_skip did not come back often enough";
  EXPECT_GE(starts_in_blend, 2u) << "no tile started in the mode the tile before ended in (blend)";
}

}  // namespace
}  // namespace maskapply::prop
