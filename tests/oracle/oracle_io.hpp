// Small host helpers shared by the oracle helper executables (header-only: each tests/oracle/*.cpp
// is its own executable): --key value argument parsing and a minimal safetensors writer for F32
// tensors, which the python side reads with safetensors.torch.load_file.
#pragma once
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

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

inline void write_safetensors(const std::string& path, const std::vector<std::pair<std::string, tensor>>& tensors) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  std::uint64_t off = 0;
  for (const auto& [name, t] : tensors) {
    const std::uint64_t bytes = t.data.size() * 4;
    header[name] = {{"dtype", "F32"}, {"shape", t.shape}, {"data_offsets", {off, off + bytes}}};
    off += bytes;
  }
  std::string h = header.dump();
  while (h.size() % 8 != 0) h.push_back(' ');
  const std::uint64_t n = h.size();
  std::ofstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot write " + path);
  f.write(reinterpret_cast<const char*>(&n), 8);  // little-endian on x86-64
  f.write(h.data(), static_cast<std::streamsize>(h.size()));
  for (const auto& [name, t] : tensors)
    f.write(reinterpret_cast<const char*>(t.data.data()), static_cast<std::streamsize>(t.data.size() * 4));
  if (!f) throw std::runtime_error("short write to " + path);
}

}  // namespace oracle_io
