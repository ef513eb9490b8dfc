#!/usr/bin/env bash
# Checks every tracked *.h / *.cpp, and the hand-written CUDA probes (bench/probes/*.cu, *.cuh; not
# the golden files of generated code), against .clang-format without changing anything; lists the
# files that differ. Run by ctest as `format_check`. To fix one file: clang-format -i <file>.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

CLANG_FORMAT=${CLANG_FORMAT:-clang-format}
if ! command -v "$CLANG_FORMAT" >/dev/null 2>&1; then
  echo "check-format: $CLANG_FORMAT is not installed; install it (apt-get install clang-format, or bash scripts/setup.sh)" >&2
  exit 1
fi
# safe.directory: CI may run as a different user than the one who owns the clone.
GIT=(git -c safe.directory="$PWD")
if ! "${GIT[@]}" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
  echo "check-format: not a git work tree; the files to check come from git ls-files" >&2
  exit 1
fi

mapfile -t files < <("${GIT[@]}" ls-files -- '*.h' '*.cpp' 'bench/probes/*.cu' 'bench/probes/*.cuh')
offenders=()
for f in "${files[@]}"; do
  [[ -f $f ]] || continue  # deleted in the work tree, not yet in the index
  "$CLANG_FORMAT" --dry-run -Werror "$f" >/dev/null 2>&1 || offenders+=("$f")
done

if ((${#offenders[@]} > 0)); then
  echo "check-format: ${#offenders[@]} of ${#files[@]} files are not formatted ($("$CLANG_FORMAT" --version)):"
  printf '  %s\n' "${offenders[@]}"
  echo "fix with: clang-format -i ${offenders[*]}"
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
