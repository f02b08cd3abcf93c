// SPDX-License-Identifier: MIT
// The countertest hunt for one pilot and f: threshold-aimed seeds, an antiqsort-like adversary, an evolutionary
// search with one archive cell per mechanism, and shrinking. Every random choice comes from the seed; the work
// is an evaluation budget (time is only a cap, and the result says when the cap cut it short), so a seed and a
// budget give the same finds on every machine. docs/hunt.md explains each part.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "fast_pilot.h"
#include "pattern.h"

namespace maskapply::gen::hunt {

// The default array: the calibration (2 tiles of 4096) and 34 decided tiles, 36 tiles in all (the regret
// fuzz target's size).
inline constexpr size_t kHuntN = 8192 + 34 * 4096;

// A pattern and its score.
struct Find {
  Pattern pattern;
  Score score;
  std::string origin;       // "seed: ...", "adversary: ...", "evolution"
  double unshrunk = 0;      // regret before shrinking (0: not shrunk)
};

// Scores patterns with one Scorer over n elements and counts evaluations. With cache (the default) the Scorer
// keeps the oracle's window transfers, and a pattern scored before (the same text and ==, e.g. a mutation that
// undid itself, a shrinking step tried twice) gets its earlier Score back: the same Score, since scoring is a
// function of the pattern (generators_hunt_test checks both against an Evaluator without cache). Every call
// counts as an evaluation; memo_hits() says how many were answered from the memo.
class Evaluator {
 public:
  Evaluator(Kernel pilot, Fn f, const CostModel& m, const PilotOptions& o = {}, size_t n = kHuntN, bool cache = true)
      : scorer_(pilot, f, m, o, cache), n_(n), memo_limit_(cache ? 65536 : 0) {}
  Evaluator(Scorer::Simulate sim, Kernel as, Fn f, const CostModel& m, const PilotOptions& o = {}, size_t n = kHuntN,
            bool cache = true)
      : scorer_(std::move(sim), as, f, m, o, cache), n_(n), memo_limit_(cache ? 65536 : 0) {}
  Score operator()(const Pattern& p) {
    ++evaluations_;
    std::string key;
    if (memo_limit_) {
      key = to_text(p);
      if (const auto it = memo_.find(key); it != memo_.end() && it->second.first == p) {
        ++memo_hits_;
        return it->second.second;
      }
    }
    summary_.assign(p, n_);
    Score s = scorer_.score(summary_);
    if (memo_limit_) {
      // At most memo_limit_ entries and about 64 MB of patterns (a bound's witness can have thousands of
      // segments), then it starts afresh.
      const size_t bytes = 2 * key.size() + p.segments.size() * sizeof(Segment);
      if (memo_.size() >= memo_limit_ || memo_bytes_ + bytes > (size_t{64} << 20)) memo_.clear(), memo_bytes_ = 0;
      memo_bytes_ += bytes;
      memo_.insert_or_assign(std::move(key), std::pair<Pattern, Score>{p, s});
    }
    return s;
  }
  Find find(const Pattern& p, std::string origin) { return Find{p, (*this)(p), std::move(origin), 0}; }
  size_t evaluations() const { return evaluations_; }
  size_t memo_hits() const { return memo_hits_; }
  size_t n() const { return n_; }
  const Scorer& scorer() const { return scorer_; }

 private:
  Scorer scorer_;
  Summary summary_;
  size_t n_;
  size_t evaluations_ = 0, memo_hits_ = 0;
  size_t memo_limit_;
  size_t memo_bytes_ = 0;
  std::unordered_map<std::string, std::pair<Pattern, Score>> memo_;
};

// Patterns aimed at the pilot's own thresholds (from the options it decides by, Scorer::decides_by, and the
// injected d_max): probe heads of hi / lo / xlo ± 1 selected elements, verify blocks just above and below
// bail·d_max, a last-element sentinel, the calibration region, v4's distrust window. Not the article's patterns
// (no step / offset / cycle given). The calibration-region seeds span n elements.
std::vector<std::pair<Pattern, std::string>> threshold_seeds(const Scorer& sc, size_t n = kHuntN);

// The adversary. For each branch the pilot can take (set by what it reads: the probe count, and for the
// verified blend the density of each verify block), it fixes what the pilot reads to steer it there and
// fills what it never reads, by coordinate descent over a menu of densities, to maximise the cost gap. For the
// memoryless pilots (v1 .. v3.5) every tile is decided alone, so pilot cost is a sum over tiles; the block
// oracle is a sum over tiles too, up to one misprediction M per tile edge where a blend_skip run may continue,
// so the regret of any array is at most max over its tiles t of pilot(t) / (oracle(t) - M): one repeated worst
// tile is (to that M) the worst array, and the adversary's best repeated tile bounds what the evolutionary
// search can add for these pilots (within the tiles the adversary's menus can build). For v4 it then searches
// sequences of tiles (period k tiles, k <= distrust + 2) over its state (distrust, prev), built from the worst
// tiles of distinct mechanisms, plain tiles and bait tiles that make the verified blend bail.
// Returns one find per branch reached (the best of each), best first.
std::vector<Find> adversary(Evaluator& ev, uint64_t seed);

// The seed-aware adversary, for pilot_v5 (empty for other pilots): its probe positions follow from its seed,
// which the options carry and every reproduce line prints, so an input may know them. Each decided tile's probed
// blocks get one kind of block and every other block another (kinds: empty, one element, alternating one element
// and empty, alternating full and empty, full); one find per pair of kinds, best first. pilot_v5's blind figures
// (the search above, whose patterns do not know the seed) are what it costs while the seed is secret; these are
// what it costs when it is not (docs/hunt.md, "Knowing the seed").
std::vector<Find> seed_aware(Evaluator& ev);

// Shrinks f: fewer segments, round lengths and densities, no phase, no random segment or seed that is not
// needed; every step keeps the regret >= keep x the original's.
Find shrink(Evaluator& ev, const Find& f, double keep = 0.99);

struct Progress {
  size_t evaluations = 0;
  double seconds = 0;
  double best = 0;
  std::string phase;
};

struct HuntConfig {
  uint64_t seed = 1;
  size_t budget = 20000;     // evaluations for the evolutionary search (seeds and the adversary come first)
  double seconds = 60;       // cap on the whole hunt of this pilot x f; 0: none
  size_t keep = 5;           // finds reported (deduplicated by mechanism), best first
  std::function<void(const Progress&)> progress;  // called now and then
  bool seeds = true, adversary = true;  // the threshold seeds and the adversary start the archive
  bool seed_aware = true;               // ... and, for pilot_v5, the seed-aware adversary
  std::vector<Pattern> start;           // more starting patterns (tests start from a plain one)
  std::string start_origin = "given";   // what a find grown from them says of them (origin "seed: ...")
};

struct HuntResult {
  std::vector<Find> finds;   // shrunk, deduplicated by mechanism, best first
  double start = 0;          // the best threshold seed's regret: where the search started
  double adversary = 0;      // the adversary's best
  double seed_aware = 0;     // the seed-aware adversary's best (pilot_v5; 0 otherwise)
  size_t evaluations = 0;
  double seconds = 0;
  bool capped = false;       // the time cap stopped the evolutionary search before its budget
  size_t cells = 0;          // mechanisms in the archive
};

HuntResult hunt(Evaluator& ev, const HuntConfig& c);

// The one-knob baseline a user would try first: the step family's head length L (period tile, `seg L:1
// rest:0`) for every L in [0, tile]; returns the best L's find.
Find step_sweep(Evaluator& ev, size_t tile = 4096);

}  // namespace maskapply::gen::hunt
