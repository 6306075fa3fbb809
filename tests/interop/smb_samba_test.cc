// The SMB 3.x client against a real Samba smbd on 127.0.0.1 (smbd_server.h): every cipher and
// signing algorithm, every dialect from 3.0, file sizes around the chunk edges, directories,
// renames, deletes; what the server stored is read back from its disk and through smbclient;
// wrong passwords, refused encryption, a killed server, a silent one and a forged byte.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <signal.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "child_process.h"
#include "smbd_server.h"
#include "tcp_relay.h"
#include "wireseal/io/socket.h"
#include "wireseal/smb/client.h"
#include "wireseal/smb/status.h"

namespace wireseal::interop {
namespace {

using Bytes = std::vector<std::uint8_t>;
using smb::Cipher;
using smb::Dialect;
using smb::SigningAlgorithm;

constexpr std::size_t kSizes[] = {0, 1, 65535, (1 << 20) + 1};
constexpr std::size_t k64MiB = 64 << 20;

Bytes random_bytes(std::size_t n, unsigned seed) {
  Bytes b(n);
  std::mt19937_64 rng(seed);
  for (std::size_t i = 0; i < n; i += 8) {
    const std::uint64_t v = rng();
    std::memcpy(b.data() + i, &v, std::min<std::size_t>(8, n - i));
  }
  return b;
}

std::string sha256(std::span<const std::uint8_t> data) {
  unsigned char md[32];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned i = 0; i < len; ++i) {
    hex += "0123456789abcdef"[md[i] >> 4];
    hex += "0123456789abcdef"[md[i] & 15];
  }
  return hex;
}

Bytes read_disk(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

std::string read_text(const std::string& path) {
  const Bytes b = read_disk(path);
  return std::string(b.begin(), b.end());
}

// RecordingTransport is a TcpStream that keeps every frame the client writes, to check what
// went out in clear.
class RecordingTransport final : public smb::Transport {
 public:
  explicit RecordingTransport(io::TcpStream stream) : stream_(std::move(stream)) {}
  Result<std::size_t> read(std::span<std::uint8_t> out) noexcept override {
    return stream_.read(out);
  }
  Status write_all(std::span<const std::uint8_t> data) noexcept override {
    frames.emplace_back(data.begin(), data.end());
    return stream_.write_all(data);
  }
  std::vector<Bytes> frames;

 private:
  io::TcpStream stream_;
};

// A connected client on one share.
struct Session {
  std::unique_ptr<io::TcpStream> stream;
  std::optional<smb::Client> client;
  smb::Tree tree;
};

smb::ClientConfig config_for(const SmbdServer& server) {
  smb::ClientConfig c;
  c.credentials = smb::NtlmCredentials{server.user(), "", server.password(), ""};
  return c;
}

Session connect(const SmbdServer& server, const smb::ClientConfig& config,
                const char* share = "test", std::uint16_t port = 0) {
  Session s;
  s.stream = std::make_unique<io::TcpStream>(
      io::TcpStream::connect_loopback(port != 0 ? port : server.port()));
  s.stream->set_timeout(std::chrono::seconds(20));
  std::uint32_t status = 0;
  Result<smb::Client> client = smb::Client::connect(*s.stream, config, &status);
  if (!client) {
    ADD_FAILURE() << "connect: " << to_string(client.error()) << " status 0x" << std::hex << status;
    return s;
  }
  s.client.emplace(std::move(*client));
  const Result<smb::Tree> tree = s.client->tree_connect(share);
  if (!tree) {
    ADD_FAILURE() << "tree connect: " << to_string(tree.error()) << " status 0x" << std::hex
                  << s.client->last_status();
    s.client.reset();
    return s;
  }
  s.tree = *tree;
  return s;
}

// write_file creates (or truncates) `name` and writes `data` into it.
void write_file(Session& s, const std::string& name, const Bytes& data) {
  const Result<smb::File> f = s.client->open(s.tree, name, smb::OpenMode::kWrite);
  ASSERT_TRUE(f) << to_string(f.error());
  const Result<std::size_t> written = s.client->write(*f, 0, data);
  ASSERT_TRUE(written) << to_string(written.error());
  EXPECT_EQ(*written, data.size());
  ASSERT_TRUE(s.client->close(*f));
}

// put_and_get writes `data` as `name`, checks the server's disk holds exactly it, reads it
// back through the pipelined path (and the compound one when it fits a chunk) and compares.
void put_and_get(Session& s, const SmbdServer& server, const std::string& name, const Bytes& data,
                 bool set_info = true) {
  SCOPED_TRACE(name + " (" + std::to_string(data.size()) + " bytes)");
  smb::Client& c = *s.client;
  const Result<smb::File> w = c.open(s.tree, name, smb::OpenMode::kWrite);
  ASSERT_TRUE(w) << to_string(w.error());
  const Result<std::size_t> written = c.write(*w, 0, data);
  ASSERT_TRUE(written) << to_string(written.error()) << " " << std::hex << c.last_status();
  EXPECT_EQ(*written, data.size());
  ASSERT_TRUE(c.close(*w));
  EXPECT_EQ(sha256(read_disk(server.share_dir() + "/" + name)), sha256(data));

  const Result<smb::File> r = c.open(s.tree, name, smb::OpenMode::kRead);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->size, data.size());
  Bytes back(data.size() + 100);
  const Result<std::size_t> got = c.read(*r, 0, back);
  ASSERT_TRUE(got) << to_string(got.error());
  EXPECT_EQ(*got, data.size());
  back.resize(*got);
  EXPECT_EQ(sha256(back), sha256(data));
  ASSERT_TRUE(c.close(*r));
  if (data.size() <= c.chunk_size()) {
    Bytes small(data.size());
    const Result<std::size_t> n = c.read_small(s.tree, name, small);
    ASSERT_TRUE(n) << to_string(n.error());
    EXPECT_EQ(*n, data.size());
    EXPECT_EQ(small, data);
  }
  const Result<smb::FileStat> st = c.stat(s.tree, name);
  ASSERT_TRUE(st);
  EXPECT_EQ(st->size, data.size());
  if (!set_info) {
    EXPECT_TRUE(c.remove(s.tree, name));
    return;
  }
  // SET_INFO: the size and the last-write time, seen through stat and on the server's disk.
  const Result<smb::File> rw = c.open(s.tree, name, smb::OpenMode::kReadWrite);
  ASSERT_TRUE(rw) << std::hex << c.last_status();
  ASSERT_TRUE(c.truncate(*rw, data.size() / 2 + 3));
  constexpr std::uint64_t kY2k = 125911584000000000;  // 2000-01-01T00:00:00Z as a FILETIME
  ASSERT_TRUE(c.set_times(*rw, kY2k));
  ASSERT_TRUE(c.flush(*rw));
  ASSERT_TRUE(c.close(*rw));
  const Result<smb::FileStat> changed = c.stat(s.tree, name);
  ASSERT_TRUE(changed);
  EXPECT_EQ(changed->size, data.size() / 2 + 3);
  EXPECT_EQ(changed->last_write, kY2k);
  EXPECT_EQ(std::filesystem::file_size(server.share_dir() + "/" + name), data.size() / 2 + 3);
  EXPECT_TRUE(c.remove(s.tree, name));
}

void round_trip_sizes(Session& s, const SmbdServer& server, const std::string& tag) {
  unsigned seed = 1;
  for (const std::size_t n : kSizes) {
    put_and_get(s, server, tag + "-" + std::to_string(n), random_bytes(n, seed++));
  }
}

TEST(SmbSamba, EveryCipherOf311EncryptsAndRoundTrips) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  for (const Cipher cipher :
       {Cipher::kAes128Gcm, Cipher::kAes256Gcm, Cipher::kAes128Ccm, Cipher::kAes256Ccm}) {
    SCOPED_TRACE(smb::to_string(cipher));
    smb::ClientConfig config = config_for(server);
    config.ciphers = {cipher};
    config.encryption = smb::EncryptionPolicy::kRequired;
    Session s = connect(server, config);
    ASSERT_TRUE(s.client);
    EXPECT_EQ(s.client->dialect(), Dialect::kSmb311);
    ASSERT_TRUE(s.client->cipher());
    EXPECT_EQ(*s.client->cipher(), cipher);
    EXPECT_TRUE(s.tree.encrypted);
    round_trip_sizes(s, server, smb::to_string(cipher));
    EXPECT_TRUE(s.client->echo());
    EXPECT_TRUE(s.client->tree_disconnect(s.tree));
    EXPECT_TRUE(s.client->logoff());
    EXPECT_GT(s.client->connection().counters().received, 0u);
    EXPECT_EQ(s.client->connection().counters().dropped.auth, 0u);
  }
}

