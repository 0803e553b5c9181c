#!/usr/bin/env bash
# scripts/debian13.sh [COMMAND [ARG...]] — runs COMMAND (default: bash) in a Debian 13 (trixie) root,
# so the test suite can be checked on Debian 13 from a Debian 12 host (or any Debian), e.g.
#   scripts/debian13.sh ./test                      # the whole suite
#   scripts/debian13.sh ./test -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -Dit.test=PcapIT
# Run as root (the kernel-peer tests need it anyway).
#
# The root: made once with debootstrap (installed with apt-get when missing) in
# $JSLIRP_DEBIAN13_ROOT (default /var/tmp/jslirp-debian13, outside the checkout), with the packages
# the tests need (PACKAGES below: those .ci/run installs, and ca-certificates). Its stamp file,
# written last, names that list: a root without a stamp (an interrupted build) is made again from
# scratch; a root whose stamp names another list gets the missing packages installed.
# Packages come from $JSLIRP_DEBIAN13_MIRROR (default http://deb.debian.org/debian) and the
# trixie-security suite; `scripts/debian13.sh apt-get update && scripts/debian13.sh apt-get upgrade`
# refreshes them.
#
# Entering it: in a private mount namespace (unshare -m --propagation private), the root is
# bind-mounted on itself and gets /proc (a new proc mount), /sys and /dev (recursive binds), tmpfs on
# /run and /tmp, the checkout and the JDK 25 (/usr/lib/jvm/temurin-25-jdk-amd64, or $JAVA_HOME) at
# their own paths, ~/.m2 (so Maven's cache is shared with the host) and copies of the host's
# /etc/resolv.conf and /etc/ssl/certs; then pivot_root makes it the namespace's root and the old
# root is detached. Not chroot: a chrooted process may not create user namespaces (the rootless
# tests need them). The network namespace is the host's, so apt and Maven reach the network as the
# host does. When the command ends, the namespace and every mount in it go away with it: nothing is
# mounted on the host. If the working directory is inside the checkout, the command runs there;
# else at the checkout.
set -euo pipefail

die() { echo "debian13: $*" >&2; exit 1; }
log() { echo "debian13: $*" >&2; }

