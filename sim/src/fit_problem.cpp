// The fit's open-loop simulation and residuals (fit_problem.h).
#include "fit_problem.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <unsupported/Eigen/MatrixFunctions>

namespace coolhand::sim::detail {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::size_t node_of(const ModelSpec& m, const std::string& name) {
  for (std::size_t i = 0; i < m.nodes.size(); ++i)
    if (m.nodes[i].name == name) return i;
  return 0;  // parse_model has checked every reference
}

double first_reading(const std::vector<double>& v) {
  for (double x : v)
    if (!std::isnan(x)) return x;
  return kNaN;
}

// The node each sensor reads, and per node the first sensor on it (or -1).
struct SensorMap {
  std::vector<std::size_t> node_of_sensor;
  std::vector<int> sensor_of_node;
};

SensorMap sensor_map(const ModelSpec& m) {
  SensorMap s;
  s.sensor_of_node.assign(m.nodes.size(), -1);
  for (std::size_t j = 0; j < m.sensors.size(); ++j) {
    const auto i = node_of(m, m.sensors[j].node);
    s.node_of_sensor.push_back(i);
    if (s.sensor_of_node[i] < 0) s.sensor_of_node[i] = static_cast<int>(j);
  }
  return s;
}

// Mean of every sensor's first reading (less its offset): where a node no
// sensor reads is assumed to start when nothing better is known.
double mean_first_reading(const ModelSpec& m, const FitSegment& seg) {
  double sum = 0;
  int n = 0;
  for (std::size_t j = 0; j < m.sensors.size(); ++j) {
    const double r = first_reading(seg.reading_c[j]);
    if (!std::isnan(r)) {
      sum += r - m.sensors[j].offset_c;
      ++n;
    }
  }
  return n > 0 ? sum / n : seg.ambient_c.front();
}

// Open-loop run of `m` over `seg` from node temperatures `start`: every
// sensor's prediction and every device's power, per grid index.
void simulate(const ModelSpec& m, const FitSegment& seg, const std::vector<double>& start,
              std::vector<std::vector<double>>* sensor_pred,
              std::vector<std::vector<double>>* node_pred,
              std::vector<std::vector<double>>& device_power) {
  const std::size_t n = m.nodes.size();
  const auto map = sensor_map(m);
  std::vector<int> lag_state(m.sensors.size(), -1);
  std::size_t nx = n;
  for (std::size_t j = 0; j < m.sensors.size(); ++j)
    if (m.sensors[j].lag_s > 0) lag_state[j] = static_cast<int>(nx++);

  // Continuous dynamics dx/dt = A x + B [P; T_amb], then Van Loan.
  Eigen::MatrixXd a =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(nx), static_cast<Eigen::Index>(nx));
  Eigen::MatrixXd b =
      Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(nx), static_cast<Eigen::Index>(n + 1));
  const auto ni = static_cast<Eigen::Index>(n);
  for (std::size_t i = 0; i < n; ++i) {
    const auto ii = static_cast<Eigen::Index>(i);
    const double c = m.nodes[i].capacity_j_per_k;
    a(ii, ii) -= m.nodes[i].to_ambient_w_per_k / c;
    b(ii, ii) = 1.0 / c;
    b(ii, ni) = m.nodes[i].to_ambient_w_per_k / c;
  }
  for (const auto& l : m.links) {
    const auto x = static_cast<Eigen::Index>(node_of(m, l.a));
    const auto y = static_cast<Eigen::Index>(node_of(m, l.b));
    const double cx = m.nodes[static_cast<std::size_t>(x)].capacity_j_per_k;
    const double cy = m.nodes[static_cast<std::size_t>(y)].capacity_j_per_k;
    a(x, x) -= l.w_per_k / cx;
    a(x, y) += l.w_per_k / cx;
    a(y, y) -= l.w_per_k / cy;
    a(y, x) += l.w_per_k / cy;
  }
  for (std::size_t j = 0; j < m.sensors.size(); ++j)
    if (lag_state[j] >= 0) {
      const auto s = static_cast<Eigen::Index>(lag_state[j]);
      a(s, s) = -1.0 / m.sensors[j].lag_s;
      a(s, static_cast<Eigen::Index>(map.node_of_sensor[j])) = 1.0 / m.sensors[j].lag_s;
    }
  const auto nxi = static_cast<Eigen::Index>(nx);
  // Fans (`cooling`) add their level's conductance to ambient: one
  // discretisation per combination of fan levels met, each interval taking
  // the level each fan spent most of it at.
  std::vector<std::size_t> fans;
  for (std::size_t d = 0; d < m.devices.size(); ++d)
    if (!m.devices[d].cooling.empty()) fans.push_back(d);
  std::map<std::vector<std::size_t>, std::pair<Eigen::MatrixXd, Eigen::MatrixXd>> discrete;
  auto discretised = [&](const std::vector<std::size_t>& levels)
      -> const std::pair<Eigen::MatrixXd, Eigen::MatrixXd>& {
    auto it = discrete.find(levels);
    if (it != discrete.end()) return it->second;
    Eigen::MatrixXd af = a;
    Eigen::MatrixXd bf = b;
    for (std::size_t f = 0; f < fans.size(); ++f)
      for (const auto& c : m.devices[fans[f]].cooling) {
        const auto i = static_cast<Eigen::Index>(node_of(m, c.node));
        const double g = c.to_ambient_w_per_k[levels[f]];
        const double cap = m.nodes[static_cast<std::size_t>(i)].capacity_j_per_k;
        af(i, i) -= g / cap;
        bf(i, ni) += g / cap;
      }
    Eigen::MatrixXd aug = Eigen::MatrixXd::Zero(nxi + ni + 1, nxi + ni + 1);
    aug.topLeftCorner(nxi, nxi) = af * seg.step_s;
    aug.topRightCorner(nxi, ni + 1) = bf * seg.step_s;
    const Eigen::MatrixXd e = aug.exp();
    return discrete
        .emplace(levels, std::make_pair(Eigen::MatrixXd(e.topLeftCorner(nxi, nxi)),
                                        Eigen::MatrixXd(e.topRightCorner(nxi, ni + 1))))
        .first->second;
  };
  std::vector<std::size_t> fan_levels(fans.size(), 0);

  const std::size_t count = seg.time_s.size();
  Eigen::VectorXd x(nxi);
  for (std::size_t i = 0; i < n; ++i) x(static_cast<Eigen::Index>(i)) = start[i];
  for (std::size_t j = 0; j < m.sensors.size(); ++j)
    if (lag_state[j] >= 0) {
      const double r = first_reading(seg.reading_c[j]);
      x(lag_state[j]) = std::isnan(r) ? start[map.node_of_sensor[j]] : r - m.sensors[j].offset_c;
    }

  device_power.assign(m.devices.size(), std::vector<double>(count, 0.0));
  for (std::size_t d = 0; d < m.devices.size(); ++d) {
    const auto& dev = m.devices[d];
    for (std::size_t k = 0; k < count; ++k) {
      double p = dev.idle_w;
      for (std::size_t l = 0; l < dev.power_w.size(); ++l) p += seg.load[d][l][k] * dev.power_w[l];
      device_power[d][k] = p;
    }
  }
  std::vector<std::vector<std::size_t>> heat_node(m.devices.size());
  for (std::size_t d = 0; d < m.devices.size(); ++d)
    for (const auto& h : m.devices[d].heat) heat_node[d].push_back(node_of(m, h.node));

  if (sensor_pred) sensor_pred->assign(m.sensors.size(), std::vector<double>(count, kNaN));
  if (node_pred) node_pred->assign(n, std::vector<double>(count, kNaN));
  Eigen::VectorXd u(ni + 1);
  for (std::size_t k = 0; k < count; ++k) {
    if (sensor_pred)
      for (std::size_t j = 0; j < m.sensors.size(); ++j)
        (*sensor_pred)[j][k] =
            x(lag_state[j] >= 0 ? lag_state[j] : static_cast<Eigen::Index>(map.node_of_sensor[j])) +
            m.sensors[j].offset_c;
    if (node_pred)
      for (std::size_t i = 0; i < n; ++i) (*node_pred)[i][k] = x(static_cast<Eigen::Index>(i));
    if (k + 1 == count) break;
    u.setZero();
    for (std::size_t d = 0; d < m.devices.size(); ++d)
      for (std::size_t h = 0; h < heat_node[d].size(); ++h)
        u(static_cast<Eigen::Index>(heat_node[d][h])) +=
            m.devices[d].heat[h].share * device_power[d][k];
    u(ni) = seg.ambient_c[k];
    for (std::size_t f = 0; f < fans.size(); ++f) {
      const auto& load = seg.load[fans[f]];
      std::size_t best = 0;
      for (std::size_t l = 1; l < load.size(); ++l)
        if (load[l][k] > load[best][k]) best = l;
      fan_levels[f] = best;
    }
    const auto& [ad, bd] = discretised(fan_levels);
    x = ad * x + bd * u;
  }
}

