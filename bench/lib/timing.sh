# Sourced by bench's whole-process scripts that alternate their commands (one run of each, then
# again), so that a shared machine's moods fall on all of them alike.

# Milliseconds one run of "$@" takes, its output thrown away (a failure stops the comparison).
time_ms() {
  local start end
  start=$(date +%s%N)
  "$@" > /dev/null 2>&1 || { echo "$(basename "$0"): failed: $*" >&2; exit 1; }
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

# The median of the numbers on stdin, one a line.
median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }
