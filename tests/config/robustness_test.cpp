// Hostile input to the loader: whatever the bytes, the result is errors or
// a document, never a crash, a hang or an exception.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>

#include "coolhand/config/policy_file.h"
#include "coolhand/config/yaml_input.h"
#include "policy_test_support.h"

namespace coolhand::config::robustness_test {
namespace {

using test_support::errors_of;

TEST(Robustness, DeepFlowNestingIsCut) {
  const std::string text =
      "version: 1\nx: " + std::string(100000, '[') + std::string(100000, ']') + "\n";
  // The root mapping is level 1, so the 32nd '[' (column 35) is level 33.
  EXPECT_EQ(errors_of(text),
            (std::vector<std::string>{"p.yaml:2:35: nesting is deeper than 32 levels"}));
}

TEST(Robustness, DeepUnclosedFlowNestingIsCut) {
  // yaml-cpp scans an unclosed flow to its end before the events start, so
  // its column for the deep level is not meaningful; the line and the
  // message are.
  const auto errors = errors_of("version: 1\nx: " + std::string(100000, '['));
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("p.yaml:2:", 0), 0u) << errors[0];
  EXPECT_NE(errors[0].find(": nesting is deeper than 32 levels"), std::string::npos) << errors[0];
}

TEST(Robustness, DeepBlockNestingIsCut) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += std::string(static_cast<std::size_t>(2 * i), ' ') + "a:\n";
  const auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "p.yaml:33:65: nesting is deeper than 32 levels");
}

TEST(Robustness, NestingWithinTheLimitIsJustAnUnknownKey) {
  const std::string text = "version: 1\nx: " + std::string(20, '[') + std::string(20, ']') + "\n";
  EXPECT_EQ(errors_of(text),
            (std::vector<std::string>{"p.yaml:2:1: x: unknown key (valid here: version limits "
                                      "sampling daemon sensors zones devices controllers profiles "
                                      "default_profile tune)"}));
}

TEST(Robustness, AnchorsAreRejected) {
  EXPECT_EQ(errors_of("version: 1\nsensors:\n  a: &x {}\n  b: *x\n"),
            (std::vector<std::string>{
                "p.yaml:3:6: anchors (&name) are not supported; write the value out"}));
}

TEST(Robustness, AliasBombIsRejectedAtTheFirstAnchor) {
  std::string text = "version: 1\na0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i < 10; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int k = 0; k < 10; ++k) text += (k ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  EXPECT_EQ(errors_of(text),
            (std::vector<std::string>{
                "p.yaml:2:5: anchors (&name) are not supported; write the value out"}));
}

TEST(Robustness, UndefinedAliasIsAnError) {
  const auto errors = errors_of("version: 1\nsensors: *nothing\n");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].rfind("p.yaml:2:", 0), 0u) << errors[0];
}

TEST(Robustness, InvalidUtf8IsLocated) {
  EXPECT_EQ(errors_of("version: 1\nsensors:\n  t\xff: {}\n"),
            (std::vector<std::string>{"p.yaml:3:4: policy text is not valid UTF-8"}));
  // An overlong encoding of '/' and a UTF-16 surrogate are not UTF-8 either.
  EXPECT_EQ(errors_of("a\xC0\xAF"),
            (std::vector<std::string>{"p.yaml:1:2: policy text is not valid UTF-8"}));
  EXPECT_EQ(errors_of("version: 1 # \xED\xA0\x80"),
            (std::vector<std::string>{"p.yaml:1:14: policy text is not valid UTF-8"}));
  // A truncated sequence at the end of the text.
  EXPECT_EQ(errors_of("version: 1\n\xE2\x82"),
            (std::vector<std::string>{"p.yaml:2:1: policy text is not valid UTF-8"}));
}

TEST(Robustness, ValidUtf8NamesAreFine) {
  const LoadResult r = parse_policy("version: 1\nsensors:\n  température: {}\n", "p.yaml");
  ASSERT_TRUE(r.document.has_value());
  EXPECT_EQ(r.document->spec.sensors[0].name, "température");
}

TEST(Robustness, NulByteIsRejected) {
  EXPECT_EQ(errors_of(std::string_view("version: 1\n\0", 12)),
            (std::vector<std::string>{"p.yaml:2:1: NUL byte in policy text"}));
}

