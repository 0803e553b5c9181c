#!/usr/bin/env bash
# scripts/fuzz.sh — the long run of the fuzz tests (issue 8): random TCP segments against one
# connection (TcpFuzzTest), mutated guest frames into the stack (StackFuzzTest), TFTP requests
# (TftpFuzzTest) and API socket requests (ApiFuzzTest).
#
# Usage: scripts/fuzz.sh [SEEDS] [BASE]   (default 20000 seeds from a random base)
# The test suite runs 300 seeds from 1; a failure prints its seed and the flags that replay it.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
source "$here/java-home.sh"
seeds=${1:-20000}
base=${2:-$(( (RANDOM << 15 | RANDOM) + 1 ))}
echo "fuzz: $seeds seeds from $base" >&2
cd "$here/.."
exec mvn -B -ntp -q test -Dtest='TcpFuzzTest,StackFuzzTest,TftpFuzzTest,ApiFuzzTest' -Djslirp.fuzz.seeds="$seeds" -Djslirp.fuzz.base="$base"
