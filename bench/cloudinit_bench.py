#!/usr/bin/python3
"""Times the real cloud-init (Debian 12, 22.4.2) Hyper-V KVP handler writing N records, for context
beside kvprov's JMH figures. Two ways cloud-init writes:

  per-event:  a flush after every event, so each record is its own locked append (like a batch of 1)
  queued:     all events queued, then one flush; the handler's thread gathers them into few appends

Usage: cloudinit_bench.py DIST_PACKAGES N
"""
import os
import sys
import tempfile
import time


def main():
    root, n = sys.argv[1], int(sys.argv[2])
    sys.path.insert(0, root)
    from cloudinit import reporting, version
    from cloudinit.reporting import events

    print("cloud-init", version.version_string())
    for mode in ("per-event", "queued"):
        pool = os.path.join(tempfile.mkdtemp(prefix="kvp-bench-ci-"), ".kvp_pool_1")
        open(pool, "wb").close()
        reporting.update_configuration(
            {"telemetry": {"type": "hyperv", "kvp_file_path": pool}})
        start = time.perf_counter()
        for i in range(n):
            events.report_event(events.ReportingEvent(
                "diagnostic", "bench/event-%d" % i, "x" * 300))
            if mode == "per-event":
                reporting.flush_events()
        reporting.flush_events()
        elapsed = time.perf_counter() - start
        records = os.path.getsize(pool) // 2560
        assert records == n, (records, n)
        print("%-9s %7d records in %7.3f s = %9.0f records/s"
              % (mode, records, elapsed, records / elapsed))
        os.remove(pool)
        os.rmdir(os.path.dirname(pool))


if __name__ == "__main__":
    main()
