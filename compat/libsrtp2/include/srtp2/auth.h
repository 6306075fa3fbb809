#ifndef WIRESEAL_COMPAT_SRTP2_AUTH_H
#define WIRESEAL_COMPAT_SRTP2_AUTH_H
/* The one crypto-kernel entry point of libsrtp's auth.h that a Debian program calls:
   libwebrtc (inside telegram-desktop) registers its "external HMAC" at start-up and gives up
   on SRTP if that fails. The auth type's layout stays libsrtp's business: the drop-in never
   looks inside it (compat/libsrtp2/README.md says what it does instead). */
#include "srtp2/srtp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct srtp_auth_type_t srtp_auth_type_t; /* NOLINT(modernize-use-using) */

srtp_err_status_t srtp_replace_auth_type(const srtp_auth_type_t* ct, srtp_auth_type_id_t id);

#ifdef __cplusplus
}
#endif

#endif
