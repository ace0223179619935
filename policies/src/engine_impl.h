// Internal state of a compiled Engine, shared by the translation units that
// implement one stage of a step each (sensors, zones, controllers,
// arbitration, windows). Everything a step touches is allocated by compile():
// vectors here are sized once and only cleared or overwritten afterwards, so
// step() does not allocate in steady state.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "coolhand/policy/engine.h"
#include "coolhand/policy/spec.h"
#include "coolhand/policy/units.h"

namespace coolhand::policy::detail {

// One timestamped value (m°C at time t).
struct Sample {
  Time t{0};
  std::int32_t mc = 0;
};

// A ring of samples whose capacity is fixed by reset(); when full, push()
// drops the oldest sample. Index 0 is the oldest. Every sample pushed also
// gets a sequence number, one more than the sample before it, which stays
// valid until the sample leaves the ring: readers that keep a position
// across steps (the fir taps) hold sequence numbers, and one below seq_front()
// means that sample has gone. The storage is a power of two long so that an
// index is a mask, not a division.
class SampleRing {
 public:
  void reset(std::size_t capacity) {
    capacity_ = capacity;
    buf_.assign(std::bit_ceil(std::max<std::size_t>(capacity, 1)), Sample{});
    mask_ = buf_.size() - 1;
    front_ = 0;
    size_ = 0;
  }
  void clear() {
    front_ += size_;
    size_ = 0;
  }
  void push(Sample s) {
    if (capacity_ == 0) return;
    if (size_ == capacity_) pop_front();
    buf_[(front_ + size_) & mask_] = s;
    ++size_;
  }
  void pop_back() {
    if (size_ > 0) --size_;
  }
  void pop_front() {
    if (size_ == 0) return;
    ++front_;
    --size_;
  }
  [[nodiscard]] std::size_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] const Sample& operator[](std::size_t i) const { return buf_[(front_ + i) & mask_]; }
  [[nodiscard]] const Sample& back() const { return (*this)[size_ - 1]; }
  // Sequence numbers of the oldest and the newest sample (newest: only when
  // not empty), and the sample with a sequence number in that range.
  [[nodiscard]] std::uint64_t seq_front() const { return front_; }
  [[nodiscard]] std::uint64_t seq_back() const { return front_ + size_ - 1; }
  [[nodiscard]] const Sample& at_seq(std::uint64_t seq) const { return buf_[seq & mask_]; }

  // Checkpoints (state.cpp): the sequence number, the size (validated
  // against the capacity on load) and the live samples, oldest first (a
  // stale slot is never read). Measuring the largest state counts a full ring.
  template <typename Io, typename Self>
  static void visit_state(Io& io, Self& self) {
    io(self.front_);
    io.index(self.size_, self.capacity_, true);
    const std::size_t n = io.measuring_max() ? self.capacity_ : self.size_;
    if (!io.ok()) return;
    for (std::size_t i = 0; i < n; ++i) io(self.buf_[(self.front_ + i) & self.mask_]);
  }

 private:
  std::vector<Sample> buf_;
  std::size_t capacity_ = 0;
  std::size_t mask_ = 0;
  std::uint64_t front_ = 0;  // sequence number of the oldest sample
  std::size_t size_ = 0;
};

struct SensorRt {
  SensorSpec::Kind kind = SensorSpec::Kind::physical;
  bool new_reading = false;    // physical: a reading (or loss) arrived since the last step
  bool fresh = false;          // a new reading reached this sensor in this step
  bool reported_known = true;  // last state announced by sensor_known/unknown
  bool ema_valid = false;      // ema: ema_mc holds an average
  // Whether the sensor may stay unknown for good because an optional
  // physical sensor is absent: an optional physical sensor; a weighted_sum,
  // max or min all of whose inputs may; an ema, fir or predictor whose
  // input (any input, for fir) may.
  bool may_be_absent = false;
  std::int32_t offset_mc = 0;
  std::int32_t trend_mc = 0;  // value change between the last two fresh steps
  std::vector<std::uint16_t> inputs;
  std::vector<double> weights;
  std::vector<double> abs_weights;  // fir: |weights|, for the drift bound

  // Physical: the latest reading as the adapter gave it (before `offset`).
  std::optional<std::int32_t> raw_mc;
  Time raw_at{0};
  // Physical: the reading before the latest, for the rate of change.
  std::optional<Sample> prev_reading;

  // Evaluated at each step.
  std::optional<MilliC> value;
  std::optional<std::int32_t> prev_fresh_mc;