TEST(SmbSamba, Dialects30And302EncryptWithCcmAfterValidateNegotiate) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  for (const Dialect d : {Dialect::kSmb302, Dialect::kSmb300}) {
    SCOPED_TRACE(static_cast<int>(d));
    smb::ClientConfig config = config_for(server);
    config.dialects = {d};
    Session s = connect(server, config);
    ASSERT_TRUE(s.client);
    EXPECT_EQ(s.client->dialect(), d);
    ASSERT_TRUE(s.client->cipher());
    EXPECT_EQ(*s.client->cipher(), Cipher::kAes128Ccm);
    // The first TREE_CONNECT repeated the NEGOTIATE under signature, and Samba agreed.
    EXPECT_TRUE(s.client->negotiate_validated());
    round_trip_sizes(s, server, "d" + std::to_string(static_cast<int>(d)));
  }
}

TEST(SmbSamba, EverySigningAlgorithmSignsWithoutEncryption) {
  SmbdServer server(SmbdSecurity::kSigningRequired);
  const std::pair<Dialect, SigningAlgorithm> cases[] = {
      {Dialect::kSmb311, SigningAlgorithm::kAesGmac},
      {Dialect::kSmb311, SigningAlgorithm::kAesCmac},
      {Dialect::kSmb311, SigningAlgorithm::kHmacSha256},
      {Dialect::kSmb302, SigningAlgorithm::kAesCmac}};
  for (const auto& c : cases) {
    SCOPED_TRACE(smb::to_string(c.second));
    smb::ClientConfig config = config_for(server);
    config.dialects = {c.first};
    config.signing_algorithms = {c.second};
    config.encryption = smb::EncryptionPolicy::kOff;
    Session s = connect(server, config);
    ASSERT_TRUE(s.client);
    EXPECT_FALSE(s.client->encrypts());
    EXPECT_TRUE(s.client->signs());
    EXPECT_EQ(s.client->signing_algorithm(), c.second);
    round_trip_sizes(s, server, std::string("sig-") + smb::to_string(c.second));
  }
}

