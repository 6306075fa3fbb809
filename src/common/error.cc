#include "wireseal/result.h"

namespace wireseal {

const char* to_string(Error error) noexcept {
  switch (error) {
    case Error::kBufferTooSmall:
      return "buffer too small";
    case Error::kAliasing:
      return "input and output partially overlap";
    case Error::kInvalidArgument:
      return "invalid argument";
    case Error::kMalformed:
      return "malformed input";
    case Error::kAuthFailed:
      return "authentication failed";
    case Error::kReplay:
      return "replayed";
    case Error::kSequenceExhausted:
      return "sequence number exhausted";
    case Error::kKeyLimit:
      return "key usage limit reached";
    case Error::kUnsupported:
      return "unsupported";
    case Error::kBadState:
      return "bad state";
    case Error::kWrongContext:
      return "not for this context";
    case Error::kTableFull:
      return "table full";
    case Error::kOutOfMemory:
      return "out of memory";
    case Error::kTimedOut:
      return "timed out";
    case Error::kPeerAlert:
      return "fatal alert from the peer";
    case Error::kPeerRefused:
      return "refused by the peer";
    case Error::kClosed:
      return "connection closed by the peer";
    case Error::kReplayOld:
      return "older than the replay window";
  }
  return "unknown error";
}

}  // namespace wireseal
