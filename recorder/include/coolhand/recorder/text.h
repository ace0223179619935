// One record as a line of text or a JSON object, with its fields named by
// the layout table and indexes resolved to names where the metadata has
// them (device, sensor, cause -> controller, profile). Used by
// `coolhandctl record --follow` and available to export tools.
//
// Text:  "12.345678901 device_decision device=gpu level=2 requested=2 cause=tab flags=2
//         input_mc=51000 threshold_mc=50000"
// JSON:  {"t_ns":12345678901,"kind":"device_decision","device":"gpu","level":2,...}
// Temperatures equal to kNoValue print as "none" / null; index kNoIndex as
// "none" / null. A kind this build does not know prints as kind=<number>
// with its raw slots.
#pragma once

#include <string>

#include "coolhand/recorder/file.h"
#include "coolhand/recorder/record.h"

namespace coolhand::recorder {

[[nodiscard]] std::string format_text(const Metadata& names, const Record& r);
[[nodiscard]] std::string format_json(const Metadata& names, const Record& r);

}  // namespace coolhand::recorder