TEST(SmbSamba, PlainSessionNeitherSignsNorEncrypts) {
  SmbdServer server(SmbdSecurity::kPlain);
  smb::ClientConfig config = config_for(server);
  config.encryption = smb::EncryptionPolicy::kOff;
  config.chunk_size = 8 << 20;  // Samba's maximum READ/WRITE: 128-credit requests
  config.window = 4;
  Session s = connect(server, config);
  ASSERT_TRUE(s.client);
  EXPECT_FALSE(s.client->encrypts());
  EXPECT_FALSE(s.client->signs());
  EXPECT_EQ(s.client->chunk_size(), 8u << 20);
  round_trip_sizes(s, server, "plain");
  put_and_get(s, server, "plain-64MiB", random_bytes(k64MiB, 99));
}

TEST(SmbSamba, AShareThatDemandsEncryptionIsSealedWhenTheSessionIsNot) {
  SmbdServer server(SmbdSecurity::kSealedShare);
  smb::ClientConfig config = config_for(server);
  config.encryption = smb::EncryptionPolicy::kOff;
  Session open_share = connect(server, config);
  ASSERT_TRUE(open_share.client);
  EXPECT_FALSE(open_share.tree.encrypted);
  Session s = connect(server, config, "sealed");
  ASSERT_TRUE(s.client);
  // The session is not encrypted; the share's flag seals every request on its tree, and
  // Samba refuses any that arrives in clear (STATUS_ACCESS_DENIED).
  EXPECT_FALSE(s.client->encrypts());
  EXPECT_TRUE(s.tree.encrypted);
  put_and_get(s, server, "sealed-file", random_bytes(200000, 5));
}

