// read_result_file (result.hpp) and its strict streaming reader (result_stream.hpp). A result
// file of 10^6 workloads is about a gigabyte; nlohmann's DOM of it takes several times that and
// the time to build it, so the file is read in chunks through nlohmann's SAX interface instead:
// first by the fast reader (result_fast.cpp), and only when that gives up, by this one. The top-level fields other than
// "workloads" become one small DOM (checked like any document), and each element of "workloads"
// becomes a DOM of one workload, is checked and converted by result_reader, and is dropped: memory
// is the model plus one workload. Errors keep the whole-document reader's order (the top level,
// then the first bad workload) and its messages, and a number beyond double's range (1e400) is
// reported with its JSON path.
#include "result_stream.hpp"

#include <cstddef>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "chunked_input.hpp"
#include "core/io/json_errors.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/input_file.hpp"
#include "cudabench/result.hpp"
#include "dom_builder.hpp"
#include "result_reader.hpp"

namespace cudabench {
namespace {

using J = nlohmann::ordered_json;
using detail::chunk_iterator;
using detail::chunked_source;

// ---- SAX events -> head DOM + one workload at a time ------------------------------------------

class result_sax {
 public:
  explicit result_sax(const std::string& source) : source_(source), reader_(source), ids_(reader_) {}

  // nlohmann's SAX interface.
  bool null() { return scalar(J(nullptr)); }
  bool boolean(bool v) { return scalar(J(v)); }
  bool number_integer(J::number_integer_t v) { return scalar(J(v)); }
  bool number_unsigned(J::number_unsigned_t v) { return scalar(J(v)); }
  bool number_float(J::number_float_t v, const J::string_t&) { return scalar(J(v)); }
  bool string(J::string_t& v) { return scalar(J(std::move(v))); }
  bool binary(J::binary_t&) { return scalar(J(nullptr)); }  // never produced by JSON text
  bool start_object(std::size_t) { return open(false); }
  bool end_object() { return close(); }
  bool start_array(std::size_t) { return open(true); }
  bool end_array() { return close(); }
  bool key(J::string_t& k) {
    path_.back().key = k;
    if (dom_.active()) dom_.key(k);
    return true;
  }
  bool parse_error(std::size_t, const std::string& token, const nlohmann::detail::exception& e) {
    if (detail::is_number_overflow(e))
      error_ = fmt::format("{}: {}{}", source_, location(), detail::number_overflow_text(token));
    else error_ = fmt::format("{}: malformed JSON: {}", source_, detail::json_error_text(e));
    return false;
  }

  const std::string& error() const { return error_; }

  // After a successful parse: the checks of the whole-document reader, in its order.
  result_file finish() {
    if (!root_is_object_)
      reader_.fail("", fmt::format("expected a result object at the top level, got {}", root_type_));
    reader_.read_head(head_, result_);
    if (!workloads_seen_) {
      if (const auto it = head_.find("workloads"); it != head_.end())
        reader_.fail("workloads", fmt::format("expected an array, got {}", it->type_name()));
      reader_.fail("", "missing required field \"workloads\"");
    }
    if (deferred_) std::rethrow_exception(deferred_);
    return std::move(result_);
  }

 private:
  struct frame {
    bool is_array = false;
    std::size_t index = 0;  // arrays: the element being read
    std::string key;        // objects: the member being read
  };
  enum class place { root, head, workload, skip };

  // Where a value that starts now belongs (when no DOM is being built).
  place where() const {
    if (path_.empty()) return place::root;
    if (!root_is_object_) return place::skip;
    if (path_.size() == 1) return place::head;
    if (path_.size() == 2 && in_workloads_) return deferred_ ? place::skip : place::workload;
    return place::skip;
  }

  bool scalar(J&& v) {
    if (dom_.active()) {
      dom_.scalar(std::move(v));
    } else {
      switch (where()) {
        case place::root: root_type_ = v.type_name(); break;
        case place::head: head_[path_.back().key] = std::move(v); break;
        case place::workload:
          workload_ = std::move(v);
          finish_workload();
          break;
        case place::skip: break;
      }
    }
    element_done();
    return true;
  }

  bool open(bool is_array) {
    if (path_.size() >= detail::max_json_depth) {
      error_ = fmt::format("{}: {}{}", source_, location(), detail::too_deep_text());
      return false;
    }
    if (dom_.active()) {
      dom_.open(is_array);
    } else {
      switch (where()) {
        case place::root:
          root_is_object_ = !is_array;
          root_type_ = is_array ? "array" : "object";
          break;
        case place::head:
          if (path_.back().key == "workloads" && is_array) {
            if (workloads_seen_) {
              error_ = fmt::format("{}: workloads: the key appears twice", source_);
              return false;
            }
            workloads_seen_ = in_workloads_ = true;
          } else {
            dom_.begin(head_[path_.back().key], is_array);
            building_workload_ = false;
          }
          break;
        case place::workload:
          dom_.begin(workload_, is_array);
          building_workload_ = true;
          break;
        case place::skip: break;
      }
    }
    path_.push_back(frame{is_array, 0, {}});
    return true;
  }

  bool close() {
    path_.pop_back();
    if (dom_.active()) {
      if (dom_.close() && building_workload_) finish_workload();
    } else if (path_.size() == 1 && in_workloads_) {
      in_workloads_ = false;  // the workloads array itself closed
    }
    element_done();
    return true;
  }

  void element_done() {
    if (!path_.empty() && path_.back().is_array) ++path_.back().index;
  }

  void finish_workload() {
    const std::size_t i = path_[1].index;
    try {
      result_.workloads.push_back(reader_.read_workload(workload_, fmt::format("workloads[{}]", i)));
      ids_.add(result_.workloads.back().id, i);
    } catch (const input_error&) {
      // Reported after the top-level checks, as the whole-document reader would; later workloads
      // are parsed for syntax only.
      deferred_ = std::current_exception();
    }
    workload_ = J();
  }

  // "workloads[3].metrics.time_ms.samples[2]: " for the value being parsed; "" at the top.
  std::string location() const {
    std::string out;
    for (const auto& f : path_) {
      if (f.is_array) out += fmt::format("[{}]", f.index);
      else out += (out.empty() ? "" : ".") + f.key;
    }
    return out.empty() ? "" : out + ": ";
  }

  std::string source_;
  detail::result_reader<J> reader_;
  detail::result_reader<J>::unique_ids ids_;
  result_file result_;
  std::vector<frame> path_;  // open containers, outermost first
  detail::dom_builder dom_;  // the top-level field or workload being built
  bool building_workload_ = false;
  bool root_is_object_ = false;
  std::string root_type_ = "nothing";
  bool workloads_seen_ = false, in_workloads_ = false;
  J head_ = J::object();
  J workload_;
  std::exception_ptr deferred_;
  std::string error_;
};

}  // namespace

namespace detail {

result_file read_result_strict(input_file& f) {
  chunked_source src(f);
  result_sax sax(f.path());
  if (!J::sax_parse(chunk_iterator(&src), chunk_iterator(), &sax)) throw input_error(sax.error());
  return sax.finish();
}

}  // namespace detail

result_file read_result_file(const std::string& path) {
  input_file f = input_file::open(path, "result file", max_result_file_bytes);
  if (auto r = detail::read_result_fast(f)) return std::move(*r);
  f.rewind();
  return detail::read_result_strict(f);
}

}  // namespace cudabench
