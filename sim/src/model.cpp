// The exactly discretised RC network (see model.h for the physics). Reading
// the model YAML is in model_parse.cpp.
#include "coolhand/sim/model.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <unsupported/Eigen/MatrixFunctions>
#include <utility>

#include "noise.h"

namespace coolhand::sim {

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
  Eigen::VectorXd g;  // conductance of each node to ambient in this fan configuration, W/K
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
  Eigen::VectorXd g_amb;  // the nodes' own conductances to ambient (no fan)
  Eigen::MatrixXd lap;    // conductance Laplacian between nodes
  // Fan configurations: the devices with `cooling`, the stride of each in
  // the configuration index (mixed radix over their levels), and each
  // configuration's step, made the first time it is used.
  std::vector<std::size_t> fans;
  std::vector<std::size_t> fan_stride;
  std::vector<std::unique_ptr<Discrete>> configs;
  std::size_t config = 0;         // the current fan configuration
  const Discrete* cur = nullptr;  // its step at the spec's time step
  Discrete other;                 // cache for the last other dt (in configuration other_config)
  std::size_t other_config = 0;
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
    lap = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
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
    std::size_t configurations = 1;
    for (std::size_t d = 0; d < spec.devices.size(); ++d) {
      if (spec.devices[d].cooling.empty()) continue;
      fans.push_back(d);
      fan_stride.push_back(configurations);
      configurations *= spec.devices[d].power_w.size();
    }
    configs.resize(configurations);
    configs[0] = std::make_unique<Discrete>(make_discrete(0, spec.time_step));
    cur = configs[0].get();

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

  // The continuous-time A, B of fan configuration `c` (model.h), discretised
  // for steps of `dt`.
  Discrete make_discrete(std::size_t c, Millis dt) const {
    Eigen::VectorXd g = g_amb;
    for (std::size_t f = 0; f < fans.size(); ++f) {
      const auto& dev = spec.devices[fans[f]];
      const std::size_t level = (c / fan_stride[f]) % dev.power_w.size();
      for (const auto& e : dev.cooling)
        for (std::size_t i = 0; i < n; ++i)
          if (spec.nodes[i].name == e.node)
            g(static_cast<Eigen::Index>(i)) += e.to_ambient_w_per_k[level];
    }
    const auto ni = static_cast<Eigen::Index>(n);
    const Eigen::VectorXd cinv = capacity.cwiseInverse();
    const Eigen::MatrixXd a = -(cinv.asDiagonal() * (lap + Eigen::MatrixXd(g.asDiagonal())));
    Eigen::MatrixXd b = Eigen::MatrixXd::Zero(ni, ni + 1);
    b.block(0, 0, ni, ni) = cinv.asDiagonal();
    b.col(ni) = cinv.cwiseProduct(g);
    Discrete d = discretise(a, b, dt);
    d.g = std::move(g);
    return d;
  }

  // Points `cur` at the step of the cooling devices' current levels.
  void select_configuration() {
    if (fans.empty()) return;
    std::size_t c = 0;
    for (std::size_t f = 0; f < fans.size(); ++f) c += levels[fans[f]] * fan_stride[f];
    if (c == config) return;
    if (!configs[c]) configs[c] = std::make_unique<Discrete>(make_discrete(c, spec.time_step));
    config = c;
    cur = configs[c].get();
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
    select_configuration();
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
      // A sensor's range is the policy language's +-1000 °C (and int32 m°C
      // holds no more): a runaway model (a huge power) saturates it, NaN
      // at the low end.
      out.reading = MilliC::from_celsius(v > 1000.0 ? 1000.0 : v >= -1000.0 ? v : -1000.0);
      out.sampled = true;
      while (st.next_sample <= now) st.next_sample += s.period;
    }
  }

  void advance(const Discrete& d) {
    if (energy_on) {
      const double secs = d.dt.count() / 1000.0;
      energy_in += u().head(static_cast<Eigen::Index>(n)).sum() * secs;
      const Eigen::VectorXd integral = d.sx * x() + d.su * u();
      energy_out += d.g.dot(integral) - d.g.sum() * ambient() * secs;
    }
    if (!paired_product_of(d.paired, z, n, active_inputs, next.data(),
                           std::make_index_sequence<kMaxPairs>{}))
      next.head(static_cast<Eigen::Index>(n)).noalias() = d.adbd * z;
    x() = next.head(static_cast<Eigen::Index>(n));
    if (d.dt == spec.time_step) {
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

std::variant<ThermalModel, config::ConfigError> ThermalModel::load(const std::string& path,
                                                                   std::uint64_t seed) {
  auto spec = load_model_file(path);
  if (auto* e = std::get_if<config::ConfigError>(&spec)) return *e;
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
std::optional<std::size_t> device_index(const ModelSpec& spec, std::string_view name) {
  return find_name(spec.devices, name);
}

std::optional<std::size_t> ThermalModel::device_index(std::string_view name) const {
  return sim::device_index(impl_->spec, name);
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
  impl_->advance(*impl_->cur);
}

void ThermalModel::step(Millis dt) {
  auto& m = *impl_;
  if (dt.count() <= 0) return;
  if (dt == m.spec.time_step) {
    m.advance(*m.cur);
    return;
  }
  if (m.other.dt != dt || m.other_config != m.config) {
    m.other = m.make_discrete(m.config, dt);
    m.other_config = m.config;
  }
  m.advance(m.other);
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
ThermalModel::StepMatrices ThermalModel::step_matrices() const {
  const Discrete& d = *impl_->cur;
  StepMatrices m;
  m.nodes = impl_->n;
  for (Eigen::Index i = 0; i < d.ad.rows(); ++i) {
    for (Eigen::Index j = 0; j < d.ad.cols(); ++j) m.ad.push_back(d.ad(i, j));
    for (Eigen::Index j = 0; j < d.bd.cols(); ++j) m.bd.push_back(d.bd(i, j));
  }
  return m;
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
