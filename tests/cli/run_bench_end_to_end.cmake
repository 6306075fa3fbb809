# `wireseal bench` end to end through its child process, wireseal-bench-runner: --list, one
# tiny run (the table on stdout, progress on stderr, --out JSON), the message for a runner
# that does not exist, and a failed benchmark reported by a stand-in runner.
# Inputs: CLI (the binary), WORK_DIR (scratch), and in cross builds RUNNER: the runner under
# the emulator, given to the CLI through WIRESEAL_BENCH_RUNNER (cmake/TargetProgram.cmake).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(filter "^crypto/aes128gcm_seal/(wireseal|openssl)/16$")

macro(use_default_runner)
  if(RUNNER)
    set(ENV{WIRESEAL_BENCH_RUNNER} "${RUNNER}")
  else()
    unset(ENV{WIRESEAL_BENCH_RUNNER})
  endif()
endmacro()
use_default_runner()

function(run_cli)
  execute_process(COMMAND ${CLI} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  set(rc "${rc}" PARENT_SCOPE)
  set(out "${out}" PARENT_SCOPE)
  set(err "${err}" PARENT_SCOPE)
endfunction()

function(expect condition what)
  if(NOT ${condition})
    message(FATAL_ERROR "${what}\nexit status: ${rc}\nstdout:\n${out}\nstderr:\n${err}")
  endif()
endfunction()

# 1. --list answers from the runner's registry, in run order.
run_cli(bench --list --filter "${filter}")
string(COMPARE EQUAL "${out}"
       "crypto/aes128gcm_seal/wireseal/16\ncrypto/aes128gcm_seal/openssl/16\n" listed)
expect(listed "--list did not print exactly the two selected benchmarks")

# 2. A run: one table row pairing wireseal (0 B/op, 0 allocs/op) with the baseline.
run_cli(bench --filter "${filter}" --min-time 0.001 --repetitions 3 --out "${WORK_DIR}/run.json")
string(COMPARE EQUAL "${rc}" "0" ran)
expect(ran "wireseal bench failed")
string(REGEX MATCH "\ncrypto/aes128gcm_seal +16 +[0-9.]+ +[0-9]+ +0 +0 +[0-9.]+ +[0-9.]+x +[a-z][^\n]*\n"
       row "\n${out}")
expect(row "no table row for crypto/aes128gcm_seal at 16 bytes")
string(REGEX MATCH "\\[2/2\\] +[0-9]+s crypto/aes128gcm_seal/openssl/16" progress "${err}")
expect(progress "no progress line on stderr")
string(REGEX MATCH "\nran 2 benchmarks in [0-9]+ s\n" summarised "\n${err}")
expect(summarised "no summary line on stderr")
file(READ "${WORK_DIR}/run.json" json)
string(JSON rows LENGTH "${json}" rows)
string(JSON samples LENGTH "${json}" rows 0 samples_ns)
string(JSON impl GET "${json}" rows 1 impl)
string(COMPARE EQUAL "${rows}/${samples}/${impl}" "2/3/openssl" saved)
expect(saved "--out JSON: want 2 rows of 3 samples, the second openssl; got ${rows}/${samples}/${impl}")

# 3. A runner that is not there: a clear error, not a crash.
set(ENV{WIRESEAL_BENCH_RUNNER} "${WORK_DIR}/no-such-runner")
run_cli(bench --list)
use_default_runner()
string(FIND "${err}" "WIRESEAL_BENCH_RUNNER=${WORK_DIR}/no-such-runner is not an executable file"
       named)
set(failed_clearly FALSE)
if(NOT named EQUAL -1 AND NOT rc EQUAL 0)
  set(failed_clearly TRUE)
endif()
expect(failed_clearly "a missing runner must fail with a message naming it")

# 4. A failed benchmark, as the runner reports it (protocol: bench/results_stream.h), from a
# stand-in runner: its row is still shown, a FAILED line names it, and the exit status is 1.
set(fake_runner "${WORK_DIR}/fake-runner")
file(WRITE "${fake_runner}" [=[#!/bin/sh
for arg in "$@"; do
  case "$arg" in
    --benchmark_list_tests=true) echo crypto/fake_op/wireseal/16; exit 0 ;;
    --results_fd=3)
      echo '{"name": "crypto/fake_op/wireseal/16", "runs": [{"real_time_ns": 10,' \
           '"bytes_per_op": 0, "allocs_per_op": 0, "payload_bytes": 16}],' \
           '"error": "operation failed"}' >&3
      exit 0 ;;
  esac
done
exit 2
]=])
file(CHMOD "${fake_runner}" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE)
set(ENV{WIRESEAL_BENCH_RUNNER} "${fake_runner}")
run_cli(bench --filter fake_op --repetitions 1)
use_default_runner()
string(REGEX MATCH "\ncrypto/fake_op +16 +10.0 +1600 +0 +0 +- +- +-\n" fake_row "\n${out}")
expect(fake_row "no row for the failed benchmark's repetitions")
string(FIND "${err}" "FAILED crypto/fake_op/wireseal/16: operation failed" failed_line)
set(reported_failure FALSE)
if(NOT failed_line EQUAL -1 AND rc EQUAL 1)
  set(reported_failure TRUE)
endif()
expect(reported_failure "a failed benchmark must be named on stderr and exit with status 1")
