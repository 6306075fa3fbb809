/* crypto_types.h — the cipher and authentication function identifiers of libsrtp 2.x's
 * srtp_crypto_policy_t (cipher_type, auth_type), for programs built against wireseal's
 * drop-in libsrtp2. Values are the ones libsrtp 2.5 uses, so policies stay binary-compatible. */
#ifndef WIRESEAL_COMPAT_SRTP2_CRYPTO_TYPES_H
#define WIRESEAL_COMPAT_SRTP2_CRYPTO_TYPES_H

#define SRTP_NULL_CIPHER 0
#define SRTP_AES_ICM_128 1
#define SRTP_AES_ICM_192 4
#define SRTP_AES_ICM_256 5
#define SRTP_AES_GCM_128 6
#define SRTP_AES_GCM_256 7

#define SRTP_NULL_AUTH 0
#define SRTP_HMAC_SHA1 3

#endif
