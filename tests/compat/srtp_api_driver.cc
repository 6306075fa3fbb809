// srtp_api_driver: a program written against libsrtp 2.x's own header (Debian's libsrtp2-dev)
// and linked to libsrtp2.so.1 — the real one, or wireseal's drop-in when LD_LIBRARY_PATH puts
// it first. The tests run it both ways and compare what it prints, so the drop-in is judged by
// a program built for the real library, exactly as GStreamer or pylibsrtp use it.
//
//   srtp_api_driver version                    which library was loaded
//   srtp_api_driver probe                      every policy setter, profile, trailer length
//                                              and error code of a scripted set of calls
//   srtp_api_driver protect SCENARIO           protected packets, one hex line each
//   srtp_api_driver unprotect SCENARIO FILE    unprotects FILE's packets, checks each against
//                                              the plaintext, then replays, forgeries, ...
//
// SCENARIO is a profile (aes128_80 aes128_32 aes192_80 aes192_32 aes256_80 aes256_32 null_80
// gcm128 gcm256) followed by options joined with '+': mki (two keys with 4-byte MKIs, the
// second from packet 150), xtn (RFC 6904: header extension elements 1 and 3 encrypted), roc
// (a specific-SSRC stream whose ROC is set to 7, crossing to 8), specific (an SSRC policy
// instead of a template).
#include <arpa/inet.h>
#include <srtp2/srtp.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<std::uint8_t>;

constexpr std::uint32_t kSsrc = 0x11223344;
constexpr int kPackets = 300;
constexpr int kRtcpEvery = 10;
constexpr int kMkiSwitch = 150;
constexpr int kResendBack = 5;  // +repeat: packet i - 5 is sent again after packet i

struct Scenario {
  std::string profile;
  bool mki = false;
  bool xtn = false;
  bool roc = false;
  bool specific = false;
  bool repeat = false;  // allow_repeat_tx, with retransmissions of earlier packets
};

Scenario parse(const std::string& text) {
  Scenario s;
  std::stringstream in(text);
  std::string part;
  std::getline(in, s.profile, '+');
  while (std::getline(in, part, '+')) {
    s.mki |= part == "mki";
    s.xtn |= part == "xtn";
    s.roc |= part == "roc";
    s.specific |= part == "specific" || part == "roc";
    s.repeat |= part == "repeat";
  }
  return s;
}

bool set_profile(const std::string& name, srtp_crypto_policy_t* rtp, srtp_crypto_policy_t* rtcp) {
  struct Row {
    const char* name;
    void (*rtp)(srtp_crypto_policy_t*);
    void (*rtcp)(srtp_crypto_policy_t*);
  };
  static const Row kRows[] = {
      {"aes128_80", srtp_crypto_policy_set_rtp_default, srtp_crypto_policy_set_rtcp_default},
      {"aes128_32", srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32,
       srtp_crypto_policy_set_rtcp_default},
      {"aes192_80", srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80,
       srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80},
      {"aes192_32", srtp_crypto_policy_set_aes_cm_192_hmac_sha1_32,
       srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80},
      {"aes256_80", srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80,
       srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80},
      {"aes256_32", srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32,
       srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80},
      {"null_80", srtp_crypto_policy_set_null_cipher_hmac_sha1_80,
       srtp_crypto_policy_set_null_cipher_hmac_sha1_80},
      {"gcm128", srtp_crypto_policy_set_aes_gcm_128_16_auth,
       srtp_crypto_policy_set_aes_gcm_128_16_auth},
      {"gcm256", srtp_crypto_policy_set_aes_gcm_256_16_auth,
       srtp_crypto_policy_set_aes_gcm_256_16_auth},
  };
  for (const Row& r : kRows) {
    if (name == r.name) {
      r.rtp(rtp);
      r.rtcp(rtcp);
      return true;
    }
  }
  return false;
}

// Keys is the key material of a scenario, kept alive for srtp_create.
struct Keys {
  unsigned char key[2][SRTP_MAX_KEY_LEN];
  unsigned char mki[2][4] = {{0xA1, 0xA2, 0xA3, 0xA4}, {0xB1, 0xB2, 0xB3, 0xB4}};
  srtp_master_key_t master[2];
  srtp_master_key_t* list[2];
  int ids[2] = {1, 3};
};

