# Shared by the coolhand-sim command-line tests (tests/sim/*_test.sh);
# sourced, not run. The caller sets failures=0 first and exits 1 when it
# is non-zero at the end.
#   ok WHAT / bad WHAT: report one check passed / failed
#   expect_eq WHAT EXPECTED ACTUAL: one exact comparison
ok() { printf 'ok   %s\n' "$1"; }
bad() {
  printf 'FAIL %s\n' "$1"
  failures=$((failures + 1))
}
expect_eq() { # what, expected, actual
  if [[ "$2" != "$3" ]]; then
    bad "$1"
    printf '  expected: %s\n  actual:   %s\n' "$2" "$3"
  else
    ok "$1"
  fi
}
