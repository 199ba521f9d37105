# Assembles the native Elasticsearch "distribution" under $LAB_CACHE/native/es-$ES_VERSION from
# Maven Central: server jars (module path), the netty4 transport module, our GET / and analysis
# modules and launcher. Rebuilt only when the version or native/ sources change.

NATIVE_SRC="$LAB_ROOT/es-distribution"
ES_DIST="$LAB_CACHE/native/es-$ES_VERSION"

native_source_hash() {
  (cd "$NATIVE_SRC" && find pom.xml launcher rest-root netty4 analysis config -type f \
    -not -path '*/target/*' -print0 | sort -z | xargs -0 sha256sum; echo "$ES_VERSION") | sha256sum | cut -c1-16
}

# Maven's output (stdin) -> one line per module built and per 100 artifacts downloaded (stdout).
maven_progress() {
  awk '
    /^\[INFO\] Downloaded from / { n++; if (n % 100 == 0) { printf "  maven: %d artifacts downloaded\n", n; fflush() } next }
    /^\[INFO\] Building .*\[[0-9]+\/[0-9]+\]$/ { m = $0; sub(/^\[INFO\] Building /, "", m); gsub(/ +/, " ", m); printf "  maven: building %s\n", m; fflush(); next }
    /^\[INFO\] BUILD SUCCESS/ { printf "  maven: built (%d artifacts downloaded)\n", n; fflush() }
  '
}

build_native_dist() {
  local java_home="$1" stamp hash
  hash="$(native_source_hash)"
  stamp="$ES_DIST/.built-from"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$hash" ]]; then return 0; fi

  ensure_apt_packages maven libzstd1
  say "building the native Elasticsearch $ES_VERSION runtime from Maven Central (first run downloads ~150 MB)..."
  # Maven's whole output goes to a log; the terminal gets one line per module built and a count of
  # the artifacts downloaded (a cold build fetches about 420, one "Downloaded from" line each),
  # as the Go builds do. JDK 25's warnings about Maven's own Guice stay in the log too.
  local log="$LAB_CACHE/native/maven-build.log"
  mkdir -p "$LAB_CACHE/native"
  { JAVA_HOME="$java_home" mvn -B -f "$NATIVE_SRC/pom.xml" -Des.version="$ES_VERSION" package 2>&1 || true; } \
    | tee "$log" | maven_progress >&2 || true
  if ! grep -q '^\[INFO\] BUILD SUCCESS' "$log"; then
    local err
    err="$(grep -E '^\[ERROR\]' "$log" | head -n 2 | paste -sd' ')"
    die "Maven build of es-distribution failed (full log: $log): ${err:-no error line}; is Maven Central reachable?"
  fi

  local tmp="$ES_DIST.tmp.$$"
  rm -rf "$tmp" && mkdir -p "$tmp"/{lib,launcher,modules/transport-netty4,modules/rest-root,modules/analysis-lab,plugins,config,nativelibs}
  cp "$NATIVE_SRC"/launcher/target/lib/*.jar "$tmp/lib/"
  cp "$NATIVE_SRC"/launcher/target/launcher-*.jar "$tmp/launcher/"
  cp "$NATIVE_SRC"/rest-root/target/module/* "$tmp/modules/rest-root/"
  # analysis-common's storefront components on Lucene's own classes (already in lib/: no jar of theirs here)
  cp "$NATIVE_SRC"/analysis/target/module/* "$tmp/modules/analysis-lab/"
  # A jar both on the module path and in a module folder is a split package: the node refuses
  # to start. The server already carries these.
  local jar
  for jar in "$NATIVE_SRC"/netty4/target/module/*; do
    [[ -e "$tmp/lib/$(basename "$jar")" ]] || cp "$jar" "$tmp/modules/transport-netty4/"
  done
  cp "$NATIVE_SRC"/config/* "$tmp/config/"
  # Elasticsearch's zstd binding looks for libzstd.so; Debian ships libzstd.so.1 only
  local zstd
  zstd="$(ldconfig -p | awk '/libzstd\.so\.1 / {p = $NF} END {print p}')"
  [[ -n "$zstd" ]] || die "libzstd.so.1 not found: apt-get install libzstd1"
  ln -s "$zstd" "$tmp/nativelibs/libzstd.so"
  echo "$hash" >"$tmp/.built-from"
  rm -rf "$ES_DIST" && mv "$tmp" "$ES_DIST"
  say "native runtime built: $ES_DIST"
}