// Start temperatures: a node a sensor reads at that sensor's first reading
// (less its offset), every other node at `hidden` (NaN: the mean first reading).
std::vector<double> start_temps(const ModelSpec& m, const FitSegment& seg,
                                const std::vector<double>& hidden) {
  const auto map = sensor_map(m);
  const double fallback = mean_first_reading(m, seg);
  std::vector<double> start(m.nodes.size(), fallback);
  for (std::size_t i = 0; i < m.nodes.size(); ++i) {
    const int j = map.sensor_of_node[i];
    const double r = j >= 0 ? first_reading(seg.reading_c[static_cast<std::size_t>(j)]) : kNaN;
    if (!std::isnan(r))
      start[i] = r - m.sensors[static_cast<std::size_t>(j)].offset_c;
    else if (m.nodes[i].initial_c)
      start[i] = *m.nodes[i].initial_c;
    else if (i < hidden.size() && !std::isnan(hidden[i]))
      start[i] = hidden[i];
  }
  return start;
}

}  // namespace

FitProblem::FitProblem(const FitSkeleton& skeleton, const std::vector<FitSegment>& data,
                       double holdout)
    : skeleton_(skeleton), data_(data) {
  model_params_ = skeleton.free.size();
  const auto map = sensor_map(skeleton.spec);
  for (std::size_t i = 0; i < skeleton.spec.nodes.size(); ++i)
    if (map.sensor_of_node[i] < 0 && !skeleton.spec.nodes[i].initial_c) hidden_.push_back(i);
  hidden_starts_ = hidden_.size() * data.size();
  for (const auto& seg : data) {
    const auto count = seg.time_s.size();
    auto end = static_cast<std::size_t>(std::floor(static_cast<double>(count) * (1.0 - holdout)));
    train_end_.push_back(std::clamp<std::size_t>(end, 2, count));
  }
}

