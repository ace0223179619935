// Differential test: sim/src/kernel_thermal.cpp against Linux 6.1's own
// governors, thermal core update path and cpufreq/devfreq power ops, which
// run.sh builds at test time from Debian's linux-source-6.1 into a shared
// object (kdiff_glue.c is its interface). Both are fed the same random
// scenarios: cooling devices (with and without an Energy Model, cpufreq or
// devfreq), zones with random trips, bindings, limits, weights and
// power_allocator parameters, then random loads and temperature walks. After
// every zone update each cooling device's state and the zone's next poll
// delay must be identical.
//
// The same driver checks the simulator's 6.13+ rules (--kernel 7.3)
// against 7.3's sources (the same glue and extractor, run.sh --kernel 7.3).
//
// Usage: kernel_diff_test LIBKDIFF.so [SCENARIOS] [UPDATES_PER_SCENARIO]
//                         [KERNEL (6.1, the default, or 7.3)]
// Exit status 0 only with 0 mismatches. A mismatch prints the seed, the
// states on both sides and, for power_allocator, both sides' grants;
// KDIFF_DEBUG=1 also prints every scenario's zones.
#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "coolhand/sim/kernel_thermal.h"

namespace {

using coolhand::policy::MilliC;
using coolhand::policy::Millis;
using coolhand::sim::CoolingDevice;
using coolhand::sim::Governor;
using coolhand::sim::KernelCoolingMap;
using coolhand::sim::KernelThermal;
using coolhand::sim::KernelTripSpec;
using coolhand::sim::KernelZoneSpec;
using coolhand::sim::PowerActor;

// The shared object's interface (kdiff_glue.c).
struct Kernel {
  void (*reset)();
  int (*add_cdev)(unsigned, const unsigned*, int);
  int (*add_zone)(const char*, int, const int*, const int*, const int*, unsigned, unsigned,
                  unsigned, const int*, const int*, int);
  int (*bind)(int, int, int, unsigned long, unsigned long, unsigned);
  void (*set_load)(int, unsigned);
  void (*update)(int, int);
  unsigned long (*cur_state)(int);
  unsigned (*delay_ms)(int);
  unsigned (*last_grant)(int);
};

template <typename F>
void load_symbol(void* lib, const char* name, F& out) {
  void* sym = dlsym(lib, name);
  if (sym == nullptr) {
    std::fprintf(stderr, "kernel_diff_test: %s missing: %s\n", name, dlerror());
    std::exit(2);
  }
  out = reinterpret_cast<F>(sym);
}

Kernel open_kernel(const char* path) {
  void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    std::fprintf(stderr, "kernel_diff_test: cannot load %s: %s\n", path, dlerror());
    std::exit(2);
  }
  Kernel k{};
  load_symbol(lib, "kd_reset", k.reset);
  load_symbol(lib, "kd_add_cdev", k.add_cdev);
  load_symbol(lib, "kd_add_zone", k.add_zone);
  load_symbol(lib, "kd_bind", k.bind);
  load_symbol(lib, "kd_set_load", k.set_load);
  load_symbol(lib, "kd_update", k.update);
  load_symbol(lib, "kd_cur_state", k.cur_state);
  load_symbol(lib, "kd_delay_ms", k.delay_ms);
  load_symbol(lib, "kd_last_grant", k.last_grant);
  return k;
}

struct Totals {
  std::array<long, 5> updates{};     // by Governor
  std::array<long, 5> mismatches{};  // updates after which anything differed
  long ipa_active = 0;               // power_allocator updates at or above switch-on
};

int pick(std::mt19937& rng, int lo, int hi) {
  return std::uniform_int_distribution<int>(lo, hi)(rng);
}

