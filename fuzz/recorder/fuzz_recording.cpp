// Random bytes through the recording reader (coolhand/recorder/file.h): no
// crash, no UB; an accepted file is consistent (size, kinds, time order),
// and every complete segment goes through replay_segment against a fixed
// two-sensor, two-device policy without crashing (divergences are fine).
// Seeds: fuzz/recorder/corpus/ (recordings of the unit tests' toy plant), e.g.
//   ./fuzz/recorder/fuzz_recording -dict=../fuzz/recorder/recording.dict <copy of the seeds>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "coolhand/recorder/file.h"
#include "coolhand/recorder/replay.h"

namespace {

coolhand::policy::PolicySpec fixed_spec() {
  using namespace coolhand::policy;
  PolicySpec s;
  SensorSpec a;
  a.name = "cpu";
  s.sensors.push_back(a);
  SensorSpec b;
  b.name = "skin";
  s.sensors.push_back(b);
  SensorSpec e;
  e.name = "cpu_ema";
  e.kind = SensorSpec::Kind::ema;
  e.inputs = {"cpu"};
  e.time_constant = Millis(2000);
  s.sensors.push_back(e);
  for (const char* name : {"gpu", "fan"}) {
    DeviceSpec d;
    d.name = name;
    d.max_level = 3;
    s.devices.push_back(d);
  }
  ControllerSpec c;
  c.name = "sw";
  c.kind = ControllerSpec::Kind::step_wise;
  c.input = "cpu_ema";
  c.devices.push_back({"gpu", 1.0});
  c.devices.push_back({"fan", 1.0});
  c.threshold = MilliC(45000);
  s.controllers.push_back(c);
  ProfileSpec quiet;
  quiet.name = "quiet";
  s.profiles.push_back(quiet);
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace coolhand::recorder;
  static const coolhand::policy::PolicySpec spec = fixed_spec();
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const ReadResult r = read_recording(bytes);
  if (r.error) {
    if (r.recording || r.error->offset > size || r.error->message.empty()) std::abort();
    return 0;
  }
  const Recording& rec = *r.recording;
  if (rec.offset_of(rec.records.size()) != size) std::abort();
  std::uint64_t last = 0;
  for (const Record& x : rec.records) {
    if (!rec.kind(x.kind) || x.t_ns < last) std::abort();
    last = x.t_ns;
  }
  for (const Segment& seg : segments(rec)) {
    if (seg.begin > seg.end || seg.end > rec.records.size()) std::abort();
    if (!seg.replayable()) continue;
    auto compiled = coolhand::policy::Engine::compile(spec);
    (void)replay_segment(rec, seg, std::move(compiled.engine), spec.sampling);
  }
  return 0;
}
