// Quantised sensors (engine.cpp, dither_aware): a pid setpoint on a sensor
// with a quantum moves down to the flip point between two readings, so the
// error is +-q/2 around it instead of resting inside a quantum.
#include <gtest/gtest.h>

#include "rig.h"

namespace coolhand::policy::testing {
namespace {

using CK = ControllerSpec::Kind;

// u = 1 * e (°C); the level is round(u * 4).
PolicySpec pid_on(std::int32_t quantum_mc, std::int32_t offset_mc, std::int32_t setpoint_mc) {
  PolicySpec spec;
  SensorSpec t = physical("t");
  t.quantum = mc(quantum_mc);
  t.offset = mc(offset_mc);
  spec.sensors = {t};
  spec.devices = {device("cpu", 4)};
  ControllerSpec pid = controller("pid", CK::pid, "t", {"cpu"});
  pid.setpoint = mc(setpoint_mc);
  pid.kp = 1.0;
  spec.controllers = {pid};
  return spec;
}

std::uint32_t level_at(const PolicySpec& spec, std::int32_t reading_mc) {
  Rig rig(spec);
  return rig.feed("t", reading_mc, ms(0)).devices[0].level;
}

TEST(Quantisation, SetpointMovesDownToTheFlipPoint) {
  // Fine-grained: a 45 °C reading is 0.15 °C over 44.85 -> u 0.15 -> level 1.
  EXPECT_EQ(level_at(pid_on(0, 0, 44850), 45000), 1U);
  // 1 °C steps: the reading 45 covers 44.5..45.5, so the setpoint is 44.5:
  // e = +0.5 -> level 2; the reading 44 gives e = -0.5 -> released.
  EXPECT_EQ(level_at(pid_on(1000, 0, 44850), 45000), 2U);
  EXPECT_EQ(level_at(pid_on(1000, 0, 44850), 44000), 0U);
  // A setpoint already on a flip point stays there (45.5 -> reading 46 is +0.5).
  EXPECT_EQ(level_at(pid_on(1000, 0, 45500), 46000), 2U);
  // The sensor's offset moves the flip points: readings 45.3, 44.3 around 44.8.
  EXPECT_EQ(level_at(pid_on(1000, 300, 44850), 45000), 2U);
  // Below zero the flip under -10.2 is -10.5: the reading -10 is +0.5 over it.
  EXPECT_EQ(level_at(pid_on(1000, 0, -10200), -10000), 2U);
  // 0.5 °C steps: flip points at .25 and .75; 44.85 -> 44.75, reading 45 +0.25 -> level 1.
  EXPECT_EQ(level_at(pid_on(500, 0, 44850), 45000), 1U);
}

TEST(Quantisation, OnlyPhysicalSensorsHaveAQuantum) {
  PolicySpec spec = pid_on(1000, 0, 44850);
  SensorSpec avg = virtual_sensor("avg", SensorSpec::Kind::ema, {"t"});
  avg.time_constant = Millis(1000);
  avg.quantum = mc(100);
  spec.sensors.push_back(avg);
  spec.sensors[0].quantum = mc(-1);
  EXPECT_EQ(describe(Engine::compile(spec).errors),
            "sensors[0] / quantum: must be >= 0\n"
            "sensors[1] / quantum: only a physical sensor has a quantum\n");
}

}  // namespace
}  // namespace coolhand::policy::testing
