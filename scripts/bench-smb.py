#!/usr/bin/env python3
"""64 MiB SMB write and read against a local Samba smbd: `wireseal smb` beside smbclient and,
where Go and Debian's go-smb2 are installed, go-smb2.

Starts a throwaway smbd (temporary smb.conf, 127.0.0.1, a free port, one test user; needs root
and Debian's samba and smbclient packages), then for each protection -- no encryption, and each
SMB 3.1.1 cipher -- runs `wireseal smb put` / `get` and smbclient's `put` / `get` of the same
random 64 MiB file, interleaved, REPS times, and prints the median MB/s of each with the ratio.
The file lives in RAM (/dev/shm when present) on both ends, so the disk is not what is measured.
go-smb2 (scripts/go-smb2-bench, built here with golang-go and
golang-github-hirochachacha-go-smb2-dev when both are installed) cannot choose its protection:
it runs in the "none" row on a share that does not encrypt and in the AES-128-GCM row on one that
requires encryption, where it takes the cipher the server picks.

    scripts/bench-smb.py [--wireseal build/release/tools/wireseal/wireseal] [--reps 5] [--json F]
"""
import argparse
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

SIZE = 64 << 20
CIPHERS = ["aes-128-gcm", "aes-256-gcm", "aes-128-ccm", "aes-256-ccm"]
SAMBA_CIPHER = {"aes-128-gcm": "AES-128-GCM", "aes-256-gcm": "AES-256-GCM",
                "aes-128-ccm": "AES-128-CCM", "aes-256-ccm": "AES-256-CCM"}
