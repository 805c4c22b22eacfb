// See safetensors.hpp. Format: 8-byte little-endian header length N, N bytes of JSON
// {name: {dtype, shape, data_offsets: [begin, end]}, "__metadata__": {...}}, then the data.
#include "cudabench/safetensors.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cudabench/atomic_write.hpp"
#include "cudabench/errors.hpp"

namespace cudabench {
namespace fs = std::filesystem;

std::int64_t tensor_info::numel() const {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

std::size_t safetensors_dtype_size(const std::string& d) {
  if (d == "F64" || d == "I64" || d == "U64") return 8;
  if (d == "F32" || d == "I32" || d == "U32") return 4;
  if (d == "F16" || d == "BF16" || d == "I16" || d == "U16") return 2;
  if (d == "F8_E4M3" || d == "F8_E5M2" || d == "I8" || d == "U8" || d == "BOOL") return 1;
  return 0;
}

std::string shape_string(const std::vector<std::int64_t>& shape) { return fmt::format("[{}]", fmt::join(shape, ", ")); }

namespace {
// A JSON array of whole numbers that fit T. nlohmann's get<> would convert a float (1.5, or an
// integer too long for 64 bits, which the parser stores as a double) to an integer, which is
// undefined behaviour past T's range (found by fuzz/fuzz_safetensors.cpp).
template <class T>
std::vector<T> whole_numbers(const nlohmann::json& v, const char* field) {
  if (!v.is_array()) throw input_error(fmt::format("{} is {}, not an array", field, v.type_name()));
  std::vector<T> out;
  for (const auto& e : v) {
    const bool fits = e.is_number_unsigned()  ? e.get<std::uint64_t>() <= std::uint64_t(std::numeric_limits<T>::max())
                      : e.is_number_integer() ? std::is_signed_v<T>
                                              : false;
    if (!fits) throw input_error(fmt::format("{} holds {}, not a whole number in range", field, e.dump()));
    out.push_back(e.get<T>());
  }
  return out;
}
}  // namespace

std::shared_ptr<safetensors_file> safetensors_file::open(const std::string& path) {
  std::shared_ptr<safetensors_file> f(new safetensors_file());
  f->path_ = path;
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) throw input_error(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || st.st_size < 8) {
    ::close(fd);
    throw input_error(fmt::format("{}: not a safetensors file (shorter than its 8-byte header length)", path));
  }
  f->map_size_ = static_cast<std::size_t>(st.st_size);
  f->map_ = ::mmap(nullptr, f->map_size_, PROT_READ, MAP_PRIVATE, fd, 0);
  ::close(fd);
  if (f->map_ == MAP_FAILED) {
    f->map_ = nullptr;
    throw input_error(fmt::format("{}: mmap failed: {}", path, std::strerror(errno)));
  }
  const auto* base = static_cast<const std::byte*>(f->map_);
  std::uint64_t header_len = 0;
  for (int i = 7; i >= 0; --i) header_len = (header_len << 8) | static_cast<std::uint8_t>(base[i]);
  if (header_len > f->map_size_ - 8)
    throw input_error(fmt::format("{}: header length {} exceeds the file size {} (truncated or not safetensors)", path,
                                  header_len, f->map_size_));
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(reinterpret_cast<const char*>(base + 8),
                                   reinterpret_cast<const char*>(base + 8 + header_len));
  } catch (const nlohmann::json::exception& e) {
    throw input_error(fmt::format("{}: malformed header JSON: {}", path, e.what()));
  }
  // Found by fuzz/fuzz_safetensors.cpp: a header that is not an object, negative or huge shapes.
  if (!header.is_object())
    throw input_error(fmt::format("{}: the header is {}, not a JSON object of tensors", path, header.type_name()));
  f->data_ = base + 8 + header_len;
  const std::uint64_t data_size = f->map_size_ - 8 - header_len;
  for (auto it = header.begin(); it != header.end(); ++it) {
    if (it.key() == "__metadata__") continue;
    const auto& v = it.value();
    tensor_info t;
    t.name = it.key();
    t.file = path;
    try {
      t.dtype = v.at("dtype").get<std::string>();
      t.shape = whole_numbers<std::int64_t>(v.at("shape"), "shape");
      const auto offs = whole_numbers<std::uint64_t>(v.at("data_offsets"), "data_offsets");
      if (offs.size() != 2) throw input_error("data_offsets needs two entries");
      t.begin = offs[0];
      t.end = offs[1];
    } catch (const std::exception& e) {
      throw input_error(fmt::format("{}: tensor {}: bad header entry: {}", path, t.name, e.what()));
    }
    const std::size_t es = safetensors_dtype_size(t.dtype);
    if (es == 0) throw input_error(fmt::format("{}: tensor {}: unknown dtype {}", path, t.name, t.dtype));
    // The element count times the element size must not overflow: no file holds 2^62 bytes.
    std::uint64_t count = 1;
    for (const std::int64_t d : t.shape) {
      if (d < 0)
        throw input_error(
            fmt::format("{}: tensor {}: negative dimension in shape {}", path, t.name, shape_string(t.shape)));
      if (d != 0 && count > (std::uint64_t{1} << 62) / static_cast<std::uint64_t>(d) / es)
        throw input_error(fmt::format("{}: tensor {}: shape {} is too large", path, t.name, shape_string(t.shape)));
      count *= static_cast<std::uint64_t>(d);
    }
    if (t.end < t.begin || t.end > data_size)
      throw input_error(fmt::format("{}: tensor {}: data [{}, {}) lies outside the {} data bytes (truncated file?)",
                                    path, t.name, t.begin, t.end, data_size));
    if (t.bytes() != count * es)
      throw input_error(fmt::format("{}: tensor {}: {} bytes do not match shape {} of {}", path, t.name, t.bytes(),
                                    shape_string(t.shape), t.dtype));
    f->tensors_.push_back(std::move(t));
  }
  return f;
}

