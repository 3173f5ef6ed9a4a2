# The portable build's toolchain (docs/portable.md): Zig's clang for glibc 2.28 with its own
# libc++ linked in, the dependencies of scripts/portable/deps.sh, nothing of the host's.
#   cmake -DCMAKE_TOOLCHAIN_FILE=cmake/zig-toolchain.cmake -DABICHECK_PORTABLE_PREFIX=PREFIX ...
# PREFIX is what deps.sh printed: its bin/ holds the compiler wrappers (zcc, zc++, zar, zranlib),
# which carry the target; its include/ and lib/ the dependencies.
if(NOT ABICHECK_PORTABLE_PREFIX)
  set(ABICHECK_PORTABLE_PREFIX "$ENV{ABICHECK_PORTABLE_PREFIX}")
endif()
if(NOT EXISTS "${ABICHECK_PORTABLE_PREFIX}/bin/zcc")
  message(FATAL_ERROR "ABICHECK_PORTABLE_PREFIX: no ${ABICHECK_PORTABLE_PREFIX}/bin/zcc (run scripts/portable/deps.sh)")
endif()
# try_compile runs in its own project: hand it the prefix.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES ABICHECK_PORTABLE_PREFIX)
set(ENV{ABICHECK_PORTABLE_PREFIX} "${ABICHECK_PORTABLE_PREFIX}")

file(READ "${ABICHECK_PORTABLE_PREFIX}/bin/zcc" _zcc)
string(REGEX MATCH "-target ([a-z0-9_]+)-" _ "${_zcc}")
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${CMAKE_MATCH_1})
set(CMAKE_C_COMPILER "${ABICHECK_PORTABLE_PREFIX}/bin/zcc")
set(CMAKE_CXX_COMPILER "${ABICHECK_PORTABLE_PREFIX}/bin/zc++")
set(CMAKE_AR "${ABICHECK_PORTABLE_PREFIX}/bin/zar" CACHE FILEPATH "")
set(CMAKE_RANLIB "${ABICHECK_PORTABLE_PREFIX}/bin/zranlib" CACHE FILEPATH "")

# Find libraries, headers and packages in the prefix only; programs (pkg-config, nasm) on the host.
set(CMAKE_FIND_ROOT_PATH "${ABICHECK_PORTABLE_PREFIX}")
set(CMAKE_PREFIX_PATH "${ABICHECK_PORTABLE_PREFIX}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
set(ENV{PKG_CONFIG_LIBDIR} "${ABICHECK_PORTABLE_PREFIX}/lib/pkgconfig")
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
set(ABICHECK_PORTABLE ON)
