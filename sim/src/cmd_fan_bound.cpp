// `--fan-bound relaxed|tight`; see cmd_fan_bound.h.
#include "cmd_fan_bound.h"

namespace coolhand::sim {

CLI::Option* add_fan_bound_option(CLI::App& cmd, FanBoundChoice& choice, const std::string& help) {
  return cmd
      .add_option_function<std::string>(
          "--fan-bound",
          [&choice](const std::string& word) {
            choice = word == to_string(FanBoundChoice::tight) ? FanBoundChoice::tight
                                                              : FanBoundChoice::relaxed;
          },
          help)
      ->check(CLI::IsMember({std::string(to_string(FanBoundChoice::relaxed)),
                             std::string(to_string(FanBoundChoice::tight))}))
      ->default_str(std::string(to_string(choice)));
}

}  // namespace coolhand::sim
