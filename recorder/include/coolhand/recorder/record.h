// One flight-recorder record: 32 bytes, fixed, little-endian, with a
// monotonic timestamp in ns. Every record has the same five generic slots
// (index, a, b, c, d); what each slot means for a kind is given by the kind's
// layout (layout.h), which is also written into every recording file so a
// reader on another machine needs nothing else (docs/recording-format.md).
//
// Kinds are grouped by who records them:
//   1..31   inputs to policy::ControlLoop (each call, with its `now` in ms)
//           and checkpoints of its state;
//   32..63  answers of the loop's ports (SensorPort, KnobPort, WindowPort);
//   64..95  what the loop's observer saw (steps, per-device decisions,
//           virtual sensor values, engine events, lost/recovered sensors);
//   96..127 events of the daemon around the loop (netlink, reloads, drops).
// Replaying the inputs in order, with the ports answering from the port
// records, drives a fresh ControlLoop through exactly the same steps.
#pragma once

#include <bit>
#include <cstdint>
#include <limits>

namespace coolhand::recorder {

static_assert(std::endian::native == std::endian::little,
              "records are dumped as they are in memory: little-endian only");

enum class Kind : std::uint16_t {
  // -- loop inputs
  loop_created = 1,       // a ControlLoop was built (start of a replay segment)
  slot_map = 2,           // slot `index` is engine sensor `a`
  call_start = 3,         // ControlLoop::start(now)
  call_tick = 4,          // ControlLoop::tick(now)
  call_push = 5,          // ControlLoop::push(slot, value, now)
  call_sensor_gone = 6,   // ControlLoop::sensor_gone(slot, now)
  call_resync = 7,        // ControlLoop::resync(now)
  call_resume = 8,        // ControlLoop::resume(now)
  call_verify = 9,        // ControlLoop::verify_devices()
  call_restore_all = 10,  // ControlLoop::restore_all()
  call_seed_level = 11,   // ControlLoop::seed_level(device, level, now)
  call_set_profile = 12,  // ControlLoop::set_profile(name): profile index, accepted
  // -- checkpoints (format 1.1, checkpoint.h): the loop's whole state
  // between two calls, so a replay may start there after the ring wrapped
  checkpoint = 13,       // header: slots, payload bytes, policy hash, lost_after, devices
  checkpoint_data = 14,  // 20 payload bytes (a, b, c, d); index = chunk number
  checkpoint_end = 15,   // chunk count, FNV-1a 64 of the payload
  // -- port answers
  port_read = 32,          // SensorPort::read(slot, rebind) -> value or failure
  port_sensor_state = 33,  // SensorPort::present/delivery changed for a slot
  port_bound = 34,         // KnobPort::bound changed for a device
  port_rebind = 35,        // KnobPort::rebind(device) -> found
  port_apply = 36,         // KnobPort::apply(device, level) -> ok
  port_watch = 37,         // WindowPort::watch(slot, window) -> accepted
  port_verify = 38,        // KnobPort::verify(device)
  port_restore = 39,       // KnobPort::restore(device)
  // -- observer
  step = 64,              // an engine step: severity, time, next step
  device_decision = 65,   // one device's verdict in that step
  virtual_value = 66,     // one virtual sensor's value after that step
  engine_event = 67,      // trip up/down, severity change, sensor (un)known, ...
  sensor_lost = 68,       // the loop declared a sensor lost
  sensor_recovered = 69,  // a lost sensor read again
  action = 70,            // a trip action fired
  // -- daemon
  netlink = 96,      // a netlink event: family, message kind, zone, temperature, seq
  reload = 97,       // a policy reload: ok, policy hash
  dropped = 98,      // messages lost before they reached the daemon (ENOBUFS, seq gap)
  dump = 99,         // the ring was dumped (reason)
  knob_write = 100,  // a knob write: level, raw value written and read back
};

// The generic slots. The layout table names them per kind and may split b
// into smaller fields (e.g. device_decision: requested@16 cause@18 flags@20).
struct Record {
  std::uint64_t t_ns = 0;   // @0  monotonic (CLOCK_MONOTONIC in coolhandd)
  std::uint16_t kind = 0;   // @8  Kind
  std::uint16_t index = 0;  // @10 slot, device, zone or sensor index
  std::uint32_t a = 0;      // @12
  std::int64_t b = 0;       // @16
  std::int32_t c = 0;       // @24
  std::int32_t d = 0;       // @28
};
static_assert(sizeof(Record) == 32);

inline constexpr std::uint32_t kRecordSize = sizeof(Record);
// "No value" in a temperature slot (unknown sensor, no threshold).
inline constexpr std::int32_t kNoValue = std::numeric_limits<std::int32_t>::min();
// "None" in a 16-bit index slot (no winning controller, unknown profile).
inline constexpr std::uint16_t kNoIndex = 0xFFFF;
// call_set_profile's index for "" (the policy as written).
inline constexpr std::uint16_t kAsWritten = 0xFFFE;

// port_read / port_sensor_state / device_decision flag bits.
inline constexpr std::uint32_t kReadRebind = 1U << 0;
inline constexpr std::uint32_t kReadOk = 1U << 1;
inline constexpr std::uint32_t kStatePresent = 1U << 0;
inline constexpr std::uint32_t kStatePushed = 1U << 1;
inline constexpr std::uint8_t kDecisionForced = 1U << 0;
inline constexpr std::uint8_t kDecisionChanged = 1U << 1;

// device_decision packs requested (u16 @16), cause (u16 @18) and flags
// (u8 @20) into b.
[[nodiscard]] constexpr std::int64_t pack_decision(std::uint16_t requested, std::uint16_t cause,
                                                   std::uint8_t flags) {
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(requested) |
                                   (static_cast<std::uint64_t>(cause) << 16U) |
                                   (static_cast<std::uint64_t>(flags) << 32U));
}
[[nodiscard]] constexpr std::uint16_t decision_requested(const Record& r) {
  return static_cast<std::uint16_t>(static_cast<std::uint64_t>(r.b) & 0xFFFFU);
}
[[nodiscard]] constexpr std::uint16_t decision_cause(const Record& r) {
  return static_cast<std::uint16_t>((static_cast<std::uint64_t>(r.b) >> 16U) & 0xFFFFU);
}
[[nodiscard]] constexpr std::uint8_t decision_flags(const Record& r) {
  return static_cast<std::uint8_t>((static_cast<std::uint64_t>(r.b) >> 32U) & 0xFFU);
}

}  // namespace coolhand::recorder
