# Runs the BoGo DTLS 1.2 tests against the shim and prints the runner's summary. A "SKIP:"
# line (ctest: skipped) when the runner is absent. Otherwise every test must pass except those the
# config disables (each with its reason) and those the shim answers "unimplemented" (exit 89:
# a flag or feature the engine lacks, e.g. OCSP stapling), and the counts are printed. Fewer
# passes than MIN_PASSED fails too: a test that slid into "unimplemented" is a regression.
if(NOT EXISTS "${BOGO_DIR}/run-dtls12.sh")
  # ctest reports the test as skipped by this line (SKIP_REGULAR_EXPRESSION): CMake 3.25 has
  # no cmake_language(EXIT) to return a skip code from a script.
  message("SKIP: BoGo runner not found in ${BOGO_DIR} (set WIRESEAL_BOGO_DIR)")
  return()
endif()
execute_process(COMMAND bash "${BOGO_DIR}/run-dtls12.sh" "${SHIM}" "${CONFIG}" -loose-errors
                        -allow-unimplemented -pipe
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
string(REGEX MATCHALL "PASSED \\([^)]*\\)" passed "${out}")
string(REGEX MATCHALL "UNIMPLEMENTED \\([^)]*\\)" unimplemented "${out}")
string(REGEX MATCHALL "FAILED \\([^)]*\\)" failures "${out}")
list(LENGTH passed n_passed)
list(LENGTH unimplemented n_unimplemented)
list(LENGTH failures n_failed)
file(STRINGS "${BOGO_DIR}/dtls12-tests.txt" all_tests)
list(LENGTH all_tests n_all)
math(EXPR n_disabled "${n_all} - ${n_passed} - ${n_unimplemented} - ${n_failed}")
message("BoGo DTLS 1.2: ${n_all} tests: ${n_passed} passed, ${n_failed} failed, "
        "${n_unimplemented} unimplemented, ${n_disabled} disabled (tests/conformance/bogo_config.json)")
foreach(f IN LISTS failures)
  message("${f}")
endforeach()
if(NOT rc EQUAL 0 OR n_failed GREATER 0)
  message("${err}")
  message(FATAL_ERROR "BoGo DTLS 1.2: failures above (exit ${rc})")
endif()
if(n_passed LESS MIN_PASSED)
  message(FATAL_ERROR "BoGo DTLS 1.2: ${n_passed} passed, fewer than the ${MIN_PASSED} that did")
endif()
