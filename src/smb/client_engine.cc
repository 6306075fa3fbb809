// ClientEngine: a Connection with one session installed up front.
#include "wireseal/smb/client_engine.h"

#include "common/create.h"

namespace wireseal::smb {
namespace {

Connection connection_with_session(const SessionConfig& config, std::uint64_t first_message_id,
                                   std::uint32_t credits, std::size_t max_in_flight) {
  SessionConfig client = config;
  client.role = Role::kClient;
  Connection connection(ConnectionConfig{.max_message_len = config.max_message_len,
                                         .max_in_flight = std::max<std::size_t>(max_in_flight, 1),
                                         .max_sessions = 1,
                                         .first_message_id = first_message_id,
                                         .credits = credits});
  static_cast<void>(connection.install(SessionSecurity(client)));  // the table is empty
  return connection;
}

}  // namespace

ClientEngine::ClientEngine(const SessionConfig& config, std::uint64_t first_message_id,
                           std::uint32_t credits, std::size_t max_in_flight)
    : connection_(connection_with_session(config, first_message_id, credits, max_in_flight)),
      session_id_(config.session_id) {}

Result<ClientEngine> ClientEngine::create(const SessionConfig& config,
                                          std::uint64_t first_message_id, std::uint32_t credits,
                                          std::size_t max_in_flight) noexcept {
  return wireseal::detail::try_create<ClientEngine>(config, first_message_id, credits,
                                                    max_in_flight);
}

Result<ClientEngine::Sent> ClientEngine::send_request(const Request& request,
                                                      std::size_t body_len) noexcept {
  Request r = request;
  r.session_id = session_id_;
  r.encrypt = false;
  const Result<std::uint64_t> id = connection_.add(r, body_len);
  if (!id) {
    return id.error();
  }
  const Result<std::span<const std::uint8_t>> frame = connection_.flush();
  if (!frame) {
    return frame.error();
  }
  return Sent{*id, *frame};
}

}  // namespace wireseal::smb
