# Cross-compiling for aarch64 with Debian's cross toolchain (crossbuild-essential-arm64) against
# the arm64 libraries installed through multiarch (scripts/install-deps.sh --arm). Tests run
# under qemu-user, with the target's loader and libraries found through -L.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(WIRESEAL_TARGET_TRIPLE aarch64-linux-gnu)
set(CMAKE_C_COMPILER ${WIRESEAL_TARGET_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${WIRESEAL_TARGET_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${WIRESEAL_TARGET_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${WIRESEAL_TARGET_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${WIRESEAL_TARGET_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
set(CMAKE_CROSSCOMPILING_EMULATOR qemu-aarch64;-L;/usr/${WIRESEAL_TARGET_TRIPLE})
