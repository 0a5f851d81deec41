#!/usr/bin/python3
"""Each log record's printing task (7.x printk_info.comm, caller_id2) as drgn reads it.

CONFIG_PRINTK_EXECUTION_CTX (kernel/printk/printk_ringbuffer.h, 7.x) adds
caller_id2 and comm[TASK_COMM_LEN] to struct printk_info. drgn (0.3.0 in
the sid chroot for stock73) reads every info slot of the ring by seq: this
script runs there as `test_log_comm.py --infos DUMP`. On a kernel without
the members every record must say so ("-").

usage: test_log_comm.py SET LOG_RECORDS_BINARY
"""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fixture import Checker, set_dir  # noqa: E402
import sid_drgn  # noqa: E402


def drgn_infos(vmlinux, dump):
    import drgn
    prog = drgn.Program()
    prog.set_core_dump(dump)
    prog.load_debug_info([vmlinux])
    ring = prog["prb"].desc_ring
    infos = {}
    count = 1 << int(ring.count_bits)
    for i in range(count):
        info = ring.infos[i]
        # A record's slot is its seq modulo the ring's size (desc_reserve()
        # adds the size on each reuse); other slots are unused zeros.
        if int(info.seq) % count != i:
            continue
        try:
            comm = info.comm.string_().hex()
            id2 = int(info.caller_id2)
        except AttributeError:
            comm, id2 = "-", 0
        infos[int(info.seq)] = [int(info.caller_id), id2, comm]
    return infos


def main():
    if sys.argv[1] == "--infos":  # in the sid chroot: the set is at /fx
        json.dump(drgn_infos("/fx/vmlinux", sys.argv[2]), sys.stdout)
        return
    d = set_dir(sys.argv[1])
    dump = os.path.join(d, "elf-paging.vmcore")
    if sid_drgn.chroot_of(d):
        want = {int(k): v for k, v in json.loads(sid_drgn.run(
            d, "test_log_comm.py", ["--infos", sid_drgn.fx(dump)])).items()}
        print("drgn (sid chroot) read the printk_info slots")
    else:
        want = drgn_infos(os.path.join(d, "vmlinux"), dump)
    p = subprocess.run([sys.argv[2], os.path.join(d, "vmlinux"), dump],
                       capture_output=True, text=True, timeout=280)
    c = Checker()
    c.eq("exit code", p.returncode, 0)
    got = [line.split() for line in p.stdout.splitlines()]
    c.ok("records read", len(got) > 100, f"{len(got)} records")
    compared = named = 0
    for seq, caller, caller2, comm in got:
        w = want.get(int(seq))
        if w is None:  # the slot was reused for a later record
            continue
        compared += 1
        named += comm not in ("-", "")
        c.eq(f"seq {seq}", [int(caller), int(caller2), comm], w)
    c.ok("records compared", compared > 100, f"only {compared}")
    if any(w[2] != "-" for w in want.values()):
        c.ok("records name their task", named > 100, f"only {named}")
    c.finish()


if __name__ == "__main__":
    main()
