# shellcheck shell=sh disable=SC2154 # $lib: set by the caller, as said below
# Sourced by the launchers of kvprov and kvp: bin/kvprov and bin/kvp in a checkout, /usr/bin/kvprov
# and /usr/bin/kvp in the Debian package, which installs this directory as /usr/share/kvprov/lib.
# POSIX sh, as the package's launchers are. The caller sets $lib to this directory, and may set
# $jna_native to a directory holding JNA's native library (the package's /usr/lib/kvprov).
#
# It execs java at once: shell built-ins only (test -nt/-ot instead of stat and readlink, the PATH
# searched by hand), no process started before the JVM on the usual path; the few steps that fork
# run only where they are needed (a tty, the demo, building an archive).
#
#   launch TOOL JAR BASE TRAINING_MAIN ARG...
# runs JAR with ARGs (exec) in a JVM started the way a short-lived tool should: the options in
# jvm/common.options, then jvm/TOOL.options, then its start-up archive if there is a good one.
#
# A start-up archive roughly halves start-up (docs/performance.md): on JDK 25 and later an AOT
# cache BASE.aot, before that a class-data-sharing archive BASE.jsa (../start-up-archive picks).
# It belongs to one jar and one JVM: BASE.stamp (its kind and the JVM's real path) carries the
# jar's time, BASE.jvm the JVM's, so that another JVM (JAVA_HOME, the java alternative switched, an
# upgrade) or a rebuilt jar is noticed without starting a JVM. With a
# TRAINING_MAIN (a checkout) a missing or stale archive is built here, once; with "-" (the package,
# whose postinst builds them as root) the JVM starts without one.
launch() {
  tool=$1 jar=$2 base=$3 training=$4
  shift 4
  # A checkout's JVM is JAVA_HOME's, else the PATH's; the package's is the PATH's, the one its
  # postinst built the archives for.
  java=
  if [ "$training" != - ] && [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then
    java=$JAVA_HOME/bin/java
  else
    launch_on_path java
  fi
  if [ -z "$java" ]; then
    if [ "$training" != - ]; then
      echo "$tool: no java (JAVA_HOME or the PATH); install a JDK 17+" >&2
    else
      echo "$tool: no java on the PATH; install a Java 17+ runtime (default-jre-headless)" >&2
    fi
    exit 3
  fi
  kind=none
  if launch_fresh "$java" "$jar" "$base"; then
    { read -r kind _ < "$base.stamp"; } 2> /dev/null || kind=none
  elif [ "$training" != - ]; then
    echo "$tool: preparing the start-up archive for this jar and JVM (once)..." >&2
    if ! kind=$(launch_archive "$jar" "$training" "$base" "$java"); then
      # Said once: the stamp is written anyway, so the next run does not try again.
      echo "no start-up archive (start-up is slower); see above" >&2
    fi
  fi
  archive=
  case $kind in
    aot) [ -f "$base.aot" ] && archive=-XX:AOTCache=$base.aot ;;
    cds) [ -f "$base.jsa" ] && archive=-XX:SharedArchiveFile=$base.jsa ;;
  esac
  # The package ships JNA's native library for its architecture: JNA loads it from there rather
  # than unpacking a copy from its jar on every run (into /tmp or ~/.cache, which may be noexec),
  # and, told not to unpack, does not make ~/.cache/JNA/temp either.
  jna='' nounpack=''
  if [ -n "${jna_native:-}" ]; then
    jna=-Djna.boot.library.path=$jna_native nounpack=-Djna.nounpack=true
  fi
  # Human output fits the terminal: Java cannot ask the tty its width, so it is told (stty reads
  # the size from stdout's tty: one process, and only at a terminal).
  if [ "$tool" = kvp ] && [ -t 1 ] && [ -z "${COLUMNS:-}" ]; then
    # (fd 9: stdout's tty, as stdout inside $(...) is the pipe)
    { size=$(stty size <&9 2> /dev/null) || size=; } 9>&1
    case $size in
      *" 0" | "") ;; # a terminal that does not know its size
      *" "*) COLUMNS=${size#* }; export COLUMNS ;;
    esac
  fi
  # The demo runs the real useradd/usermod on a throw-away root: they need root, which a user
  # namespace gives an ordinary user without touching the real system.
  if [ "$tool" = kvprov ] && [ "${1:-}" = demo ] && [ "$(id -u)" != 0 ] \
      && unshare --map-root-user true 2> /dev/null; then
    exec unshare --map-root-user "$java" @"$lib/jvm/common.options" @"$lib/jvm/$tool.options" \
      ${archive:+"$archive"} ${jna:+"$jna" "$nounpack"} -jar "$jar" "$@"
  fi
  exec "$java" @"$lib/jvm/common.options" @"$lib/jvm/$tool.options" \
    ${archive:+"$archive"} ${jna:+"$jna" "$nounpack"} -jar "$jar" "$@"
}

# Sets $java to the first executable NAME on the PATH, or leaves it empty: `command -v` without
# the process a command substitution costs.
launch_on_path() {
  saved_ifs=$IFS
  IFS=:
  for dir in $PATH; do
    if [ -f "${dir:-.}/$1" ] && [ -x "${dir:-.}/$1" ]; then
      java=${dir:-.}/$1
      break
    fi
  done
  IFS=$saved_ifs
}

# Whether BASE's archive was made for JAVA and JAR: BASE.stamp has the jar's time and BASE.jvm the
# JVM's (launch_archive copies them), and test compares times without a process. Another JVM (a
# switched alternative, an upgrade in place) has another time; so does a rebuilt jar.
# shellcheck disable=SC3013 # -nt/-ot: not in POSIX, in every sh Debian has (dash, bash, busybox)
launch_fresh() {
  [ -f "$3.stamp" ] && [ -f "$3.jvm" ] \
    && ! [ "$2" -nt "$3.stamp" ] && ! [ "$2" -ot "$3.stamp" ] \
    && ! [ "$1" -nt "$3.jvm" ] && ! [ "$1" -ot "$3.jvm" ]
}

#   launch_archive JAR TRAINING_MAIN BASE JAVA
# builds BASE's start-up archive for JAVA (../start-up-archive), writes BASE.stamp ("KIND" then
# the JVM's real path, for people; its time the jar's) and BASE.jvm (its time the JVM's), and
# prints KIND: aot, cds, or none when it could not (then it fails, the training run's output on
# stderr). The checkout's launchers and the package's postinst use it.
launch_archive() {
  real=$(readlink -f "$4")
  status=0
  built_kind=$("$lib/../start-up-archive" "$1" "$2" "$3" "$4") || { built_kind=none status=1; }
  echo "$built_kind $real" > "$3.stamp"
  : > "$3.jvm"
  touch -r "$1" "$3.stamp"
  touch -r "$real" "$3.jvm"
  echo "$built_kind"
  return $status
}
