#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""The published schema (schema/inodedump.schema.json, issue 43 item 3)
holds for what vmcore-inode writes, and refuses what it must refuse.

usage: test_schema.py

1. The schema is a valid Draft 2020-12 schema; its "schema" number is
   inodedump.h's INODEDUMP_JSON_SCHEMA; its INODE has exactly the keys of
   lib/kernel/members.def (a row's key, FLAGS rows' KEY_names, SYM rows'
   optional KEY_symbol_error and KEY_symbol_note), each with the type its row kind writes.
2. Every mode's output on the committed 7.3 fixture and on the small real
   dumps of tests/vmcores/small/ (no vmlinux: the dump's BTF; ppc64le 6.1
   has none) matches it: the reports (--json), the truth's addresses
   (--json --holders, with an address that is no inode), --what --json,
   --sweep --jsonl, and --triage --json over a directory holding the
   dump, a symbolic link (an entry's error file) and a dump written just
   now (skipped): the batch summary and every inodedump.json. Each kind
   is counted, so that nothing passes for want of documents.
3. The checks bite: real documents with a wrong type, an unknown key, a
   missing key, a word outside a closed vocabulary, another schema
   number, a raw non-ASCII byte are refused, each with the path of the
   offending key, by the kind's $defs, by the root and by check() (which
   validates only the first document of each skeleton: the real ones
   were seen first); and fixture.run() fails a test whose vmcore-inode
   printed such a document.
"""
import collections
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fixture  # noqa: E402
import schema_check  # noqa: E402
from fixture import COMMITTED, Checker, build_id, link_fixture, read_truth  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SMALL = os.path.join(HERE, "vmcores", "small")

# members.def's row kinds -> the $defs their value must be
KIND_DEF = {"NUM_U": "uint_or_null", "NUM_X": "uint_or_null",
            "FLAGS": "uint_or_null", "STRLEN": "uint_or_null",
            "NUM_S": "int_or_null", "DEV": "dev_or_null", "TIME": "time",
            "SYM": "symbol_or_null", "ADDR": "hex_or_null",
            "STR": "string_or_null"}


def member_rows():
    """members.def's rows that have a JSON key: [(key, kind)], VIEW rows
    with kind None, in the table's order."""
    text = open(os.path.join(ROOT, "lib", "kernel", "members.def")).read()
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    rows = []
    for m in re.finditer(r"^IDD_(MEMBER|VIEW)\((.*?)\)\s*$", text,
                         re.M | re.S):
        args = [a.strip() for a in re.split(r",(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)",
                                            m.group(2))]
        if m.group(1) == "VIEW":
            key, kind = args[1], None
        else:
            key, kind = args[6], args[1]
        if key != "NULL":
            rows.append((key.strip('"'), kind))
    return rows


def check_table(c):
    full = schema_check.schema()  # check_schema() ran: a valid 2020-12 schema
    c.ok("the schema is Draft 2020-12",
         full["$schema"] == "https://json-schema.org/draft/2020-12/schema")
    header = open(os.path.join(ROOT, "include", "inodedump.h")).read()
    number = int(re.search(r"#define INODEDUMP_JSON_SCHEMA (\d+)", header).group(1))
    c.eq("its schema number is INODEDUMP_JSON_SCHEMA",
         full["$defs"]["schema_number"].get("const"), number)
    c.ok("its $id names the number", full["$id"].endswith(f":{number}"),
         full["$id"])
    c.ok("its description states the policy: what bumps the number",
         "bumped" in full["description"] and "optional key" in
         full["description"], full["description"][:200])

    inode = full["$defs"]["inode"]
    rows = member_rows()
    c.ok("members.def read", len(rows) > 50, str(len(rows)))
    required, optional = [], []
    for key, kind in rows:
        required.append(key)
        if kind == "FLAGS":
            required.append(key + "_names")
        if kind == "SYM":
            optional += [key + "_symbol_error", key + "_symbol_note"]
        if kind:
            c.eq(f"INODE {key}: the type of a {kind} row",
                 inode["properties"].get(key), {"$ref": f"#/$defs/{KIND_DEF[kind]}"})
    c.eq("INODE's required keys are members.def's, in its order",
         inode["required"], required)
    c.eq("INODE's keys are those and the optional KEY_symbol_error, _note",
         sorted(inode["properties"]), sorted(required + optional))
    c.eq("INODE is closed", inode.get("additionalProperties"), False)


