# Sourced by bin/kvp and bin/kvprov: start one of our jars the way a short-lived tool should.
#   launch JAR TRAINING_MAIN [JVM_FLAG...]
# sets JAVA_CMD: the java command up to and including "-jar JAR", with the caller's JVM flags.
# A start-up archive roughly halves start-up (docs/performance.md): on JDK 25 and later an AOT
# cache, before that a class-data-sharing archive (bin/start-up-archive picks). It belongs to
# one jar and one JVM, so it is rebuilt (once) when either changes; a stamp file notices that, and
# remembers which kind it is, without starting a JVM.
launch() {
  local jar=$1 training=$2
  shift 2
  local own=("$@")
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
  local kept
  kept=$(cat "$archive.stamp" 2>/dev/null || true)
  if [[ "${kept% *}" != "$stamp" ]]; then
    echo "$(basename "$jar" .jar): preparing the start-up archive for this jar and JVM (once)..." >&2
    local kind
    kind=$("$here/bin/start-up-archive" "$jar" "$training" "${jar%.jar}" "$java") || kind=none
    # Said once: the stamp is written anyway, so the next run does not try again.
    [[ $kind == none ]] && echo "no start-up archive (start-up is slower); see above" >&2
    kept="$stamp $kind"
    echo "$kept" > "$archive.stamp"
  fi
  local cds=()
  case "${kept##* }" in
    aot) [[ -f "${jar%.jar}.aot" ]] && cds=(-XX:AOTCache="${jar%.jar}.aot") ;;
    cds) [[ -f "$archive" ]] && cds=(-XX:SharedArchiveFile="$archive" -Xshare:auto) ;;
  esac
  # C1 only and the serial collector: a short-lived process starts faster with both. JVM warnings
  # go to stderr, never into output a script reads.
  JAVA_CMD=("$java" -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData
    -Xlog:disable -Xlog:all=warning:stderr "${cds[@]}" "${own[@]}" -jar "$jar")
}
