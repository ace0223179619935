// Shared by the lockstep guest program and the host comparison
// (tests/lockstep): the coolhand_emul.ko parameters that reproduce a
// model's firmware zones, and the level trace the guest prints.
//
// Trace format (one run; lines may be interleaved with other console
// output, which is ignored):
//   LOCKSTEP-BEGIN <label> devices=<n> steps=<n>
//   LOCKSTEP-L <step> <level of device 0> ... <level of device n-1>
//       at step 0 and at every step whose levels differ from the previous
//   LOCKSTEP-END <label> decisions=<n> max_skin_c=<°C> performance=<0..1>
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

#include "coolhand/sim/runner.h"

namespace coolhand::lockstep {

struct EmulParams {
  std::string args;  // "emul_zones=3 emul_devices=5 ..." for insmod
};

// The parameters of coolhand_emul.ko (kmod/README, section 6) for the
// model's kernel_zones under `governor`: zone i = kernel_zones[i], device d
// = devices[d] (max level, power table in mW, load scale of the cooling
// driver the simulator models: cpufreq 100, devfreq 1024), each zone's trips (a first
// passive trip below another becomes the thermal-only alert trip), the
// bindings to the control trip (for power_allocator only Energy-Model
// devices, as sim::KernelThermal::add_zone binds), governor user_space at
// registration (the run writes the real one) and lock-step interrupts.
// An error names what coolhand_emul cannot express.
[[nodiscard]] std::variant<EmulParams, std::string> emul_params(const sim::ModelSpec& model,
                                                                sim::Governor governor);

struct RunTrace {
  std::string label;
  std::uint64_t decisions = 0;
  double max_skin_c = 0;
  double performance = 0;
  std::vector<std::vector<std::uint32_t>> level;  // [step][device]
};

void write_trace(std::ostream& out, const std::string& label, const sim::RunResult& result);
// The runs in `in`, in order; an error for a malformed or unfinished run.
[[nodiscard]] std::variant<std::vector<RunTrace>, std::string> read_traces(std::istream& in);
// The same record of a run made on this side.
[[nodiscard]] RunTrace to_trace(const std::string& label, const sim::RunResult& result);

}  // namespace coolhand::lockstep