class Outputs:
    """Runs through fixture.run() (which checks each against the schema)
    and counts what was checked, by kind."""

    def __init__(self, c, env):
        self.c, self.env = c, env
        self.count = collections.Counter()
        self.docs = {}

    def run(self, name, args, kind, rcs=(0, 1, 3, 4)):
        p = fixture.run(args, env=self.env, timeout=600)
        self.c.ok(f"{name}: exit {p.returncode} is one of {rcs}",
                  p.returncode in rcs, p.stderr[-600:])
        if kind and p.returncode in rcs and p.stdout.strip():
            # fixture.run() checked it; once more here, counted
            if kind in ("sweep_line", "follow_line"):
                docs = schema_check.check_lines(p.stdout, kind, name)
                self.count[kind] += len(docs)
            else:
                docs = schema_check.check_text(p.stdout, kind, name)
                self.count[kind] += 1
            self.docs.setdefault(kind, docs)
            self.c.ok(f"{name}: matches the schema's {kind}", True)
            # the root tells the kinds apart by their keys: each is taken
            # for what it is (a sweep's first and last lines: the rest are
            # the same kinds)
            some = docs[:50] + docs[-50:] if isinstance(docs, list) else [docs]
            self.c.eq(f"{name}: the schema's root accepts it",
                      [f for d in some for f in
                       schema_check.failures(d, "any_document")], [])
        return p


def outputs_of(c, out, name, dump, kv, addrs, typeless):
    """Every mode of one dump."""
    rc_types = (3,) if typeless else (0, 1, 3, 4)
    p = out.run(f"{name} reports --json", [*kv, "--json", dump],
                "reports_document", rc_types)
    if not typeless:
        doc = json.loads(p.stdout)
        for r in doc["reports"]:
            out.count["report"] += 1
            out.count["inode_error" if "error" in r["inode"] else "inode"] += 1
        out.run(f"{name} addresses --json --holders",
                [*kv, "--json", "--holders", dump, *addrs, "1000"],
                "decode_document")
        out.run(f"{name} --what --json",
                [*kv, "--json", *sum((["--what", a] for a in addrs[:3] + ["1000"]), []),
                 dump], "what_document")
        out.run(f"{name} --sweep --jsonl", [*kv, "--sweep", "--jsonl", dump],
                "sweep_line")


def triage_outputs(c, out, tmp, dumps, debug):
    """--triage --json over a directory of the dumps, a symbolic link and
    a dump written just now: the summary and every inodedump.json."""
    crash = os.path.join(tmp, "crash")
    for i, (dump, _kv) in enumerate(dumps):
        d = os.path.join(crash, f"20261207{i:04d}")
        os.makedirs(d)
        link_fixture(dump, os.path.join(d, f"dump.20261207{i:04d}"))
    os.symlink("/", os.path.join(crash, "up"))
    fresh = os.path.join(crash, "fresh")
    os.makedirs(fresh)
    with open(os.path.join(fresh, "dump.fresh"), "wb") as f:
        f.write(b"KDUMP   " + bytes(4096))
    p = out.run("--triage --json", ["--triage", "--json", "--debug-root", debug,
                                    crash], "triage_batch_document")
    doc = json.loads(p.stdout) if p.stdout.strip() else {"dumps": []}
    states = collections.Counter(r["state"] for r in doc["dumps"])
    c.ok("--triage: triaged, error and skipped rows",
         states["triaged"] >= 1 and states["error"] >= 1 and
         states["skipped"] >= 1, str(states))
    kinds = collections.Counter()
    for root, _, files in os.walk(crash):
        for n in files:
            if n.endswith("inodedump.json"):
                r = fixture.json_checked(os.path.join(root, n), "triage_result")
                c.eq(f"{n}: the schema's root accepts it",
                     schema_check.failures(r, "any_document"), [])
                kinds["unreadable entry" if "path" in r else r["state"]] += 1
                if r["state"] == "triaged":
                    out.count["triage sweep_line"] += len(r["sweep"])
    out.count.update({f"triage_result {k}": v for k, v in kinds.items()})
    c.ok("--triage: results of every shape checked (triaged, error, "
         "an entry's error)", len(kinds) == 3, str(kinds))