safetensors_file::~safetensors_file() {
  if (map_) ::munmap(map_, map_size_);
}

const tensor_info* safetensors_file::find(const std::string& name) const {
  for (const auto& t : tensors_)
    if (t.name == name) return &t;
  return nullptr;
}

checkpoint checkpoint::open(const std::string& file_or_dir) {
  checkpoint c;
  c.source_ = file_or_dir;
  const fs::path p(file_or_dir);
  if (!fs::exists(p)) throw input_error(fmt::format("{}: no such file or directory", file_or_dir));
  if (fs::is_regular_file(p)) {
    c.files_.push_back(safetensors_file::open(p.string()));
    return c;
  }
  if (fs::exists(p / "model.safetensors")) {
    c.files_.push_back(safetensors_file::open((p / "model.safetensors").string()));
    return c;
  }
  const fs::path index = p / "model.safetensors.index.json";
  if (!fs::exists(index))
    throw input_error(fmt::format("{}: no model.safetensors or model.safetensors.index.json", file_or_dir));
  nlohmann::json j;
  try {
    std::ifstream in(index);
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::exception& e) {
    throw input_error(fmt::format("{}: malformed JSON: {}", index.string(), e.what()));
  }
  if (!j.contains("weight_map") || !j["weight_map"].is_object())
    throw input_error(fmt::format("{}: weight_map: expected an object", index.string()));
  std::vector<std::string> shards;
  for (auto& [name, file] : j["weight_map"].items()) {
    const std::string f = file.get<std::string>();
    if (std::find(shards.begin(), shards.end(), f) == shards.end()) shards.push_back(f);
  }
  for (const auto& s : shards) c.files_.push_back(safetensors_file::open((p / s).string()));
  return c;
}

const tensor_info* checkpoint::find(const std::string& name) const {
  for (const auto& f : files_)
    if (const auto* t = f->find(name)) return t;
  return nullptr;
}

const tensor_info& checkpoint::expect(const std::string& name, const std::vector<std::string>& dtypes,
                                      const std::vector<std::int64_t>& shape) const {
  const tensor_info* t = find(name);
  if (!t) throw input_error(fmt::format("{}: tensor {} is missing", source_, name));
  if (!dtypes.empty() && std::find(dtypes.begin(), dtypes.end(), t->dtype) == dtypes.end())
    throw input_error(
        fmt::format("{}: tensor {}: dtype {} (expected {})", source_, name, t->dtype, fmt::join(dtypes, " or ")));
  if (t->shape != shape)
    throw input_error(fmt::format("{}: tensor {}: shape {} (expected {})", source_, name, shape_string(t->shape),
                                  shape_string(shape)));
  return *t;
}

const std::byte* checkpoint::data(const tensor_info& t) const {
  for (const auto& f : files_)
    if (f->path() == t.file) return f->data(t);
  throw input_error(fmt::format("{}: tensor {} belongs to no open file", source_, t.name));
}

std::vector<std::string> checkpoint::names() const {
  std::vector<std::string> out;
  for (const auto& f : files_)
    for (const auto& t : f->tensors()) out.push_back(t.name);
  return out;
}

void write_safetensors(const std::string& path, const std::vector<tensor_bytes>& tensors,
                       const std::map<std::string, std::string>& metadata) {
  // Ordered, so the data section follows the header's order (readers do not care; diffs do).
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  if (!metadata.empty()) header["__metadata__"] = metadata;
  std::uint64_t off = 0;
  for (const auto& t : tensors) {
    const std::size_t es = safetensors_dtype_size(t.dtype);
    if (es == 0) throw input_error(fmt::format("{}: tensor {}: unknown dtype {}", path, t.name, t.dtype));
    if (t.name == "__metadata__" || header.contains(t.name))
      throw input_error(fmt::format("{}: tensor name {} repeated or reserved", path, t.name));
    std::uint64_t n = 1;
    for (auto d : t.shape) n *= static_cast<std::uint64_t>(d);
    header[t.name] = {{"dtype", t.dtype}, {"shape", t.shape}, {"data_offsets", {off, off + n * es}}};
    off += n * es;
  }
  std::string h = header.dump();
  while (h.size() % 8 != 0) h.push_back(' ');  // the format pads the header so the data is aligned
  std::string bytes;
  bytes.reserve(8 + h.size() + off);
  for (int i = 0; i < 8; ++i) bytes.push_back(static_cast<char>((h.size() >> (8 * i)) & 0xff));  // little-endian
  bytes += h;
  for (const auto& t : tensors) {
    const auto& entry = header[t.name]["data_offsets"];
    const std::size_t n = entry[1].get<std::size_t>() - entry[0].get<std::size_t>();
    if (n != 0) bytes.append(static_cast<const char*>(t.data), n);
  }
  write_file_atomically(path, bytes);
}

}  // namespace cudabench