  // ema: running average and the time it was last advanced.
  double ema_mc = 0.0;
  Time ema_at{0};
  // fir: per input, the times its evaluated value changed (oldest first),
  // and per input and tap (input-major, like weights) the sequence number in
  // that input's history of the change whose value the tap held at the last
  // step.
  std::vector<SampleRing> history;
  std::vector<std::uint64_t> tap_seq;
  // fir: per input and tap, the value the tap holds in this step (m°C, an
  // integer kept as a double, as the weighing converts it anyway); and the
  // first time a newer change will reach a tap other than tap 0 (which
  // follows its input), if one will.
  std::vector<double> tap_held;
  std::optional<Time> taps_next_change;
  // fir history owner: per input and tap, whether this fir or any fir
  // sharing its history weighs that tap (weight != 0). A tap weighed by
  // none changes no value when a newer change reaches it, so it schedules
  // no step (a row of zeros left for the fit, over a fast input).
  std::vector<std::uint8_t> tap_weighed;
  // fir: an fir evaluated before this one with the same inputs, taps and
  // tap_period. Its history is this one's (both see the same values in
  // the same steps and forget them together), so this one only weighs its
  // taps.
  std::optional<std::uint16_t> fir_source;
  // predictor: readings of the input inside the regression window.
  SampleRing samples;
  double slope = 0.0;  // predictor: m°C per ms over `samples`; dequantise: since the last flip
  // dequantise: the input's last value, the quantum (m°C), and the last
  // flip: when, the value it crossed (halfway between the two readings) and
  // its direction (+1 up, -1 down, 0 none to go by).
  std::optional<std::int32_t> dq_input;
  std::int32_t dq_quantum = 0;
  Time dq_flip_at{0};
  double dq_flip_mc = 0.0;
  int dq_dir = 0;
  // fir, predictor: when the value next changes with no new reading;
  // physical: when the reading turns stale.
  std::optional<Time> next_change;
  // ema, fir, predictor: a bound on how far the value can still move with no
  // new reading (m°C), as the average settles, held samples slide past the
  // taps, or samples leave the regression window.
  double drift = 0.0;
  double slope_drift = 0.0;  // predictor: the same bound on the slope (m°C/ms)

  // Windows: bound on |change of this sensor| per unit of simultaneous change
  // of each physical sensor it depends on (∞-norm Lipschitz constant).
  double gain = 1.0;
  std::vector<std::uint16_t> leaves;  // physical sensors this one depends on (itself if physical)
  // Drifting sensors (ema, fir, predictor) this one depends on, itself
  // included, each with the bound on |change of this sensor| per unit change
  // of that one.
  std::vector<std::pair<std::uint16_t, double>> drift_gains;
};

struct ZoneRt {
  std::uint16_t sensor = 0;
  std::vector<TripSpec> trips;
  std::vector<SeverityStepSpec> severities;
  std::vector<std::vector<std::uint16_t>> force_devices;  // per trip: devices to force
  // State.
  std::uint32_t reached = 0;                 // bit i: trip i reached
  std::vector<std::uint32_t> debounce;       // consecutive readings at or above each threshold
  std::uint32_t fired = 0;                   // bit i: trip i's action fired in this excursion
  std::optional<std::size_t> severity_step;  // index into severities; none: Severity::none
  bool debouncing = false;                   // some action is counting readings
};

struct BindingRt {
  std::uint16_t device = 0;
  double weight = 1.0;
  std::uint32_t request = 0;  // level asked for in this step
  std::uint32_t held = 0;     // step_wise: the level it has stepped to
  double grant_mw = 0.0;      // power_budget: power granted in this step
  bool capped = false;        // power_budget: share reached the device's maximum
};

struct ControllerRt {
  ControllerSpec::Kind kind = ControllerSpec::Kind::step_wise;
  std::uint16_t input = 0;  // sensor index (a zone input is resolved to its sensor)
  std::vector<BindingRt> bindings;
  std::optional<std::uint32_t> safe_level;

  // Effective parameters (spec + active profile).
  bool enabled = true;
  std::int32_t threshold_mc = 0;
  std::int32_t setpoint_mc = 0;
  std::int32_t switch_on_mc = 0;
  std::vector<TableRow> rows;

  // State.
  bool safe = false;                // input unknown: requesting the safe level
  std::optional<Time> last_change;  // step_wise
  std::optional<std::size_t> row;   // table
  bool on = false;                  // bang_bang
  bool engaged = false;             // pid, power_budget
  double integral = 0.0;            // pid: °C·s; power_budget: mW
  double output = 0.0;              // pid: 0..1
  std::optional<Time> last_update;  // pid, power_budget
  std::int32_t last_mc = 0;         // pid: T at the last update; power_budget: error in m°C
};