def mutants(c, docs):
    """Real documents, each changed in one way the schema must refuse:
    (name, kind, document, the path its failure must name)."""
    out = []
    dec = docs.get("decode_document")
    if dec and dec["inodes"]:
        i = next(k for k, x in enumerate(dec["inodes"]) if "error" not in x)

        def one(name, change, path):
            d = copy.deepcopy(dec)
            change(d["inodes"][i])
            out.append((name, "decode_document", d, path))
        p = f"$.inodes[{i}]"
        one("a number as a string", lambda x: x.update(mode="0755"), p + ".mode")
        one("a negative unsigned", lambda x: x.update(nlink=-1), p + ".nlink")
        one("an unknown key", lambda x: x.update(i_bogus=1), p)
        one("a key missing", lambda x: x.pop("violations"), p)
        one("a word outside the type vocabulary",
            lambda x: x.update(type="dir"), p + ".type")
        one("an address without 0x", lambda x: x.update(sb=x["address"][2:]),
            p + ".sb")
        one("a dev_t as a number", lambda x: x.update(s_dev=259), p + ".s_dev")
        one("a time without nsec", lambda x: x["mtime"].pop("nsec"),
            p + ".mtime")
        one("a violation with an unknown key",
            lambda x: x["violations"].append({"check": "a", "message": "b",
                                              "severity": 1}),
            p + f".violations[{len(dec['inodes'][i]['violations'])}]")
        d = copy.deepcopy(dec)
        d["schema"] = 2
        out.append(("another schema number", "decode_document", d, "$.schema"))
        err = next((k for k, x in enumerate(dec["inodes"]) if "error" in x), None)
        if err is not None:
            d = copy.deepcopy(dec)
            d["inodes"][err]["error"]["kind"] = "oops"
            out.append(("an error kind outside the vocabulary", "decode_document",
                        d, f"$.inodes[{err}].error.kind"))
    rep = docs.get("reports_document")
    if rep and rep["reports"]:
        d = copy.deepcopy(rep)
        d["reports"][0]["differences"].append(
            {"field": "i_size", "at_report": 1, "in_dump": 2})
        out.append(("a report's difference in a field it never prints",
                    "reports_document", d,
                    f"$.reports[0].differences[{len(rep['reports'][0]['differences'])}].field"))
        d = copy.deepcopy(rep)
        d["reports"][0]["seq"] = "148"
        out.append(("a report's seq as a string", "reports_document", d,
                    "$.reports[0].seq"))
    sweep = docs.get("sweep_line")
    if sweep:
        summary = copy.deepcopy(sweep[-1])
        summary["summary"]["inodes"] = 1.5
        out.append(("a sweep summary's count not an integer", "sweep_line",
                    summary, "$.summary.inodes"))
        sb = copy.deepcopy(next(x for x in sweep if "superblock" in x))
        sb["by_type"]["whiteout"] = 1
        out.append(("a superblock line with an unknown inode type",
                    "sweep_line", sb, "$.by_type"))
    what = docs.get("what_document")
    if what and what["what"]:
        d = copy.deepcopy(what)
        d["what"][0]["slab"] = {"cache": "x"}
        out.append(("--what's slab missing its keys", "what_document", d,
                    "$.what[0].slab"))
    c.ok("mutants of every document kind made", len(out) >= 15, str(len(out)))
    return out


