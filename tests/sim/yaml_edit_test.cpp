// YamlText::scalar_span (sim/src/yaml_edit.h), the one mapping of yaml-cpp's
// marks to bytes, through its user tune (make_tune_problem, substitute):
// a policy saved with a UTF-8 byte order mark tunes as the same policy
// without one (tune's own mark arithmetic refused every parameter of it),
// and what cannot be spliced plainly is still refused.
#include <gtest/gtest.h>

#include <string>
#include <variant>
#include <vector>

#include "coolhand/sim/tune.h"

namespace coolhand::sim {
namespace {

constexpr const char* kPolicy =
    "version: 1\n"
    "limits: {skin_c: 45}\n"
    "controllers:\n"
    "  # ün commentaire\n"
    "  skin_pid: {kind: pid, input: skin, devices: [cpu], setpoint_c: skin - 1, kp: 0.8,\n"
    "             period: 2s}\n"
    "  table:\n"
    "    kind: table\n"
    "    table: [{up_c: skin + 0.5, level: 1}]\n";

const std::vector<std::string> kParams = {
    "controllers.skin_pid.setpoint_c=-2..0", "controllers.skin_pid.kp=0..2",
    "controllers.skin_pid.period=1..4", "controllers.table.table[0].up_c=-1..1"};

TuneProblem problem_of(const std::string& text) {
  auto r = make_tune_problem(text, "p.yaml", kParams);
  if (auto* e = std::get_if<std::vector<config::ConfigError>>(&r))
    ADD_FAILURE() << e->front().to_string();
  return std::holds_alternative<TuneProblem>(r) ? std::get<TuneProblem>(r) : TuneProblem{};
}

std::string error_of(const std::string& text, const std::string& param) {
  auto r = make_tune_problem(text, "p.yaml", {param});
  auto* e = std::get_if<std::vector<config::ConfigError>>(&r);
  EXPECT_TRUE(e != nullptr && e->size() == 1U);
  return e != nullptr && !e->empty() ? e->front().to_string() : std::string();
}

TEST(YamlEditTest, TuneLocatesScalarsAfterAByteOrderMark) {
  const std::string bom = "\xEF\xBB\xBF";
  const auto plain = problem_of(kPolicy);
  const auto marked = problem_of(bom + kPolicy);
  ASSERT_EQ(plain.params.size(), 4U);
  ASSERT_EQ(marked.params.size(), 4U);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(marked.params[i].offset, plain.params[i].offset + 3) << plain.params[i].path;
    EXPECT_EQ(marked.params[i].text, plain.params[i].text);
    EXPECT_EQ(std::string(kPolicy).substr(plain.params[i].offset, plain.params[i].length),
              plain.params[i].text);
  }
  const std::vector<double> x = {-0.25, 1.234567, 3.5, 0.5};
  const std::string tuned = substitute(plain, x);
  EXPECT_EQ(tuned,
            "version: 1\n"
            "limits: {skin_c: 45}\n"
            "controllers:\n"
            "  # ün commentaire\n"
            "  skin_pid: {kind: pid, input: skin, devices: [cpu], setpoint_c: skin - 0.25, kp: "
            "1.2346,\n"
            "             period: 3.5s}\n"
            "  table:\n"
            "    kind: table\n"
            "    table: [{up_c: skin + 0.5, level: 1}]\n");
  EXPECT_EQ(substitute(marked, x), bom + tuned);
}

TEST(YamlEditTest, QuotedAndMultiLineScalarsAreStillRefused) {
  std::string quoted = kPolicy;
  quoted.replace(quoted.find("kp: 0.8"), 7, "kp: \"0.8\"");
  EXPECT_EQ(error_of(quoted, "controllers.skin_pid.kp=0..2"),
            "--param controllers.skin_pid.kp=0..2: 'controllers.skin_pid.kp' is a quoted or "
            "multi-line value; write it plainly to tune it");
  std::string folded = kPolicy;
  folded.replace(folded.find("kind: table\n"), 12, "kind: table\n    gain: 1\n      5\n");
  EXPECT_EQ(error_of(folded, "controllers.table.gain=0..20"),
            "--param controllers.table.gain=0..20: 'controllers.table.gain' is a quoted or "
            "multi-line value; write it plainly to tune it");
}

}  // namespace
}  // namespace coolhand::sim
