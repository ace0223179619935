// Quantised sensors (engine.cpp, dither_aware): a pid setpoint on a sensor
// with a quantum moves down to the flip point between two readings, so the
// error is +-q/2 around it instead of resting inside a quantum. And the
// dequantise sensor (sensors.cpp), which recovers the value between
// readings from when they flip.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "rig.h"

namespace coolhand::policy::testing::quantisation_test {
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

// t: a physical sensor in 1 °C steps; dq: its dequantised value.
PolicySpec dequantised(Millis tau) {
  PolicySpec spec;
  SensorSpec t = physical("t");
  t.quantum = mc(1000);
  SensorSpec dq = virtual_sensor("dq", SensorSpec::Kind::dequantise, {"t"});
  dq.time_constant = tau;
  spec.sensors = {t, dq};
  return spec;
}

std::int32_t dq_at(Rig& rig, Time t) {
  rig.step(t);
  return rig.engine->sensor_value(rig.sensor("dq"))->mc();
}

TEST(Dequantise, AFlipGivesTheCrossingAndTwoGiveTheRate) {
  Rig rig(dequantised(Millis(1'000'000'000)));  // relaxation out of the way
  rig.set("t", 44000, ms(0));
  EXPECT_EQ(dq_at(rig, ms(0)), 44000);  // no flip yet: the reading
  rig.set("t", 45000, ms(10000));
  EXPECT_EQ(dq_at(rig, ms(10000)), 44500);  // crossing 44.5 now
  EXPECT_EQ(dq_at(rig, ms(15000)), 44500);  // one flip: no rate yet
  rig.set("t", 46000, ms(20000));
  EXPECT_EQ(dq_at(rig, ms(20000)), 45500);  // 1 °C in 10 s: 0.1 m°C/ms
  EXPECT_EQ(dq_at(rig, ms(23000)), 45800);  // moved on at that rate
  EXPECT_EQ(dq_at(rig, ms(29000)), 46400);  // past the reading, 46
  EXPECT_EQ(dq_at(rig, ms(35000)), 46500);  // never past the next flip point
  rig.set("t", 45000, ms(40000));
  EXPECT_EQ(dq_at(rig, ms(40000)), 45500);  // turned: crossing 45.5 down
  EXPECT_EQ(dq_at(rig, ms(45000)), 45500);  // against the last flip: rate 0
  rig.set("t", 47000, ms(46000));
  EXPECT_EQ(dq_at(rig, ms(46000)), 47000);  // two quanta at once: no flip
}

TEST(Dequantise, WithoutFurtherFlipsTheValueRelaxesToTheReading) {
  Rig rig(dequantised(Millis(10000)));
  rig.set("t", 44000, ms(0));
  rig.step(ms(0));
  rig.set("t", 45000, ms(10000));
  EXPECT_EQ(dq_at(rig, ms(10000)), 44500);
  // 45 - 0.5 * exp(-1) one time constant later.
  EXPECT_EQ(dq_at(rig, ms(20000)), 44816);
}

// The point of the filter: on a slow rise read in 1 °C steps the reading is
// up to 0.5 °C off, the dequantised value (after its second flip) within
// 0.05 °C. With the filter disabled (value = reading) this fails.
TEST(Dequantise, TracksASlowRiseBetweenReadings) {
  Rig rig(dequantised(Millis(600000)));
  int worst_raw = 0, worst_dq = 0;
  for (std::int64_t t = 0; t <= 200000; t += 1000) {
    const double truth = 40000.0 + 0.02 * static_cast<double>(t);  // 1.2 °C per minute
    const auto reading = static_cast<std::int32_t>(std::lround(truth / 1000.0) * 1000);
    rig.set("t", reading, ms(t));
    const std::int32_t v = dq_at(rig, ms(t));
    if (t >= 80000) {  // after two flips (at 25 s and 75 s)
      worst_raw = std::max(worst_raw, static_cast<int>(std::abs(reading - truth)));
      worst_dq = std::max(worst_dq, static_cast<int>(std::abs(v - truth)));
    }
  }
  EXPECT_GE(worst_raw, 490);
  EXPECT_LE(worst_dq, 50);
}

TEST(Dequantise, NeedsAQuantisedPhysicalInputAndATimeConstant) {
  PolicySpec spec = dequantised(Millis(0));
  spec.sensors[0].quantum = mc(0);
  EXPECT_EQ(describe(Engine::compile(spec).errors),
            "sensors[1] / time_constant: must be > 0\n"
            "sensors[1] / inputs: dequantise needs a physical sensor with a quantum, got \"t\"\n");
}

}  // namespace
}  // namespace coolhand::policy::testing::quantisation_test
