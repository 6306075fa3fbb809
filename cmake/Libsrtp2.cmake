# wireseal::libsrtp2: Debian's libsrtp2, the SRTP baseline (bench/) and interop oracle (tests/).
# Natively it comes from pkg-config (libsrtp2-dev). A cross build takes the target's
# libsrtp2.so.1 from its runtime package (libsrtp2-1:arm64 / :armhf) and the host's headers:
# libsrtp2-dev is not Multi-Arch: same, so Debian cannot install it for two architectures, and
# its headers are the same on every architecture (no generated configuration in them).
if(TARGET wireseal::libsrtp2)
  return()
endif()
find_package(PkgConfig REQUIRED)
pkg_check_modules(LIBSRTP2 QUIET IMPORTED_TARGET GLOBAL libsrtp2)
if(LIBSRTP2_FOUND)
  add_library(wireseal::libsrtp2 ALIAS PkgConfig::LIBSRTP2)
  return()
endif()
if(CMAKE_CROSSCOMPILING)
  find_file(WIRESEAL_LIBSRTP2_SO libsrtp2.so.1 PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}
            NO_DEFAULT_PATH)
  find_path(WIRESEAL_LIBSRTP2_INCLUDE srtp2/srtp.h PATHS /usr/include NO_DEFAULT_PATH)
  if(WIRESEAL_LIBSRTP2_SO AND WIRESEAL_LIBSRTP2_INCLUDE)
    add_library(wireseal::libsrtp2 SHARED IMPORTED GLOBAL)
    set_target_properties(wireseal::libsrtp2 PROPERTIES
      IMPORTED_LOCATION "${WIRESEAL_LIBSRTP2_SO}" IMPORTED_NO_SONAME OFF
      INTERFACE_INCLUDE_DIRECTORIES "${WIRESEAL_LIBSRTP2_INCLUDE}")
    return()
  endif()
endif()
message(FATAL_ERROR "wireseal: libsrtp2 not found. Install it with scripts/install-deps.sh "
                    "(Debian: libsrtp2-dev; cross builds: libsrtp2-1:<arch> with --arm).")
