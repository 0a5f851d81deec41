# SPDX-License-Identifier: LGPL-2.1-or-later
"""Decode and check a Linux ``struct inode`` in a vmcore: libinodedump for Python.

    import inodedump
    with inodedump.open("vmcore", "vmlinux") as s:
        ino = s.decode(0xffff935e008f6850)     # the JSON schema's INODE, as a dict
        for report in s.reports():             # the kernel log's dump_inode() reports
            print(report["reason"], report["inode"]["violations"])
        for obj in s.sweep(violations_only=True):
            ...

Inside drgn, on the program drgn already has open (memory through
``prog.read()``, VMCOREINFO from the program, its vmlinux)::

    s = inodedump.from_drgn(prog)

Everything printed or parsed here is written by the library, so it is what
``vmcore-inode`` prints for the same dump and addresses. Errors raise a
subclass of :class:`Error` per ``enum inodedump_error_code``; ``.address``
is the address it concerns (for a decode: the address that could not be
read, else the inode's).
"""
import json as _json

from ._inodedump import (  # noqa: F401  (the public names)
    ERR_DUMP,
    ERR_FAULT,
    ERR_FILTERED,
    ERR_MISMATCH,
    ERR_NOMEM,
    ERR_NOT_INODE,
    ERR_TYPE,
    ERR_USAGE,
    ERR_VMLINUX,
    FACTS,
    JSON_SCHEMA,
    DumpError,
    Error,
    FaultError,
    FilteredError,
    KernelTypeError,
    MismatchError,
    NoMemError,
    NotInodeError,
    UsageError,
    VmlinuxError,
    _Session,
)
from ._version import __version__  # noqa: F401

__all__ = [
    "open", "open_reader", "from_drgn", "Session", "Error", "NoMemError",
    "UsageError", "DumpError", "VmlinuxError", "MismatchError",
    "KernelTypeError", "FaultError", "FilteredError", "NotInodeError",
    "FACTS", "JSON_SCHEMA",
]


def _address(a):
    """An int from an int, a drgn pointer, or a drgn struct inode object."""
    if hasattr(a, "address_") and not isinstance(a, int):
        try:
            kind = a.type_.kind.name
        except AttributeError:
            kind = None
        if kind in ("STRUCT", "UNION") and a.address_ is not None:
            return a.address_
        return a.value_()
    return int(a)


def _types(types):
    if types is None or isinstance(types, str):
        return types
    return ",".join(types)


