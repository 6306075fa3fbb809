#include "dtls_flow.h"

#include <tuple>

namespace wireseal::cli {

const char* peer_name(Peer peer) noexcept { return peer == Peer::kClient ? "client" : "server"; }

bool FlowTable::EndpointLess::operator()(const io::UdpEndpoint& a,
                                         const io::UdpEndpoint& b) const noexcept {
  return std::tie(a.address.version, a.address.bytes, a.port) <
         std::tie(b.address.version, b.address.bytes, b.port);
}

bool FlowTable::KeyLess::operator()(
    const std::pair<io::UdpEndpoint, io::UdpEndpoint>& a,
    const std::pair<io::UdpEndpoint, io::UdpEndpoint>& b) const noexcept {
  const EndpointLess less;
  if (less(a.first, b.first)) {
    return true;
  }
  if (less(b.first, a.first)) {
    return false;
  }
  return less(a.second, b.second);
}

std::size_t FlowTable::flow_of(const io::UdpEndpoint& source, const io::UdpEndpoint& destination) {
  const bool ordered = EndpointLess{}(source, destination);
  const auto key =
      ordered ? std::make_pair(source, destination) : std::make_pair(destination, source);
  const auto [it, inserted] = index_.emplace(key, flows_.size());
  if (inserted) {
    flows_.push_back(Flow{source, destination, false});
  }
  return it->second;
}

void FlowTable::set_client(std::size_t index, const io::UdpEndpoint& client) {
  Flow& flow = flows_[index];
  if (!(client == flow.client)) {
    std::swap(flow.client, flow.server);
  }
  flow.roles_known = true;
}

}  // namespace wireseal::cli
