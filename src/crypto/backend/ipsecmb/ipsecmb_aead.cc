// AES-GCM and ChaCha20-Poly1305 through Intel ipsec-mb's direct (non-job) API.
//
// The direct API is stateless apart from the caller's gcm_context_data, which lives on our
// stack, so one process-wide manager (used only for its function pointers) serves every key
// object and every thread. Its architecture is chosen here from wireseal's (possibly masked)
// CPU features rather than by init_mb_mgr_auto, so WIRESEAL_CPU_DISABLE reaches ipsec-mb too.
#include <intel-ipsec-mb.h>

#include <cstring>
#include <stdexcept>

#include "backend/interfaces.h"
#include "common/cpu_features.h"
#include "common/ct.h"

namespace wireseal::crypto::detail {
namespace {

// ManagerPlan is how to set up the manager: alloc_mb_mgr flags and one init_mb_mgr_* call.
struct ManagerPlan {
  void (*init)(IMB_MGR*) = nullptr;  // nullptr: ipsec-mb cannot run with these features
  std::uint64_t flags = 0;
  const char* arch = "";
};

bool has_all(std::uint64_t features, std::uint64_t wanted) noexcept {
  return (features & wanted) == wanted;
}

// plan_manager picks the best architecture that both ipsec-mb's own detection of the real CPU
// (`detected`, by its definitions: "AVX-512" is the whole SKX set) and wireseal's masked
// features allow, in init_mb_mgr_auto's order, so an architecture the CPU lacks is never
// chosen and an unmasked run gets what init_mb_mgr_auto would pick. Every architecture needs
// AES-NI and PCLMULQDQ: the AES emulation that would run without them is not built into
// Debian's ipsec-mb and would not be constant time anyway. ipsec-mb's "type 2" managers use
// VAES, VPCLMULQDQ, GFNI and SHA-NI together, and it has off switches only for SHA-NI and
// GFNI: turning GFNI off keeps a manager on type 1 when VAES or VPCLMULQDQ is masked.
ManagerPlan plan_manager(const cpu::Features& cpu, std::uint64_t detected) noexcept {
  ManagerPlan plan;
  if (!cpu.aesni || !cpu.pclmulqdq || !has_all(detected, IMB_CPUFLAGS_SSE)) {
    return plan;
  }
  plan.flags |= cpu.sha_ni ? 0 : IMB_FLAG_SHANI_OFF;
  plan.flags |= cpu.vaes && cpu.vpclmulqdq ? 0 : IMB_FLAG_GFNI_OFF;
  if (cpu.avx512f && has_all(detected, IMB_CPUFLAGS_AVX512)) {
    plan.init = init_mb_mgr_avx512;
    plan.arch = "avx512";
  } else if (cpu.avx2 && has_all(detected, IMB_CPUFLAGS_AVX2)) {
    plan.init = init_mb_mgr_avx2;
    plan.arch = "avx2";
  } else if (cpu.avx && has_all(detected, IMB_CPUFLAGS_AVX)) {
    plan.init = init_mb_mgr_avx;
    plan.arch = "avx";
  } else {
    plan.init = init_mb_mgr_sse;
    plan.arch = "sse";
  }
  return plan;
}

// manager_type names the variant ipsec-mb set up within `arch`, by the feature sets its
// init_mb_mgr_* functions test (features already reflect the manager's off switches).
const char* manager_type(const char* arch, std::uint64_t features) noexcept {
  const std::string_view a = arch;
  if (a == "avx512") {
    return has_all(features, IMB_CPUFLAGS_AVX512_T2) ? "avx512-t2" : "avx512-t1";
  }
  if (a == "avx2") {
    return has_all(features, IMB_CPUFLAGS_AVX2_T2) ? "avx2-t2" : "avx2-t1";
  }
  if (a == "avx") {
    return has_all(features, IMB_CPUFLAGS_AVX_T2) ? "avx-t2" : "avx-t1";
  }
  if (has_all(features, IMB_CPUFLAGS_SSE_T3)) {
    return "sse-t3";
  }
  return has_all(features, IMB_CPUFLAGS_SSE_T2) ? "sse-t2" : "sse-t1";
}

// Manager is the process-wide manager, or none when ipsec-mb cannot run here (then the
// backend is unavailable rather than calling through unset function pointers).
struct Manager {
  IMB_MGR* mgr = nullptr;
  const char* type = "";
};

Manager make_manager() noexcept {
  const ManagerPlan plan = plan_manager(cpu::features(), imb_get_feature_flags());
  Manager m;
  if (plan.init == nullptr) {
    return m;
  }
  m.mgr = alloc_mb_mgr(plan.flags);
  if (m.mgr == nullptr) {
    return m;
  }
  plan.init(m.mgr);
  if (imb_get_errno(m.mgr) != 0) {  // e.g. its self-test failed: do not use it
    free_mb_mgr(m.mgr);
    m.mgr = nullptr;
    return m;
  }
  m.type = manager_type(plan.arch, m.mgr->features);
  return m;
}

const Manager& process_manager() noexcept {
  static const Manager m = make_manager();
  return m;
}

IMB_MGR* manager() {
  IMB_MGR* const mgr = process_manager().mgr;
  if (mgr == nullptr) {
    throw std::invalid_argument("wireseal: ipsec-mb cannot run with this CPU's features");
  }
  return mgr;
}

class IpsecMbGcm final : public AeadImpl {
 public:
  IpsecMbGcm(Bytes key, std::size_t tag_len)
      : mgr_(manager()), key_len_(key.size()), tag_len_(tag_len) {
    switch (key_len_) {
      case 16:
        IMB_AES128_GCM_PRE(mgr_, key.data(), &key_);
        break;
      case 24:
        IMB_AES192_GCM_PRE(mgr_, key.data(), &key_);
        break;
      default:
        IMB_AES256_GCM_PRE(mgr_, key.data(), &key_);
        break;
    }
  }
  ~IpsecMbGcm() override { secure_wipe(&key_, sizeof(key_)); }

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    gcm_context_data ctx;
    switch (key_len_) {
      case 16:
        IMB_AES128_GCM_ENC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(),
                           aad.data(), aad.size(), tag.data(), tag_len_);
        break;
      case 24:
        IMB_AES192_GCM_ENC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(),
                           aad.data(), aad.size(), tag.data(), tag_len_);
        break;
      default:
        IMB_AES256_GCM_ENC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(),
                           aad.data(), aad.size(), tag.data(), tag_len_);
        break;
    }
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    gcm_context_data ctx;
    std::uint8_t expected[16];
    switch (key_len_) {
      case 16:
        IMB_AES128_GCM_DEC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(),
                           aad.data(), aad.size(), expected, tag_len_);
        break;
      case 24:
        IMB_AES192_GCM_DEC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(),
                           aad.data(), aad.size(), expected, tag_len_);
        break;
      default:
        IMB_AES256_GCM_DEC(mgr_, &key_, &ctx, out.data(), in.data(), in.size(), nonce.data(),
                           aad.data(), aad.size(), expected, tag_len_);
        break;
    }
    return ct_equal(std::span<const std::uint8_t>(expected, tag_len_), tag);
  }

 private:
  IMB_MGR* mgr_;
  std::size_t key_len_;
  std::size_t tag_len_;
  gcm_key_data key_;
};

