#pragma once
// Flow tracking for `wireseal dtls decrypt`: groups UDP datagrams by their 4-tuple (both
// directions in one flow) and remembers which endpoint is the DTLS client.

#include <cstddef>
#include <map>
#include <utility>
#include <vector>

#include "wireseal/io/pcap.h"

namespace wireseal::cli {

enum class Peer : std::uint8_t { kClient, kServer };

// peer_name is "client" or "server"; other_peer the opposite side.
const char* peer_name(Peer peer) noexcept;
inline Peer other_peer(Peer peer) noexcept {
  return peer == Peer::kClient ? Peer::kServer : Peer::kClient;
}

struct Flow {
  io::UdpEndpoint client;  // the ClientHello sender; until one is seen, the first sender
  io::UdpEndpoint server;
  bool roles_known = false;
};

class FlowTable {
 public:
  // flow_of returns the index of the flow of `source`/`destination`, adding a new flow (the
  // source provisionally the client) the first time the 4-tuple appears.
  std::size_t flow_of(const io::UdpEndpoint& source, const io::UdpEndpoint& destination);

  // set_client makes `client` the client of flow `index` (it sent a ClientHello).
  void set_client(std::size_t index, const io::UdpEndpoint& client);

  // sender returns which side of flow `index` sent a datagram from `source`.
  Peer sender(std::size_t index, const io::UdpEndpoint& source) const noexcept {
    return source == flows_[index].client ? Peer::kClient : Peer::kServer;
  }

  const Flow& operator[](std::size_t index) const noexcept { return flows_[index]; }
  std::size_t size() const noexcept { return flows_.size(); }

 private:
  // EndpointLess orders endpoints so both directions of a flow share one map key.
  struct EndpointLess {
    bool operator()(const io::UdpEndpoint& a, const io::UdpEndpoint& b) const noexcept;
  };
  struct KeyLess {
    bool operator()(const std::pair<io::UdpEndpoint, io::UdpEndpoint>& a,
                    const std::pair<io::UdpEndpoint, io::UdpEndpoint>& b) const noexcept;
  };
  std::vector<Flow> flows_;
  std::map<std::pair<io::UdpEndpoint, io::UdpEndpoint>, std::size_t, KeyLess> index_;
};

}  // namespace wireseal::cli
