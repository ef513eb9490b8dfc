#!/usr/bin/env bash
# Stages fmt and doctest for a machine that lacks them (and has no network): copies this machine's
# Debian headers into .gpu-deps/include and writes minimal CMake package configs, so that
#   cmake -DCMAKE_PREFIX_PATH=$PWD/.gpu-deps ...
# finds fmt::fmt (header-only, FMT_HEADER_ONLY=1) and doctest::doctest there.
# .gpu-deps/ is git-ignored: it travels with the working tree to the GPU machine, never into a commit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

FMT_INCLUDE=${FMT_INCLUDE:-/usr/include/fmt}
DOCTEST_INCLUDE=${DOCTEST_INCLUDE:-/usr/include/doctest}
PREFIX=.gpu-deps

[[ -f $FMT_INCLUDE/format.h && -f $FMT_INCLUDE/format-inl.h ]] ||
  { echo "stage-gpu-deps: fmt headers not found in $FMT_INCLUDE (apt-get install libfmt-dev)" >&2; exit 1; }
[[ -f $DOCTEST_INCLUDE/doctest.h ]] ||
  { echo "stage-gpu-deps: doctest.h not found in $DOCTEST_INCLUDE (apt-get install doctest-dev)" >&2; exit 1; }

fmt_version=$(awk '/#define FMT_VERSION /{v=$3; printf "%d.%d.%d", v/10000, (v/100)%100, v%100}' "$FMT_INCLUDE/core.h")
doctest_version=$(awk '/#define DOCTEST_VERSION_(MAJOR|MINOR|PATCH) /{v = v (v == "" ? "" : ".") $3} END {print v}' \
  "$DOCTEST_INCLUDE/doctest.h")
[[ -n $fmt_version && -n $doctest_version ]] || { echo "stage-gpu-deps: could not read the fmt/doctest versions" >&2; exit 1; }

rm -rf "$PREFIX"
mkdir -p "$PREFIX/include" "$PREFIX/lib/cmake/fmt" "$PREFIX/lib/cmake/doctest"
cp -R "$FMT_INCLUDE" "$PREFIX/include/fmt"
cp -R "$DOCTEST_INCLUDE" "$PREFIX/include/doctest"

# Paths are computed from the config file's own location, so the tree can move anywhere.
cat >"$PREFIX/lib/cmake/fmt/fmt-config.cmake" <<'CMAKE'
# Staged by scripts/stage-gpu-deps.sh: fmt used header-only.
get_filename_component(_fmt_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET fmt::fmt)
  add_library(fmt::fmt INTERFACE IMPORTED)
  set_target_properties(fmt::fmt PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${_fmt_prefix}/include"
    INTERFACE_COMPILE_DEFINITIONS "FMT_HEADER_ONLY=1")
endif()
if(NOT TARGET fmt::fmt-header-only)
  add_library(fmt::fmt-header-only INTERFACE IMPORTED)
  set_target_properties(fmt::fmt-header-only PROPERTIES INTERFACE_LINK_LIBRARIES fmt::fmt)
endif()
unset(_fmt_prefix)
CMAKE
cat >"$PREFIX/lib/cmake/doctest/doctest-config.cmake" <<'CMAKE'
# Staged by scripts/stage-gpu-deps.sh: doctest is header-only.
get_filename_component(_doctest_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET doctest::doctest)
  add_library(doctest::doctest INTERFACE IMPORTED)
  set_target_properties(doctest::doctest PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_doctest_prefix}/include")
endif()
unset(_doctest_prefix)
CMAKE
for pkg in fmt:$fmt_version doctest:$doctest_version; do
  name=${pkg%%:*} version=${pkg#*:}
  cat >"$PREFIX/lib/cmake/$name/$name-config-version.cmake" <<CMAKE
# Staged by scripts/stage-gpu-deps.sh. Same-major versions are compatible.
set(PACKAGE_VERSION "$version")
if(PACKAGE_FIND_VERSION AND PACKAGE_VERSION VERSION_LESS PACKAGE_FIND_VERSION)
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
elseif(PACKAGE_FIND_VERSION AND NOT PACKAGE_FIND_VERSION_MAJOR STREQUAL "${version%%.*}")
  set(PACKAGE_VERSION_COMPATIBLE FALSE)
else()
  set(PACKAGE_VERSION_COMPATIBLE TRUE)
  if(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)
    set(PACKAGE_VERSION_EXACT TRUE)
  endif()
endif()
CMAKE
done

echo "stage-gpu-deps: $PREFIX/ holds fmt $fmt_version (header-only) and doctest $doctest_version;" \
  "use -DCMAKE_PREFIX_PATH=\$PWD/$PREFIX ($(du -sh "$PREFIX" | cut -f1))"
