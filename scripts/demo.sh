#!/usr/bin/env bash
# The README's first command: install what is needed, build, and run the
# simulator's bundled reference scenario (a 7" UMPC gaming for 30 minutes
# under the coolhand policy). Writes ./coolhand-sim-out/{trace.csv,metrics.json,plot.svg}.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCOOLHAND_VM_TESTS=OFF >/dev/null
cmake --build build -j "${JOBS:-$(nproc)}" --target coolhand-sim
exec build/sim/coolhand-sim "$@"
