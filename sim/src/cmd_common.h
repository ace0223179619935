// What main.cpp's subcommands and cmd_replay.cpp share (cmd_common.cpp):
// the bundled data's lookup, the inputs loaded or a std::runtime_error
// naming the file (run_command, cmd_status.h, prints it), the output
// directory and writes.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "coolhand/config/policy_file.h"
#include "coolhand/sim/model.h"
#include "coolhand/sim/workload.h"

namespace coolhand::sim {

inline constexpr const char* kReferenceModel = "models/reference-umpc.yaml";
inline constexpr const char* kReferenceWorkload = "workloads/gaming.csv";
inline constexpr const char* kReferencePolicy = "policies/reference-umpc.yaml";

// A bundled file ("workloads/gaming.csv") found in $COOLHAND_SIM_DATA, then
// the install tree (<prefix>/share/coolhand), then the source tree this
// binary was built from; need_data throws when none has it.
[[nodiscard]] std::optional<std::string> find_data(const std::string& rel);
[[nodiscard]] std::string need_data(const std::string& rel);

[[nodiscard]] ModelSpec load_model(const std::string& path);
// The workload bound to `model`; its warnings go to stderr (once: each
// file is loaded once per command).
[[nodiscard]] Workload load_workload(const std::string& path, const ModelSpec& model);
// The workload bound to each of `models`, in their order (the file read
// once); a warning is printed once however many of the bindings give it.
[[nodiscard]] std::vector<Workload> load_workload(const std::string& path,
                                                  const std::vector<const ModelSpec*>& models);
[[nodiscard]] config::PolicyDocument load_policy(const std::string& path);

// Creates `dir` and its parents.
void ensure_dir(const std::string& dir);
// Throws `error` (write_text's and the like's result) unless it is empty.
void check(const std::string& error);
// The file name without directory and extension: a policy's name in titles.
[[nodiscard]] std::string stem(const std::string& path);

}  // namespace coolhand::sim
