// SHA-256, used to fingerprint suite files (and stored result files, in the history) so a
// comparison can tell whether two runs used the same suite. Computed by OpenSSL's libcrypto (EVP
// API), so the hashing is the system's maintained implementation rather than one of our own.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

// libcrypto's context type, declared here so that callers need no OpenSSL headers.
struct evp_md_ctx_st;

namespace cudabench {

// An incremental hash: update() any number of times, then digest() or hex_digest() once. A failure
// inside libcrypto throws runtime_failure naming the call; using the object after it has finished
// throws std::logic_error.
class sha256 {
 public:
  sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::array<std::uint8_t, 32> digest();  // finishes the hash; call once
  std::string hex_digest();               // lowercase hex of digest()

 private:
  struct context_deleter {
    void operator()(evp_md_ctx_st* ctx) const;
  };
  std::unique_ptr<evp_md_ctx_st, context_deleter> ctx_;
  bool finished_ = false;
};

// Lowercase hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace cudabench
