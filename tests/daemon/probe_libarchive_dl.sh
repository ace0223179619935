#!/bin/sh
# coolhandd --sysfs-root FILE without a usable libarchive: dlopen finds, first
# on LD_LIBRARY_PATH, (1) an empty file and (2) a real shared library (zlib)
# without libarchive's symbols, each named libarchive.so.13. Each run must
# fail with an error naming the library, and the symbol in case 2.
# Usage: probe_libarchive_dl.sh COOLHANDD OTHER_SHARED_LIBRARY
set -eu
coolhandd=$1
other=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/coolhand-dl.XXXXXX")
trap 'rm -rf "$dir"' EXIT
: >"$dir/probe.tar.gz"

expect() {  # expect WHAT PATTERN: coolhandd fails and says PATTERN
  if LD_LIBRARY_PATH=$dir "$coolhandd" --sysfs-root "$dir/probe.tar.gz" --once --dry-run \
    --bus none >"$dir/out" 2>&1; then
    echo "FAIL ($1): coolhandd started without libarchive" >&2
    exit 1
  fi
  cat "$dir/out"
  if ! grep -q "$2" "$dir/out"; then
    echo "FAIL ($1): no '$2' in the error" >&2
    exit 1
  fi
}

: >"$dir/libarchive.so.13"
expect "empty file" "load libarchive.so.13: cannot load: .*libarchive.so.13"
cp -L "$other" "$dir/libarchive.so.13"
expect "no symbols" "load libarchive.so.13: symbol archive_read_new not found"
echo "ok: both are clear errors"
