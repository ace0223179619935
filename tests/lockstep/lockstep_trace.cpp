// See lockstep_trace.h.
#include "lockstep_trace.h"

#include <cmath>
#include <cstdio>
#include <istream>
#include <optional>
#include <ostream>
#include <sstream>

namespace coolhand::lockstep {

namespace {

using sim::KernelTripSpec;

std::string join(const std::vector<std::string>& v, char sep) {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) out += sep;
    out += v[i];
  }
  return out;
}

}  // namespace

std::variant<EmulParams, std::string> emul_params(const sim::ModelSpec& model,
                                                  sim::Governor governor) {
  std::vector<std::string> max_level, power, passive, passive_hyst, crit, alert, alert_hyst,
      binding, load_scale;
  for (const auto& c : sim::cooling_devices_for(model))
    load_scale.emplace_back(c.actor == sim::PowerActor::cpufreq   ? "100"
                            : c.actor == sim::PowerActor::devfreq ? "1024"
                                                                  : "0");
  for (const auto& d : model.devices) {
    max_level.push_back(std::to_string(d.max_level()));
    std::vector<std::string> mw;
    for (double w : d.power_w) mw.push_back(std::to_string(std::lround(w * 1000.0)));
    power.push_back(join(mw, ':'));
  }
  for (std::size_t z = 0; z < model.kernel_zones.size(); ++z) {
    const auto& zone = model.kernel_zones[z];
    const std::string where = "kernel zone " + zone.name + ": ";
    std::vector<std::size_t> passives;
    std::optional<std::size_t> critical;
    for (std::size_t t = 0; t < zone.trips.size(); ++t) {
      const auto type = zone.trips[t].type;
      if (type == KernelTripSpec::Type::passive)
        passives.push_back(t);
      else if (type == KernelTripSpec::Type::critical && !critical && zone.trips[t].hyst.mc() == 0)
        critical = t;
      else
        return where +
               "coolhand_emul has at most one critical trip (hysteresis 0), no hot or "
               "active trips";
    }
    if (passives.empty() || passives.size() > 2)
      return where + "coolhand_emul needs one or two passive trips";
    const auto& control = zone.trips[passives.back()];
    passive.push_back(std::to_string(control.temp.mc()));
    passive_hyst.push_back(std::to_string(control.hyst.mc()));
    crit.push_back(critical ? std::to_string(zone.trips[*critical].temp.mc()) : "0");
    if (passives.size() == 2) {
      alert.push_back(std::to_string(zone.trips[passives.front()].temp.mc()));
      alert_hyst.push_back(std::to_string(zone.trips[passives.front()].hyst.mc()));
    } else {
      alert.emplace_back("0");
      alert_hyst.emplace_back("0");
    }
    for (const auto& map : zone.cooling) {
      if (map.trip != control.name || map.lower || map.upper || map.weight != 0)
        return where +
               "coolhand_emul binds over the full range, with the default weight, to "
               "the last passive trip only (" +
               map.device + " on " + map.trip + ")";
      std::size_t d = 0;
      while (d < model.devices.size() && model.devices[d].name != map.device) ++d;
      if (d == model.devices.size()) return where + "no device " + map.device;
      if (governor == sim::Governor::power_allocator && !model.devices[d].energy_model) continue;
      binding.push_back(std::to_string(z) + ":" + std::to_string(d));
    }
  }
  std::ostringstream out;
  out << "emul_zones=" << model.kernel_zones.size() << " emul_devices=" << model.devices.size()
      << " emul_max_level=" << join(max_level, ',') << " emul_power_mw=" << join(power, ',')
      << " emul_load_scale=" << join(load_scale, ',') << " emul_passive_mc=" << join(passive, ',')
      << " emul_passive_hyst_mc=" << join(passive_hyst, ',') << " emul_crit_mc=" << join(crit, ',')
      << " emul_alert_mc=" << join(alert, ',') << " emul_alert_hyst_mc=" << join(alert_hyst, ',')
      << " emul_governor=user_space emul_lockstep=1";
  if (!binding.empty())
    out << " emul_binding=" << join(binding, ',');
  else
    out << " emul_bind=0";
  return EmulParams{out.str()};
}