TEST(SmbSamba, AnonymousAndOptedInGuestSessionsWorkUnprotected) {
  SmbdServer server(SmbdSecurity::kPlain);
  for (const std::string user : {"", "no-such-user"}) {
    SCOPED_TRACE(user.empty() ? "anonymous" : "guest");
    smb::ClientConfig config;
    config.credentials = smb::NtlmCredentials{user, "", user.empty() ? "" : "whatever", ""};
    config.encryption = smb::EncryptionPolicy::kOff;
    // A logon with a user name that Samba maps to guest ("map to guest = Bad User") gets no
    // key: only a caller who opted in takes that. Anonymous asked for no key.
    config.allow_insecure_guest = !user.empty();
    Session s = connect(server, config, "pub");
    ASSERT_TRUE(s.client);
    EXPECT_FALSE(s.client->signs());
    EXPECT_FALSE(s.client->encrypts());
    // (Samba lets the guest create, read, stat and delete, but not reopen for writing.)
    put_and_get(s, server, "guest-" + std::to_string(user.size()), random_bytes(70000, 4), false);
    // Nothing can be required of a session without a key.
    config.encryption = smb::EncryptionPolicy::kRequired;
    io::TcpStream stream = io::TcpStream::connect_loopback(server.port());
    EXPECT_EQ(smb::Client::connect(stream, config).error(), Error::kUnsupported);
  }
}

TEST(SmbSamba, AGuestAnswerToALogonWithAUserNameIsRefusedByDefault) {
  // Samba answers an unknown user with a guest session: without a key nothing proves the
  // NEGOTIATE was not rewritten, and nothing after it is protected, so a client that gave
  // credentials refuses it (a man in the middle could send the same answer).
  SmbdServer server(SmbdSecurity::kPlain);
  for (const smb::EncryptionPolicy policy :
       {smb::EncryptionPolicy::kPreferred, smb::EncryptionPolicy::kOff}) {
    smb::ClientConfig config;
    config.credentials = smb::NtlmCredentials{"no-such-user", "", "whatever", ""};
    config.encryption = policy;
    io::TcpStream stream = io::TcpStream::connect_loopback(server.port());
    stream.set_timeout(std::chrono::seconds(20));
    const Result<smb::Client> client = smb::Client::connect(stream, config);
    ASSERT_FALSE(client) << "a guest session was taken for a user name";
    EXPECT_EQ(client.error(), Error::kAuthFailed);
  }
}

