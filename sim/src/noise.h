// Deterministic Gaussian noise for sensor models. std::normal_distribution is
// implementation-defined, so the same seed could give different numbers with
// another standard library; we draw 64-bit words from std::mt19937_64 (whose
// output sequence the standard fixes) and apply Box-Muller ourselves.
#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace coolhand::sim {

class NoiseSource {
 public:
  explicit NoiseSource(std::uint64_t seed) : rng_(seed) {}

  // Uniform in (0, 1]: the top 53 bits of one word.
  double uniform() { return (static_cast<double>(rng_() >> 11) + 1.0) * 0x1.0p-53; }

  // Standard normal. Box-Muller gives two values per pair of uniforms; the
  // second is kept for the next call.
  double gaussian() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double r = std::sqrt(-2.0 * std::log(uniform()));
    const double theta = 2.0 * std::numbers::pi * uniform();
    spare_ = r * std::sin(theta);
    has_spare_ = true;
    return r * std::cos(theta);
  }

 private:
  std::mt19937_64 rng_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace coolhand::sim