// make_session builds the scenario's session (`sender`: outbound template, else inbound).
srtp_t make_session(const Scenario& s, bool sender, Keys& k) {
  srtp_policy_t p;
  std::memset(&p, 0, sizeof p);
  if (!set_profile(s.profile, &p.rtp, &p.rtcp)) {
    std::cerr << "unknown profile " << s.profile << "\n";
    return nullptr;
  }
  for (int key = 0; key < 2; ++key) {
    for (int i = 0; i < SRTP_MAX_KEY_LEN; ++i) {
      k.key[key][i] = static_cast<unsigned char>(i * 13 + key * 101 + 7);
    }
    k.master[key] = {k.key[key], k.mki[key], 4};
    k.list[key] = &k.master[key];
  }
  p.key = k.key[0];
  if (s.mki) {
    p.key = nullptr;  // policy.key would win over policy.keys
    p.keys = k.list;
    p.num_master_keys = 2;
  }
  if (s.specific) {
    p.ssrc.type = ssrc_specific;
    p.ssrc.value = kSsrc;
  } else {
    p.ssrc.type = sender ? ssrc_any_outbound : ssrc_any_inbound;
  }
  p.allow_repeat_tx = s.repeat ? 1 : 0;
  if (s.xtn) {
    p.enc_xtn_hdr = k.ids;
    p.enc_xtn_hdr_count = 2;
  }
  srtp_t session = nullptr;
  const srtp_err_status_t st = srtp_create(&session, &p);
  if (st != srtp_err_status_ok) {
    std::cout << "create " << st << "\n";
    return nullptr;
  }
  if (s.roc) {
    std::cout << "set_roc " << srtp_set_stream_roc(session, kSsrc, 7) << "\n";
  }
  return session;
}

std::uint16_t first_seq(const Scenario& s) { return s.roc ? 65400 : 1000; }

Bytes rtp_packet(const Scenario& s, int i) {
  const auto seq = static_cast<std::uint16_t>(first_seq(s) + i);
  const std::uint32_t ts = static_cast<std::uint32_t>(i) * 160;
  Bytes p = {static_cast<std::uint8_t>(s.xtn ? 0x90 : 0x80),
             96,
             static_cast<std::uint8_t>(seq >> 8),
             static_cast<std::uint8_t>(seq),
             static_cast<std::uint8_t>(ts >> 24),
             static_cast<std::uint8_t>(ts >> 16),
             static_cast<std::uint8_t>(ts >> 8),
             static_cast<std::uint8_t>(ts),
             0x11,
             0x22,
             0x33,
             0x44};
  if (s.xtn) {
    // One-byte header extension: id 1 (2 bytes), id 2 (1 byte), id 3 (4 bytes), padding.
    const Bytes ext = {0xBE, 0xDE, 0,    3,    0x11, 0xAA, 0xBB, 0x20,
                       0xCC, 0x33, 0x01, 0x02, 0x03, 0x04, 0,    0};
    p.insert(p.end(), ext.begin(), ext.end());
  }
  const int payload = 20 + (i * 37) % 200;
  for (int j = 0; j < payload; ++j) {
    p.push_back(static_cast<std::uint8_t>(i * 7 + j));
  }
  return p;
}

Bytes rtcp_packet(int n) {
  Bytes p = {0x80, 200, 0, 6, 0x11, 0x22, 0x33, 0x44};
  for (int j = 0; j < 20; ++j) {
    p.push_back(static_cast<std::uint8_t>(n * 3 + j));
  }
  return p;
}

std::string hex(const Bytes& b) {
  static const char* kDigits = "0123456789abcdef";
  std::string s;
  for (const std::uint8_t v : b) {
    s += kDigits[v >> 4];
    s += kDigits[v & 15];
  }
  return s;
}

Bytes unhex(const std::string& s) {
  Bytes b;
  for (std::size_t i = 0; i + 1 < s.size(); i += 2) {
    b.push_back(static_cast<std::uint8_t>(std::stoi(s.substr(i, 2), nullptr, 16)));
  }
  return b;
}

// protect_one protects `plain` as RTP or RTCP; returns the status and the packet.
srtp_err_status_t protect_one(srtp_t session, const Scenario& s, bool rtcp, unsigned key,
                              Bytes& packet) {
  int len = static_cast<int>(packet.size());
  packet.resize(packet.size() + SRTP_MAX_TRAILER_LEN + 4);
  const srtp_err_status_t st =
      rtcp ? srtp_protect_rtcp_mki(session, packet.data(), &len, s.mki ? 1 : 0, key)
           : srtp_protect_mki(session, packet.data(), &len, s.mki ? 1 : 0, key);
  packet.resize(st == srtp_err_status_ok ? static_cast<std::size_t>(len) : 0);
  return st;
}