Eigen::VectorXd FitProblem::initial_guess() const {
  Eigen::VectorXd theta(static_cast<Eigen::Index>(size()));
  for (std::size_t p = 0; p < model_params_; ++p) {
    double v = 1.0;
    switch (skeleton_.free[p].kind) {
      case FreeParam::Kind::capacity:
        v = 20.0;
        break;
      case FreeParam::Kind::to_ambient:
        v = 0.2;
        break;
      case FreeParam::Kind::link:
        v = 1.0;
        break;
      case FreeParam::Kind::idle:
        v = 0.2;
        break;
      case FreeParam::Kind::power:
        v = 1.0;
        break;
    }
    theta(static_cast<Eigen::Index>(p)) = std::log(v);
  }
  for (std::size_t s = 0; s < data_.size(); ++s)
    for (std::size_t h = 0; h < hidden_.size(); ++h)
      theta(static_cast<Eigen::Index>(model_params_ + s * hidden_.size() + h)) =
          mean_first_reading(skeleton_.spec, data_[s]);
  return theta;
}

ModelSpec FitProblem::apply(const Eigen::VectorXd& theta) const {
  ModelSpec m = skeleton_.spec;
  for (std::size_t p = 0; p < model_params_; ++p) {
    const auto& f = skeleton_.free[p];
    const double v = std::exp(theta(static_cast<Eigen::Index>(p)));
    switch (f.kind) {
      case FreeParam::Kind::capacity:
        m.nodes[f.index].capacity_j_per_k = v;
        break;
      case FreeParam::Kind::to_ambient:
        m.nodes[f.index].to_ambient_w_per_k = v;
        break;
      case FreeParam::Kind::link:
        m.links[f.index].w_per_k = v;
        break;
      case FreeParam::Kind::idle:
        m.devices[f.index].idle_w = v;
        break;
      case FreeParam::Kind::power:
        m.devices[f.index].power_w[f.level] = v;
        break;
    }
  }
  return m;
}

