# Sourced by ./jslirp and ./test: sets JAVA_HOME to a JDK 25 or newer, or exits with one line
# saying what to install; and jdk_version to its full version (e.g. 25.0.3) when its release file
# names it. No subshell or other process on the way: ./jslirp's start-up would pay for each.

# jdk_version from the release file of the JDK at $1 (starting a JVM to ask would cost a start-up).
read_jdk_version() {
  local line
  jdk_version=""
  [[ -r "$1/release" ]] || return 0
  while IFS= read -r line; do
    if [[ "$line" =~ ^JAVA_VERSION=\"(.*)\"$ ]]; then jdk_version=${BASH_REMATCH[1]}; return 0; fi
  done <"$1/release"
}

find_java_home() {
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
    read_jdk_version "$JAVA_HOME"
    local v=$jdk_version
    [[ -n "$v" ]] || v=$("$JAVA_HOME/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    v=${v%%[!0-9]*}
    if [[ -n "$v" && "$v" -ge 25 ]]; then return 0; fi
  fi
  local d
  for d in /usr/lib/jvm/*25*; do
    if [[ -x "$d/bin/java" ]]; then
      JAVA_HOME=$d
      read_jdk_version "$d"
      return 0
    fi
  done
  echo "jslirp: JDK 25 not found (set JAVA_HOME to a JDK 25+, or install one under /usr/lib/jvm, e.g. temurin-25-jdk)" >&2
  return 1
}
find_java_home || exit 1
export JAVA_HOME
