// Sharded sweeps: `compare --shard K/N` and `bound --shard K/N` run a
// deterministic share of a command's work units and write a shard file;
// `coolhand-sim merge` (merge.h) checks that a set of shard files is one
// whole run and writes what the single-machine command writes.
//
// Work units. compare: with --bound, first one bound per workload, then
// one run per (workload, controller) cell, workload-major, in command-line
// order; without --bound the cells alone. A tight fan bound's unit runs
// its workload's cells again for its floor (run_compare's own code, the
// same runs, so the same floor as on one machine) and keeps the bound
// only. bound: one LP per workload.
// Unit u (0-based) belongs to shard (u mod N) + 1: round robin spreads a
// suite's long workloads over the shards. A shard may own no unit.
//
// The shard file is JSON (docs/simulator.md, "Sharded sweeps"):
//   format   "coolhand-sim shard"        version  kShardFormatVersion
//   kind     "compare" | "bound" | "tune"
//   run      the whole command's identity: model, workloads and policies
//            by name and FNV-1a 64 digest of their files' bytes, governors,
//            seed and options; identical in every shard of one run
//   shard    {"index": K, "count": N}
//   body     the kind's results for the units this shard owns
// Doubles are written with the shortest text that reads back to the same
// value, so merged output is byte-identical to a single-machine run.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "coolhand/sim/compare.h"

namespace coolhand::sim {

inline constexpr int kShardFormatVersion = 1;
// Most shards a run may be cut into.
inline constexpr std::size_t kMaxShards = 100000;

struct ShardSpec {
  std::size_t index = 1;  // K, 1-based
  std::size_t count = 1;  // N
};

// "K/N" with 1 <= K <= N <= kMaxShards; errors name the text.
[[nodiscard]] std::variant<ShardSpec, std::string> parse_shard_spec(std::string_view text);
// Whether work unit `unit` (0-based) is shard `s`'s.
[[nodiscard]] bool shard_owns(const ShardSpec& s, std::size_t unit);
// FNV-1a 64 of `bytes` as 16 hex digits: a run's identity, not a security check.
[[nodiscard]] std::string fnv1a64_hex(std::string_view bytes);
// A file's FNV-1a 64; nullopt when it cannot be read.
[[nodiscard]] std::optional<std::string> file_digest(const std::string& path);
// The default shard file name: "<kind>-shard-K-of-N.json".
[[nodiscard]] std::string default_shard_file(std::string_view kind, const ShardSpec& s);

// Why a shard could not be run (an unreadable input, a failed run).
struct ShardError {
  std::string message;
};

// A compare run as given on the command line, for its shard's identity.
struct CompareJob {
  const ModelSpec* model = nullptr;
  std::string model_path;
  const std::vector<Workload>* workloads = nullptr;
  std::vector<std::string> workload_paths;  // parallel to *workloads
  const std::vector<ControllerChoice>* controllers = nullptr;
  // Per controller: its policy file, or empty for a governor.
  std::vector<std::string> policy_paths;
  std::uint64_t seed = 1;
  std::optional<FanBoundChoice> bound;  // --bound and its --fan-bound
};

// Runs shard `s`'s units of `job` (progress lines on `progress`, may be
// empty) and returns the shard file's text, or an error.
[[nodiscard]] std::variant<std::string, ShardError> run_compare_shard(
    const CompareJob& job, const ShardSpec& s,
    const std::function<void(std::string_view)>& progress);

// A bound run: one LP per workload, same model, limit and decision step.
struct BoundJob {
  const ModelSpec* model = nullptr;
  std::string model_path;
  const std::vector<Workload>* workloads = nullptr;
  std::vector<std::string> workload_paths;
  BoundOptions options;  // limit, decision step, progress
};

// Runs shard `s`'s workloads of `job`; the shard file's text, or an error.
[[nodiscard]] std::variant<std::string, ShardError> run_bound_shard(const BoundJob& job,
                                                                    const ShardSpec& s);

}  // namespace coolhand::sim
