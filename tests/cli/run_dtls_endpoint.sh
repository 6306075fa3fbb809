#!/usr/bin/env bash
# `wireseal dtls server` and `wireseal dtls client` as processes on 127.0.0.1: against each
# other and against `openssl s_server`/`s_client -dtls1_2`. Every process is started in the
# background and stopped by its PID; ports are free ones found at run time (wireseal listens on
# port 0 and prints the port; s_server gets a random port, tried again if it is taken).
# A missing `openssl` fails the test.
#
# Usage: run_dtls_endpoint.sh WIRESEAL WORK_DIR CASE
#   CASE: echo_fingerprints | openssl_s_server | openssl_s_client | aiortc_client | psk |
#         ca_chain | wrong_fingerprint | client_requires_authentication | connection_id
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cli=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
work=$2
case_name=$3
rm -rf "$work"
mkdir -p "$work"
cd "$work"

pids=()
cleanup() {
  exec 3>&- 4>&- 2>/dev/null || true
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    wait "$pid" 2>/dev/null || true
  done
}
trap cleanup EXIT

fail() {
  echo "FAIL ($case_name): $*" >&2
  for f in *.out *.err; do
    if [ -f "$f" ]; then
      echo "--- $f" >&2
      cat "$f" >&2
    fi
  done
  exit 1
}

need_openssl() {
  command -v openssl >/dev/null || fail "openssl not on PATH (scripts/install-deps.sh installs it)"
}

# wait_for FILE REGEX [SECONDS]: until a line of FILE matches REGEX (extended).
wait_for() {
  local file=$1 re=$2 limit=${3:-15}
  local end=$((SECONDS + limit))
  until grep -qE -- "$re" "$file" 2>/dev/null; do
    [ "$SECONDS" -lt "$end" ] || return 1
    sleep 0.05
  done
}

# finish PID SECONDS: waits for PID and returns its exit status; kills it (status 124) if it
# is still running after SECONDS.
finish() {
  local pid=$1 limit=$2
  local end=$((SECONDS + limit))
  while kill -0 "$pid" 2>/dev/null; do
    if [ "$SECONDS" -ge "$end" ]; then
      kill "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
      return 124
    fi
    sleep 0.05
  done
  wait "$pid"
}

# expect_status WANT PID SECONDS WHAT
expect_status() {
  local want=$1 pid=$2 limit=$3 what=$4 rc=0
  finish "$pid" "$limit" || rc=$?
  if [ "$want" = nonzero ]; then
    { [ "$rc" -ne 0 ] && [ "$rc" -ne 124 ]; } || fail "$what: exit status $rc, want a failure"
  else
    [ "$rc" -eq "$want" ] || fail "$what: exit status $rc, want $want"
  fi
}

# start_server NAME ARGS...: `wireseal dtls server --listen 127.0.0.1:0 ARGS` in the
# background, its output in NAME.out/NAME.err; sets server_pid and port.
start_server() {
  local name=$1
  shift
  "$cli" dtls server --listen 127.0.0.1:0 "$@" >"$name.out" 2>"$name.err" </dev/null &
  server_pid=$!
  pids+=("$server_pid")
  wait_for "$name.err" 'listening on 127\.0\.0\.1:[0-9]+' || fail "$name did not start listening"
  port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$name.err")
}

# run_client WANT WHAT NAME INPUT ARGS...: `wireseal dtls client --connect 127.0.0.1:$port
# ARGS` with INPUT on its standard input and its output in NAME.out/NAME.err, then
# expect_status WANT for it (WHAT names it in a failure).
run_client() {
  local want=$1 what=$2 name=$3 input=$4
  shift 4
  "$cli" dtls client --connect "127.0.0.1:$port" "$@" <"$input" >"$name.out" 2>"$name.err" &
  client_pid=$!
  pids+=("$client_pid")
  expect_status "$want" "$client_pid" 30 "$what"
}