ROOT=${JSLIRP_DEBIAN13_ROOT:-/var/tmp/jslirp-debian13}
MIRROR=${JSLIRP_DEBIAN13_MIRROR:-http://deb.debian.org/debian}
SUITE=trixie
STAMP_NAME=.jslirp-debian13-stamp

# .ci/run's list (keep the two alike), then ca-certificates, which any Debian system has (https). The
# rest the tests call is in debootstrap's minbase already (priority required: passwd's useradd,
# util-linux's unshare/nsenter/setpriv/prlimit, gzip, tar, apt, dpkg-deb), so a pass here says that
# .ci/run installs enough on Debian 13.
PACKAGES=(
  maven iproute2 nftables curl ncat iputils-ping busybox-static udhcpc dnsmasq-base uidmap
  iperf3 slirp4netns passt procps qemu-system-x86 tshark rootlesskit python3 ndisc6 podman runc git man-db groff-base libcap2-bin
  ca-certificates
)

self=$(readlink -f "${BASH_SOURCE[0]}")
repo=$(cd "$(dirname "$self")/.." && pwd -P)

# --- inside the new mount namespace (the script runs itself there; see enter below)
if [[ ${1:-} == --inside ]]; then
  shift
  root=$1 work=$2 jdk=$3 m2=$4; shift 4
  mount --bind "$root" "$root"
  mount -t proc proc "$root/proc"
  mount --rbind /sys "$root/sys"
  mount --rbind /dev "$root/dev"
  mount -t tmpfs -o mode=0755 tmpfs "$root/run"
  mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
  if [[ -n $work ]]; then mkdir -p "$root$work" && mount --bind "$work" "$root$work"; fi
  if [[ -n $jdk ]]; then mkdir -p "$root$jdk" && mount --rbind "$jdk" "$root$jdk"; fi
  if [[ -n $m2 ]]; then mkdir -p "$root/root/.m2" && mount --bind "$m2" "$root/root/.m2"; fi
  # The host's trust store, on a tmpfs (the root's own stays as apt made it): whatever CA the host
  # trusts (e.g. a TLS-inspecting proxy's, which Maven's https then meets) is trusted inside too.
  # Dereferenced, since its links point into the host's /usr/share and /usr/local/share.
  if [[ -d /etc/ssl/certs ]]; then
    mkdir -p "$root/etc/ssl/certs"
    mount -t tmpfs -o mode=0755 tmpfs "$root/etc/ssl/certs"
    cp -rL /etc/ssl/certs/. "$root/etc/ssl/certs/"
  fi
  rm -f "$root/etc/resolv.conf"
  cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || : >"$root/etc/resolv.conf"
  mkdir -p "$root/.old-root"
  cd "$root"
  pivot_root . .old-root
  cd /
  umount -l /.old-root
  rmdir /.old-root 2>/dev/null || true
  dir=${JSLIRP_DEBIAN13_CWD:-/}
  cd "$dir" 2>/dev/null || cd /
  [[ $# -gt 0 ]] || set -- bash
  exec env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root USER=root \
    LOGNAME=root TERM="${TERM:-dumb}" LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
fi

[[ $(id -u) -eq 0 ]] || die "run as root (debootstrap, mounts, and the tests need it)"
command -v unshare >/dev/null && command -v pivot_root >/dev/null || die "needs util-linux (unshare, pivot_root)"

# enter ROOT WORK JDK M2 CMD...: runs CMD in ROOT as described at the top (WORK, JDK, M2 may be "").
enter() {
  local root=$1 work=$2 jdk=$3 m2=$4; shift 4
  unshare -m --propagation private "$self" --inside "$root" "$work" "$jdk" "$m2" "$@"
}

# --- make (or complete) the root; under a lock so concurrent runs don't build it twice
want="suite=$SUITE mirror=$MIRROR packages=${PACKAGES[*]}"
mkdir -p "$(dirname "$ROOT")"
exec 9>"$ROOT.lock"
flock 9

if [[ ! -f $ROOT/$STAMP_NAME ]]; then
  if ! command -v debootstrap >/dev/null; then
    log "installing debootstrap"
    apt-get install -y -q debootstrap >/dev/null || die "apt-get install debootstrap failed"
  fi
  # A partial root of an earlier run: nothing of ours can be mounted in it (our mounts live in
  # private namespaces that ended with their command), but check before deleting.
  if findmnt -rn -o TARGET | grep -qF "$ROOT"; then die "something is mounted under $ROOT; unmount it first"; fi
  rm -rf "$ROOT"
  start=$SECONDS
  log "making a Debian 13 root in $ROOT (debootstrap $SUITE from $MIRROR; a few minutes)"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  kr=(); [[ -f $keyring ]] && kr=(--keyring="$keyring")
  debootstrap --variant=minbase "${kr[@]}" "$SUITE" "$ROOT" "$MIRROR" >"$ROOT.log" 2>&1 ||
    { tail -20 "$ROOT.log" >&2; die "debootstrap failed (log: $ROOT.log)"; }
  cat >"$ROOT/etc/apt/sources.list" <<EOF
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb http://security.debian.org/debian-security $SUITE-security main
EOF
  # no daemons started by package scripts in the root
  printf '#!/bin/sh\nexit 101\n' >"$ROOT/usr/sbin/policy-rc.d"
  chmod 755 "$ROOT/usr/sbin/policy-rc.d"
  log "debootstrap done in $((SECONDS - start)) s"
fi

if [[ ! -f $ROOT/$STAMP_NAME || $(cat "$ROOT/$STAMP_NAME") != "$want" ]]; then
  start=$SECONDS
  log "installing the test packages in $ROOT"
  enter "$ROOT" "" "" "" sh -c "apt-get update -q && apt-get install -y -q --no-install-recommends ${PACKAGES[*]}" \
    >>"$ROOT.log" 2>&1 || { tail -30 "$ROOT.log" >&2; die "apt-get install in the root failed (log: $ROOT.log)"; }
  # Podman in a root without systemd: runc and plain cgroupfs
  mkdir -p "$ROOT/etc/containers/containers.conf.d"
  printf '[engine]\nruntime = "runc"\ncgroup_manager = "cgroupfs"\nevents_logger = "file"\n' \
    >"$ROOT/etc/containers/containers.conf.d/50-jslirp.conf"
  echo "$want" >"$ROOT/$STAMP_NAME"
  log "packages installed in $((SECONDS - start)) s"
fi
exec 9>&-   # unlocks

# --- run the command
jdk=""
for d in "${JAVA_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64; do
  if [[ -n $d && -x $d/bin/java ]]; then jdk=$(readlink -f "$d"); break; fi
done
[[ -n $jdk ]] || log "no JDK 25 found on the host (JAVA_HOME, /usr/lib/jvm/temurin-25-jdk-amd64); none bound in"
m2=""
mkdir -p "${HOME:-/root}/.m2" && m2=$(cd "${HOME:-/root}/.m2" && pwd)
cwd=$(pwd -P)
case $cwd/ in "$repo"/*) ;; *) cwd=$repo ;; esac
# exec: this script may be edited while a command runs, and bash reads a script as it goes
JSLIRP_DEBIAN13_CWD=$cwd exec unshare -m --propagation private "$self" --inside "$ROOT" "$repo" "$jdk" "$m2" "$@"
