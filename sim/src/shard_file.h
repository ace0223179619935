// The shard file's envelope (shard.h) and the JSON of the results it
// carries, private to the simulator library: shard.cpp and
// shard_results.cpp write it, merge.cpp reads it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <variant>

#include "coolhand/sim/bound.h"
#include "coolhand/sim/runner.h"
#include "coolhand/sim/shard.h"

namespace coolhand::sim {

using Json = nlohmann::json;  // objects keep keys sorted: one text per value

// One shard file as read: the envelope checked, run and body kept as JSON
// (behind shared_ptr: Json's own move may throw, a ShardFile's must not).
struct ShardFile {
  std::string path;                 // as given, for messages
  std::string kind;                 // "compare", "bound", "tune"
  std::shared_ptr<const Json> run;  // the whole command's identity
  ShardSpec shard;
  std::shared_ptr<const Json> body;
};

// The shard file's text (pretty JSON, newline-terminated).
[[nodiscard]] std::string shard_text(std::string_view kind, const Json& run, const ShardSpec& s,
                                     const Json& body);
// Parses and checks the envelope of a shard file's text (format, version,
// kind, K/N); the body is checked by the kind's merge. `path` names the
// file in errors.
[[nodiscard]] std::variant<ShardFile, std::string> parse_shard_text(const std::string& text,
                                                                    const std::string& path);

// Doubles that read back bit for bit: finite values as JSON numbers (the
// shortest round-trip text), NaN and infinities as strings.
[[nodiscard]] Json num(double v);
// Throws Json::type_error on anything else.
[[nodiscard]] double get_num(const Json& j);

[[nodiscard]] Json metrics_to_json(const Metrics& m);
[[nodiscard]] Metrics metrics_from_json(const Json& j);
// The overlay plot's series only (time_s, max_skin_c, performance).
[[nodiscard]] Json overlay_trace_to_json(const Trace& t);
[[nodiscard]] Trace overlay_trace_from_json(const Json& j);
[[nodiscard]] Json bound_to_json(const BoundResult& b);
[[nodiscard]] BoundResult bound_from_json(const Json& j);

}  // namespace coolhand::sim
