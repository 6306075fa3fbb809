#!/usr/bin/python3
"""aiortc's own DTLS transport (RTCDtlsTransport: pyOpenSSL over a memory BIO, with aiortc's
retransmission timer) as a DTLS client of a server on 127.0.0.1, over a stand-in for the ICE
transport that sends and receives plain UDP datagrams.

Usage: aiortc_dtls_client.py PORT FINGERPRINT   (FINGERPRINT: "AB:CD:..", SHA-256)

Prints "connected in N ms, timeouts T, srtp-keys HEX" and exits 0 once the handshake is done
and the server's certificate matched FINGERPRINT; exits 1 when the transport failed or did
not connect within 10 s. T counts aiortc's retransmission timeouts: on a lossless loopback
the handshake needs none.
"""
import asyncio
import sys
import time

from aiortc import rtcdtlstransport
from aiortc.rtcdtlstransport import (RTCCertificate, RTCDtlsFingerprint, RTCDtlsParameters,
                                     RTCDtlsTransport)


class UdpIceStandIn(asyncio.DatagramProtocol):
    """What RTCDtlsTransport uses of an RTCIceTransport: role, _send and _recv."""

    role = "controlled"  # the ICE-controlled side is the DTLS client

    def __init__(self):
        self.queue = asyncio.Queue()
        self.transport = None

    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data, addr):
        self.queue.put_nowait(data)

    async def _send(self, data):
        self.transport.sendto(data)

    async def _recv(self):
        return await self.queue.get()


async def main(port, fingerprint):
    timeouts = 0
    handle_timeout = rtcdtlstransport.DTLSv1_handle_timeout

    def counting_handle_timeout(ssl):
        nonlocal timeouts
        timeouts += 1
        handle_timeout(ssl)

    rtcdtlstransport.DTLSv1_handle_timeout = counting_handle_timeout
    loop = asyncio.get_running_loop()
    _, ice = await loop.create_datagram_endpoint(UdpIceStandIn,
                                                 remote_addr=("127.0.0.1", port))
    dtls = RTCDtlsTransport(ice, [RTCCertificate.generateCertificate()])
    remote = RTCDtlsParameters(fingerprints=[RTCDtlsFingerprint("sha-256", fingerprint)])
    started = time.monotonic()
    try:
        await asyncio.wait_for(dtls.start(remote), timeout=10)
    except asyncio.TimeoutError:
        print(f"not connected after 10 s, timeouts {timeouts}")
        return 1
    elapsed_ms = int((time.monotonic() - started) * 1000)
    if dtls.state != "connected":
        print(f"transport {dtls.state}, timeouts {timeouts}")
        return 1
    keys = dtls.ssl.export_keying_material(b"EXTRACTOR-dtls_srtp", 60).hex().upper()
    print(f"connected in {elapsed_ms} ms, timeouts {timeouts}, srtp-keys {keys}", flush=True)
    await dtls.stop()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(int(sys.argv[1]), sys.argv[2])))
