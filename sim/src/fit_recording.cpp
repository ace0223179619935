// Fit data from a coolhandd flight recording (rules in fit_recording.h).
//
// The recording's events become a piecewise-constant table like a fit CSV
// (time_s, ambient_c, per device <device>_level and <device>_demand), one
// row wherever a level, the demand or the ambient changes, which
// bind_fit_csv resamples as it does any CSV; the readings are put on the
// grid here, each held until the next as the daemon saw it (a CSV's rule),
// from the read and push records themselves.
#include "coolhand/sim/fit_recording.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <optional>

#include "coolhand/recorder/record.h"

namespace coolhand::sim {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr std::uint32_t kReadOk = 2;  // port_read flags bit 1: the read succeeded

struct Sample {
  double t_s;
  double value;       // NaN: unknown from here (a failed read, the sensor gone, the loop ended)
  bool holds = true;  // false: pushed with a window wider than kHoldWindowC; no hold
};

// A pushed reading holds until the next only while the window the loop
// then set around it is at most this wide: between pushes the reading is
// inside the window, so the held value is within the window of it (the
// port chain's lab copy sets 0.2 °C windows; the shipped policies' coarse
// windows, far from every limit, are 4 °C).
constexpr double kHoldWindowC = 0.5;

config::ConfigError err(std::string_view file, std::string msg) {
  return config::ConfigError{std::string(file), 0, 0, {}, std::move(msg)};
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// The recording's physical sensors (policy index -> name; others empty).
std::vector<std::string> physical_names(const recorder::Metadata& m) {
  std::vector<std::string> out(m.sensors.size());
  for (std::size_t i = 0; i < m.sensors.size(); ++i)
    if (i < m.sensor_kinds.size() && m.sensor_kinds[i] == 0) out[i] = m.sensors[i];
  return out;
}

std::optional<std::size_t> find(const std::vector<std::string>& names, const std::string& name) {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (!name.empty() && names[i] == name) return i;
  return std::nullopt;
}

// Sensor s on the grid: at t_k its latest sample at or before t_k (NaN
// before the first and after a break). The fit compares it with the model
// at t_k. A sample from later in the interval (this file's first rule)
// showed the fit each change up to a step early, and in window mode, where
// a sample is pushed only as the reading leaves its window, each pushed
// value is the edge the reading just crossed: gaming-7's fit from
// recordings came out with its capacities up to 70 % low and its front
// cover's conductances up to 50 % high, where the same runs' traces fitted
// within a few % (docs/simulator.md, "Fitting from a recording").
// A reading that does not hold (a wide window) counts only at the grid
// point nearest its time.
std::vector<double> held(const std::vector<Sample>& samples, const std::vector<double>& grid,
                         double step) {
  std::vector<double> out(grid.size(), kNaN);
  std::size_t i = 0;
  for (std::size_t k = 0; k < grid.size(); ++k) {
    while (i < samples.size() && samples[i].t_s <= grid[k] + 1e-9) ++i;
    if (i > 0 && samples[i - 1].holds) out[k] = samples[i - 1].value;
  }
  if (grid.empty()) return out;
  for (const auto& s : samples) {
    if (s.holds || std::isnan(s.value)) continue;
    const double k = std::round((s.t_s - grid.front()) / step);
    if (k >= 0 && k < static_cast<double>(grid.size())) out[static_cast<std::size_t>(k)] = s.value;
  }
  return out;
}

std::optional<double> first_known(const std::vector<Sample>& samples) {
  for (const auto& s : samples)
    if (!std::isnan(s.value)) return s.value;
  return std::nullopt;
}

// The latest known sample at or before t (breaks skipped), else `before`.
double value_at(const std::vector<Sample>& samples, double t, double before) {
  double v = before;
  for (const auto& s : samples) {
    if (s.t_s > t + 1e-9) break;
    if (!std::isnan(s.value)) v = s.value;
  }
  return v;
}

}  // namespace

std::variant<FitSegment, config::ConfigError> bind_fit_recording(
    const recorder::Recording& rec, std::string_view file, const ModelSpec& skeleton,
    RecordingFitOptions opt, std::vector<config::ConfigError>& warnings) {
  using recorder::Kind;
  const auto& meta = rec.meta;
  const auto physical = physical_names(meta);
  std::vector<std::string> listed;
  for (const auto& n : physical)
    if (!n.empty()) listed.push_back(n);

  // Skeleton sensors and devices by name.
  std::vector<std::size_t> sensor_of;  // skeleton sensor -> policy sensor index
  for (const auto& s : skeleton.sensors) {
    const auto i = find(physical, s.name);
    if (!i)
      return err(file, "no sensor '" + s.name +
                           "' of the skeleton in the recording (its physical " +
                           "sensors: " + joined(listed) + ")");
    sensor_of.push_back(*i);
  }
  std::optional<std::size_t> ambient_sensor;
  if (!opt.ambient_sensor.empty()) {
    ambient_sensor = find(physical, opt.ambient_sensor);
    if (!ambient_sensor)
      return err(file, "--ambient-sensor '" + opt.ambient_sensor +
                           "': no physical sensor of that name in the recording (its physical "
                           "sensors: " +
                           joined(listed) + ")");
  }
  std::vector<std::size_t> device_of;  // skeleton device -> policy device index
  for (const auto& d : skeleton.devices) {
    const auto i = find(meta.devices, d.name);
    if (!i)
      return err(file, "no device '" + d.name +
                           "' of the skeleton in the recording (its devices: " +
                           joined(meta.devices) + ")");
    device_of.push_back(*i);
  }

  // The segments to use: complete loops of the policy the header names.
  const auto segs = recorder::segments(rec);
  std::vector<const recorder::Segment*> used;
  for (const auto& s : segs) {
    if (s.complete && s.policy_hash == rec.policy_hash) {
      used.push_back(&s);
      continue;
    }
    warnings.push_back(err(
        file, fmt::format("warning: records {} to {} skipped: {}", s.begin, s.end - 1,
                          s.complete ? "a loop of another policy (before a reload); its device "
                                       "and slot numbers may not be this policy's"
                                     : "their loop's start was overwritten by the ring, and with "
                                       "it the slot map")));
  }
  if (used.empty())
    return err(file,
               "no loop of the policy the recording names starts in it (the ring overwrote its "
               "start, or every loop ran an older policy): nothing to fit");

  // Samples per policy sensor and level changes per policy device.
  const double t0_ns = static_cast<double>(rec.records[used.front()->begin].t_ns);
  auto secs = [&](const recorder::Record& r) {
    return (static_cast<double>(r.t_ns) - t0_ns) / 1e9;
  };
  std::vector<std::vector<Sample>> samples(meta.sensors.size());
  std::vector<std::vector<Sample>> levels(meta.devices.size());
  std::vector<bool> written(meta.devices.size(), false);
  double t_end = 0;
  for (const auto* s : used) {
    std::vector<std::uint32_t> slot_sensor;  // slot -> policy sensor index
    // Per policy sensor: a window has been set since its latest reading.
    std::vector<bool> windowed(meta.sensors.size(), true);
    for (std::size_t i = s->begin; i < s->end; ++i) {
      const auto& r = rec.records[i];
      const double t = secs(r);
      t_end = std::max(t_end, t);
      const auto kind = static_cast<Kind>(r.kind);
      auto reading = [&](double value) {
        if (r.index < slot_sensor.size() && slot_sensor[r.index] < samples.size()) {
          samples[slot_sensor[r.index]].push_back({t, value});
          windowed[slot_sensor[r.index]] = false;
        }
      };
      const bool read_ok = kind == Kind::port_read && (r.a & kReadOk) != 0;
      if (kind == Kind::slot_map) {
        if (slot_sensor.size() <= r.index) slot_sensor.resize(r.index + 1U, UINT32_MAX);
        slot_sensor[r.index] = r.a;
      } else if ((read_ok || kind == Kind::call_push) && r.c != recorder::kNoValue) {
        reading(r.c / 1000.0);  // value_mc @24 in both
      } else if (kind == Kind::port_read || kind == Kind::call_sensor_gone) {
        reading(kNaN);  // a failed read, or the sensor gone: unknown until the next
      } else if (kind == Kind::port_watch && r.index < slot_sensor.size() &&
                 slot_sensor[r.index] < samples.size() && !samples[slot_sensor[r.index]].empty()) {
        // The window set after a reading says how far it may move unseen:
        // the first one after it decides whether it holds; a later one
        // that widens the window ends the hold there.
        const auto sensor = slot_sensor[r.index];
        // In double: a recording's bounds may be any int32 (fuzz_sim_fit_recording).
        const double low = r.c, high = r.d;
        const bool narrow = r.c != recorder::kNoValue && r.d != recorder::kNoValue && high >= low &&
                            (high - low) / 1000.0 <= kHoldWindowC;
        auto& last = samples[sensor].back();
        if (!windowed[sensor])
          last.holds = narrow;
        else if (!narrow && last.holds && !std::isnan(last.value))
          samples[sensor].push_back({t, kNaN});
        windowed[sensor] = true;
      } else if (kind == Kind::knob_write && r.d != recorder::kNoValue && r.index < levels.size()) {
        written[r.index] = true;
        levels[r.index].push_back({t, static_cast<double>(r.a)});
        for (std::size_t d = 0; d < device_of.size(); ++d)
          if (device_of[d] == r.index && r.a > skeleton.devices[d].max_level())
            return err(file, fmt::format("record {} (byte {}): knob_write sets device '{}' to "
                                         "level {}, but the skeleton's has levels 0..{}",
                                         i, rec.offset_of(i), skeleton.devices[d].name, r.a,
                                         skeleton.devices[d].max_level()));
      }
    }
    // No reading holds past its loop: the next loop starts with its own.
    const double loop_end = secs(rec.records[s->end - 1]) + 1e-6;
    for (auto& v : samples)
      if (!v.empty()) v.push_back({loop_end, kNaN});
  }
  for (std::size_t d = 0; d < device_of.size(); ++d)
    if (!written[device_of[d]])
      warnings.push_back(err(file, "warning: no knob_write record for device '" +
                                       skeleton.devices[d].name +
                                       "': taken at level 0 (unthrottled) throughout"));
  for (std::size_t j = 0; j < sensor_of.size(); ++j)
    if (!first_known(samples[sensor_of[j]]))
      return err(file, "sensor '" + skeleton.sensors[j].name +
                           "' has no reading in the recording (no successful port_read or "
                           "call_push of its slot)");

  // The workload that ran, bound to the skeleton (its errors name its file).
  std::optional<Workload> workload;
  bool workload_ambient = false;
  if (opt.demand) {
    const auto& cols = opt.demand->columns;
    workload_ambient = std::find(cols.begin(), cols.end(), "ambient_c") != cols.end();
    auto w = Workload::bind(*opt.demand, skeleton);
    if (auto* e = std::get_if<config::ConfigError>(&w)) return *e;
    workload = std::get<Workload>(std::move(w));
  }

  // Ambient: a sensor, a number, or the workload's ambient_c.
  const std::vector<Sample>* ambient_samples = nullptr;
  if (ambient_sensor) {
    ambient_samples = &samples[*ambient_sensor];
    if (!first_known(*ambient_samples))
      return err(file, "--ambient-sensor '" + opt.ambient_sensor + "' has no reading");
  } else if (!opt.ambient_c && !workload_ambient) {
    return err(file,
               "a recording has no ambient: give --ambient C, --ambient-sensor NAME or a "
               "--demand workload with an ambient_c column");
  }
  if (!workload)
    warnings.push_back(err(file,
                           "warning: no --demand workload: every device's demand taken as 1, "
                           "so power_w is the device's mean power at each level in this use"));

  // Row times: every level change, workload row and ambient reading.
  std::vector<double> times{0.0, t_end};
  for (const auto d : device_of)
    for (const auto& s : levels[d]) times.push_back(s.t_s);
  if (ambient_samples)
    for (const auto& s : *ambient_samples) times.push_back(s.t_s);
  if (workload) {
    const double w_end = std::chrono::duration<double>(workload->duration()).count();
    if (std::abs(w_end - t_end) > 0.01 * std::max(w_end, t_end) + 1.0)
      warnings.push_back(err(
          file, fmt::format("warning: the recording spans {:.1f} s from its loop's start but the "
                            "--demand workload {:.1f} s: is it the workload that ran?",
                            t_end, w_end)));
    for (const double t : opt.demand->times_s) times.push_back(t);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end(),
                          [](double a, double b) { return std::abs(a - b) < 1e-6; }),
              times.end());
  while (!times.empty() && times.back() > t_end + 1e-9) times.pop_back();

