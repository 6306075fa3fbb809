# wireseal_warnings: the warning set for wireseal's own code (never for third-party headers,
# which come in as SYSTEM includes). Verified clean with g++ 12 and clang 14.
add_library(wireseal_warnings INTERFACE)
target_compile_options(wireseal_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wimplicit-fallthrough
  -Wnon-virtual-dtor -Wold-style-cast -Wcast-qual -Wformat=2 -Wundef -Wvla
  $<$<CXX_COMPILER_ID:GNU>:-Wmissing-declarations>
  $<$<CXX_COMPILER_ID:Clang>:-Wmissing-prototypes -Wextra-semi -Wnewline-eof -Wcomma>
  $<$<BOOL:${WIRESEAL_WERROR}>:-Werror>)
