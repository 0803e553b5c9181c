#!/usr/bin/env bash
# Checks the isolation's aarch64 allow-list (sys.Seccomp.ALLOWED) against what an aarch64 JVM
# running jslirp really calls, on an x86-64 machine: Debian 13's arm64 OpenJDK 25 unpacked into
# DIR (default /var/tmp/jslirp-arm64), `jslirp qemu --socket` run under qemu-user's -strace for
# SECONDS (default 300; its warm-up moves TCP both ways through its own engine, so the loop's calls,
# the JIT's and the collector's are all made), then every call name it made that the list lacks.
# qemu-user runs no seccomp filter, so this checks the list's contents, not the filter.
# Needs qemu-user (apt-get install qemu-user), curl, xz and dpkg-deb; run from the checkout, after
# a build (target/jslirp.jar).
set -euo pipefail
dir=${1:-/var/tmp/jslirp-arm64}
seconds=${2:-300}
here=$(cd "$(dirname "$0")/.." && pwd)
mirror=http://deb.debian.org/debian
command -v qemu-aarch64 >/dev/null || { echo "aarch64-syscalls: no qemu-aarch64 (apt-get install qemu-user)" >&2; exit 1; }
[[ -f $here/target/jslirp.jar ]] || { echo "aarch64-syscalls: no target/jslirp.jar (build first)" >&2; exit 1; }
mkdir -p "$dir/debs" "$dir/root"
if [[ ! -x $dir/root/usr/lib/jvm/java-25-openjdk-arm64/bin/java ]]; then
  curl -sSf "$mirror/dists/trixie/main/binary-arm64/Packages.xz" -o "$dir/Packages.xz"
  for p in openjdk-25-jre-headless libc6 libgcc-s1 libstdc++6 zlib1g; do
    f=$(xz -dc "$dir/Packages.xz" | awk -v P="Package: $p" '$0==P{f=1} f&&/^Filename:/{print $2; exit}')
    curl -sSf "$mirror/$f" -o "$dir/debs/${f##*/}"
    dpkg-deb -x "$dir/debs/${f##*/}" "$dir/root"
  done
  mkdir -p "$dir/root/lib"
  ln -sf ../usr/lib/ld-linux-aarch64.so.1 "$dir/root/lib/ld-linux-aarch64.so.1"
  # Debian's JDK links its conf files to /etc: point them into the tree (the host kernel resolves links)
  (cd "$dir/root" && find . -type l -lname '/*' | while read -r l; do t=$(readlink "$l"); ln -sfn "$dir/root$t" "$l"; done)
fi
log=$dir/strace.log sock=$dir/jslirp.sock
rm -f "$log" "$sock"
timeout "$seconds" qemu-aarch64 -L "$dir/root" -strace -D "$log" "$dir/root/usr/lib/jvm/java-25-openjdk-arm64/bin/java" \
  -XX:+UseSerialGC -XX:-UsePerfData --enable-native-access=ALL-UNNAMED -jar "$here/target/jslirp.jar" qemu --socket "$sock" \
  >"$dir/jslirp.log" 2>&1 || true
rm -f "$sock"
made=$(awk '{print $2}' "$log" | sed -n 's/^\([a-z_0-9]*\)(.*/\1/p' | sort -u)
unknown=$(grep -o 'Unknown syscall [0-9]*' "$log" | sort -u | awk '{print $3}' | tr '\n' ' ')
listed=$(grep -o 'call("[a-z_0-9]*", [0-9-]*, [0-9]*)' "$here/src/main/java/io/jslirp/sys/Seccomp.java" | sed 's/call("\([a-z_0-9]*\)".*/\1/')
echo "calls made: $(wc -w <<<"$made"); by number only (qemu-user has no name for them): ${unknown:-none}"
echo "made but not in the list (fail with EPERM once isolated):"
comm -23 <(tr ' ' '\n' <<<"$made" | sort -u) <(sort -u <<<"$listed") | sed 's/^/  /'
