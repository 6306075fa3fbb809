#!/usr/bin/env python3
"""Generates tests/vectors/dtls_records.txt and dtls_key_block.txt with an implementation of
the DTLS 1.2 record protection that shares no code with wireseal: Python's `cryptography`
(OpenSSL underneath) for the ciphers, the standard library for HMAC and the TLS PRF, and the
record formats written out here from the RFCs:

  RFC 6347 §4.1 (header), RFC 5246 §6.2.3 (MAC-then-encrypt, AEAD additional data),
  RFC 5288 / RFC 6655 (AES-GCM / AES-CCM: salt | explicit 8-byte nonce = epoch|seq),
  RFC 7905 §2 (ChaCha20-Poly1305: IV XOR padded sequence), RFC 7366 (encrypt-then-MAC),
  RFC 9146 §5 (connection ID: inner plaintext and additional data), RFC 5246 §5, §6.3 (PRF and
  key block).

Run: python3 tests/vectors/gen/dtls_records.py tests/vectors
"""
import hashlib
import hmac
import struct
import sys

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM, AESGCM, ChaCha20Poly1305

# name: (kind, enc_key_len, mac_key_len, fixed_iv_len, tag_len, hash)
CIPHERS = {
    "AES-128-GCM": ("gcm", 16, 0, 4, 16, None),
    "AES-256-GCM": ("gcm", 32, 0, 4, 16, None),
    "AES-128-CCM": ("ccm", 16, 0, 4, 16, None),
    "AES-128-CCM8": ("ccm", 16, 0, 4, 8, None),
    "AES-256-CCM": ("ccm", 32, 0, 4, 16, None),
    "AES-256-CCM8": ("ccm", 32, 0, 4, 8, None),
    "CHACHA20-POLY1305": ("chacha", 32, 0, 12, 16, None),
    "AES-128-CBC-SHA": ("cbc", 16, 20, 0, 20, hashlib.sha1),
    "AES-256-CBC-SHA": ("cbc", 32, 20, 0, 20, hashlib.sha1),
    "AES-128-CBC-SHA256": ("cbc", 16, 32, 0, 32, hashlib.sha256),
    "AES-256-CBC-SHA256": ("cbc", 32, 32, 0, 32, hashlib.sha256),
    "AES-256-CBC-SHA384": ("cbc", 32, 48, 0, 48, hashlib.sha384),
    "NULL-SHA": ("null", 0, 20, 0, 20, hashlib.sha1),
    "NULL-SHA256": ("null", 0, 32, 0, 32, hashlib.sha256),
}

VERSION = 0xFEFD
EPOCH = 1
SEQUENCE = 0x0000_1234_5678
CID = bytes.fromhex("c1d2e3f4")
CBC_IV = bytes(range(0xA0, 0xB0))
TLS12_CID = 25
APPLICATION_DATA = 23


def key_block_bytes(name):
    kind, enc, mac, iv, _, _ = CIPHERS[name]
    return bytes((i * 37 + 11) & 0xFF for i in range(2 * (enc + mac + iv)))


def client_keys(name):
    """RFC 5246 §6.3 layout: client MAC, server MAC, client key, server key, client IV, server IV."""
    kind, enc, mac, iv, _, _ = CIPHERS[name]
    kb = key_block_bytes(name)
    mac_key = kb[0:mac]
    enc_key = kb[2 * mac:2 * mac + enc]
    fixed_iv = kb[2 * mac + 2 * enc:2 * mac + 2 * enc + iv]
    return mac_key, enc_key, fixed_iv


def additional_data(epoch_seq, ctype, cid, length):
    if not cid:
        return struct.pack(">QBHH", epoch_seq, ctype, VERSION, length)
    # RFC 9146 §5: seq_num_placeholder | tls12_cid | cid_length | tls12_cid | version |
    # epoch | sequence_number | cid | length_of_DTLSInnerPlaintext
    return (b"\xff" * 8 + bytes([TLS12_CID, len(cid), TLS12_CID]) + struct.pack(">HQ", VERSION, epoch_seq)
            + cid + struct.pack(">H", length))


def header(ctype, epoch_seq, cid, fragment_len):
    outer = TLS12_CID if cid else ctype
    return struct.pack(">BHQ", outer, VERSION, epoch_seq) + cid + struct.pack(">H", fragment_len)


def cbc_pad(data):
    pad = 16 - len(data) % 16
    return data + bytes([pad - 1]) * pad


