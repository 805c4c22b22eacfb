// Small host helpers shared by the oracle helper executables (header-only: each tests/oracle/*.cpp
// is its own executable): --key value argument parsing and a minimal safetensors writer for F32
// tensors (cudabench::write_safetensors), which the python side reads with safetensors.torch.load_file.
#pragma once
#include <cstdint>
#include <cstdio>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cudabench/safetensors.hpp"

namespace oracle_io {

struct args {
  std::map<std::string, std::string> kv;
  args(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
      std::string k = argv[i];
      if (k.rfind("--", 0) != 0) throw std::invalid_argument("expected --key, got " + k);
      k = k.substr(2);
      if (i + 1 < argc && std::string(argv[i + 1]).rfind("--", 0) != 0) kv[k] = argv[++i];
      else kv[k] = "1";  // a flag
    }
  }
  std::string str(const std::string& k, const std::string& def = "") const {
    auto it = kv.find(k);
    if (it != kv.end()) return it->second;
    if (def.empty()) throw std::invalid_argument("missing --" + k);
    return def;
  }
  int num(const std::string& k, int def) const { return kv.count(k) ? std::stoi(kv.at(k)) : def; }
  bool flag(const std::string& k) const { return kv.count(k) != 0; }
};

struct tensor {
  std::vector<std::int64_t> shape;
  std::vector<float> data;
};

// F32 tensors through cudabench's writer.
inline void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, tensor>>& tensors) {
  std::vector<cudabench::tensor_bytes> out;
  for (const auto& [name, t] : tensors) out.push_back({name, "F32", t.shape, t.data.data()});
  cudabench::write_safetensors(path, out);
}

}  // namespace oracle_io
