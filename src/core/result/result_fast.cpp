// read_result_fast (result_stream.hpp): SAX events straight into the model. Building a DOM per
// workload and converting it cost about three times the parse itself; this reader fills
// workload_result fields as the values arrive and keeps only params, tuning and the top-level
// fields as JSON. It mirrors result_reader's rules for valid files (required fields, types, the
// summary computed from the samples when the file omits it, unknown keys ignored) and gives up
// at anything else, so it never has to word an error: the strict reader runs instead. The fuzz
// target fuzz/fuzz_result_reader.cpp checks that both readers agree.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include <nlohmann/json.hpp>

#include "chunked_input.hpp"
#include "core/io/json_errors.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/sample_rules.hpp"
#include "cudabench/stats.hpp"
#include "dom_builder.hpp"
#include "result_reader.hpp"
#include "result_stream.hpp"

namespace cudabench::detail {
namespace {

using J = nlohmann::ordered_json;

// Every key the reader knows, one bit each (a repeated key makes the reader give up).
enum field : std::uint8_t {
  f_unknown,
  // a workload
  f_id,
  f_kind,
  f_params,
  f_status,
  f_message,
  f_validation,
  f_metrics,
  f_clocks,
  f_tuning,
  f_tuning_by_round,
  f_memory,
  // validation
  f_passed,
  f_max_rel_error,
  f_tolerance,
  // a metric
  f_unit,
  f_better,
  f_samples,
  f_rounds,
  f_median,
  f_mean,
  f_stddev,
  f_min,
  f_max,
  // clocks
  f_sm_mhz,
  f_throttle_reasons,
  f_throttled,
  f_power_w,
  f_energy_absent,
  // memory
  f_peak_bytes,
  f_oom_requested_bytes,
  // a metric name inside "metrics"; a top-level key; "workloads"
  f_metric_entry,
  f_head_key,
  f_workloads,
};

enum class ctx : std::uint8_t {
  root,
  workloads,
  workload,
  validation,
  metrics,
  metric,
  clocks,
  memory,
  numbers,
  rounds,
  strings,
  skip,
  dom
};

struct frame {
  ctx c;
  std::uint64_t seen = 0;  // fields seen in this object
};

// One scalar as the SAX interface delivers it.
struct scalar {
  enum kind { null, boolean, integer, unsigned_, floating, string } k;
  bool b = false;
  std::int64_t i = 0;
  std::uint64_t u = 0;
  double d = 0;
  std::string* s = nullptr;
  bool is_number() const { return k == integer || k == unsigned_ || k == floating; }
  double number() const { return k == integer ? static_cast<double>(i) : k == unsigned_ ? static_cast<double>(u) : d; }
  J to_json() const {
    switch (k) {
      case null: return J(nullptr);
      case boolean: return J(b);
      case integer: return J(i);
      case unsigned_: return J(u);
      case floating: return J(d);
      case string: return J(std::move(*s));
    }
    return J();
  }
};

class fast_sax {
 public:
  explicit fast_sax(const std::string& source) : reader_(source) {}

  bool null() { return on_scalar({scalar::null}); }
  bool boolean(bool v) {
    scalar s{scalar::boolean};
    s.b = v;
    return on_scalar(s);
  }
  bool number_integer(J::number_integer_t v) {
    scalar s{scalar::integer};
    s.i = v;
    return on_scalar(s);
  }
  bool number_unsigned(J::number_unsigned_t v) {
    scalar s{scalar::unsigned_};
    s.u = v;
    return on_scalar(s);
  }
  bool number_float(J::number_float_t v, const J::string_t&) {
    scalar s{scalar::floating};
    s.d = v;
    return on_scalar(s);
  }
  bool string(J::string_t& v) {
    scalar s{scalar::string};
    s.s = &v;
    return on_scalar(s);
  }
  bool binary(J::binary_t&) { return false; }
  bool start_object(std::size_t) { return open(false); }
  bool start_array(std::size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }
  bool key(J::string_t& k);

  // After a complete parse: the top-level checks (their errors are the strict reader's too),
  // or nullopt when something must be left to the strict reader.
  std::optional<result_file> finish() {
    if (!workloads_done_) return std::nullopt;
    // Ids must be unique; checked once the workloads no longer move, so the set holds views.
    std::unordered_set<std::string_view> ids;
    ids.reserve(result_.workloads.size());
    for (const auto& w : result_.workloads)
      if (!ids.insert(w.id).second) return std::nullopt;
    reader_.read_head(head_, result_);
    return std::move(result_);
  }

