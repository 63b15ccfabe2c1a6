# Sourced by /usr/bin/kvprov and /usr/bin/kvp (the Debian package's launchers).
#   jvm NAME: sets $java, and $options to the JVM options NAME's jar starts with.
# C1 only and the serial collector: a short-lived process starts faster with both. JVM warnings
# (e.g. an archive the JVM cannot use) go to stderr, never into output a script reads.
jvm() {
  if ! java=$(command -v java); then
    echo "$1: no java on the PATH; install a Java 17+ runtime (default-jre-headless)" >&2
    exit 3
  fi
  options="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:-UsePerfData -Xlog:disable -Xlog:all=warning:stderr"
  # The start-up archive the postinst built (an AOT cache on JDK 25+, a class-data-sharing archive
  # before), used only with the JVM it was built for: its stamp names that JVM, and another one
  # (the java alternative switched, no package changed) would refuse the archive or the option.
  kind= built=
  { read -r kind built < "/var/cache/kvprov/$1.stamp"; } 2> /dev/null || true
  if [ -n "$built" ] && [ "$built" = "$(readlink -f "$java")" ]; then
    case "$kind" in
      aot) options="$options -XX:AOTCache=/var/cache/kvprov/$1.aot" ;;
      cds) options="$options -XX:SharedArchiveFile=/var/cache/kvprov/$1.jsa" ;;
    esac
  fi
  # As root, JNA unpacks its native part in the package's cache rather than in /tmp, which may be
  # noexec (then kvprov would lock pools with fcntl only).
  if [ "$(id -u)" = 0 ]; then
    options="$options -Djna.tmpdir=/var/cache/kvprov/jna"
  fi
}
