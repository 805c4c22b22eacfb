// Read access to safetensors checkpoints (Hugging Face / torch state_dict exports), single
// files and sharded directories (model.safetensors.index.json), and a writer of single files (test
// hooks and oracle helpers hand tensors to PyTorch with it). Host-only: files are mmapped and
// tensors handed out as byte spans for the caller to upload. Every problem -- missing file,
// truncated data, unknown tensor, wrong dtype or shape -- is an input_error naming the file and
// the tensor.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace cudabench {

struct tensor_info {
  std::string name;
  std::string dtype;  // "F32", "F16", "BF16", "F8_E4M3", "I64", ...
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // byte offsets into the data section
  std::string file;                  // which file holds it
  std::size_t bytes() const { return end - begin; }
  std::int64_t numel() const;
};

std::size_t safetensors_dtype_size(const std::string& dtype);      // 0 if unknown
std::string shape_string(const std::vector<std::int64_t>& shape);  // "[4096, 11008]"

class safetensors_file {
 public:
  static std::shared_ptr<safetensors_file> open(const std::string& path);
  ~safetensors_file();
  safetensors_file(const safetensors_file&) = delete;
  safetensors_file& operator=(const safetensors_file&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<tensor_info>& tensors() const { return tensors_; }
  const tensor_info* find(const std::string& name) const;
  const std::byte* data(const tensor_info& t) const { return data_ + t.begin; }

 private:
  safetensors_file() = default;
  std::string path_;
  void* map_ = nullptr;
  std::size_t map_size_ = 0;
  const std::byte* data_ = nullptr;
  std::vector<tensor_info> tensors_;
};

// A checkpoint: one .safetensors file, or a directory with model.safetensors or a sharded
// model.safetensors.index.json.
class checkpoint {
 public:
  static checkpoint open(const std::string& file_or_dir);

  const tensor_info* find(const std::string& name) const;
  // The tensor, checked: exists, dtype is one of `dtypes` (empty = any), shape equals `shape`.
  const tensor_info& expect(const std::string& name, const std::vector<std::string>& dtypes,
                            const std::vector<std::int64_t>& shape) const;
  const std::byte* data(const tensor_info& t) const;
  std::vector<std::string> names() const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::vector<std::shared_ptr<safetensors_file>> files_;
};

// One tensor to write: `data` holds numel(shape) elements of `dtype` (a safetensors_dtype_size name).
struct tensor_bytes {
  std::string name;
  std::string dtype;
  std::vector<std::int64_t> shape;
  const void* data = nullptr;
};

// Writes one .safetensors file (whole or not at all: write_file_atomically), tensors in the order
// given, `metadata` as the header's "__metadata__" string map. input_error on an unknown dtype or a
// repeated name.
void write_safetensors(const std::string& path, const std::vector<tensor_bytes>& tensors,
                       const std::map<std::string, std::string>& metadata = {});

}  // namespace cudabench
