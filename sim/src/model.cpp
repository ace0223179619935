// Model YAML parsing and the exactly discretised RC network (see model.h for
// the physics). The YAML layout is documented in docs/simulator.md.
#include "coolhand/sim/model.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <unsupported/Eigen/MatrixFunctions>
#include <utility>

#include "noise.h"
#include "yaml_reader.h"

namespace coolhand::sim {

std::string InputError::to_string() const {
  std::string s = file;
  if (line > 0) {
    s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
  }
  return s + ": " + message;
}

// ---------------------------------------------------------------- parsing --

namespace {

using detail::as_double;
using detail::as_int;
using detail::as_string;
using detail::as_u32;
using detail::check_keys;
using detail::fail;
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

NodeSpec parse_node(const YAML::Node& n) {
  check_keys(n, {"name", "capacity_j_per_k", "to_ambient_w_per_k", "initial_c"}, "node");
  NodeSpec s;
  s.name = as_string(required(n, "name", "node"), "name");
  s.capacity_j_per_k = positive(required(n, "capacity_j_per_k", "node"), "capacity_j_per_k");
  if (n["to_ambient_w_per_k"])
    s.to_ambient_w_per_k = non_negative(n["to_ambient_w_per_k"], "to_ambient_w_per_k");
  if (n["initial_c"]) s.initial_c = as_double(n["initial_c"], "initial_c");
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

DeviceModelSpec parse_device(const YAML::Node& n) {
  check_keys(n, {"name", "idle_w", "power_w", "performance", "heat", "weight", "energy_model"},
             "device");
  DeviceModelSpec s;
  s.name = as_string(required(n, "name", "device"), "name");
  if (n["idle_w"]) s.idle_w = non_negative(n["idle_w"], "idle_w");
  s.power_w = as_doubles(required(n, "power_w", "device"), "power_w");
  if (s.power_w.size() < 2) fail(n["power_w"], "power_w: need at least two levels");
  for (double p : s.power_w)
    if (!(p >= 0)) fail(n["power_w"], "power_w: powers must be >= 0");
  s.performance = as_doubles(required(n, "performance", "device"), "performance");
  if (s.performance.size() != s.power_w.size())
    fail(n["performance"],
         "performance: need one entry per level (" + std::to_string(s.power_w.size()) + ")");
  for (double p : s.performance)
    if (!(p >= 0 && p <= 1)) fail(n["performance"], "performance: values must be in [0,1]");
  if (n["weight"]) s.weight = non_negative(n["weight"], "weight");
  if (n["energy_model"]) s.energy_model = detail::as_bool(n["energy_model"], "energy_model");
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
  if (n["offset_c"]) s.offset_c = as_double(n["offset_c"], "offset_c");
  if (n["noise_c"]) s.noise_c = non_negative(n["noise_c"], "noise_c");
  if (n["quantum_c"]) s.quantum_c = non_negative(n["quantum_c"], "quantum_c");
  if (n["lag_s"]) s.lag_s = non_negative(n["lag_s"], "lag_s");
  if (n["period_ms"]) s.period = as_millis(n["period_ms"], "period_ms", false);
  return s;
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
    ts.temp = MilliC::from_celsius(as_double(required(t, "temp_c", "trip"), "temp_c"));
    if (t["hyst_c"]) ts.hyst = MilliC::from_celsius(non_negative(t["hyst_c"], "hyst_c"));
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
  if (root["ambient_c"]) m.ambient_c = as_double(root["ambient_c"], "ambient_c");
  m.nodes = parse_list<NodeSpec>(root, "nodes", parse_node, true);
  m.links = parse_list<LinkSpec>(root, "links", parse_link, false);
  m.devices = parse_list<DeviceModelSpec>(root, "devices", parse_device, false);
  m.sensors = parse_list<SensorModelSpec>(root, "sensors", parse_sensor, false);
  m.kernel_zones = parse_list<KernelZoneSpec>(root, "kernel_zones", parse_zone, false);
  if (m.nodes.empty()) fail(root["nodes"], "nodes: need at least one node");

  std::set<std::string> nodes, devices, sensors, zones;
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
      const auto it = std::find_if(m.devices.begin(), m.devices.end(),
                                   [&](const auto& d) { return d.name == map.device; });
      if (it == m.devices.end()) fail(cn["device"], "no device named '" + map.device + "'");
      const auto lower = map.lower.value_or(0);
      const auto upper = map.upper.value_or(it->max_level());
      if (lower > upper || upper > it->max_level())
        fail(cn, "cooling map: need lower <= upper <= the device's max level (" +
                     std::to_string(it->max_level()) + ")");
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

std::variant<ModelSpec, InputError> parse_model(std::string_view text, std::string_view file) {
  try {
    const YAML::Node root = YAML::Load(std::string(text));
    if (!root || root.IsNull()) return detail::to_input_error(file, YAML::Mark(), "empty model");
    ModelSpec spec = parse_root(root);
    spec.source = std::string(file);
    return spec;
  } catch (const detail::YamlFail& f) {
    return detail::to_input_error(file, f.mark, f.message);
  } catch (const YAML::Exception& e) {
    return detail::to_input_error(file, e.mark, e.msg);
  }
}

std::variant<ModelSpec, InputError> load_model_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) return InputError{path, 0, 0, "cannot open file"};
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_model(ss.str(), path);
}

// ------------------------------------------------------------------ model --

namespace {

// One matrix exponential gives both discrete matrices, and, when energy
// accounting is on, the integrals of the state over the step:
//   expm([[A B 0][0 0 0][I 0 0]] dt) = [[Ad Bd 0][0 I 0][Sx Su I]]
// where Sx, Su map x[k], u[k] to ∫ x dt over the step (used for heat lost to
// ambient).
// The step's product next = [Ad Bd] [x; u], small (n x 2n+1 for n nodes)
// and done every step. Each row is summed over the columns in order from
// zero, as Eigen's column-major matrix-vector product sums it, so the
// result is bit-identical to `adbd * z`; two rows at a time (a pair of
// doubles, which the compiler maps to one SIMD register where there is
// one), with the rows of up to kMaxPairs pairs held in registers. Columns
// whose input is exactly zero (nodes no device heats, devices drawing no
// power) are skipped: a*0 is ±0, and adding ±0 leaves a running sum
// unchanged unless it is -0, which a sum started at +0 never is under
// round-to-nearest.
using Pair = double __attribute__((vector_size(16)));
constexpr std::size_t kMaxPairs = 8;

struct PairedMatrix {
  std::size_t rows = 0;
  std::size_t pairs = 0;      // rows / 2, rounded up (the padding row is zero)
  std::vector<Pair> columns;  // column c is columns[c * pairs, (c + 1) * pairs)
};

PairedMatrix pair_rows(const Eigen::MatrixXd& m) {
  PairedMatrix p;
  p.rows = static_cast<std::size_t>(m.rows());
  p.pairs = (p.rows + 1) / 2;
  p.columns.assign(p.pairs * static_cast<std::size_t>(m.cols()), Pair{0.0, 0.0});
  for (Eigen::Index c = 0; c < m.cols(); ++c)
    for (Eigen::Index r = 0; r < m.rows(); ++r)
      p.columns[static_cast<std::size_t>(c) * p.pairs + static_cast<std::size_t>(r) / 2][r % 2] =
          m(r, c);
  return p;
}

// `active` lists the columns past the first `states` whose input is not
// zero (the states, temperatures, are taken whole: a zero one adds ±0, which
// changes nothing either). `out` has room for 2 * m.pairs values (the last
// one padding when the row count is odd).
template <std::size_t P>
void paired_product(const PairedMatrix& m, const Eigen::VectorXd& z, std::size_t states,
                    std::span<const std::uint32_t> active, double* out) {
  Pair acc[P] = {};
  const auto add = [&](std::size_t c) {
    const Pair zz = {z(static_cast<Eigen::Index>(c)), z(static_cast<Eigen::Index>(c))};
    const Pair* col = m.columns.data() + c * P;
#pragma GCC unroll 8
    for (std::size_t p = 0; p < P; ++p) acc[p] += col[p] * zz;
  };
  for (std::size_t c = 0; c < states; ++c) add(c);
  for (const std::uint32_t c : active) add(c);
  std::memcpy(out, acc, sizeof acc);
}

template <std::size_t... P>
bool paired_product_of(const PairedMatrix& m, const Eigen::VectorXd& z, std::size_t states,
                       std::span<const std::uint32_t> active, double* out,
                       std::index_sequence<P...> /*sizes*/) {
  return ((m.pairs == P + 1 && (paired_product<P + 1>(m, z, states, active, out), true)) || ...);
}

struct Discrete {
  Millis dt{0};
  Eigen::MatrixXd ad;
  Eigen::MatrixXd bd;
  Eigen::MatrixXd adbd;  // [Ad Bd], applied to [x; u] in one product
  PairedMatrix paired;   // the same, for the step's product
  Eigen::MatrixXd sx;
  Eigen::MatrixXd su;
};

Discrete discretise(const Eigen::MatrixXd& a, const Eigen::MatrixXd& b, Millis dt) {
  const auto n = a.rows();
  const auto m = b.cols();
  Eigen::MatrixXd big = Eigen::MatrixXd::Zero(2 * n + m, 2 * n + m);
  big.block(0, 0, n, n) = a;
  big.block(0, n, n, m) = b;
  big.block(n + m, 0, n, n) = Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd e = (big * (dt.count() / 1000.0)).exp();
  Discrete d;
  d.dt = dt;
  d.ad = e.block(0, 0, n, n);
  d.bd = e.block(0, n, n, m);
  d.adbd.resize(n, n + m);
  d.adbd << d.ad, d.bd;
  d.paired = pair_rows(d.adbd);
  d.sx = e.block(n + m, 0, n, n);
  d.su = e.block(n + m, n, n, m);
  return d;
}

struct SensorState {
  std::size_t node = 0;
  double lagged = 0.0;  // lag filter output, °C
  double alpha = 1.0;   // lag blend per base step: 1 - exp(-dt/tau)
  policy::Time next_sample{0};
};

struct HeatTarget {
  std::size_t node = 0;
  double share = 1.0;
};

}  // namespace

struct ThermalModel::Impl {
  ModelSpec spec;
  std::size_t n = 0;
  Eigen::VectorXd capacity;
  Eigen::VectorXd g_amb;
  Eigen::MatrixXd a;
  Eigen::MatrixXd b;
  Discrete base;
  Discrete other;        // cache for the last non-base dt
  Eigen::VectorXd z;     // [x; u]: node temperatures, then node powers and ambient
  Eigen::VectorXd next;  // node temperatures after the step, and one padding value
  std::vector<std::vector<HeatTarget>> heat;  // per device
  std::vector<std::uint32_t> max_levels;      // per device
  std::vector<std::uint32_t> levels;
  std::vector<double> demand;
  std::vector<double> power;  // per device, W
  std::vector<SensorState> sensors;
  std::vector<ThermalModel::SensorOutput> outputs;  // per sensor
  std::vector<std::size_t> skin;
  std::vector<std::uint32_t> active_inputs;  // see find_active_inputs(); capacity n + 1
  NoiseSource noise;
  policy::Time now{0};
  bool energy_on = false;
  double energy_in = 0;
  double energy_out = 0;

