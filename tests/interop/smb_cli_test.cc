// `wireseal smb` itself against a real smbd: put, ls --json, get, cat, mkdir, rm, the --json
// summary, and the reasons it gives when it fails (a wrong password, encryption required of a
// server that has none).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "child_process.h"
#include "smbd_server.h"

namespace wireseal::interop {
namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

class SmbCli : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<SmbdServer>(SmbdSecurity::kEncryptRequired);
    password_file_ = server_->dir() + "/pw";
    std::ofstream(password_file_) << server_->password() << "\n";
  }

  std::string url(const std::string& path) const {
    return "smb://" + server_->user() + "@127.0.0.1:" + std::to_string(server_->port()) + "/test/" +
           path;
  }

  // run runs the CLI with `args` and the password file; returns its exit status, with stdout
  // in out_ and stderr in err_.
  int run(std::vector<std::string> args, const std::string& password_file = "") {
    std::vector<std::string> argv{WIRESEAL_CLI_PATH, "smb"};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--password-file");
    argv.push_back(password_file.empty() ? password_file_ : password_file);
    const std::string err_path = server_->dir() + "/cli.err";
    ChildProcess cli(argv, err_path);
    const bool drained = cli.drain(std::chrono::seconds(60));
    const std::optional<int> status = cli.wait_exit(std::chrono::seconds(5));
    out_ = cli.output();
    err_ = slurp(err_path);
    return drained && status ? *status : -1;
  }

  std::unique_ptr<SmbdServer> server_;
  std::string password_file_;
  std::string out_;
  std::string err_;
};

TEST_F(SmbCli, PutListGetCatRemove) {
  const std::string local = server_->dir() + "/local.bin";
  {
    std::string data(3 << 20, '\0');
    std::mt19937 rng(7);
    for (char& c : data) {
      c = static_cast<char>(rng());
    }
    std::ofstream(local, std::ios::binary) << data;
  }
  ASSERT_EQ(run({"mkdir", url("d")}), 0) << err_;
  ASSERT_EQ(run({"put", url("d/file.bin"), local, "--json", "--cipher", "aes-256-gcm"}), 0) << err_;
  EXPECT_NE(out_.find("\"bytes\":3145728"), std::string::npos) << out_;
  EXPECT_NE(out_.find("\"cipher\":\"AES-256-GCM\""), std::string::npos) << out_;
  EXPECT_NE(out_.find("\"dialect\":\"3.1.1\""), std::string::npos) << out_;
  EXPECT_EQ(slurp(server_->share_dir() + "/d/file.bin"), slurp(local));
  ASSERT_EQ(run({"ls", url("d"), "--json"}), 0) << err_;
  EXPECT_NE(out_.find("\"name\":\"file.bin\""), std::string::npos) << out_;
  EXPECT_NE(out_.find("\"size\":3145728"), std::string::npos) << out_;
  const std::string back = server_->dir() + "/back.bin";
  ASSERT_EQ(run({"get", url("d/file.bin"), back, "--dialect", "3.0.2"}), 0) << err_;
  EXPECT_EQ(slurp(back), slurp(local));
  ASSERT_EQ(run({"cat", url("d/file.bin")}), 0) << err_;
  EXPECT_EQ(out_, slurp(local));
  ASSERT_EQ(run({"rm", url("d/file.bin")}), 0) << err_;
  ASSERT_EQ(run({"rm", url("d")}), 0) << err_;
  EXPECT_FALSE(std::filesystem::exists(server_->share_dir() + "/d"));
  EXPECT_EQ(run({"get", url("d/file.bin"), back}), 1);
  EXPECT_NE(err_.find("STATUS_OBJECT_PATH_NOT_FOUND"), std::string::npos) << err_;
}

TEST_F(SmbCli, WrongPasswordSaysLogonFailure) {
  const std::string wrong = server_->dir() + "/wrong";
  std::ofstream(wrong) << "nope\n";
  EXPECT_EQ(run({"ls", url("")}, wrong), 1);
  EXPECT_NE(err_.find("STATUS_LOGON_FAILURE"), std::string::npos) << err_;
}

TEST(SmbCliPlain, RequiredEncryptionOfAServerWithoutItFails) {
  SmbdServer server(SmbdSecurity::kPlain);
  const std::string pw = server.dir() + "/pw";
  std::ofstream(pw) << server.password() << "\n";
  ChildProcess cli(
      {WIRESEAL_CLI_PATH, "smb", "ls",
       "smb://" + server.user() + "@127.0.0.1:" + std::to_string(server.port()) + "/test/",
       "--password-file", pw, "--encrypt", "required"},
      server.dir() + "/cli.err");
  ASSERT_TRUE(cli.drain(std::chrono::seconds(30)));
  EXPECT_EQ(cli.wait_exit(std::chrono::seconds(5)), 1);
  EXPECT_NE(slurp(server.dir() + "/cli.err").find("does not offer"), std::string::npos);
}

}  // namespace
}  // namespace wireseal::interop