struct DeviceRt {
  std::uint32_t max_level = 0;
  std::vector<std::uint32_t> power_mw;
  std::uint32_t max_step_up = 0;
  std::uint32_t max_step_down = 0;
  Millis min_dwell{0};
  Millis release_dwell{0};
  // (controller, binding) pairs that bind this device, in controller order.
  std::vector<std::pair<std::uint16_t, std::uint16_t>> bound;
  // Effective (spec + active profile).
  std::uint32_t min_level = 0;
  std::uint32_t limit_level = 0;
  // State.
  std::uint32_t level = 0;          // last applied level
  std::optional<Time> level_since;  // when it was applied (none: never changed)
  bool forced = false;              // set by zones in this step
  std::uint32_t escalated = 0;      // set by the last resorts in this step: a floor on the level
};

// A zone's last resort (escalation.cpp).
struct LastResortRt {
  std::uint16_t zone = 0;
  std::int32_t limit_mc = 0;
  std::int32_t release_mc = 0;  // limit - hysteresis
  Millis hold{0};
  std::vector<std::uint16_t> controllers;  // controllers whose input depends on the zone sensor
  std::vector<std::uint16_t> candidates;   // devices, in spec order
  std::vector<std::uint32_t> levels;       // per candidate: levels taken
  // Per candidate and level l (candidate-major, max_level entries each): the
  // performance lost per mW saved going from l to l+1.
  std::vector<double> cost;
  std::vector<std::size_t> cost_at;  // per candidate: its first entry in `cost`
  std::vector<std::uint16_t> taken;  // candidate indices, in the order levels were taken
  // State: the condition now pending (+1 escalate, -1 release, 0 none) and
  // since when, or since the last level change if later.
  int pending = 0;
  Time since{0};
};

// The limits (in the consumer sensor's m°C) at which some decision changes:
// a point x splits values into (-inf, x) and [x, +inf).
struct Consumer {
  std::uint16_t sensor = 0;
  std::vector<std::int32_t> points;  // sorted, unique
  // This step: whether the sensor is known, the room before the value
  // reaches the next point above (value may rise by d_above and stay on
  // its side) or falls below the point at or beneath it (by more than
  // d_below), and whether any point is within near_distance.
  bool known = false;
  std::int64_t d_above = 0;
  std::int64_t d_below = 0;
  bool near = false;
};

}  // namespace coolhand::policy::detail

namespace coolhand::policy {

struct Engine::Impl {
  using SensorRt = detail::SensorRt;
  using ZoneRt = detail::ZoneRt;
  using DeviceRt = detail::DeviceRt;
  using ControllerRt = detail::ControllerRt;
  using Consumer = detail::Consumer;

  PolicySpec spec;
  std::vector<SensorRt> sensors;
  std::vector<std::uint16_t> order;  // sensors in evaluation (topological) order
  std::vector<ZoneRt> zones;
  std::vector<DeviceRt> devices;
  std::vector<ControllerRt> controllers;
  std::vector<Consumer> consumers;
  std::vector<detail::LastResortRt> last_resorts;
  std::vector<std::optional<std::uint16_t>> consumer_of_sensor;  // by sensor index
  // Per physical sensor: indices into `consumers` of those that depend on it.
  std::vector<std::vector<std::uint16_t>> consumers_of;

  std::optional<std::size_t> profile;          // active profile index
  std::optional<std::size_t> pending_profile;  // requested by set_profile
  bool profile_pending = false;
  Time last_step{0};
  Decision decision;

  // Stages of a step, in order (one file each).
  void apply_profile();
  void eval_sensors(Time now);
  void eval_zones(Time now);
  void eval_controllers(Time now);
  void eval_last_resorts(Time now);
  void arbitrate(Time now);
  void compute_windows(Time now);
  // Lays out last_resorts (escalation.cpp); called by compile.
  void compile_last_resorts();
  // Rebuild `consumers` points after a profile change (no allocation once sized).
  void rebuild_points();

  void want_step(Time t) {
    if (!decision.next_step || t < *decision.next_step) decision.next_step = t;
  }
};

}  // namespace coolhand::policy

namespace coolhand::policy::detail {

// Validation; returns every error found. `order` receives a topological order
// of the sensors when their inputs form no cycle.
std::vector<SpecError> validate(const PolicySpec& spec, std::vector<std::uint16_t>& order);
// The last-resort rules of validation (escalation.cpp), appended to `errors`.
void validate_last_resorts(const PolicySpec& spec, std::vector<SpecError>& errors);
// The magnitude bounds (validate_magnitudes.cpp), appended to `errors`.
void validate_magnitudes(const PolicySpec& spec, std::vector<SpecError>& errors);
// Where a brightness sensor may be used (validate_brightness.cpp).
void validate_brightness(const PolicySpec& spec, std::vector<SpecError>& errors);

}  // namespace coolhand::policy::detail
