# SPDX-License-Identifier: LGPL-2.1-or-later
"""drgn plugin: the command ``inode`` (drgn 0.3.0 and later, which have the
command framework; found through the ``drgn.plugins`` entry point, or
``DRGN_PLUGINS=inodedump=inodedump.drgn_plugin``)::

    %inode ADDRESS...                decode and check these inodes
    %inode --reports                 every dump_inode() report in the log
    %inode --sweep --violations-only every inode of every superblock
    %inode -w ADDRESS...             what each address is: slab cache,
                                     object, allocated or free
    %inode -j ...                    JSON instead of text

It prints what ``vmcore-inode`` prints for the same dump and arguments: the
session is :func:`inodedump.from_drgn` on drgn's program, made once and
kept in ``prog.cache``. An address that cannot be decoded prints the
library's message on stderr and the command goes on with the next.
"""
import sys

import inodedump

try:
    from drgn.commands import argument, command
except ImportError:  # drgn before 0.3.0: no commands; from_drgn() works
    command = None

_CACHE_KEY = "inodedump.session"


def session(prog):
    """The command's session on prog (made on first use)."""
    s = prog.cache.get(_CACHE_KEY)
    if s is None:
        s = inodedump.from_drgn(prog)
        prog.cache[_CACHE_KEY] = s
    return s


def _run(prog, args):
    s = session(prog)
    if args.info:
        return s._run_info()
    if args.what:
        return s._run_what(args.address, json=args.json)
    if args.log:
        return s._run_log()
    if args.sweep:
        return s._run_sweep(jsonl=args.jsonl or args.json,
                            violations_only=args.violations_only,
                            fs=args.fs, sb=args.sb or 0, types=args.type,
                            paths=args.paths, holders=args.holders,
                            force=args.force)
    if args.reports or not args.address:
        return s.document(None, json=args.json, force=args.force,
                          holders=args.holders)
    return s.document(args.address, json=args.json, force=args.force,
                      holders=args.holders)


def inode_command(prog, name, args, **kwargs):
    """The command's body: print what vmcore-inode prints; errors go to
    stderr as "inode: MESSAGE" and never end the drgn session."""
    if args.what and not args.address:
        sys.stderr.write(f"{name}: --what takes one ADDRESS or more\n")
        return None
    if args.address and (args.reports or args.sweep or args.log or args.info):
        sys.stderr.write(f"{name}: --reports, --sweep, --log and --info "
                         "take no ADDRESS\n")
        return None
    try:
        out, errors, _ = _run(prog, args)
    except inodedump.Error as e:
        sys.stderr.write(f"{name}: {e}\n")
        return None
    sys.stdout.write(out)
    sys.stdout.flush()
    for message in errors:
        sys.stderr.write(f"{name}: {message}\n")
    return None


def drgn_prog_set(prog):
    """drgn's plugin hook; the command is registered on import."""


if command is not None:
    _cmd_inode = command(
        name="inode",
        description="decode and check struct inodes (inodedump)",
        long_description=(
            "Decode the struct inode at each ADDRESS, every inode the "
            "kernel log's dump_inode() reports name (--reports, the "
            "default without ADDRESS), or every inode of every superblock "
            "(--sweep), and say which VFS invariants each breaks. The same "
            "output as vmcore-inode(1)."),
        arguments=(
            argument("address", metavar="ADDRESS", nargs="*",
                     type="hexadecimal", help="struct inode address (hex)"),
            argument("-j", "--json", action="store_true",
                     help="one JSON document instead of text"),
            argument("-r", "--reports", action="store_true",
                     help="decode the inodes the kernel log reported"),
            argument("-s", "--sweep", action="store_true",
                     help="check every inode of every superblock"),
            argument("--jsonl", action="store_true",
                     help="(sweep) one JSON object per inode"),
            argument("--violations-only", action="store_true",
                     help="(sweep) only inodes with a violation"),
            argument("--fs", metavar="NAME", help="(sweep) only this fs type"),
            argument("--sb", metavar="ADDRESS", type="hexadecimal",
                     help="(sweep) only this superblock"),
            argument("--type", metavar="T,...",
                     help="(sweep) only these types: regular,symlink,..."),
            argument("--paths", action="store_true",
                     help="(sweep) also walk each inode's paths"),
            argument("--holders", action="store_true",
                     help="list the tasks holding each inode"),
            argument("-f", "--force", action="store_true",
                     help="decode addresses that fail the inode checks"),
            argument("-l", "--log", action="store_true",
                     help="print the kernel log like dmesg(1)"),
            argument("-i", "--info", action="store_true",
                     help="what the session reads and whence"),
            argument("-w", "--what", action="store_true",
                     help="what each ADDRESS is: the slab cache and object "
                     "holding it, allocated or free (like slab_object_info)"),
        ),
    )(inode_command)
