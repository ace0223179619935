#!/usr/bin/env bash
# Install every build and test dependency of coolhand from Debian 12's archive
# (plus, downloaded only, newer kernels from trixie-backports: see below).
# Idempotent: packages already present are skipped by apt-get. Run as root (or
# with sudo available). Used by both README commands and by .ci/run: the first
# (scripts/demo.sh) needs no kernel bits, the second (scripts/test-all.sh)
# passes --tests and --vm.
#
#   scripts/install-deps.sh          build + unit/e2e test dependencies
#   scripts/install-deps.sh --tests  also the kernel sources the kernel differential
#                                    tests build (linux-source-6.1; linux-source-7.3,
#                                    downloaded only, scripts/fetch-kernel-source.sh)
#   scripts/install-deps.sh --vm     also what the qemu tests need (kernel module,
#                                    user thresholds: acpica-tools' iasl and
#                                    trixie-backports kernels, downloaded only);
#                                    implies --tests
set -euo pipefail

want_tests=0
want_vm=0
for arg in "$@"; do
  case "$arg" in
    --tests) want_tests=1 ;;
    --vm) want_vm=1 want_tests=1 ;;
    -h|--help) sed -n '2,16p' "$0"; exit 0 ;;
    *) echo "install-deps.sh: unknown option '$arg'" >&2; exit 2 ;;
  esac
done

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps.sh: need root or sudo" >&2; exit 1; }
  SUDO=sudo
fi

pkgs=(
  build-essential cmake ninja-build pkg-config git python3
  clang clang-format clang-tidy libclang-rt-14-dev
  libyaml-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
  libfmt-dev nlohmann-json3-dev libcli11-dev libeigen3-dev
  libglpk-dev  # coolhand-sim bound: the performance bound's LP
  libnlopt-dev  # coolhand-sim tune: COBYLA, the local stage
  libnl-3-dev libnl-genl-3-dev libudev-dev libsystemd-dev libsdbus-c++-dev libsdbus-c++-bin
  libarchive-dev  # probe archives: coolhandctl links it, coolhandd dlopens libarchive.so.13
  zlib1g-dev  # probe_archive_test and fuzz_probe_archive gzip damaged tars
  dbus
  munge slurmctld slurmd slurm-client  # tests/slurm: a real single-node Slurm
)
if [ "$want_tests" -eq 1 ]; then
  pkgs+=(linux-source-6.1)  # tests/sim/kernel_diff builds 6.1's governors from it
fi
if [ "$want_vm" -eq 1 ]; then
  pkgs+=(linux-headers-amd64 qemu-system-x86 busybox-static cpio kmod acpica-tools
    libelf-dev  # fetch-guest-kbuild.sh rebuilds the 7.3 kbuild's objtool
    thermald)  # the efficiency peer in the guest (scripts/measure-thermald-vm.sh)
fi

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if [ "${#missing[@]}" -gt 0 ]; then
  echo "install-deps.sh: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$want_tests" -eq 1 ]; then
  # 7.3's sources for sim_kernel_diff_7.3 (linux-source-7.3 from
  # trixie-backports, downloaded only, private apt; kept whole as well for
  # fetch-guest-kbuild.sh below, so it is downloaded once).
  "$(dirname "$0")/fetch-kernel-source.sh"
fi

if [ "$want_vm" -eq 1 ]; then
  # The guest kernel: take vmlinuz out of Debian's image package without
  # installing it (installing rebuilds an initramfs nobody needs, ~40 s).
  "$(dirname "$0")/fetch-guest-kernel.sh"
  # A kernel with thermal netlink user thresholds (6.13+) for tests/thresholds.
  "$(dirname "$0")/fetch-threshold-kernel.sh"
  # 7.3 with a kbuild tree coolhand.ko builds against (lockstep_vm_7.3);
  # its linux-source-7.3 is the one fetch-kernel-source.sh keeps.
  "$(dirname "$0")/fetch-guest-kbuild.sh" >/dev/null
fi
echo "install-deps.sh: all dependencies present"