srtp_err_status_t unprotect_one(srtp_t session, const Scenario& s, bool rtcp, Bytes& packet) {
  int len = static_cast<int>(packet.size());
  const srtp_err_status_t st = rtcp ? srtp_unprotect_rtcp_mki(session, packet.data(), &len, s.mki)
                                    : srtp_unprotect_mki(session, packet.data(), &len, s.mki);
  if (st == srtp_err_status_ok) {
    packet.resize(static_cast<std::size_t>(len));
  }
  return st;
}

int protect_all(const Scenario& s) {
  Keys k;
  srtp_t session = make_session(s, true, k);
  if (session == nullptr) {
    return 1;
  }
  // kPackets to be checked in order, then one fresh packet of each kind for the forgeries.
  for (int i = 0; i <= kPackets; ++i) {
    const unsigned key = s.mki && i >= kMkiSwitch ? 1 : 0;
    Bytes p = rtp_packet(s, i);
    srtp_err_status_t st = protect_one(session, s, false, key, p);
    std::cout << (st == srtp_err_status_ok ? "R " + hex(p) : "E " + std::to_string(st)) << "\n";
    if (i % kRtcpEvery == 0) {
      Bytes c = rtcp_packet(i);
      st = protect_one(session, s, true, key, c);
      std::cout << (st == srtp_err_status_ok ? "C " + hex(c) : "E " + std::to_string(st)) << "\n";
    }
    if (s.repeat && i % kRtcpEvery == kResendBack) {
      // A retransmission (NACK without RTX): the same packet under the same index again.
      Bytes a = rtp_packet(s, i - kResendBack);
      st = protect_one(session, s, false, key, a);
      std::cout << (st == srtp_err_status_ok ? "A " + hex(a) : "E " + std::to_string(st)) << "\n";
    }
  }
  srtp_dealloc(session);
  return 0;
}

int unprotect_all(const Scenario& s, const std::string& file) {
  Keys k;
  srtp_t session = make_session(s, false, k);
  if (session == nullptr) {
    return 1;
  }
  std::ifstream in(file);
  std::vector<Bytes> rtp;
  std::vector<Bytes> rtcp;
  std::vector<Bytes> resent;
  std::string kind;
  std::string data;
  while (in >> kind >> data) {
    if (kind == "R" || kind == "C" || kind == "A") {
      (kind == "R" ? rtp : kind == "C" ? rtcp : resent).push_back(unhex(data));
    }
  }
  if (rtp.size() != kPackets + 1) {
    std::cout << "packets " << rtp.size() << "\n";
    return 1;
  }
  int good = 0;
  int good_rtcp = 0;
  for (int i = 0; i < kPackets; ++i) {
    Bytes p = rtp[static_cast<std::size_t>(i)];
    const srtp_err_status_t st = unprotect_one(session, s, false, p);
    good += st == srtp_err_status_ok && p == rtp_packet(s, i) ? 1 : 0;
    if (i % kRtcpEvery == 0) {
      Bytes c = rtcp[static_cast<std::size_t>(i / kRtcpEvery)];
      good_rtcp +=
          unprotect_one(session, s, true, c) == srtp_err_status_ok && c == rtcp_packet(i) ? 1 : 0;
    }
  }
  std::cout << "rtp ok " << good << "\nrtcp ok " << good_rtcp << "\n";
  int resent_replays = 0;  // replay_fail, or replay_old once behind the window
  for (Bytes& a : resent) {
    const srtp_err_status_t st = unprotect_one(session, s, false, a);
    resent_replays += st == srtp_err_status_replay_fail || st == srtp_err_status_replay_old ? 1 : 0;
  }
  std::cout << "resent " << resent.size() << " replayed " << resent_replays << "\n";
  uint32_t roc = 0;
  std::cout << "get_roc " << srtp_get_stream_roc(session, kSsrc, &roc) << " " << roc << "\n";
  Bytes again = rtp[kPackets - 1];
  std::cout << "replay last " << unprotect_one(session, s, false, again) << "\n";
  Bytes first = rtp[0];
  std::cout << "replay first " << unprotect_one(session, s, false, first) << "\n";
  Bytes rtcp_again = rtcp[rtcp.size() - 2];
  std::cout << "replay rtcp " << unprotect_one(session, s, true, rtcp_again) << "\n";
  Bytes forged = rtp[kPackets];
  forged[forged.size() / 2] ^= 1;
  std::cout << "forged " << unprotect_one(session, s, false, forged) << "\n";
  Bytes forged_rtcp = rtcp.back();
  forged_rtcp[10] ^= 1;
  std::cout << "forged rtcp " << unprotect_one(session, s, true, forged_rtcp) << "\n";
  Bytes other_ssrc = rtp[kPackets];
  other_ssrc[11] ^= 1;
  std::cout << "other ssrc " << unprotect_one(session, s, false, other_ssrc) << "\n";
  Bytes tiny = {0x80, 96, 0, 1, 0};
  std::cout << "tiny " << unprotect_one(session, s, false, tiny) << "\n";
  if (s.mki) {
    Bytes bad_mki = rtp[kPackets];
    const bool gcm = s.profile.rfind("gcm", 0) == 0;
    bad_mki[bad_mki.size() - (gcm ? 1 : 11)] ^= 0xFF;  // the MKI's last byte
    std::cout << "bad mki " << unprotect_one(session, s, false, bad_mki) << "\n";
  }
  Bytes fresh = rtp[kPackets];
  const srtp_err_status_t st = unprotect_one(session, s, false, fresh);
  std::cout << "fresh " << st << " " << (fresh == rtp_packet(s, kPackets)) << "\n";
  std::cout << "remove host order " << srtp_remove_stream(session, kSsrc) << "\n";
  std::cout << "remove " << srtp_remove_stream(session, htonl(kSsrc)) << "\n";
  std::cout << "remove again " << srtp_remove_stream(session, htonl(kSsrc)) << "\n";
  srtp_dealloc(session);
  return 0;
}

