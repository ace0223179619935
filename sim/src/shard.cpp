// Shard specs, the shard file's envelope and the JSON of numbers; see
// shard.h and shard_file.h.
#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "shard_file.h"

namespace coolhand::sim {

namespace {

constexpr const char* kFormat = "coolhand-sim shard";

// A whole number in [1, kMaxShards] spelt with digits only.
std::optional<std::size_t> parse_count(std::string_view text) {
  std::size_t v = 0;
  if (text.empty() || text.size() > 7) return std::nullopt;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v == 0 || v > kMaxShards)
    return std::nullopt;
  return v;
}

}  // namespace

std::variant<ShardSpec, std::string> parse_shard_spec(std::string_view text) {
  const auto slash = text.find('/');
  const std::string bad =
      fmt::format("--shard '{}': expected K/N, whole numbers with 1 <= K <= N <= {} (e.g. 2/4)",
                  text, kMaxShards);
  if (slash == std::string_view::npos) return bad;
  const auto k = parse_count(text.substr(0, slash));
  const auto n = parse_count(text.substr(slash + 1));
  if (!k || !n || *k > *n) return bad;
  return ShardSpec{*k, *n};
}

bool shard_owns(const ShardSpec& s, std::size_t unit) {
  return unit % s.count == s.index - 1;
}

std::string fnv1a64_hex(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

std::optional<std::string> file_digest(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return fnv1a64_hex(ss.str());
}

std::string default_shard_file(std::string_view kind, const ShardSpec& s) {
  return fmt::format("{}-shard-{}-of-{}.json", kind, s.index, s.count);
}

Json num(double v) {
  if (std::isfinite(v)) return v;
  if (std::isnan(v)) return "nan";
  return v > 0 ? "inf" : "-inf";
}

double get_num(const Json& j) {
  if (j.is_number()) return j.get<double>();
  const auto& s = j.get_ref<const std::string&>();
  if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
  if (s == "inf") return std::numeric_limits<double>::infinity();
  if (s == "-inf") return -std::numeric_limits<double>::infinity();
  throw Json::type_error::create(302, "expected a number, found \"" + s + "\"", &j);
}

std::string shard_text(std::string_view kind, const Json& run, const ShardSpec& s,
                       const Json& body) {
  Json j;
  j["format"] = kFormat;
  j["version"] = kShardFormatVersion;
  j["kind"] = std::string(kind);
  j["run"] = run;
  j["shard"] = {{"index", s.index}, {"count", s.count}};
  j["body"] = body;
  return j.dump(1) + "\n";
}

std::variant<ShardFile, std::string> parse_shard_text(const std::string& text,
                                                      const std::string& path) {
  Json j = Json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object() || !j.contains("format") || j["format"] != Json(kFormat))
    return path + ": not a coolhand-sim shard file (no \"format\": \"" + kFormat + "\")";
  try {
    const int version = j.at("version").get<int>();
    if (version != kShardFormatVersion)
      return fmt::format("{}: shard file format version {}; this coolhand-sim reads version {}",
                         path, version, kShardFormatVersion);
    ShardFile f;
    f.path = path;
    f.kind = j.at("kind").get<std::string>();
    f.run = std::make_shared<const Json>(j.at("run"));
    f.body = std::make_shared<const Json>(j.at("body"));
    const auto& shard = j.at("shard");
    const auto k = shard.at("index").get<std::int64_t>();
    const auto n = shard.at("count").get<std::int64_t>();
    if (n < 1 || k < 1 || k > n || n > static_cast<std::int64_t>(kMaxShards))
      return fmt::format("{}: shard {}/{}: expected 1 <= K <= N <= {}", path, k, n, kMaxShards);
    f.shard = ShardSpec{static_cast<std::size_t>(k), static_cast<std::size_t>(n)};
    if (!f.run->is_object() || !f.body->is_object())
      return path + ": malformed shard file: \"run\" and \"body\" must be objects";
    return f;
  } catch (const Json::exception& e) {
    return path + ": malformed shard file: " + e.what();
  }
}

}  // namespace coolhand::sim
