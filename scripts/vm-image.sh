#!/usr/bin/env bash
# scripts/vm-image.sh DIR — a tiny VM image for the VM tests and bench/vm.sh, made from Debian packages.
#
# Writes DIR/vmlinuz (the Debian cloud kernel) and DIR/initramfs.cpio.gz (busybox, the virtio-net
# modules and an /init), plus DIR/stamp saying what they were built from. Nothing is installed on the
# host: the packages are fetched with `apt-get download` and unpacked with `dpkg-deb -x` in a
# temporary directory. Cached: when DIR/stamp matches what would be built now (the system, e.g.
# debian-12, kernel package and version, busybox version, this script's content), it does nothing;
# when the stamp is of this system and newer than apt's package lists (no apt-get update since), it
# does not even ask apt (about 10 ms); when apt knows no candidate (no package lists) but an image is
# there, the image is kept.
#
# The /init of the image: mounts /proc, /sys, /dev; loads virtio_ring, virtio, virtio_pci_modern_dev,
# virtio_pci_legacy_dev, virtio_pci, failover, net_failover, virtio_net (busybox insmod, in this order:
# there is no modules.dep), those of them the kernel has as modules: the package's modules.builtin
# names those built in (Debian 13's 6.12 has the virtio core and virtio_pci built in); disables IPv6; brings lo and eth0 up (no address: the test runs udhcpc);
# runs /test.sh when present, with its output on the console (ttyS0); then `poweroff -f`.
# udhcpc's default script (/etc/udhcpc/default.script: the path built into Debian's busybox) sets
# the address, the default route, the MTU and /etc/resolv.conf from the lease.
#
# A test adds its script without rebuilding: the kernel unpacks concatenated cpio archives, so
# initramfs.cpio.gz (padded to 4 bytes) followed by a newc archive holding /test.sh (mode 0755) is
# a valid initrd (see src/test/java/io/jslirp/it/Vm.java).
#
# Needs: apt-get with Debian's package lists (apt-get update), dpkg-deb, gzip; zstd only if the
# kernel's modules are shipped as .ko.zst. Debian 12's cloud kernel (6.1) ships plain .ko files under
# /lib/modules, Debian 13's (6.12) .ko.xz files under /usr/lib/modules (busybox decompresses those).
set -euo pipefail

die() { echo "vm-image: $*" >&2; exit 1; }
log() { echo "vm-image: $*" >&2; }

[[ $# -eq 1 ]] || die "usage: $0 DIR"
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)

MODULES=(virtio_ring virtio virtio_pci_modern_dev virtio_pci_legacy_dev virtio_pci failover net_failover virtio_net)
self_sum=$(sha256sum "${BASH_SOURCE[0]}" | cut -c1-16)

# The system whose apt chose the packages (e.g. debian-12), from /etc/os-release without a process:
# the checkout (and DIR) may be shared by a Debian 12 host and a Debian 13 root (scripts/debian13.sh),
# whose apt lists have their own times; an image of the one is not up to date for the other.
dist=unknown
if [[ -r /etc/os-release ]]; then
  os_id="" os_ver=""
  while IFS='=' read -r k v; do
    v=${v#\"}; v=${v%\"}
    case $k in ID) os_id=$v ;; VERSION_ID) os_ver=$v ;; VERSION_CODENAME) [[ -n $os_ver ]] || os_ver=$v ;; esac
  done </etc/os-release
  dist=${os_id:-unknown}-${os_ver:-unknown}
fi

# Fast path: built by this script on this system since apt's lists last changed -> the candidates are the same.
if [[ -s $out/vmlinuz && -s $out/initramfs.cpio.gz && -f $out/stamp && $(cat "$out/stamp") == "dist=$dist "*" script=$self_sum" &&
      $out/stamp -nt /var/lib/apt/lists ]]; then
  exit 0
fi

