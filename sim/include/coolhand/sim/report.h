// What `compare` and `bound` print and write, in one place so that
// `coolhand-sim merge` writes exactly what the single-machine command does.
#pragma once

#include <ostream>
#include <string>

#include "coolhand/sim/bound.h"
#include "coolhand/sim/compare.h"

namespace coolhand::sim {

// compare's output: the table (format_text) and the run/bound wall-time
// lines on `os`, the table as Markdown to `markdown` (when not empty) and
// the overlay plot to `out`/overlay.svg, titled "<model_name>: compare".
// Returns an error message, or an empty string.
[[nodiscard]] std::string write_compare_report(const CompareResult& r, bool with_bound,
                                               const std::string& model_name,
                                               const std::string& markdown, const std::string& out,
                                               std::ostream& os);

// bound's block for one workload (a feasible result).
[[nodiscard]] std::string format_bound_report(const BoundResult& r, const std::string& workload,
                                              const std::string& model_name, Millis model_step);
// bound's error when no schedule holds the limit.
[[nodiscard]] std::string bound_infeasible_message(const BoundResult& r,
                                                   const std::string& workload);

}  // namespace coolhand::sim
