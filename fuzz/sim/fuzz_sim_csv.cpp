// libFuzzer entry point for the simulator's CSV reader (workloads and sensor
// traces), then binding the table as a workload of a fixed two-device model
// and playing it through. Any bytes must give either a table that keeps the
// reader's promises or one located error; a bound workload must only ever
// hand out demands in [0,1].
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <variant>

#include "coolhand/sim/workload.h"

namespace {

using coolhand::config::ConfigError;
using coolhand::sim::CsvTable;
using coolhand::sim::ModelSpec;
using coolhand::sim::Workload;

const ModelSpec& model() {
  static const ModelSpec spec = [] {
    auto r = coolhand::sim::parse_model(
        "name: m\nskin: {nodes: [a], limit_c: 45}\nnodes: [{name: a, capacity_j_per_k: 1}]\n"
        "devices:\n"
        "  - {name: cpu, power_w: [1, 0], performance: [1, 0], heat: [{node: a}]}\n"
        "  - {name: gpu, power_w: [1, 0], performance: [1, 0], heat: [{node: a}]}\n",
        "m.yaml");
    if (!std::holds_alternative<ModelSpec>(r)) std::abort();
    return std::get<ModelSpec>(r);
  }();
  return spec;
}

void check_error(const ConfigError& e) {
  if (e.file != "fuzz.csv" || e.message.empty() || e.line < 0 || e.to_string().empty())
    __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto r = coolhand::sim::parse_csv(text, "fuzz.csv");
  if (const auto* e = std::get_if<ConfigError>(&r)) {
    check_error(*e);
    return 0;
  }
  const auto& t = std::get<CsvTable>(r);
  if (t.columns.size() < 2 || t.columns[0] != "time_s" || t.rows.empty()) __builtin_trap();
  if (t.rows.size() != t.times_s.size() || t.rows.size() != t.lines.size()) __builtin_trap();
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (t.rows[i].size() + 1 != t.columns.size() || !(t.times_s[i] >= 0)) __builtin_trap();
    if (i > 0 && !(t.times_s[i] > t.times_s[i - 1])) __builtin_trap();
  }
  auto b = Workload::bind(t, model());
  if (const auto* e = std::get_if<ConfigError>(&b)) {
    check_error(*e);
    return 0;
  }
  auto& w = std::get<Workload>(b);
  if (w.demand().size() != model().devices.size()) __builtin_trap();
  // Play the rows through: 65 seeks spread over the run, whatever its length.
  const auto end = w.duration().count();
  const std::int64_t step = end / 64 + 1;
  for (std::int64_t now = 0; now <= end; now += step) {
    w.seek(coolhand::policy::Time(now));
    for (double d : w.demand())
      if (!(d >= 0 && d <= 1)) __builtin_trap();
  }
  return 0;
}
