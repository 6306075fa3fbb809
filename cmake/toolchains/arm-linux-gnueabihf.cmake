# Cross-compiling for armv7 (Debian's armhf: hard-float, VFPv3-D16 baseline) with Debian's cross
# toolchain (crossbuild-essential-armhf) against the armhf libraries installed through
# multiarch (scripts/install-deps.sh --arm). NEON is not in armhf's baseline, so the compiler
# keeps to it and the NEON kernels are chosen at run time (getauxval). The tests run under
# qemu-user; WIRESEAL_QEMU_CPU picks the emulated CPU model.
set(WIRESEAL_TARGET_TRIPLE arm-linux-gnueabihf)
set(WIRESEAL_QEMU qemu-arm)
set(CMAKE_SYSTEM_PROCESSOR armv7l)
include(${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake)
