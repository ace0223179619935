// Per-step sensor values of a replay (sensor_series.h).
#include "coolhand/sim/sensor_series.h"

#include <fmt/format.h>

#include <cmath>
#include <limits>

namespace coolhand::sim {

void SensorSeries::init(const policy::Engine& engine) {
  names.clear();
  for (const auto& s : engine.spec().sensors) names.push_back(s.name);
  value_c.assign(names.size(), {});
  time_s.clear();
}

void SensorSeries::append(const policy::Engine& engine, policy::Time at) {
  time_s.push_back(static_cast<double>(at.count()) / 1000.0);
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto v = engine.sensor_value(policy::SensorId{static_cast<std::uint16_t>(i)});
    value_c[i].push_back(v ? v->celsius() : std::numeric_limits<double>::quiet_NaN());
  }
}

std::string SensorSeries::csv() const {
  std::string out = "time_s";
  for (const auto& n : names) out += "," + n;
  out += "\n";
  for (std::size_t k = 0; k < time_s.size(); ++k) {
    out += fmt::format("{:.3f}", time_s[k]);
    for (const auto& v : value_c) {
      if (std::isnan(v[k]))
        out += ",";
      else
        out += fmt::format(",{:.3f}", v[k]);
    }
    out += "\n";
  }
  return out;
}

}  // namespace coolhand::sim
