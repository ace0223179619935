// libFuzzer entry point for `coolhand-sim merge`'s reader: the input is cut
// at NUL bytes into shard files (shard.h), which are checked as a set and
// decoded as merge does (dry run: the results' text, no files written).
// Any bytes must give either merged text or one error that says it comes
// from merge; nothing may crash, hang or allocate without bound.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "coolhand/sim/merge.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using coolhand::sim::ShardText;
  std::vector<ShardText> shards;
  std::string current;
  for (std::size_t i = 0; i <= size; ++i) {
    if (i == size || data[i] == 0) {
      shards.push_back({"fuzz-" + std::to_string(shards.size()) + ".json", current});
      current.clear();
      if (shards.size() == 8) break;
      continue;
    }
    current.push_back(static_cast<char>(data[i]));
  }
  coolhand::sim::MergeOptions options;
  options.dry_run = true;
  std::ostringstream out;
  const std::string error = coolhand::sim::merge_shard_texts(shards, options, out);
  if (!error.empty() && error.rfind("merge: ", 0) != 0) __builtin_trap();
  return 0;
}
