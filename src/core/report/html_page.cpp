// See html.hpp. The page carries its own policy: `default-src 'none'` blocks scripts, images,
// fonts and any network fetch, so even a string that escaped escaping could neither run nor phone
// home; only the inline stylesheet is allowed. The stylesheet is shared by the run/compare report
// and the history page (one look, one place to change it).
#include "cudabench/html.hpp"

namespace cudabench::html {

std::string escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + s.size() / 8);
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string truncate(std::string_view s, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;  // continuation byte
    if (chars == max_chars) return std::string(s.substr(0, i)) + "\u2026";
    ++chars;
  }
  return std::string(s);
}

namespace {

// Colours: files are told apart by a categorical palette (c0..c7, cycled); verdicts by the usual
// green/red/grey/amber. SVG styling lives in classes so each chart element stays a few bytes.
constexpr const char* stylesheet = R"CSS(
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1180px;padding:0 16px 48px;color:#1d2330;background:#fff}
h1{font-size:22px;margin:18px 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #d6d9de;padding-bottom:4px}
h3{font-size:15px;margin:0 0 2px}code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:12px}
.sub{color:#5b6270;font-size:12px}.warn{background:#fde8e6;border:1px solid #d1392b;color:#8c1d13;padding:8px 12px;border-radius:4px;margin:8px 0;font-weight:600}
.note{background:#fff6dc;border:1px solid #e0a526;padding:6px 12px;border-radius:4px;margin:8px 0}
table{border-collapse:collapse;margin:6px 0;font-size:13px}th,td{border:1px solid #e1e4e8;padding:3px 8px;text-align:left;vertical-align:top;overflow-wrap:anywhere}
th{background:#f4f5f7}td.num{text-align:right;font-variant-numeric:tabular-nums}td.diff{background:#fff2b3}
.wl{border:1px solid #e1e4e8;border-left:4px solid #c9ced6;border-radius:4px;padding:8px 12px;margin:10px 0;content-visibility:auto;contain-intrinsic-size:auto 380px}
.wl.thr{border-left-color:#d1392b}.badge{display:inline-block;font-size:11px;padding:0 6px;border-radius:8px;margin-left:6px;background:#eef0f3;color:#333}
.badge.thr,.badge.failed,.badge.regressed{background:#d1392b;color:#fff}.badge.improved{background:#2e9b4f;color:#fff}.badge.inconclusive{background:#e0a526;color:#fff}
.st-ok{color:#2e7d32}.st-bad{color:#c62828;font-weight:600}.charts{display:flex;flex-wrap:wrap;gap:6px;align-items:flex-start}
svg{max-width:100%;height:auto;font:11px system-ui,sans-serif}svg text{fill:#30363d}svg .t{fill:#5b6270}
.ax{stroke:#c9ced6;fill:none;stroke-width:1}.grid{stroke:#eef0f3;fill:none}.zero{stroke:#5b6270}.thrl{stroke:#9aa0a6;stroke-dasharray:3 3;fill:none}
.pt{fill:none;stroke-linecap:round;stroke-width:6}.rm{fill:none;stroke:#30363d;stroke-width:1.5}.med{stroke-width:2;fill:none}.band{stroke:none;opacity:.16}
.ln{fill:none;stroke-width:1.5}.hot{fill:#d1392b;opacity:.10}.maxc{stroke:#d1392b;stroke-dasharray:4 3;fill:none}
.c0{stroke:#4269d0;fill:#4269d0}.c1{stroke:#e8950c;fill:#e8950c}.c2{stroke:#d63a8a;fill:#d63a8a}.c3{stroke:#1c9c8c;fill:#1c9c8c}
.c4{stroke:#7e4fd6;fill:#7e4fd6}.c5{stroke:#8a6a2e;fill:#8a6a2e}.c6{stroke:#3ca951;fill:#3ca951}.c7{stroke:#5b6270;fill:#5b6270}
.v-improved{fill:#2e9b4f}.v-regressed{fill:#d1392b}.v-unchanged{fill:#b5bac1}.v-inconclusive{fill:#e0a526}.ci{stroke:#1d2330;stroke-width:1.2;fill:none}
.step{stroke:#d1392b;stroke-width:1.5;stroke-dasharray:5 3;fill:none}.seg{stroke:#d1392b;stroke-width:2;fill:none;opacity:.7}
text.bad{fill:#c62828;font-weight:600}.pt.hotpt{stroke:#d1392b}path.ln,path.med,path.pt{fill:none}
)CSS";

}  // namespace

std::string page_begin(std::string_view title) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">\n<title>";
  out += escape(title);
  out += "</title>\n<style>";
  out += stylesheet;
  out += "</style></head>\n<body>\n";
  return out;
}

std::string page_end() { return "</body></html>\n"; }

}  // namespace cudabench::html
