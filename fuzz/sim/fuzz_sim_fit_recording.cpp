// libFuzzer entry point for `coolhand-sim fit --recording`'s binding
// (fit_recording.h): recordings the reader accepts, bound to a skeleton
// made from the recording's own names (every physical sensor on node a,
// every device with four levels heating it), so inputs reach the slot maps,
// reads, pushes and knob writes rather than stopping at a name. The last
// byte picks the ambient: constant, or the first physical sensor. Either one
// error naming the file, or a segment whose series all have the grid's
// length. The grid step is chosen so a grid has at most 10^5 points (the
// binder itself allows 10^7, too much memory for a fuzzer's run).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include "coolhand/recorder/file.h"
#include "coolhand/sim/fit_recording.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coolhand;
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto read = recorder::read_recording(bytes);
  if (!read.recording || read.recording->records.empty()) return 0;
  const auto& rec = *read.recording;
  sim::ModelSpec spec;
  spec.name = "fuzz";
  spec.nodes.resize(2);
  spec.nodes[0].name = "a";
  spec.nodes[0].capacity_j_per_k = 2;
  spec.nodes[1].name = "b";
  spec.nodes[1].capacity_j_per_k = 20;
  spec.nodes[1].to_ambient_w_per_k = 0.5;
  std::string first_physical;
  for (std::size_t i = 0; i < rec.meta.sensors.size() && i < rec.meta.sensor_kinds.size(); ++i) {
    if (rec.meta.sensor_kinds[i] != 0) continue;
    if (first_physical.empty()) first_physical = rec.meta.sensors[i];
    sim::SensorModelSpec s;
    s.name = rec.meta.sensors[i];
    s.node = "a";
    spec.sensors.push_back(s);
  }
  for (const auto& name : rec.meta.devices) {
    sim::DeviceModelSpec d;
    d.name = name;
    d.power_w = {4, 3, 2, 1};
    d.performance = {1, 0.75, 0.5, 0.25};
    d.heat = {sim::HeatShare{"a", 1.0}};
    spec.devices.push_back(d);
  }
  sim::RecordingFitOptions opt;
  const double span_s =
      static_cast<double>(rec.records.back().t_ns - rec.records.front().t_ns) / 1e9;
  opt.step_s = std::max(1.0, span_s / 1e5);
  if ((data[size - 1] & 1) != 0 && !first_physical.empty())
    opt.ambient_sensor = first_physical;
  else
    opt.ambient_c = 25.0;
  std::vector<config::ConfigError> warnings;
  auto r = sim::bind_fit_recording(rec, "fuzz.chrec", spec, opt, warnings);
  if (const auto* e = std::get_if<config::ConfigError>(&r)) {
    if (e->file != "fuzz.chrec" || e->message.empty()) __builtin_trap();
    return 0;
  }
  const auto& seg = std::get<sim::FitSegment>(r);
  const auto n = seg.time_s.size();
  if (n < 3 || seg.ambient_c.size() != n || seg.reading_c.size() != spec.sensors.size() ||
      seg.load.size() != spec.devices.size())
    __builtin_trap();
  for (const auto& series : seg.reading_c)
    if (series.size() != n) __builtin_trap();
  for (const auto& dev : seg.load)
    for (const auto& level : dev) {
      if (level.size() != n) __builtin_trap();
      for (double x : level)
        if (!(x >= -1e-9 && x <= 1 + 1e-9)) __builtin_trap();
    }
  return 0;
}
