#!/usr/bin/env bash
# coolhandctl probe round trip: a probe of each device tree, loaded back with
# --sysfs-root, detects and binds identically (coolhandctl detect prints the
# same report), and serials/UUIDs/MACs planted in the tree are left out.
# Usage: probe_roundtrip.sh COOLHANDCTL SOURCE_DIR
set -euo pipefail
ctl=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0
for tree in "$src"/tests/devices/*/; do
  [ -f "$tree/expect.yaml" ] || continue
  id=$(basename "$tree")
  cp -r "$tree/sys" "$work/$id-in"
  echo "SN123456" >"$work/$id-in/class/dmi/id/product_serial"
  mkdir -p "$work/$id-in/class/power_supply/TESTBAT"
  echo "SN123456" >"$work/$id-in/class/power_supply/TESTBAT/serial_number"
  echo "00:11:22:33:44:55" >"$work/$id-in/class/power_supply/TESTBAT/address"
  "$ctl" probe --sysfs-root "$work/$id-in" --output "$work/$id-probe" >/dev/null
  if grep -rl "SN123456\|00:11:22:33:44:55" "$work/$id-probe"; then
    echo "FAIL $id: private data in the probe" >&2
    exit 1
  fi
  a=$("$ctl" detect --sysfs-root "$work/$id-in" --data-dir "$src/config" || true)
  b=$("$ctl" detect --sysfs-root "$work/$id-probe" --data-dir "$src/config" || true)
  if [ "$a" != "$b" ]; then
    echo "FAIL $id: detect differs on the probe" >&2
    diff <(echo "$a") <(echo "$b") >&2 || true
    exit 1
  fi
  grep -q "matched on" <<<"$b" || { echo "FAIL $id: nothing matched" >&2; exit 1; }
  n=$((n + 1))
done
if [ "$n" -eq 0 ]; then
  echo "no device trees under $src/tests/devices" >&2
  exit 1
fi
echo "probe round trip: $n trees detect and bind identically"