  Impl(ModelSpec s, std::uint64_t seed) : spec(std::move(s)), noise(seed) {
    n = spec.nodes.size();
    auto index = [&](const std::string& name) {
      for (std::size_t i = 0; i < n; ++i)
        if (spec.nodes[i].name == name) return i;
      return std::size_t{0};
    };
    capacity.resize(static_cast<Eigen::Index>(n));
    g_amb.resize(static_cast<Eigen::Index>(n));
    Eigen::MatrixXd lap =
        Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
    for (std::size_t i = 0; i < n; ++i) {
      capacity(static_cast<Eigen::Index>(i)) = spec.nodes[i].capacity_j_per_k;
      g_amb(static_cast<Eigen::Index>(i)) = spec.nodes[i].to_ambient_w_per_k;
    }
    for (const auto& l : spec.links) {
      const auto i = static_cast<Eigen::Index>(index(l.a));
      const auto j = static_cast<Eigen::Index>(index(l.b));
      lap(i, i) += l.w_per_k;
      lap(j, j) += l.w_per_k;
      lap(i, j) -= l.w_per_k;
      lap(j, i) -= l.w_per_k;
    }
    const auto ni = static_cast<Eigen::Index>(n);
    const Eigen::VectorXd cinv = capacity.cwiseInverse();
    a = -(cinv.asDiagonal() * (lap + Eigen::MatrixXd(g_amb.asDiagonal())));
    b = Eigen::MatrixXd::Zero(ni, ni + 1);
    b.block(0, 0, ni, ni) = cinv.asDiagonal();
    b.col(ni) = cinv.cwiseProduct(g_amb);
    base = discretise(a, b, spec.time_step);

    z = Eigen::VectorXd::Zero(2 * ni + 1);
    for (std::size_t i = 0; i < n; ++i)
      z(static_cast<Eigen::Index>(i)) = spec.nodes[i].initial_c.value_or(spec.ambient_c);
    z(2 * ni) = spec.ambient_c;
    next.resize(ni + 1);
    active_inputs.reserve(n + 1);

    for (const auto& d : spec.devices) {
      std::vector<HeatTarget> targets;
      for (const auto& h : d.heat) targets.push_back({index(h.node), h.share});
      heat.push_back(std::move(targets));
    }
    for (const auto& d : spec.devices) max_levels.push_back(d.max_level());
    levels.assign(spec.devices.size(), 0);
    demand.assign(spec.devices.size(), 0.0);
    power.assign(spec.devices.size(), 0.0);
    for (const auto& sensor : spec.sensors) {
      SensorState st;
      st.node = index(sensor.node);
      st.lagged = z(static_cast<Eigen::Index>(st.node));
      st.alpha = lag_alpha(sensor, spec.time_step);
      sensors.push_back(st);
    }
    outputs.resize(sensors.size());
    for (const auto& name : spec.skin_nodes) skin.push_back(index(name));
    update_power();
    sample_sensors();
  }

