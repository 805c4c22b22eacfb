// HTML text for the self-contained reports (`cudabench report`, `history show --format html`):
// escaping of every string that comes from a result file or the database, and the page skeleton
// (doctype, a Content-Security-Policy that forbids any fetch or script, one inline stylesheet).
// Host-only; no JavaScript anywhere, so a report opens offline and nothing in it can run.
#pragma once
#include <string>
#include <string_view>

namespace cudabench::html {

// Escapes & < > " ' so the result is safe both as element text and inside a quoted attribute.
std::string escape(std::string_view s);

// Truncates to at most `max_chars` code points (UTF-8 aware), ending with "…" when cut. Does not
// escape: escape the result.
std::string truncate(std::string_view s, std::size_t max_chars);

// `<!DOCTYPE html>` up to and including `<body>`. `title` is escaped here.
std::string page_begin(std::string_view title);
// `</body></html>`.
std::string page_end();

}  // namespace cudabench::html