// One random scenario on both implementations; returns false on the first
// mismatch after printing it (later steps would only repeat it).
bool run_scenario(const Kernel& kern, coolhand::sim::KernelVersion version, unsigned seed,
                  int updates, Totals& totals) {
  std::mt19937 rng(seed);
  const Governor gov = coolhand::sim::kKernelGovernors[pick(rng, 0, 3)];
  const std::string gname(coolhand::sim::to_string(gov));
  const bool ipa = gov == Governor::power_allocator;

  kern.reset();
  std::vector<CoolingDevice> cdevs;
  const int ncdev = pick(rng, 1, 4);
  for (int c = 0; c < ncdev; ++c) {
    CoolingDevice d;
    d.name = "cdev" + std::to_string(c);
    d.max_state = static_cast<std::uint32_t>(pick(rng, 1, 8));
    const bool em = ipa ? pick(rng, 0, 4) != 0 : pick(rng, 0, 1) != 0;
    if (em) {
      auto p = static_cast<std::uint32_t>(pick(rng, 800, 9000));
      for (std::uint32_t s = 0; s <= d.max_state; ++s) {
        d.state_power_mw.push_back(p);
        p = std::max<std::uint32_t>(1, p * static_cast<std::uint32_t>(pick(rng, 50, 95)) / 100);
        if (!d.state_power_mw.empty() && p >= d.state_power_mw.back())
          p = d.state_power_mw.back() > 1 ? d.state_power_mw.back() - 1 : 1;
      }
      d.actor = pick(rng, 0, 1) != 0 ? PowerActor::cpufreq : PowerActor::devfreq;
    }
    const int actor = d.actor == PowerActor::cpufreq ? 1 : d.actor == PowerActor::devfreq ? 2 : 0;
    std::vector<unsigned> table(d.state_power_mw.begin(), d.state_power_mw.end());
    if (kern.add_cdev(d.max_state, table.empty() ? nullptr : table.data(), actor) != c) {
      std::fprintf(stderr, "kernel_diff_test: kd_add_cdev failed\n");
      std::exit(2);
    }
    cdevs.push_back(std::move(d));
  }
  KernelThermal sim(cdevs, version);

  const int nzones = pick(rng, 1, 3);
  std::vector<int> temps(static_cast<std::size_t>(nzones));
  for (int zi = 0; zi < nzones; ++zi) {
    KernelZoneSpec z;
    z.name = "zone" + std::to_string(zi);
    z.polling_delay = Millis(std::array<int, 3>{250, 1000, 2000}[pick(rng, 0, 2)]);
    z.passive_delay = Millis(std::array<int, 3>{100, 250, 500}[pick(rng, 0, 2)]);
    const int ntrips = pick(rng, 1, 4);
    // Trips on whole degrees and readings on 0.5 °C steps, as quantised
    // sensors report, so readings often sit exactly on a trip.
    int t = pick(rng, 30, 70) * 1000;
    for (int i = 0; i < ntrips; ++i) {
      KernelTripSpec trip;
      trip.name = "t" + std::to_string(i);
      const int r = pick(rng, 0, 9);
      trip.type = i == ntrips - 1 && ntrips > 1 && r < 3 ? KernelTripSpec::Type::critical
                  : r == 9                               ? KernelTripSpec::Type::active
                  : r == 8                               ? KernelTripSpec::Type::hot
                                                         : KernelTripSpec::Type::passive;
      trip.temp = MilliC(t);
      trip.hyst = MilliC(pick(rng, 0, 3) * 1000);
      z.trips.push_back(trip);
      t += pick(rng, 0, 8) * 1000;
    }
    for (int c = 0; c < ncdev; ++c)
      for (int i = 0; i < ntrips; ++i) {
        if (pick(rng, 0, 2) != 0) continue;
        KernelCoolingMap m;
        m.trip = z.trips[static_cast<std::size_t>(i)].name;
        m.device = cdevs[static_cast<std::size_t>(c)].name;
        const auto max = cdevs[static_cast<std::size_t>(c)].max_state;
        if (pick(rng, 0, 3) == 0) {
          const auto lo = static_cast<std::uint32_t>(pick(rng, 0, static_cast<int>(max)));
          m.lower = lo;
          m.upper =
              static_cast<std::uint32_t>(pick(rng, static_cast<int>(lo), static_cast<int>(max)));
        }
        m.weight = pick(rng, 0, 1) != 0 ? 0 : static_cast<std::uint32_t>(pick(rng, 1, 100));
        z.cooling.push_back(m);
      }
    // 7.3.4's power_allocator_update_tz follows trip_max without checking
    // it, so binding to a zone with neither a passive nor an active trip
    // would crash the kernel as it crashes the test: such zones get no
    // binding on 7.3 (the random draws stay the same).
    const bool has_governor_trip =
        std::any_of(z.trips.begin(), z.trips.end(), [](const KernelTripSpec& tr) {
          return tr.type == KernelTripSpec::Type::passive ||
                 tr.type == KernelTripSpec::Type::active;
        });
    if (ipa && version == coolhand::sim::KernelVersion::v7_3 && !has_governor_trip)
      z.cooling.clear();
    if (pick(rng, 0, 1) != 0)
      z.sustainable_power_mw = static_cast<std::uint32_t>(pick(rng, 300, 6000));
    std::array<int, 4> k{};
    std::array<int, 4> has_k{};
    if (pick(rng, 0, 4) == 0) {
      k = {pick(rng, 0, 2000), pick(rng, 0, 4000), pick(rng, 0, 400), pick(rng, 0, 50)};
      has_k = {1, 1, 1, 1};
      z.k_po = k[0];
      z.k_pu = k[1];
      z.k_i = k[2];
      z.k_d = k[3];
    }
    if (pick(rng, 0, 3) == 0) z.integral_cutoff_mc = pick(rng, 0, 5000);

    std::vector<int> tt, ty, th;
    for (const auto& tr : z.trips) {
      tt.push_back(tr.temp.mc());
      ty.push_back(static_cast<int>(tr.type));  // same order as enum thermal_trip_type
      th.push_back(tr.hyst.mc());
    }
    const int kz = kern.add_zone(gname.c_str(), ntrips, tt.data(), ty.data(), th.data(),
                                 static_cast<unsigned>(z.polling_delay.count()),
                                 static_cast<unsigned>(z.passive_delay.count()),
                                 z.sustainable_power_mw.value_or(0), k.data(), has_k.data(),
                                 z.integral_cutoff_mc);
    if (kz != zi) {
      std::fprintf(stderr, "kernel_diff_test: kd_add_zone failed (%d)\n", kz);
      std::exit(2);
    }
    // Bind in the simulator's order; for power_allocator only power actors,
    // as the simulator does (check_power_actors would refuse the zone).
    for (const auto& m : z.cooling) {
      std::size_t trip = 0;
      while (z.trips[trip].name != m.trip) ++trip;
      std::size_t c = 0;
      while (cdevs[c].name != m.device) ++c;
      if (ipa && cdevs[c].state_power_mw.empty()) continue;
      kern.bind(zi, static_cast<int>(trip), static_cast<int>(c), m.lower.value_or(0),
                m.upper.value_or(cdevs[c].max_state), m.weight);
    }
    sim.add_zone(z, gov);
    if (std::getenv("KDIFF_DEBUG") != nullptr) {
      std::printf("zone %d polling %lld passive %lld sustainable %u k %d/%d/%d/%d cutoff %d\n", zi,
                  static_cast<long long>(z.polling_delay.count()),
                  static_cast<long long>(z.passive_delay.count()),
                  z.sustainable_power_mw.value_or(0), z.k_po.value_or(-1), z.k_pu.value_or(-1),
                  z.k_i.value_or(-1), z.k_d.value_or(-1), z.integral_cutoff_mc);
      for (const auto& tr : z.trips)
        std::printf("  trip %s type %d temp %d hyst %d\n", tr.name.c_str(),
                    static_cast<int>(tr.type), tr.temp.mc(), tr.hyst.mc());
      for (const auto& m : z.cooling)
        std::printf("  map %s -> %s [%u,%u] w %u\n", m.trip.c_str(), m.device.c_str(),
                    m.lower.value_or(0), m.upper.value_or(99), m.weight);
    }
    temps[static_cast<std::size_t>(zi)] = pick(rng, 50, 180) * 500;
  }

  for (int step = 0; step < updates; ++step) {
    for (int c = 0; c < ncdev; ++c) {
      const auto actor = cdevs[static_cast<std::size_t>(c)].actor;
      if (actor == PowerActor::none || pick(rng, 0, 3) != 0) continue;
      const int full = actor == PowerActor::cpufreq ? 100 : 1024;
      const int load = pick(rng, 0, 9) == 0 ? 0 : pick(rng, 0, full);
      kern.set_load(c, static_cast<unsigned>(load));
      sim.set_load(static_cast<std::size_t>(c), static_cast<std::uint32_t>(load));
    }
    const int zi = pick(rng, 0, nzones - 1);
    int& temp = temps[static_cast<std::size_t>(zi)];
    const int r = pick(rng, 0, 19);
    if (r == 0)
      temp = pick(rng, 40, 220) * 500;
    else if (r > 3)
      temp = std::clamp(temp + pick(rng, -3, 3) * 500, 20000, 110000);
    kern.update(zi, temp);
    sim.update_zone(static_cast<std::size_t>(zi), MilliC(temp));
    ++totals.updates[static_cast<std::size_t>(gov)];
    if (ipa && sim.ipa(static_cast<std::size_t>(zi)).active) ++totals.ipa_active;

    bool same = kern.delay_ms(zi) == sim.next_delay(static_cast<std::size_t>(zi)).count();
    for (int c = 0; c < ncdev; ++c)
      same = same && kern.cur_state(c) == sim.cur_state(static_cast<std::size_t>(c));
    if (!same) {
      ++totals.mismatches[static_cast<std::size_t>(gov)];
      std::printf("MISMATCH seed %u %s step %d zone %d T=%d: delay kernel %u sim %lld;", seed,
                  gname.c_str(), step, zi, temp, kern.delay_ms(zi),
                  static_cast<long long>(sim.next_delay(static_cast<std::size_t>(zi)).count()));
      for (int c = 0; c < ncdev; ++c)
        std::printf(" cdev%d kernel %lu sim %u", c, kern.cur_state(c),
                    sim.cur_state(static_cast<std::size_t>(c)));
      if (ipa) {
        const auto& snap = sim.ipa(static_cast<std::size_t>(zi));
        std::printf("\n  sim budget %u mW, granted", snap.power_range_mw);
        for (auto g : snap.granted_mw) std::printf(" %u", g);
        std::printf(", requested");
        for (int c = 0; c < ncdev; ++c)
          std::printf(" %u", sim.requested_power_mw(static_cast<std::size_t>(c)));
        std::printf("; kernel's last grant per cdev");
        for (int c = 0; c < ncdev; ++c) std::printf(" %u", kern.last_grant(c));
      }
      std::printf("\n");
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: kernel_diff_test LIBKDIFF.so [SCENARIOS] [UPDATES] [KERNEL]\n");
    return 2;
  }
  const auto version = coolhand::sim::kernel_version_from_string(argc > 4 ? argv[4] : "6.1");
  if (!version) {
    std::fprintf(stderr, "kernel_diff_test: unknown kernel '%s' (6.1 or 7.3)\n", argv[4]);
    return 2;
  }
  const Kernel kern = open_kernel(argv[1]);
  const int scenarios = argc > 2 ? std::atoi(argv[2]) : 4000;
  const int updates = argc > 3 ? std::atoi(argv[3]) : 500;
  Totals totals;
  int failed = 0;
  int ran = 0;
  for (int s = 0; s < scenarios && failed < 20; ++s, ++ran)
    if (!run_scenario(kern, *version, static_cast<unsigned>(s), updates, totals)) ++failed;
  long all = 0;
  long bad = 0;
  for (auto g : coolhand::sim::kKernelGovernors) {
    const auto i = static_cast<std::size_t>(g);
    std::printf("%-16s %8ld zone updates, %ld mismatching\n",
                std::string(coolhand::sim::to_string(g)).c_str(), totals.updates[i],
                totals.mismatches[i]);
    all += totals.updates[i];
    bad += totals.mismatches[i];
  }
  std::printf("power_allocator updates allocating power: %ld\n", totals.ipa_active);
  std::printf("%d scenarios run, %ld zone updates, %ld mismatches, %d scenarios failed%s\n", ran,
              all, bad, failed, failed >= 20 ? " (stopped after 20)" : "");
  return bad == 0 ? 0 : 1;
}
