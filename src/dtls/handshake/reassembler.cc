// Handshake message reassembly (RFC 6347 §4.2.3) in caller-provided storage.
#include "reassembler.h"

#include <algorithm>

namespace wireseal::dtls::detail {
namespace {

std::size_t bitmap_bytes(std::size_t length) noexcept { return (length + 7) / 8; }

bool has_bit(const std::uint8_t* bits, std::size_t i) noexcept {
  return (bits[i / 8] >> (i % 8) & 1) != 0;
}

}  // namespace

FragmentOutcome HandshakeReassembler::add(const HandshakeFragment& f) noexcept {
  const std::uint16_t ahead = static_cast<std::uint16_t>(f.message_seq - next_seq_);
  if (f.message_seq < next_seq_) {
    return FragmentOutcome::kOld;
  }
  if (ahead >= kSlots) {
    return FragmentOutcome::kBeyondWindow;
  }
  if (f.length > max_message_) {
    return FragmentOutcome::kTooLarge;
  }
  FragmentOutcome refused = FragmentOutcome::kAccepted;
  Slot* s = slot_for(f, refused);
  if (s == nullptr) {
    return refused;
  }
  if (!agrees(*s, f)) {
    return FragmentOutcome::kInconsistent;
  }
  store(*s, f);
  return FragmentOutcome::kAccepted;
}

// slot_for finds the slot of f's message_seq, or claims one and its storage.
HandshakeReassembler::Slot* HandshakeReassembler::slot_for(const HandshakeFragment& f,
                                                           FragmentOutcome& refused) noexcept {
  Slot* free = nullptr;
  for (Slot& s : slots_) {
    if (s.in_use && s.message_seq == f.message_seq) {
      if (s.msg_type != f.msg_type || s.length != f.length) {
        refused = FragmentOutcome::kInconsistent;
        return nullptr;
      }
      return &s;
    }
    if (!s.in_use && free == nullptr) {
      free = &s;
    }
  }
  const std::size_t need = f.length + bitmap_bytes(f.length);
  if (free == nullptr || need > storage_.size() - used_) {
    refused = FragmentOutcome::kNoRoom;
    return nullptr;
  }
  *free = Slot{true, f.msg_type, f.message_seq, f.length, 0, used_};
  std::fill_n(storage_.data() + used_ + f.length, bitmap_bytes(f.length), std::uint8_t{0});
  used_ += need;
  return free;
}

// agrees: every byte of f that s already holds is the same.
bool HandshakeReassembler::agrees(const Slot& s, const HandshakeFragment& f) const noexcept {
  const std::uint8_t* body = storage_.data() + s.at;
  const std::uint8_t* bits = body + s.length;
  for (std::size_t i = 0; i < f.body.size(); ++i) {
    const std::size_t at = f.fragment_offset + i;
    if (has_bit(bits, at) && body[at] != f.body[i]) {
      return false;
    }
  }
  return true;
}

void HandshakeReassembler::store(Slot& s, const HandshakeFragment& f) noexcept {
  std::uint8_t* body = storage_.data() + s.at;
  std::uint8_t* bits = body + s.length;
  for (std::size_t i = 0; i < f.body.size(); ++i) {
    const std::size_t at = f.fragment_offset + i;
    if (!has_bit(bits, at)) {
      body[at] = f.body[i];
      bits[at / 8] = static_cast<std::uint8_t>(bits[at / 8] | 1u << (at % 8));
      ++s.received;
    }
  }
}

std::optional<HandshakeMessage> HandshakeReassembler::ready() const noexcept {
  for (const Slot& s : slots_) {
    if (s.in_use && s.message_seq == next_seq_ && s.received == s.length) {
      return HandshakeMessage{s.msg_type, s.message_seq, storage_.subspan(s.at, s.length)};
    }
  }
  return std::nullopt;
}

void HandshakeReassembler::release() noexcept {
  bool any_left = false;
  for (Slot& s : slots_) {
    if (s.in_use && s.message_seq == next_seq_) {
      s.in_use = false;
    }
    any_left = any_left || s.in_use;
  }
  ++next_seq_;
  if (!any_left) {
    used_ = 0;  // nothing refers to the storage any more
  }
}

}  // namespace wireseal::dtls::detail
