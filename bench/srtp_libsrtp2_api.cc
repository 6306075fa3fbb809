// srtp/libsrtp2api_<profile>_{protect,unprotect}/<impl>/<payload>: the libsrtp 2.x C API
// itself — srtp_create, srtp_protect, srtp_unprotect — on wireseal's drop-in libsrtp2.so.1
// (impl "wireseal", loaded with dlopen, RTLD_LOCAL) beside Debian's libsrtp2 (impl "libsrtp",
// the library this runner links), in the same run, with the same calls: what a program that
// swaps the library underneath gains. One srtp_t per direction with an SSRC-specific stream,
// as bench/srtp_protect.cc's libsrtp rows; unprotect cycles a ring of pre-protected packets
// and re-creates the receiver each lap (amortised over kRing packets).
#include <arpa/inet.h>
#include <dlfcn.h>
#include <srtp2/srtp.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "bench/srtp_fixture.h"
#include "bench/suites.h"

namespace wireseal::bench {
namespace {

using namespace srtp_bench;

// Api is the libsrtp2 entry points a program uses, from one library.
struct Api {
  decltype(&::srtp_init) init;
  decltype(&::srtp_create) create;
  decltype(&::srtp_dealloc) dealloc;
  decltype(&::srtp_protect) protect;
  decltype(&::srtp_unprotect) unprotect;
  decltype(&::srtp_remove_stream) remove_stream;
  decltype(&::srtp_crypto_policy_set_rtp_default) aes128_80;
  decltype(&::srtp_crypto_policy_set_aes_gcm_128_16_auth) gcm128;
};

const Api& real_api() {
  static const Api api{&::srtp_init,
                       &::srtp_create,
                       &::srtp_dealloc,
                       &::srtp_protect,
                       &::srtp_unprotect,
                       &::srtp_remove_stream,
                       &::srtp_crypto_policy_set_rtp_default,
                       &::srtp_crypto_policy_set_aes_gcm_128_16_auth};
  return api;
}

template <class F>
F symbol(void* lib, const char* name) {
  void* f = dlsym(lib, name);
  if (f == nullptr) {
    throw std::runtime_error(std::string("drop-in libsrtp2 lacks ") + name);
  }
  return reinterpret_cast<F>(f);  // NOLINT(cppcoreguidelines-pro-type-reinterpret-cast): dlsym
}

// dropin_api loads the drop-in once (WIRESEAL_LIBSRTP2 overrides the build tree's path).
const Api& dropin_api() {
  static const Api api = [] {
    const char* env = std::getenv("WIRESEAL_LIBSRTP2");
    const char* path = env != nullptr ? env : WIRESEAL_LIBSRTP2_PATH;
    void* lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == nullptr) {
      throw std::runtime_error(std::string("cannot load the drop-in libsrtp2: ") + dlerror());
    }
    Api a{};
    a.init = symbol<decltype(a.init)>(lib, "srtp_init");
    a.create = symbol<decltype(a.create)>(lib, "srtp_create");
    a.dealloc = symbol<decltype(a.dealloc)>(lib, "srtp_dealloc");
    a.protect = symbol<decltype(a.protect)>(lib, "srtp_protect");
    a.unprotect = symbol<decltype(a.unprotect)>(lib, "srtp_unprotect");
    a.remove_stream = symbol<decltype(a.remove_stream)>(lib, "srtp_remove_stream");
    a.aes128_80 = symbol<decltype(a.aes128_80)>(lib, "srtp_crypto_policy_set_rtp_default");
    a.gcm128 = symbol<decltype(a.gcm128)>(lib, "srtp_crypto_policy_set_aes_gcm_128_16_auth");
    a.init();
    return a;
  }();
  return api;
}

// ApiSession is one srtp_t made through `api`, for kSsrc (ssrc_specific) or for whoever
// arrives (ssrc_any_inbound, as a receiver such as srtpdec or aiortc sets it up).
class ApiSession {
 public:
  ApiSession(const Api& api, srtp::Profile p, srtp_ssrc_type_t type = ssrc_specific)
      : api_(&api), profile_(p), type_(type) {
    real_api().init();  // a second srtp_init just says so; the first one matters
    const MasterKeys m(p);
    key_ = m.key;
    key_.insert(key_.end(), m.salt.begin(), m.salt.end());
    create();
  }
  ~ApiSession() { api_->dealloc(ctx_); }
  ApiSession(const ApiSession&) = delete;
  ApiSession& operator=(const ApiSession&) = delete;

