// `wireseal smb`: an SMB 3.x client on the command line — ls, get, put, rm, mkdir, cat — over the
// library's Client on a TCP socket.
#include <fcntl.h>
#include <fmt/core.h>
#include <sys/stat.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "subcommand.h"
#include "wireseal/io/socket.h"
#include "wireseal/smb/client.h"
#include "wireseal/smb/status.h"

namespace wireseal::cli {
namespace {

// SmbUrl is smb://[DOMAIN;]USER@HOST[:PORT]/SHARE/PATH.
struct SmbUrl {
  std::string domain;
  std::string user;
  std::string host;
  std::uint16_t port = 445;
  std::string share;
  std::string path;  // inside the share, '/' separated, no leading '/'
};

SmbUrl parse_url(const std::string& url) {
  const std::string scheme = "smb://";
  if (url.rfind(scheme, 0) != 0) {
    throw std::invalid_argument("the URL must start with smb://");
  }
  std::string rest = url.substr(scheme.size());
  SmbUrl u;
  if (const auto at = rest.find('@'); at != std::string::npos && at < rest.find('/')) {
    std::string who = rest.substr(0, at);
    rest = rest.substr(at + 1);
    if (const auto semi = who.find(';'); semi != std::string::npos) {
      u.domain = who.substr(0, semi);
      who = who.substr(semi + 1);
    }
    u.user = who;
  }
  const auto slash = rest.find('/');
  std::string hostport = rest.substr(0, slash);
  rest = slash == std::string::npos ? "" : rest.substr(slash + 1);
  if (const auto colon = hostport.rfind(':');
      colon != std::string::npos && hostport.find(']') == std::string::npos) {
    u.port = static_cast<std::uint16_t>(std::stoul(hostport.substr(colon + 1)));
    hostport = hostport.substr(0, colon);
  }
  if (hostport.size() > 2 && hostport.front() == '[' && hostport.back() == ']') {
    hostport = hostport.substr(1, hostport.size() - 2);  // [IPv6]
  }
  u.host = hostport;
  const auto share_end = rest.find('/');
  u.share = rest.substr(0, share_end);
  u.path = share_end == std::string::npos ? "" : rest.substr(share_end + 1);
  while (!u.path.empty() && u.path.back() == '/') {
    u.path.pop_back();
  }
  if (u.host.empty() || u.share.empty()) {
    throw std::invalid_argument("the URL needs a host and a share: smb://USER@HOST/SHARE/PATH");
  }
  return u;
}

struct SmbArgs {
  std::string operation;
  std::string url;
  std::string local;
  std::string password_file;
  std::string encrypt = "preferred";
  std::string cipher;
  std::string sign = "auto";
  std::string dialect;
  std::size_t window = 16;
  std::uint32_t chunk = 1 << 20;
  double timeout_s = 30;
  bool json = false;
  bool progress = true;
  bool allow_insecure_guest = false;
};

std::string read_password(const SmbArgs& a) {
  if (!a.password_file.empty()) {
    std::ifstream in(a.password_file);
    if (!in) {
      throw std::runtime_error("cannot read the password file " + a.password_file);
    }
    std::string line;
    std::getline(in, line);
    return line;
  }
  if (const char* env = std::getenv("WIRESEAL_SMB_PASSWORD"); env != nullptr) {
    return env;
  }
  return {};
}

smb::ClientConfig client_config(const SmbArgs& a, const SmbUrl& u) {
  smb::ClientConfig c;
  c.credentials =
      smb::NtlmCredentials{u.user, u.domain, u.user.empty() ? "" : read_password(a), ""};
  c.server = u.host;
  c.window = a.window;
  c.chunk_size = a.chunk;
  c.encryption = a.encrypt == "required" ? smb::EncryptionPolicy::kRequired
                 : a.encrypt == "off"    ? smb::EncryptionPolicy::kOff
                                         : smb::EncryptionPolicy::kPreferred;
  c.signing = a.sign == "required" ? smb::SigningPolicy::kRequired : smb::SigningPolicy::kAuto;
  c.allow_insecure_guest = a.allow_insecure_guest;
  if (!a.cipher.empty()) {
    const std::pair<const char*, smb::Cipher> names[] = {{"aes-128-gcm", smb::Cipher::kAes128Gcm},
                                                         {"aes-256-gcm", smb::Cipher::kAes256Gcm},
                                                         {"aes-128-ccm", smb::Cipher::kAes128Ccm},
                                                         {"aes-256-ccm", smb::Cipher::kAes256Ccm}};
    for (const auto& [name, cipher] : names) {
      if (a.cipher == name) {
        c.ciphers = {cipher};
      }
    }
  }
  if (!a.dialect.empty()) {
    c.dialects = {a.dialect == "3.0"     ? smb::Dialect::kSmb300
                  : a.dialect == "3.0.2" ? smb::Dialect::kSmb302
                                         : smb::Dialect::kSmb311};
  }
  return c;
}

// describe turns a failed call into a sentence, with the server's NTSTATUS when it refused.
std::string describe(const smb::Client* client, Error e) {
  if (e == Error::kPeerRefused && client != nullptr) {
    const std::uint32_t status = client->last_status();
    const char* name = smb::status_name(status);
    return name != nullptr ? fmt::format("{} (0x{:08x})", name, status)
                           : fmt::format("NTSTATUS 0x{:08x}", status);
  }
  if (e == Error::kUnsupported) {
    return "the server or share does not offer what was required (encryption, signing or the "
           "dialect)";
  }
  return to_string(e);
}

[[noreturn]] void die(const smb::Client* client, const char* what, Error e) {
  throw std::runtime_error(fmt::format("{}: {}", what, describe(client, e)));
}

template <class T>
T must(Result<T> r, const smb::Client* client, const char* what) {
  if (!r) {
    die(client, what, r.error());
  }
  return std::move(*r);
}

void must(Status s, const smb::Client* client, const char* what) {
  if (!s) {
    die(client, what, s.error());
  }
}

// ProgressBar draws "[####    ] 42% 312.4 MB/s" on stderr when it is a terminal.
struct ProgressBar {
  std::uint64_t total = 0;
  std::uint64_t base = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last{};