RunTrace to_trace(const std::string& label, const sim::RunResult& result) {
  RunTrace t;
  t.label = label;
  t.decisions = result.metrics.decisions;
  t.max_skin_c = result.metrics.max_skin_c;
  t.performance = result.metrics.performance;
  const auto& lv = result.trace.level;
  const std::size_t steps = lv.empty() ? 0 : lv.front().size();
  t.level.assign(steps, std::vector<std::uint32_t>(lv.size()));
  for (std::size_t d = 0; d < lv.size(); ++d)
    for (std::size_t k = 0; k < steps; ++k) t.level[k][d] = lv[d][k];
  return t;
}

void write_trace(std::ostream& out, const std::string& label, const sim::RunResult& result) {
  const RunTrace t = to_trace(label, result);
  const std::size_t nd = result.trace.level.size();
  out << "LOCKSTEP-BEGIN " << label << " devices=" << nd << " steps=" << t.level.size() << "\n";
  for (std::size_t k = 0; k < t.level.size(); ++k) {
    if (k > 0 && t.level[k] == t.level[k - 1]) continue;
    out << "LOCKSTEP-L " << k;
    for (auto l : t.level[k]) out << ' ' << l;
    out << "\n";
  }
  char tail[160];
  std::snprintf(tail, sizeof(tail), " decisions=%llu max_skin_c=%.6f performance=%.6f",
                static_cast<unsigned long long>(t.decisions), t.max_skin_c, t.performance);
  out << "LOCKSTEP-END " << label << tail << std::endl;
}

std::variant<std::vector<RunTrace>, std::string> read_traces(std::istream& in) {
  std::vector<RunTrace> runs;
  std::optional<RunTrace> cur;
  std::size_t nd = 0, steps = 0, next = 0;  // next: first step not yet filled
  std::vector<std::uint32_t> last;
  std::string line;
  int lineno = 0;
  const auto fill_to = [&](std::size_t k) {
    for (; next < k; ++next) cur->level[next] = last;
  };
  while (std::getline(in, line)) {
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    // The console may put terminal escapes before the first line.
    const auto at = line.find("LOCKSTEP-");
    if (at == std::string::npos) continue;
    line.erase(0, at);
    const std::string where = "line " + std::to_string(lineno) + ": ";
    std::istringstream ls(line);
    std::string tag;
    ls >> tag;
    if (tag == "LOCKSTEP-BEGIN") {
      if (cur) return where + "run " + cur->label + " has no LOCKSTEP-END";
      cur.emplace();
      std::string d, s;
      ls >> cur->label >> d >> s;
      if (std::sscanf(d.c_str(), "devices=%zu", &nd) != 1 ||
          std::sscanf(s.c_str(), "steps=%zu", &steps) != 1 || nd == 0)
        return where + "malformed LOCKSTEP-BEGIN";
      cur->level.assign(steps, {});
      next = 0;
      last.assign(nd, 0);
    } else if (tag == "LOCKSTEP-L") {
      if (!cur) return where + "LOCKSTEP-L outside a run";
      std::size_t k = 0;
      std::vector<std::uint32_t> lv(nd);
      ls >> k;
      for (auto& l : lv) ls >> l;
      if (!ls || k >= steps || k < next) return where + "malformed LOCKSTEP-L";
      if (next == 0 && k != 0) return where + "a run's trace must start at step 0";
      fill_to(k);
      last = lv;
      cur->level[k] = lv;
      next = k + 1;
    } else if (tag == "LOCKSTEP-END") {
      if (!cur) return where + "LOCKSTEP-END outside a run";
      std::string label, d, s, p;
      ls >> label >> d >> s >> p;
      unsigned long long decisions = 0;
      if (label != cur->label || std::sscanf(d.c_str(), "decisions=%llu", &decisions) != 1 ||
          std::sscanf(s.c_str(), "max_skin_c=%lf", &cur->max_skin_c) != 1 ||
          std::sscanf(p.c_str(), "performance=%lf", &cur->performance) != 1)
        return where + "malformed LOCKSTEP-END";
      if (steps > 0 && next == 0) return where + "run " + label + " has no levels";
      cur->decisions = decisions;
      fill_to(steps);
      runs.push_back(std::move(*cur));
      cur.reset();
    }
  }
  if (cur) return "run " + cur->label + " has no LOCKSTEP-END (guest stopped?)";
  return runs;
}

}  // namespace coolhand::lockstep
