// How long loading a policy takes: the daemon does it at start and on every
// reload, coolhandctl on every check. Measured on the realistic handheld
// example, whole and by stage.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <stdexcept>

#include "coolhand/config/policy_file.h"
#include "coolhand/config/yaml_input.h"

namespace {

const std::string& handheld() {
  static const std::string text = [] {
    std::ifstream in(COOLHAND_SOURCE_DIR "/config/examples/handheld.yaml");
    if (!in) throw std::runtime_error("cannot read handheld.yaml");
    std::stringstream buf;
    buf << in.rdbuf();
    return buf.str();
  }();
  return text;
}

// Text -> validated PolicyDocument, Engine::compile included.
void BM_ParsePolicy(benchmark::State& state) {
  const std::string& text = handheld();
  for (auto _ : state) {
    auto r = coolhand::config::parse_policy(text, "handheld.yaml");
    if (!r.document) state.SkipWithError("policy did not load");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ParsePolicy);

// Stage 1 alone: UTF-8 check, guarded event pass and yaml-cpp tree.
void BM_ReadYaml(benchmark::State& state) {
  const std::string& text = handheld();
  for (auto _ : state) {
    auto r = coolhand::config::detail::read_yaml(text, "handheld.yaml");
    benchmark::DoNotOptimize(r);
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}
BENCHMARK(BM_ReadYaml);

// A policy with many errors: every error is located and formatted.
void BM_ParseBrokenPolicy(benchmark::State& state) {
  std::string text = handheld();
  for (std::size_t pos = 0; (pos = text.find("threshold_c", pos)) != std::string::npos; pos += 9) {
    text.replace(pos, 11, "treshold_c");
  }
  for (auto _ : state) {
    auto r = coolhand::config::parse_policy(text, "broken.yaml");
    if (r.errors.empty()) state.SkipWithError("expected errors");
    benchmark::DoNotOptimize(r);
  }
}
BENCHMARK(BM_ParseBrokenPolicy);

}  // namespace
