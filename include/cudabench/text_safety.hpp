// Text from files and options (suite names, labels, ids, messages) is shown on terminals and
// used in file names. A name may carry an ANSI escape, a NUL or a right-to-left override; these
// helpers make such text inert. Host-only.
#pragma once
#include <string>
#include <string_view>

namespace cudabench {

// `s` with every control character escaped so it prints as itself on one line: C0 controls and
// DEL as \n, \t, \r or \xNN (ESC is \x1b), C1 controls and the Unicode direction and line
// separator controls (U+061C, U+200E/F, U+2028/9, U+202A-E, U+2066-9) as \u{XXXX}, and bytes
// that are not UTF-8 as \xNN. Printable text, UTF-8 included, is unchanged.
std::string terminal_text(std::string_view s);

// Whether terminal_text would change `s`.
bool has_control_text(std::string_view s);

// Whether `s` is valid UTF-8 (JSON text must be: a label that is not cannot be written).
bool valid_utf8(std::string_view s);

// JSON text (nlohmann's dump) with the control characters it leaves raw -- C1 controls and the
// direction and line separator controls, which are valid UTF-8 -- written as \uXXXX escapes: the
// same JSON value, but inert on a terminal. nlohmann already escapes C0 controls.
std::string json_text_safe(std::string dumped);

// `s` as one component of a file name: letters, digits and . _ + - kept, every other run of
// bytes one '_', no leading '.' or '-', at most 64 bytes; "unnamed" if nothing is left.
std::string file_name_component(std::string_view s);

}  // namespace cudabench