# make_cert STEM: an ECDSA P-256 self-signed certificate and key from `openssl req`; sets
# fingerprint to its SHA-256 fingerprint as --fingerprint takes it.
make_cert() {
  local stem=$1
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -subj "/CN=wireseal-test-$stem" -keyout "$stem.key" -out "$stem.crt" 2>"req-$stem.err" ||
    fail "openssl req failed"
  fingerprint=$(openssl x509 -in "$stem.crt" -noout -fingerprint -sha256 | sed 's/^[^=]*=/sha-256:/')
}

# exports FILE: the "export ..." lines of FILE.
exports() { grep '^export ' "$1" || true; }

# same_keylog OURS THEIRS: our --keylog file holds exactly one CLIENT_RANDOM line, equal (hex
# case aside) to the one OpenSSL's -keylogfile wrote for the same association; ours is 0600.
same_keylog() {
  local ours=$1 theirs=$2
  [ "$(stat -c %a "$ours")" = 600 ] || fail "$ours is not mode 0600"
  [ "$(grep -c '^CLIENT_RANDOM ' "$ours")" -eq 1 ] || fail "$ours: not one CLIENT_RANDOM line"
  local a b
  a=$(grep '^CLIENT_RANDOM ' "$ours" | tr 'a-f' 'A-F')
  b=$(grep '^CLIENT_RANDOM ' "$theirs" | tr 'a-f' 'A-F')
  [ -n "$b" ] || fail "OpenSSL wrote no CLIENT_RANDOM line to $theirs"
  [ "$a" = "$b" ] || fail "key log lines differ: ours '$a', OpenSSL's '$b'"
}

# keying_material FILE: the hex OpenSSL prints after "Keying material: ".
keying_material() { sed -n 's/^ *Keying material: *\([0-9A-F]*\).*/\1/p' "$1"; }

