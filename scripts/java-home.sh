# Sourced by ./jslirp and ./test: sets JAVA_HOME to a JDK 25 or newer, or exits with one line
# saying what to install.
find_java_home() {
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
    local v
    # The JDK's release file names its version; starting a JVM to ask would cost a start-up per launch.
    v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$JAVA_HOME/release" 2>/dev/null)
    [[ -n "$v" ]] || v=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    if [[ "${v%%.*}" -ge 25 ]]; then echo "$JAVA_HOME"; return; fi
  fi
  local d
  for d in /usr/lib/jvm/*25*; do
    [[ -x "$d/bin/java" ]] && { echo "$d"; return; }
  done
  echo "jslirp: JDK 25 not found (set JAVA_HOME to a JDK 25+, or install one under /usr/lib/jvm, e.g. temurin-25-jdk)" >&2
  return 1
}
JAVA_HOME=$(find_java_home) || exit 1
export JAVA_HOME
