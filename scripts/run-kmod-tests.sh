#!/usr/bin/env bash
# Run only the kernel-module tests (tests/kmod) without the rest of the
# build: configure tests/kmod standalone, build the guest program and run
# kmod_uapi_cxx, kmod_checkpatch and kmod_vm (build coolhand.ko and
# coolhand_emul.ko, boot the qemu guest). Prerequisites:
# scripts/install-deps.sh --vm.
#
#   scripts/run-kmod-tests.sh [BUILD_DIR]     (default: build-kmod)
#
# Environment as for tests/kmod/run-vm-tests.sh (COOLHAND_VM_*); CI=true
# turns missing prerequisites into failures.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build-kmod}"
cmake -S tests/kmod -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_FLAGS=-Werror >/dev/null
cmake --build "$build" -j 2
ctest --test-dir "$build" --output-on-failure
