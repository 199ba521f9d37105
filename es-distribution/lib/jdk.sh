# Finds a JDK able to run the Elasticsearch server jars (ES_JAVA_MIN, 21 for 9.x).
# Order: ES_JAVA_HOME (as the distribution honours it: strict), JAVA_HOME, then the newest
# JDK under /usr/lib/jvm (Temurin 25 on the lab's machines, beside the system's JDK 17).

java_major() {
  local home="$1" v
  [[ -x "$home/bin/java" ]] || return 1
  if [[ -f "$home/release" ]]; then
    v="$(sed -n 's/^JAVA_VERSION="\([^"]*\)".*/\1/p' "$home/release")"
  fi
  [[ -n "${v:-}" ]] || v="$("$home/bin/java" -version 2>&1 | sed -n 's/.*version "\([^"]*\)".*/\1/p' | head -1)"
  v="${v#1.}"
  echo "${v%%[.+-]*}"
}

find_java_home() {
  local major home best="" best_major=0 tried=()
  if [[ -n "${ES_JAVA_HOME:-}" ]]; then
    major="$(java_major "$ES_JAVA_HOME")" || die "ES_JAVA_HOME=$ES_JAVA_HOME has no bin/java: point it at a JDK $ES_JAVA_MIN or newer"
    ((major >= ES_JAVA_MIN)) || die "ES_JAVA_HOME=$ES_JAVA_HOME is Java $major; Elasticsearch $ES_VERSION needs a JDK $ES_JAVA_MIN or newer: point ES_JAVA_HOME at one, or unset it"
    echo "$ES_JAVA_HOME"; return
  fi
  if [[ -n "${JAVA_HOME:-}" ]] && major="$(java_major "$JAVA_HOME")"; then
    if ((major >= ES_JAVA_MIN)); then echo "$JAVA_HOME"; return; fi
    tried+=("JAVA_HOME is Java $major")
  fi
  for home in /usr/lib/jvm/*/; do
    home="${home%/}"
    [[ -L "$home" ]] && continue
    major="$(java_major "$home")" || continue
    if ((major >= ES_JAVA_MIN && major > best_major)); then best="$home" best_major="$major"; fi
  done
  [[ -n "$best" ]] && { echo "$best"; return; }
  die "no JDK $ES_JAVA_MIN or newer found${tried:+ (${tried[*]})} in JAVA_HOME or /usr/lib/jvm: install one (e.g. Temurin 25) and set ES_JAVA_HOME to it"
}
