#!/usr/bin/python3
"""pylibsrtp (Debian's python3-pylibsrtp, the SRTP of aiortc) on whichever libsrtp2.so.1 the
dynamic loader finds: the real one, or wireseal's drop-in under LD_LIBRARY_PATH.

    pylibsrtp_peer.py protect PROFILE            prints the protected packets, one hex line each
    pylibsrtp_peer.py unprotect PROFILE FILE     unprotects them, checks them, then tries a
                                                 replay, a forgery and an unknown stream

PROFILE is a pylibsrtp profile number (1, 2, 7, 8). The first stream comes from an SSRC
template, a second is added for its own SSRC and removed again.
"""
import binascii
import sys

import pylibsrtp

PACKETS = 200
KEY_LEN = {1: 30, 2: 30, 7: 28, 8: 44}


def key(profile):
    return bytes((i * 29 + 5) & 0xFF for i in range(KEY_LEN[profile]))


def rtp(ssrc, i):
    seq = (65500 + i) & 0xFFFF  # crosses a rollover
    header = bytes([0x80, 0x60, seq >> 8, seq & 0xFF]) + (i * 160).to_bytes(4, "big")
    return header + ssrc.to_bytes(4, "big") + bytes((i + j) & 0xFF for j in range(10 + i % 150))


def rtcp(ssrc, i):
    return bytes([0x80, 200, 0, 6]) + ssrc.to_bytes(4, "big") + bytes([i & 0xFF] * 20)


def session(profile, direction):
    template = pylibsrtp.Policy(key=key(profile), srtp_profile=profile, ssrc_type=direction)
    s = pylibsrtp.Session(policy=template)
    s.add_stream(pylibsrtp.Policy(key=key(profile), srtp_profile=profile,
                                  ssrc_type=pylibsrtp.Policy.SSRC_SPECIFIC, ssrc_value=0x5555))
    return s


def protect(profile):
    s = session(profile, pylibsrtp.Policy.SSRC_ANY_OUTBOUND)
    for ssrc in (0x1234, 0x5555):
        for i in range(PACKETS):
            print("R", binascii.hexlify(s.protect(rtp(ssrc, i))).decode())
            if i % 10 == 0:
                print("C", binascii.hexlify(s.protect_rtcp(rtcp(ssrc, i))).decode())
    s.remove_stream(0x5555)


def outcome(call, packet):
    try:
        call(packet)
        return "ok"
    except pylibsrtp.Error as e:
        return str(e)


def unprotect(profile, path):
    s = session(profile, pylibsrtp.Policy.SSRC_ANY_INBOUND)
    lines = [line.split() for line in open(path)]
    srtp = [binascii.unhexlify(d) for k, d in lines if k == "R"]
    srtcp = [binascii.unhexlify(d) for k, d in lines if k == "C"]
    good = sum(s.unprotect(p) == rtp(0x1234 if n < PACKETS else 0x5555, n % PACKETS)
               for n, p in enumerate(srtp))
    good_rtcp = sum(s.unprotect_rtcp(p) == rtcp(0x1234 if n < PACKETS // 10 else 0x5555,
                                                   (n % (PACKETS // 10)) * 10)
                    for n, p in enumerate(srtcp))
    print("rtp ok", good)
    print("rtcp ok", good_rtcp)
    print("replay:", outcome(s.unprotect, srtp[-1]))
    forged = bytearray(srtp[-1])
    forged[20] ^= 1
    print("forged:", outcome(s.unprotect, bytes(forged)))
    print("replay rtcp:", outcome(s.unprotect_rtcp, srtcp[-1]))
    s.remove_stream(0x5555)
    print("removed, then:", outcome(s.unprotect, srtp[-1]))
    try:
        s.remove_stream(0x7777)
        print("remove unknown: ok")
    except pylibsrtp.Error as e:
        print("remove unknown:", e)


if __name__ == "__main__":
    if sys.argv[1] == "protect":
        protect(int(sys.argv[2]))
    else:
        unprotect(int(sys.argv[2]), sys.argv[3])
