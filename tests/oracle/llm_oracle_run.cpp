// Oracle helper for tests/oracle/oracle_llm.py and oracle_llm_fp32.py: runs cudabench's LLM
// engine (the llm_decode workload's code path: checkpoint load, prefill, graph-replayed decode
// steps) on a Hugging Face directory and writes what the scripts compare with transformers.
//
//   llm_oracle_run --model DIR --prompt FILE --max-length N --out DIR [--dtype fp16|bf16]
//     FILE: the prompt ids as raw little-endian int32.
//     writes OUT/logits.f32 (vocab_size float32: the logits after the prompt, i.e. for the first
//     generated token) and OUT/tokens.i32 (max_length int32: prompt + greedy continuation).
//   llm_oracle_run --model DIR --cases FILE [--dtype fp16|bf16]
//     the same for many prompts of one model in one process: FILE has one case per line,
//     "PROMPT_FILE MAX_LENGTH OUT_DIR [COUNT]" (paths without spaces): PROMPT_FILE holds COUNT
//     (default 1) prompts of equal length back to back; one engine per case runs them one after
//     the other (set_prompt, prefill, decode: what the workload repeats), and OUT_DIR/logits.f32 and
//     tokens.i32 hold COUNT results back to back.
// Exit status 0 on success, 2 on bad arguments or input, 3 on a CUDA error.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_handles.hpp"
#include "cudabench/llm_config.hpp"
#include "workloads/llm_decode/engine.hpp"

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
  std::fprintf(stderr,
               "usage: llm_oracle_run --model DIR --prompt FILE --max-length N --out DIR [--dtype fp16|bf16]\n"
               "       llm_oracle_run --model DIR --cases FILE [--dtype fp16|bf16]\n");
  return 2;
}

struct run_case {
  std::string prompt_file, out_dir;
  int max_length = 0;
  int count = 1;  // prompts in prompt_file
};

std::vector<run_case> read_cases(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw cudabench::input_error("cannot read " + path);
  std::vector<run_case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::istringstream fields(line);
    run_case c;
    if (!(fields >> c.prompt_file >> c.max_length >> c.out_dir) || c.max_length <= 0)
      throw cudabench::input_error(path + ": expected \"PROMPT_FILE MAX_LENGTH OUT_DIR [COUNT]\", got \"" + line +
                                   "\"");
    if (!(fields >> c.count)) c.count = 1;
    if (c.count <= 0) throw cudabench::input_error(path + ": COUNT must be positive in \"" + line + "\"");
    cases.push_back(c);
  }
  if (cases.empty()) throw cudabench::input_error(path + ": no cases");
  return cases;
}

// One engine for the case's shape (checkpoint load, setup), then per prompt: prefill (logits
// kept), decode to max_length (tokens kept).
void run_one(const cudabench::llm_config& config, const std::string& model, const std::string& dtype,
             const run_case& c) {
  using namespace cudabench;
  const std::vector<std::int32_t> ids = read_ids(c.prompt_file);
  if (ids.empty() || ids.size() % c.count != 0)
    throw input_error(c.prompt_file + ": " + std::to_string(ids.size()) + " ids are not " + std::to_string(c.count) +
                      " prompts of equal length");
  const std::size_t len = ids.size() / c.count;
  llm::generate_shape shape;
  shape.prompt_tokens = static_cast<int>(len);
  shape.max_length = c.max_length;
  llm::weight_source source;
  source.from_checkpoint = true;
  source.checkpoint_dir = model;
  auto engine = llm::make_engine(config, llm::dtype_from_string(dtype), shape, source);
  cuda_stream stream;
  std::vector<float> logits;
  std::vector<std::int32_t> tokens;
  for (int i = 0; i < c.count; ++i) {
    engine->set_prompt(std::vector<std::int32_t>(ids.begin() + i * len, ids.begin() + (i + 1) * len));
    engine->prefill(stream.get());
    const std::vector<float> l = engine->read_logits(stream.get());
    logits.insert(logits.end(), l.begin(), l.end());
    engine->decode(shape.decode_steps(), stream.get());
    const std::vector<std::int32_t> t = engine->read_tokens(stream.get());
    tokens.insert(tokens.end(), t.begin(), t.end());
  }
  write_raw(c.out_dir + "/logits.f32", logits);
  write_raw(c.out_dir + "/tokens.i32", tokens);
  std::printf("llm_oracle_run: %s (%s): %d prompt(s) of %d tokens -> %d tokens\n", model.c_str(), dtype.c_str(),
              c.count, shape.prompt_tokens, c.max_length);
}

}  // namespace

int main(int argc, char** argv) {
  std::string model, prompt_file, out_dir, cases_file, dtype = "fp16";
  int max_length = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string key = argv[i], value = argv[i + 1];
    if (key == "--model") model = value;
    else if (key == "--prompt") prompt_file = value;
    else if (key == "--max-length") max_length = std::stoi(value);
    else if (key == "--out") out_dir = value;
    else if (key == "--cases") cases_file = value;
    else if (key == "--dtype") dtype = value;
    else return usage();
  }
  const bool single = !prompt_file.empty() && !out_dir.empty() && max_length > 0;
  if (argc % 2 == 0 || model.empty() || single == !cases_file.empty()) return usage();

  using namespace cudabench;
  try {
    const llm_config config = load_llm_config(model);
    const std::vector<run_case> cases =
        single ? std::vector<run_case>{{prompt_file, out_dir, max_length}} : read_cases(cases_file);
    for (const run_case& c : cases) run_one(config, model, dtype, c);
    return 0;
  } catch (const input_error& e) {
    std::fprintf(stderr, "llm_oracle_run: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "llm_oracle_run: %s\n", e.what());
    return 3;
  }
}
