#pragma once
// NTSTATUS values ([MS-ERREF] §2.3) that SMB servers answer with, by name.

#include <cstdint>

namespace wireseal::smb {

// status_name is the symbolic name of `status` ("STATUS_LOGON_FAILURE"), or nullptr when it is
// not one the client knows (print it in hex then).
const char* status_name(std::uint32_t status) noexcept;

}  // namespace wireseal::smb