  static double lag_alpha(const SensorModelSpec& s, Millis dt) {
    if (s.lag_s <= 0) return 1.0;
    return 1.0 - std::exp(-(dt.count() / 1000.0) / s.lag_s);
  }

  auto x() { return z.head(static_cast<Eigen::Index>(n)); }
  auto x() const { return z.head(static_cast<Eigen::Index>(n)); }
  auto u() { return z.tail(static_cast<Eigen::Index>(n + 1)); }
  double& u_at(std::size_t i) { return z(static_cast<Eigen::Index>(n + i)); }
  double ambient() const { return z(static_cast<Eigen::Index>(2 * n)); }

  // The input columns (node powers, ambient) that are not zero.
  void find_active_inputs() {
    active_inputs.clear();
    for (std::size_t c = n; c <= 2 * n; ++c)
      if (z(static_cast<Eigen::Index>(c)) != 0.0)
        active_inputs.push_back(static_cast<std::uint32_t>(c));
  }

  void update_power() {
    u().head(static_cast<Eigen::Index>(n)).setZero();
    for (std::size_t d = 0; d < power.size(); ++d) {
      const auto& dev = spec.devices[d];
      power[d] = dev.idle_w + demand[d] * dev.power_w[levels[d]];
      for (const auto& h : heat[d]) u_at(h.node) += power[d] * h.share;
    }
    find_active_inputs();
  }