TEST(Robustness, SecondDocumentIsRejected) {
  EXPECT_EQ(errors_of("version: 1\n---\nversion: 1\n"),
            (std::vector<std::string>{
                "p.yaml:2:1: more than one YAML document ('---'); a policy is one document"}));
}

TEST(Robustness, OversizedTextIsRejected) {
  const std::string text(detail::kMaxTextBytes + 1, '#');
  EXPECT_EQ(errors_of(text),
            (std::vector<std::string>{"p.yaml:1:1: file is larger than 1048576 bytes"}));
}

TEST(Robustness, NodeBudget) {
  std::string text = "version: 1\nx: [";
  for (std::size_t i = 0; i < detail::kMaxNodes; ++i) text += "1,";
  text += "1]\n";
  // Nodes: the root mapping, 2 keys, the version, the list and its items;
  // the budget runs out inside the list.
  const auto errors = errors_of(text);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "p.yaml:2:" + std::to_string(5 + 2 * (detail::kMaxNodes - 5)) +
                           ": more than 100000 YAML nodes");
}

TEST(Robustness, ManyEntriesLoad) {
  // Large sections must stay cheap (no quadratic duplicate checks).
  std::string text = "version: 1\nsensors:\n";
  for (int i = 0; i < 30000; ++i) text += "  s" + std::to_string(i) + ": {}\n";
  const LoadResult r = parse_policy(text, "p.yaml");
  ASSERT_TRUE(r.document.has_value());
  EXPECT_EQ(r.document->spec.sensors.size(), 30000u);
  EXPECT_EQ(r.document->spec.sensors[29999].name, "s29999");
}

TEST(Robustness, HugeNumbersAreRangeErrors) {
  EXPECT_EQ(errors_of("version: 1\nsensors:\n  t: {offset_c: 1e999999}\n"),
            (std::vector<std::string>{
                "p.yaml:3:17: sensors.t.offset_c: expected a temperature in °C, got '1e999999'"}));
  EXPECT_EQ(errors_of("version: 99999999999999999999\n"),
            (std::vector<std::string>{
                "p.yaml:1:10: version: number '99999999999999999999' is out of range"}));
}

// Every byte string gives a consistent result: a document iff no errors,
// and every error located inside the text.
void expect_sane(std::string_view text) {
  LoadResult r;
  ASSERT_NO_THROW(r = parse_policy(text, "f.yaml"));
  EXPECT_EQ(r.document.has_value(), r.errors.empty());
  const auto lines = 2 + std::count(text.begin(), text.end(), '\n');
  for (const auto& e : r.errors) {
    EXPECT_EQ(e.file, "f.yaml");
    EXPECT_GE(e.line, 1);
    EXPECT_LE(e.line, lines) << e.to_string();
    EXPECT_GE(e.column, 1);
    EXPECT_FALSE(e.message.empty());
  }
}

TEST(Robustness, RandomBytes) {
  std::mt19937 rng(20240601);
  std::uniform_int_distribution<int> len(0, 200);
  std::uniform_int_distribution<int> byte(0, 255);
  for (int i = 0; i < 2000; ++i) {
    std::string text(static_cast<std::size_t>(len(rng)), '\0');
    for (char& c : text) c = static_cast<char>(byte(rng));
    expect_sane(text);
  }
}

// Random edits of a real policy reach far deeper into the schema than
// random bytes do.
TEST(Robustness, MutatedRealPolicy) {
  std::ifstream in(COOLHAND_SOURCE_DIR "/config/examples/handheld.yaml");
  ASSERT_TRUE(in) << "missing example";
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string base = buf.str();
  const std::string alphabet = "{}[]:,-&*!|>'\"#% \n\t0123456789.e_abcxyz";
  std::mt19937 rng(7);
  std::uniform_int_distribution<std::size_t> pos(0, base.size() - 1);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::uniform_int_distribution<int> edits(1, 4);
  for (int i = 0; i < 1500; ++i) {
    std::string text = base;
    for (int k = edits(rng); k > 0; --k) {
      const std::size_t p = pos(rng) % text.size();
      switch (rng() % 3) {
        case 0:
          text[p] = alphabet[pick(rng)];
          break;
        case 1:
          text.insert(p, 1, alphabet[pick(rng)]);
          break;
        default:
          text.erase(p, 1);
          break;
      }
    }
    expect_sane(text);
  }
}

}  // namespace
}  // namespace coolhand::config::robustness_test
