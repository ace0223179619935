// run_command and run_in_callback (cmd_status.h).
#include "cmd_status.h"

#include <exception>
#include <iostream>
#include <utility>

namespace coolhand::sim {

int run_command(const std::string& prefix, const std::function<int()>& body) {
  try {
    return body();
  } catch (const std::exception& e) {
    std::cerr << "coolhand-sim: " << prefix << e.what() << "\n";
    return 1;
  }
}

void run_in_callback(CLI::App& cmd, std::string prefix, std::function<int()> body) {
  cmd.callback([prefix = std::move(prefix), body = std::move(body)] {
    const int code = run_command(prefix, body);
    if (code == 0) throw CLI::Success();
    throw CLI::RuntimeError(code);
  });
}

}  // namespace coolhand::sim
