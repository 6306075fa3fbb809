# The shipped `wireseal` binary must not contain test or benchmark code: no counting allocator
# (wireseal::test::, or a malloc / operator new of its own), no Google Benchmark, no libsrtp2,
# neither linked statically (defined symbols) nor dynamically (undefined symbols, NEEDED
# entries). The runner, which must contain all of them, is checked the other way round, so a
# stripped binary or a broken nm cannot make this test pass vacuously.
#
# Inputs: CLI, RUNNER (binaries), NM, READELF (tools).

function(read_symbols binary out_var)
  execute_process(COMMAND ${NM} -C ${binary} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${NM} -C ${binary} failed (${rc}): ${err}")
  endif()
  # Anchor every line at both ends for the patterns below.
  set(${out_var} "\n${out}" PARENT_SCOPE)
endfunction()

function(read_needed binary out_var)
  execute_process(COMMAND ${READELF} -d ${binary} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${READELF} -d ${binary} failed (${rc}): ${err}")
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

# What must not be in the CLI, each a regex over `nm -C` output, with what it means.
set(forbidden_symbols
  "[^\n]*wireseal::test::[^\n]*"                     "the counting allocator (tests/support)"
  "\n[0-9a-f]+ [TW] malloc\n"                         "a replacement malloc"
  "\n[0-9a-f]+ [TW] operator new\\(unsigned (long|int)\\)\n" "a replacement operator new"
  "[^\n]*benchmark::[^\n]*"                          "Google Benchmark"
  "[ \n]srtp_[a-z0-9_]+"                              "libsrtp2")
set(forbidden_libraries "libbenchmark[^]]*" "libsrtp2[^]]*")

read_symbols(${CLI} cli_symbols)
string(FIND "${cli_symbols}" "wireseal::cli::" has_cli_symbols)
if(has_cli_symbols EQUAL -1)
  message(FATAL_ERROR "${CLI}: nm shows no wireseal::cli:: symbols (stripped?); cannot check")
endif()
set(failures "")
list(LENGTH forbidden_symbols n)
math(EXPR last "${n} - 1")
foreach(i RANGE 0 ${last} 2)
  math(EXPR j "${i} + 1")
  list(GET forbidden_symbols ${i} pattern)
  list(GET forbidden_symbols ${j} meaning)
  string(REGEX MATCH "${pattern}" found "${cli_symbols}")
  if(found)
    string(STRIP "${found}" found)
    string(APPEND failures "  ${meaning}: ${found}\n")
  endif()
endforeach()
read_needed(${CLI} cli_needed)
foreach(pattern IN LISTS forbidden_libraries)
  string(REGEX MATCH "${pattern}" found "${cli_needed}")
  if(found)
    string(APPEND failures "  shared library ${found}\n")
  endif()
endforeach()
if(failures)
  message(FATAL_ERROR "${CLI} links test or benchmark code:\n${failures}")
endif()

# The runner has each of them, so the patterns above do find what they look for.
read_symbols(${RUNNER} runner_symbols)
foreach(i RANGE 0 ${last} 2)
  math(EXPR j "${i} + 1")
  list(GET forbidden_symbols ${i} pattern)
  list(GET forbidden_symbols ${j} meaning)
  string(REGEX MATCH "${pattern}" found "${runner_symbols}")
  if(NOT found)
    message(FATAL_ERROR "${RUNNER}: no symbol of ${meaning} (pattern ${pattern}); "
                        "the check above may be vacuous")
  endif()
endforeach()
message(STATUS "${CLI}: no counting allocator, Google Benchmark or libsrtp2")
