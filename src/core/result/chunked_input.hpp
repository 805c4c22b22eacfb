// An input_file as an input iterator over 1 MiB chunks, for nlohmann's sax_parse: a gigabyte
// result file is parsed without holding its text in memory. Private to src/core.
#pragma once
#include <cstddef>
#include <iterator>
#include <vector>

#include "cudabench/input_file.hpp"

namespace cudabench::detail {

class chunked_source {
 public:
  explicit chunked_source(input_file& f) : file_(f), buf_(1 << 20) {}
  bool at_end() { return pos_ >= len_ && !refill(); }
  char current() const { return buf_[pos_]; }
  void advance() { ++pos_; }

 private:
  bool refill() {
    len_ = file_.read(buf_.data(), buf_.size());
    pos_ = 0;
    return len_ > 0;
  }
  input_file& file_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, len_ = 0;
};

// What nlohmann's iterator input adapter needs: *, ++ and != against a default-made end.
class chunk_iterator {
 public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = char;

  chunk_iterator() = default;
  explicit chunk_iterator(chunked_source* s) : src_(s) {}
  char operator*() const { return src_->current(); }
  chunk_iterator& operator++() {
    src_->advance();
    return *this;
  }
  chunk_iterator operator++(int) {
    chunk_iterator old = *this;
    src_->advance();
    return old;
  }
  bool done() const { return src_ == nullptr || src_->at_end(); }
  friend bool operator==(const chunk_iterator& a, const chunk_iterator& b) { return a.done() == b.done(); }
  friend bool operator!=(const chunk_iterator& a, const chunk_iterator& b) { return !(a == b); }

 private:
  chunked_source* src_ = nullptr;
};

}  // namespace cudabench::detail
