// Engine checkpoints (Engine::save_state/restore_state, the flight
// recorder's): an engine restored from a saved state decides exactly as the
// one it was saved from, and a bad state is refused.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "rig.h"

namespace coolhand::policy::testing::state_test {
namespace {

// Temperatures sweep 35..65 °C so every element changes state; a sensor is
// lost now and then and the profile flips.
void drive(Engine& e, std::int64_t from, std::int64_t to, std::vector<std::string>* log) {
  const SensorId a = *e.sensor_id("a");
  const SensorId b = *e.sensor_id("b");
  for (std::int64_t n = from; n < to; ++n) {
    const std::int64_t phase = n % 600;
    const auto temp = static_cast<std::int32_t>(35000 + 100 * (phase < 300 ? phase : 600 - phase));
    e.set_sensor(a, MilliC(temp), ms(n * 100));
    if (n % 50 == 7) {
      e.set_sensor_unknown(b, ms(n * 100));
    } else {
      e.set_sensor(b, MilliC(temp - 2000), ms(n * 100));
    }
    if (n % 400 == 0) (void)e.set_profile((n / 400) % 2 == 0 ? "quiet" : "");
    const Decision& d = e.step(ms(n * 100));
    if (!log) continue;
    std::string line = std::to_string(static_cast<int>(d.severity));
    for (const DeviceDecision& dd : d.devices) {
      line += " " + std::to_string(dd.level) + "/" + std::to_string(dd.requested) + "/" +
              (dd.cause ? std::to_string(dd.cause->index) : "-");
    }
    for (std::size_t s = 0; s < e.spec().sensors.size(); ++s) {
      const auto v = e.sensor_value(SensorId{static_cast<std::uint16_t>(s)});
      line += " " + (v ? std::to_string(v->mc()) : "?");
    }
    line += d.next_step ? " @" + std::to_string(d.next_step->count()) : " @-";
    log->push_back(line);
  }
}

std::vector<std::byte> save(const Engine& e) {
  std::vector<std::byte> buf(e.max_state_size());
  const std::size_t n = e.save_state(buf);
  EXPECT_GT(n, 0U);
  buf.resize(n);
  return buf;
}

// Saved mid-run (pid integrating, filters full, last resort engaged at some
// point), restored into a fresh engine: both then decide the same for 3000
// more steps, and save the same state at the end.
TEST(EngineState, ARestoredEngineDecidesAsTheSavedOne) {
  Rig original(everything());
  ASSERT_TRUE(original.ok());
  drive(*original.engine, 0, 2345, nullptr);
  const std::vector<std::byte> state = save(*original.engine);

  Rig copy(everything());
  ASSERT_TRUE(copy.engine->restore_state(state));
  EXPECT_EQ(save(*copy.engine), state);
  std::vector<std::string> want;
  std::vector<std::string> got;
  drive(*original.engine, 2345, 5345, &want);
  drive(*copy.engine, 2345, 5345, &got);
  ASSERT_EQ(want.size(), got.size());
  for (std::size_t i = 0; i < want.size(); ++i) ASSERT_EQ(want[i], got[i]) << "step " << i;
  EXPECT_EQ(save(*copy.engine), save(*original.engine));

  // A fresh engine (nothing restored) does not decide the same: the state
  // matters over this span.
  Rig fresh(everything());
  std::vector<std::string> cold;
  drive(*fresh.engine, 2345, 5345, &cold);
  EXPECT_NE(cold, want);
}

TEST(EngineState, ABadStateIsRefused) {
  Rig rig(everything());
  drive(*rig.engine, 0, 700, nullptr);
  const std::vector<std::byte> state = save(*rig.engine);
  Rig other(everything());
  // Truncated, or with a byte too many.
  EXPECT_FALSE(other.engine->restore_state(std::span(state).first(state.size() - 1)));
  std::vector<std::byte> longer = state;
  longer.push_back(std::byte{0});
  EXPECT_FALSE(Rig(everything()).engine->restore_state(longer));
  // An active profile index past the policy's one profile (the first field:
  // a present flag, then the index).
  std::vector<std::byte> bad = state;
  bad[0] = std::byte{1};
  const std::size_t index = 7;
  std::memcpy(bad.data() + 1, &index, sizeof index);
  EXPECT_FALSE(Rig(everything()).engine->restore_state(bad));
  // Every single-byte change either is refused or restores without harm
  // (ASan/UBSan builds check the latter).
  for (std::size_t i = 0; i < state.size(); i += 7) {
    std::vector<std::byte> flipped = state;
    flipped[i] ^= std::byte{0xA5};
    Rig r(everything());
    if (r.engine->restore_state(flipped)) drive(*r.engine, 700, 710, nullptr);
  }
}

}  // namespace
}  // namespace coolhand::policy::testing::state_test