def seal(name, plaintext, cid, etm):
    kind, enc, mac, iv_len, tag_len, hashfn = CIPHERS[name]
    mac_key, enc_key, fixed_iv = client_keys(name)
    epoch_seq = EPOCH << 48 | SEQUENCE
    inner = plaintext + bytes([APPLICATION_DATA]) if cid else plaintext
    aad_type = TLS12_CID if cid else APPLICATION_DATA
    if kind in ("gcm", "ccm", "chacha"):
        aad = additional_data(epoch_seq, aad_type, cid, len(inner))
        if kind == "chacha":
            nonce = bytes(a ^ b for a, b in zip(fixed_iv, b"\0\0\0\0" + struct.pack(">Q", epoch_seq)))
            explicit = b""
            sealed = ChaCha20Poly1305(enc_key).encrypt(nonce, inner, aad)
        else:
            explicit = struct.pack(">Q", epoch_seq)
            nonce = fixed_iv + explicit
            if kind == "gcm":
                sealed = AESGCM(enc_key).encrypt(nonce, inner, aad)
            else:
                sealed = AESCCM(enc_key, tag_length=tag_len).encrypt(nonce, inner, aad)
        fragment = explicit + sealed
    elif kind == "cbc":
        encryptor = lambda data: Cipher(algorithms.AES(enc_key), modes.CBC(CBC_IV)).encryptor().update(data)
        if etm:
            body = encryptor(cbc_pad(inner))
            aad = additional_data(epoch_seq, aad_type, cid, 16 + len(body))
            fragment = CBC_IV + body + hmac.new(mac_key, aad + CBC_IV + body, hashfn).digest()
        else:
            aad = additional_data(epoch_seq, aad_type, cid, len(inner))
            tag = hmac.new(mac_key, aad + inner, hashfn).digest()
            fragment = CBC_IV + encryptor(cbc_pad(inner + tag))
    else:  # NULL cipher: plaintext | MAC
        aad = additional_data(epoch_seq, aad_type, cid, len(inner))
        fragment = inner + hmac.new(mac_key, aad + inner, hashfn).digest()
    return header(APPLICATION_DATA, epoch_seq, cid, len(fragment)) + fragment


def p_hash(hashfn, secret, seed, length):
    out, a = b"", seed
    while len(out) < length:
        a = hmac.new(secret, a, hashfn).digest()
        out += hmac.new(secret, a + seed, hashfn).digest()
    return out[:length]


def main(outdir):
    with open(f"{outdir}/dtls_records.txt", "w") as f:
        f.write("# DTLS 1.2 records (epoch 1, sequence 0x123456789a, application data) sealed by\n"
                "# tests/vectors/gen/dtls_records.py (Python cryptography + the RFC formats), with\n"
                "# the client write keys of the key block KEYBLOCK, CBC IV a0..af. CID is the\n"
                "# connection ID (RFC 9146) or empty; ETM = 1 for RFC 7366 encrypt-then-MAC.\n\n")
        for name, spec in CIPHERS.items():
            for cid in (b"", CID):
                for etm in ((False, True) if spec[0] == "cbc" else (False,)):
                    for size in (0, 1, 17, 64, 300):
                        plaintext = bytes((i * 7 + size) & 0xFF for i in range(size))
                        f.write(f"CIPHER = {name}\nETM = {int(etm)}\nCID = {cid.hex()}\n"
                                f"KEYBLOCK = {key_block_bytes(name).hex()}\n"
                                f"PLAINTEXT = {plaintext.hex()}\n"
                                f"RECORD = {seal(name, plaintext, cid, etm).hex()}\n\n")
    with open(f"{outdir}/dtls_key_block.txt", "w") as f:
        f.write("# TLS 1.2 key blocks (RFC 5246 §6.3) from the PRF written in\n"
                "# tests/vectors/gen/dtls_records.py with Python's hmac module.\n\n")
        master = bytes(range(48))
        client_random = bytes(range(0x20, 0x40))
        server_random = bytes(range(0x40, 0x60))
        for name, prf in (("AES-128-GCM", hashlib.sha256), ("AES-256-GCM", hashlib.sha384),
                          ("AES-128-CBC-SHA256", hashlib.sha256), ("CHACHA20-POLY1305", hashlib.sha256),
                          ("AES-256-CBC-SHA384", hashlib.sha384)):
            kind, enc, mac, iv, _, _ = CIPHERS[name]
            length = 2 * (enc + mac + iv)
            kb = p_hash(prf, master, b"key expansion" + server_random + client_random, length)
            f.write(f"CIPHER = {name}\nPRF = {prf().name}\nMASTER = {master.hex()}\n"
                    f"CLIENT_RANDOM = {client_random.hex()}\nSERVER_RANDOM = {server_random.hex()}\n"
                    f"KEYBLOCK = {kb.hex()}\n\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
