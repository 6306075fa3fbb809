#!/usr/bin/env python3
"""Retired guest instructions per operation, wireseal against OpenSSL EVP, under qemu-user.

Timing under an emulator means nothing; the number of instructions the guest retires does
not depend on the emulator's speed. This runs rows of wireseal-bench-runner from a cross build
(the same fixtures as `wireseal bench`, each beside its OpenSSL baseline) under qemu-user with
an instruction-counting TCG plugin (tools/insn-count/insn_count_plugin.c, built here for the
host), each at two fixed iteration counts, and reports

    (instructions at N2 iterations - instructions at N1 iterations) / (N2 - N1)

so that start-up, benchmark registration and fixture set-up cancel out.

    scripts/insn-count.py build/aarch64 [--cpu max] [--iterations 100,300] [--markdown]
"""
import argparse
import pathlib
import re
import shlex
import subprocess
import sys

ROWS = [
    ("SRTP AES_CM_128_HMAC_SHA1_80 protect", "srtp/aes128cm_sha1_80_protect/{impl}/160"),
    ("SRTP AES_CM_128_HMAC_SHA1_80 protect", "srtp/aes128cm_sha1_80_protect/{impl}/1200"),
    ("SRTP AES_CM_128_HMAC_SHA1_80 unprotect", "srtp/aes128cm_sha1_80_unprotect/{impl}/160"),
    ("SRTP AES_CM_128_HMAC_SHA1_80 unprotect", "srtp/aes128cm_sha1_80_unprotect/{impl}/1200"),
    ("DTLS 1.2 AES-128-GCM record seal", "dtls/aes128gcm_encrypt/{impl}/1400"),
    ("DTLS 1.2 AES-128-GCM record open", "dtls/aes128gcm_decrypt/{impl}/1400"),
    ("DTLS 1.2 AES-128-CCM record seal", "dtls/aes128ccm_encrypt/{impl}/1400"),
    ("DTLS 1.2 AES-128-CCM record open", "dtls/aes128ccm_decrypt/{impl}/1400"),
    ("HMAC-SHA1", "crypto/hmac_sha1/{impl}/1200"),
]
IMPLS = ("wireseal", "openssl")
ROOT = pathlib.Path(__file__).resolve().parent.parent


def emulator(runner: pathlib.Path) -> list:
    """The qemu-user binary for the runner's architecture (its ELF header's e_machine)."""
    header = runner.read_bytes()[:20]
    machine = int.from_bytes(header[18:20], "little")
    qemu = {183: "qemu-aarch64", 40: "qemu-arm"}.get(machine)
    if qemu is None:
        sys.exit(f"{runner} is not an aarch64 or ARM executable (e_machine {machine})")
    return [qemu]


def build_plugin(build: pathlib.Path) -> pathlib.Path:
    out = build / "insn-count" / "libinsncount.so"
    out.parent.mkdir(exist_ok=True)
    src = ROOT / "tools" / "insn-count" / "insn_count_plugin.c"
    subprocess.run(["cc", "-shared", "-fPIC", "-O2", "-fvisibility=hidden", "-o", str(out),
                    str(src)], check=True)
    return out


def count(cmd: list, name: str, iterations: int) -> int:
    run = subprocess.run(cmd + [f"--iterations={iterations}",
                                f"--benchmark_filter=^{re.escape(name)}/"],
                         capture_output=True, text=True)
    m = re.search(r"^insn-count: (\d+)$", run.stderr, re.M)
    if run.returncode != 0 or not m or "error_occurred" in run.stdout or \
            f"{name}/iterations:{iterations}" not in run.stdout:
        sys.exit(f"{shlex.join(cmd)} {name} failed:\n{run.stdout}\n{run.stderr}")
    return int(m.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("build", type=pathlib.Path)
    ap.add_argument("--cpu", default="max", help="qemu CPU model (default: max)")
    ap.add_argument("--iterations", default="100,300", help="N1,N2 (default: 100,300)")
    args = ap.parse_args()
    n1, n2 = (int(x) for x in args.iterations.split(","))
    runner = args.build / "tools" / "wireseal" / "wireseal-bench-runner"
    cmd = emulator(runner) + ["-cpu", args.cpu, "-plugin", str(build_plugin(args.build)),
                                  str(runner)]
    print(f"| operation | bytes | wireseal insns/op | OpenSSL EVP insns/op | OpenSSL / wireseal |")
    print(f"|---|---:|---:|---:|---:|")
    for label, pattern in ROWS:
        per_op = {}
        for impl in IMPLS:
            name = pattern.format(impl=impl)
            per_op[impl] = (count(cmd, name, n2) - count(cmd, name, n1)) / (n2 - n1)
        size = pattern.rsplit("/", 1)[1]
        ratio = per_op["openssl"] / per_op["wireseal"]
        print(f"| {label} | {size} | {per_op['wireseal']:,.0f} | {per_op['openssl']:,.0f} | "
              f"{ratio:.2f}x |", flush=True)


if __name__ == "__main__":
    main()