  // reset forgets what was received: a template's stream is removed (the next packet makes
  // it again, as for a new sender), a specific one re-created.
  void reset() {
    if (type_ == ssrc_any_inbound) {
      if (api_->remove_stream(ctx_, htonl(kSsrc)) != srtp_err_status_ok) {
        throw std::runtime_error("srtp_remove_stream failed");
      }
      return;
    }
    api_->dealloc(ctx_);
    create();
  }
  std::size_t protect(std::uint8_t* buf, std::size_t len) noexcept {
    int n = static_cast<int>(len);
    return api_->protect(ctx_, buf, &n) == srtp_err_status_ok ? static_cast<std::size_t>(n) : 0;
  }
  std::size_t unprotect(std::uint8_t* buf, std::size_t len) noexcept {
    int n = static_cast<int>(len);
    return api_->unprotect(ctx_, buf, &n) == srtp_err_status_ok ? static_cast<std::size_t>(n) : 0;
  }

 private:
  void create() {
    srtp_policy_t policy;
    std::memset(&policy, 0, sizeof(policy));
    auto set = profile_ == srtp::Profile::kAeadAes128Gcm ? api_->gcm128 : api_->aes128_80;
    set(&policy.rtp);
    set(&policy.rtcp);
    policy.ssrc.type = type_;
    policy.ssrc.value = type_ == ssrc_specific ? kSsrc : 0;
    policy.key = key_.data();
    policy.window_size = 128;
    if (api_->create(&ctx_, &policy) != srtp_err_status_ok) {
      throw std::runtime_error("srtp_create failed");
    }
  }

  const Api* api_;
  srtp::Profile profile_;
  srtp_ssrc_type_t type_;
  Bytes key_;
  srtp_t ctx_ = nullptr;
};

auto api_protect(const Api& api, srtp::Profile p, std::size_t size) {
  auto s = std::make_unique<ApiSession>(api, p);
  Bytes buf = rtp_packet(0, size);
  buf.resize(buf.size() + kRoom);
  std::uint16_t seq = 0;
  return timed(
      [s = std::move(s), buf = std::move(buf), seq, size]() mutable noexcept {
        set_sequence(buf.data(), ++seq);
        return s->protect(buf.data(), 12 + size) != 0;
      },
      size);
}

auto api_unprotect(const Api& api, srtp::Profile p, std::size_t size) {
  // ring_unprotect makes the protecting session first, then the receiver: an inbound template.
  return ring_unprotect(
      [&api, p, made = 0]() mutable {
        return std::make_unique<ApiSession>(api, p, made++ == 0 ? ssrc_specific : ssrc_any_inbound);
      },
      size);
}

constexpr std::size_t kApiSizes[] = {100, 1200, 1400};

}  // namespace

void register_srtp_libsrtp2_api() {
  const ProfileCase cases[] = {{"aes128cm_sha1_80", srtp::Profile::kAes128CmHmacSha1_80},
                               {"aead_aes128gcm", srtp::Profile::kAeadAes128Gcm}};
  for (const ProfileCase& c : cases) {
    const srtp::Profile p = c.profile;
    const std::string name = "libsrtp2api_" + std::string(c.name);
    register_op(
        "srtp", name + "_protect", kWireseal,
        [p](std::size_t s) { return api_protect(dropin_api(), p, s); }, kApiSizes);
    register_op(
        "srtp", name + "_protect", kLibsrtp,
        [p](std::size_t s) { return api_protect(real_api(), p, s); }, kApiSizes);
    register_op(
        "srtp", name + "_unprotect", kWireseal,
        [p](std::size_t s) { return api_unprotect(dropin_api(), p, s); }, kApiSizes);
    register_op(
        "srtp", name + "_unprotect", kLibsrtp,
        [p](std::size_t s) { return api_unprotect(real_api(), p, s); }, kApiSizes);
  }
}

}  // namespace wireseal::bench