TEST(SmbSamba, SixtyFourMebibytesEncryptedAndThroughSmbclient) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  Session s = connect(server, config_for(server));
  ASSERT_TRUE(s.client);
  const Bytes big = random_bytes(k64MiB, 64);
  put_and_get(s, server, "big", big);
  // What we write, smbclient reads; what smbclient writes, we read.
  const std::string smbclient = find_program("smbclient");
  ASSERT_FALSE(smbclient.empty()) << "smbclient is not installed";
  write_file(s, "ours.bin", big);
  const std::string local = server.dir() + "/fetched.bin";
  const std::string theirs = server.dir() + "/theirs.bin";
  {
    std::ofstream out(theirs, std::ios::binary);
    const Bytes other = random_bytes((3 << 20) + 7, 65);
    out.write(reinterpret_cast<const char*>(other.data()),
              static_cast<std::streamsize>(other.size()));
  }
  ChildProcess client({smbclient, "-s", server.config_path(), "-p", std::to_string(server.port()),
                       "//127.0.0.1/test", "-U", server.user() + "%" + server.password(),
                       "--client-protection=encrypt", "-c",
                       "get ours.bin " + local + "; put " + theirs + " theirs.bin"},
                      server.dir() + "/smbclient.err");
  ASSERT_EQ(client.wait_exit(std::chrono::seconds(60)), 0)
      << client.output() << read_text(server.dir() + "/smbclient.err");
  EXPECT_EQ(sha256(read_disk(local)), sha256(big));
  const Bytes other = read_disk(theirs);
  const Result<smb::File> r = s.client->open(s.tree, "theirs.bin", smb::OpenMode::kRead);
  ASSERT_TRUE(r);
  Bytes back(other.size());
  const Result<std::size_t> n = s.client->read(*r, 0, back);
  ASSERT_TRUE(n);
  EXPECT_EQ(*n, other.size());
  EXPECT_EQ(sha256(back), sha256(other));
}

TEST(SmbSamba, DirectoriesListRenameAndDelete) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  Session s = connect(server, config_for(server));
  ASSERT_TRUE(s.client);
  smb::Client& c = *s.client;
  ASSERT_TRUE(c.mkdir(s.tree, "dir"));
  ASSERT_TRUE(c.mkdir(s.tree, "dir/sub"));
  for (const char* name : {"dir/a.txt", "dir/b.txt"}) {
    write_file(s, name, random_bytes(100, 3));
  }
  auto names = [&] {
    std::vector<std::string> out;
    const auto entries = c.list(s.tree, "dir");
    EXPECT_TRUE(entries);
    for (const smb::DirectoryEntry& e : entries ? *entries : std::vector<smb::DirectoryEntry>{}) {
      out.push_back(e.name + (e.directory ? "/" : ""));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(names(), (std::vector<std::string>{"a.txt", "b.txt", "sub/"}));
  ASSERT_TRUE(c.rename(s.tree, "dir/a.txt", "dir/sub/c.txt"));
  EXPECT_EQ(names(), (std::vector<std::string>{"b.txt", "sub/"}));
  EXPECT_TRUE(std::filesystem::exists(server.share_dir() + "/dir/sub/c.txt"));
  // Renaming onto an existing name without replace is refused with its NTSTATUS.
  EXPECT_EQ(c.rename(s.tree, "dir/b.txt", "dir/sub/c.txt").error(), Error::kPeerRefused);
  EXPECT_STREQ(smb::status_name(c.last_status()), "STATUS_OBJECT_NAME_COLLISION");
  // A directory that is not empty cannot be deleted.
  EXPECT_EQ(c.remove(s.tree, "dir/sub").error(), Error::kPeerRefused);
  EXPECT_STREQ(smb::status_name(c.last_status()), "STATUS_DIRECTORY_NOT_EMPTY");
  ASSERT_TRUE(c.remove(s.tree, "dir/sub/c.txt"));
  ASSERT_TRUE(c.remove(s.tree, "dir/sub"));
  ASSERT_TRUE(c.remove(s.tree, "dir/b.txt"));
  EXPECT_TRUE(names().empty());
  ASSERT_TRUE(c.remove(s.tree, "dir"));
  EXPECT_FALSE(std::filesystem::exists(server.share_dir() + "/dir"));
  EXPECT_EQ(c.open(s.tree, "missing", smb::OpenMode::kRead).error(), Error::kPeerRefused);
  EXPECT_STREQ(smb::status_name(c.last_status()), "STATUS_OBJECT_NAME_NOT_FOUND");
  EXPECT_FALSE(c.failed());  // refusals leave the connection usable
  EXPECT_TRUE(c.echo());
}

TEST(SmbSamba, CreateNewRefusesAnExistingFileAndATemporaryOneGoesOnClose) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  Session s = connect(server, config_for(server));
  ASSERT_TRUE(s.client);
  smb::Client& c = *s.client;
  const Result<smb::File> fresh = c.open(s.tree, "new.bin", smb::OpenMode::kCreateNew);
  ASSERT_TRUE(fresh) << std::hex << c.last_status();
  ASSERT_TRUE(c.close(*fresh));
  EXPECT_EQ(c.open(s.tree, "new.bin", smb::OpenMode::kCreateNew).error(), Error::kPeerRefused);
  EXPECT_STREQ(smb::status_name(c.last_status()), "STATUS_OBJECT_NAME_COLLISION");

  const Result<smb::File> scratch = c.open(s.tree, "scratch.bin", smb::OpenMode::kTemporary);
  ASSERT_TRUE(scratch) << std::hex << c.last_status();
  const Bytes data = random_bytes(300000, 7);
  ASSERT_TRUE(c.write(*scratch, 0, data));
  Bytes back(data.size());
  const Result<std::size_t> got = c.read(*scratch, 0, back);
  ASSERT_TRUE(got);
  EXPECT_EQ(back, data);
  EXPECT_TRUE(std::filesystem::exists(server.share_dir() + "/scratch.bin"));
  ASSERT_TRUE(c.close(*scratch));
  EXPECT_FALSE(std::filesystem::exists(server.share_dir() + "/scratch.bin"));
  EXPECT_TRUE(c.remove(s.tree, "new.bin"));
}

