#!/usr/bin/python3
"""vmlinux fetched by build-id from debuginfod (issue 16), against a real
debuginfod (Debian's package) this test starts on loopback, serving a
directory that holds the stock set's vmlinux:

  - the stock dump without vmlinux: fetched, named on stderr, decoded
    as with -k; libdebuginfod's cache (DEBUGINFOD_CACHE_PATH) has it;
  - the stock73 dump, whose vmlinux the server has not (HTTP 404): a
    one-line note, then the dump's BTF;
  - a port nobody listens on: the same;
  - a server that accepts and never answers: given up after
    INODEDUMP_DEBUGINFOD_STALL seconds without progress, then the BTF —
    no hang.
"""
import os
import socket
import subprocess
import tempfile
import threading
import time
import urllib.request

from fixture import Checker, read_truth, run, set_dir


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start_debuginfod(tmp, served):
    port = free_port()
    log = open(os.path.join(tmp, "debuginfod.log"), "w")
    proc = subprocess.Popen(
        ["debuginfod", "-F", "-L", "-d", os.path.join(tmp, "db.sqlite"),
         "-p", str(port), served],
        stdout=log, stderr=subprocess.STDOUT)
    return proc, port


def wait_indexed(port, build_id, timeout=300):
    """Until the server answers for build_id (it scans in the background)."""
    url = f"http://127.0.0.1:{port}/buildid/{build_id}/debuginfo"
    end = time.time() + timeout
    while time.time() < end:
        try:
            # debuginfod answers HEAD with 400: GET, and close at once.
            with urllib.request.urlopen(url, timeout=5) as r:
                if r.status == 200:
                    return True
        except Exception:
            pass
        time.sleep(1)
    return False


def silent_server():
    """A listener that accepts and never says a byte."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    held = []

    def serve():
        while True:
            try:
                conn, _ = s.accept()
            except OSError:
                return
            held.append(conn)

    threading.Thread(target=serve, daemon=True).start()
    return s, s.getsockname()[1]


def env_for(tmp, urls, cache="client-cache", **extra):
    """libdebuginfod caches a miss too: each case gets its own cache."""
    env = dict(os.environ)
    env["DEBUGINFOD_URLS"] = urls
    env["DEBUGINFOD_CACHE_PATH"] = os.path.join(tmp, cache)
    env["XDG_CACHE_HOME"] = os.path.join(tmp, "xdg")
    env.update(extra)
    return env


def build_id_of(dump):
    info = run(["--info", dump], env=dict(os.environ, INODEDUMP_NO_CACHE="1"))
    for line in info.stdout.splitlines():
        if line.startswith("build-id"):
            return line.split()[1]
    raise SystemExit("FAIL --info names no build-id: " + info.stdout + info.stderr)


def main():
    c = Checker()
    stock = set_dir("stock")
    stock73 = set_dir("stock73")
    dump = os.path.join(stock, "d17-zlib.vmcore")
    dump73 = os.path.join(stock73, "d17-zlib.vmcore")
    addr = read_truth(os.path.join(stock, "truth.txt"))[0]["addr"]
    addr73 = read_truth(os.path.join(stock73, "truth.txt"))[0]["addr"]
    want = run(["-k", os.path.join(stock, "vmlinux"), "-j", dump, addr])
    want73 = run(["-k", os.path.join(stock73, "vmlinux"), "-j", dump73, addr73])
    with tempfile.TemporaryDirectory(prefix="inodedump-debuginfod-") as tmp:
        empty = os.path.join(tmp, "no-debug-root")
        os.makedirs(empty)
        served = os.path.join(tmp, "served")
        os.makedirs(served)
        try:
            os.link(os.path.join(stock, "vmlinux"), os.path.join(served, "vmlinux"))
        except OSError:
            os.symlink(os.path.join(stock, "vmlinux"),
                       os.path.join(served, "vmlinux"))
        proc, port = start_debuginfod(tmp, served)
        try:
            bid = build_id_of(dump)
            c.ok("debuginfod indexed the stock vmlinux", wait_indexed(port, bid),
                 open(os.path.join(tmp, "debuginfod.log")).read()[-2000:])
            urls = f"http://127.0.0.1:{port}"
            p = run(["--debug-root", empty, "-j", dump, addr],
                    env=env_for(tmp, urls))
            c.eq("fetched: decoded as with -k", (p.returncode, p.stdout),
                 (want.returncode, want.stdout))
            c.ok("fetched: says from where",
                 f"fetched by build-id {bid} from debuginfod ({urls})" in p.stderr,
                 p.stderr)
            cached = os.path.join(tmp, "client-cache", bid, "debuginfo")
            c.ok("fetched: in libdebuginfod's cache", os.path.isfile(cached),
                 str(os.listdir(tmp)))
            # 404: the server has no 7.3 vmlinux.
            p = run(["--debug-root", empty, "-j", dump73, addr73],
                    env=env_for(tmp, urls, cache="404-cache"))
            c.eq("404: decoded from the dump's BTF as with -k",
                 (p.returncode, p.stdout), (want73.returncode, want73.stdout))
            notes = [l for l in p.stderr.splitlines()
                     if l.startswith("vmcore-inode: debuginfod (")]
            c.ok("404: one line says debuginfod has it not",
                 len(notes) == 1 and "not found" in notes[0], p.stderr)
            c.ok("404: then the BTF", "types from the dump's BTF" in p.stderr,
                 p.stderr)
        finally:
            proc.terminate()
            proc.wait(timeout=30)

        # Nobody listening.
        p = run(["--debug-root", empty, "-j", dump73, addr73],
                env=env_for(tmp, f"http://127.0.0.1:{free_port()}",
                            cache="refused-cache"))
        c.eq("refused: decoded from the dump's BTF",
             (p.returncode, p.stdout), (want73.returncode, want73.stdout))
        c.ok("refused: says so in one line",
             sum(l.startswith("vmcore-inode: debuginfod (")
                 for l in p.stderr.splitlines()) == 1,
             p.stderr)

        # A server that never answers: no hang.
        s, sport = silent_server()
        t0 = time.time()
        try:
            p = run(["--debug-root", empty, "-j", dump73, addr73],
                    env=env_for(tmp, f"http://127.0.0.1:{sport}",
                                cache="silent-cache",
                                INODEDUMP_DEBUGINFOD_STALL="3"),
                    timeout=120)
        finally:
            s.close()
        took = time.time() - t0
        c.ok(f"silent server: given up in bounded time ({took:.1f} s)",
             took < 60, p.stderr)
        c.eq("silent server: decoded from the dump's BTF",
             (p.returncode, p.stdout), (want73.returncode, want73.stdout))
        c.ok("silent server: says it gave up", "gave up" in p.stderr, p.stderr)
    c.finish()


if __name__ == "__main__":
    main()
