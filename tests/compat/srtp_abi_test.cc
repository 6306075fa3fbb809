// The drop-in's srtp.h against the installed libsrtp2-dev header: every struct's size,
// alignment and field offsets, and every enumerator's value, must be libsrtp's, or a program
// built against one and run on the other would read garbage. The checks are static_asserts:
// this file failing to compile is the failure. (The macros both headers define must also be
// token for token the same, or the second definition breaks the build under -Werror.)
#include <gtest/gtest.h>
#include <srtp2/srtp.h>  // the real one, from /usr/include

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace ours {
#define WIRESEAL_COMPAT_SRTP2_TYPES_ONLY
#include WIRESEAL_COMPAT_SRTP_HEADER
#undef WIRESEAL_COMPAT_SRTP2_TYPES_ONLY
}  // namespace ours

namespace {

template <class A, class B>
constexpr bool same_layout = sizeof(A) == sizeof(B) && alignof(A) == alignof(B);

#define WIRESEAL_SAME_FIELD(type, field)                                  \
  static_assert(offsetof(::type, field) == offsetof(ours::type, field) && \
                    sizeof(::type::field) == sizeof(ours::type::field),   \
                #type "." #field)
#define WIRESEAL_SAME_VALUE(name) \
  static_assert(static_cast<long>(::name) == static_cast<long>(ours::name), #name)

static_assert(same_layout<::srtp_crypto_policy_t, ours::srtp_crypto_policy_t>);
WIRESEAL_SAME_FIELD(srtp_crypto_policy_t, cipher_type);
WIRESEAL_SAME_FIELD(srtp_crypto_policy_t, cipher_key_len);
WIRESEAL_SAME_FIELD(srtp_crypto_policy_t, auth_type);
WIRESEAL_SAME_FIELD(srtp_crypto_policy_t, auth_key_len);
WIRESEAL_SAME_FIELD(srtp_crypto_policy_t, auth_tag_len);
WIRESEAL_SAME_FIELD(srtp_crypto_policy_t, sec_serv);

static_assert(same_layout<::srtp_ssrc_t, ours::srtp_ssrc_t>);
WIRESEAL_SAME_FIELD(srtp_ssrc_t, type);
WIRESEAL_SAME_FIELD(srtp_ssrc_t, value);

static_assert(same_layout<::srtp_master_key_t, ours::srtp_master_key_t>);
WIRESEAL_SAME_FIELD(srtp_master_key_t, key);
WIRESEAL_SAME_FIELD(srtp_master_key_t, mki_id);
WIRESEAL_SAME_FIELD(srtp_master_key_t, mki_size);

static_assert(same_layout<::srtp_policy_t, ours::srtp_policy_t>);
WIRESEAL_SAME_FIELD(srtp_policy_t, ssrc);
WIRESEAL_SAME_FIELD(srtp_policy_t, rtp);
WIRESEAL_SAME_FIELD(srtp_policy_t, rtcp);
WIRESEAL_SAME_FIELD(srtp_policy_t, key);
WIRESEAL_SAME_FIELD(srtp_policy_t, keys);
WIRESEAL_SAME_FIELD(srtp_policy_t, num_master_keys);
WIRESEAL_SAME_FIELD(srtp_policy_t, deprecated_ekt);
WIRESEAL_SAME_FIELD(srtp_policy_t, window_size);
WIRESEAL_SAME_FIELD(srtp_policy_t, allow_repeat_tx);
WIRESEAL_SAME_FIELD(srtp_policy_t, enc_xtn_hdr);
WIRESEAL_SAME_FIELD(srtp_policy_t, enc_xtn_hdr_count);
WIRESEAL_SAME_FIELD(srtp_policy_t, next);

static_assert(same_layout<::srtp_event_data_t, ours::srtp_event_data_t>);
WIRESEAL_SAME_FIELD(srtp_event_data_t, session);
WIRESEAL_SAME_FIELD(srtp_event_data_t, ssrc);
WIRESEAL_SAME_FIELD(srtp_event_data_t, event);

static_assert(same_layout<::srtp_err_status_t, ours::srtp_err_status_t>);
static_assert(same_layout<::srtp_sec_serv_t, ours::srtp_sec_serv_t>);
static_assert(same_layout<::srtp_ssrc_type_t, ours::srtp_ssrc_type_t>);
static_assert(same_layout<::srtp_profile_t, ours::srtp_profile_t>);
static_assert(same_layout<::srtp_event_t, ours::srtp_event_t>);
static_assert(same_layout<::srtp_log_level_t, ours::srtp_log_level_t>);

WIRESEAL_SAME_VALUE(srtp_err_status_ok);
WIRESEAL_SAME_VALUE(srtp_err_status_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_bad_param);
WIRESEAL_SAME_VALUE(srtp_err_status_alloc_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_dealloc_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_init_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_terminus);
WIRESEAL_SAME_VALUE(srtp_err_status_auth_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_cipher_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_replay_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_replay_old);
WIRESEAL_SAME_VALUE(srtp_err_status_algo_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_no_such_op);
WIRESEAL_SAME_VALUE(srtp_err_status_no_ctx);
WIRESEAL_SAME_VALUE(srtp_err_status_cant_check);
WIRESEAL_SAME_VALUE(srtp_err_status_key_expired);
WIRESEAL_SAME_VALUE(srtp_err_status_socket_err);
WIRESEAL_SAME_VALUE(srtp_err_status_signal_err);
WIRESEAL_SAME_VALUE(srtp_err_status_nonce_bad);
WIRESEAL_SAME_VALUE(srtp_err_status_read_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_write_fail);
WIRESEAL_SAME_VALUE(srtp_err_status_parse_err);
WIRESEAL_SAME_VALUE(srtp_err_status_encode_err);
WIRESEAL_SAME_VALUE(srtp_err_status_semaphore_err);
WIRESEAL_SAME_VALUE(srtp_err_status_pfkey_err);
WIRESEAL_SAME_VALUE(srtp_err_status_bad_mki);
WIRESEAL_SAME_VALUE(srtp_err_status_pkt_idx_old);
WIRESEAL_SAME_VALUE(srtp_err_status_pkt_idx_adv);
WIRESEAL_SAME_VALUE(sec_serv_none);
WIRESEAL_SAME_VALUE(sec_serv_conf);
WIRESEAL_SAME_VALUE(sec_serv_auth);
WIRESEAL_SAME_VALUE(sec_serv_conf_and_auth);
WIRESEAL_SAME_VALUE(ssrc_undefined);
WIRESEAL_SAME_VALUE(ssrc_specific);
WIRESEAL_SAME_VALUE(ssrc_any_inbound);
WIRESEAL_SAME_VALUE(ssrc_any_outbound);
WIRESEAL_SAME_VALUE(srtp_profile_reserved);
WIRESEAL_SAME_VALUE(srtp_profile_aes128_cm_sha1_80);
WIRESEAL_SAME_VALUE(srtp_profile_aes128_cm_sha1_32);
WIRESEAL_SAME_VALUE(srtp_profile_null_sha1_80);
WIRESEAL_SAME_VALUE(srtp_profile_null_sha1_32);
WIRESEAL_SAME_VALUE(srtp_profile_aead_aes_128_gcm);
WIRESEAL_SAME_VALUE(srtp_profile_aead_aes_256_gcm);
WIRESEAL_SAME_VALUE(event_ssrc_collision);
WIRESEAL_SAME_VALUE(event_key_soft_limit);
WIRESEAL_SAME_VALUE(event_key_hard_limit);
WIRESEAL_SAME_VALUE(event_packet_index_limit);
WIRESEAL_SAME_VALUE(srtp_log_level_error);
WIRESEAL_SAME_VALUE(srtp_log_level_warning);
WIRESEAL_SAME_VALUE(srtp_log_level_info);
WIRESEAL_SAME_VALUE(srtp_log_level_debug);

// The handler types take the same arguments.
static_assert(std::is_same_v<void (*)(::srtp_event_data_t*), ::srtp_event_handler_func_t*>);
static_assert(std::is_same_v<void (*)(ours::srtp_event_data_t*), ours::srtp_event_handler_func_t*>);

TEST(SrtpAbi, TheDropInHeaderHasLibsrtpsLayout) {
  // Everything above is checked by the compiler; this records that the check was built.
  EXPECT_EQ(sizeof(ours::srtp_policy_t), sizeof(::srtp_policy_t));
}

}  // namespace