def check_mutants(c, docs):
    print("skeletons:", "on" if schema_check._skeleton_rules() else
          "off (a keyword they do not cover: every document validated)")
    for name, kind, doc, path in mutants(c, docs):
        bad = schema_check.failures(doc, kind)
        c.ok(f"refused: {name}", bool(bad), f"{kind} accepted it")
        c.ok(f"refused: {name}: the failure names {path}",
             any(b.startswith(path + ":") for b in bad), str(bad))
        c.ok(f"refused by the schema's root too: {name}",
             bool(schema_check.failures(doc, "any_document")))
        # the tests' own path (check(): a document whose skeleton was seen
        # valid passes unvalidated): the original's skeleton was, this
        # one's must differ
        try:
            schema_check.check(doc, kind, name)
            c.ok(f"refused by the tests' check(): {name}", False)
        except schema_check.SchemaFailure as e:
            c.ok(f"refused by the tests' check(): {name}", path + ":" in str(e),
                 str(e)[:400])
        c.eq(f"refused: {name}: the original is accepted",
             schema_check.failures(docs[kind] if kind != "sweep_line" else
                                   next(x for x in docs[kind]
                                        if set(x) == set(doc)), kind), [])
    text = json.dumps(docs["decode_document"]).replace("\\u00", "\xe9", 1)
    try:
        schema_check.check_text(text if "\xe9" in text else text + "\xe9",
                                "decode_document")
        c.ok("refused: a raw byte outside ASCII", False)
    except schema_check.SchemaFailure as e:
        c.ok("refused: a raw byte outside ASCII", "not ASCII" in str(e), str(e))
    # The hook the tests run through: a run that printed a bad document
    # fails its test, naming the key.
    bad = copy.deepcopy(docs["decode_document"])
    bad["inodes"][0]["address"] = 7
    p = subprocess.CompletedProcess([], 0, json.dumps(bad), "")
    try:
        fixture.schema_checked(["--json", "DUMP", "ADDR"], p)
        c.ok("fixture.run()'s check fails a test on a bad document", False)
    except SystemExit as e:
        c.ok("fixture.run()'s check fails a test on a bad document",
             str(e).startswith("FAIL schema") and "$.inodes[0].address" in str(e),
             str(e)[:400])
    lines = "\n".join(json.dumps(x) for x in docs["sweep_line"][-2:])
    p = subprocess.CompletedProcess([], 0, lines.replace('"inodes"', '"inodez"', 1), "")
    try:
        fixture.schema_checked(["--sweep", "--jsonl", "DUMP"], p)
        c.ok("fixture.run()'s check fails a test on a bad JSON Lines line", False)
    except SystemExit as e:
        c.ok("fixture.run()'s check fails a test on a bad JSON Lines line",
             "line 1" in str(e) or "line 2" in str(e), str(e)[:400])


def main():
    c = Checker()
    check_table(c)
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, XDG_CACHE_HOME=os.path.join(tmp, "cache"))
        env.pop("DEBUGINFOD_URLS", None)
        empty = os.path.join(tmp, "no-debug")
        os.mkdir(empty)
        out = Outputs(c, env)
        dumps = []
        committed = os.path.join(COMMITTED, "d17-zlib.vmcore")
        kv = ["-k", os.path.join(COMMITTED, "vmlinux")]
        addrs = ["0x" + t["addr"] for t in read_truth(os.path.join(COMMITTED, "truth.txt"))]
        outputs_of(c, out, "committed", committed, kv, addrs, False)
        dumps.append((committed, kv))
        for s in sorted(os.listdir(SMALL)):
            d = os.path.join(SMALL, s)
            desc = dict(line.strip().split("=", 1) for line in
                        open(os.path.join(d, "small.txt"))
                        if "=" in line and not line.startswith("#"))
            dump = os.path.join(d, desc["dump"])
            addrs = ["0x" + t["addr"] for t in read_truth(os.path.join(d, "truth.txt"))]
            outputs_of(c, out, s, dump, ["--debug-root", empty], addrs,
                       desc.get("types") == "none")
            dumps.append((dump, None))
        # --triage finds the committed fixture's vmlinux by its build-id
        debug = os.path.join(tmp, "root")
        bid = build_id(os.path.join(COMMITTED, "vmlinux"))
        os.makedirs(os.path.join(debug, "usr/lib/debug/.build-id", bid[:2]))
        link_fixture(os.path.join(COMMITTED, "vmlinux"),
                     os.path.join(debug, "usr/lib/debug/.build-id", bid[:2],
                                  bid[2:] + ".debug"))
        triage_outputs(c, out, tmp, dumps, debug)
        print("checked against the schema:", dict(out.count))
        for kind in ("reports_document", "decode_document", "what_document",
                     "sweep_line", "triage_batch_document", "inode",
                     "inode_error", "report"):
            c.ok(f"some {kind} checked", out.count[kind] > 0, str(out.count))
        check_mutants(c, out.docs)
    c.finish()


if __name__ == "__main__":
    main()
