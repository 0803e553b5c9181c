#!/usr/bin/env bash
# bench/jmh.sh — JMH micro-benchmarks of jslirp's packet path: no root, no network, no tap device.
#
# Usage (from anywhere):
#   bench/jmh.sh                              # every benchmark: 1 fork, 3 × 1 s warmup, 5 × 1 s measurement (~2 min)
#   bench/jmh.sh Tcp                          # only benchmarks whose name matches a regex
#   bench/jmh.sh Checksum -f 2 -wi 5 -i 10    # any JMH option overrides the defaults (bench/jmh.sh -h lists them)
#   bench/jmh.sh TcpSend -prof gc             # with allocation per operation (gc.alloc.rate.norm, B/op)
#
# Builds target/jslirp-jmh.jar with `mvn -Pjmh -DskipTests package` (the benchmarks live in src/jmh/java
# and are compiled only with that profile; target/jslirp.jar comes out the same as without it), then
# runs JMH with the arguments given. Results are average time per operation in ns (lower is better).
#
# Benchmarks (src/jmh/java/io/jslirp/bench), all on preallocated native memory, single-threaded:
#   ChecksumBench.checksum          Checksum.of over 64, 1500 and 65536 bytes; size / (ns/op) = GB/s
#   TcpChecksumBench.fillChecksum4  Tcp.fillChecksum of a full-size segment in its frame (IPv4 pseudo-header + 1480 bytes)
#   FrameParseBench.headerChecks    a 1514-byte guest TCP data frame: Ethernet type, Ipv4.check (header checksum), Tcp.check
#   FrameParseBench.parseOptions    Tcp.parseOptions of that frame's timestamps option
#   StackReceiveBench.receive       Stack.receive of that frame through the Ethernet/IPv4 demux to a no-op Transport
#   TcpReceiveBench.receiveSegment  TcpConnection.onSegment of an in-order 1448-byte segment on an established
#                                   connection, the host socket taking the bytes, and the flush that sends the ACK
#   TcpSendBench.send64KiB          64 KiB of host data: the flush that builds 46 segments (through the stack: TCP
#                                   checksum, IPv4 header) and the guest's cumulative ACK that frees them
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
repo=$(cd "$here/.." && pwd)
source "$repo/scripts/java-home.sh"
command -v mvn >/dev/null || { echo "jmh.sh: Maven not found (apt-get install maven)" >&2; exit 1; }

cd "$repo"
log=$(mktemp)
if ! mvn -B -ntp -q -Pjmh -DskipTests package >"$log" 2>&1; then
  cat "$log" >&2; rm -f "$log"
  echo "jmh.sh: build failed (run: cd $repo && mvn -Pjmh -DskipTests package)" >&2; exit 1
fi
rm -f "$log"
# The forked JVMs inherit these flags; the second silences JDK 25's warning about JMH's own use of sun.misc.Unsafe.
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED --sun-misc-unsafe-memory-access=allow -jar target/jslirp-jmh.jar "$@"
