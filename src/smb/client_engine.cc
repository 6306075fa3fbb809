// ClientEngine: MessageId, credit and in-flight bookkeeping of an SMB2 client (MS-SMB2
// §3.2.4.1.3 MessageId assignment, §3.2.4.1.5 credit charge, §3.2.5.1.4 response matching).
#include "wireseal/smb/client_engine.h"

#include <bit>
#include <limits>

#include "common/create.h"

namespace wireseal::smb {
namespace {

constexpr std::size_t kNoSlot = std::numeric_limits<std::size_t>::max();
constexpr std::uint32_t kSyncProcessId = 0xFEFF;  // what Windows clients put in Reserved

SessionConfig as_client(SessionConfig config) {
  config.role = Role::kClient;
  return config;
}

}  // namespace

ClientEngine::ClientEngine(const SessionConfig& config, std::uint64_t first_message_id,
                           std::uint32_t credits, std::size_t max_in_flight)
    : channel_(as_client(config)),
      slots_(std::bit_ceil(2 * std::max<std::size_t>(max_in_flight, 1))),
      max_in_flight_(std::max<std::size_t>(max_in_flight, 1)),
      next_message_id_(first_message_id),
      credits_(credits) {}

Result<ClientEngine> ClientEngine::create(const SessionConfig& config,
                                          std::uint64_t first_message_id, std::uint32_t credits,
                                          std::size_t max_in_flight) noexcept {
  return wireseal::detail::try_create<ClientEngine>(config, first_message_id, credits,
                                                    max_in_flight);
}

std::size_t ClientEngine::find_slot(std::uint64_t message_id) const noexcept {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t i = static_cast<std::size_t>(message_id) & mask; slots_[i].used;
       i = (i + 1) & mask) {
    if (slots_[i].message_id == message_id) {
      return i;
    }
  }
  return kNoSlot;
}

Result<ClientEngine::Sent> ClientEngine::send_request(const Request& request,
                                                      std::size_t body_len) noexcept {
  const std::uint16_t charge =
      request.credit_charge == 0 ? std::uint16_t{1} : request.credit_charge;
  if (in_flight_ >= max_in_flight_ || credits_ < charge) {
    return Error::kBadState;
  }
  // §3.2.4.1.3: a request consumes `charge` consecutive MessageIds; 0xFFFF...FF is reserved
  // for oplock breaks, so the sequence ends before it.
  if (next_message_id_ > std::numeric_limits<std::uint64_t>::max() - 1 - charge) {
    return Error::kSequenceExhausted;
  }
  Smb2Header h;
  h.credit_charge = request.credit_charge;
  h.command = request.command;
  h.credits = request.credit_request;
  h.flags = request.flags & ~(kFlagServerToRedir | kFlagAsyncCommand);
  h.message_id = next_message_id_;
  h.process_id = kSyncProcessId;
  h.tree_id = request.tree_id;
  const Result<std::span<const std::uint8_t>> frame = channel_.send(h, body_len);
  if (!frame) {
    return frame.error();
  }
  const std::size_t mask = slots_.size() - 1;
  std::size_t i = static_cast<std::size_t>(next_message_id_) & mask;
  while (slots_[i].used) {
    i = (i + 1) & mask;
  }
  slots_[i] = Slot{next_message_id_, true};
  ++in_flight_;
  credits_ -= charge;
  const std::uint64_t id = next_message_id_;
  next_message_id_ += charge;
  return Sent{id, *frame};
}

Result<std::optional<Response>> ClientEngine::poll() noexcept {
  for (;;) {
    const Result<std::optional<Incoming>> in = channel_.receive();
    if (!in) {
      return in.error();
    }
    if (!in->has_value()) {
      return std::optional<Response>{};
    }
    const Incoming& m = **in;
    if (!m.header.is_response()) {
      channel_.counters().dropped.count(Error::kMalformed);
      return Error::kMalformed;
    }
    std::size_t i = find_slot(m.header.message_id);
    if (i == kNoSlot) {
      channel_.counters().dropped.count(Error::kReplay);
      return Error::kReplay;
    }
    const std::uint32_t granted = m.header.credits;
    credits_ = granted > std::numeric_limits<std::uint32_t>::max() - credits_
                   ? std::numeric_limits<std::uint32_t>::max()
                   : credits_ + granted;
    // §3.2.5.1.5: an interim STATUS_PENDING response only grants credits; the final response
    // comes later with the same MessageId.
    if (m.header.status == kStatusPending && m.header.is_async()) {
      continue;
    }
    // Retire the slot with backward-shift deletion so lookups never need tombstones.
    const std::size_t mask = slots_.size() - 1;
    slots_[i].used = false;
    for (std::size_t j = (i + 1) & mask; slots_[j].used; j = (j + 1) & mask) {
      const std::size_t home = static_cast<std::size_t>(slots_[j].message_id) & mask;
      const bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
      if (!stays) {
        slots_[i] = slots_[j];
        slots_[j].used = false;
        i = j;
      }
    }
    --in_flight_;
    return std::optional<Response>{Response{m.header.message_id, m.header, m.body}};
  }
}

}  // namespace wireseal::smb
