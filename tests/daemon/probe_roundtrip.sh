#!/usr/bin/env bash
# coolhandctl probe round trip through the archive: a probe of each device
# tree, written as a probe archive and loaded back with --sysfs-root FILE,
# detects and binds identically (coolhandctl detect prints the same report,
# coolhandd --once --dry-run binds it), serials/UUIDs/MACs planted in the
# tree are left out, and the private directory the archive was unpacked
# into is gone afterwards.
# Usage: probe_roundtrip.sh COOLHANDCTL COOLHANDD SOURCE_DIR
set -euo pipefail
ctl=$1
daemon=$2
src=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Unpacked archives go below TMPDIR: a directory of this run's own, so that
# what is left there can be checked.
export TMPDIR="$work/tmp"
mkdir "$TMPDIR"
left_behind() {
  if [ -n "$(ls -A "$TMPDIR")" ]; then
    echo "FAIL $1: $(ls "$TMPDIR") left in TMPDIR" >&2
    exit 1
  fi
}
n=0
for tree in "$src"/tests/devices/*/; do
  [ -f "$tree/expect.yaml" ] || continue
  id=$(basename "$tree")
  cp -r "$tree/sys" "$work/$id-in"
  echo "SN123456" >"$work/$id-in/class/dmi/id/product_serial"
  echo "4c4c4544-0042-3510-8052-b3c04f4e3132" >"$work/$id-in/class/dmi/id/product_uuid"
  mkdir -p "$work/$id-in/class/power_supply/TESTBAT"
  echo "SN123456" >"$work/$id-in/class/power_supply/TESTBAT/serial_number"
  echo "00:11:22:33:44:55" >"$work/$id-in/class/power_supply/TESTBAT/address"
  printf 'POWER_SUPPLY_NAME=TESTBAT\nPOWER_SUPPLY_SERIAL_NUMBER=SN123456\n' \
    >"$work/$id-in/class/power_supply/TESTBAT/uevent"
  echo "dock 00-11-22-33-44-55 id 4c4c4544-0042-3510-8052-b3c04f4e3132" \
    >"$work/$id-in/class/power_supply/TESTBAT/model_name"
  archive="$work/$id-probe.tar.gz"
  "$ctl" probe --sysfs-root "$work/$id-in" --output "$archive" >/dev/null
  tar -xzOf "$archive" >"$work/$id-content"
  tar -tzf "$archive" >>"$work/$id-content"
  if grep -a "SN123456\|00.11.22.33.44.55\|4c4c4544\|serial\|uuid\|address" "$work/$id-content"
  then
    echo "FAIL $id: private data in the probe" >&2
    exit 1
  fi
  grep -q "POWER_SUPPLY_NAME=TESTBAT" "$work/$id-content" ||
    { echo "FAIL $id: scrubbing dropped a line it should keep" >&2; exit 1; }
  a=$("$ctl" detect --sysfs-root "$work/$id-in" --data-dir "$src/config" || true)
  b=$("$ctl" detect --sysfs-root "$archive" --data-dir "$src/config" || true)
  left_behind "$id (coolhandctl detect)"
  if [ "$a" != "$b" ]; then
    echo "FAIL $id: detect differs on the probe" >&2
    diff <(echo "$a") <(echo "$b") >&2 || true
    exit 1
  fi
  grep -q "matched on" <<<"$b" || { echo "FAIL $id: nothing matched" >&2; exit 1; }
  if ! "$daemon" --sysfs-root "$archive" --data-dir "$src/config" --once --dry-run --bus none \
      >"$work/$id-daemon.log" 2>&1; then
    echo "FAIL $id: coolhandd did not bind the probe" >&2
    cat "$work/$id-daemon.log" >&2
    exit 1
  fi
  grep -q "config/devices/$id.yaml) matched on" "$work/$id-daemon.log" ||
    { echo "FAIL $id: coolhandd matched something else" >&2; exit 1; }
  left_behind "$id (coolhandd)"
  n=$((n + 1))
done
if [ "$n" -eq 0 ]; then
  echo "no device trees under $src/tests/devices" >&2
  exit 1
fi
# A bad archive is a clear error from both, and leaves nothing behind.
head -c 300 "$work/$id-probe.tar.gz" >"$work/truncated.tar.gz"
echo "not an archive" >"$work/garbage.tar.gz"
for bad in truncated garbage; do
  if out=$("$ctl" detect --sysfs-root "$work/$bad.tar.gz" --data-dir "$src/config" 2>&1); then
    echo "FAIL: coolhandctl detect accepted the $bad archive" >&2
    exit 1
  fi
  grep -q "sysfs-root: .*$bad.tar.gz" <<<"$out" ||
    { echo "FAIL: unclear error for the $bad archive: $out" >&2; exit 1; }
  if out=$("$daemon" --sysfs-root "$work/$bad.tar.gz" --data-dir "$src/config" --once --dry-run \
      --bus none 2>&1); then
    echo "FAIL: coolhandd accepted the $bad archive" >&2
    exit 1
  fi
  grep -q "sysfs-root: .*$bad.tar.gz" <<<"$out" ||
    { echo "FAIL: unclear error for the $bad archive: $out" >&2; exit 1; }
  left_behind "$bad archive"
done
echo "probe round trip: $n trees, through archives, detect and bind identically"