PASSWORD = "wireseal-bench-password"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_smbd(root, user):
    port = free_port()
    share = os.path.join(root, "share")
    for d in ["share", "private", "state", "cache", "lock", "pid", "ncalrpc"]:
        os.makedirs(os.path.join(root, d), exist_ok=True)
    conf = os.path.join(root, "smb.conf")
    with open(conf, "w") as f:
        f.write(f"""[global]
  netbios name = WIRESEALBENCH
  server role = standalone server
  interfaces = 127.0.0.1
  bind interfaces only = yes
  smb ports = {port}
  private dir = {root}/private
  state directory = {root}/state
  cache directory = {root}/cache
  lock directory = {root}/lock
  pid directory = {root}/pid
  ncalrpc dir = {root}/ncalrpc
  log file = {root}/smbd.log
  passdb backend = tdbsam:{root}/private/passdb.tdb
  server min protocol = SMB3_00
  load printers = no
  printing = bsd
  printcap name = /dev/null
  disable spoolss = yes
  server smb encrypt = if_required
[test]
  path = {share}
  read only = no
[enc]
  path = {share}
  read only = no
  server smb encrypt = required
""")
    subprocess.run(["smbpasswd", "-c", conf, "-a", "-s", user], check=True,
                   input=f"{PASSWORD}\n{PASSWORD}\n", text=True, stdout=subprocess.DEVNULL)
    smbd = subprocess.Popen(["/usr/sbin/smbd", "-s", conf, "-F", "--debug-stdout"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if time.time() > deadline or smbd.poll() is not None:
                sys.exit("smbd did not start; see " + root + "/smbd.log")
            time.sleep(0.05)
    return smbd, conf, port


def wireseal_rate(binary, op, url, local, cipher, pwfile):
    args = [binary, "smb", op, url, local, "--password-file", pwfile, "--json"]
    args += ["--encrypt", "off"] if cipher is None else ["--encrypt", "required", "--cipher", cipher]
    out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["mb_per_s"]


def smbclient_rate(conf, port, user, op, local, remote, cipher):
    args = ["smbclient", "-s", conf, "-p", str(port), "//127.0.0.1/test", "-U", f"{user}%{PASSWORD}"]
    if cipher is None:
        args += ["--client-protection=off"]
    else:
        args += ["--client-protection=encrypt",
                 f"--option=client smb3 encryption algorithms={SAMBA_CIPHER[cipher]}"]
    cmd = f"put {local} {remote}" if op == "put" else f"get {remote} {local}"
    out = subprocess.run(args + ["-c", cmd], check=True, capture_output=True, text=True)
    m = re.search(r"\(([\d.]+) (?:kb/s|KiloBytes/sec)\)", out.stdout + out.stderr)
    if not m:
        sys.exit("cannot read smbclient's rate: " + out.stdout + out.stderr)
    return float(m.group(1)) * 1024 / 1e6  # smbclient's kb/s are KiB/s


def build_go_smb2(root):
    """Builds scripts/go-smb2-bench offline from Debian's Go sources; None when not installed."""
    source = os.path.join(os.path.dirname(os.path.abspath(__file__)), "go-smb2-bench")
    if not shutil.which("go") or not os.path.isdir("/usr/share/gocode/src/github.com/hirochachacha/go-smb2"):
        return None
    binary = os.path.join(root, "go-smb2-bench")
    env = dict(os.environ, GOPATH="/usr/share/gocode", GO111MODULE="off",
               GOCACHE=os.path.join(root, "gocache"), GOFLAGS="")
    subprocess.run(["go", "build", "-o", binary, "."], cwd=source, env=env, check=True)
    return binary


def go_smb2_rate(binary, port, user, op, local, remote, share):
    out = subprocess.run([binary, "-addr", f"127.0.0.1:{port}", "-user", user, "-password", PASSWORD,
                          "-share", share, "-op", op, "-local", local, "-remote", remote],
                         check=True, capture_output=True, text=True).stdout
    return float(out.strip())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wireseal", default="build/release/tools/wireseal/wireseal")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--json", help="write the medians here")
    a = ap.parse_args()
    if os.geteuid() != 0 or not shutil.which("smbclient") or not os.path.exists("/usr/sbin/smbd"):
        sys.exit("needs root and Samba's smbd and smbclient (scripts/install-deps.sh)")
    user = os.environ.get("USER") or "root"
    ram = "/dev/shm" if os.path.isdir("/dev/shm") else None
    with tempfile.TemporaryDirectory(prefix="wireseal-bench-smb-", dir=ram) as root:
        smbd, conf, port = start_smbd(root, user)
        go_smb2 = build_go_smb2(root)
        try:
            src = os.path.join(root, "src.bin")
            with open(src, "wb") as f:
                f.write(os.urandom(SIZE))
            pwfile = os.path.join(root, "pw")
            with open(pwfile, "w") as f:
                f.write(PASSWORD + "\n")
            url = f"smb://{user}@127.0.0.1:{port}/test/ours.bin"
            back = os.path.join(root, "back.bin")
            rows = []
            for cipher in [None] + CIPHERS:
                runs = {"ours put": [], "ours get": [], "smbclient put": [], "smbclient get": []}
                go_share = {None: "test", "aes-128-gcm": "enc"}.get(cipher) if go_smb2 else None
                if go_share:
                    runs.update({"go-smb2 put": [], "go-smb2 get": []})
                for _ in range(a.reps):
                    runs["ours put"].append(wireseal_rate(a.wireseal, "put", url, src, cipher, pwfile))
                    runs["ours get"].append(wireseal_rate(a.wireseal, "get", url, back, cipher, pwfile))
                    runs["smbclient put"].append(smbclient_rate(conf, port, user, "put", src, "theirs.bin", cipher))
                    runs["smbclient get"].append(smbclient_rate(conf, port, user, "get", back, "theirs.bin", cipher))
                    if go_share:
                        runs["go-smb2 put"].append(go_smb2_rate(go_smb2, port, user, "put", src, "go.bin", go_share))
                        runs["go-smb2 get"].append(go_smb2_rate(go_smb2, port, user, "get", back, "go.bin", go_share))
                med = {k: statistics.median(v) for k, v in runs.items()}
                rows.append({"protection": cipher or "none", **med})
        finally:
            smbd.send_signal(signal.SIGTERM)
            smbd.wait(timeout=10)
    print(f"64 MiB over loopback, median of {a.reps} (MB/s)")
    print(f"{'protection':<12} {'ours write':>10} {'smbclient':>10} {'ratio':>6} {'go-smb2':>8}   "
          f"{'ours read':>10} {'smbclient':>10} {'ratio':>6} {'go-smb2':>8}")
    for r in rows:
        go_put = f"{r['go-smb2 put']:>8.0f}" if "go-smb2 put" in r else f"{'-':>8}"
        go_get = f"{r['go-smb2 get']:>8.0f}" if "go-smb2 get" in r else f"{'-':>8}"
        print(f"{r['protection']:<12} {r['ours put']:>10.0f} {r['smbclient put']:>10.0f} "
              f"{r['ours put'] / r['smbclient put']:>6.2f} {go_put}   {r['ours get']:>10.0f} "
              f"{r['smbclient get']:>10.0f} {r['ours get'] / r['smbclient get']:>6.2f} {go_get}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
