#!/usr/bin/python3
"""The printk ring of a dump, descriptor by descriptor, with drgn.

    /usr/bin/python3 printk_ring.py VMLINUX DUMP [--need-wrap|--need-report-wrap]

Prints the ring's geometry and every record whose text block wraps the data
ring (its begin and next lpos are in different wraps: the text is stored at
the start of the data array). Exit 1 with --need-wrap if no such record is in
the ring, with --need-report-wrap if the first "encountered for inode" record
is not such a record. Also a library for test_wrapped.py and test_live.py:
ring_records(prog), parse_kmsg_bytes(), dmesg_line().

This is the reader's side for the wrapped fixture set: it finds where the
straddling records are (their seq numbers), so a test can look at exactly
those records in the kernel's own log view (guest-kmsg.txt) and in each
reader's output. The text itself is taken the way the kernel's get_data()
takes it (kernel/printk/printk_ringbuffer.c, 6.12), independently of
inodedump's lib/printk.c and of drgn's get_dmesg().
"""
import re
import sys

import drgn

ESCAPE = re.compile(rb"\\x([0-9a-f]{2})")


def parse_kmsg_bytes(data):
    """Records as /dev/kmsg gives them ("PRI,SEQ,TS_USEC,FLAGS[,..];TEXT",
    then " KEY=VALUE" lines), read by fxtool kmsg-dump: (list of dicts --
    None for a record lost while reading -- and the end marker's fields)."""
    recs, end = [], None
    for raw in data.split(b"\n"):
        if not raw:
            continue
        if raw.startswith(b"inodedump-kmsg-end "):
            end = dict(kv.split("=") for kv in raw.decode().split()[1:])
            continue
        if raw.startswith(b"inodedump-kmsg: lost"):
            recs.append(None)
            continue
        if raw.startswith(b" "):            # " KEY=VALUE" dictionary line
            recs[-1]["dict"].append(raw[1:])
            continue
        head, _, text = raw.partition(b";")
        fields = head.split(b",")
        pri = int(fields[0])
        recs.append({"seq": int(fields[1]), "ts_usec": int(fields[2]),
                     "level": pri & 7, "facility": pri >> 3,
                     "flags": fields[3].decode(), "dict": [],
                     "text": ESCAPE.sub(lambda m: bytes([int(m[1], 16)]), text)})
    return recs, end


def dmesg_line(ts_usec, text):
    """One record as dmesg (and vmcore-inode --log) prints it."""
    return b"[%5d.%06d] " % (ts_usec // 1000000, ts_usec % 1000000) + text + b"\n"


def ring_records(prog):
    """Return (geometry dict, list of record dicts in id order)."""
    prb = prog["prb"]
    dr = prb.desc_ring
    tr = prb.text_data_ring
    ulong = prog.type("unsigned long").size
    sv_bits = ulong * 8
    flags_shift = sv_bits - 2
    id_mask = (1 << flags_shift) - 1
    committed = prog["desc_committed"].value_()
    finalized = prog["desc_finalized"].value_()
    count_bits = dr.count_bits.value_()
    size_bits = tr.size_bits.value_()
    size = 1 << size_bits
    data = tr.data.value_()
    descs = dr.descs
    infos = dr.infos
    head = dr.head_id.counter.value_()
    tail = dr.tail_id.counter.value_()
    geo = {"count_bits": count_bits, "size_bits": size_bits,
           "head_id": head, "tail_id": tail,
           "head_lpos": tr.head_lpos.counter.value_(),
           "tail_lpos": tr.tail_lpos.counter.value_()}
    out = []
    rid = tail
    while True:
        idx = rid & ((1 << count_bits) - 1)
        desc = descs[idx].read_()
        sv = desc.state_var.counter.value_()
        state = (sv >> flags_shift) & 3
        if (sv & id_mask) == (rid & id_mask) and state in (committed, finalized):
            info = infos[idx].read_()
            begin = desc.text_blk_lpos.begin.value_()
            nxt = desc.text_blk_lpos.next.value_()
            text_len = info.text_len.value_()
            rec = {"id": rid, "seq": info.seq.value_(),
                   "ts_nsec": info.ts_nsec.value_(), "begin": begin,
                   "next": nxt, "text_len": text_len, "dataless": False,
                   "wraps": False, "text": None, "block_id": None}
            if begin & 1:
                rec["dataless"] = True          # EMPTY_LINE_LPOS or lost
                rec["text"] = b""
            elif (begin >> size_bits) == (nxt >> size_bits) and begin < nxt:
                off, n = begin & (size - 1), nxt - begin
            elif ((begin + size) >> size_bits) == (nxt >> size_bits):
                rec["wraps"] = True              # stored at the array's start
                off, n = 0, nxt & (size - 1)
            else:
                n = -1
            if not rec["dataless"] and n >= ulong:
                rec["block_id"] = prog.read(data + off, ulong)
                rec["text"] = prog.read(data + off + ulong,
                                        min(text_len, n - ulong))
            out.append(rec)
        if rid == head:
            break
        rid = (rid + 1) & id_mask
    return geo, out


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    prog = drgn.Program()
    prog.set_core_dump(argv[2])
    prog.load_debug_info([argv[1]])
    geo, recs = ring_records(prog)
    size = 1 << geo["size_bits"]
    print(" ".join(f"{k}={v:#x}" if "lpos" in k or "id" in k else f"{k}={v}"
                   for k, v in geo.items()))
    print(f"records={len(recs)} first_seq={recs[0]['seq'] if recs else '-'} "
          f"last_seq={recs[-1]['seq'] if recs else '-'} "
          f"data_wraps={geo['head_lpos'] // size} "
          f"desc_wraps={(recs[-1]['seq'] + 1) >> geo['count_bits'] if recs else 0}")
    wraps = [r for r in recs if r["wraps"]]
    for r in wraps:
        print(f"wraps seq={r['seq']} begin={r['begin']:#x} next={r['next']:#x} "
              f"text_len={r['text_len']} block_id={r['block_id'].hex()}")
    if "--need-wrap" in argv and not wraps:
        print("no record's text block wraps the data ring")
        return 1
    reports = [r for r in recs if r["text"] and b" encountered for inode " in r["text"]]
    if reports:
        r = reports[0]
        print(f"first report seq={r['seq']} begin={r['begin']:#x} "
              f"next={r['next']:#x} wraps={'yes' if r['wraps'] else 'no'}")
    if "--need-report-wrap" in argv and not (reports and reports[0]["wraps"]):
        print("the first report's record does not wrap the data ring")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