  // Samples every sensor whose period has come round at `now`. Readings use
  // the lagged node temperature; noise is drawn only when a sample is taken,
  // in sensor order, so the stream is reproducible.
  void sample_sensors() {
    for (std::size_t i = 0; i < sensors.size(); ++i) {
      auto& st = sensors[i];
      auto& out = outputs[i];
      out.sampled = false;
      if (now < st.next_sample) continue;
      const auto& s = spec.sensors[i];
      double v = st.lagged + s.offset_c;
      if (s.noise_c > 0) v += s.noise_c * noise.gaussian();
      if (s.quantum_c > 0) v = std::round(v / s.quantum_c) * s.quantum_c;
      out.reading = MilliC::from_celsius(v);
      out.sampled = true;
      while (st.next_sample <= now) st.next_sample += s.period;
    }
  }

  void advance(const Discrete& d) {
    if (energy_on) {
      const double secs = d.dt.count() / 1000.0;
      energy_in += u().head(static_cast<Eigen::Index>(n)).sum() * secs;
      const Eigen::VectorXd integral = d.sx * x() + d.su * u();
      energy_out += g_amb.dot(integral) - g_amb.sum() * ambient() * secs;
    }
    if (!paired_product_of(d.paired, z, n, active_inputs, next.data(),
                           std::make_index_sequence<kMaxPairs>{}))
      next.head(static_cast<Eigen::Index>(n)).noalias() = d.adbd * z;
    x() = next.head(static_cast<Eigen::Index>(n));
    if (d.dt == base.dt) {
      for (auto& st : sensors)
        st.lagged += st.alpha * (z(static_cast<Eigen::Index>(st.node)) - st.lagged);
    } else {
      for (std::size_t i = 0; i < sensors.size(); ++i) {
        auto& st = sensors[i];
        const double alpha = lag_alpha(spec.sensors[i], d.dt);
        st.lagged += alpha * (z(static_cast<Eigen::Index>(st.node)) - st.lagged);
      }
    }
    now += d.dt;
    sample_sensors();
  }
};

ThermalModel::ThermalModel(ModelSpec spec, std::uint64_t seed)
    : impl_(std::make_unique<Impl>(std::move(spec), seed)) {}
ThermalModel::~ThermalModel() = default;
ThermalModel::ThermalModel(ThermalModel&&) noexcept = default;
ThermalModel& ThermalModel::operator=(ThermalModel&&) noexcept = default;

std::variant<ThermalModel, InputError> ThermalModel::load(const std::string& path,
                                                          std::uint64_t seed) {
  auto spec = load_model_file(path);
  if (auto* e = std::get_if<InputError>(&spec)) return *e;
  return ThermalModel(std::move(std::get<ModelSpec>(spec)), seed);
}

const ModelSpec& ThermalModel::spec() const {
  return impl_->spec;
}
Millis ThermalModel::time_step() const {
  return impl_->spec.time_step;
}
policy::Time ThermalModel::now() const {
  return impl_->now;
}

namespace {
template <typename V>
std::optional<std::size_t> find_name(const V& v, std::string_view name) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i].name == name) return i;
  return std::nullopt;
}
}  // namespace

