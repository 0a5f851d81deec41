# SPDX-License-Identifier: LGPL-2.1-or-later
"""inodedump on a drgn.Program (drgn 0.0.22 and later): see from_drgn()."""
import os
import struct

import drgn

from . import FaultError, FilteredError, Session, VmlinuxError


def vmcoreinfo(prog):
    """The kernel's VMCOREINFO text as drgn has it: its VMCOREINFO object
    where drgn makes one, else the kernel's own vmcoreinfo_data."""
    try:
        return prog["VMCOREINFO"].string_().decode("ascii", "replace")
    except (KeyError, LookupError):
        pass
    data = prog["vmcoreinfo_data"]
    size = prog["vmcoreinfo_size"].value_()
    return prog.read(data.value_(), size).decode("ascii", "replace")


def _build_id_of_elf(path):
    """The GNU build-id (hex) in an ELF file's note sections, or None."""
    try:
        with open(path, "rb") as f:
            ident = f.read(64)
            if ident[:4] != b"\x7fELF" or ident[4] != 2 or ident[5] != 1:
                return None
            shoff, = struct.unpack_from("<Q", ident, 0x28)
            shentsize, shnum = struct.unpack_from("<HH", ident, 0x3a)
            f.seek(shoff)
            table = f.read(shentsize * shnum)
            for i in range(shnum):
                sh_type, = struct.unpack_from("<I", table, i * shentsize + 4)
                if sh_type != 7:  # SHT_NOTE
                    continue
                off, size = struct.unpack_from("<QQ", table, i * shentsize + 0x18)
                f.seek(off)
                notes = f.read(min(size, 1 << 16))
                p = 0
                while p + 12 <= len(notes):
                    namesz, descsz, ntype = struct.unpack_from("<III", notes, p)
                    name = notes[p + 12:p + 12 + namesz]
                    d = p + 12 + ((namesz + 3) & ~3)
                    if ntype == 3 and name.rstrip(b"\0") == b"GNU":
                        return notes[d:d + descsz].hex()
                    p = d + ((descsz + 3) & ~3)
    except (OSError, struct.error):
        return None
    return None


def vmlinux_of(prog, info):
    """The vmlinux drgn loaded: drgn 0.3.0 says it (main module's debug
    file); drgn 0.0.22 does not, but keeps it open, so it is the open file
    whose build-id is VMCOREINFO's BUILD-ID."""
    try:
        path = prog.main_module().debug_file_path
        if path:
            return path
    except (AttributeError, LookupError):
        pass
    want = None
    for line in info.splitlines():
        if line.startswith("BUILD-ID="):
            want = line.split("=", 1)[1].strip().lower()
    if want:
        for fd in sorted(os.listdir("/proc/self/fd"), key=int):
            try:
                path = os.readlink(f"/proc/self/fd/{fd}")
            except OSError:
                continue
            if path.startswith("/") and os.path.isfile(path) and \
                    _build_id_of_elf(path) == want:
                return path
    raise VmlinuxError("cannot tell which vmlinux drgn loaded: "
                       "give it as from_drgn(prog, vmlinux=PATH)")


def _reader(prog):
    def read(address, count):
        try:
            return prog.read(address, count)
        except drgn.FaultError as e:
            # libkdumpfile's word for a page makedumpfile left out
            if "excluded" in str(e).lower():
                raise FilteredError(str(e)) from None
            raise FaultError(str(e)) from None
    return read


def _symbols(prog):
    """Module symbols as drgn names them; None when this drgn cannot say
    which module an address is in (0.0.22): the library then reads the
    dump's own module list."""
    if not hasattr(prog, "module"):
        return None

    def symbol(address):
        try:
            sym = prog.symbol(address)
            module = prog.module(address)
        except LookupError:
            return None
        name = "" if isinstance(module, drgn.MainModule) else module.name
        return (sym.name, name, address - sym.address)
    return symbol


def from_drgn(prog, vmlinux=None, *, ignore_build_id=False, symbols=True):
    info = vmcoreinfo(prog)
    if vmlinux is None:
        vmlinux = vmlinux_of(prog, info)
    s = Session()
    s._open_reader(_reader(prog), vmlinux, info,
                   _symbols(prog) if symbols else None, ignore_build_id)
    return s
