#!/usr/bin/env bash
# Installs wireseal's build, test and interop dependencies from Debian 12's packages.
# Idempotent: apt-get is skipped when everything is already installed.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config clang clang-format clang-tidy libclang-rt-14-dev
  libssl-dev openssl            # OpenSSL 3 libcrypto: reference backend, EVP baselines
  libgtest-dev libbenchmark-dev # GoogleTest, Google Benchmark
  libcli11-dev libfmt-dev nlohmann-json3-dev  # CLI parsing, formatting, JSON for the tool
  python3-cryptography-vectors  # NIST CAVP and RFC vector sets, read in place by the tests
  libsrtp2-dev                  # libsrtp2: SRTP/SRTCP interop oracle (tests/interop/srtp_*)
  gnutls-bin                    # gnutls-serv/gnutls-cli: second DTLS peer for the handshake engine
  tshark                        # Wireshark's dissector: decrypts our DTLS records with our key log
  valgrind                      # constant-time validation (tests/ct) and callgrind profiles
  samba smbclient               # Samba's smbd and smbclient: the SMB client's interop peer and baseline
  gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad
                                # gst-launch-1.0, audiotestsrc, rtpL16pay/rtpstreampay, srtpenc/srtpdec:
                                # real programs run on the drop-in libsrtp2 (tests/compat)
  python3-pylibsrtp             # pylibsrtp (aiortc's SRTP): the same, from Python
  python3-aiortc                # aiortc's DTLS transport: a WebRTC DTLS client for the CLI server
)

# --arm adds what the aarch64 and armv7 presets need: Debian's cross toolchains, qemu-user to
# run the tests, and the target architectures' libraries through multiarch. libsrtp2 is taken
# as its runtime package only: libsrtp2-dev is not Multi-Arch: same (installing the arm64 one
# would remove the amd64 one), so cmake/Libsrtp2.cmake pairs the host's headers, which are
# the same on every architecture, with the target's libsrtp2.so.1.
arm=0
for arg in "$@"; do
  case "$arg" in
    --arm) arm=1 ;;
    *) echo "usage: $0 [--arm]" >&2; exit 2 ;;
  esac
done
if ((arm)); then
  packages+=(qemu-user)
  for arch in arm64 armhf; do
    dpkg --print-foreign-architectures | grep -qx "$arch" || {
      if [ "$(id -u)" -ne 0 ]; then sudo dpkg --add-architecture "$arch"; else dpkg --add-architecture "$arch"; fi
    }
    packages+=("crossbuild-essential-$arch" "libssl-dev:$arch" "libgtest-dev:$arch"
               "libgmock-dev:$arch" "libbenchmark-dev:$arch" "libfmt-dev:$arch"
               "libsrtp2-1:$arch")
  done
fi

# Intel ipsec-mb (VAES/AVX-512 GCM and ChaCha20-Poly1305 kernels) exists for x86-64 only; on
# an ARM board the build leaves it out by itself (CMakeLists.txt).
if [ "$(dpkg --print-architecture)" = amd64 ]; then
  packages+=(libipsec-mb-dev)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "installing: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  # A mirror caught mid-sync answers an index of the wrong size ("Mirror sync in progress?"):
  # try the update again, then go on with whatever index apt has.
  for attempt in 1 2 3; do
    $SUDO apt-get update -qq && break
    echo "apt-get update failed (attempt $attempt of 3)" >&2
    if ((attempt < 3)); then sleep 15; fi
  done
  install=(env DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends)
  if ! "${install[@]}" "${missing[@]}"; then
    # Multi-Arch: same libraries (libssl3, libnss3, ...) must have one version on every
    # architecture. When the security suite's index for a foreign architecture could not be
    # read, its newer amd64 versions have no arm64/armhf twin; the release's own versions,
    # which every architecture has, then still install together.
    ((arm)) || exit 1
    . /etc/os-release
    echo "retrying with the ${VERSION_CODENAME} release's versions preferred (-t ${VERSION_CODENAME})" >&2
    "${install[@]}" -t "$VERSION_CODENAME" "${missing[@]}"
  fi
fi
