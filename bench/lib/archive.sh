# Sourced by bench's scripts that start kvp as its launchers do.

# The JVM option that starts JAR with the start-up archive made for it by JAVA at BASE (a path
# without its extension; trained by kvp's CdsTraining): JDK 25's AOT cache or a CDS archive, or
# -Xshare:auto when none could be made. TOOL is the checkout's bin/start-up-archive (another
# checkout's for its own jar).
kvp_archive_option() {
  local jar=$1 base=$2 java=$3 tool=${4:-bin/start-up-archive}
  case $("$tool" "$jar" dev.kvprov.inspect.CdsTraining "$base" "$java") in
    aot) echo "-XX:AOTCache=$base.aot" ;;
    cds) echo "-XX:SharedArchiveFile=$base.jsa" ;;
    *) echo -Xshare:auto ;;
  esac
}
