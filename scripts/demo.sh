#!/usr/bin/env bash
# Quick start #1: set up and build, then compile the softmax kernel, run it on the GPU if there is
# one, check it against a float64 reference and report the PTX location and the bandwidth.
#
#   bash scripts/demo.sh [extra tilejit-softmax options]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

bash scripts/setup.sh
echo "demo: build/examples/tilejit-softmax --rows 4096 --cols 4096 $*"
exec build/examples/tilejit-softmax --rows 4096 --cols 4096 "$@"
