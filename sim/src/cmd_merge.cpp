// `coolhand-sim merge FILES... [-o DIR] [--markdown FILE]`: the shard files
// of a sharded compare or bound run (`--shard K/N`) into what the command
// writes on one machine; see merge.h.
#include "cmd_merge.h"

#include <iostream>
#include <memory>

#include "coolhand/sim/merge.h"

namespace coolhand::sim {

CLI::App* add_merge_command(CLI::App& app) {
  struct Args {
    std::vector<std::string> files;
    std::string out, markdown;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "merge",
      "combine the shard files of `compare --shard K/N` or `bound --shard K/N` (all N of one "
      "run, each once) into exactly what the command writes when run on one machine");
  cmd->add_option("files", args->files, "shard files (JSON), in any order")->required();
  auto* out_opt = cmd->add_option("--out,-o", args->out,
                                  "compare: directory for overlay.svg (default: "
                                  "coolhand-sim-compare, as compare)");
  cmd->add_option("--markdown", args->markdown,
                  "compare: also write the table as Markdown to FILE");
  cmd->callback([args, out_opt] {
    MergeOptions options;
    if (out_opt->count() > 0) options.out = args->out;
    options.markdown = args->markdown;
    const std::string error = merge_shards(args->files, options, std::cout);
    std::cout.flush();
    if (!error.empty()) {
      std::cerr << "coolhand-sim: " << error << "\n";
      throw CLI::RuntimeError(1);
    }
  });
  return cmd;
}

}  // namespace coolhand::sim
