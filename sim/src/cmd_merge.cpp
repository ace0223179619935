// `coolhand-sim merge FILES... [-o DIR] [--markdown FILE]`: the shard files
// of a sharded compare, bound or tune run (`--shard K/N`) into what the
// command writes on one machine; see merge.h and tune_shard.h.
#include "cmd_merge.h"

#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "cmd_status.h"
#include "coolhand/sim/merge.h"

namespace coolhand::sim {

namespace {

// Whether the first file is a tune shard (tune merges by running its local
// stage, cmd_tune.cpp); anything unreadable goes to merge_shards, which
// names the problem.
bool is_tune_shard(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const auto doc = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return doc.is_object() && doc.value("kind", "") == "tune";
}

}  // namespace

void add_merge_command(CLI::App& app, const DataLookup& need_data) {
  struct Args {
    std::vector<std::string> files;
    std::string out, markdown;
    bool quiet = false;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "merge",
      "combine the shard files of `compare`, `bound` or `tune --shard K/N` (all N of one run, "
      "each once) into exactly what the command writes when run on one machine (tune: then "
      "its local stage)");
  cmd->add_option("files", args->files, "shard files (JSON), in any order")->required();
  auto* out_opt = cmd->add_option("--out,-o", args->out,
                                  "compare: directory for overlay.svg (default: "
                                  "coolhand-sim-compare, as compare); tune: output directory "
                                  "(default: coolhand-sim-tune, as tune)");
  cmd->add_option("--markdown", args->markdown,
                  "compare: also write the table as Markdown to FILE");
  cmd->add_flag("--quiet,-q", args->quiet, "tune: no progress lines on stderr");
  run_in_callback(*cmd, "", [args, out_opt, need_data] {
    if (!args->files.empty() && is_tune_shard(args->files.front()))
      return merge_tune_files(args->files, out_opt->count() > 0 ? args->out : "coolhand-sim-tune",
                              args->quiet, need_data);
    MergeOptions options;
    if (out_opt->count() > 0) options.out = args->out;
    options.markdown = args->markdown;
    const std::string error = merge_shards(args->files, options, std::cout);
    std::cout.flush();
    if (!error.empty()) throw std::runtime_error(error);
    return 0;
  });
}

}  // namespace coolhand::sim
