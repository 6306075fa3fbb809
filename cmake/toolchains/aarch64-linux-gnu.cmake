# Cross-compiling for aarch64 with Debian's cross toolchain (crossbuild-essential-arm64) against
# the arm64 libraries installed through multiarch (scripts/install-deps.sh --arm). The tests
# run under qemu-user; WIRESEAL_QEMU_CPU picks the emulated CPU model (the default, "max", has
# every extension the kernels use).
set(WIRESEAL_TARGET_TRIPLE aarch64-linux-gnu)
set(WIRESEAL_QEMU qemu-aarch64)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