  static void report(void* context, std::uint64_t done) noexcept {
    auto* bar = static_cast<ProgressBar*>(context);
    const auto now = std::chrono::steady_clock::now();
    if (now - bar->last < std::chrono::milliseconds(100)) {
      return;
    }
    bar->last = now;
    const std::uint64_t all = bar->base + done;
    const double s = std::chrono::duration<double>(now - bar->start).count();
    const int percent =
        bar->total == 0
            ? 100
            : static_cast<int>(100.0 * static_cast<double>(all) / static_cast<double>(bar->total));
    const int filled = percent * 30 / 100;
    std::fprintf(stderr, "\r[%-30s] %3d%% %8.1f MB/s",
                 std::string(static_cast<std::size_t>(filled), '#').c_str(), percent,
                 s > 0 ? static_cast<double>(all) / 1e6 / s : 0.0);
  }
};

// kSegment is how much of a stream (stdin, stdout) is held in memory at once: several windows
// of chunks, so the pipeline drains rarely. Files on disk need no buffer at all (FileEnd).
constexpr std::size_t kSegment = 32 << 20;

struct Transfer {
  std::uint64_t bytes = 0;
  double seconds = 0;
};

// FileEnd is a local file the chunks of a transfer go to or come from, by offset: pwrite and
// pread straight between the file and the SMB messages, no buffer in between.
struct FileEnd {
  int fd;
  static Status consume(void* context, std::uint64_t at,
                        std::span<const std::uint8_t> data) noexcept {
    const int fd = static_cast<FileEnd*>(context)->fd;
    while (!data.empty()) {
      const ssize_t n = ::pwrite(fd, data.data(), data.size(), static_cast<off_t>(at));
      if (n <= 0) {
        return Error::kBadState;
      }
      data = data.subspan(static_cast<std::size_t>(n));
      at += static_cast<std::uint64_t>(n);
    }
    return {};
  }
  static Status produce(void* context, std::uint64_t at, std::span<std::uint8_t> out) noexcept {
    const int fd = static_cast<FileEnd*>(context)->fd;
    while (!out.empty()) {
      const ssize_t n = ::pread(fd, out.data(), out.size(), static_cast<off_t>(at));
      if (n <= 0) {
        return Error::kBadState;  // the file shrank under us, or a read error
      }
      out = out.subspan(static_cast<std::size_t>(n));
      at += static_cast<std::uint64_t>(n);
    }
    return {};
  }
};

smb::Progress progress_of(ProgressBar* bar) {
  return smb::Progress{bar != nullptr ? &ProgressBar::report : nullptr, bar};
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

Transfer get(smb::Client& client, const smb::Tree& tree, const SmbUrl& u, const std::string& local,
             ProgressBar* bar) {
  const auto start = std::chrono::steady_clock::now();
  const smb::FileStat st = must(client.stat(tree, u.path), &client, "stat");
  if (st.directory) {
    throw std::runtime_error(u.path + " is a directory");
  }
  Transfer t;
  if (local == "-") {
    // To stdout: through a buffer, in order. A small file is CREATE + READ + CLOSE in one
    // round trip.
    std::vector<std::uint8_t> buffer(
        static_cast<std::size_t>(std::min<std::uint64_t>(st.size, kSegment)));
    if (st.size <= client.chunk_size()) {
      t.bytes = must(client.read_small(tree, u.path, buffer), &client, "read");
      std::fwrite(buffer.data(), 1, static_cast<std::size_t>(t.bytes), stdout);
    } else {
      const smb::File f = must(client.open(tree, u.path, smb::OpenMode::kRead), &client, "open");
      for (std::size_t n = buffer.size(); n == buffer.size(); t.bytes += n) {
        n = must(client.read(f, t.bytes, buffer), &client, "read");
        std::fwrite(buffer.data(), 1, n, stdout);
      }
      must(client.close(f), &client, "close");
    }
    std::fflush(stdout);
  } else {
    const int fd = ::open(local.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
      throw std::runtime_error("cannot write " + local);
    }
    FileEnd out{fd};
    const smb::File f = must(client.open(tree, u.path, smb::OpenMode::kRead), &client, "open");
    if (bar != nullptr) {
      bar->total = f.size;
    }
    // Ask for the size seen at open; a file that grew is read to its end in further rounds.
    for (std::uint64_t want = std::max<std::uint64_t>(f.size, 1);; want = kSegment) {
      const std::uint64_t n =
          must(client.read_to(f, t.bytes, want, smb::ReadSink{&FileEnd::consume, &out},
                              progress_of(bar)),
               &client, "read");
      t.bytes += n;
      if (bar != nullptr) {
        bar->base = t.bytes;
      }
      if (n < want) {
        break;
      }
    }
    must(client.close(f), &client, "close");
    if (::close(fd) != 0) {
      throw std::runtime_error("cannot write " + local);
    }
  }
  t.seconds = seconds_since(start);
  return t;
}

Transfer put(smb::Client& client, const smb::Tree& tree, const SmbUrl& u, const std::string& local,
             ProgressBar* bar) {
  const auto start = std::chrono::steady_clock::now();
  const smb::File f = must(client.open(tree, u.path, smb::OpenMode::kWrite), &client, "create");
  Transfer t;
  if (local == "-") {
    std::vector<std::uint8_t> buffer(kSegment);
    for (std::size_t n = buffer.size(); n == buffer.size(); t.bytes += n) {
      n = std::fread(buffer.data(), 1, buffer.size(), stdin);
      must(client.write(f, t.bytes, std::span(buffer).first(n)), &client, "write");
    }
  } else {
    const int fd = ::open(local.c_str(), O_RDONLY | O_CLOEXEC);
    struct stat st {};
    if (fd < 0 || ::fstat(fd, &st) != 0) {
      throw std::runtime_error("cannot read " + local);
    }
    if (bar != nullptr) {
      bar->total = static_cast<std::uint64_t>(st.st_size);
    }
    FileEnd in{fd};
    t.bytes = must(client.write_from(f, 0, static_cast<std::uint64_t>(st.st_size),
                                     smb::WriteSource{&FileEnd::produce, &in}, progress_of(bar)),
                   &client, "write");
    ::close(fd);
  }
  must(client.close(f), &client, "close");
  t.seconds = seconds_since(start);
  return t;
}

// session_setup_failure says why connect failed: the server's NTSTATUS when it refused; for
// a logon with a user name, kAuthFailed may be a guest answer the client would not take.
std::string session_setup_failure(Error e, std::uint32_t refused_with, const std::string& user) {
  if (e == Error::kPeerRefused) {
    const char* name = smb::status_name(refused_with);
    return fmt::format("{} (0x{:08x})", name != nullptr ? name : "NTSTATUS", refused_with);
  }
  if (e == Error::kAuthFailed && !user.empty()) {
    return fmt::format(
        "{}: the server refused the credentials, or answered with a guest session, which "
        "nothing protects and a man in the middle can forge (--allow-insecure-guest takes it)",
        to_string(e));
  }
  return describe(nullptr, e);
}

int run(const SmbArgs& a) {
  const SmbUrl u = parse_url(a.url);
  const smb::ClientConfig config = client_config(a, u);
  io::TcpStream stream = io::TcpStream::connect(u.host, u.port);
  stream.set_timeout(std::chrono::milliseconds(static_cast<long>(a.timeout_s * 1000)));
  std::uint32_t refused_with = 0;
  Result<smb::Client> connected = smb::Client::connect(stream, config, &refused_with);
  if (!connected) {
    throw std::runtime_error("session setup: " +
                             session_setup_failure(connected.error(), refused_with, u.user));
  }
  smb::Client client = std::move(*connected);
  const smb::Tree tree = must(client.tree_connect(u.share), &client, "tree connect");
  std::optional<Transfer> transfer;
  std::unique_ptr<ProgressBar> bar;
  if (a.progress && !a.json && isatty(STDERR_FILENO) != 0 &&
      (a.operation == "get" || a.operation == "put")) {
    bar = std::make_unique<ProgressBar>();
  }
  const std::string base = u.path.substr(u.path.rfind('/') + 1);
  const std::string local = a.local.empty() ? base : a.local;
  if (a.operation == "ls") {
    const auto entries = must(client.list(tree, u.path), &client, "list");
    if (!a.json) {
      for (const smb::DirectoryEntry& e : entries) {
        fmt::print("{}{:>14} {}\n", e.directory ? "d" : "-", e.size, e.name);
      }
    } else {
      nlohmann::json list = nlohmann::json::array();
      for (const smb::DirectoryEntry& e : entries) {
        list.push_back({{"name", e.name}, {"size", e.size}, {"directory", e.directory}});
      }
      fmt::print("{}\n", nlohmann::json{{"entries", list}}.dump());
    }
  } else if (a.operation == "get" || a.operation == "cat") {
    transfer = get(client, tree, u, a.operation == "cat" ? "-" : local, bar.get());
  } else if (a.operation == "put") {
    if (a.local.empty()) {
      throw std::invalid_argument("put needs the LOCAL file to send");
    }
    transfer = put(client, tree, u, a.local, bar.get());
  } else if (a.operation == "rm") {
    must(client.remove(tree, u.path), &client, "remove");
  } else if (a.operation == "mkdir") {
    must(client.mkdir(tree, u.path), &client, "mkdir");
  }
  if (bar != nullptr) {
    std::fprintf(stderr, "\n");
  }
  static_cast<void>(client.tree_disconnect(tree));
  static_cast<void>(client.logoff());
  if (a.json && a.operation != "ls") {
    const double seconds = transfer ? transfer->seconds : 0;
    const std::uint64_t bytes = transfer ? transfer->bytes : 0;
    const nlohmann::json j = {
        {"operation", a.operation},
        {"bytes", bytes},
        {"seconds", seconds},
        {"mb_per_s", seconds > 0 ? static_cast<double>(bytes) / 1e6 / seconds : 0.0},
        {"dialect", fmt::format("{:x}.{:x}.{:x}", static_cast<unsigned>(client.dialect()) >> 8,
                                (static_cast<unsigned>(client.dialect()) >> 4) & 0xF,
                                static_cast<unsigned>(client.dialect()) & 0xF)},
        {"cipher", client.cipher() ? smb::to_string(*client.cipher()) : "none"},
        {"signing", client.signs()      ? smb::to_string(client.signing_algorithm())
                    : client.encrypts() ? "none (encrypted)"
                                        : "none"}};
    std::fprintf(a.operation == "cat" ? stderr : stdout, "%s\n", j.dump().c_str());
  }
  return 0;
}

}  // namespace

Run set_up_smb(CLI::App& command) {
  auto a = std::make_shared<SmbArgs>();
  command.add_option("operation", a->operation, "ls, get, put, rm, mkdir or cat")
      ->required()
      ->check(CLI::IsMember({"ls", "get", "put", "rm", "mkdir", "cat"}));
  command.add_option("url", a->url, "smb://[DOMAIN;]USER@HOST[:PORT]/SHARE/PATH")->required();
  command.add_option("local", a->local, "The local file (get: where to write, put: what to send)");
  command.add_option("--password-file", a->password_file,
                     "Read the password from the first line of this file (else from "
                     "WIRESEAL_SMB_PASSWORD; never from the command line)");
  command.add_option("--encrypt", a->encrypt, "required, preferred (default) or off")
      ->check(CLI::IsMember({"required", "preferred", "off"}));
  command.add_option("--cipher", a->cipher, "Offer only this cipher")
      ->check(CLI::IsMember({"aes-128-gcm", "aes-256-gcm", "aes-128-ccm", "aes-256-ccm"}));
  command.add_option("--sign", a->sign, "auto (when the server asks) or required")
      ->check(CLI::IsMember({"auto", "required"}));
  command.add_option("--dialect", a->dialect, "Offer only this dialect")
      ->check(CLI::IsMember({"3.1.1", "3.0.2", "3.0"}));
  command.add_option("--window", a->window, "READ/WRITE requests in flight (default 16)")
      ->check(CLI::Range(1, 64));
  command.add_option("--chunk", a->chunk, "Bytes per READ/WRITE request (default 1 MiB)")
      ->check(CLI::Range(4096, 8 << 20));
  command.add_option("--timeout", a->timeout_s, "Seconds to wait for the server (default 30)");
  command.add_flag("--json", a->json, "Print a machine-readable summary");
  command.add_flag("--allow-insecure-guest", a->allow_insecure_guest,
                   "Take a guest session when the server maps the user to guest: unsigned and "
                   "unencrypted, and forgeable by a man in the middle");
  command.footer(
      "Examples:\n"
      "  WIRESEAL_SMB_PASSWORD=secret wireseal smb get smb://alice@fileserver/data/big.iso\n"
      "  wireseal smb put smb://WORKGROUP;alice@127.0.0.1:4445/share/dir/a.bin a.bin "
      "--password-file pw --encrypt required --json\n"
      "Exit status: 0 on success, 1 with the reason (and the server's NTSTATUS) otherwise.");
  return [a] { return run(*a); };
}

}  // namespace wireseal::cli
