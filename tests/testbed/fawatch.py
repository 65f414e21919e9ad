#!/usr/bin/env python3
"""Record which testbed host wrote and which read each file on one mount, from the
kernel's own account (fanotify), not from what gpufeed says about itself.

    fawatch.py MOUNTPOINT OUT.json STOPFILE HOST...

Marks the whole filesystem under MOUNTPOINT (its superblock: a mount mark would miss the
hosts, whose mount namespaces hold copies of the mount) for FAN_MODIFY (a write) and
FAN_ACCESS (a read); use a filesystem of its own (a tmpfs). For each event it maps the process to the testbed host whose network namespace it runs in (the inode of
/proc/PID/ns/net against /run/netns/HOST) and keeps {path: {"write": [hosts], "read":
[hosts]}}. Stops when STOPFILE appears (or after 15 minutes at most) and writes OUT.json.
Prints "ready" once the mark is set, so the caller knows events from then on are seen.
Needs root and a kernel with fanotify; exits 77 without them.
"""
import ctypes
import json
import os
import select
import struct
import sys
import time

FAN_CLASS_NOTIF = 0x0
FAN_CLOEXEC = 0x1
FAN_NONBLOCK = 0x2
FAN_ACCESS = 0x1
FAN_MODIFY = 0x2
FAN_Q_OVERFLOW = 0x4000
FAN_MARK_ADD = 0x1
FAN_MARK_FILESYSTEM = 0x100
AT_FDCWD = -100
# struct fanotify_event_metadata: event_len u32, vers u8, reserved u8, metadata_len u16,
# mask u64 (aligned), fd s32, pid s32.
META = struct.Struct("=IBBHQii")
LIMIT_S = 900


def main():
    mount, out, stopfile, hosts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    libc = ctypes.CDLL(None, use_errno=True)
    libc.fanotify_init.argtypes = [ctypes.c_uint, ctypes.c_uint]
    libc.fanotify_mark.argtypes = [ctypes.c_int, ctypes.c_uint, ctypes.c_uint64, ctypes.c_int,
                                   ctypes.c_char_p]
    fd = libc.fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK,
                            os.O_RDONLY | os.O_LARGEFILE)
    if fd < 0:
        print("fawatch: fanotify_init: %s" % os.strerror(ctypes.get_errno()), file=sys.stderr)
        sys.exit(77)
    if libc.fanotify_mark(fd, FAN_MARK_ADD | FAN_MARK_FILESYSTEM, FAN_ACCESS | FAN_MODIFY, AT_FDCWD,
                          mount.encode()) < 0:
        print("fawatch: fanotify_mark %s: %s" % (mount, os.strerror(ctypes.get_errno())),
              file=sys.stderr)
        sys.exit(77)
    ns_host = {os.stat("/run/netns/" + h).st_ino: h for h in hosts}
    pid_host = {}
    seen = {}
    overflow = False
    print("ready", flush=True)
    deadline = time.monotonic() + LIMIT_S
    while time.monotonic() < deadline:
        stop = os.path.exists(stopfile)
        r, _, _ = select.select([fd], [], [], 0.05)
        if not r:
            if stop:
                break
            continue
        try:
            buf = os.read(fd, 65536)
        except BlockingIOError:
            continue
        off = 0
        while off + META.size <= len(buf):
            ev_len, _, _, _, mask, efd, pid = META.unpack_from(buf, off)
            off += ev_len if ev_len else len(buf)
            if mask & FAN_Q_OVERFLOW:
                overflow = True
            if efd < 0:
                continue
            try:
                path = os.readlink("/proc/self/fd/%d" % efd)
            except OSError:
                path = None
            os.close(efd)
            if path is None:
                continue
            host = pid_host.get(pid)
            if host is None:
                try:
                    host = ns_host.get(os.stat("/proc/%d/ns/net" % pid).st_ino, "other")
                except OSError:
                    host = "gone"
                pid_host[pid] = host
            rec = seen.setdefault(path, {"write": [], "read": []})
            for bit, kind in ((FAN_MODIFY, "write"), (FAN_ACCESS, "read")):
                if mask & bit and host not in rec[kind]:
                    rec[kind].append(host)
    with open(out, "w") as f:
        json.dump({"overflow": overflow, "files": seen}, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
