#!/usr/bin/python3
"""Drives the real cloud-init Hyper-V KVP reporting handler against a pool, for interop tests.

  cloudinit_events.py write DIST_PACKAGES POOL COUNT
      prints "ready", waits for a stdin line, then reports COUNT nested start/finish event pairs
      named "interop/step-<i>" through cloud-init's handler (2 * COUNT records), flushes, prints
      "done".
  cloudinit_events.py read DIST_PACKAGES POOL
      prints every key as cloud-init's own reader (_iterate_kvps) decodes it, one per line.
"""
import sys


def main():
    mode, root, pool = sys.argv[1], sys.argv[2], sys.argv[3]
    sys.path.insert(0, root)
    from cloudinit import reporting
    from cloudinit.reporting import events, handlers

    if mode == "read":
        handler = handlers.HyperVKvpReportingHandler(kvp_file_path=pool)
        for item in handler._iterate_kvps(0):
            print(item["key"])
        return

    count = int(sys.argv[4])
    print("ready", flush=True)
    sys.stdin.readline()
    reporting.update_configuration({"telemetry": {"type": "hyperv", "kvp_file_path": pool}})
    parent = events.ReportEventStack(
        name="interop", description="interop test", reporting_enabled=True)
    for i in range(count):
        with events.ReportEventStack(
                name="step-%d" % i, description="step %d \u00fc" % i, parent=parent):
            pass
        # One locked write per step, as events trickle in during a real boot (the handler's
        # thread otherwise gathers everything queued into one write).
        reporting.flush_events()
    print("done", flush=True)


if __name__ == "__main__":
    main()
