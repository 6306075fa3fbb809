// Built when ipsec-mb was not found: the backend reports itself unavailable.
#include <stdexcept>

#include "backend/interfaces.h"

namespace wireseal::crypto::detail {

bool ipsecmb_supports(Primitive /*primitive*/) noexcept { return false; }
std::string_view ipsecmb_architecture() noexcept { return ""; }

std::unique_ptr<AeadImpl> make_ipsecmb_aead(AeadAlgorithm /*algorithm*/, Bytes /*key*/,
                                            std::size_t /*tag_len*/, std::size_t /*nonce_len*/) {
  throw std::invalid_argument("wireseal: built without ipsec-mb");
}

}  // namespace wireseal::crypto::detail
