#pragma once
// RTP header protection beyond RFC 3711: RFC 6904 selective header-extension encryption and
// RFC 9335 cryptex (CSRCs and the whole extension body).

#include <cstddef>
#include <cstdint>
#include <span>

#include "keystream.h"
#include "stream_table.h"
#include "wireseal/crypto/aes.h"
#include "wireseal/result.h"
#include "wireseal/srtp/rtp_header.h"

namespace wireseal::srtp::detail {

// apply_rfc6904 XORs the header keystream over the data bytes of every extension element
// whose ID `stream` encrypts (RFC 6904 §4). The element IDs and lengths stay in clear, so the
// same call encrypts and decrypts. The keystream byte used for a data byte is the one at that
// byte's offset from the start of the extension body (RFC 6904 §4.1's mask over the
// extension). Extensions other than one-/two-byte are left alone. kMalformed if an element
// overruns the extension.
Status apply_rfc6904(crypto::AesCtr& ctr, const Iv16& iv, const StreamState& stream,
                     std::span<std::uint8_t> packet, const RtpHeader& header) noexcept;

// rfc6904_well_formed is true when apply_rfc6904 would not fail on `header`'s extension: checked
// before any byte is changed, so a malformed extension leaves the caller's buffer untouched.
bool rfc6904_well_formed(std::span<const std::uint8_t> packet, const RtpHeader& header) noexcept;

// cryptex_profile maps a one-/two-byte extension profile to its cryptex value (0xC0DE /
// 0xC2DE), or 0 when cryptex cannot carry it (other profiles, two-byte appbits != 0).
std::uint16_t cryptex_profile(std::uint16_t profile) noexcept;
// plain_profile maps 0xC0DE / 0xC2DE back to 0xBEDE / 0x1000; 0 for anything else.
std::uint16_t plain_profile(std::uint16_t profile) noexcept;
// cryptex_form is the element encoding of a cryptex profile (kOther if not cryptex).
ExtensionForm cryptex_form(std::uint16_t profile) noexcept;

// cryptex_xor_header applies the AES-CM keystream of a cryptex packet to its CSRC list
// (keystream offset 0) and extension body (offset 4 * CC), in place: RFC 9335 §5.2 encrypts
// CSRCs || extension body || payload as one stream, skipping the 4-byte extension preamble.
// Returns the keystream offset at which the payload continues.
Result<std::size_t> cryptex_xor_header(crypto::AesCtr& ctr, const Iv16& iv,
                                       std::span<std::uint8_t> packet,
                                       const RtpHeader& header) noexcept;

// cryptex_gather / cryptex_scatter rearrange a cryptex header in place for AEAD profiles:
// gather moves the 4-byte extension preamble in front of the CSRC list so that the AAD
// (fixed header || preamble) and the encrypted part (CSRCs || extension body || payload) are
// contiguous; scatter undoes it. Both are no-ops without CSRCs.
void cryptex_gather(std::uint8_t* packet, const RtpHeader& header) noexcept;
void cryptex_scatter(std::uint8_t* packet, const RtpHeader& header) noexcept;

}  // namespace wireseal::srtp::detail
