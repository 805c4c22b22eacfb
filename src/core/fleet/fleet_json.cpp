// See fleet.hpp: the fleet file on disk. The GPUs (with each one's whole result) are the data;
// workloads, outliers, outlier_gpus, differences and notes are derived and written for readers,
// and recomputed from the GPUs when a file is read, so an old file read by a newer cudabench
// gets the newer summary.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "core/io/checked_json.hpp"
#include "cudabench/atomic_write.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/fleet.hpp"
#include "cudabench/input_file.hpp"

namespace cudabench {
namespace {

using oj = nlohmann::ordered_json;

oj number_or_null(double v) { return std::isfinite(v) ? oj(v) : oj(nullptr); }

template <class T>
oj opt(const std::optional<T>& v) {
  return v ? oj(*v) : oj(nullptr);
}

oj gpu_json(const fleet_gpu& g) {
  oj o;
  o["host"] = g.host;
  o["index"] = g.index;
  o["status"] = g.result ? "ok" : "no_result";
  o["file"] = g.file;
  o["exit_code"] = g.exit_code;
  o["note"] = g.note;
  if (g.result) {
    const oj& env = g.result->environment;
    const auto dev = env.find("device");
    // The identity and settings an outlier line points at, lifted out of the result for readers.
    auto device = [&](const char* key) {
      return dev != env.end() && dev->is_object() && dev->contains(key) ? (*dev)[key] : oj(nullptr);
    };
    o["device"] = device("name");
    for (const char* key : {"uuid", "pci_bus_id", "max_sm_clock_mhz", "power_limit_w"}) o[key] = device(key);
    o["other_processes"] = env.contains("other_processes") ? env["other_processes"] : oj::array();
    o["result"] = to_json(*g.result);
  }
  return o;
}

oj workload_json(const fleet_file& f, const fleet_workload& w) {
  oj o;
  o["id"] = w.id;
  o["kind"] = w.kind;
  o["params"] = w.params;
  o["name"] = w.name;
  o["metric"] = w.metric;
  o["unit"] = w.unit;
  o["better"] = w.direction == better::lower ? "lower" : "higher";
  o["gpus_ok"] = w.ok_count();
  o["judged"] = w.analysis.judged;
  o["median"] = w.analysis.median;
  o["mad"] = w.analysis.mad;
  o["min"] = w.analysis.min;
  o["max"] = w.analysis.max;
  o["spread_pct"] = w.analysis.spread_pct;
  o["floor_pct"] = w.analysis.floor_pct;
  o["fleet_sm_mhz"] = opt(w.fleet_sm_mhz);
  oj values = oj::array();
  for (const auto& v : w.values) {
    oj x;
    x["host"] = f.gpus[v.gpu].host;
    x["index"] = f.gpus[v.gpu].index;
    x["status"] = to_string(v.state);
    if (!v.message.empty()) x["message"] = v.message;
    x["value"] = opt(v.value);
    if (v.value) {
      x["deviation_pct"] = v.verdict.deviation_pct;
      x["robust_z"] = number_or_null(v.verdict.robust_z);  // null: the MAD is 0 and the value differs
      x["outlier"] = v.verdict.outlier;
    }
    x["sm_mhz"] = opt(v.sm_mhz);
    x["power_w"] = opt(v.power_w);
    values.push_back(std::move(x));
  }
  o["values"] = std::move(values);
  return o;
}

oj rule_json(const outlier_rule& r) {
  return {{"method", "robust z (median absolute deviation) with a minimum relative deviation"},
          {"k", r.k},
          {"min_deviation_pct", r.min_deviation_pct},
          {"session_multiple", r.session_multiple},
          {"min_gpus", r.min_gpus},
          {"reference", "Iglewicz and Hoaglin (1993), How to Detect and Handle Outliers: modified z-score > 3.5"}};
}

// ---- reading ------------------------------------------------------------------------------------

class fleet_reader {
 public:
  explicit fleet_reader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw input_error(path.empty() ? fmt::format("{}: {}", source_, what)
                                   : fmt::format("{}: {}: {}", source_, path, what));
  }
  const oj* field(const oj& obj, const std::string& path, const char* key, bool required) const {
    const auto it = obj.find(key);
    if (it == obj.end()) {
      if (required) fail(path, fmt::format("missing required field \"{}\"", key));
      return nullptr;
    }
    return &*it;
  }
  std::string text(const oj& v, const std::string& path) const {
    if (!v.is_string()) fail(path, fmt::format("expected a string, got {}", v.type_name()));
    return v.get<std::string>();
  }
  double number(const oj& v, const std::string& path) const {
    if (!v.is_number() || !std::isfinite(v.get<double>())) fail(path, "expected a finite number");
    return v.get<double>();
  }

