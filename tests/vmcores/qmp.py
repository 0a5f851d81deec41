#!/usr/bin/env python3
"""Minimal QMP client (stdlib only) for the fixture recipe.

    qmp.py SOCK dump PATH [--paging] [--format elf|kdump-zlib|...]
    qmp.py SOCK status
    qmp.py SOCK quit

dump-guest-memory runs synchronously (detach=false): QEMU stops the guest,
writes the file and resumes it before answering.
"""
import json
import os
import socket
import sys
import time


class QMP:
    def __init__(self, path, timeout=600):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.buf = b""
        greeting = self._read()
        if "QMP" not in greeting:
            raise RuntimeError(f"no QMP greeting: {greeting}")
        self.execute("qmp_capabilities")

    def _read(self):
        while b"\n" not in self.buf:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("QMP socket closed")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def execute(self, cmd, **args):
        msg = {"execute": cmd}
        if args:
            msg["arguments"] = args
        self.sock.sendall(json.dumps(msg).encode() + b"\n")
        while True:
            reply = self._read()
            if "event" in reply:
                continue
            if "error" in reply:
                raise RuntimeError(f"{cmd}: {reply['error']}")
            return reply.get("return")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    sock, cmd = argv[1], argv[2]
    q = QMP(sock)
    if cmd == "dump":
        path = os.path.abspath(argv[3])
        paging = "--paging" in argv
        args = {"paging": paging, "protocol": "file:" + path}
        if "--format" in argv:
            args["format"] = argv[argv.index("--format") + 1]
        t = time.monotonic()
        q.execute("dump-guest-memory", **args)
        # wait until QEMU reports the dump finished (synchronous, but be sure)
        while True:
            st = q.execute("query-dump")
            if st.get("status") in ("completed", "failed"):
                break
            time.sleep(0.1)
        if st.get("status") != "completed":
            sys.exit(f"qmp.py: dump {path} failed: {st}")
        print(f"{time.monotonic() - t:.2f}")
    elif cmd == "status":
        print(q.execute("query-status")["status"])
    elif cmd == "quit":
        try:
            q.execute("quit")
        except RuntimeError:
            pass
    else:
        sys.exit(f"qmp.py: unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv)