  CsvTable table;
  table.file = std::string(file);
  table.columns = {"time_s", "ambient_c"};
  for (const auto& d : skeleton.devices) {
    table.columns.push_back(d.name + "_level");
    table.columns.push_back(d.name + "_demand");
  }
  const double first_ambient = ambient_samples ? *first_known(*ambient_samples) : kNaN;
  for (const double t : times) {
    std::vector<double> row;
    std::vector<double> demand(skeleton.devices.size(), 1.0);
    double ambient = opt.ambient_c.value_or(kNaN);
    if (workload) {
      workload->seek(policy::Time(static_cast<std::int64_t>(std::llround(t * 1000))));
      if (workload->demand().size() == demand.size()) demand = workload->demand();
      if (!opt.ambient_c && workload_ambient && workload->ambient_c())
        ambient = *workload->ambient_c();
    }
    if (ambient_samples) ambient = value_at(*ambient_samples, t, first_ambient);
    row.push_back(ambient);
    for (std::size_t d = 0; d < skeleton.devices.size(); ++d) {
      row.push_back(value_at(levels[device_of[d]], t, 0.0));
      row.push_back(demand[d]);
    }
    table.times_s.push_back(t);
    table.rows.push_back(std::move(row));
    table.lines.push_back(0);
  }

  // The inputs through the CSV path (a skeleton without sensors: the
  // readings are this file's own).
  ModelSpec inputs_only = skeleton;
  inputs_only.sensors.clear();
  FitDataOptions dopt;
  dopt.step_s = opt.step_s;
  auto bound = bind_fit_csv(table, inputs_only, dopt, warnings);
  if (auto* e = std::get_if<config::ConfigError>(&bound)) return *e;
  auto seg = std::get<FitSegment>(std::move(bound));
  seg.name = std::string(file);
  for (const auto s : sensor_of) seg.reading_c.push_back(held(samples[s], seg.time_s, seg.step_s));
  for (std::size_t i = 0; i < physical.size(); ++i) {
    if (physical[i].empty() || std::find(sensor_of.begin(), sensor_of.end(), i) != sensor_of.end())
      continue;
    seg.extra_names.push_back(physical[i]);
    seg.extra_c.push_back(held(samples[i], seg.time_s, seg.step_s));
  }
  return seg;
}

}  // namespace coolhand::sim
