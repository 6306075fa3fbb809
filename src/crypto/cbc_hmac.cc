// mac_then_encrypt and encrypt_then_mac (cbc_hmac.h): the HMAC runs on the native
// single-message path, and each run of whole message blocks that lies in the record goes,
// through a BlockRunHook, to the AES object's stitched kernel together with the matching stretch
// of the CBC encryption. The only ordering rule is the one between the two chains:
//   MAC-then-encrypt hashes the plaintext, so the encryption trails the hash (a step encrypts
//     bytes its own hash block, or an earlier one, has read);
//   encrypt-then-MAC hashes the ciphertext, so the encryption leads it by at least one block
//     of 64 bytes (the first 128 bytes are encrypted before the MAC starts).
#include "wireseal/crypto/cbc_hmac.h"

#include <algorithm>
#include <cstring>
#include <functional>

#include "backend/interfaces.h"
#include "backend/native.h"
#include "hmac_lanes.h"

namespace wireseal::crypto {

namespace detail {

// CbcHmacAccess reaches the AES object's implementation and the Hmac's precomputed chains.
struct CbcHmacAccess {
  static AesModeImpl& aes(AesCbc& cbc) noexcept { return *cbc.impl_; }
  static bool native(const Hmac& hmac) noexcept { return hmac.compress_ != nullptr; }
  static ShaKernels::Compress compress(const Hmac& hmac) noexcept { return hmac.compress_; }
  static void mac(const Hmac& hmac, HmacJob& job, BlockRunHook hook) noexcept {
    const HmacKernels kernels = hmac_kernels(native_sha_kernels(), hmac.hash_);
    if (hmac.hash_ == HashAlgorithm::kSha1) {
      hmac_sha1_one(kernels, hmac.inner_chain_, hmac.outer_chain_, job, hook);
    } else {
      hmac_sha256_one(kernels, hmac.inner_chain_, hmac.outer_chain_, job, hook);
    }
  }
};

}  // namespace detail

namespace {

// CbcCursor is a CBC encryption of `region` in place, advanced in pieces.
struct CbcCursor {
  detail::AesModeImpl& aes;
  std::span<std::uint8_t> region;
  std::size_t done = 0;  // bytes of region encrypted
  alignas(16) std::uint8_t chain[16];

  CbcCursor(detail::AesModeImpl& impl, std::span<const std::uint8_t, 16> iv,
            std::span<std::uint8_t> bytes) noexcept
      : aes(impl), region(bytes) {
    std::memcpy(chain, iv.data(), sizeof(chain));
  }

