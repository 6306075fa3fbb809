// Zero allocation on the steady read/write path of the SMB client, against a real smbd: once a
// file is open, pipelined WRITEs and READs of many chunks (signed, sealed or plain) allocate
// nothing — no buffers, no tables, no per-request objects.
#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

#include "smbd_server.h"
#include "support/alloc_counter.h"
#include "wireseal/io/socket.h"
#include "wireseal/smb/client.h"

namespace wireseal::interop {
namespace {

void expect_no_allocations(SmbdSecurity security, smb::EncryptionPolicy encryption) {
  SmbdServer server(security);
  io::TcpStream stream = io::TcpStream::connect_loopback(server.port());
  smb::ClientConfig config;
  config.credentials = smb::NtlmCredentials{server.user(), "", server.password(), ""};
  config.encryption = encryption;
  Result<smb::Client> client = smb::Client::connect(stream, config);
  ASSERT_TRUE(client) << to_string(client.error());
  const Result<smb::Tree> tree = client->tree_connect("test");
  ASSERT_TRUE(tree);
  const Result<smb::File> file = client->open(*tree, "steady", smb::OpenMode::kWrite);
  ASSERT_TRUE(file);
  std::vector<std::uint8_t> data(8 << 20, 0x5A);
  std::vector<std::uint8_t> back(data.size());
  // Warm-up: the first transfer lets lazily built state (OpenSSL's per-thread DRBG, the
  // kernel's socket buffers) settle.
  ASSERT_TRUE(client->write(*file, 0, data));
  ASSERT_TRUE(client->read(*file, 0, back));
  const test::AllocScope scope;
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(client->write(*file, 0, data));
    ASSERT_TRUE(client->read(*file, 0, back));
  }
  const test::AllocStats used = scope.delta();
  EXPECT_EQ(used.count, 0u) << used.bytes << " bytes";
  EXPECT_EQ(back, data);
  EXPECT_TRUE(client->close(*file));
}

TEST(SmbSambaAlloc, EncryptedReadWriteAllocatesNothing) {
  expect_no_allocations(SmbdSecurity::kEncryptRequired, smb::EncryptionPolicy::kRequired);
}

TEST(SmbSambaAlloc, SignedReadWriteAllocatesNothing) {
  expect_no_allocations(SmbdSecurity::kSigningRequired, smb::EncryptionPolicy::kOff);
}

TEST(SmbSambaAlloc, PlainReadWriteAllocatesNothing) {
  expect_no_allocations(SmbdSecurity::kPlain, smb::EncryptionPolicy::kOff);
}

}  // namespace
}  // namespace wireseal::interop