void print_policy(const char* name, const srtp_crypto_policy_t& p) {
  std::cout << name << " " << p.cipher_type << " " << p.cipher_key_len << " " << p.auth_type << " "
            << p.auth_key_len << " " << p.auth_tag_len << " " << p.sec_serv << "\n";
}

// probe prints what a program can learn from the API without packets.
int probe() {
  std::cout << "init " << srtp_init() << "\nversion " << std::hex << srtp_get_version() << std::dec
            << "\n";
#define WIRESEAL_PROBE_SETTER(fn)    \
  {                                  \
    srtp_crypto_policy_t p;          \
    std::memset(&p, 0x55, sizeof p); \
    fn(&p);                          \
    print_policy(#fn, p);            \
  }
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_rtp_default)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_rtcp_default)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_cm_128_hmac_sha1_32)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_cm_128_null_auth)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_null_cipher_hmac_sha1_80)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_null_cipher_hmac_null)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_cm_256_hmac_sha1_80)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_cm_256_hmac_sha1_32)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_cm_256_null_auth)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_cm_192_hmac_sha1_80)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_cm_192_hmac_sha1_32)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_cm_192_null_auth)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_gcm_128_8_auth)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_gcm_256_8_auth)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_gcm_128_8_only_auth)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_gcm_256_8_only_auth)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_gcm_128_16_auth)
  WIRESEAL_PROBE_SETTER(srtp_crypto_policy_set_aes_gcm_256_16_auth)
