# wireseal_target_program(<var> <target>) sets <var> to a command that runs the executable
# <target> on the build machine: its file natively, and in a cross build a generated
# shell script that runs it under CMAKE_CROSSCOMPILING_EMULATOR (qemu-user). Tests that start
# one of our programs as a child process (the CLI, the libsrtp API driver, the BoGo shim), and
# the CLI starting wireseal-bench-runner, need it: ctest puts the emulator in front of the
# commands it runs itself, but a process that execs a foreign binary gets ENOEXEC unless the
# kernel has a binfmt_misc handler, which a CI container cannot rely on.
function(wireseal_target_program var target)
  if(NOT CMAKE_CROSSCOMPILING OR NOT CMAKE_CROSSCOMPILING_EMULATOR)
    set(${var} "$<TARGET_FILE:${target}>" PARENT_SCOPE)
    return()
  endif()
  set(script "${CMAKE_BINARY_DIR}/emulated/${target}")
  set(${var} "${script}" PARENT_SCOPE)
  # One script per target, however many directories ask for it.
  get_property(generated GLOBAL PROPERTY WIRESEAL_EMULATED_PROGRAMS)
  if(target IN_LIST generated)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY WIRESEAL_EMULATED_PROGRAMS ${target})
  list(JOIN CMAKE_CROSSCOMPILING_EMULATOR " " emulator)
  file(GENERATE OUTPUT "${script}"
       CONTENT "#!/bin/sh\n# ${target} under ${emulator} (cmake/TargetProgram.cmake)\nexec ${emulator} \"$<TARGET_FILE:${target}>\" \"$@\"\n"
       FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                        WORLD_READ WORLD_EXECUTE)
endfunction()