  // encrypt_to encrypts the region up to byte `end` (a multiple of 16) in one serial run.
  void encrypt_to(std::size_t end) noexcept {
    if (end <= done) {
      return;
    }
    const std::span<std::uint8_t> piece = region.subspan(done, end - done);
    aes.cbc_encrypt(chain, piece, piece);
    std::memcpy(chain, region.data() + end - 16, sizeof(chain));
    done = end;
  }
};

// StitchedMac is the hook's context: the encryption beside the MAC, and which way it leads.
struct StitchedMac {
  CbcCursor cbc;
  HashAlgorithm hash;
  detail::ShaKernels::Compress compress;
  bool encryption_leads;                        // encrypt-then-MAC
  std::span<const std::uint8_t> hashed_region;  // where the runs that may be stitched lie
};

bool inside(std::span<const std::uint8_t> region, const std::uint8_t* p) noexcept {
  return std::less_equal<>{}(region.data(), p) && std::less<>{}(p, region.data() + region.size());
}

// run_blocks is the BlockRunHook: as many of the `count` blocks as the encryption can pair with
// 64-byte steps go through the stitched kernel, the others through the plain compression
// (after the rest of the encryption, when the MAC covers the ciphertext).
void run_blocks(void* context, std::uint32_t* state, const std::uint8_t* blocks,
                std::size_t count) noexcept {
  auto& s = *static_cast<StitchedMac*>(context);
  CbcCursor& cbc = s.cbc;
  if (inside(s.hashed_region, blocks)) {
    const std::size_t steps = std::min(count, (cbc.region.size() - cbc.done) / 64);
    std::uint8_t* at = cbc.region.data() + cbc.done;
    if (steps != 0 &&
        cbc.aes.cbc_encrypt_hashing(cbc.chain, at, at, steps, s.hash, state, blocks)) {
      cbc.done += 64 * steps;
      blocks += 64 * steps;
      count -= steps;
    }
  }
  if (count != 0) {
    if (s.encryption_leads) {
      cbc.encrypt_to(cbc.region.size());
    }
    s.compress(state, blocks, count);
  }
}

bool whole_blocks(std::size_t len) noexcept { return len % kAesBlockSize == 0; }

// stitches: the HMAC runs on the native kernels and has a run to stitch (cbc_hmac_stitches).
// Without one, the two chains run in turn, as OpenSSL's SHA functions hash one or two blocks a
// few ns sooner.
bool stitches(const Hmac& hmac, std::size_t header_len, std::size_t part_len) noexcept {
  return detail::CbcHmacAccess::native(hmac) && cbc_hmac_stitches(header_len, part_len);
}

}  // namespace

Status mac_then_encrypt(const Hmac& hmac, AesCbc& cbc, std::span<const std::uint8_t, 16> iv,
                        std::span<const std::uint8_t> header, std::span<std::uint8_t> body,
                        std::size_t n) noexcept {
  const std::size_t mac_len = hmac.digest_len();
  if (!whole_blocks(body.size()) || n > body.size() || body.size() - n < mac_len) {
    return Error::kInvalidArgument;
  }
  if (!stitches(hmac, header.size(), n)) {
    Hmac::Stream mac = hmac.begin();
    mac.update(header);
    mac.update(body.first(n));
    (void)mac.finish(body.subspan(n, mac_len));
    return cbc.encrypt(iv, body, body);
  }
  StitchedMac s{CbcCursor(detail::CbcHmacAccess::aes(cbc), iv, body), hmac.hash(),
                detail::CbcHmacAccess::compress(hmac), false, body.first(n)};
  HmacJob job{{header, body.first(n), {}}, body.subspan(n, mac_len), {}};
  detail::CbcHmacAccess::mac(hmac, job, {run_blocks, &s});
  s.cbc.encrypt_to(body.size());
  return {};
}

Status encrypt_then_mac(AesCbc& cbc, const Hmac& hmac, std::span<const std::uint8_t> header,
                        std::span<std::uint8_t> iv_and_body, std::span<std::uint8_t> mac) noexcept {
  if (iv_and_body.size() < kAesBlockSize || !whole_blocks(iv_and_body.size()) || mac.empty() ||
      mac.size() > hmac.digest_len()) {
    return Error::kInvalidArgument;
  }
  const std::span<const std::uint8_t, 16> iv = iv_and_body.first<16>();
  const std::span<std::uint8_t> body = iv_and_body.subspan(kAesBlockSize);
  if (!stitches(hmac, header.size(), iv_and_body.size())) {
    (void)cbc.encrypt(iv, body, body);
    Hmac::Stream s = hmac.begin();
    s.update(header);
    s.update(iv_and_body);
    return s.finish(mac);
  }
  StitchedMac s{CbcCursor(detail::CbcHmacAccess::aes(cbc), iv, body), hmac.hash(),
                detail::CbcHmacAccess::compress(hmac), true, iv_and_body};
  // The blocks hashed before the first run reach less than 64 bytes into the body, and a run
  // starts at most 48 bytes into it: 128 bytes ahead keep every hashed block encrypted.
  s.cbc.encrypt_to(std::min<std::size_t>(body.size(), 128));
  HmacJob job{{header, iv_and_body, {}}, mac, {}};
  detail::CbcHmacAccess::mac(hmac, job, {run_blocks, &s});
  return {};
}

}  // namespace wireseal::crypto
