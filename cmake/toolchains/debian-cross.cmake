# What every Debian cross target shares (included by the per-target toolchain files, which set
# WIRESEAL_TARGET_TRIPLE, WIRESEAL_QEMU and CMAKE_SYSTEM_PROCESSOR): the cross compilers, the
# multiarch library and pkg-config directories, and qemu-user as the emulator that ctest and
# gtest_discover_tests run the target's executables under. Multiarch puts the target's loader
# and libraries where the emulated loader looks for them, so qemu needs no sysroot.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_C_COMPILER ${WIRESEAL_TARGET_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${WIRESEAL_TARGET_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${WIRESEAL_TARGET_TRIPLE})
set(CMAKE_FIND_ROOT_PATH /usr/${WIRESEAL_TARGET_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/${WIRESEAL_TARGET_TRIPLE}/pkgconfig:/usr/share/pkgconfig)
if(NOT DEFINED WIRESEAL_QEMU_CPU)
  set(WIRESEAL_QEMU_CPU max)
endif()
set(CMAKE_CROSSCOMPILING_EMULATOR ${WIRESEAL_QEMU};-cpu;${WIRESEAL_QEMU_CPU})