// CountingAuthenticator is the caller's own Authenticator (where Kerberos would plug in): NTLM
// underneath, each call counted.
class CountingAuthenticator final : public smb::Authenticator {
 public:
  explicit CountingAuthenticator(smb::NtlmCredentials c) : ntlm_(std::move(c)) {}
  Result<std::vector<std::uint8_t>> initial_token() override {
    ++calls[0];
    return ntlm_.initial_token();
  }
  Result<std::vector<std::uint8_t>> respond(std::span<const std::uint8_t> token) override {
    ++calls[1];
    return ntlm_.respond(token);
  }
  Status finish(std::span<const std::uint8_t> token) override {
    ++calls[2];
    return ntlm_.finish(token);
  }
  std::span<const std::uint8_t> session_key() const noexcept override {
    return ntlm_.session_key();
  }
  std::array<int, 3> calls{};

 private:
  smb::NtlmClient ntlm_;
};

TEST(SmbSamba, TheCallersAuthenticatorRunsTheSessionSetup) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  CountingAuthenticator auth(smb::NtlmCredentials{server.user(), "", server.password(), ""});
  smb::ClientConfig config;  // no credentials: the authenticator has them
  config.authenticator = &auth;
  Session s = connect(server, config);
  ASSERT_TRUE(s.client);
  EXPECT_EQ(auth.calls, (std::array<int, 3>{1, 1, 1}));
  EXPECT_TRUE(s.client->encrypts());
  EXPECT_TRUE(s.client->echo());
}

TEST(SmbSamba, WrongPasswordIsLogonFailure) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  smb::ClientConfig config = config_for(server);
  config.credentials.password = "not-the-password";
  io::TcpStream stream = io::TcpStream::connect_loopback(server.port());
  std::uint32_t status = 0;
  const Result<smb::Client> client = smb::Client::connect(stream, config, &status);
  ASSERT_FALSE(client);
  EXPECT_EQ(client.error(), Error::kPeerRefused);
  EXPECT_STREQ(smb::status_name(status), "STATUS_LOGON_FAILURE");
}

