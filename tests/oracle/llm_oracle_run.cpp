// Oracle helper for tests/oracle/oracle_llm.py: runs cudabench's LLM engine (the llm_decode
// workload's code path: checkpoint load, prefill, graph-replayed decode steps) on a Hugging Face
// directory and writes what the script compares with transformers.
//
//   llm_oracle_run --model DIR --prompt FILE --max-length N --out DIR [--dtype fp16|bf16]
//     FILE: the prompt ids as raw little-endian int32.
//     writes OUT/logits.f32 (vocab_size float32: the logits after the prompt, i.e. for the first
//     generated token) and OUT/tokens.i32 (max_length int32: prompt + greedy continuation).
// Exit status 0 on success, 2 on bad arguments or input, 3 on a CUDA error.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <string>
#include <vector>

#include "cudabench/errors.hpp"
#include "cudabench/llm_config.hpp"
#include "workloads/llm/cuda_handles.hpp"
#include "workloads/llm/engine.hpp"

namespace {

template <class T>
void write_raw(const std::string& path, const std::vector<T>& v) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(v.data()), static_cast<std::streamsize>(v.size() * sizeof(T)));
  if (!out) throw cudabench::input_error("cannot write " + path);
}

std::vector<std::int32_t> read_ids(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw cudabench::input_error("cannot read " + path);
  std::vector<std::int32_t> ids;
  std::int32_t v;
  while (in.read(reinterpret_cast<char*>(&v), 4)) ids.push_back(v);
  return ids;
}

int usage() {
  std::fprintf(stderr, "usage: llm_oracle_run --model DIR --prompt FILE --max-length N --out DIR [--dtype fp16|bf16]\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string model, prompt_file, out_dir, dtype = "fp16";
  int max_length = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--model") model = value;
    else if (key == "--prompt") prompt_file = value;
    else if (key == "--max-length") max_length = std::stoi(value);
    else if (key == "--out") out_dir = value;
    else if (key == "--dtype") dtype = value;
    else return usage();
  }
  if (argc % 2 == 0 || model.empty() || prompt_file.empty() || out_dir.empty() || max_length <= 0) return usage();

  using namespace cudabench;
  try {
    const llm_config config = load_llm_config(model);
    const std::vector<std::int32_t> prompt = read_ids(prompt_file);
    llm::generate_shape shape;
    shape.prompt_tokens = static_cast<int>(prompt.size());
    shape.max_length = max_length;
    llm::weight_source source;
    source.from_checkpoint = true;
    source.checkpoint_dir = model;
    auto engine = llm::make_engine(config, llm::dtype_from_string(dtype), shape, source);
    llm::cuda_stream stream;
    engine->set_prompt(prompt);
    engine->prefill(stream.get());
    write_raw(out_dir + "/logits.f32", engine->read_logits(stream.get()));
    engine->decode(shape.decode_steps(), stream.get());
    write_raw(out_dir + "/tokens.i32", engine->read_tokens(stream.get()));
    std::printf("llm_oracle_run: %s (%s): %d prompt tokens -> %d tokens\n", model.c_str(), dtype.c_str(),
                shape.prompt_tokens, max_length);
    return 0;
  } catch (const input_error& e) {
    std::fprintf(stderr, "llm_oracle_run: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llm_oracle_run: %s\n", e.what());
    return 3;
  }
}