class IpsecMbChaChaPoly final : public AeadImpl {
 public:
  explicit IpsecMbChaChaPoly(Bytes key) : mgr_(manager()) { std::memcpy(key_, key.data(), 32); }
  ~IpsecMbChaChaPoly() override { secure_wipe(key_, sizeof(key_)); }

  void seal(Bytes nonce, Bytes aad, Bytes in, MutableBytes out,
            MutableBytes tag) noexcept override {
    chacha20_poly1305_context_data ctx;
    IMB_CHACHA20_POLY1305_INIT(mgr_, key_, &ctx, nonce.data(), aad.data(), aad.size());
    IMB_CHACHA20_POLY1305_ENC_UPDATE(mgr_, key_, &ctx, out.data(), in.data(), in.size());
    IMB_CHACHA20_POLY1305_ENC_FINALIZE(mgr_, &ctx, tag.data(), 16);
  }

  bool open(Bytes nonce, Bytes aad, Bytes in, MutableBytes out, Bytes tag) noexcept override {
    chacha20_poly1305_context_data ctx;
    std::uint8_t expected[16];
    IMB_CHACHA20_POLY1305_INIT(mgr_, key_, &ctx, nonce.data(), aad.data(), aad.size());
    IMB_CHACHA20_POLY1305_DEC_UPDATE(mgr_, key_, &ctx, out.data(), in.data(), in.size());
    IMB_CHACHA20_POLY1305_DEC_FINALIZE(mgr_, &ctx, expected, 16);
    return ct_equal(std::span<const std::uint8_t>(expected, 16), tag);
  }

 private:
  IMB_MGR* mgr_;
  // ipsec-mb's AVX2 ChaCha20 loads the key in 32-byte reads starting 16 bytes in: valgrind
  // caught it reading 16 bytes past a 32-byte key. The tail is zero and never used.
  alignas(32) std::uint8_t key_[64] = {};
};

}  // namespace

bool ipsecmb_supports(Primitive primitive) noexcept {
  if (process_manager().mgr == nullptr) {
    return false;
  }
  switch (primitive) {
    case Primitive::kAesGcm:
      return true;  // the manager exists only with AES-NI and PCLMULQDQ
    case Primitive::kChaCha20Poly1305:
      // As since the backend was added: AVX2 CPUs only (ipsec-mb's SSE/AVX ChaCha20 kernels were
      // never measured against OpenSSL).
      return cpu::features().avx2;
    default:
      return false;
  }
}

std::string_view ipsecmb_architecture() noexcept { return process_manager().type; }

std::unique_ptr<AeadImpl> make_ipsecmb_aead(AeadAlgorithm algorithm, Bytes key, std::size_t tag_len,
                                            std::size_t /*nonce_len*/) {
  switch (algorithm) {
    case AeadAlgorithm::kAes128Gcm:
    case AeadAlgorithm::kAes192Gcm:
    case AeadAlgorithm::kAes256Gcm:
      return std::make_unique<IpsecMbGcm>(key, tag_len);
    case AeadAlgorithm::kChaCha20Poly1305:
      return std::make_unique<IpsecMbChaChaPoly>(key);
    default:
      throw std::invalid_argument("wireseal: ipsec-mb backend has no " +
                                  std::string(to_string(algorithm)));
  }
}

}  // namespace wireseal::crypto::detail