void FitProblem::run(const ModelSpec& spec, std::size_t seg, const double* hidden_start,
                     std::vector<std::vector<double>>& sensor_pred,
                     std::vector<std::vector<double>>& device_power) const {
  std::vector<double> hidden(spec.nodes.size(), kNaN);
  for (std::size_t h = 0; h < hidden_.size(); ++h) hidden[hidden_[h]] = hidden_start[h];
  simulate(spec, data_[seg], start_temps(spec, data_[seg], hidden), &sensor_pred, nullptr,
           device_power);
}

Eigen::VectorXd FitProblem::residuals(const Eigen::VectorXd& theta) const {
  const ModelSpec spec = apply(theta);
  std::vector<double> out;
  std::vector<std::vector<double>> pred, power;
  for (std::size_t s = 0; s < data_.size(); ++s) {
    const auto& seg = data_[s];
    run(spec, s, theta.data() + model_params_ + s * hidden_.size(), pred, power);
    for (std::size_t k = 1; k < train_end_[s]; ++k)
      for (std::size_t j = 0; j < pred.size(); ++j)
        if (!std::isnan(seg.reading_c[j][k])) out.push_back(pred[j][k] - seg.reading_c[j][k]);
    for (std::size_t k = 0; k + 1 < train_end_[s]; ++k) {
      double total = 0;
      for (std::size_t d = 0; d < power.size(); ++d) {
        total += power[d][k];
        if (!seg.power_w.empty() && !seg.power_w[d].empty())
          out.push_back(power[d][k] - seg.power_w[d][k]);
      }
      if (!seg.total_power_w.empty()) out.push_back(total - seg.total_power_w[k]);
    }
  }
  for (Eigen::Index p = 0; p < prior_.size(); ++p)
    out.push_back(prior_weight_ * (theta(p) - prior_(p)));
  return Eigen::Map<Eigen::VectorXd>(out.data(), static_cast<Eigen::Index>(out.size()));
}

void FitProblem::errors(const Eigen::VectorXd& theta, std::vector<SensorError>& train,
                        std::vector<SensorError>& held_out) const {
  const ModelSpec spec = apply(theta);
  const auto ns = spec.sensors.size();
  std::vector<double> sum2[2] = {std::vector<double>(ns), std::vector<double>(ns)};
  std::vector<double> worst[2] = {std::vector<double>(ns), std::vector<double>(ns)};
  std::vector<std::size_t> count[2] = {std::vector<std::size_t>(ns), std::vector<std::size_t>(ns)};
  std::vector<std::vector<double>> pred, power;
  for (std::size_t s = 0; s < data_.size(); ++s) {
    run(spec, s, theta.data() + model_params_ + s * hidden_.size(), pred, power);
    for (std::size_t k = 1; k < data_[s].time_s.size(); ++k)
      for (std::size_t j = 0; j < ns; ++j) {
        const double r = data_[s].reading_c[j][k];
        if (std::isnan(r)) continue;
        const int part = k < train_end_[s] ? 0 : 1;
        const double e = pred[j][k] - r;
        sum2[part][j] += e * e;
        worst[part][j] = std::max(worst[part][j], std::abs(e));
        ++count[part][j];
      }
  }
  train.clear();
  held_out.clear();
  for (std::size_t j = 0; j < ns; ++j)
    for (int part = 0; part < 2; ++part) {
      SensorError e;
      e.name = spec.sensors[j].name;
      e.samples = count[part][j];
      e.rms_c = e.samples ? std::sqrt(sum2[part][j] / static_cast<double>(e.samples)) : 0.0;
      e.max_abs_c = worst[part][j];
      (part == 0 ? train : held_out).push_back(e);
    }
}

std::vector<std::vector<double>> FitProblem::simulate_nodes(const ModelSpec& spec,
                                                            const FitSegment& segment) {
  std::vector<std::vector<double>> nodes, power;
  simulate(spec, segment, start_temps(spec, segment, {}), nullptr, &nodes, power);
  return nodes;
}

}  // namespace coolhand::sim::detail
