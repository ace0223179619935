// `coolhand-sim export --recording FILE --output DIR`: a flight recording as
// CSV for spreadsheets, pandas and gnuplot. One table per record kind present
// (<kind>.csv), its columns the file's own layout table's field names (which
// carry units: now_ms, value_mc, ...), in file order; a field that indexes a
// name table (device, sensor, zone, cause) gets a <field>_name column next
// to it. Besides: recording.csv (the header's values, key,value) and
// policy.yaml (the embedded policy, as the daemon read it).
#pragma once

#include <map>
#include <string>

#include "coolhand/recorder/file.h"

namespace coolhand::sim {

// File name -> contents.
[[nodiscard]] std::map<std::string, std::string> export_tables(const recorder::Recording& rec);

}  // namespace coolhand::sim
