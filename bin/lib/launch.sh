# shellcheck shell=sh disable=SC2154 # $lib: set by the caller, as said below
# Sourced by the launchers of kvprov and kvp: bin/kvprov and bin/kvp in a checkout, /usr/bin/kvprov
# and /usr/bin/kvp in the Debian package, which installs this directory as /usr/share/kvprov/lib.
# POSIX sh, as the package's launchers are. The caller sets $lib to this directory.
#
#   launch TOOL JAR BASE TRAINING_MAIN ARG...
# runs JAR with ARGs (exec) in a JVM started the way a short-lived tool should: the options in
# jvm/common.options, then jvm/TOOL.options, then its start-up archive if there is a good one.
#
# A start-up archive roughly halves start-up (docs/performance.md): on JDK 25 and later an AOT
# cache BASE.aot, before that a class-data-sharing archive BASE.jsa (../start-up-archive picks).
# It belongs to one jar and one JVM: BASE.stamp names both, so that another JVM (JAVA_HOME, the
# java alternative switched) or a rebuilt jar is noticed without starting a JVM. With a
# TRAINING_MAIN (a checkout) a missing or stale archive is built here, once; with "-" (the package,
# whose postinst builds them as root) the JVM starts without one.
launch() {
  tool=$1 jar=$2 base=$3 training=$4
  shift 4
  # A checkout's JVM is JAVA_HOME's, else the PATH's; the package's is the PATH's, the one its
  # postinst built the archives for.
  if [ "$training" != - ] && [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    java=$JAVA_HOME/bin/java
  elif ! java=$(command -v java); then
    if [ "$training" != - ]; then
      echo "$tool: no java (JAVA_HOME or the PATH); install a JDK 17+" >&2
    else
      echo "$tool: no java on the PATH; install a Java 17+ runtime (default-jre-headless)" >&2
    fi
    exit 3
  fi
  stamp=$(launch_stamp "$java" "$jar")
  kind=none built=
  { read -r kind built < "$base.stamp"; } 2> /dev/null || true
  if [ "${built:-}" != "$stamp" ]; then
    kind=none
    if [ "$training" != - ]; then
      echo "$tool: preparing the start-up archive for this jar and JVM (once)..." >&2
      if ! kind=$(launch_archive "$jar" "$training" "$base" "$java"); then
        # Said once: the stamp is written anyway, so the next run does not try again.
        echo "no start-up archive (start-up is slower); see above" >&2
      fi
    fi
  fi
  archive=
  case $kind in
    aot) [ -f "$base.aot" ] && archive=-XX:AOTCache=$base.aot ;;
    cds) [ -f "$base.jsa" ] && archive=-XX:SharedArchiveFile=$base.jsa ;;
  esac
  # As root, JNA unpacks its native part in the package's cache (the postinst makes its jna/)
  # rather than in /tmp, which may be noexec (then kvprov would lock pools with fcntl only).
  jna=
  if [ -d "${base%/*}/jna" ] && [ "$(id -u)" = 0 ]; then
    jna=-Djna.tmpdir=${base%/*}/jna
  fi
  # Human output fits the terminal: Java cannot ask the tty its width, so it is told.
  if [ "$tool" = kvp ] && [ -t 1 ] && [ -z "${COLUMNS:-}" ]; then
    COLUMNS=$(tput cols 2> /dev/null || stty size 2> /dev/null | cut -d' ' -f2 || true)
    [ -n "$COLUMNS" ] && export COLUMNS
  fi
  # The demo runs the real useradd/usermod on a throw-away root: they need root, which a user
  # namespace gives an ordinary user without touching the real system.
  if [ "$tool" = kvprov ] && [ "${1:-}" = demo ] && [ "$(id -u)" != 0 ] \
      && unshare --map-root-user true 2> /dev/null; then
    exec unshare --map-root-user "$java" @"$lib/jvm/common.options" @"$lib/jvm/$tool.options" \
      ${archive:+"$archive"} ${jna:+"$jna"} -jar "$jar" "$@"
  fi
  exec "$java" @"$lib/jvm/common.options" @"$lib/jvm/$tool.options" \
    ${archive:+"$archive"} ${jna:+"$jna"} -jar "$jar" "$@"
}

# What a start-up archive is made for: the JVM (its real path and time) and the jar (its time).
launch_stamp() {
  real=$(readlink -f "$1")
  # shellcheck disable=SC2046 # two times, one a line: two words
  echo "$real" $(stat -c %Y "$real" "$2")
}

#   launch_archive JAR TRAINING_MAIN BASE JAVA
# builds BASE's start-up archive for JAVA (../start-up-archive), writes BASE.stamp ("KIND" then
# what launch_stamp says) and prints KIND: aot, cds, or none when it could not (then it fails, the
# training run's output on stderr). The checkout's launchers and the package's postinst use it.
launch_archive() {
  if built_kind=$("$lib/../start-up-archive" "$1" "$2" "$3" "$4"); then
    echo "$built_kind $(launch_stamp "$4" "$1")" > "$3.stamp"
    echo "$built_kind"
  else
    echo "none $(launch_stamp "$4" "$1")" > "$3.stamp"
    echo none
    return 1
  fi
}
