"""Writes a Hyper-V KVP pool the way the other writers on a VM do, for kvp watch's tests.

    pool_writer.py append FILE KEY=VALUE...   whole records in one write under flock, as
                                              cloud-init and azure-init append
    pool_writer.py clear FILE                 empties the file without a lock, as cloud-init and
                                              azure-init do once per boot
    pool_writer.py rewrite FILE KEY=VALUE...  replaces the whole content in place (same file)
                                              under an fcntl write lock, as hv_kvp_daemon does on
                                              a host SET or DELETE
    pool_writer.py rewrite-in-same-tick FILE KEY=VALUE...
                                              the same, leaving the mtime as it was, as when the
                                              rewrite lands in the clock tick of the write before
"""

import fcntl
import os
import sys

KEY_SIZE = 512
VALUE_SIZE = 2048


def record(item):
    key, _, value = item.partition("=")
    key, value = key.encode(), value.encode()
    if not 0 < len(key) < KEY_SIZE or len(value) >= VALUE_SIZE:
        sys.exit("does not fit a record: " + item)
    return key.ljust(KEY_SIZE, b"\0") + value.ljust(VALUE_SIZE, b"\0")


def write_all(fd, data, offset=None):
    done = 0
    while done < len(data):
        if offset is None:
            done += os.write(fd, data[done:])
        else:
            done += os.pwrite(fd, data[done:], offset + done)


def main(operation, path, *items):
    data = b"".join(record(item) for item in items)
    if operation == "append":
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            write_all(fd, data)
        finally:
            os.close(fd)
    elif operation == "clear":
        os.truncate(path, 0)
    elif operation in ("rewrite", "rewrite-in-same-tick"):
        fd = os.open(path, os.O_RDWR)
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX)
            before = os.fstat(fd)
            write_all(fd, data, 0)
            os.ftruncate(fd, len(data))
            if operation == "rewrite-in-same-tick":
                os.utime(fd, ns=(before.st_atime_ns, before.st_mtime_ns))
        finally:
            os.close(fd)
    else:
        sys.exit("unknown operation: " + operation)


if __name__ == "__main__":
    main(*sys.argv[1:])
