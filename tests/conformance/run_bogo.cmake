# Runs the BoGo DTLS 1.2 tests against the shim and prints the runner's summary. Exit 77
# (ctest: skipped) when the runner is absent; otherwise the runner's verdict: every test not
# listed in the config's DisabledTests must pass.
if(NOT EXISTS "${BOGO_DIR}/run-dtls12.sh")
  message("SKIP: BoGo runner not found in ${BOGO_DIR} (set WIRESEAL_BOGO_DIR)")
  cmake_language(EXIT 77)
endif()
execute_process(COMMAND bash "${BOGO_DIR}/run-dtls12.sh" "${SHIM}" "${CONFIG}" -loose-errors
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}")
if(NOT rc EQUAL 0)
  message("${err}")
  message(FATAL_ERROR "BoGo DTLS 1.2: failures above (exit ${rc})")
endif()
