# Sourced by bin/kvp and bin/kvprov: start one of our jars the way a short-lived tool should.
#   launch JAR TRAINING_MAIN ARGS...
# A class-data-sharing archive roughly halves start-up (docs/performance.md). It belongs to one
# jar and one JVM, so it is rebuilt (once, by bin/cds-archive) when either changes; a stamp file
# notices that without starting a JVM.
launch() {
  local jar=$1 training=$2
  shift 2
  local here java archive stamp
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
  if [[ -n "${JAVA_HOME:-}" && -x "$JAVA_HOME/bin/java" ]]; then
    java="$JAVA_HOME/bin/java"
  else
    java=$(command -v java) || {
      echo "$(basename "$jar" .jar): no java (JAVA_HOME or the PATH); install a JDK 17+" >&2
      exit 3
    }
  fi
  archive="${jar%.jar}.jsa"
  stamp="$(readlink -f "$java") $(stat -c %Y "$(readlink -f "$java")") $(stat -c %Y "$jar")"
  if [[ ! -f "$archive" || "$(cat "$archive.stamp" 2>/dev/null)" != "$stamp" ]]; then
    echo "$(basename "$jar" .jar): preparing the start-up archive for this jar and JVM (once)..." >&2
    if "$here/bin/cds-archive" "$jar" "$training" "$archive" "$java" >&2; then
      echo "$stamp" > "$archive.stamp"
    else
      # Said once: the stamp is written anyway, so the next run does not try again.
      echo "no class-data-sharing archive (start-up is slower); see above" >&2
      rm -f "$archive"
      echo "$stamp" > "$archive.stamp"
    fi
  fi
  local cds=()
  [[ -f "$archive" ]] && cds=(-XX:SharedArchiveFile="$archive" -Xshare:auto)
  # C1 only and the serial collector: a short-lived process starts faster with both. JVM warnings
  # go to stderr, never into output a script reads.
  JAVA_CMD=("$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData
    -Xlog:disable -Xlog:all=warning:stderr "${cds[@]}" -jar "$jar")
}
