// The one number formatter of every text output (run summary, compare, fleet, history, HTML):
// 4 significant digits, fixed-point for 1e-3 .. 1e15 and an exponent outside. Compare's expected
// outputs, which scripts read, fixed this form; the other outputs follow it so a median reads the
// same wherever it is printed. Host-only.
#pragma once
#include <string>

namespace cudabench {

// "0", "0.2000", "1.234", "12.34", "687.2", "4300000", "1.000e-04".
std::string format_value(double v);

}  // namespace cudabench