case "$case_name" in
  echo_fingerprints)
    # (1) Mutual fingerprints: the client's certificate comes from `openssl req`, the server's
    # is generated and printed with --print-fingerprint. Echoed lines come back in order and
    # both sides print the same exports (with and without a context).
    need_openssl
    make_cert client
    client_fp=$fingerprint
    start_server server --echo --once --print-fingerprint --fingerprint "$client_fp" \
      --export EXPERIMENTAL-wireseal:32 --export EXPERIMENTAL-wireseal:20:00ff
    server_fp=$(sed -n 's/^fingerprint sha-256 /sha-256:/p' server.err)
    [ -n "$server_fp" ] || fail "--print-fingerprint printed no 'fingerprint sha-256 ...' line"
    printf 'first line\nsecond line\n' >input.txt
    run_client 0 "client" client input.txt --cert client.crt --key client.key \
      --fingerprint "$server_fp" --export EXPERIMENTAL-wireseal:32 \
      --export EXPERIMENTAL-wireseal:20:00ff --linger 3
    expect_status 0 "$server_pid" 10 "server --once"
    cmp -s input.txt client.out || fail "the client did not print exactly the echoed lines"
    grep -q 'peer authenticated by fingerprint' client.err || fail "client: not by fingerprint"
    grep -q 'peer authenticated by fingerprint' server.err || fail "server: not by fingerprint"
    [ "$(exports client.err | wc -l)" -eq 2 ] || fail "the client printed no two exports"
    [ "$(exports client.err)" = "$(exports server.err)" ] || fail "the exports differ"
    ;;

  openssl_s_server)
    # (2a) wireseal client against `openssl s_server -dtls1_2` with use_srtp: data both ways,
    # the RFC 5705 export equal to -keymatexport, the SRTP profile negotiated.
    need_openssl
    make_cert server
    mkfifo s_server.in client.in
    started=
    for _ in 1 2 3 4 5 6 7 8; do
      s_port=$((20000 + RANDOM % 40000))
      openssl s_server -dtls1_2 -accept "127.0.0.1:$s_port" -naccept 1 -cert server.crt \
        -key server.key -use_srtp SRTP_AES128_CM_SHA1_80 -keymatexport EXPERIMENTAL-wireseal \
        -keymatexportlen 32 -keylogfile s_server.keys <s_server.in >s_server.out \
        2>s_server.err &
      s_pid=$!
      pids+=("$s_pid")
      exec 3>s_server.in
      if wait_for s_server.out '^ACCEPT' 5; then
        started=1
        break
      fi
      exec 3>&-
      kill "$s_pid" 2>/dev/null || true
      wait "$s_pid" 2>/dev/null || true
    done
    [ -n "$started" ] || fail "openssl s_server did not start"
    "$cli" dtls client --connect "127.0.0.1:$s_port" --fingerprint "$fingerprint" \
      --srtp SRTP_AES128_CM_SHA1_80 --export EXPERIMENTAL-wireseal:32 --linger 0.5 \
      --keylog client.keys <client.in >client.out 2>client.err &
    client_pid=$!
    pids+=("$client_pid")
    exec 4>client.in
    wait_for client.err '^export ' || fail "the client did not connect"
    echo "hello from wireseal" >&4
    wait_for s_server.out '^hello from wireseal$' || fail "s_server did not get the client's line"
    echo "hello from openssl" >&3
    wait_for client.out '^hello from openssl$' || fail "the client did not print s_server's line"
    exec 4>&-
    expect_status 0 "$client_pid" 15 "client"
    ours=$(sed -n 's/^export EXPERIMENTAL-wireseal //p' client.err)
    theirs=$(keying_material s_server.out)
    { [ -n "$ours" ] && [ "$ours" = "$theirs" ]; } || fail "export $ours != s_server's $theirs"
    grep -q '^srtp-profile SRTP_AES128_CM_SHA1_80$' client.err || fail "no srtp-profile line"
    grep -q '^srtp-keying-material [0-9A-F]\{120\}$' client.err || fail "no SRTP keys line"
    grep -q 'SRTP Extension negotiated, profile=SRTP_AES128_CM_SHA1_80' s_server.out ||
      fail "s_server did not negotiate SRTP"
    same_keylog client.keys s_server.keys
    ;;

  openssl_s_client)
    # (2b) `openssl s_client -dtls1_2` against wireseal's echo server (cookies on) with
    # use_srtp: its line comes back, and its -keymatexport of EXTRACTOR-dtls_srtp equals both
    # wireseal's --export and its srtp-keying-material.
    need_openssl
    start_server server --echo --once --srtp SRTP_AES128_CM_SHA1_80 \
      --export EXTRACTOR-dtls_srtp:60 --keylog server.keys
    mkfifo s_client.in
    openssl s_client -dtls1_2 -connect "127.0.0.1:$port" -use_srtp SRTP_AES128_CM_SHA1_80 \
      -keymatexport EXTRACTOR-dtls_srtp -keymatexportlen 60 -keylogfile s_client.keys \
      <s_client.in >s_client.out 2>s_client.err &
    c_pid=$!
    pids+=("$c_pid")
    exec 3>s_client.in
    wait_for s_client.out 'Keying material: ' || fail "s_client did not connect"
    echo "hello from openssl" >&3
    wait_for s_client.out '^hello from openssl$' || fail "s_client did not get its line back"
    exec 3>&-  # s_client sends close_notify at the end of its input
    expect_status 0 "$server_pid" 15 "server --once"
    finish "$c_pid" 10 || true
    theirs=$(keying_material s_client.out)
    exported=$(sed -n 's/^export EXTRACTOR-dtls_srtp //p' server.err)
    srtp_keys=$(sed -n 's/^srtp-keying-material //p' server.err)
    { [ -n "$theirs" ] && [ "$exported" = "$theirs" ]; } || fail "export $exported != $theirs"
    [ "$srtp_keys" = "$theirs" ] || fail "srtp-keying-material $srtp_keys != $theirs"
    grep -q '^srtp-profile SRTP_AES128_CM_SHA1_80$' server.err || fail "no srtp-profile line"
    grep -q 'SRTP Extension negotiated, profile=SRTP_AES128_CM_SHA1_80' s_client.out ||
      fail "s_client did not negotiate SRTP"
    same_keylog server.keys s_client.keys
    # A lossless loopback needs no resend: before the server's epoch-0 records continued from
    # the hello's record number, s_client dropped its first flight as a replay of the
    # HelloVerifyRequest's and every cookie handshake waited a whole second here.
    grep -q '^retransmissions 0$' server.err ||
      fail "the cookie handshake waited for a retransmission timeout"
    ;;

  aiortc_client)
    # (2c) aiortc's own DTLS transport (RTCDtlsTransport, Debian's python3-aiortc: pyOpenSSL
    # over a memory BIO) as the client of the echo server, cookies on: it connects without a
    # retransmission timeout on either side, checks our fingerprint, and derives the SRTP keys
    # we derive.
    /usr/bin/python3 -c 'import aiortc' 2>/dev/null ||
      fail "aiortc not importable by /usr/bin/python3 (scripts/install-deps.sh installs python3-aiortc)"
    start_server server --once --print-fingerprint --srtp SRTP_AES128_CM_SHA1_80
    server_fp=$(sed -n 's/^fingerprint sha-256 //p' server.err)
    [ -n "$server_fp" ] || fail "--print-fingerprint printed no fingerprint"
    rc=0
    timeout 30 /usr/bin/python3 "$here/aiortc_dtls_client.py" "$port" "$server_fp" \
      >aiortc.out 2>aiortc.err || rc=$?
    [ "$rc" -eq 0 ] || fail "aiortc did not connect (exit status $rc)"
    grep -q 'timeouts 0,' aiortc.out || fail "aiortc waited for a retransmission timeout"
    wait_for server.err '^retransmissions ' || fail "the server reported no connection"
    grep -q '^retransmissions 0$' server.err || fail "the server resent a flight"
    grep -q '^srtp-profile SRTP_AES128_CM_SHA1_80$' server.err || fail "no srtp-profile line"
    theirs=$(sed -n 's/.*srtp-keys \([0-9A-F]*\).*/\1/p' aiortc.out)
    ours=$(sed -n 's/^srtp-keying-material //p' server.err)
    { [ -n "$ours" ] && [ "$ours" = "$theirs" ]; } || fail "SRTP keys $ours != aiortc's $theirs"
    ;;

  psk)
    # (3) PSK on both sides (no certificates): echo and equal exports; then a client with the
    # wrong identity is refused with unknown_psk_identity.
    key=00112233445566778899aabbccddeeff
    start_server server --echo --once --psk "$key" --psk-identity alice --psk-hint wireseal \
      --export EXPERIMENTAL-wireseal:32
    printf 'psk line\n' >input.txt
    run_client 0 "client" client input.txt --psk "$key" --psk-identity alice \
      --export EXPERIMENTAL-wireseal:32 --linger 3
    expect_status 0 "$server_pid" 10 "server --once"
    cmp -s input.txt client.out || fail "the client did not print the echoed line"
    grep -q 'PSK.*peer authenticated by the PSK' client.err || fail "client: not a PSK suite"
    { [ -n "$(exports client.err)" ] && [ "$(exports client.err)" = "$(exports server.err)" ]; } ||
      fail "the exports differ"
    start_server server2 --echo --once --psk "$key" --psk-identity alice
    run_client nonzero "client with the wrong identity" client2 /dev/null --psk "$key" \
      --psk-identity mallory
    grep -q 'unknown_psk_identity' client2.err || fail "no unknown_psk_identity on stderr"
    ;;

  ca_chain)
    # --ca: a server certificate issued by a CA for dtls.test and 127.0.0.1. The client
    # checks the IP of --connect, or --server-name; a name the certificate does not carry is
    # refused. One server (no --once) serves the clients one after another and stops on
    # SIGTERM with status 0. A --key that is not the certificate's is refused with status 2.
    need_openssl
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
      -subj /CN=wireseal-test-ca -keyout ca.key -out ca.crt 2>req-ca.err || fail "openssl req"
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=dtls.test \
      -keyout server.key -out server.csr 2>req-server.err || fail "openssl req -new"
    printf 'subjectAltName=DNS:dtls.test,IP:127.0.0.1\n' >san.ext
    openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 \
      -extfile san.ext -out server.crt 2>x509.err || fail "openssl x509 -req"
    start_server server --echo --cert server.crt --key server.key
    printf 'chain line\n' >input.txt
    for name in "" dtls.test; do
      run_client 0 "client --ca, server name '$name'" "client-$name" input.txt --ca ca.crt \
        ${name:+--server-name "$name"} --linger 3
      cmp -s input.txt "client-$name.out" || fail "client '$name' did not get its line back"
      grep -q 'peer authenticated by a chain' "client-$name.err" || fail "client '$name': no chain"
    done
    run_client nonzero "client --ca with a name the certificate lacks" client-other /dev/null \
      --ca ca.crt --server-name other.test
    grep -q 'trusted chain' client-other.err || fail "the refusal does not name the chain"
    kill -TERM "$server_pid"
    expect_status 0 "$server_pid" 10 "server stopped by SIGTERM"
    grep -q 'stopped' server.err || fail "the server did not report its stop"
    rc=0
    "$cli" dtls server --listen 127.0.0.1:0 --cert server.crt --key ca.key </dev/null \
      >mismatch.out 2>mismatch.err || rc=$?
    [ "$rc" -eq 2 ] || fail "a --key of another certificate: exit status $rc, want 2"
    grep -q 'is not the key of the certificate' mismatch.err || fail "no key mismatch message"
    ;;

  wrong_fingerprint)
    # (4) The server's certificate is not the one the client expects: both fail, the client
    # naming the fingerprint, the server the alert it got.
    start_server server --echo --once
    zeros=$(printf '00:%.0s' $(seq 31))00
    run_client nonzero "client with a wrong fingerprint" client /dev/null \
      --fingerprint "sha-256:$zeros"
    expect_status nonzero "$server_pid" 10 "server --once after a failed handshake"
    [ "$(wc -l <client.err)" -eq 1 ] || fail "the client's error is not one line"
    grep -q 'fingerprint' client.err || fail "the client's error does not name the fingerprint"
    grep -q 'bad_certificate' server.err || fail "the server did not report bad_certificate"
    ;;

  client_requires_authentication)
    # (5) Without --fingerprint, --ca or --psk the client refuses to connect unless --insecure;
    # with --insecure it connects (to a server whose certificate it does not check).
    rc=0
    "$cli" dtls client --connect 127.0.0.1:9 </dev/null >client.out 2>client.err || rc=$?
    [ "$rc" -ne 0 ] || fail "a client without authentication connected"
    grep -q -- '--insecure' client.err || fail "the refusal does not say how to override it"
    start_server server --echo --once
    printf 'insecure line\n' >input.txt
    run_client 0 "client with --insecure" client2 input.txt --insecure --linger 3
    cmp -s input.txt client2.out || fail "the --insecure client did not get its line back"
    grep -q 'peer not authenticated' client2.err || fail "no 'peer not authenticated' report"
    ;;

  connection_id)
    # (6) RFC 9146: the server asks for a 6-byte CID, the client for none; echoed lines come
    # back through the CID records and both report the negotiation.
    start_server server --echo --once --cid 0a0b0c0d0e0f
    printf 'line over a connection ID\n' >input.txt
    run_client 0 "client with --cid" client input.txt --insecure --cid --linger 3
    expect_status 0 "$server_pid" 10 "server --once"
    cmp -s input.txt client.out || fail "the client did not get its line back"
    grep -q '^connection-id negotiated$' client.err || fail "client: no connection-id line"
    grep -q '^connection-id negotiated$' server.err || fail "server: no connection-id line"
    rc=0
    "$cli" dtls client --connect 127.0.0.1:9 --insecure --cid 0g </dev/null >bad.out 2>bad.err ||
      rc=$?
    [ "$rc" -eq 2 ] || fail "--cid 0g: exit status $rc, want 2"
    ;;

  *)
    fail "unknown case"
    ;;
esac
echo "dtls endpoint CLI test $case_name: ok"
