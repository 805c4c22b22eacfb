// SHA-256 through OpenSSL's EVP digest API (libcrypto). Every call's return value is checked: a
// failure (an allocation, or a provider configuration without SHA-256) becomes a runtime_failure
// that names the call and OpenSSL's own reason.
#include "sha256.hpp"

#include <stdexcept>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "cudabench/errors.hpp"

namespace cudabench {
namespace {

[[noreturn]] void throw_openssl_error(const char* call) {
  std::string reason;
  // Drain the whole error queue so a later call does not report this failure as its own; the
  // earliest entry is the root cause.
  for (unsigned long code = ERR_get_error(); code != 0; code = ERR_get_error()) {
    char text[256];
    ERR_error_string_n(code, text, sizeof text);
    reason += reason.empty() ? "" : "; ";
    reason += text;
  }
  throw runtime_failure(std::string("SHA-256 (OpenSSL libcrypto): ") + call + " failed" +
                        (reason.empty() ? std::string() : ": " + reason));
}

void require_unfinished(bool finished) {
  if (finished) throw std::logic_error("sha256: the hash was already finished by digest()");
}

}  // namespace

void sha256::context_deleter::operator()(evp_md_ctx_st* ctx) const { EVP_MD_CTX_free(ctx); }

sha256::sha256() : ctx_(EVP_MD_CTX_new()) {
  if (!ctx_) throw_openssl_error("EVP_MD_CTX_new");
  if (EVP_DigestInit_ex(ctx_.get(), EVP_sha256(), nullptr) != 1) throw_openssl_error("EVP_DigestInit_ex(EVP_sha256())");
}

void sha256::update(const void* data, std::size_t size) {
  require_unfinished(finished_);
  if (size == 0) return;  // nothing to hash; `data` may then be null
  if (EVP_DigestUpdate(ctx_.get(), data, size) != 1) throw_openssl_error("EVP_DigestUpdate");
}

std::array<std::uint8_t, 32> sha256::digest() {
  require_unfinished(finished_);
  finished_ = true;
  std::array<std::uint8_t, 32> out{};
  unsigned int length = 0;
  if (EVP_DigestFinal_ex(ctx_.get(), out.data(), &length) != 1) throw_openssl_error("EVP_DigestFinal_ex");
  if (length != out.size())
    throw runtime_failure("SHA-256 (OpenSSL libcrypto): EVP_DigestFinal_ex returned " + std::to_string(length) +
                          " bytes, expected 32");
  return out;
}

std::string sha256::hex_digest() {
  static constexpr char digits[] = "0123456789abcdef";
  std::string hex;
  for (std::uint8_t byte : digest()) {
    hex += digits[byte >> 4];
    hex += digits[byte & 0xf];
  }
  return hex;
}

std::string sha256_hex(std::string_view bytes) {
  sha256 h;
  h.update(bytes);
  return h.hex_digest();
}

}  // namespace cudabench
