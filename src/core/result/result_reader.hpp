// The strict reader of result files (result.hpp): one JSON value (either nlohmann flavour) into
// the model, every error naming the file and the JSON path. Private to src/core: result.cpp reads
// whole documents with it, result_stream.cpp one workload at a time.
#pragma once
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cudabench/errors.hpp"
#include "cudabench/file_kind.hpp"
#include "cudabench/fleet.hpp"
#include "cudabench/result.hpp"
#include "cudabench/sample_rules.hpp"
#include "cudabench/stats.hpp"

namespace cudabench::detail {

// Reads one JSON document (either nlohmann flavour) into the model, tracking the JSON path.
template <class J>
class result_reader {
 public:
  explicit result_reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    if (path.empty()) throw input_error(fmt::format("{}: {}", source_, what));
    throw input_error(fmt::format("{}: {}: {}", source_, path, what));
  }

  static std::string join(const std::string& path, const std::string& key) {
    return path.empty() ? key : path + "." + key;
  }
  static std::string index(const std::string& path, std::size_t i) { return fmt::format("{}[{}]", path, i); }

  void expect(const J& v, bool ok, const std::string& path, const char* expected) const {
    if (!ok) fail(path, fmt::format("expected {}, got {}", expected, v.type_name()));
  }

  const J* field(const J& obj, const std::string& path, const std::string& key, bool required) const {
    auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(path, fmt::format("missing required field \"{}\"", key));
      return nullptr;
    }
    return &*it;
  }

  std::string string_at(const J& v, const std::string& path) const {
    expect(v, v.is_string(), path, "a string");
    return v.template get<std::string>();
  }
  double number_at(const J& v, const std::string& path) const {
    if (v.is_null()) fail(path, "expected a number, got null (a NaN or infinite value is written as null)");
    expect(v, v.is_number(), path, "a number");
    const double d = v.template get<double>();
    if (!std::isfinite(d)) fail(path, "expected a finite number");
    return d;
  }
  bool bool_at(const J& v, const std::string& path) const {
    expect(v, v.is_boolean(), path, "a boolean");
    return v.template get<bool>();
  }
  std::uint64_t uint_at(const J& v, const std::string& path) const {
    expect(v, v.is_number_unsigned(), path, "a non-negative integer");
    return v.template get<std::uint64_t>();
  }
  nlohmann::ordered_json object_at(const J& v, const std::string& path) const {
    expect(v, v.is_object(), path, "an object");
    return copy(v);
  }
  // A copy as ordered_json: key order kept when J is ordered_json (json's is sorted anyway).
  static nlohmann::ordered_json copy(const J& v) {
    if constexpr (std::is_same_v<J, nlohmann::ordered_json>) return v;
    else return nlohmann::ordered_json::parse(v.dump());
  }

  std::vector<double> numbers_at(const J& v, const std::string& path) const {
    expect(v, v.is_array(), path, "an array");
    std::vector<double> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(number_at(v[i], index(path, i)));
    return out;
  }
  std::vector<std::string> strings_at(const J& v, const std::string& path) const {
    expect(v, v.is_array(), path, "an array");
    std::vector<std::string> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(string_at(v[i], index(path, i)));
    return out;
  }

  // A fleet or a comparison is refused as what it is, before its fields are judged as a result's.
  void check_not_other_kind(const J& root) const {
    const auto format = root.find("format");
    if (format != root.end() && format->is_string() && format->template get<std::string>() == fleet_format)
      fail("", not_a_result_file_text(json_file_kind::fleet));
    if (!root.contains("schema_version") && root.contains("compare_schema_version"))
      fail("", not_a_result_file_text(json_file_kind::comparison));
  }

  // Samples impossible for their unit (sample_rules.hpp: a time <= 0, a negative rate or size,
  // anything beyond 1e30) are refused by every reader, not only by compare: `history add` stored
  // them and `report` drew them.
  void check_samples(const workload_result& w, const std::string& path) const {
    for (const auto& [name, m] : w.metrics)
      for (std::size_t i = 0; i < m.samples.size(); ++i)
        if (const auto why = impossible_sample(m.samples[i], m.unit))
          fail(index(join(join(join(path, "metrics"), name), "samples"), i),
               fmt::format("{} (workload {}, metric {}, sample {})", *why, w.id, name, i));
  }

  void check_version(const J& root) const {
    const std::string v = string_at(*field(root, "", "schema_version", true), "schema_version");
    const auto dot = v.find('.');
    const std::string major = v.substr(0, dot);
    const bool digits = !major.empty() && major.find_first_not_of("0123456789") == std::string::npos;
    if (!digits)
      fail("schema_version", fmt::format("malformed version \"{}\" (expected MAJOR.MINOR, e.g. \"1.0\")", v));
    if (major != "1")
      fail("schema_version", fmt::format("result schema version {} is not supported (this cudabench reads 1.x); "
                                         "read it with the cudabench version that wrote it",
                                         v));
  }

  metric read_metric(const J& m, const std::string& path, bool need_samples) const {
    expect(m, m.is_object(), path, "an object");
    metric out;
    out.unit = string_at(*field(m, path, "unit", true), join(path, "unit"));
    const std::string dir = string_at(*field(m, path, "better", true), join(path, "better"));
    if (dir == "lower") out.direction = better::lower;
    else if (dir == "higher") out.direction = better::higher;
    else fail(join(path, "better"), fmt::format("unknown direction \"{}\" (expected lower, higher)", dir));
    out.samples = numbers_at(*field(m, path, "samples", true), join(path, "samples"));
    if (need_samples && out.samples.empty())
      fail(join(path, "samples"), "expected at least one sample for a workload with status ok");
    if (const J* rv = field(m, path, "rounds", false)) {
      const std::string rp = join(path, "rounds");
      expect(*rv, rv->is_array(), rp, "an array");
      if (rv->size() != out.samples.size())
        fail(rp, fmt::format("expected one round index per sample ({}), got {}", out.samples.size(), rv->size()));
      for (std::size_t i = 0; i < rv->size(); ++i) {
        const J& x = (*rv)[i];
        expect(x, x.is_number_unsigned() && x.template get<std::uint64_t>() < 1000000, index(rp, i),
               "a round index (a non-negative integer)");
        out.rounds.push_back(static_cast<int>(x.template get<std::uint64_t>()));
      }
    }
    summary computed;
    if (!out.samples.empty()) computed = summarize(out.samples);
    auto num = [&](const char* key, double fallback) {
      const J* v = field(m, path, key, false);
      return v ? number_at(*v, join(path, key)) : fallback;
    };
    out.median = num("median", computed.median);
    out.mean = num("mean", computed.mean);
    out.stddev = num("stddev", computed.stddev);
    out.min = num("min", computed.min);
    out.max = num("max", computed.max);
    return out;
  }

  workload_result read_workload(const J& w, const std::string& path) const {
    expect(w, w.is_object(), path, "an object");
    workload_result out;
    out.id = string_at(*field(w, path, "id", true), join(path, "id"));
    if (out.id.empty()) fail(join(path, "id"), "expected a non-empty workload id");
    out.kind = string_at(*field(w, path, "kind", true), join(path, "kind"));
    if (const J* p = field(w, path, "params", false)) out.params = object_at(*p, join(path, "params"));
    const std::string st = string_at(*field(w, path, "status", true), join(path, "status"));
    try {
      out.state = status_from_string(st);
    } catch (const input_error& e) {
      fail(join(path, "status"), e.what());
    }
    if (const J* m = field(w, path, "message", false)) out.message = string_at(*m, join(path, "message"));
    if (const J* v = field(w, path, "validation", false)) {
      const std::string vp = join(path, "validation");
      expect(*v, v->is_object(), vp, "an object");
      validation_record rec;
      rec.passed = bool_at(*field(*v, vp, "passed", true), join(vp, "passed"));
      rec.max_rel_error = number_at(*field(*v, vp, "max_rel_error", true), join(vp, "max_rel_error"));
      rec.tolerance = number_at(*field(*v, vp, "tolerance", true), join(vp, "tolerance"));
      out.validation = rec;
    }
    const bool ok = out.state == status::ok;
    if (const J* ms = field(w, path, "metrics", ok)) {
      const std::string mp = join(path, "metrics");
      expect(*ms, ms->is_object(), mp, "an object");
      for (auto it = ms->begin(); it != ms->end(); ++it)
        out.metrics.emplace_back(it.key(), read_metric(it.value(), join(mp, it.key()), ok));
    }
    if (ok && out.metrics.empty())
      fail(join(path, "metrics"), "expected at least one metric for a workload with status ok");
    if (const J* c = field(w, path, "clocks", false)) {
      const std::string cp = join(path, "clocks");
      expect(*c, c->is_object(), cp, "an object");
      if (const J* v = field(*c, cp, "sm_mhz", false)) out.clocks.sm_mhz = numbers_at(*v, join(cp, "sm_mhz"));
      if (const J* v = field(*c, cp, "throttle_reasons", false))
        out.clocks.throttle_reasons = strings_at(*v, join(cp, "throttle_reasons"));
      if (const J* v = field(*c, cp, "throttled", false)) out.clocks.throttled = bool_at(*v, join(cp, "throttled"));
      if (const J* v = field(*c, cp, "power_w", false)) out.clocks.power_w = numbers_at(*v, join(cp, "power_w"));
      if (const J* v = field(*c, cp, "energy_absent", false))
        out.clocks.energy_absent = string_at(*v, join(cp, "energy_absent"));
    }
    if (const J* t = field(w, path, "tuning", false)) out.tuning = object_at(*t, join(path, "tuning"));
    if (const J* t = field(w, path, "tuning_by_round", false)) {
      expect(*t, t->is_array(), join(path, "tuning_by_round"), "an array");
      out.tuning_by_round = copy(*t);
    }
    if (const J* mem = field(w, path, "memory", false)) {
      const std::string mp = join(path, "memory");
      expect(*mem, mem->is_object(), mp, "an object");
      if (const J* v = field(*mem, mp, "peak_bytes", false))
        out.peak_memory_bytes = uint_at(*v, join(mp, "peak_bytes"));
      if (const J* v = field(*mem, mp, "oom_requested_bytes", false))
        out.oom_requested_bytes = uint_at(*v, join(mp, "oom_requested_bytes"));
    }
    check_samples(out, path);
    return out;
  }

  // Everything but the workloads, in the order errors are reported: the root's type, the schema
  // version, then the other top-level fields. `root` may lack "workloads" (the streaming reader
  // hands the workloads over one by one).
  void read_head(const J& root, result_file& r) const {
    if (!root.is_object()) fail("", fmt::format("expected a result object at the top level, got {}", root.type_name()));
    check_not_other_kind(root);
    check_version(root);
    r.schema_version = root.at("schema_version").template get<std::string>();
    auto obj = [&](const char* key, nlohmann::ordered_json& dst) {
      if (const J* v = field(root, "", key, false)) dst = object_at(*v, key);
    };
    obj("tool", r.tool);
    obj("build", r.build);
    obj("environment", r.environment);
    obj("suite", r.suite);
    obj("settings", r.settings);
    if (auto it = r.environment.find("label"); it != r.environment.end() && !it->is_string())
      fail("environment.label", fmt::format("expected a string, got {}", it->type_name()));
    if (const J* v = field(root, "", "started_at", false)) r.started_at = string_at(*v, "started_at");
    if (const J* v = field(root, "", "finished_at", false)) r.finished_at = string_at(*v, "finished_at");
    if (const J* v = field(root, "", "rounds", false)) {
      expect(*v,
             v->is_number_unsigned() && v->template get<std::uint64_t>() >= 1 &&
                 v->template get<std::uint64_t>() <= 1000000,
             "rounds", "a positive round count");
      r.rounds = static_cast<int>(v->template get<std::uint64_t>());
    }
    if (const J* v = field(root, "", "round_log", false)) {
      expect(*v, v->is_array(), "round_log", "an array");
      r.round_log = copy(*v);
    }
    if (const J* v = field(root, "", "interleave", false)) {
      r.interleave = object_at(*v, "interleave");
      if (const auto it = r.interleave.find("session"); it != r.interleave.end() && !it->is_string())
        fail("interleave.session", fmt::format("expected a string, got {}", it->type_name()));
    }
  }

  result_file read(const J& root) const {
    result_file r;
    read_head(root, r);
    const J& ws = *field(root, "", "workloads", true);
    expect(ws, ws.is_array(), "workloads", "an array");
    unique_ids ids(*this);
    for (std::size_t i = 0; i < ws.size(); ++i) {
      const std::string wp = index("workloads", i);
      r.workloads.push_back(read_workload(ws[i], wp));
      ids.add(r.workloads.back().id, i);
    }
    return r;
  }

  // Workload ids seen so far; a repeated one is an error naming both indices. A hash map: a file
  // of 10^6 workloads is checked in linear time.
  class unique_ids {
   public:
    explicit unique_ids(const result_reader& r) : r_(r) {}
    void add(const std::string& id, std::size_t i) {
      const auto [it, fresh] = first_.try_emplace(id, i);
      if (!fresh)
        r_.fail(join(index("workloads", i), "id"),
                fmt::format("duplicate workload id \"{}\" (also workloads[{}])", id, it->second));
    }

   private:
    const result_reader& r_;
    std::unordered_map<std::string, std::size_t> first_;
  };

 private:
  std::string source_;
};

}  // namespace cudabench::detail
