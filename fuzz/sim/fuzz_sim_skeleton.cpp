// libFuzzer entry point for `coolhand-sim fit`'s skeleton reader
// (parse_skeleton: config's YAML front end, the `free` markers, then the
// model schema) and the fitted-model writer. Any bytes must give either a
// skeleton whose free numbers all name a place in the spec, or one located
// error; a skeleton's spec written by model_yaml must read back.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <variant>

#include "coolhand/sim/fit.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using coolhand::config::ConfigError;
  using coolhand::sim::FitSkeleton;
  using coolhand::sim::FreeParam;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = coolhand::sim::parse_skeleton(text, "fuzz.yaml");
  if (const auto* e = std::get_if<ConfigError>(&r)) {
    if (e->file != "fuzz.yaml" || e->message.empty()) __builtin_trap();
    return 0;
  }
  const auto& sk = std::get<FitSkeleton>(r);
  for (const auto& f : sk.free) {
    if (f.name.empty()) __builtin_trap();
    switch (f.kind) {
      case FreeParam::Kind::capacity:
      case FreeParam::Kind::to_ambient:
        if (f.index >= sk.spec.nodes.size()) __builtin_trap();
        break;
      case FreeParam::Kind::link:
        if (f.index >= sk.spec.links.size()) __builtin_trap();
        break;
      case FreeParam::Kind::idle:
        if (f.index >= sk.spec.devices.size()) __builtin_trap();
        break;
      case FreeParam::Kind::power:
        if (f.index >= sk.spec.devices.size() || f.level >= sk.spec.devices[f.index].power_w.size())
          __builtin_trap();
        break;
    }
  }
  const auto written = coolhand::sim::model_yaml(sk.spec, "fuzz");
  if (!std::holds_alternative<coolhand::sim::ModelSpec>(
          coolhand::sim::parse_model(written, "written.yaml")))
    __builtin_trap();
  return 0;
}
