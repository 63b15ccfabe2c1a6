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
  kind=none built='' jni_dir='' jni_name=''
  { { read -r kind built && read -r jni_dir jni_name; } < "$base.stamp"; } 2> /dev/null || true
  if [ "${built:-}" != "$stamp" ]; then
    kind=none jni_dir='' jni_name=''
    if [ "$training" != - ]; then
      echo "$tool: preparing the start-up archive for this jar and JVM (once)..." >&2
      if ! kind=$(launch_archive "$jar" "$training" "$base" "$java"); then
        # Said once: the stamp is written anyway, so the next run does not try again.
        echo "no start-up archive (start-up is slower); see above" >&2
      fi
      { read -r _ && read -r jni_dir jni_name; } < "$base.stamp" 2> /dev/null || true
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
  # Debian's libjna-jni, when the stamp says it suits the jar's JNA (launch_archive): JNA loads
  # it rather than unpack its own copy into a temporary file on every start.
  jni_path='' jni_lib=''
  if [ -n "${jni_dir:-}" ] && [ -f "$jni_dir/lib$jni_name.so" ]; then
    jni_path=-Djna.boot.library.path=$jni_dir jni_lib=-Djna.boot.library.name=$jni_name
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
      ${archive:+"$archive"} ${jna:+"$jna"} ${jni_path:+"$jni_path" "$jni_lib"} -jar "$jar" "$@"
  fi
  exec "$java" @"$lib/jvm/common.options" @"$lib/jvm/$tool.options" \
    ${archive:+"$archive"} ${jna:+"$jna"} ${jni_path:+"$jni_path" "$jni_lib"} -jar "$jar" "$@"
}

# What a start-up archive is made for: the JVM (its real path and time) and the jar (its time),
# then the time of each JNA native library Debian installed (libjna-jni), so that installing,
# upgrading or removing one is noticed too.
launch_stamp() {
  real=$(readlink -f "$1")
  set -- "$real" "$2"
  # (launch_jnidispatch's loop, inline: this runs on every start, and a $(...) is a fork)
  for jni in /usr/lib/jni/libjnidispatch*.so /usr/lib/*/jni/libjnidispatch*.so; do
    if [ -f "$jni" ]; then set -- "$@" "$jni"; fi
  done
  # shellcheck disable=SC2046 # times, one a line: words
  echo "$real" $(stat -c %Y "$@")
}

# Debian's JNA native libraries (libjna-jni: /usr/lib/<arch>/jni, /usr/lib/jni before multiarch).
launch_jnidispatch() {
  for jni in /usr/lib/jni/libjnidispatch*.so /usr/lib/*/jni/libjnidispatch*.so; do
    if [ -f "$jni" ]; then echo "$jni"; fi
  done
}

#   launch_archive JAR TRAINING_MAIN BASE JAVA
# builds BASE's start-up archive for JAVA (../start-up-archive), writes BASE.stamp ("KIND" then
# what launch_stamp says; on a second line the directory and name of a system JNA native library
# that suits JAR, if any: launch_jni) and prints KIND: aot, cds, or none when it could not (then
# it fails, the training run's output on stderr). The checkout's launchers and the package's
# postinst use it.
launch_archive() {
  status=0
  if ! built_kind=$("$lib/../start-up-archive" "$1" "$2" "$3" "$4"); then
    built_kind=none status=1
  fi
  { echo "$built_kind $(launch_stamp "$4" "$1")" && launch_jni "$1" "$4"; } > "$3.stamp"
  echo "$built_kind"
  return $status
}

#   launch_jni JAR JAVA
# prints "DIR NAME" for the first of Debian's JNA native libraries that the JNA in JAR loads with
# JAVA, and nothing if none does. A native library answers to one JNA version (bookworm's
# libjna-jni 5.13 to JNA 5.13, not 5.18: JNA then refuses to start, which would cost the flock
# lock), and to one architecture, so each is tried, once, with JNA's own version check (its main
# prints its versions) and no other place to load from.
launch_jni() {
  for jni in $(launch_jnidispatch); do
    dir=${jni%/*} name=${jni##*/lib}
    name=${name%.so}
    if "$2" -Djna.nosys=true -Djna.noclasspath=true -Djna.boot.library.path="$dir" \
        -Djna.boot.library.name="$name" -cp "$1" com.sun.jna.Native > /dev/null 2>&1; then
      echo "$dir $name"
      return 0
    fi
  done
}