class Session(_Session):
    """One dump (or a host's memory) with its kernel's vmlinux.

    Made by :func:`open`, :func:`open_reader` or :func:`from_drgn`; a
    context manager that closes the session. One thread at a time.
    """

    def decode(self, address, *, force=False, holders=False, paths=True):
        """The inode at ``address`` as a dict: exactly the keys and types of
        the JSON schema's ``INODE`` object (``vmcore-inode --json``).

        ``force`` decodes what fails the inode checks, ``holders`` lists the
        tasks holding it, ``paths=False`` skips the path walk (``paths``
        is then None). Raises :class:`FaultError`, :class:`FilteredError`
        or :class:`NotInodeError` (with ``.address``) when nothing useful
        can be said.
        """
        return _json.loads(self._decode(_address(address), force=force,
                                        holders=holders, paths=paths,
                                        json=True))

    def decode_text(self, address, *, force=False, holders=False, paths=True):
        """The inode at ``address`` as ``vmcore-inode`` prints it (text)."""
        return self._decode(_address(address), force=force, holders=holders,
                            paths=paths, json=False)

    def document(self, addresses=None, *, json=False, force=False,
                 holders=False):
        """What ``vmcore-inode [--json] VMCORE [ADDRESS...]`` prints: these
        inodes, or with no addresses every report in the log. Returns
        ``(output, errors, status)``: the text (or JSON document), the
        messages the command would print on stderr, its exit status."""
        if addresses is None:
            return self._run_reports(json=json, force=force, holders=holders)
        return self._run_addresses([_address(a) for a in addresses],
                                   json=json, force=force, holders=holders)

    def what(self, address):
        """What ``address`` is (``vmcore-inode --json --what``): a dict with
        ``slab`` (the cache, object, offset, ``state`` "allocated", "free" or
        "unknown", where it is free, what was not read, and for a cache of
        inodes where the inode is) or ``memory`` (what it is outside any
        slab)."""
        out, _, _ = self._run_what([_address(address)], json=True)
        return _json.loads(out)["what"][0]

    def what_text(self, addresses):
        """What ``vmcore-inode --what A [--what B...]`` prints: returns
        ``(output, errors, status)``."""
        return self._run_what([_address(a) for a in addresses], json=False)

    def reports(self, *, force=False, holders=False):
        """Every ``dump_inode()`` report in the kernel log, each a dict of the
        schema's ``REPORT`` (``inode`` holds the decoded ``INODE``, or an
        ``error`` object when it could not be decoded)."""
        out, _, _ = self._run_reports(json=True, force=force, holders=holders)
        return _json.loads(out).get("reports", [])

    def sweep(self, *, fs=None, sb=None, types=None, violations_only=False,
              paths=False, holders=False, force=False):
        """Check every inode of every superblock (``vmcore-inode --sweep
        --jsonl``): an iterator over the same objects, in order: each
        ``INODE`` that passes the filters, a superblock object after each
        superblock, ``{"summary": ...}`` last. Filters: ``fs`` (s_type
        name), ``sb`` (superblock address), ``types`` ("symlink,regular" or
        a list), ``violations_only``. The sweep runs whole before the first
        item is returned."""
        out, _, _ = self._run_sweep(jsonl=True, violations_only=violations_only,
                                    fs=fs, sb=_address(sb) if sb else 0,
                                    types=_types(types), paths=paths,
                                    holders=holders, force=force)
        return iter([_json.loads(line) for line in out.splitlines() if line])

    def sweep_text(self, *, fs=None, sb=None, types=None,
                   violations_only=False, paths=False, holders=False,
                   force=False):
        """``(output, errors, status)`` of ``vmcore-inode --sweep``, text."""
        return self._run_sweep(jsonl=False, violations_only=violations_only,
                               fs=fs, sb=_address(sb) if sb else 0,
                               types=_types(types), paths=paths,
                               holders=holders, force=force)

    def log(self):
        """The kernel log's records, oldest first: dicts with ``seq``,
        ``ts_nsec``, ``level``, ``facility``, ``continuation``,
        ``caller_id`` and ``text`` (bytes outside UTF-8 as surrogates)."""
        return self._log_records()

    def log_text(self):
        """The kernel log as ``vmcore-inode --log`` (dmesg) prints it."""
        out, _, _ = self._run_log()
        return out

    def info(self):
        """What the session knows about the dump: a dict of the facts
        (``osrelease``, ``build_id``, ``format``, ``reader``, ...) it has."""
        facts = {}
        for key in FACTS:
            value = self.fact(key)
            if value is not None:
                facts[key] = value
        return facts

    def info_text(self):
        """The facts as ``vmcore-inode --info`` prints them."""
        return self._run_info()[0]

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def open(vmcore, vmlinux=None, *, ignore_build_id=False, debug_root=None):
    """Open ``vmcore`` (any dump ``vmcore-inode`` reads, or
    ``"/proc/kcore"``) with ``vmlinux`` (found by the dump's release when
    None, as ``vmcore-inode`` finds it, below ``debug_root`` if given)."""
    s = Session()
    s._open(vmcore, vmlinux, ignore_build_id, debug_root)
    return s


def open_reader(read, vmlinux, *, vmcoreinfo=None, symbol=None,
                ignore_build_id=False):
    """A session over memory the caller reads (``inodedump_open_reader()``).

    ``read(address, count)`` returns ``count`` bytes at a kernel virtual
    address, or raises :class:`FaultError` (not in memory) or
    :class:`FilteredError` (left out of the dump); any other exception
    fails that read and is raised again by the call that caused it.
    ``vmcoreinfo`` is the kernel's VMCOREINFO text; ``symbol(address)``
    returns ``(name, module, offset)`` or None for addresses vmlinux does
    not name.
    """
    s = Session()
    s._open_reader(read, vmlinux, vmcoreinfo, symbol, ignore_build_id)
    return s


def from_drgn(prog, vmlinux=None, *, ignore_build_id=False, symbols=True):
    """A session on a live ``drgn.Program``: memory through ``prog.read()``,
    VMCOREINFO from the program, vmlinux the one drgn loaded (or
    ``vmlinux``); module symbols from drgn where it names them
    (``symbols``). The dump is not opened a second time."""
    from ._drgn import from_drgn as f
    return f(prog, vmlinux, ignore_build_id=ignore_build_id, symbols=symbols)