# The candidate cloud kernel: the meta package depends on exactly one versioned image package.
# "linux-image-6.1.0-57-cloud-amd64 (= 6.1.192-3)" -> name, version
# One apt-cache call (about 0.5 s) for both packages: the cached case costs only that.
show=$(apt-cache show --no-all-versions linux-image-cloud-amd64 busybox-static 2>/dev/null || true)
kdep=$(awk '/^Package: /{p=$2} p=="linux-image-cloud-amd64" && /^Depends: /{sub(/^Depends: /,""); print; exit}' <<<"$show")
kpkg=$(sed -n 's/^\(linux-image-[^ ,]*-cloud-amd64\).*/\1/p' <<<"$kdep")
kver=$(sed -n 's/.*(= *\([^)]*\)).*/\1/p' <<<"$kdep")
bbver=$(awk '/^Package: /{p=$2} p=="busybox-static" && /^Version: /{print $2; exit}' <<<"$show")

if [[ -z $kpkg || -z $kver || -z $bbver ]]; then
  if [[ -s $out/vmlinuz && -s $out/initramfs.cpio.gz ]]; then
    log "apt knows no linux-image-cloud-amd64/busybox-static candidate; keeping the image in $out"
    exit 0
  fi
  die "apt knows no candidate for linux-image-cloud-amd64 or busybox-static (run apt-get update)"
fi

stamp="dist=$dist kernel=$kpkg=$kver busybox=$bbver script=$self_sum"
if [[ -s $out/vmlinuz && -s $out/initramfs.cpio.gz && -f $out/stamp && $(cat "$out/stamp") == "$stamp" ]]; then
  exit 0   # cached
fi