  fleet_file read(const oj& root) const {
    if (!root.is_object()) fail("", "expected a fleet object at the top level");
    if (!is_fleet_json(root)) fail("format", fmt::format("expected \"{}\"", fleet_format));
    const std::string v = text(*field(root, "", "schema_version", true), "schema_version");
    if (v.substr(0, v.find('.')) != "1")
      fail("schema_version", fmt::format("fleet schema version {} is not supported (this cudabench reads 1.x)", v));
    outlier_rule rule;
    if (const oj* r = field(root, "", "outlier_rule", false)) {
      if (!r->is_object()) fail("outlier_rule", "expected an object");
      if (const oj* x = field(*r, "outlier_rule", "k", false)) rule.k = number(*x, "outlier_rule.k");
      if (const oj* x = field(*r, "outlier_rule", "min_deviation_pct", false))
        rule.min_deviation_pct = number(*x, "outlier_rule.min_deviation_pct");
      if (const oj* x = field(*r, "outlier_rule", "session_multiple", false))
        rule.session_multiple = number(*x, "outlier_rule.session_multiple");
      if (const oj* x = field(*r, "outlier_rule", "min_gpus", false))
        rule.min_gpus = static_cast<int>(number(*x, "outlier_rule.min_gpus"));
    }
    const oj& gs = *field(root, "", "gpus", true);
    if (!gs.is_array()) fail("gpus", "expected an array");
    std::vector<fleet_gpu> gpus;
    for (std::size_t i = 0; i < gs.size(); ++i) {
      const std::string p = fmt::format("gpus[{}]", i);
      const oj& g = gs[i];
      if (!g.is_object()) fail(p, "expected an object");
      fleet_gpu out;
      out.host = text(*field(g, p, "host", true), p + ".host");
      const oj& idx = *field(g, p, "index", true);
      if (!idx.is_number_integer() || idx.get<long long>() < 0 || idx.get<long long>() > 1000000)
        fail(p + ".index", "expected a device index (a non-negative integer)");
      out.index = idx.get<int>();
      if (const oj* x = field(g, p, "file", false)) out.file = text(*x, p + ".file");
      if (const oj* x = field(g, p, "note", false)) out.note = text(*x, p + ".note");
      if (const oj* x = field(g, p, "exit_code", false)) {
        if (!x->is_number_integer()) fail(p + ".exit_code", "expected an integer");
        out.exit_code = x->get<int>();
      }
      if (const oj* x = field(g, p, "result", false)) out.result = result_from_json(*x, source_ + ": " + p + ".result");
      gpus.push_back(std::move(out));
    }
    std::string label;
    if (const oj* x = field(root, "", "label", false)) label = text(*x, "label");
    fleet_file f = make_fleet(std::move(gpus), rule, label);
    f.schema_version = v;
    if (const oj* x = field(root, "", "tool", false); x && x->is_object()) f.tool = *x;
    if (const oj* x = field(root, "", "created_at", false)) f.created_at = text(*x, "created_at");
    if (const oj* x = field(root, "", "interleave", false)) {
      if (!x->is_object()) fail("interleave", "expected an object");
      f.interleave = *x;
    }
    return f;
  }

 private:
  std::string source_;
};

}  // namespace

bool is_fleet_json(const nlohmann::ordered_json& j) {
  const auto it = j.find("format");
  return j.is_object() && it != j.end() && it->is_string() && it->get<std::string>() == fleet_format;
}

nlohmann::ordered_json to_json(const fleet_file& f) {
  oj j;
  j["format"] = fleet_format;
  j["schema_version"] = f.schema_version;
  j["tool"] = f.tool;
  j["created_at"] = f.created_at;
  j["label"] = f.label;
  j["suite"] = f.suite;
  if (!f.interleave.empty()) j["interleave"] = f.interleave;
  j["outlier_rule"] = rule_json(f.rule);
  j["hosts"] = [&] {
    oj hosts = oj::array();
    for (const auto& g : f.gpus)
      if (hosts.empty() || hosts.back() != g.host) hosts.push_back(g.host);
    return hosts;
  }();
  j["gpu_count"] = f.gpus.size();
  j["gpus_with_result"] = f.ok_gpus();
  oj outlier_gpus = oj::array();
  for (const auto& o : f.outlier_gpus)
    outlier_gpus.push_back({{"host", f.gpus[o.gpu].host},
                            {"index", f.gpus[o.gpu].index},
                            {"flagged", o.flagged},
                            {"judged", o.judged},
                            {"line", o.line}});
  j["outlier_gpus"] = std::move(outlier_gpus);
  oj outliers = oj::array();
  for (const auto& o : f.outliers) {
    const auto& w = f.workloads[o.workload];
    outliers.push_back({{"host", f.gpus[o.gpu].host},
                        {"index", f.gpus[o.gpu].index},
                        {"id", w.id},
                        {"metric", w.metric},
                        {"worse", o.worse},
                        {"line", o.line}});
  }
  j["outliers"] = std::move(outliers);
  oj diffs = oj::array();
  for (const auto& d : f.differences) {
    oj groups = oj::array();
    for (const auto& [value, names] : d.groups) groups.push_back({{"value", value}, {"gpus", names}});
    diffs.push_back({{"field", d.field}, {"groups", std::move(groups)}});
  }
  j["differences"] = std::move(diffs);
  j["notes"] = f.notes;
  oj workloads = oj::array();
  for (const auto& w : f.workloads) workloads.push_back(workload_json(f, w));
  j["workloads"] = std::move(workloads);
  oj gpus = oj::array();
  for (const auto& g : f.gpus) gpus.push_back(gpu_json(g));
  j["gpus"] = std::move(gpus);
  return j;
}

fleet_file fleet_from_json(const nlohmann::ordered_json& j, const std::string& source) {
  return fleet_reader(source).read(j);
}

fleet_file read_fleet_file(const std::string& path) {
  return fleet_from_json(detail::read_checked_json(path, "fleet file", max_result_file_bytes), path);
}

void write_fleet_file(const fleet_file& f, const std::string& path, const std::vector<std::string>& inputs) {
  write_file_atomically(path, to_json(f).dump(2) + "\n", inputs);
}

}  // namespace cudabench
