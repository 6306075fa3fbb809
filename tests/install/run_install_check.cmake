# Installs the built library into a scratch prefix, then builds the consumer two ways:
# with find_package(wireseal) and with pkg-config, and checks that the installed CLI finds its
# benchmark runner. Run by ctest as install.consumer.
# In a cross build TOOLCHAIN, LIBRARY_ARCH and EMULATOR (space-separated) say how to build for
# and run on the target.
file(REMOVE_RECURSE "${WORK_DIR}")
separate_arguments(emulator UNIX_COMMAND "${EMULATOR}")
set(toolchain_arg "")
if(TOOLCHAIN)
  set(toolchain_arg "-DCMAKE_TOOLCHAIN_FILE=${TOOLCHAIN}")
endif()
set(prefix "${WORK_DIR}/prefix")

function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

run(${CMAKE_COMMAND} --install "${BUILD_DIR}" --prefix "${prefix}")

# 1. CMake package.
run(${CMAKE_COMMAND} -S "${SOURCE_DIR}/consumer" -B "${WORK_DIR}/cmake-build" -G "${GENERATOR}"
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_PREFIX_PATH=${prefix} ${toolchain_arg})
run(${CMAKE_COMMAND} --build "${WORK_DIR}/cmake-build")
run(${emulator} "${WORK_DIR}/cmake-build/consumer")
message(STATUS "find_package consumer: ${last_output}")

# 2. pkg-config (static library, so --static pulls in libcrypto and ipsec-mb).
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pc_dirs "${prefix}/lib*/pkgconfig" "${prefix}/lib/*/pkgconfig")
list(JOIN pc_dirs ":" pc_path)
set(ENV{PKG_CONFIG_PATH} "${pc_path}")
if(LIBRARY_ARCH AND TOOLCHAIN)
  set(ENV{PKG_CONFIG_LIBDIR} "/usr/lib/${LIBRARY_ARCH}/pkgconfig:/usr/share/pkgconfig")
endif()
run(${PKG_CONFIG} --cflags --libs --static wireseal)
string(STRIP "${last_output}" flags)
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX} "${SOURCE_DIR}/consumer/main.cc" -o "${WORK_DIR}/pc-consumer" ${flags})
run(${emulator} "${WORK_DIR}/pc-consumer")
message(STATUS "pkg-config consumer: ${last_output}")

# 3. The installed CLI finds the installed benchmark runner (libexec/wireseal/, relative to
# bin/) without help: `wireseal bench --list` answers from the runner's registry.
if(EXISTS "${prefix}/bin/wireseal" AND EMULATOR)
  # Under qemu-user the CLI could not exec the runner, a foreign binary, by itself.
  message(STATUS "cross build: the installed CLI's own runner lookup is checked natively only")
elseif(EXISTS "${prefix}/bin/wireseal")
  unset(ENV{WIRESEAL_BENCH_RUNNER})
  run("${prefix}/bin/wireseal" bench --list --filter "^crypto/aes128gcm_seal/wireseal/16$")
  if(NOT last_output STREQUAL "crypto/aes128gcm_seal/wireseal/16\n")
    message(FATAL_ERROR "installed wireseal bench --list printed:\n${last_output}")
  endif()
  message(STATUS "installed wireseal bench finds its runner")
endif()
