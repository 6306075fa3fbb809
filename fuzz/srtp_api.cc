// Fuzz target: the drop-in libsrtp2 C API (compat/libsrtp2) driven by a script of calls, in
// the manner of libsrtp's own fuzzer. The input is a sequence of operations on a sending and a
// receiving srtp_t that share keys: create and dealloc with a chosen policy (profile, SSRC
// type, MKIs, window, extension IDs), add, remove and update streams, protect and unprotect
// RTP and RTCP of fuzzed bytes and lengths (MKI choices included), set and get ROCs, trailer
// lengths. Properties: nothing crashes or touches memory outside the packet buffer plus the
// trailer room libsrtp promises; every status is a libsrtp status; a protected packet grows by
// at most SRTP_MAX_TRAILER_LEN (+4 for SRTCP); and whatever the receiver accepts of the
// sender's output is exactly what the sender was given.
#include <algorithm>
#include <cstring>
#include <vector>

#include "fuzz_input.h"
#include "fuzz_target.h"
#include "srtp2/srtp.h"

namespace {

using wireseal::fuzz::FuzzInput;
using wireseal::fuzz::require;

constexpr int kRoom = SRTP_MAX_TRAILER_LEN + 4;

void (*const kProfiles[])(srtp_crypto_policy_t*) = {
    srtp_crypto_policy_set_rtp_default,
    srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32,
    srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80,
    srtp_crypto_policy_set_aes_cm_192_hmac_sha1_32,
    srtp_crypto_policy_set_null_cipher_hmac_sha1_80,
    srtp_crypto_policy_set_aes_gcm_128_16_auth,
    srtp_crypto_policy_set_aes_gcm_256_16_auth,
    srtp_crypto_policy_set_aes_gcm_128_8_auth,    // refused: 8-byte GCM tags
    srtp_crypto_policy_set_aes_cm_128_null_auth,  // refused: no authentication
};

// Keys lives as long as the sessions: the policy points into it.
struct Keys {
  unsigned char key[4][SRTP_MAX_KEY_LEN];
  unsigned char mki[4][8];
  srtp_master_key_t master[4];
  srtp_master_key_t* list[4];
  int ids[3];
};

srtp_policy_t read_policy(FuzzInput& in, Keys& k, bool sender) {
  srtp_policy_t p;
  std::memset(&p, 0, sizeof p);
  const std::size_t profile = in.below(std::size(kProfiles));
  kProfiles[profile](&p.rtp);
  kProfiles[in.flag() ? profile : in.below(std::size(kProfiles))](&p.rtcp);
  const std::uint8_t shape = in.u8();
  switch (shape % 3) {
    case 0:
      p.ssrc.type = sender ? ssrc_any_outbound : ssrc_any_inbound;
      break;
    case 1:
      p.ssrc.type = ssrc_specific;
      p.ssrc.value = in.u8();  // few SSRCs, so they meet
      break;
    default:
      // Any int, as a C caller may store one: undefined and out-of-range types too.
      const int type = in.u8() % 5;
      std::memcpy(&p.ssrc.type, &type, sizeof type);
      p.ssrc.value = in.u8();
  }
  const std::size_t keys = in.below(5);  // 0: policy.key
  const std::size_t mki_len = in.below(9);
  for (int i = 0; i < 4; ++i) {
    std::memset(k.key[i], 0x40 + i, sizeof k.key[i]);
    std::memset(k.mki[i], 0x10 * (i + 1), sizeof k.mki[i]);
    k.master[i] = {k.key[i], k.mki[i], static_cast<unsigned>(mki_len)};
    k.list[i] = &k.master[i];
  }
  if (keys == 0) {
    p.key = k.key[0];
  } else {
    p.keys = k.list;
    p.num_master_keys = keys;
  }
  p.window_size = in.flag() ? 0 : in.u16();
  p.allow_repeat_tx = in.flag() ? 1 : 0;
  const int xtn = static_cast<int>(in.below(4));
  for (int i = 0; i < 3; ++i) {
    k.ids[i] = static_cast<int>(in.u8()) - 8;
  }
  if (xtn > 0) {
    p.enc_xtn_hdr = k.ids;
    p.enc_xtn_hdr_count = xtn;
  }
  return p;
}

bool valid_status(srtp_err_status_t s) {
  return s >= srtp_err_status_ok && s <= srtp_err_status_pkt_idx_adv;
}

// exchange protects fuzzed bytes on the sender and offers the result to the receiver; `twins`
// says the two were made from one policy and nothing has changed either since.
void exchange(FuzzInput& in, srtp_t tx, srtp_t rx, bool rtcp, bool twins) {
  const std::size_t len = in.below(300);
  const std::vector<std::uint8_t> plain = [&] {
    const auto b = in.bytes(len);
    return std::vector<std::uint8_t>(b.begin(), b.end());
  }();
  const unsigned use_mki = in.u8() % 2;
  const unsigned mki_index = in.u8() % 5;
  std::vector<std::uint8_t> buf(plain.size() + kRoom, 0xEE);
  std::copy(plain.begin(), plain.end(), buf.begin());
  int n = static_cast<int>(plain.size());
  const srtp_err_status_t s = rtcp ? srtp_protect_rtcp_mki(tx, buf.data(), &n, use_mki, mki_index)
                                   : srtp_protect_mki(tx, buf.data(), &n, use_mki, mki_index);
  require(valid_status(s), "protect returns a libsrtp status");
  if (s != srtp_err_status_ok) {
    return;
  }
  require(n >= static_cast<int>(plain.size()) && n <= static_cast<int>(plain.size()) + kRoom,
          "a protected packet grows by at most the trailer");
  if (rx == nullptr) {
    return;
  }
  const bool tamper = in.flag();
  if (tamper) {
    buf[in.below(static_cast<std::size_t>(n))] ^= static_cast<std::uint8_t>(1 + in.u8() % 255);
  }
  int m = n;
  const srtp_err_status_t r = rtcp ? srtp_unprotect_rtcp_mki(rx, buf.data(), &m, use_mki)
                                   : srtp_unprotect_mki(rx, buf.data(), &m, use_mki);
  require(valid_status(r), "unprotect returns a libsrtp status");
  if (r == srtp_err_status_ok) {
    require(m <= n, "unprotect never grows a packet");
    if (twins && !tamper && !wireseal::fuzz::kTagsUnchecked) {
      require(m == static_cast<int>(plain.size()) &&
                  std::equal(plain.begin(), plain.end(), buf.begin()),
              "what the receiver accepts is what the sender protected");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  FuzzInput in(data, size);
  static const bool initialised = [] {
    srtp_init();
    return true;
  }();
  static_cast<void>(initialised);
  Keys keys{};
  srtp_t tx = nullptr;
  srtp_t rx = nullptr;
  bool twins = false;
  for (int step = 0; step < 64 && !in.empty(); ++step) {
    const std::size_t op = in.below(13);
    twins = twins && (op >= 5 && op <= 7);  // anything else may make them differ
    switch (op) {
      case 0: {
        srtp_dealloc(tx);
        tx = nullptr;
        const srtp_policy_t p = read_policy(in, keys, true);
        require(valid_status(srtp_create(&tx, &p)), "create");
        break;
      }
      case 12: {
        // Twins: one policy, the sender's template outbound and the receiver's inbound.
        srtp_dealloc(tx);
        srtp_dealloc(rx);
        tx = rx = nullptr;
        srtp_policy_t p = read_policy(in, keys, true);
        const srtp_err_status_t a = srtp_create(&tx, &p);
        int type = 0;
        std::memcpy(&type, &p.ssrc.type, sizeof type);
        if (type == ssrc_any_outbound) {
          p.ssrc.type = ssrc_any_inbound;
        }
        const srtp_err_status_t b = srtp_create(&rx, &p);
        require(valid_status(a) && valid_status(b) &&
                    (a == srtp_err_status_ok) == (b == srtp_err_status_ok),
                "twins are made alike");
        twins = a == srtp_err_status_ok;
        break;
      }
      case 1: {
        srtp_dealloc(rx);
        rx = nullptr;
        const srtp_policy_t p = read_policy(in, keys, false);
        require(valid_status(srtp_create(&rx, &p)), "create");
        break;
      }
      case 2: {
        const srtp_policy_t p = read_policy(in, keys, in.flag());
        require(valid_status(srtp_add_stream(in.flag() ? tx : rx, &p)), "add_stream");
        break;
      }
      case 3: {
        const srtp_policy_t p = read_policy(in, keys, in.flag());
        require(valid_status(srtp_update(in.flag() ? tx : rx, &p)), "update");
        break;
      }
      case 4:
        require(valid_status(srtp_remove_stream(in.flag() ? tx : rx, in.u32())), "remove");
        break;
      case 5:
      case 6:
        if (tx != nullptr) {
          exchange(in, tx, rx, false, twins);
        }
        break;
      case 7:
        if (tx != nullptr) {
          exchange(in, tx, rx, true, twins);
        }
        break;
      case 8:
        require(valid_status(srtp_set_stream_roc(in.flag() ? tx : rx, in.u8(), in.u32())),
                "set_roc");
        break;
      case 9: {
        std::uint32_t roc = 0;
        require(valid_status(srtp_get_stream_roc(in.flag() ? tx : rx, in.u8(), &roc)), "roc");
        break;
      }
      case 10: {
        std::uint32_t len = 0;
        const srtp_t s = in.flag() ? tx : rx;
        const bool rtcp = in.flag();
        const unsigned use = in.u8() % 2;
        const unsigned index = in.u8() % 5;
        const srtp_err_status_t t = rtcp ? srtp_get_protect_rtcp_trailer_length(s, use, index, &len)
                                         : srtp_get_protect_trailer_length(s, use, index, &len);
        require(valid_status(t) && len <= kRoom, "trailer length");
        break;
      }
      default: {
        // Unprotect fuzzed bytes directly (not from the sender).
        const std::size_t len = in.below(300);
        const auto b = in.bytes(len);
        std::vector<std::uint8_t> buf(b.begin(), b.end());
        buf.resize(b.size() + kRoom);
        int n = static_cast<int>(b.size());
        const srtp_err_status_t r = in.flag() ? srtp_unprotect(rx, buf.data(), &n)
                                              : srtp_unprotect_rtcp(rx, buf.data(), &n);
        require(valid_status(r), "unprotect of fuzzed bytes");
        require(r != srtp_err_status_ok || n <= static_cast<int>(b.size()), "no growth");
      }
    }
  }
  srtp_dealloc(tx);
  srtp_dealloc(rx);
  return 0;
}
