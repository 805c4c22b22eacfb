// See result.hpp. The reader is strict about what it understands (types, required fields, the
// schema's major version) and ignores keys it does not know, so a 1.x file written by a newer
// cudabench still reads. Every error names the file and the JSON path of the offending value.
#include "cudabench/result.hpp"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/stats.hpp"

namespace cudabench {

// ---- small pieces -------------------------------------------------------------------------------

const char* to_string(status s) {
  switch (s) {
    case status::ok: return "ok";
    case status::failed_validation: return "failed_validation";
    case status::oom: return "oom";
    case status::error: return "error";
    case status::unsupported: return "unsupported";
    case status::skipped: return "skipped";
  }
  return "error";
}

status status_from_string(const std::string& s) {
  for (status v : {status::ok, status::failed_validation, status::oom, status::error, status::unsupported,
                   status::skipped})
    if (s == to_string(v)) return v;
  throw input_error(fmt::format(
      "unknown status \"{}\" (expected ok, failed_validation, oom, error, unsupported, skipped)", s));
}

metric make_metric(std::string unit, better direction, std::vector<double> samples) {
  const summary s = summarize(samples);  // throws on empty / non-finite samples
  metric m;
  m.unit = std::move(unit);
  m.direction = direction;
  m.samples = std::move(samples);
  m.median = s.median;
  m.mean = s.mean;
  m.stddev = s.stddev;
  m.min = s.min;
  m.max = s.max;
  return m;
}

const metric* workload_result::find_metric(const std::string& name) const {
  for (const auto& [n, m] : metrics)
    if (n == name) return &m;
  return nullptr;
}

std::string result_file::label() const {
  auto it = environment.find("label");
  if (it != environment.end() && it->is_string() && !it->get<std::string>().empty()) return it->get<std::string>();
  return "unlabelled";
}

std::string utc_now_iso8601() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

// ---- writing ------------------------------------------------------------------------------------

nlohmann::ordered_json to_json(const result_file& r) {
  using oj = nlohmann::ordered_json;
  oj j;
  j["schema_version"] = r.schema_version;
  j["tool"] = r.tool;
  j["build"] = r.build;
  j["environment"] = r.environment;
  j["suite"] = r.suite;
  j["settings"] = r.settings;
  j["started_at"] = r.started_at;
  j["finished_at"] = r.finished_at;
  if (r.rounds > 1 || !r.round_log.empty()) {
    j["rounds"] = r.rounds;
    j["round_log"] = r.round_log;
  }
  if (!r.interleave.empty()) j["interleave"] = r.interleave;
  oj workloads = oj::array();
  for (const auto& w : r.workloads) {
    oj o;
    o["id"] = w.id;
    o["kind"] = w.kind;
    o["params"] = w.params;
    o["status"] = to_string(w.state);
    o["message"] = w.message;
    if (w.validation)
      o["validation"] = {{"passed", w.validation->passed},
                         {"max_rel_error", w.validation->max_rel_error},
                         {"tolerance", w.validation->tolerance}};
    oj metrics = oj::object();
    for (const auto& [name, m] : w.metrics) {
      metrics[name] = {{"unit", m.unit},       {"better", m.direction == better::lower ? "lower" : "higher"},
                       {"samples", m.samples}, {"median", m.median},
                       {"mean", m.mean},       {"stddev", m.stddev},
                       {"min", m.min},         {"max", m.max}};
      if (!m.rounds.empty()) metrics[name]["rounds"] = m.rounds;
    }
    o["metrics"] = std::move(metrics);
    o["clocks"] = {{"sm_mhz", w.clocks.sm_mhz},
                   {"throttle_reasons", w.clocks.throttle_reasons},
                   {"throttled", w.clocks.throttled}};
    if (!w.clocks.power_w.empty()) o["clocks"]["power_w"] = w.clocks.power_w;
    if (!w.tuning.empty()) o["tuning"] = w.tuning;
    if (!w.tuning_by_round.empty()) o["tuning_by_round"] = w.tuning_by_round;
    if (w.peak_memory_bytes || w.oom_requested_bytes) {
      oj mem = oj::object();
      if (w.peak_memory_bytes) mem["peak_bytes"] = *w.peak_memory_bytes;
      if (w.oom_requested_bytes) mem["oom_requested_bytes"] = *w.oom_requested_bytes;
      o["memory"] = std::move(mem);
    }
    workloads.push_back(std::move(o));
  }
  j["workloads"] = std::move(workloads);
  return j;
}

void write_result_file(const result_file& r, const std::string& path) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error(fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
    out << to_json(r).dump(2) << '\n';
    out.flush();
    if (!out) throw input_error(fmt::format("{}: write failed: {}", tmp, std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw input_error(fmt::format("{}: cannot rename {} into place: {}", path, tmp, std::strerror(err)));
  }
}

// ---- reading ------------------------------------------------------------------------------------

namespace {

// Reads one JSON document (either nlohmann flavour) into the model, tracking the JSON path.
template <class J>
class reader {
 public:
  explicit reader(std::string source) : source_(std::move(source)) {}

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
    return nlohmann::ordered_json::parse(v.dump());  // keeps key order when J is ordered_json
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

  void check_version(const J& root) const {
    const std::string v = string_at(*field(root, "", "schema_version", true), "schema_version");
    const auto dot = v.find('.');
    const std::string major = v.substr(0, dot);
    const bool digits = !major.empty() && major.find_first_not_of("0123456789") == std::string::npos;
    if (!digits) fail("schema_version", fmt::format("malformed version \"{}\" (expected MAJOR.MINOR, e.g. \"1.0\")", v));
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
    if (dir == "lower")
      out.direction = better::lower;
    else if (dir == "higher")
      out.direction = better::higher;
    else
      fail(join(path, "better"), fmt::format("unknown direction \"{}\" (expected lower, higher)", dir));
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
    if (ok && out.metrics.empty()) fail(join(path, "metrics"), "expected at least one metric for a workload with status ok");
    if (const J* c = field(w, path, "clocks", false)) {
      const std::string cp = join(path, "clocks");
      expect(*c, c->is_object(), cp, "an object");
      if (const J* v = field(*c, cp, "sm_mhz", false)) out.clocks.sm_mhz = numbers_at(*v, join(cp, "sm_mhz"));
      if (const J* v = field(*c, cp, "throttle_reasons", false))
        out.clocks.throttle_reasons = strings_at(*v, join(cp, "throttle_reasons"));
      if (const J* v = field(*c, cp, "throttled", false)) out.clocks.throttled = bool_at(*v, join(cp, "throttled"));
      if (const J* v = field(*c, cp, "power_w", false)) out.clocks.power_w = numbers_at(*v, join(cp, "power_w"));
    }
    if (const J* t = field(w, path, "tuning", false)) out.tuning = object_at(*t, join(path, "tuning"));
    if (const J* t = field(w, path, "tuning_by_round", false)) {
      expect(*t, t->is_array(), join(path, "tuning_by_round"), "an array");
      out.tuning_by_round = nlohmann::ordered_json::parse(t->dump());
    }
    if (const J* mem = field(w, path, "memory", false)) {
      const std::string mp = join(path, "memory");
      expect(*mem, mem->is_object(), mp, "an object");
      if (const J* v = field(*mem, mp, "peak_bytes", false)) out.peak_memory_bytes = uint_at(*v, join(mp, "peak_bytes"));
      if (const J* v = field(*mem, mp, "oom_requested_bytes", false))
        out.oom_requested_bytes = uint_at(*v, join(mp, "oom_requested_bytes"));
    }
    return out;
  }

  result_file read(const J& root) const {
    if (!root.is_object()) fail("", fmt::format("expected a result object at the top level, got {}", root.type_name()));
    check_version(root);
    result_file r;
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
      expect(*v, v->is_number_unsigned() && v->template get<std::uint64_t>() >= 1 &&
                     v->template get<std::uint64_t>() <= 1000000,
             "rounds", "a positive round count");
      r.rounds = static_cast<int>(v->template get<std::uint64_t>());
    }
    if (const J* v = field(root, "", "round_log", false)) {
      expect(*v, v->is_array(), "round_log", "an array");
      r.round_log = nlohmann::ordered_json::parse(v->dump());
    }
    if (const J* v = field(root, "", "interleave", false)) {
      r.interleave = object_at(*v, "interleave");
      if (const auto it = r.interleave.find("session"); it != r.interleave.end() && !it->is_string())
        fail("interleave.session", fmt::format("expected a string, got {}", it->type_name()));
    }
    const J& ws = *field(root, "", "workloads", true);
    expect(ws, ws.is_array(), "workloads", "an array");
    for (std::size_t i = 0; i < ws.size(); ++i) {
      const std::string wp = index("workloads", i);
      r.workloads.push_back(read_workload(ws[i], wp));
      for (std::size_t k = 0; k + 1 < r.workloads.size(); ++k)
        if (r.workloads[k].id == r.workloads.back().id)
          fail(join(wp, "id"), fmt::format("duplicate workload id \"{}\" (also workloads[{}])", r.workloads.back().id, k));
    }
    return r;
  }

 private:
  std::string source_;
};

}  // namespace

result_file result_from_json(const nlohmann::json& j, const std::string& source) {
  return reader<nlohmann::json>(source).read(j);
}

result_file result_from_json(const nlohmann::ordered_json& j, const std::string& source) {
  return reader<nlohmann::ordered_json>(source).read(j);
}

result_file read_result_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw input_error(fmt::format("{}: cannot open result file: {}", path, std::strerror(errno)));
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::ordered_json j;
  try {
    j = nlohmann::ordered_json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw input_error(fmt::format("{}: malformed JSON: {}", path, e.what()));
  }
  return result_from_json(j, path);
}

}  // namespace cudabench
