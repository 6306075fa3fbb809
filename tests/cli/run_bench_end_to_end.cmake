# `wireseal bench` end to end through its child process, wireseal-bench-runner: --list, one
# tiny run (the table on stdout, progress on stderr, --out JSON), and the message for a
# runner that does not exist. Inputs: CLI (the binary), WORK_DIR (scratch).
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
set(filter "^crypto/aes128gcm_seal/(wireseal|openssl)/16$")

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
string(REGEX MATCH "\ncrypto/aes128gcm_seal +16 +[0-9.]+ +[0-9]+ +0 +0 +[0-9.]+ +[0-9.]+x\n"
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
unset(ENV{WIRESEAL_BENCH_RUNNER})
string(FIND "${err}" "WIRESEAL_BENCH_RUNNER=${WORK_DIR}/no-such-runner is not an executable file"
       named)
set(failed_clearly FALSE)
if(NOT named EQUAL -1 AND NOT rc EQUAL 0)
  set(failed_clearly TRUE)
endif()
expect(failed_clearly "a missing runner must fail with a message naming it")