std::optional<std::size_t> ThermalModel::node_index(std::string_view name) const {
  return find_name(impl_->spec.nodes, name);
}
std::optional<std::size_t> ThermalModel::device_index(std::string_view name) const {
  return find_name(impl_->spec.devices, name);
}
std::optional<std::size_t> ThermalModel::sensor_index(std::string_view name) const {
  return find_name(impl_->spec.sensors, name);
}

void ThermalModel::set_ambient(double c) {
  impl_->u_at(impl_->n) = c;
  impl_->find_active_inputs();
}

void ThermalModel::set_level(std::size_t device, std::uint32_t level) {
  impl_->levels.at(device) = std::min(level, impl_->spec.devices[device].max_level());
  impl_->update_power();
}

void ThermalModel::set_demand(std::size_t device, double demand) {
  impl_->demand.at(device) = std::clamp(demand, 0.0, 1.0);
  impl_->update_power();
}

void ThermalModel::step() {
  impl_->advance(impl_->base);
}

void ThermalModel::step(Millis dt) {
  if (dt.count() <= 0) return;
  if (dt == impl_->base.dt) {
    impl_->advance(impl_->base);
    return;
  }
  if (impl_->other.dt != dt) impl_->other = discretise(impl_->a, impl_->b, dt);
  impl_->advance(impl_->other);
}

