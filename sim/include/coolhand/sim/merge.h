// `coolhand-sim merge`: combines the shard files of a sharded `compare` or
// `bound` run (shard.h) into exactly what the single-machine command
// writes. Shards of `tune` go through merge_tune_shards_hook (merge.cpp).
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace coolhand::sim {

struct MergeOptions {
  // compare: the directory for overlay.svg (unset: compare's default,
  // coolhand-sim-compare) and the Markdown file (empty: none). bound
  // writes to standard output only and takes neither.
  std::optional<std::string> out;
  std::string markdown;
  // Check and decode everything, print the results' text to `os`, write
  // no file (the fuzz target, fuzz/sim/fuzz_sim_shard.cpp).
  bool dry_run = false;
};

// A shard file's name (for messages) and text.
struct ShardText {
  std::string path;
  std::string text;
};

// Reads `paths`, checks that they are the shards 1..N of one run, each
// exactly once (same kind, N and run identity), and writes the merged
// result: standard output to `os`, files as MergeOptions says. Returns an
// error message naming the files concerned, or an empty string.
[[nodiscard]] std::string merge_shards(const std::vector<std::string>& paths,
                                       const MergeOptions& options, std::ostream& os);
// The same on shard files already read.
[[nodiscard]] std::string merge_shard_texts(const std::vector<ShardText>& shards,
                                            const MergeOptions& options, std::ostream& os);

}  // namespace coolhand::sim