#undef WIRESEAL_PROBE_SETTER
  for (int profile = 0; profile <= 9; ++profile) {
    srtp_crypto_policy_t rtp;
    srtp_crypto_policy_t rtcp;
    std::memset(&rtp, 0, sizeof rtp);
    std::memset(&rtcp, 0, sizeof rtcp);
    const auto pr = static_cast<srtp_profile_t>(profile);
    std::cout << "profile " << profile << " "
              << srtp_crypto_policy_set_from_profile_for_rtp(&rtp, pr) << " "
              << srtp_crypto_policy_set_from_profile_for_rtcp(&rtcp, pr) << " "
              << srtp_profile_get_master_key_length(pr) << " "
              << srtp_profile_get_master_salt_length(pr) << "\n";
    print_policy("  rtp", rtp);
    print_policy("  rtcp", rtcp);
  }
  unsigned char key[46] = {1, 2, 3};
  unsigned char salt[14] = {9, 8, 7};
  srtp_append_salt_to_key(key, 16, salt, 14);
  std::cout << "salted " << int{key[16]} << int{key[17]} << int{key[29]} << "\n";

  // Sessions and their trailers.
  for (const char* name : {"aes128_80", "aes128_32", "gcm128", "null_80"}) {
    for (const bool mki : {false, true}) {
      Scenario s{name, mki, false, false, false};
      Keys k;
      srtp_t session = make_session(s, true, k);
      for (unsigned use = 0; use < 2; ++use) {
        for (unsigned index = 0; index < 3; ++index) {
          uint32_t rtp = 99;
          uint32_t rtcp = 99;
          const srtp_err_status_t a = srtp_get_protect_trailer_length(session, use, index, &rtp);
          const srtp_err_status_t b =
              srtp_get_protect_rtcp_trailer_length(session, use, index, &rtcp);
          std::cout << "trailer " << name << (mki ? "+mki " : " ") << use << " " << index << ": "
                    << a << " " << rtp << " " << b << " " << rtcp << "\n";
        }
      }
      srtp_dealloc(session);
    }
  }

  // Calls that fail, and how.
  Keys k;
  Scenario plain{"aes128_80", false, false, false, true};
  srtp_t session = make_session(plain, true, k);
  srtp_policy_t p;
  std::memset(&p, 0, sizeof p);
  srtp_crypto_policy_set_rtp_default(&p.rtp);
  srtp_crypto_policy_set_rtcp_default(&p.rtcp);
  p.key = k.key[0];
  p.ssrc.type = ssrc_specific;
  p.ssrc.value = 5;
  p.window_size = 10;
  std::cout << "window 10 " << srtp_add_stream(session, &p) << "\n";
  p.window_size = 0x8000;
  std::cout << "window 0x8000 " << srtp_add_stream(session, &p) << "\n";
  p.window_size = 64;
  std::cout << "window 64 " << srtp_add_stream(session, &p) << "\n";
  p.ssrc.type = ssrc_any_outbound;
  std::cout << "template " << srtp_add_stream(session, &p) << "\n";
  std::cout << "template again " << srtp_add_stream(session, &p) << "\n";
  p.ssrc.type = ssrc_undefined;
  std::cout << "undefined ssrc type " << srtp_add_stream(session, &p) << "\n";
  std::cout << "remove unknown " << srtp_remove_stream(session, 77) << "\n";
  std::cout << "remove 5 " << srtp_remove_stream(session, 5) << "\n";
  uint32_t roc = 0;
  std::cout << "get roc unknown " << srtp_get_stream_roc(session, 77, &roc) << "\n";
  std::cout << "set roc unknown " << srtp_set_stream_roc(session, 77, 1) << "\n";
  std::cout << "set roc 3 " << srtp_set_stream_roc(session, kSsrc, 3) << "\n";
  std::cout << "set roc 2 " << srtp_set_stream_roc(session, kSsrc, 2) << "\n";
  std::cout << "get roc " << srtp_get_stream_roc(session, kSsrc, &roc) << " " << roc << "\n";
  Bytes short_rtp = {0x80, 96, 0, 1};
  int len = 4;
  short_rtp.resize(200);
  std::cout << "protect 4 bytes " << srtp_protect(session, short_rtp.data(), &len) << "\n";
  Bytes pkt = rtp_packet(plain, 1);
  pkt.resize(pkt.size() + SRTP_MAX_TRAILER_LEN);
  len = 40;
  std::cout << "unprotect unauthentic " << srtp_unprotect(session, pkt.data(), &len) << "\n";
  std::cout << "user data " << (srtp_get_user_data(session) == nullptr);
  srtp_set_user_data(session, &k);
  std::cout << " " << (srtp_get_user_data(session) == &k) << "\n";
  srtp_dealloc(session);

  srtp_t empty = nullptr;
  std::cout << "create empty " << srtp_create(&empty, nullptr) << "\n";
  len = 40;
  std::cout << "protect no stream " << srtp_protect(empty, pkt.data(), &len) << "\n";
  len = 40;
  std::cout << "unprotect no stream " << srtp_unprotect(empty, pkt.data(), &len) << "\n";
  p.ssrc.type = ssrc_specific;
  p.ssrc.value = 9;
  std::cout << "update missing " << srtp_update_stream(empty, &p) << "\n";
  srtp_dealloc(empty);
  std::cout << "debug srtp " << srtp_set_debug_module("srtp", 0) << "\n";
  std::cout << "debug nonsense " << srtp_set_debug_module("no such module", 1) << "\n";
  std::cout << "shutdown " << srtp_shutdown() << "\n";
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (srtp_init() != srtp_err_status_ok) {
    return 1;
  }
  if (mode == "probe") {
    return probe();
  }
  if (mode == "version") {
    std::cout << srtp_get_version_string() << "\n";
    return 0;
  }
  if (mode == "protect" && argc == 3) {
    return protect_all(parse(argv[2]));
  }
  if (mode == "unprotect" && argc == 4) {
    return unprotect_all(parse(argv[2]), argv[3]);
  }
  std::cerr << "usage: srtp_api_driver probe | protect SCENARIO | unprotect SCENARIO FILE\n";
  return 2;
}
