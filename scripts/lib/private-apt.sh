# shellcheck shell=bash
# Sourced by scripts/fetch-*.sh: downloading Debian packages into the VM
# cache without touching the host's apt or dpkg state.
#
# A fetch script sets `prog` (its name, for messages) and then:
#   cache_init             $cache (COOLHAND_VM_CACHE, default
#                          /var/cache/coolhand-vm) and $SUDO ("" when the
#                          cache is writable, else sudo)
#   work_init              $work, a temporary directory removed on exit,
#                          with $work/dl for downloads (world-writable:
#                          `apt-get download` runs as _apt where it can)
#   private_apt_init       apt with a PRIVATE configuration: its own sources
#                          list (trixie and trixie-backports, signed by
#                          Debian's archive keyring), lists and cache under
#                          $work; reads the package lists. Without it,
#                          apt_download uses the host's configuration.
#   apt_download PKG       PKG's .deb into $work/dl (emptied first);
#                          status 0 when downloaded
#   apt_pkgnames PREFIX    package names starting with PREFIX (apt-cache)
#   cache_publish SRC DEST copies SRC (file or directory) to DEST in the
#                          cache atomically, readable by all
#   cache_record FILE TEXT writes TEXT to $cache/FILE
# Packages are only downloaded and unpacked (dpkg-deb), never installed.

: "${prog:?set by the script that sources private-apt.sh}"

die() {
  echo "$prog: $*" >&2
  exit 1
}

cache_init() {
  cache="${COOLHAND_VM_CACHE:-/var/cache/coolhand-vm}"
  SUDO=""
  if [ "$(id -u)" -ne 0 ] && ! { mkdir -p "$cache" 2>/dev/null && [ -w "$cache" ]; }; then
    command -v sudo >/dev/null || die "cannot write $cache; set COOLHAND_VM_CACHE or run as root"
    SUDO=sudo
  fi
}

work_init() {
  work="$(mktemp -d)"
  # shellcheck disable=SC2064  # $work is fixed now
  trap "rm -rf '$work'" EXIT
  mkdir -p "$work/dl"
  chmod 0777 "$work" "$work/dl"
}

apt_opts=()
private_apt_init() {
  local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  [ -r "$keyring" ] || die "$keyring missing (debian-archive-keyring)"
  mkdir -p "$work/etc" "$work/lists/partial" "$work/cache/archives/partial"
  cat >"$work/etc/sources.list" <<SOURCES
deb [signed-by=$keyring] http://deb.debian.org/debian trixie main
deb [signed-by=$keyring] http://deb.debian.org/debian trixie-backports main
SOURCES
  chmod -R a+rwX "$work"
  apt_opts=(
    -o "Dir::Etc::sourcelist=$work/etc/sources.list" -o "Dir::Etc::sourceparts=/nonexistent"
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache"
    -o "Dir::State::status=/var/lib/dpkg/status" -o "APT::Get::List-Cleanup=false"
  )
  echo "$prog: reading trixie(-backports) package lists (private apt state)" >&2
  apt-get "${apt_opts[@]}" update -qq || die "apt-get update (private trixie lists) failed"
}

apt_download() {
  rm -f "$work"/dl/*.deb
  (cd "$work/dl" && apt-get "${apt_opts[@]}" download "$1" >/dev/null 2>&1)
}

apt_pkgnames() {
  apt-cache "${apt_opts[@]}" pkgnames "$1"
}

cache_publish() {
  local src=$1 dest=$2
  local tmp="$dest.tmp.$$"
  $SUDO mkdir -p "$(dirname "$dest")"
  $SUDO rm -rf "$tmp"
  $SUDO cp -a "$src" "$tmp"
  $SUDO rm -rf "$dest"
  $SUDO mv "$tmp" "$dest"
  $SUDO chmod -R a+rX "$dest"
}

cache_record() {
  echo "$2" | $SUDO tee "$cache/$1" >/dev/null
}