tmp=$(mktemp -d /tmp/jslirp-vm-image.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"   # apt-get download works as _apt where it can

log "building from $kpkg $kver and busybox-static $bbver"
mkdir "$tmp/deb"
if ! (cd "$tmp/deb" && apt-get download -q "$kpkg=$kver" "busybox-static=$bbver") >"$tmp/apt.log" 2>&1; then
  cat "$tmp/apt.log" >&2
  die "apt-get download failed"
fi
mkdir "$tmp/x"
for d in "$tmp"/deb/*.deb; do dpkg-deb -x "$d" "$tmp/x"; done

vmlinuz=$(ls "$tmp"/x/boot/vmlinuz-* 2>/dev/null | head -1 || true)
[[ -n $vmlinuz ]] || die "no /boot/vmlinuz-* in $kpkg"
# Debian 12's packages ship /lib/modules and /bin/busybox; Debian 13's (merged /usr) /usr/lib/modules
# and possibly /usr/bin/busybox.
kdir=$(ls -d "$tmp"/x/lib/modules/*/ "$tmp"/x/usr/lib/modules/*/ 2>/dev/null | head -1 || true)
[[ -n $kdir ]] || die "no /lib/modules or /usr/lib/modules in $kpkg"
bb=$tmp/x/bin/busybox
[[ -x $bb ]] || bb=$tmp/x/usr/bin/busybox
[[ -x $bb ]] || die "no /bin/busybox or /usr/bin/busybox in busybox-static"

# --- the root file system
root=$tmp/root
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,etc/udhcpc,root,lib/modules,var/www}
cp "$bb" "$root/bin/busybox"
while read -r applet; do
  [[ $applet == bin/busybox || -e $root/$applet ]] && continue
  mkdir -p "$root/$(dirname "$applet")"
  ln -s /bin/busybox "$root/$applet"
done < <("$bb" --list-full)

# modules: plain .ko for busybox insmod (it cannot decompress); busybox (the one just unpacked)
# decompresses xz and gzip, so the host needs zstd only for .ko.zst
load=()
for m in "${MODULES[@]}"; do
  f=$(find "$kdir" -name "$m.ko" -o -name "$m.ko.xz" -o -name "$m.ko.zst" -o -name "$m.ko.gz" | head -1 || true)
  if [[ -z $f ]]; then
    grep -q "/$m\.ko\$" "$kdir/modules.builtin" 2>/dev/null && continue   # built in
    die "module $m not found in $kpkg, neither a file nor in its modules.builtin"
  fi
  load+=("$m")
  case $f in
    *.ko) cp "$f" "$root/lib/modules/$m.ko" ;;
    *.ko.xz) "$bb" xzcat "$f" >"$root/lib/modules/$m.ko" ;;
    *.ko.zst) zstd -qdc "$f" >"$root/lib/modules/$m.ko" ;;
    *.ko.gz) "$bb" zcat "$f" >"$root/lib/modules/$m.ko" ;;
  esac
done
[[ ${#load[@]} -eq ${#MODULES[@]} ]] || log "modules for /init: ${load[*]:-none} (the others are built in)"

cat >"$root/init" <<EOF
#!/bin/sh
export PATH=/bin:/sbin:/usr/bin:/usr/sbin
mount -t proc proc /proc
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev 2>/dev/null
mkdir -p /dev/pts && mount -t devpts devpts /dev/pts
for m in ${load[*]}; do
  insmod /lib/modules/\$m.ko || echo "init: insmod \$m failed"
done
[ -d /proc/sys/net/ipv6 ] && echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6
ip link set lo up
i=0
while [ ! -e /sys/class/net/eth0 ] && [ \$i -lt 50 ]; do sleep 0.1; i=\$((i+1)); done
[ -d /proc/sys/net/ipv6/conf/eth0 ] && echo 1 >/proc/sys/net/ipv6/conf/eth0/disable_ipv6
ip link set eth0 up 2>/dev/null || echo "init: no eth0"
if [ -f /test.sh ]; then
  echo; echo "init: running /test.sh"
  sh /test.sh </dev/null
  echo "JSLIRP-VM-TEST-EXIT=\$?"
fi
echo "init: poweroff"
poweroff -f
EOF
chmod 755 "$root/init"

cat >"$root/etc/udhcpc/default.script" <<'EOF'
#!/bin/sh
# udhcpc event script: configure $interface from the lease (no IPv6, no other side effects)
case "$1" in
  deconfig)
    ip -4 addr flush dev "$interface"
    ip link set "$interface" up
    ;;
  bound|renew)
    ip -4 addr flush dev "$interface"
    ip addr add "$ip/${mask:-24}" ${broadcast:+broadcast "$broadcast"} dev "$interface"
    [ -n "$mtu" ] && ip link set "$interface" mtu "$mtu"
    for r in $router; do ip route add default via "$r" dev "$interface"; break; done
    : >/etc/resolv.conf
    for d in $dns; do echo "nameserver $d" >>/etc/resolv.conf; done
    echo "udhcpc: $1 $ip/${mask:-24} router ${router:-none} dns ${dns:-none} mtu ${mtu:-none}"
    ;;
esac
exit 0
EOF
chmod 755 "$root/etc/udhcpc/default.script"

echo 'root:x:0:0:root:/root:/bin/sh' >"$root/etc/passwd"
echo 'root:x:0:' >"$root/etc/group"
printf '127.0.0.1 localhost\n' >"$root/etc/hosts"
: >"$root/etc/resolv.conf"

# --- archive: newc, owned by root (busybox's own cpio, so the host needs no cpio)
(cd "$root" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | "$bb" cpio -o -H newc -R 0:0 2>/dev/null) |
  gzip -9n >"$tmp/initramfs.cpio.gz"

kname=$(basename "$kdir")
cp "$vmlinuz" "$out/vmlinuz.new"
cp "$tmp/initramfs.cpio.gz" "$out/initramfs.cpio.gz.new"
mv -f "$out/vmlinuz.new" "$out/vmlinuz"
mv -f "$out/initramfs.cpio.gz.new" "$out/initramfs.cpio.gz"
echo "$stamp" >"$out/stamp"
log "wrote $out/vmlinuz ($kname) and $out/initramfs.cpio.gz ($(stat -c %s "$out/initramfs.cpio.gz") bytes)"
