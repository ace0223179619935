// Control steps per second of the closed loop on the reference UMPC model
// (one step = 100 ms of simulated time: workload, controller, model),
// with the coolhand reference policy in the loop and with each kernel
// baseline; plus the bare model step. Reported as items/s = steps/s.
#include <benchmark/benchmark.h>

#include <functional>
#include <stdexcept>

#include "coolhand/sim/runner.h"

namespace coolhand::sim {
namespace {

ModelSpec model() {
  auto r = load_model_file(COOLHAND_SIM_DATA_DIR "/models/reference-umpc.yaml");
  if (auto* e = std::get_if<config::ConfigError>(&r)) throw std::runtime_error(e->to_string());
  return std::get<ModelSpec>(r);
}

Workload workload(const ModelSpec& m, const char* name) {
  auto t = load_csv_file(std::string(COOLHAND_SIM_DATA_DIR "/workloads/") + name + ".csv");
  if (auto* e = std::get_if<config::ConfigError>(&t)) throw std::runtime_error(e->to_string());
  auto w = Workload::bind(std::get<CsvTable>(t), m);
  if (auto* e = std::get_if<config::ConfigError>(&w)) throw std::runtime_error(e->to_string());
  return std::get<Workload>(w);
}

void BM_ModelStep(benchmark::State& state) {
  ThermalModel m(model());
  for (std::size_t d = 0; d < m.spec().devices.size(); ++d) m.set_demand(d, 0.7);
  for (auto _ : state) {
    m.step();
    benchmark::DoNotOptimize(m.node_c(0));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ModelStep);

// The closed loop over the 30-minute gaming workload (18,000 steps), no trace.
void run_loop(benchmark::State& state,
              const std::function<std::unique_ptr<Controller>(const ModelSpec&)>& make) {
  const ModelSpec spec = model();
  const Workload w = workload(spec, "gaming");
  std::uint64_t steps = 0;
  for (auto _ : state) {
    auto ctl = make(spec);
    ThermalModel m(spec, 1);
    Workload wl = w;
    const auto r = run(m, wl, *ctl, RunOptions{false});
    steps += r.metrics.steps;
    benchmark::DoNotOptimize(r.metrics.max_skin_c);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(steps));
}

void BM_ClosedLoopCoolhand(benchmark::State& state) {
  auto doc = config::load_policy_file(COOLHAND_POLICY_DIR "/reference-umpc.yaml");
  if (!doc.errors.empty()) throw std::runtime_error(doc.errors.front().to_string());
  run_loop(state, [&](const ModelSpec& spec) {
    auto c = make_policy_controller(spec, *doc.document, "reference-umpc");
    if (auto* e = std::get_if<std::string>(&c)) throw std::runtime_error(*e);
    return std::move(std::get<std::unique_ptr<Controller>>(c));
  });
}
BENCHMARK(BM_ClosedLoopCoolhand)->Unit(benchmark::kMillisecond);

void BM_ClosedLoopGovernor(benchmark::State& state) {
  const auto g = static_cast<Governor>(state.range(0));
  state.SetLabel(std::string(to_string(g)));
  run_loop(state, [&](const ModelSpec& spec) { return make_governor_controller(spec, g); });
}
BENCHMARK(BM_ClosedLoopGovernor)
    ->Arg(static_cast<int>(Governor::step_wise))
    ->Arg(static_cast<int>(Governor::power_allocator))
    ->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace coolhand::sim

BENCHMARK_MAIN();
