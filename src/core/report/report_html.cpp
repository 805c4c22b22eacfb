// See report_html.hpp. The page, top to bottom: title and the files (with their colours), a short
// summary line (workloads, failures, throttled), for one file a table of every workload, the
// environment, the comparison (two or more files), then one card per workload. Sections are built by report_html_*.cpp
// (report_html_parts.hpp).
#include "cudabench/report_html.hpp"

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/html.hpp"
#include "report_html_parts.hpp"

namespace cudabench {

using namespace report_html_detail;

void write_html_report(const html_report_input& in, std::ostream& out) {
  if (in.files.empty()) throw input_error("report needs at least one result file");
  std::optional<comparison> cmp;
  if (in.files.size() >= 2) cmp = compare_results(in.files, in.sources, in.options);
  const std::vector<std::string> labels = cmp ? cmp->labels : file_labels(in.files);
  const auto workloads = collect_workloads(in.files, in.options);

  const std::string title = in.title.empty() ? "cudabench report" : in.title;
  out << html::page_begin(title);
  out << "<header><h1>" << html::escape(title) << "</h1><p>";
  for (std::size_t i = 0; i < in.files.size(); ++i)
    out << fmt::format(
               "<svg width=\"12\" height=\"12\"><rect class=\"{}\" width=\"12\" height=\"12\" rx=\"2\"/></svg> ",
               color_class(i))
        << "<b>" << html::escape(labels[i]) << "</b> <span class=\"sub mono\">" << html::escape(in.sources[i])
        << "</span>" << (cmp && i == 0 ? " <span class=\"sub\">(baseline)</span>" : "") << "<br>";
  std::size_t failed = 0, throttled = 0;
  for (const auto& w : workloads) {
    throttled += w.throttled();
    for (const auto* r : w.per_file)
      if (r && r->state != status::ok) {
        ++failed;
        break;
      }
  }
  out << "</p><p class=\"sub\">" << workloads.size() << " workloads";
  if (failed) out << ", <b>" << failed << " not ok in some file</b>";
  if (throttled) out << ", " << throttled << " with throttled clocks (red edge)";
  out << ". Sections: ";
  if (!cmp) out << "<a href=\"#summary\">summary</a> · ";
  out << "<a href=\"#environment\">environment</a>";
  if (cmp) out << " · <a href=\"#comparison\">comparison</a>";
  out << " · <a href=\"#workloads\">workloads</a>.</p></header>\n";

  if (!cmp) out << summary_section(workloads);  // several files: the comparison is the summary
  out << environment_section(in.files, in.sources, labels, cmp ? &*cmp : nullptr);
  if (cmp) out << comparison_section(*cmp);
  out << "<section id=\"workloads\"><h2>Workloads</h2>\n"
         "<p class=\"sub\">Each dot is one repetition's sample, in run order (round by round); the line is the "
         "file's median, the band its min-max spread, dark ticks the per-round medians. SM clock and power are per "
         "repetition; the dashed red line is the GPU's maximum clock or power limit.</p>\n";
  for (std::size_t i = 0; i < workloads.size(); ++i)
    out << workload_card(workloads[i], i, in.files, labels, cmp ? &*cmp : nullptr);
  out << "</section>\n" << html::page_end();
}

}  // namespace cudabench
