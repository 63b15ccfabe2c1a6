#!/usr/bin/env bash
# Runs the kvp benchmarks (JMH) and, for context in the same run, the real cloud-init KVP handler
# writing the same kind of records. Results go to bench/results/.
#
#   bench/run.sh            all kvp benchmarks (about 3 minutes on 2 cores)
#   bench/run.sh -f 3       extra JMH options, e.g. more forks for tighter error bars
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p bench/results
stamp=$(date -u +%Y%m%dT%H%M%SZ)

[[ -f bench/target/benchmarks.jar ]] || ./mvnw -q -pl bench -am package -DskipTests

echo "== JMH: kvp append and scan, traced steps"
java -jar bench/target/benchmarks.jar 'dev.kvprov.bench.(Pool|TracedStep).*' -prof gc -rf json \
  -rff "bench/results/kvp-$stamp.json" "$@" | tee "bench/results/kvp-$stamp.txt"

echo "== cloud-init's handler, same record size, for context"
.ci/setup-cloud-init.sh >/dev/null
root=${KVPROV_CLOUDINIT_ROOT:-$HOME/.cache/kvprov/cloud-init}
/usr/bin/python3 bench/cloudinit_bench.py "$root/usr/lib/python3/dist-packages" 20000 \
  | tee "bench/results/cloud-init-$stamp.txt"
