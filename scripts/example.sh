#!/usr/bin/env bash
# Runs the library example (src/test/java/io/jslirp/examples/EmbedExample.java): jslirp embedded in
# a Java program, a guest of hand-built frames reaching an echo server on the host's 127.0.0.1.
# Picks JDK 25 (scripts/java-home.sh), builds the jar and the test classes with Maven when they are
# missing or older than the sources, then runs it. Usage: scripts/example.sh [CLASS] (default:
# io.jslirp.examples.EmbedExample).
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)
source "$here/scripts/java-home.sh"
cd "$here"
jar=target/jslirp.jar
example=target/test-classes/io/jslirp/examples/EmbedExample.class
if [[ ! -f "$jar" || ! -f "$example" || -n "$(find src/main src/test/java pom.xml -newer "$jar" -print -quit)" \
      || -n "$(find src/test/java -newer "$example" -print -quit)" ]]; then
  echo "example: building $jar and the test classes with Maven (about 20-60 s)..." >&2
  log=$(mktemp)
  if ! mvn -q -B -DskipTests package >"$log" 2>&1; then
    cat "$log" >&2; rm -f "$log"
    echo "example: build failed (run: cd $here && mvn package)" >&2; exit 1
  fi
  rm -f "$log"
fi
exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED -cp "$jar:target/test-classes" "${1:-io.jslirp.examples.EmbedExample}"
