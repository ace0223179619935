// Model YAML -> validated ModelSpec. The text goes through config's YAML
// front end (UTF-8, depth and node-count guards); the layout is documented
// in docs/simulator.md. Every error is a config::ConfigError at the
// offending key's line and column.
#include "model_parse.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#include "coolhand/config/yaml_input.h"
#include "coolhand/sim/model.h"
#include "yaml_reader.h"

namespace coolhand::sim {

namespace {

using detail::as_double;
using detail::as_int;
using detail::as_string;
using detail::as_u32;
using detail::check_keys;
using detail::fail;
using detail::fail_at_key;
using detail::non_negative;
using detail::positive;
using detail::required;

Millis as_millis(const YAML::Node& n, std::string_view key, bool allow_zero) {
  const auto v = as_int(n, key);
  if (v < 0 || (!allow_zero && v == 0))
    fail(n, std::string(key) + (allow_zero ? ": must be >= 0" : ": must be > 0"));
  return Millis(v);
}

std::vector<double> as_doubles(const YAML::Node& n, std::string_view key) {
  if (!n.IsSequence() || n.size() == 0) fail(n, std::string(key) + ": expected a non-empty list");
  std::vector<double> out;
  for (const auto& e : n) out.push_back(as_double(e, key));
  return out;
}

void check_unique(const YAML::Node& at, std::set<std::string>& seen, const std::string& name,
                  std::string_view what) {
  if (name.empty()) fail(at, std::string(what) + ": empty name");
  if (!seen.insert(name).second) fail(at, std::string(what) + ": duplicate name '" + name + "'");
}

double as_celsius(const YAML::Node& n, std::string_view key, bool allow_negative = true) {
  const double c = allow_negative ? as_double(n, key) : non_negative(n, key);
  if (!(std::abs(c) <= kMaxAbsC)) fail(n, std::string(key) + ": out of range (-1000 to 1000 °C)");
  return c;
}

NodeSpec parse_node(const YAML::Node& n) {
  check_keys(n, {"name", "capacity_j_per_k", "to_ambient_w_per_k", "initial_c"}, "node");
  NodeSpec s;
  s.name = as_string(required(n, "name", "node"), "name");
  s.capacity_j_per_k = positive(required(n, "capacity_j_per_k", "node"), "capacity_j_per_k");
  if (n["to_ambient_w_per_k"])
    s.to_ambient_w_per_k = non_negative(n["to_ambient_w_per_k"], "to_ambient_w_per_k");
  if (n["initial_c"]) s.initial_c = as_celsius(n["initial_c"], "initial_c");
  return s;
}

LinkSpec parse_link(const YAML::Node& n) {
  check_keys(n, {"a", "b", "w_per_k"}, "link");
  LinkSpec s;
  s.a = as_string(required(n, "a", "link"), "a");
  s.b = as_string(required(n, "b", "link"), "b");
  s.w_per_k = positive(required(n, "w_per_k", "link"), "w_per_k");
  if (s.a == s.b) fail(n, "link: a node cannot link to itself");
  return s;
}

// A fan's `cooling` list: per entry a node and one conductance to ambient
// per level, not decreasing with the level (deeper levels cool more: level
// 0 is the quietest, the policy engine's convention that deeper levels cost
// performance and are taken when hotter).
std::vector<CoolingEffect> parse_cooling(const YAML::Node& list, std::size_t levels) {
  if (!list.IsSequence() || list.size() == 0) fail(list, "cooling: expected a non-empty list");
  std::vector<CoolingEffect> out;
  for (const auto& c : list) {
    check_keys(c, {"node", "to_ambient_w_per_k"}, "cooling");
    CoolingEffect e;
    e.node = as_string(required(c, "node", "cooling"), "node");
    for (const auto& o : out)
      if (o.node == e.node) fail(c["node"], "cooling: node '" + e.node + "' listed twice");
    const auto g = required(c, "to_ambient_w_per_k", "cooling");
    e.to_ambient_w_per_k = as_doubles(g, "to_ambient_w_per_k");
    if (e.to_ambient_w_per_k.size() != levels)
      fail(g, "to_ambient_w_per_k: need one conductance per level: " +
                  std::to_string(e.to_ambient_w_per_k.size()) + " given, power_w has " +
                  std::to_string(levels));
    for (std::size_t l = 0; l < levels; ++l) {
      if (!(e.to_ambient_w_per_k[l] >= 0))
        fail(g[l], "to_ambient_w_per_k: conductances must be >= 0");
      if (l > 0 && e.to_ambient_w_per_k[l] < e.to_ambient_w_per_k[l - 1])
        fail(g[l],
             "to_ambient_w_per_k: conductances must not decrease with the level (deeper levels "
             "cool more; level 0 is the quietest)");
    }
    out.push_back(std::move(e));
  }
  return out;
}

DeviceModelSpec parse_device(const YAML::Node& n) {
  check_keys(n,
             {"name", "idle_w", "power_w", "performance", "heat", "cooling", "default_demand",
              "weight", "energy_model"},
             "device");
  DeviceModelSpec s;
  s.name = as_string(required(n, "name", "device"), "name");
  if (n["idle_w"]) s.idle_w = non_negative(n["idle_w"], "idle_w");
  s.power_w = as_doubles(required(n, "power_w", "device"), "power_w");
  if (s.power_w.size() < 2) fail(n["power_w"], "power_w: need at least two levels");
  for (double p : s.power_w)
    if (!(p >= 0)) fail(n["power_w"], "power_w: powers must be >= 0");
  s.performance = as_doubles(required(n, "performance", "device"), "performance");
  // The shorter list is the one missing levels, so it is the one reported.
  if (s.power_w.size() < s.performance.size())
    fail_at_key(n, "power_w",
                "power_w: need one power per level: " + std::to_string(s.power_w.size()) +
                    " given, performance has " + std::to_string(s.performance.size()));
  if (s.performance.size() < s.power_w.size())
    fail_at_key(n, "performance",
                "performance: need one entry per level: " + std::to_string(s.performance.size()) +
                    " given, power_w has " + std::to_string(s.power_w.size()));
  for (double p : s.performance)
    if (!(p >= 0 && p <= 1)) fail(n["performance"], "performance: values must be in [0,1]");
  if (n["weight"]) s.weight = non_negative(n["weight"], "weight");
  if (n["energy_model"]) s.energy_model = detail::as_bool(n["energy_model"], "energy_model");
  if (n["cooling"]) s.cooling = parse_cooling(n["cooling"], s.power_w.size());
  if (n["default_demand"]) {
    const double d = as_double(n["default_demand"], "default_demand");
    if (!(d >= 0 && d <= 1)) fail(n["default_demand"], "default_demand: must be in [0,1]");
    s.default_demand = d;
  }
  // A fan's electrical power may leave with its exhaust air: no `heat`.
  if (!n["heat"] && !s.cooling.empty()) return s;
  const auto heat = required(n, "heat", "device");
  if (!heat.IsSequence() || heat.size() == 0) fail(heat, "heat: expected a non-empty list");
  double total = 0;
  for (const auto& h : heat) {
    check_keys(h, {"node", "share"}, "heat");
    HeatShare hs;
    hs.node = as_string(required(h, "node", "heat"), "node");
    if (h["share"]) hs.share = positive(h["share"], "share");
    total += hs.share;
    s.heat.push_back(hs);
  }
  if (std::abs(total - 1.0) > 1e-6) fail(heat, "heat: shares must sum to 1");
  return s;
}

SensorModelSpec parse_sensor(const YAML::Node& n) {
  check_keys(n, {"name", "node", "offset_c", "noise_c", "quantum_c", "lag_s", "period_ms"},
             "sensor");
  SensorModelSpec s;
  s.name = as_string(required(n, "name", "sensor"), "name");
  s.node = as_string(required(n, "node", "sensor"), "node");
  if (n["offset_c"]) s.offset_c = as_celsius(n["offset_c"], "offset_c");
  if (n["noise_c"]) s.noise_c = as_celsius(n["noise_c"], "noise_c", false);
  if (n["quantum_c"]) s.quantum_c = non_negative(n["quantum_c"], "quantum_c");
  if (n["lag_s"]) s.lag_s = non_negative(n["lag_s"], "lag_s");
  if (n["period_ms"]) s.period = as_millis(n["period_ms"], "period_ms", false);
  return s;
}

MilliC as_trip_celsius(const YAML::Node& n, std::string_view key, bool allow_negative) {
  return MilliC::from_celsius(as_celsius(n, key, allow_negative));
}

KernelTripSpec::Type trip_type(const YAML::Node& n) {
  const auto t = as_string(n, "type");
  if (t == "active") return KernelTripSpec::Type::active;
  if (t == "passive") return KernelTripSpec::Type::passive;
  if (t == "hot") return KernelTripSpec::Type::hot;
  if (t == "critical") return KernelTripSpec::Type::critical;
  fail(n, "type: expected active, passive, hot or critical");
}

std::int32_t as_s32(const YAML::Node& n, std::string_view key) {
  const auto v = as_int(n, key);
  if (v < INT32_MIN || v > INT32_MAX) fail(n, std::string(key) + ": out of range");
  return static_cast<std::int32_t>(v);
}

KernelZoneSpec parse_zone(const YAML::Node& n) {
  check_keys(n,
             {"name", "sensor", "polling_delay_ms", "passive_delay_ms", "trips", "cooling",
              "sustainable_power_mw", "k_po", "k_pu", "k_i", "k_d", "integral_cutoff_mc"},
             "kernel zone");
  KernelZoneSpec z;
  z.name = as_string(required(n, "name", "kernel zone"), "name");
  z.sensor = as_string(required(n, "sensor", "kernel zone"), "sensor");
  if (n["polling_delay_ms"])
    z.polling_delay = as_millis(n["polling_delay_ms"], "polling_delay_ms", true);
  if (n["passive_delay_ms"])
    z.passive_delay = as_millis(n["passive_delay_ms"], "passive_delay_ms", true);
  if (n["sustainable_power_mw"])
    z.sustainable_power_mw = as_u32(n["sustainable_power_mw"], "sustainable_power_mw");
  if (n["k_po"]) z.k_po = as_s32(n["k_po"], "k_po");
  if (n["k_pu"]) z.k_pu = as_s32(n["k_pu"], "k_pu");
  if (n["k_i"]) z.k_i = as_s32(n["k_i"], "k_i");
  if (n["k_d"]) z.k_d = as_s32(n["k_d"], "k_d");
  if (n["integral_cutoff_mc"])
    z.integral_cutoff_mc = as_s32(n["integral_cutoff_mc"], "integral_cutoff_mc");
  const auto trips = required(n, "trips", "kernel zone");
  if (!trips.IsSequence() || trips.size() == 0) fail(trips, "trips: expected a non-empty list");
  std::set<std::string> names;
  for (const auto& t : trips) {
    check_keys(t, {"name", "type", "temp_c", "hyst_c"}, "trip");
    KernelTripSpec ts;
    ts.name = as_string(required(t, "name", "trip"), "name");
    check_unique(t, names, ts.name, "trip");
    ts.type = trip_type(required(t, "type", "trip"));
    ts.temp = as_trip_celsius(required(t, "temp_c", "trip"), "temp_c", true);
    if (t["hyst_c"]) ts.hyst = as_trip_celsius(t["hyst_c"], "hyst_c", false);
    if (!z.trips.empty() && ts.temp < z.trips.back().temp)
      fail(t, "trip: trips must be in ascending temperature");
    z.trips.push_back(ts);
  }
  if (n["cooling"]) {
    const auto cooling = n["cooling"];
    if (!cooling.IsSequence()) fail(cooling, "cooling: expected a list");
    for (const auto& c : cooling) {
      check_keys(c, {"trip", "device", "lower", "upper", "weight"}, "cooling map");
      KernelCoolingMap m;
      m.trip = as_string(required(c, "trip", "cooling map"), "trip");
      if (!names.count(m.trip)) fail(c["trip"], "trip: no trip named '" + m.trip + "' in zone");
      m.device = as_string(required(c, "device", "cooling map"), "device");
      if (c["lower"]) m.lower = as_u32(c["lower"], "lower");
      if (c["upper"]) m.upper = as_u32(c["upper"], "upper");
      if (c["weight"]) m.weight = as_u32(c["weight"], "weight");
      z.cooling.push_back(m);
    }
  }
  return z;
}

template <typename T, typename F>
std::vector<T> parse_list(const YAML::Node& n, const char* key, F parse_one, bool required_list) {
  std::vector<T> out;
  const auto list = n[key];
  if (!list) {
    if (required_list) fail(n, std::string("missing '") + key + "'");
    return out;
  }
  if (!list.IsSequence()) fail(list, std::string(key) + ": expected a list");
  for (const auto& e : list) out.push_back(parse_one(e));
  return out;
}

ModelSpec parse_root(const YAML::Node& root) {
  check_keys(root,
             {"name", "time_step_ms", "ambient_c", "skin", "nodes", "links", "devices", "sensors",
              "kernel_zones"},
             "model");
  ModelSpec m;
  m.name = as_string(required(root, "name", "model"), "name");
  if (root["time_step_ms"]) m.time_step = as_millis(root["time_step_ms"], "time_step_ms", false);
  if (root["ambient_c"]) m.ambient_c = as_celsius(root["ambient_c"], "ambient_c");
  m.nodes = parse_list<NodeSpec>(root, "nodes", parse_node, true);
  m.links = parse_list<LinkSpec>(root, "links", parse_link, false);
  m.devices = parse_list<DeviceModelSpec>(root, "devices", parse_device, false);
  m.sensors = parse_list<SensorModelSpec>(root, "sensors", parse_sensor, false);
  m.kernel_zones = parse_list<KernelZoneSpec>(root, "kernel_zones", parse_zone, false);
  if (m.nodes.empty()) fail(root["nodes"], "nodes: need at least one node");

  std::set<std::string> nodes, devices, sensors, zones;
  std::size_t fan_configurations = 1;
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    check_unique(root["nodes"][i], nodes, m.nodes[i].name, "node");
  auto need_node = [&](const YAML::Node& at, const std::string& name) {
    if (!nodes.count(name)) fail(at, "no node named '" + name + "'");
  };
  for (std::size_t i = 0; i < m.links.size(); ++i) {
    need_node(root["links"][i]["a"], m.links[i].a);
    need_node(root["links"][i]["b"], m.links[i].b);
  }
  for (std::size_t i = 0; i < m.devices.size(); ++i) {
    check_unique(root["devices"][i], devices, m.devices[i].name, "device");
    for (std::size_t h = 0; h < m.devices[i].heat.size(); ++h)
      need_node(root["devices"][i]["heat"][h]["node"], m.devices[i].heat[h].node);
    for (std::size_t c = 0; c < m.devices[i].cooling.size(); ++c)
      need_node(root["devices"][i]["cooling"][c]["node"], m.devices[i].cooling[c].node);
    if (!m.devices[i].cooling.empty()) {
      fan_configurations *= m.devices[i].power_w.size();
      if (fan_configurations > kMaxFanConfigurations)
        fail(root["devices"][i]["cooling"],
             "cooling: the cooling devices' level counts multiply to more than " +
                 std::to_string(kMaxFanConfigurations) + " fan configurations");
    }
  }
  for (std::size_t i = 0; i < m.sensors.size(); ++i) {
    check_unique(root["sensors"][i], sensors, m.sensors[i].name, "sensor");
    need_node(root["sensors"][i]["node"], m.sensors[i].node);
  }
  for (std::size_t i = 0; i < m.kernel_zones.size(); ++i) {
    const auto zn = root["kernel_zones"][i];
    const auto& z = m.kernel_zones[i];
    check_unique(zn, zones, z.name, "kernel zone");
    if (!sensors.count(z.sensor)) fail(zn["sensor"], "no sensor named '" + z.sensor + "'");
    for (std::size_t c = 0; c < z.cooling.size(); ++c) {
      const auto cn = zn["cooling"][c];
      const auto& map = z.cooling[c];
      const auto d = device_index(m, map.device);
      if (!d) fail(cn["device"], "no device named '" + map.device + "'");
      const auto max_level = m.devices[*d].max_level();
      const auto lower = map.lower.value_or(0);
      const auto upper = map.upper.value_or(max_level);
      if (lower > upper || upper > max_level)
        fail(cn, "cooling map: need lower <= upper <= the device's max level (" +
                     std::to_string(max_level) + ")");
    }
  }

  const auto skin = required(root, "skin", "model");
  check_keys(skin, {"nodes", "limit_c"}, "skin");
  const auto skin_nodes = required(skin, "nodes", "skin");
  if (!skin_nodes.IsSequence() || skin_nodes.size() == 0)
    fail(skin_nodes, "skin.nodes: expected a non-empty list");
  for (const auto& s : skin_nodes) {
    m.skin_nodes.push_back(as_string(s, "skin.nodes"));
    need_node(s, m.skin_nodes.back());
  }
  m.skin_limit_c = as_double(required(skin, "limit_c", "skin"), "limit_c");
  return m;
}

}  // namespace

std::variant<ModelSpec, config::ConfigError> parse_model(std::string_view text,
                                                         std::string_view file) {
  auto input = config::detail::read_yaml(text, file, {"model", "name: ..., nodes: ..."});
  if (!input.root) return input.errors.front();
  return detail::parse_model_tree(*input.root, file);
}

std::variant<ModelSpec, config::ConfigError> detail::parse_model_tree(const YAML::Node& root,
                                                                      std::string_view file) {
  try {
    ModelSpec spec = parse_root(root);
    spec.source = std::string(file);
    return spec;
  } catch (const detail::YamlFail& f) {
    return detail::to_error(file, f.mark, f.message);
  } catch (const YAML::Exception& e) {
    return detail::to_error(file, e.mark, e.msg);
  }
}

std::variant<ModelSpec, config::ConfigError> load_model_file(const std::string& path) {
  std::ifstream in(path);
  if (!in)
    return config::ConfigError{path, 0, 0, {}, std::string("cannot open: ") + std::strerror(errno)};
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_model(ss.str(), path);
}

}  // namespace coolhand::sim
