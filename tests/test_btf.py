#!/usr/bin/python3
"""No vmlinux: types from the dump's BTF, symbols from its kallsyms
(issue 16).

    test_btf.py equal SET TEST_KALLSYMS
                            every truth inode of every dump of the set
                            decodes field for field as with the DWARF
                            vmlinux (-j documents equal); the reports, the
                            log, the sweep with paths and the holders too;
                            the first run (cache empty) and the cached run
                            print the same (old510: 5.10, whose kallsyms
                            are found in the kernel image); kallsyms, read on demand
                            through test_kallsyms.c, against vmlinux's
                            .symtab by name and by address
    test_btf.py find        stock: vmlinux by build-id under --debug-root
                            before the release's paths; --info says where
                            types and symbols came from; a dump whose BTF
                            is damaged exits 3 saying so; one whose
                            VMCOREINFO names no kallsyms has them found in
                            its image, where VMCOREINFO had them; a
                            damaged cache is not trusted

The DWARF side is the truth here: its own tests hold it to the kernel's
truth lines and to drgn. Every run without -k gets an empty --debug-root
so that no vmlinux is found, and a cache directory of its own.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

from fixture import Checker, FORMATS, elf_section, read_truth, set_dir
from fixture import run as fixture_run
from test_errors import dumped_pages  # noqa: E402


def run(args, **kw):
    """
    vmcore-inode without the filesystems' own rows: what this file tests is
    how the kernel's BTF is read and kept for the VFS layer. A module's rows
    need its split BTF, which libbpf parses on the whole of vmlinux's, and
    that would change what is read and cached here; test_fs_rows.py checks
    those rows from the BTF against DWARF.
    """
    return fixture_run(["--no-fs-rows", *args], **kw)

NO_DEBUG = None  # an empty --debug-root, made in main()


def env_with_cache(cache):
    env = dict(os.environ)
    env["XDG_CACHE_HOME"] = cache
    env.pop("DEBUGINFOD_URLS", None)
    # The BTF's pages decompressed on several threads (diskdump.c's
    # read_pages_parallel), whatever the machine's count of CPUs.
    env["INODEDUMP_READ_THREADS"] = "4"
    return env


def btf_run(args, cache, env_extra=None, **kw):
    env = env_with_cache(cache)
    env.update(env_extra or {})
    return run(["--debug-root", NO_DEBUG, *args], env=env, **kw)


def dumps_of(d):
    out = []
    for fmt, name in FORMATS.items():
        p = os.path.join(d, name)
        if os.path.exists(p):
            out.append((fmt, p))
    for extra in ("d31-zlib.vmcore", "panic.vmcore"):
        p = os.path.join(d, extra)
        if os.path.exists(p):
            out.append((extra.split(".")[0], p))
    return out


# Bytes after a btf_type's 12, by kind: a fixed part and a part per vlen.
BTF_EXTRA = {1: (4, 0), 3: (12, 0), 4: (0, 12), 5: (0, 12), 6: (0, 8),
             13: (0, 8), 14: (4, 0), 15: (0, 12), 17: (4, 0), 19: (0, 12)}


class Btf:
    """vmlinux's .BTF as the kernel was built with it: record offsets by
    id (from the start of the section) and names, read here in Python,
    not by inodedump."""

    def __init__(self, data):
        magic, _, _, hdr_len, type_off, type_len, str_off, str_len = \
            struct.unpack_from("<HBBIIIII", data, 0)
        assert magic == 0xeb9f, hex(magic)
        self.data = data
        self.types = hdr_len + type_off
        self.strs = hdr_len + str_off
        self.off = [None]  # id 0 is void
        self.info = [None]
        off, end = self.types, self.types + type_len
        while off < end:
            name_off, info, _ = struct.unpack_from("<III", data, off)
            self.off.append(off)
            self.info.append((name_off, (info >> 24) & 0x1f))
            fixed, per = BTF_EXTRA.get((info >> 24) & 0x1f, (0, 0))
            off += 12 + fixed + per * (info & 0xffff)

    def name(self, i):
        o = self.strs + self.info[i][0]
        return self.data[o:self.data.index(b"\0", o)].decode()

    def is_sorted(self):
        """Anonymous types first, then the named ones by name (7.3, not 6.12:
        resolve_btfids sorts vmlinux's BTF, and the kernel relies on it)."""
        names = [self.name(i) if self.info[i][0] else "" for i in range(1, len(self.off))]
        first = next((i for i, n in enumerate(names) if n), len(names))
        named = [n.encode() for n in names[first:]]
        return first > 0 and all(names[i] == "" for i in range(first)) and \
            all(a <= b for a, b in zip(named, named[1:]))

    def struct_id(self, name):
        return next(i for i in range(1, len(self.off))
                    if self.info[i][1] in (4, 5) and self.info[i][0] and self.name(i) == name)


def reading_of(btf):
    """How inodedump says it reads this BTF: sorted, through the kernel's
    index; not, from its start."""
    return ", read on demand" if btf.is_sorted() else \
        ", read on demand from its start: it is not sorted"


def vmlinux_btf(vmlinux):
    data = elf_section(vmlinux, ".BTF")
    return Btf(data) if data else None


def from_btf(c, name, p):
    c.ok(f"{name}: types from the dump's BTF",
         "no vmlinux: types from the dump's BTF" in p.stderr, p.stderr[-600:])


def case_equal(c, set_name, tmp, helper):
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    addrs = sorted({t["addr"] for t in read_truth(os.path.join(d, "truth.txt"))})
    cache = os.path.join(tmp, "cache")
    dumps = dumps_of(d)
    # The committed fixture is one dump; every built set has all formats.
    c.ok(f"{set_name}: dumps found",
         len(dumps) >= (1 if set_name == "committed" else 5), str(dumps))
    # A kernel whose BTF is sorted has it read on demand through its own
    # index, where the dump kept that index (every format but the
    # filtering ones certainly does); any other is read on demand from its
    # start, as far as the lookups need.
    btf = vmlinux_btf(vmlinux)
    on_demand = btf.is_sorted() if btf else None
    reading = None if btf is None else reading_of(btf)
    if btf is None:
        print(f"NOTE {set_name}: vmlinux carries no .BTF (a debug-only file), "
              "so whether the BTF is read on demand is not checked here")
    first = True
    for fmt, dump in dumps:
        want = run(["-k", vmlinux, "-j", dump, *addrs])
        # A cache of its own: every dump's BTF is read from the dump.
        own = os.path.join(tmp, "cache-" + fmt)
        got = btf_run(["-j", dump, *addrs], own)
        from_btf(c, f"{set_name} {fmt}", got)
        if fmt in FORMATS and reading is not None:
            c.ok(f"{set_name} {fmt}: BTF{reading} (sorted: {on_demand})",
                 reading + "), symbols" in got.stderr, got.stderr[-600:])
        if fmt == "d31-zlib" and on_demand:
            # makedumpfile -d 31 may leave the kernel's index out (a large
            # kmalloc()'s tail pages); the BTF is read on demand anyway.
            c.ok(f"{set_name} {fmt}: BTF read on demand",
                 "BTF (" in got.stderr and ", read on demand" in got.stderr.split("symbols")[0],
                 got.stderr[-600:])
            if "its types whole" in got.stderr:
                # The type records read whole were kept: taken from there.
                again = btf_run(["-j", dump, *addrs], own)
                c.ok(f"{set_name} {fmt}: its types from the cache the first run filled",
                     "its types from the cache" in again.stderr, again.stderr[-600:])
                c.eq(f"{set_name} {fmt}: from the cache, the same",
                     (again.returncode, again.stdout), (got.returncode, got.stdout))
        c.eq(f"{set_name} {fmt}: exit status", got.returncode, want.returncode)
        try:
            c.eq(f"{set_name} {fmt}: every truth inode as with DWARF",
                 json.loads(got.stdout), json.loads(want.stdout))
        except json.JSONDecodeError as e:
            c.ok(f"{set_name} {fmt}: JSON", False, f"{e}: {got.stderr[-500:]}")
        if first:
            if on_demand:
                # (vmlinux.btf.pages: the chunks the run read, test_memo.py)
                c.ok(f"{set_name} {fmt}: on demand, no BTF cached",
                     not any("btf" in f and not f.endswith(".pages")
                             for _, _, fs in os.walk(own) for f in fs),
                     str(list(os.walk(own))))
            # Read whole (as every kernel without sorted BTF is), and cached.
            whole = btf_run(["-j", dump, *addrs], cache,
                            env_extra={"INODEDUMP_BTF_WHOLE": "1"})
            c.ok(f"{set_name} {fmt}: INODEDUMP_BTF_WHOLE: read whole",
                 "BTF (" in whole.stderr and
                 "read on demand" not in whole.stderr.split("symbols")[0],
                 whole.stderr[-600:])
            c.eq(f"{set_name} {fmt}: read whole, the same",
                 (whole.returncode, whole.stdout), (got.returncode, got.stdout))
            # The cache holds both tables now: the same from it.
            again = btf_run(["-j", dump, *addrs], cache)
            c.eq(f"{set_name} {fmt}: cached run prints the same",
                 (again.returncode, again.stdout), (got.returncode, got.stdout))
            info = btf_run(["--info", dump], cache)
            c.ok(f"{set_name}: --info says the BTF came from the cache",
                 "cached in " + cache in info.stdout, info.stdout)
            first = False
    kallsyms_against_symtab(c, set_name, vmlinux, cache, dumps[0][1], helper)
    # The other runs of the command, on the first compressed and the ELF dump.
    for fmt, dump in dumps:
        if fmt not in ("d17-zlib", "elf-paging"):
            continue
        for args in ([dump], ["-j", dump], ["--log", dump],
                     ["--sweep", "--jsonl", "--paths", dump],
                     ["--holders", "-j", dump, *addrs[:6]]):
            want = run(["-k", vmlinux, *args])
            # Types as a first run has them: on demand, or read whole.
            got = btf_run(args, os.path.join(tmp, "cache-runs"))
            what = " ".join(a for a in args if a.startswith("-")) or "reports"
            c.eq(f"{set_name} {fmt} {what}: as with DWARF",
                 (got.returncode, got.stdout), (want.returncode, want.stdout))


def kallsyms_against_symtab(c, set_name, vmlinux, cache, dump, helper):
    """The dump's kallsyms as a run without vmlinux reads them (on demand:
    test_kallsyms.c answers lookups through the library) against vmlinux's
    .symtab plus the KASLR offset (per-CPU symbols of an absolute-per-CPU
    kernel unrelocated): every name vmlinux defines once, looked up by
    name; and a sample of vmlinux's kernel addresses, each named back."""
    info = btf_run(["--info", dump], cache)
    facts = {l[:18].strip(): l[19:].split()[0] for l in info.stdout.splitlines()
             if len(l) > 19}
    kaslr = int(facts.get("KASLR offset", "0x0"), 16)
    nm = subprocess.run(["nm", vmlinux], capture_output=True, text=True,
                        check=True).stdout
    where, twice, at = {}, set(), {}
    for line in nm.splitlines():
        f = line.split()
        if len(f) != 3:
            continue
        a = int(f[0], 16)
        if f[2] in where and where[f[2]] != a:
            twice.add(f[2])
        where[f[2]] = a
        # Not what kallsyms leaves out (scripts/mksysmap): the
        # assembler's local labels (.LC0), __crc_ and __kstrtab_ symbols.
        if (a >= 1 << 63 and f[1] in "tTdDrRbB" and
                not f[2].startswith((".", "__crc_", "__kstrtab"))):
            at.setdefault(a, set()).add(f[2])

    def runtime(name):
        a = where[name]
        return a + (kaslr if a >= 1 << 63 else 0)

    once = sorted(n for n in where if n not in twice)
    sample = sorted(at)[::7]
    queries = [f"N {n}" for n in once] + [f"A 0x{a + kaslr:x}" for a in sample]
    p = subprocess.run([helper, dump, NO_DEBUG], input="\n".join(queries) + "\n",
                       capture_output=True, text=True,
                       env=env_with_cache(os.path.join(cache, "helper")))
    out = p.stdout.splitlines()
    c.eq(f"{set_name}: test_kallsyms exit status", p.returncode, 0)
    if p.returncode or not out:
        c.ok(f"{set_name}: test_kallsyms ran", False, p.stderr[-500:])
        return
    # A kernel with kallsyms_seqs_of_names (6.2+: 6.12, 7.3) has names
    # found through it; one without (5.10) decodes the whole table on the
    # first lookup by name. Which one is vmlinux's own symbol table's say.
    seqs = "kallsyms_seqs_of_names" in where
    c.ok(f"{set_name}: kallsyms read on demand, names found by "
         f"kallsyms_seqs_of_names: {seqs}",
         out[0].startswith(f"lazy 1 by-name {int(seqs)} "), out[0])
    answers = {"N": [], "A": []}
    for line in out[1:]:
        f = line.split()
        answers.setdefault(f[0], []).append(f[1:])
    same = differ = missing = 0
    bad = []
    for name, got in answers["N"]:
        if got == "-":
            missing += 1
        elif int(got, 16) == runtime(name):
            same += 1
        else:
            differ += 1
            bad.append(f"{name} {got} != 0x{runtime(name):x}")
    # The bar is the smaller table: a full vmlinux has names kallsyms
    # leaves out, and a committed vmlinux has its symbol table cut down on
    # purpose (make-committed.sh --strip-symbols).
    n = int(out[0].split()[-1])
    c.ok(f"{set_name}: kallsyms names at vmlinux's addresses ({same} of "
         f"{len(once)} names vmlinux defines once, {missing} not in kallsyms; "
         f"kallsyms has {n})",
         differ == 0 and same > min(n, len(once)) * 0.9,
         f"{differ} differ: {bad[:5]}")
    exact = consistent = unknown = 0
    bad = []
    for at_hex, got in answers["A"]:
        a = int(at_hex, 16)
        name, _, off = got.partition("+")
        off = int(off, 16) if off else 0
        if not off and name in at.get(a - kaslr, ()):
            exact += 1
        elif name in where and name not in twice and runtime(name) + off == a:
            consistent += 1
        elif name not in where:
            unknown += 1  # a committed vmlinux's cut-down table lacks it
        else:
            bad.append(f"0x{a:x} -> {got} (vmlinux: {sorted(at.get(a - kaslr, ()))[:3]})")
    c.ok(f"{set_name}: vmlinux's addresses named back ({exact} of "
         f"{len(sample)} by a name vmlinux has there, {consistent} as "
         f"name+offset of a symbol below, {unknown} by a name vmlinux's "
         "table lacks)",
         not bad and exact >= len(sample) * 0.99, f"{len(bad)} wrong: {bad[:5]}")


# ------------------------------------------------------------------ find --

def page_desc(data, at, want):
    """Descriptor offset and page bytes of the page whose bytes at offset
    `at` are `want`."""
    for d, _, _, page in dumped_pages(data):
        if page and page[at:at + len(want)] == want:
            return d, page
    raise SystemExit("FAIL no page of the dump holds the BTF header")


def with_page(tmp, name, src, desc, page):
    """A copy of src whose page at descriptor desc is `page`, stored
    uncompressed at the end of the file."""
    data = bytearray(open(src, "rb").read())
    end = len(data)
    data += page
    data[desc:desc + 16] = struct.pack("<QII", end, len(page), 0)
    p = os.path.join(tmp, name)
    open(p, "wb").write(data)
    return p


def btf_address(c, dump, cache):
    """Where the BTF is in the dump, as a first run (cache empty) says."""
    info = btf_run(["--info", dump], cache)
    for line in info.stdout.splitlines():
        if line.startswith("types") and " bytes at 0x" in line:
            return int(line.split(" bytes at 0x")[1].split(")")[0].split(",")[0], 16)
    c.ok("--info names the BTF's address", False, info.stdout + info.stderr)
    return None


def case_find(c, tmp):
    d = set_dir("stock")
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, "d17-zlib.vmcore")
    truth = read_truth(os.path.join(d, "truth.txt"))
    addr = truth[0]["addr"]
    want = run(["-k", vmlinux, "-j", dump, addr])
    cache = os.path.join(tmp, "cache")

    # --info: where types and symbols came from.
    info = btf_run(["--info", dump], cache)
    c.eq("--info exit status", info.returncode, 0)
    facts = {l[:18].strip(): l[19:] for l in info.stdout.splitlines()}
    c.ok("--info: types from the dump's BTF",
         facts.get("types", "").startswith("the dump's BTF ("), info.stdout)
    c.ok("--info: symbols from the dump's kallsyms",
         facts.get("symbols", "").startswith("the dump's kallsyms ("),
         info.stdout)
    c.ok("--info: vmlinux none, and where it was looked for",
         facts.get("vmlinux", "").startswith("(none)  [none (tried " +
                                             NO_DEBUG + "/usr/lib/debug/.build-id/"),
         info.stdout)
    dwarf = run(["-k", vmlinux, "--info", dump])
    c.ok("--info with -k: types from vmlinux DWARF",
         f"vmlinux {vmlinux} (DWARF)" in dwarf.stdout, dwarf.stdout)

    # vmlinux by build-id, laid out as Debian's -dbg packages do, before
    # the release's paths (where a wrong kernel's vmlinux is put).
    build_id = next(l.split()[1] for l in info.stdout.splitlines()
                    if l.startswith("build-id"))
    release = next(l.split()[1] for l in info.stdout.splitlines()
                   if l.startswith("release"))
    root = os.path.join(tmp, "root")
    bid = os.path.join(root, "usr/lib/debug/.build-id", build_id[:2])
    os.makedirs(bid)
    os.symlink(vmlinux, os.path.join(bid, build_id[2:] + ".debug"))
    boot = os.path.join(root, "usr/lib/debug/boot")
    os.makedirs(boot)
    other = os.path.join(set_dir("stock73"), "vmlinux")
    os.symlink(other, os.path.join(boot, "vmlinux-" + release))
    p = run(["--debug-root", root, "-j", dump, addr])
    c.eq("build-id: decoded as with -k", (p.returncode, p.stdout),
         (want.returncode, want.stdout))
    c.ok("build-id: says which vmlinux and why",
         f"found by the dump's build-id {build_id}" in p.stderr, p.stderr)
    os.unlink(os.path.join(bid, build_id[2:] + ".debug"))
    p = run(["--debug-root", root, "-j", dump, addr])
    c.eq("release path with the wrong kernel: refused", p.returncode, 3)
    c.ok("release path with the wrong kernel: says so",
         "is not the kernel of" in p.stderr, p.stderr)

    # A damaged cache is not trusted: truncated, or garbage of the right size.
    kdir = os.path.join(cache, "inodedump", "kernel", build_id)
    # 6.12's BTF is not sorted: what the runs read from its start is kept,
    # not the whole BTF.
    c.ok("cache file vmlinux.btf.start written",
         os.path.isfile(os.path.join(kdir, "vmlinux.btf.start")), kdir)
    c.ok("whole BTF not cached (read on demand)",
         not os.path.exists(os.path.join(kdir, "vmlinux.btf")), str(os.listdir(kdir)))
    p = btf_run(["-j", dump, addr], cache)
    c.eq("from vmlinux.btf.start: decoded as with DWARF",
         (p.returncode, p.stdout), (want.returncode, want.stdout))
    c.ok("from vmlinux.btf.start: said",
         "; what earlier runs read, from the cache), symbols" in p.stderr, p.stderr[-600:])
    # The same kernel booted again, at another KASLR offset (stock4): the
    # kept part is found where this boot has the BTF.
    d4 = set_dir("stock4")
    dump4 = os.path.join(d4, "d17-zlib.vmcore")
    addrs4 = sorted({t["addr"] for t in read_truth(os.path.join(d4, "truth.txt"))})
    want4 = run(["-k", os.path.join(d4, "vmlinux"), "-j", dump4, *addrs4])
    p = btf_run(["-j", dump4, *addrs4], cache)
    c.eq("another boot (stock4), its KASLR offset: decoded as with DWARF",
         (p.returncode, p.stdout), (want4.returncode, want4.stdout))
    c.ok("another boot (stock4): the kept part used",
         "; what earlier runs read, from the cache), symbols" in p.stderr,
         p.stderr[-600:])
    # The kept part damaged: not trusted, read from the dump and kept again.
    start = os.path.join(kdir, "vmlinux.btf.start")
    for damage in ("garble", "truncate", "garble-late"):
        size = os.path.getsize(start)
        with open(start, "r+b") as f:
            if damage == "truncate":
                f.truncate(size // 2)
            elif damage == "garble":
                f.write(b"\xa5" * 4096)
            else:  # the kept types' last 256 bytes, which are compared
                types_len = struct.unpack_from("<Q", f.read(64), 32)[0]
                f.seek(64 + types_len - 256)
                f.write(b"\xa5" * 256)
        p = btf_run(["-j", dump, addr], cache)
        c.eq(f"vmlinux.btf.start {damage}d: decoded as with DWARF",
             (p.returncode, p.stdout), (want.returncode, want.stdout))
        c.ok(f"vmlinux.btf.start {damage}d: not taken",
             "from the cache), symbols" not in p.stderr, p.stderr[-600:])
        p = btf_run(["-j", dump, addr], cache)
        c.ok(f"vmlinux.btf.start {damage}d: kept again, taken",
             p.returncode == want.returncode and p.stdout == want.stdout and
             "from the cache), symbols" in p.stderr, p.stderr[-600:])
    # Read whole (INODEDUMP_BTF_WHOLE): the whole BTF and its index kept.
    p = btf_run(["-j", dump, addr], cache, env_extra={"INODEDUMP_BTF_WHOLE": "1"})
    c.eq("INODEDUMP_BTF_WHOLE: decoded as with DWARF",
         (p.returncode, p.stdout), (want.returncode, want.stdout))
    for name in ("vmlinux.btf", "vmlinux.btf.index"):
        path = os.path.join(kdir, name)
        c.ok(f"cache file {name} written", os.path.isfile(path), kdir)
    # kallsyms are read on demand: nothing decoded whole, nothing cached
    # (a kernel without kallsyms_seqs_of_names, before 6.2, would be).
    c.ok("kallsyms read on demand: no kallsyms cache file",
         not os.path.exists(os.path.join(kdir, "kallsyms")), kdir)
    # A kallsyms file (as kept by an older inodedump or for such a kernel),
    # damaged: its header's counts absurd, or garbage.
    with open(os.path.join(kdir, "kallsyms"), "wb") as f:
        f.write(b"IDDKSYM2" + struct.pack("<QQQ", 1 << 40, 1 << 40, 64) +
                b"\0" * 4096)
    for name, damage in (("kallsyms", "keep"), ("vmlinux.btf", "garble"),
                         ("vmlinux.btf.index", "truncate"),
                         ("kallsyms", "garble")):
        path = os.path.join(kdir, name)
        size = os.path.getsize(path)
        with open(path, "r+b") as f:
            if damage == "truncate":
                f.truncate(size // 2)
            elif damage == "garble":
                f.seek(0)
                f.write(b"\xa5" * min(size, 4096))
        p = btf_run(["-j", dump, addr], cache)
        c.eq(f"cache {name} {damage}d: decoded as with DWARF",
             (p.returncode, p.stdout), (want.returncode, want.stdout))
        p = btf_run(["-j", dump, addr], cache)
        c.eq(f"cache {name} {damage}d: rewritten, decoded again",
             (p.returncode, p.stdout), (want.returncode, want.stdout))

    # Damaged BTF in the dump: its header, then its types. No cache, so
    # the dump's own bytes are read.
    at = btf_address(c, dump, os.path.join(tmp, "c-at"))
    if at is not None:
        data = open(dump, "rb").read()
        desc, page = page_desc(data, at & 0xfff, b"\x9f\xeb\x01\x00\x18\x00\x00\x00")
        bad = bytearray(page)
        bad[at & 0xfff] ^= 0xff
        p = btf_run(["-j", with_page(tmp, "magic.vmcore", dump, desc, bytes(bad)),
                     addr], os.path.join(tmp, "c1"))
        c.eq("BTF magic damaged: exit 3", p.returncode, 3)
        for w in ("no vmlinux for release", "BTF", "no BTF header", "-k"):
            c.ok(f"BTF magic damaged: message names {w!r}", w in p.stderr, p.stderr)
        bad = bytearray(page)
        start = (at & 0xfff) + 24
        bad[start:start + 256] = b"\xff" * min(256, 4096 - start)
        p = btf_run(["-j", with_page(tmp, "types.vmcore", dump, desc, bytes(bad)),
                     addr], os.path.join(tmp, "c2"))
        c.eq("BTF types damaged: exit 3", p.returncode, 3)
        c.ok("BTF types damaged: libbpf refuses it, said",
             "BTF in the dump is corrupt" in p.stderr, p.stderr)
        c.ok("no sanitizer report", "Sanitizer" not in p.stderr, p.stderr[-300:])
        # The page's data made undecompressable: the read fails, said.
        data = bytearray(data)
        off, size, flags = struct.unpack_from("<QII", data, desc)
        data[off:off + size] = b"\x00" * size
        bad_path = os.path.join(tmp, "zlib.vmcore")
        open(bad_path, "wb").write(data)
        p = btf_run(["-j", bad_path, addr], os.path.join(tmp, "c3"))
        c.eq("BTF page unreadable: exit 3", p.returncode, 3)
        c.ok("BTF page unreadable: names the BTF and the page",
             "the kernel's BTF" in p.stderr and "page frame" in p.stderr,
             p.stderr)

    # VMCOREINFO without the kallsyms tables (as before 6.0): they are
    # found in the kernel image, at the places VMCOREINFO named.
    data = bytearray(open(dump, "rb").read())
    key = b"SYMBOL(kallsyms_names)="
    i = data.find(key)
    c.ok("VMCOREINFO names kallsyms_names", i > 0)
    named = {}
    for line in data[i:i + 4096].split(b"\n"):
        if line.startswith(b"SYMBOL(kallsyms_") and b"=" in line:
            k, v = line.decode().split("=", 1)
            named[k[len("SYMBOL("):-1]] = int(v, 16)
    data[i:i + len(key)] = b"SYMBOL(kallsyms_nameX)="
    p_path = os.path.join(tmp, "nokallsyms.vmcore")
    open(p_path, "wb").write(data)
    p = btf_run(["-j", p_path, addr], os.path.join(tmp, "c4"))
    c.eq("no kallsyms in VMCOREINFO: decoded as with DWARF",
         (p.returncode, p.stdout), (want.returncode, want.stdout))
    c.ok("no kallsyms in VMCOREINFO: found by scanning the kernel image",
         "found by scanning the kernel image" in p.stderr, p.stderr[-800:])
    for name, at in sorted(named.items()):
        c.ok(f"no kallsyms in VMCOREINFO: {name} found where VMCOREINFO "
             "named it", f"{name} at 0x{at:x}" in p.stderr, p.stderr[-800:])


# ------------------------------------------------------------ on demand --

def case_ondemand(c, tmp, set_name):
    """A sorted-BTF kernel's BTF read on demand through the kernel's index
    (btf_vmlinux->types), damaged: the index, or a BTF page."""
    d = set_dir(set_name)
    vmlinux = os.path.join(d, "vmlinux")
    dump = os.path.join(d, "d17-zlib.vmcore")
    truth = read_truth(os.path.join(d, "truth.txt"))
    addrs = sorted({t["addr"] for t in truth})
    btf = vmlinux_btf(vmlinux)
    c.ok(f"{set_name}: vmlinux's BTF is sorted", btf is not None and btf.is_sorted())
    want = run(["-k", vmlinux, "-j", dump, *addrs])
    p = btf_run(["-j", dump, *addrs], os.path.join(tmp, "od0"))
    c.ok("undamaged: read on demand", "read on demand), symbols" in p.stderr, p.stderr[-600:])
    c.eq("undamaged: as with DWARF", (p.returncode, p.stdout), (want.returncode, want.stdout))
    # What that run kept of the BTF, of kallsyms and of the kernel's index
    # of its BTF (lib/types/memo.c: the index as offsets into the types),
    # used by another boot of this kernel (fs73: the same build, another
    # KASLR offset, the index elsewhere in its heap).
    kdir = [r for r, _, fs in os.walk(os.path.join(tmp, "od0")) if "kallsyms.pages" in fs]
    c.ok("undamaged: the BTF, kallsyms and the index kept in chunks",
         len(kdir) == 1 and all(os.path.isfile(os.path.join(kdir[0], f)) for f in
                                ("vmlinux.btf.pages", "kallsyms.pages",
                                 "vmlinux.btf.index.pages")), str(kdir))
    other = set_dir("fs73")
    other_addrs = sorted({t["addr"] for t in read_truth(os.path.join(other, "truth.txt"))})[:12]
    other_dump = os.path.join(other, "d17-zlib.vmcore")
    other_want = run(["-k", os.path.join(other, "vmlinux"), "-j", other_dump, *other_addrs])
    for n in (1, 2):
        p = btf_run(["-j", other_dump, *other_addrs], os.path.join(tmp, "od0"))
        c.eq(f"another boot (fs73) with the kept chunks, run {n}: as with DWARF",
             (p.returncode, p.stdout), (other_want.returncode, other_want.stdout))
    at = btf_address(c, dump, os.path.join(tmp, "od-at"))
    if at is None:
        return
    inode = btf.struct_id("inode")
    data = open(dump, "rb").read()

    # The index entries of struct inode and its predecessor, as the kernel
    # made them: the addresses of the two records in the dump.
    want_entries = struct.pack("<QQ", at + btf.off[inode - 1], at + btf.off[inode])
    found = None
    for desc, _, _, page in dumped_pages(data):
        if page and want_entries in page:
            found = desc, page, page.index(want_entries)
            break
    c.ok("the kernel's index of its BTF is in the dump", found is not None)
    if found:
        desc, page, o = found
        # Every entry of that page moved by 4 bytes: still inside the
        # BTF, each the address of no record.
        bad = bytearray(page)
        for e in range(o % 8, len(page) - 7, 8):
            v, = struct.unpack_from("<Q", page, e)
            struct.pack_into("<Q", bad, e, v + 4)
        p = btf_run(["-j", with_page(tmp, "index.vmcore", dump, desc, bytes(bad)), *addrs],
                    os.path.join(tmp, "od1"))
        c.eq("index damaged: read whole instead, decoded as with DWARF",
             (p.returncode, p.stdout), (want.returncode, want.stdout))
        c.ok("index damaged: no sanitizer report", "Sanitizer" not in p.stderr, p.stderr[-300:])
        # Moved by a whole record: each the address of a record, not its.
        for e in range(o % 8 + 8, len(page) - 7, 8):
            v, = struct.unpack_from("<Q", page, e - 8)
            struct.pack_into("<Q", bad, e, v)
        p = btf_run(["-j", with_page(tmp, "index2.vmcore", dump, desc, bytes(bad)), *addrs],
                    os.path.join(tmp, "od2"))
        c.eq("index entries swapped for their neighbours': decoded as with DWARF",
             (p.returncode, p.stdout), (want.returncode, want.stdout))

    # A -d 31 dump, where the index is not kept: the type records read
    # whole are kept in the cache; that copy damaged is not trusted.
    d31 = os.path.join(d, "d31-zlib.vmcore")
    want31 = run(["-k", vmlinux, "-j", d31, *addrs])
    cache31 = os.path.join(tmp, "od31")
    p = btf_run(["-j", d31, *addrs], cache31)
    kept = [os.path.join(r, f) for r, _, fs in os.walk(cache31) for f in fs
            if f == "vmlinux.btf.types"]
    if "its types whole" in p.stderr:
        c.ok("d31: the type records read whole are kept", len(kept) == 1, str(kept))
        for damage in ("garble", "truncate"):
            if not kept:
                break
            size = os.path.getsize(kept[0])
            with open(kept[0], "r+b") as f:
                if damage == "truncate":
                    f.truncate(size // 2)
                else:
                    f.write(b"\xa5" * size)
            p = btf_run(["-j", d31, *addrs], cache31)
            c.ok(f"d31: types cache {damage}d: not trusted, read from the dump",
                 "its types whole" in p.stderr, p.stderr[-600:])
            c.eq(f"d31: types cache {damage}d: decoded as with DWARF",
                 (p.returncode, p.stdout), (want31.returncode, want31.stdout))
            p = btf_run(["-j", d31, *addrs], cache31)
            c.ok(f"d31: types cache {damage}d: rewritten, taken again",
                 "its types from the cache" in p.stderr, p.stderr[-600:])
    else:
        print("NOTE d31: the kernel's index was kept in this dump; "
              "the types cache is not exercised here")

    # The page holding struct inode's record made undecompressable: read
    # on demand fails, the whole BTF too; the error names the BTF.
    rec = at + btf.off[inode]
    head = btf.data[btf.off[inode]:btf.off[inode] + 12]
    victim = None
    for desc, _, _, page in dumped_pages(data):
        if page and page[rec & 0xfff:(rec & 0xfff) + 12] == head and \
                page[:(rec & 0xfff)].endswith(btf.data[btf.off[inode] - (rec & 0xfff):btf.off[inode]]):
            victim = desc
            break
    c.ok("struct inode's BTF record is in the dump", victim is not None)
    if victim is not None:
        bad = bytearray(data)
        off, size, flags = struct.unpack_from("<QII", bad, victim)
        bad[off:off + size] = b"\x00" * size
        path = os.path.join(tmp, "btfpage.vmcore")
        open(path, "wb").write(bad)
        p = btf_run(["-j", path, *addrs], os.path.join(tmp, "od3"))
        c.eq("BTF page unreadable on demand: exit 3", p.returncode, 3)
        c.ok("BTF page unreadable on demand: names the BTF and the page",
             "BTF" in p.stderr and "page frame" in p.stderr, p.stderr[-800:])
        c.ok("BTF page unreadable on demand: no sanitizer report",
             "Sanitizer" not in p.stderr, p.stderr[-300:])


def main():
    global NO_DEBUG
    c = Checker()
    with tempfile.TemporaryDirectory(prefix="inodedump-btf-") as tmp:
        NO_DEBUG = os.path.join(tmp, "no-debug-root")
        os.makedirs(NO_DEBUG)
        if sys.argv[1] == "equal" and len(sys.argv) == 4:
            case_equal(c, sys.argv[2], tmp, sys.argv[3])
        elif sys.argv[1] == "find":
            case_find(c, tmp)
        elif sys.argv[1] == "ondemand" and len(sys.argv) == 3:
            case_ondemand(c, tmp, sys.argv[2])
        else:
            raise SystemExit(f"usage: {sys.argv[0]} equal SET TEST_KALLSYMS | find | ondemand SET")
    c.finish()


if __name__ == "__main__":
    main()
