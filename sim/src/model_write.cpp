// ModelSpec -> model YAML (fit.h: model_yaml), in the layout of the bundled
// models so a fitted model reads like a hand-written one. Numbers carry 6
// significant digits.
#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "coolhand/sim/fit.h"

namespace coolhand::sim {

namespace {

std::string num(double v) {
  if (std::isnan(v)) return ".nan";
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  return fmt::format("{:.6g}", v);
}

// A name as a YAML scalar: plain when it is made of letters, digits and
// `_.-` and cannot be read as anything but a string, else double-quoted.
std::string name(const std::string& s) {
  bool plain = !s.empty() && (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_');
  for (const char c : s)
    plain =
        plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-');
  static const char* const kReserved[] = {"true", "false", "yes",  "no",    "on",  "off", "null",
                                          "y",    "n",     "True", "False", "Yes", "No",  "On",
                                          "Off",  "Null",  "TRUE", "FALSE", "YES", "NO",  "ON",
                                          "OFF",  "NULL",  "Y",    "N"};
  for (const char* r : kReserved) plain = plain && s != r;
  if (plain) return s;
  std::string out = "\"";
  for (const char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\')
      out += std::string("\\") + c;
    else if (u < 0x20 || u == 0x7f)
      out += fmt::format("\\x{:02x}", u);
    else
      out += c;
  }
  return out + "\"";
}

std::string list(const std::vector<double>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + num(v[i]);
  return out + "]";
}

const char* trip_type(KernelTripSpec::Type t) {
  switch (t) {
    case KernelTripSpec::Type::active:
      return "active";
    case KernelTripSpec::Type::passive:
      return "passive";
    case KernelTripSpec::Type::hot:
      return "hot";
    case KernelTripSpec::Type::critical:
      return "critical";
  }
  return "passive";
}

void write_zones(const ModelSpec& m, std::string& out) {
  if (m.kernel_zones.empty()) return;
  out += "\nkernel_zones:\n";
  for (const auto& z : m.kernel_zones) {
    out += fmt::format(
        "  - name: {}\n    sensor: {}\n    polling_delay_ms: {}\n"
        "    passive_delay_ms: {}\n",
        name(z.name), name(z.sensor), z.polling_delay.count(), z.passive_delay.count());
    if (z.sustainable_power_mw)
      out += fmt::format("    sustainable_power_mw: {}\n", *z.sustainable_power_mw);
    if (z.k_po) out += fmt::format("    k_po: {}\n", *z.k_po);
    if (z.k_pu) out += fmt::format("    k_pu: {}\n", *z.k_pu);
    if (z.k_i) out += fmt::format("    k_i: {}\n", *z.k_i);
    if (z.k_d) out += fmt::format("    k_d: {}\n", *z.k_d);
    if (z.integral_cutoff_mc != 0)
      out += fmt::format("    integral_cutoff_mc: {}\n", z.integral_cutoff_mc);
    out += "    trips:\n";
    for (const auto& t : z.trips)
      out += fmt::format("      - {{name: {}, type: {}, temp_c: {}, hyst_c: {}}}\n", name(t.name),
                         trip_type(t.type), num(t.temp.celsius()), num(t.hyst.celsius()));
    if (z.cooling.empty()) continue;
    out += "    cooling:\n";
    for (const auto& c : z.cooling) {
      out += fmt::format("      - {{trip: {}, device: {}", name(c.trip), name(c.device));
      if (c.lower) out += fmt::format(", lower: {}", *c.lower);
      if (c.upper) out += fmt::format(", upper: {}", *c.upper);
      if (c.weight != 0) out += fmt::format(", weight: {}", c.weight);
      out += "}\n";
    }
  }
}

}  // namespace

std::string model_yaml(const ModelSpec& m, std::string_view header_comment) {
  std::string out;
  std::size_t pos = 0;
  while (pos < header_comment.size()) {
    const auto end = header_comment.find('\n', pos);
    const auto line = header_comment.substr(pos, end == std::string_view::npos ? end : end - pos);
    out += line.empty() ? "#\n" : "# " + std::string(line) + "\n";
    if (end == std::string_view::npos) break;
    pos = end + 1;
  }
  out += fmt::format("name: {}\ntime_step_ms: {}\nambient_c: {}\n\n", name(m.name),
                     m.time_step.count(), num(m.ambient_c));
  out += "skin:\n  nodes: [";
  for (std::size_t i = 0; i < m.skin_nodes.size(); ++i)
    out += (i ? ", " : "") + name(m.skin_nodes[i]);
  out += fmt::format("]\n  limit_c: {}\n\nnodes:\n", num(m.skin_limit_c));
  for (const auto& n : m.nodes) {
    out +=
        fmt::format("  - {{name: {}, capacity_j_per_k: {}", name(n.name), num(n.capacity_j_per_k));
    if (n.to_ambient_w_per_k != 0) out += ", to_ambient_w_per_k: " + num(n.to_ambient_w_per_k);
    if (n.initial_c) out += ", initial_c: " + num(*n.initial_c);
    out += "}\n";
  }
  if (!m.links.empty()) out += "\nlinks:\n";
  for (const auto& l : m.links)
    out += fmt::format("  - {{a: {}, b: {}, w_per_k: {}}}\n", name(l.a), name(l.b), num(l.w_per_k));
  if (!m.devices.empty()) out += "\ndevices:\n";
  for (const auto& d : m.devices) {
    out += fmt::format("  - name: {}\n    idle_w: {}\n    power_w: {}\n    performance: {}\n",
                       name(d.name), num(d.idle_w), list(d.power_w), list(d.performance));
    if (!d.heat.empty()) {  // a fan heats nothing: no `heat` key
      out += "    heat: [";
      for (std::size_t h = 0; h < d.heat.size(); ++h)
        out += fmt::format("{}{{node: {}, share: {:.9g}}}", h ? ", " : "", name(d.heat[h].node),
                           d.heat[h].share);
      out += "]\n";
    }
    if (!d.cooling.empty()) {
      out += "    cooling: [";
      for (std::size_t c = 0; c < d.cooling.size(); ++c)
        out += fmt::format("{}{{node: {}, to_ambient_w_per_k: {}}}", c ? ", " : "",
                           name(d.cooling[c].node), list(d.cooling[c].to_ambient_w_per_k));
      out += "]\n";
    }
    if (d.default_demand) out += "    default_demand: " + num(*d.default_demand) + "\n";
    out += fmt::format("    weight: {}\n", num(d.weight));
    if (d.energy_model) out += "    energy_model: true\n";
  }
  if (!m.sensors.empty()) out += "\nsensors:\n";
  for (const auto& s : m.sensors)
    out += fmt::format(
        "  - {{name: {}, node: {}, offset_c: {}, noise_c: {}, quantum_c: {}, lag_s: {}, "
        "period_ms: {}}}\n",
        name(s.name), name(s.node), num(s.offset_c), num(s.noise_c), num(s.quantum_c), num(s.lag_s),
        s.period.count());
  write_zones(m, out);
  return out;
}

}  // namespace coolhand::sim
