// SHA-256 (FIPS 180-4), used to fingerprint suite files in result files so a comparison can tell
// whether two runs used the same suite. Small and dependency-free; not for anything secret.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace cudabench {

class sha256 {
 public:
  sha256();
  void update(const void* data, std::size_t size);
  void update(std::string_view s) { update(s.data(), s.size()); }
  std::array<std::uint8_t, 32> digest();  // finishes the hash; call once
  std::string hex_digest();               // lowercase hex of digest()

 private:
  void compress(const std::uint8_t* block);
  std::array<std::uint32_t, 8> state_;
  std::array<std::uint8_t, 64> buffer_{};
  std::size_t buffered_ = 0;
  std::uint64_t total_bytes_ = 0;
};

// Lowercase hex SHA-256 of `bytes`.
std::string sha256_hex(std::string_view bytes);

}  // namespace cudabench
