#!/usr/bin/env python3
"""GStreamer srtpenc ! srtpdec throughput on Debian's libsrtp2 and on wireseal's drop-in.

One pipeline per run: audiotestsrc (a sine) ! rtpL16pay (1200-byte payloads) ! srtpenc !
srtpdec ! rtpL16depay ! filesink in /dev/shm, so every packet is protected and unprotected once
and the decoded stream is checked (its size, and its bytes against the same pipeline without
SRTP). Rounds interleave: no SRTP, the real library, the drop-in. Reports median wall time,
packets per second, and the SRTP cost per packet (time above the no-SRTP pipeline).

Usage: scripts/bench-gst-srtp.py [--build build/release] [--packets 100000] [--rounds 5]
"""
import argparse
import filecmp
import os
import statistics
import subprocess
import sys
import time

PROFILES = {  # name: (srtpenc cipher, rtp auth, rtcp auth, key + salt bytes)
    "AES_CM_128_HMAC_SHA1_80": ("aes-128-icm", "hmac-sha1-80", "hmac-sha1-80", 30),
    "AEAD_AES_128_GCM": ("aes-128-gcm", "null", "null", 28),
}
PAYLOAD = 1200
OUT = "/dev/shm/wireseal-gst-srtp"


def pipeline(packets, profile):
    src = (f"audiotestsrc num-buffers={packets} samplesperbuffer={PAYLOAD // 2} wave=sine freq=700"
           " ! audio/x-raw,format=S16BE,rate=48000,channels=1 ! rtpL16pay mtu=1400")
    sink = f"rtpL16depay ! filesink location={OUT}.{profile or 'plain'}"
    if profile is None:
        return f"{src} ! {sink}"
    cipher, auth, rtcp_auth, key_len = PROFILES[profile]
    key = "".join(f"{(i * 37 + 11) % 256:02x}" for i in range(key_len))
    return (f"{src} ! srtpenc key={key} rtp-cipher={cipher} rtp-auth={auth} "
            f"rtcp-cipher={cipher} rtcp-auth={rtcp_auth} ! srtpdec ! {sink}")


def run(packets, profile, lib_dir):
    env = dict(os.environ)
    if lib_dir:
        env["LD_LIBRARY_PATH"] = lib_dir
    start = time.monotonic()
    subprocess.run(["gst-launch-1.0", "-q"] + pipeline(packets, profile).split(), env=env,
                   check=True)
    elapsed = time.monotonic() - start
    out = f"{OUT}.{profile or 'plain'}"
    if os.path.getsize(out) != packets * PAYLOAD:
        sys.exit(f"{profile}: decoded {os.path.getsize(out)} bytes, expected {packets * PAYLOAD}")
    if profile is not None and not filecmp.cmp(out, f"{OUT}.plain", shallow=False):
        sys.exit(f"{profile}: the decoded stream differs from the source")
    return elapsed


def loads_drop_in(lib_dir):
    env = dict(os.environ, LD_LIBRARY_PATH=lib_dir, LD_DEBUG="libs")
    r = subprocess.run(["gst-launch-1.0", "-q"] + pipeline(10, "AEAD_AES_128_GCM").split(),
                       env=env, capture_output=True, text=True, check=True)
    return f"{lib_dir}/libsrtp2.so.1" in r.stderr


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build/release")
    ap.add_argument("--packets", type=int, default=100000)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    lib_dir = os.path.abspath(os.path.join(args.build, "compat/libsrtp2/lib"))
    if not loads_drop_in(lib_dir):
        sys.exit(f"gst-launch-1.0 does not load the drop-in from {lib_dir}")
    n = args.packets
    times = {}
    for _ in range(args.rounds):
        times.setdefault("plain", []).append(run(n, None, None))
        for profile in PROFILES:
            for lib, where in (("libsrtp2", None), ("wireseal", lib_dir)):
                times.setdefault((profile, lib), []).append(run(n, profile, where))
    plain = statistics.median(times["plain"])
    print(f"{n} packets of {PAYLOAD} B payload, {args.rounds} rounds, medians")
    print(f"{'pipeline':44} {'seconds':>8} {'packets/s':>10} {'SRTP us/packet':>15}")
    print(f"{'no SRTP':44} {plain:8.3f} {n / plain:10.0f} {'':>15}")
    for profile in PROFILES:
        cost = {}
        for lib in ("libsrtp2", "wireseal"):
            t = statistics.median(times[(profile, lib)])
            cost[lib] = (t - plain) / n * 1e6
            print(f"{profile + ' ' + lib:44} {t:8.3f} {n / t:10.0f} {cost[lib]:15.2f}")
        if cost["wireseal"] > 0:
            print(f"{profile}: SRTP cost ratio libsrtp2/wireseal "
                  f"{cost['libsrtp2'] / cost['wireseal']:.1f}x")
    for f in [f"{OUT}.plain"] + [f"{OUT}.{p}" for p in PROFILES]:
        if os.path.exists(f):
            os.remove(f)


if __name__ == "__main__":
    main()
