#!/usr/bin/python3
"""Other writers of a KVP pool, the way they really lock and write, for kvprov's tests.

  append-flock POOL WRITER COUNT [ROUNDS]
                                   cloud-init / azure-init style: flock(LOCK_EX), one O_APPEND write
  append-fcntl POOL WRITER COUNT [ROUNDS]
                                   POSIX fcntl(F_SETLKW) write lock, one O_APPEND write
                                   (both print "ready" and start on a stdin line; with ROUNDS,
                                   after each round but the last they print "round" and wait for
                                   another stdin line)
  append-torn POOL                 takes flock, writes the first 1000 bytes of a record and dies
                                   (exit 9) without releasing: a writer killed mid-write
  hold-flock POOL                  take flock, print "locked", wait for a stdin line, append one
                                   record "holder|flock", release, print "released"
  hold-fcntl POOL                  hv_kvp_daemon style: take the fcntl lock, print "locked", wait
                                   for a stdin line, re-read the whole file and rewrite it from
                                   offset 0 with one record "holder|fcntl" added, release
Record contents follow PeerRecords.java exactly.
"""
import fcntl
import os
import sys

KEY, VALUE = 512, 2048


def record(key, value):
    k, v = key.encode(), value.encode()
    assert len(k) < KEY and len(v) < VALUE
    return k.ljust(KEY, b"\0") + v.ljust(VALUE, b"\0")


def key(writer, seq):
    return "%s|%d" % (writer, seq)


def value(writer, seq):
    return "%s:%d:" % (writer, seq) + "\u00fc" * (seq % 97) + "x" * (seq * 13 % 400)


def append(path, writer, count, lock, rounds=1):
    print("ready", flush=True)
    sys.stdin.readline()
    round_ = 1
    for seq in range(count):
        if round_ < rounds and seq >= count * round_ // rounds:
            round_ += 1
            print("round", flush=True)
            sys.stdin.readline()
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        try:
            lock(fd, True)
            data = record(key(writer, seq), value(writer, seq))
            assert os.write(fd, data) == len(data)
            lock(fd, False)
        finally:
            os.close(fd)


def append_torn(path):
    print("ready", flush=True)
    sys.stdin.readline()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    flock(fd, True)
    os.write(fd, record("torn|0", "never finished")[:1000])
    os._exit(9)


def flock(fd, on):
    fcntl.flock(fd, fcntl.LOCK_EX if on else fcntl.LOCK_UN)


def posix(fd, on):
    # Python's lockf() is fcntl(F_SETLKW) with a whole-file range, as hv_kvp_daemon uses.
    fcntl.lockf(fd, fcntl.LOCK_EX if on else fcntl.LOCK_UN)


def hold(path, kind):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    (flock if kind == "flock" else posix)(fd, True)
    print("locked", flush=True)
    sys.stdin.readline()
    mine = record("holder|" + kind, "held the " + kind + " lock")
    if kind == "flock":
        os.lseek(fd, 0, os.SEEK_END)
        os.write(fd, mine)
    else:
        size = os.fstat(fd).st_size
        os.lseek(fd, 0, os.SEEK_SET)
        data = os.read(fd, size)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, data + mine)
        os.ftruncate(fd, len(data) + len(mine))
    (flock if kind == "flock" else posix)(fd, False)
    os.close(fd)
    print("released", flush=True)


def main():
    mode, path = sys.argv[1], sys.argv[2]
    if mode == "append-flock":
        append(path, sys.argv[3], int(sys.argv[4]), flock, *map(int, sys.argv[5:6]))
    elif mode == "append-fcntl":
        append(path, sys.argv[3], int(sys.argv[4]), posix, *map(int, sys.argv[5:6]))
    elif mode == "append-torn":
        append_torn(path)
    elif mode in ("hold-flock", "hold-fcntl"):
        hold(path, mode.split("-")[1])
    else:
        sys.exit("unknown mode " + mode)
    print("done", flush=True)


if __name__ == "__main__":
    main()
