// coolhandctl's D-Bus side: `status`, `explain`, `reload` and `set-profile` call
// coolhandd's org.coolhand.Thermal1 interface (coolhand/dbus_api.h) and turn
// every outcome into a message and one of the exit codes below, which
// `coolhandctl --help` and docs/daemon.md list.
#pragma once

#include <sdbus-c++/sdbus-c++.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace coolhand::ctl {

// Exit codes of the bus commands.
inline constexpr int kExitOk = 0;
inline constexpr int kExitRejected = 1;     // the daemon refused: bad policy, unknown profile
inline constexpr int kExitUsage = 2;        // bad command line, or an unexpected bus error
inline constexpr int kExitUnreachable = 3;  // no bus, or coolhandd not running on it
inline constexpr int kExitDenied = 4;       // access denied: changing the daemon needs root

struct BusTarget {
  bool session = false;  // the session bus instead of the system bus (tests, development)
};

// A connection and a proxy for the daemon's object, shared by the bus
// commands (bus_client.cpp, record_cmd.cpp).
struct Client {
  std::unique_ptr<sdbus::IConnection> conn;
  std::unique_ptr<sdbus::IProxy> proxy;
};
// Null after printing why the bus cannot be reached.
[[nodiscard]] std::optional<Client> connect(const BusTarget& bus);
// A failed call: its error as a message on stderr, and the exit code.
[[nodiscard]] int fail(const BusTarget& bus, const char* what, const sdbus::Error& e);

// Prints the daemon's status, as text or as JSON (temperatures in m°C,
// `_mc`; unknown values are null).
[[nodiscard]] int status(const BusTarget& bus, bool json);
// Reload(): the daemon re-reads its policy file and keeps the old policy if
// the new one is invalid; the reason is printed.
[[nodiscard]] int reload(const BusTarget& bus);
// SetProfile(name); "" returns to the policy as written.
[[nodiscard]] int set_profile(const BusTarget& bus, const std::string& name);
// Explain(device): why each device (or only `device`) is at its level:
// the winning controller, its input's value, the threshold or setpoint, and
// since when. JSON: temperatures in m°C, times in monotonic ms, unknown: null.
[[nodiscard]] int explain(const BusTarget& bus, const std::string& device, bool json);

}  // namespace coolhand::ctl