// Powers are recomputed only when some input changed: they are a function
// of the inputs alone, so the result is the same, and the closed loop sets
// the same inputs on most steps (inputs equal to the stored ones, which are
// in range, need no clamping either).
void ThermalModel::set_inputs(std::span<const std::uint32_t> levels,
                              std::span<const double> demand) {
  auto& m = *impl_;
  if (levels.size() == m.levels.size() && demand.size() == m.demand.size()) {
    std::size_t d = 0;
    while (d < levels.size() && levels[d] == m.levels[d] && demand[d] == m.demand[d]) ++d;
    if (d == levels.size()) return;
  }
  const auto count = std::min({levels.size(), demand.size(), m.levels.size()});
  bool changed = false;
  for (std::size_t d = 0; d < count; ++d) {
    const std::uint32_t level = std::min(levels[d], m.max_levels[d]);
    const double dem = std::clamp(demand[d], 0.0, 1.0);
    changed = changed || level != m.levels[d] || !(dem == m.demand[d]);
    m.levels[d] = level;
    m.demand[d] = dem;
  }
  if (changed) m.update_power();
}

void ThermalModel::step(Millis dt, std::span<const std::uint32_t> levels,
                        std::span<const double> demand) {
  auto& m = *impl_;
  const auto count = std::min({levels.size(), demand.size(), m.levels.size()});
  for (std::size_t d = 0; d < count; ++d) {
    m.levels[d] = std::min(levels[d], m.spec.devices[d].max_level());
    m.demand[d] = std::clamp(demand[d], 0.0, 1.0);
  }
  m.update_power();
  step(dt);
}

double ThermalModel::node_c(std::size_t node) const {
  return impl_->z(static_cast<Eigen::Index>(node));
}
double ThermalModel::ambient_c() const {
  return impl_->ambient();
}
double ThermalModel::max_skin_c() const {
  double m = -1e300;
  for (auto i : impl_->skin) m = std::max(m, impl_->z(static_cast<Eigen::Index>(i)));
  return m;
}
std::uint32_t ThermalModel::level(std::size_t device) const {
  return impl_->levels.at(device);
}
double ThermalModel::demand(std::size_t device) const {
  return impl_->demand.at(device);
}
double ThermalModel::device_power_w(std::size_t device) const {
  return impl_->power.at(device);
}
MilliC ThermalModel::sensor(std::size_t sensor) const {
  return impl_->outputs.at(sensor).reading;
}
bool ThermalModel::sensor_sampled(std::size_t sensor) const {
  return impl_->outputs.at(sensor).sampled;
}
std::span<const ThermalModel::SensorOutput> ThermalModel::sensor_outputs() const {
  return impl_->outputs;
}
std::span<const double> ThermalModel::device_powers_w() const {
  return impl_->power;
}

void ThermalModel::enable_energy_accounting(bool on) {
  impl_->energy_on = on;
}
double ThermalModel::stored_energy_j() const {
  return impl_->capacity.dot(impl_->x());
}
double ThermalModel::energy_in_j() const {
  return impl_->energy_in;
}
double ThermalModel::energy_to_ambient_j() const {
  return impl_->energy_out;
}

}  // namespace coolhand::sim