 private:
  bool on_scalar(const scalar& v);
  bool open(bool is_array);
  bool close();
  bool finish_metric();
  bool finish_workload();

  frame& top() { return stack_.back(); }

  result_reader<J> reader_;
  result_file result_;
  std::vector<frame> stack_;
  field pending_ = f_unknown;  // what the next value is (set by key)
  std::string head_key_, metric_name_;
  dom_builder dom_;
  int skip_depth_ = 0;
  std::size_t dom_depth_ = 0;               // containers open inside the DOM being built, below its root
  std::vector<double>* numbers_ = nullptr;  // the array being filled (samples, sm_mhz, power_w)
  std::vector<std::string>* strings_ = nullptr;
  J head_ = J::object();
  bool workloads_seen_ = false, workloads_done_ = false;

  // The workload and metric being read.
  workload_result w_;
  std::string status_;
  validation_record v_;
  metric m_;
  double m_summary_[5] = {};  // median, mean, stddev, min, max as given
  std::uint64_t metric_seen_ = 0;
};

constexpr std::uint64_t bit(field f) { return std::uint64_t{1} << f; }

field workload_field(const std::string& k) {
  switch (k.size()) {
    case 2: return k == "id" ? f_id : f_unknown;
    case 4: return k == "kind" ? f_kind : f_unknown;
    case 6:
      return k == "params"   ? f_params
             : k == "status" ? f_status
             : k == "clocks" ? f_clocks
             : k == "tuning" ? f_tuning
             : k == "memory" ? f_memory
                             : f_unknown;
    case 7: return k == "message" ? f_message : k == "metrics" ? f_metrics : f_unknown;
    case 10: return k == "validation" ? f_validation : f_unknown;
    case 15: return k == "tuning_by_round" ? f_tuning_by_round : f_unknown;
    default: return f_unknown;
  }
}

field metric_field(const std::string& k) {
  if (k == "unit") return f_unit;
  if (k == "better") return f_better;
  if (k == "samples") return f_samples;
  if (k == "rounds") return f_rounds;
  if (k == "median") return f_median;
  if (k == "mean") return f_mean;
  if (k == "stddev") return f_stddev;
  if (k == "min") return f_min;
  if (k == "max") return f_max;
  return f_unknown;
}

bool fast_sax::key(J::string_t& k) {
  if (stack_.empty()) return false;
  field f = f_unknown;
  switch (top().c) {
    case ctx::dom: dom_.key(k); return true;
    case ctx::skip: return true;
    case ctx::root:
      if (k == "workloads") {
        f = f_workloads;
      } else if (k == "format" || k == "compare_schema_version") {
        return false;  // a fleet or a comparison: the strict reader says which (file_kind.hpp)
      } else {
        head_key_ = k;
        pending_ = f_head_key;
        return !head_.contains(k);  // a repeated top-level key: the strict reader decides
      }
      break;
    case ctx::workload: f = workload_field(k); break;
    case ctx::validation:
      f = k == "passed"          ? f_passed
          : k == "max_rel_error" ? f_max_rel_error
          : k == "tolerance"     ? f_tolerance
                                 : f_unknown;
      break;
    case ctx::metrics:
      for (const auto& [name, m] : w_.metrics)
        if (name == k) return false;
      metric_name_ = k;
      pending_ = f_metric_entry;
      return true;
    case ctx::metric: f = metric_field(k); break;
    case ctx::clocks:
      f = k == "sm_mhz"             ? f_sm_mhz
          : k == "throttle_reasons" ? f_throttle_reasons
          : k == "throttled"        ? f_throttled
          : k == "power_w"          ? f_power_w
          : k == "energy_absent"    ? f_energy_absent
                                    : f_unknown;
      break;
    case ctx::memory:
      f = k == "peak_bytes" ? f_peak_bytes : k == "oom_requested_bytes" ? f_oom_requested_bytes : f_unknown;
      break;
    default: return false;
  }
  if (f != f_unknown) {
    if (top().seen & bit(f)) return false;
    top().seen |= bit(f);
  }
  pending_ = f;
  return true;
}

bool fast_sax::on_scalar(const scalar& v) {
  if (stack_.empty()) return false;  // a scalar document
  switch (top().c) {
    case ctx::dom: dom_.scalar(v.to_json()); return true;
    case ctx::skip: return true;
    case ctx::numbers:
      if (!v.is_number()) return false;
      numbers_->push_back(v.number());
      return true;
    case ctx::rounds:
      if (v.k != scalar::unsigned_ || v.u >= 1000000) return false;
      m_.rounds.push_back(static_cast<int>(v.u));
      return true;
    case ctx::strings:
      if (v.k != scalar::string) return false;
      strings_->push_back(std::move(*v.s));
      return true;
    case ctx::root:
      if (pending_ != f_head_key) return false;
      head_[head_key_] = v.to_json();
      return true;
    case ctx::workload:
      if (pending_ == f_unknown) return true;
      if (v.k != scalar::string) return false;
      switch (pending_) {
        case f_id: w_.id = std::move(*v.s); return true;
        case f_kind: w_.kind = std::move(*v.s); return true;
        case f_status: status_ = std::move(*v.s); return true;
        case f_message: w_.message = std::move(*v.s); return true;
        default: return false;
      }
    case ctx::validation:
      if (pending_ == f_unknown) return true;
      if (pending_ == f_passed) {
        if (v.k != scalar::boolean) return false;
        v_.passed = v.b;
        return true;
      }
      if (!v.is_number()) return false;
      (pending_ == f_max_rel_error ? v_.max_rel_error : v_.tolerance) = v.number();
      return true;
    case ctx::metric:
      switch (pending_) {
        case f_unknown: return true;
        case f_unit:
        case f_better:
          if (v.k != scalar::string) return false;
          if (pending_ == f_unit) {
            m_.unit = std::move(*v.s);
          } else if (*v.s == "lower" || *v.s == "higher") {
            m_.direction = *v.s == "lower" ? better::lower : better::higher;
          } else {
            return false;
          }
          return true;
        case f_median:
        case f_mean:
        case f_stddev:
        case f_min:
        case f_max:
          if (!v.is_number()) return false;
          m_summary_[pending_ - f_median] = v.number();
          return true;
        default: return false;
      }
    case ctx::clocks:
      if (pending_ == f_unknown) return true;
      if (pending_ == f_energy_absent && v.k == scalar::string) {
        w_.clocks.energy_absent = std::move(*v.s);
        return true;
      }
      if (pending_ != f_throttled || v.k != scalar::boolean) return false;
      w_.clocks.throttled = v.b;
      return true;
    case ctx::memory:
      if (pending_ == f_unknown) return true;
      if (v.k != scalar::unsigned_) return false;
      (pending_ == f_peak_bytes ? w_.peak_memory_bytes : w_.oom_requested_bytes) = v.u;
      return true;
    default: return false;  // metrics / workloads take objects only
  }
}

bool fast_sax::open(bool is_array) {
  if (stack_.size() + dom_depth_ + skip_depth_ >= max_json_depth) return false;  // the strict reader words it
  if (stack_.empty()) {
    if (is_array) return false;
    stack_.push_back({ctx::root});
    return true;
  }
  auto push = [&](ctx c) {
    stack_.push_back({c});
    return true;
  };
  switch (top().c) {
    case ctx::dom:
      dom_.open(is_array);
      ++dom_depth_;
      return true;
    case ctx::skip: ++skip_depth_; return true;
    case ctx::root:
      if (pending_ == f_head_key) {
        dom_.begin(head_[head_key_], is_array);
        return push(ctx::dom);
      }
      if (!is_array || workloads_seen_) return false;
      workloads_seen_ = true;
      return push(ctx::workloads);
    case ctx::workloads:
      if (is_array) return false;
      w_ = workload_result();
      status_.clear();
      return push(ctx::workload);
    case ctx::workload:
      switch (pending_) {
        case f_unknown: skip_depth_ = 1; return push(ctx::skip);
        case f_params:
        case f_tuning:
          if (is_array) return false;
          dom_.begin(pending_ == f_params ? w_.params : w_.tuning, false);
          return push(ctx::dom);
        case f_tuning_by_round:
          if (!is_array) return false;
          dom_.begin(w_.tuning_by_round, true);
          return push(ctx::dom);
        case f_validation:
          if (is_array) return false;
          v_ = validation_record();
          return push(ctx::validation);
        case f_metrics: return !is_array && push(ctx::metrics);
        case f_clocks: return !is_array && push(ctx::clocks);
        case f_memory: return !is_array && push(ctx::memory);
        default: return false;
      }
    case ctx::metrics:
      if (is_array) return false;
      m_ = metric();
      for (double& x : m_summary_) x = 0;
      return push(ctx::metric);
    case ctx::metric:
      if (pending_ == f_unknown) {
        skip_depth_ = 1;
        return push(ctx::skip);
      }
      if (!is_array) return false;
      if (pending_ == f_samples) {
        numbers_ = &m_.samples;
        return push(ctx::numbers);
      }
      return pending_ == f_rounds && push(ctx::rounds);
    case ctx::clocks:
      if (pending_ == f_unknown) {
        skip_depth_ = 1;
        return push(ctx::skip);
      }
      if (!is_array) return false;
      if (pending_ == f_throttle_reasons) {
        strings_ = &w_.clocks.throttle_reasons;
        return push(ctx::strings);
      }
      if (pending_ != f_sm_mhz && pending_ != f_power_w) return false;
      numbers_ = pending_ == f_sm_mhz ? &w_.clocks.sm_mhz : &w_.clocks.power_w;
      return push(ctx::numbers);
    case ctx::validation:
    case ctx::memory:
      if (pending_ != f_unknown) return false;
      skip_depth_ = 1;
      return push(ctx::skip);
    default: return false;  // arrays of scalars hold no containers
  }
}

bool fast_sax::close() {
  const frame f = top();
  switch (f.c) {
    case ctx::dom:
      if (dom_.close()) stack_.pop_back();
      else --dom_depth_;
      return true;
    case ctx::skip:
      if (--skip_depth_ == 0) stack_.pop_back();
      return true;
    default: break;
  }
  stack_.pop_back();
  switch (f.c) {
    case ctx::validation: {
      constexpr std::uint64_t need = bit(f_passed) | bit(f_max_rel_error) | bit(f_tolerance);
      if ((f.seen & need) != need) return false;
      w_.validation = v_;
      return true;
    }
    case ctx::metric: metric_seen_ = f.seen; return finish_metric();
    case ctx::workload: {
      constexpr std::uint64_t need = bit(f_id) | bit(f_kind) | bit(f_status);
      if ((f.seen & need) != need) return false;
      return finish_workload();
    }
    case ctx::workloads: workloads_done_ = true; return true;
    default: return true;
  }
}

// As result_reader::read_metric: unit, better and samples required, one round index per sample,
// the summary from the file or else computed from the samples.
bool fast_sax::finish_metric() {
  constexpr std::uint64_t need = bit(f_unit) | bit(f_better) | bit(f_samples);
  if ((metric_seen_ & need) != need) return false;
  if ((metric_seen_ & bit(f_rounds)) && m_.rounds.size() != m_.samples.size()) return false;
  for (const double x : m_.samples)
    if (impossible_sample(x, m_.unit)) return false;  // the strict reader says which and why
  summary computed;
  if (!m_.samples.empty()) computed = summarize(m_.samples);
  const double fallback[5] = {computed.median, computed.mean, computed.stddev, computed.min, computed.max};
  double* out[5] = {&m_.median, &m_.mean, &m_.stddev, &m_.min, &m_.max};
  for (int i = 0; i < 5; ++i)
    *out[i] = (metric_seen_ & bit(static_cast<field>(f_median + i))) ? m_summary_[i] : fallback[i];
  w_.metrics.emplace_back(metric_name_, std::move(m_));
  return true;
}

// As result_reader::read_workload's checks (an ok workload has metrics, each with samples).
bool fast_sax::finish_workload() {
  if (w_.id.empty()) return false;
  try {
    w_.state = status_from_string(status_);
  } catch (const input_error&) {
    return false;
  }
  if (w_.state == status::ok) {
    if (w_.metrics.empty()) return false;
    for (const auto& [name, m] : w_.metrics)
      if (m.samples.empty()) return false;
  }
  result_.workloads.push_back(std::move(w_));
  return true;
}

}  // namespace

std::optional<result_file> read_result_fast(input_file& f) {
  chunked_source src(f);
  fast_sax sax(f.path());
  if (!J::sax_parse(chunk_iterator(&src), chunk_iterator(), &sax)) return std::nullopt;
  return sax.finish();
}

}  // namespace cudabench::detail
