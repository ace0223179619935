// The null flight recorder: a measurement build only (CMake option
// COOLHAND_NULL_RECORDER, scripts/measure-recorder-cost.sh). It measures
// what the recorder costs by building coolhandd without it.
//
// The seam is the link. With the option on, this file is compiled into
// coolhandd itself. It defines every symbol that the daemon's own code needs
// from the recorder's three stateful units: FlightRecorder (plus
// monotonic_ns), recorder::Ring, recorder::LoopRecorder, and
// recorder::policy_hash. The linker takes a static archive's member only for
// a symbol still undefined. So flight_recorder.o, ring.o, loop_recorder.o
// and writer.o, and with them layout.o's tables and checkpoint.o, never enter
// this coolhandd. If a later change makes one of them needed, the link fails
// with a duplicate definition; it never silently mixes the two.
//
// What is left behaves like a daemon without a recorder:
//   - the Ring is a single record in .bss, which every put() overwrites
//     (put() is inline, so callers keep their code, and a put costs the same);
//   - the LoopRecorder hands the caller's ports straight to the
//     ControlLoop: no taps, no slot map, no checkpoint buffer;
//   - FlightRecorder keeps no metadata and no policy text; dumping and
//     following fail with "null recorder".
// The daemon runs every other part (engine, loop, sysfs, netlink, D-Bus)
// unchanged, so the Private_Dirty difference between the two builds is the
// recorder's.
#include "coolhand/recorder/file.h"
#include "coolhand/recorder/loop_recorder.h"
#include "coolhand/recorder/ring.h"
#include "flight_recorder.h"

namespace coolhand::recorder {

namespace {
Record null_slot;  // the null ring's one record (32 bytes of .bss)
}  // namespace

Ring::Ring(std::size_t /*capacity*/) : slots_(&null_slot), capacity_(1) {}
// The signature is the real Ring's, whose destructor unmaps the records.
Ring::~Ring() = default;  // NOLINT(performance-trivially-destructible)
void Ring::resize(std::size_t /*capacity*/) {}
std::size_t Ring::copy_since(std::uint64_t /*from*/, std::span<Record> /*out*/) const {
  return 0;
}

std::uint64_t policy_hash(std::string_view /*text*/) {
  return 0;
}

struct LoopRecorder::Taps {};

LoopRecorder::LoopRecorder(Ring& ring, std::uint64_t /*policy_hash*/,
                           std::unique_ptr<policy::Engine> engine,
                           const std::vector<policy::SensorId>& sensors, policy::LoopConfig config,
                           policy::LoopPorts ports, ClockNs clock)
    : ring_(ring),
      clock_(clock),
      loop_(std::make_unique<policy::ControlLoop>(std::move(engine), sensors, config, ports)) {}
LoopRecorder::~LoopRecorder() = default;

void LoopRecorder::start(policy::Time now) {
  loop_->start(now);
}
std::optional<policy::Time> LoopRecorder::tick(policy::Time now) {
  return loop_->tick(now);
}
void LoopRecorder::push(std::size_t slot, policy::MilliC value, policy::Time now) {
  loop_->push(slot, value, now);
}
void LoopRecorder::sensor_gone(std::size_t slot, policy::Time now) {
  loop_->sensor_gone(slot, now);
}
void LoopRecorder::resync(policy::Time now) {
  loop_->resync(now);
}
void LoopRecorder::resume(policy::Time now) {
  loop_->resume(now);
}
void LoopRecorder::verify_devices() {
  loop_->verify_devices();
}
void LoopRecorder::restore_all() {
  loop_->restore_all();
}
void LoopRecorder::seed_level(std::size_t device, std::uint32_t level, policy::Time now) {
  loop_->seed_level(device, level, now);
}
bool LoopRecorder::set_profile(std::string_view name) {
  return loop_->set_profile(name);
}
void LoopRecorder::set_checkpoint_interval(std::uint64_t records) {
  checkpoint_every_ = records;
}
bool LoopRecorder::checkpoint() {
  return false;
}
std::span<const std::byte> LoopRecorder::state_payload() {
  return {};
}
bool LoopRecorder::restore(const Checkpoint& /*cp*/) {
  return false;
}

}  // namespace coolhand::recorder

namespace coolhand::daemon {

namespace {
SysError null_recorder(const char* what) {
  return SysError{what, "recording", 0, "null recorder (built with COOLHAND_NULL_RECORDER)"};
}
}  // namespace

std::uint64_t monotonic_ns() {
  return 0;  // the null ring keeps no timestamps
}

// The signatures are the real FlightRecorder's, which keeps what it is given.
// NOLINTBEGIN(performance-unnecessary-value-param)
FlightRecorder::FlightRecorder(std::size_t records, std::string dir, std::string /*boot_id*/,
                               std::string /*version*/)
    : ring_(records), dir_(std::move(dir)) {}
// NOLINTEND(performance-unnecessary-value-param)
FlightRecorder::~FlightRecorder() = default;

// NOLINTNEXTLINE(performance-unnecessary-value-param)
void FlightRecorder::set_policy(std::string /*text*/, const policy::PolicySpec& /*spec*/) {}

Status FlightRecorder::dump_to_fd(int /*fd*/, const std::string& /*reason*/) {
  return null_recorder("dump");
}
Result<std::string> FlightRecorder::dump_to_dir(const std::string& /*reason*/) {
  return null_recorder("dump");
}
Result<int> FlightRecorder::follow() {
  return null_recorder("follow");
}
void FlightRecorder::flush() {}

}  // namespace coolhand::daemon