TEST(SmbSamba, RequiredEncryptionIsRefusedBeforeAnythingGoesOutInClear) {
  // A server that does not encrypt: the client stops after NEGOTIATE.
  SmbdServer server(SmbdSecurity::kPlain);
  smb::ClientConfig config = config_for(server);
  config.encryption = smb::EncryptionPolicy::kRequired;
  RecordingTransport transport(io::TcpStream::connect_loopback(server.port()));
  const Result<smb::Client> client = smb::Client::connect(transport, config);
  ASSERT_FALSE(client);
  EXPECT_EQ(client.error(), Error::kUnsupported);
  ASSERT_EQ(transport.frames.size(), 1u);        // the NEGOTIATE, nothing else
  EXPECT_EQ(transport.frames[0][4 + 12], 0x00);  // Command = NEGOTIATE
}

TEST(SmbSamba, ASigningOnlyServerIsRefusedWhenEncryptionIsRequired) {
  SmbdServer server(SmbdSecurity::kSigningRequired);
  smb::ClientConfig config = config_for(server);
  config.encryption = smb::EncryptionPolicy::kRequired;
  io::TcpStream stream = io::TcpStream::connect_loopback(server.port());
  // The server negotiates no cipher at all: connect itself refuses.
  EXPECT_EQ(smb::Client::connect(stream, config).error(), Error::kUnsupported);
}

TEST(SmbSamba, KilledServerFailsTheTransferQuickly) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  Session s = connect(server, config_for(server));
  ASSERT_TRUE(s.client);
  const Result<smb::File> f = s.client->open(s.tree, "doomed", smb::OpenMode::kWrite);
  ASSERT_TRUE(f);
  const Bytes big = random_bytes(k64MiB, 5);
  struct Killer {
    SmbdServer* server;
    bool done = false;
    static void report(void* context, std::uint64_t) noexcept {
      auto* k = static_cast<Killer*>(context);
      if (!k->done) {
        k->done = true;
        k->server->kill_all();
      }
    }
  } killer{&server};
  const auto start = std::chrono::steady_clock::now();
  const Result<std::size_t> n =
      s.client->write(*f, 0, big, smb::Progress{&Killer::report, &killer});
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(n);  // never reported as written
  EXPECT_TRUE(n.error() == Error::kClosed || n.error() == Error::kBadState) << to_string(n.error());
  EXPECT_LT(took, std::chrono::seconds(5));
  EXPECT_TRUE(s.client->failed());
  EXPECT_EQ(s.client->echo().error(), Error::kBadState);
}

TEST(SmbSamba, SilentServerTimesOut) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  Session s = connect(server, config_for(server));
  ASSERT_TRUE(s.client);
  s.stream->set_timeout(std::chrono::milliseconds(500));
  server.signal_all(SIGSTOP);
  const auto start = std::chrono::steady_clock::now();
  const Status echo = s.client->echo();
  const auto took = std::chrono::steady_clock::now() - start;
  server.signal_all(SIGCONT);
  ASSERT_FALSE(echo);
  EXPECT_EQ(echo.error(), Error::kTimedOut);
  EXPECT_LT(took, std::chrono::seconds(3));
}

TEST(SmbSamba, OneFlippedByteInAnEncryptedResponseIsAnAuthenticationError) {
  SmbdServer server(SmbdSecurity::kEncryptRequired);
  {
    Session setup = connect(server, config_for(server));
    ASSERT_TRUE(setup.client);
    write_file(setup, "victim", random_bytes(4 << 20, 8));
  }
  TcpRelay relay(server.port(), 100000);  // corrupts the first READ response carrying data
  Session s = connect(server, config_for(server), "test", relay.port());
  ASSERT_TRUE(s.client);
  const Result<smb::File> f = s.client->open(s.tree, "victim", smb::OpenMode::kRead);
  ASSERT_TRUE(f);
  Bytes out(4 << 20, 0);
  const Result<std::size_t> n = s.client->read(*f, 0, out);
  EXPECT_TRUE(relay.corrupted());
  ASSERT_FALSE(n);
  EXPECT_EQ(n.error(), Error::kAuthFailed);
  EXPECT_EQ(s.client->connection().counters().dropped.auth, 1u);
  EXPECT_TRUE(s.client->failed());
}

}  // namespace
}  // namespace wireseal::interop
