// coolhandctl record: the daemon's flight recorder (issue 11).
//   record --output FILE   the caller opens FILE (so its permissions decide
//                          where the recording goes), coolhandd writes a
//                          whole recording into it over D-Bus (Record(h)),
//                          and the file is read back and checked.
//   record --follow        records as they are made (Follow() -> h), one
//                          line each; --json for one JSON object a line;
//                          --count N stops after N records.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "bus_client.h"

namespace coolhand::ctl {

struct RecordOptions {
  std::string output;  // --output FILE
  bool follow = false;
  bool json = false;
  std::optional<std::uint64_t> count;  // --follow: stop after this many records
};

[[nodiscard]] int record(const BusTarget& bus, const RecordOptions& o);

}  // namespace coolhand::ctl
