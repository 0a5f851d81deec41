#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Every JSON document vmcore-inode writes, checked against the published
schema (schema/inodedump.schema.json, installed as
/usr/share/inodedump/inodedump.schema.json) with Debian's
python3-jsonschema (Draft 2020-12).

The tests call it where they run the binary: fixture.run() checks the
stdout of every run given --json or --jsonl (and --triage's results
files), so a test that reads vmcore-inode's JSON reads JSON the schema
accepts. A document the schema refuses fails the test with the path of
the offending key ($.reports[0].inode.mode) and what is wrong there.

    check(doc, kind)           a parsed document; raises SchemaFailure
    check_text(text, kind)     one document's text
    check_lines(text, kind)    JSON Lines (sweep, follow): each line
    check_run(args, stdout)    what a run with these arguments printed
                               (a document parsed; JSON Lines: None)
    check_triage_dir(path)     every inodedump.json below path

kind is a $defs name of the schema: decode_document, reports_document,
what_document, sweep_line, follow_line, triage_result,
triage_batch_document, inode; any_document tells them apart by their keys.

usage: tests/schema_check.py [--lines] KIND FILE...   (exit 1 on a failure)
"""
import hashlib
import json
import os
import re
import stat
import sys

# $INODEDUMP_SCHEMA: another copy (the installed one, for the autopkgtest)
SCHEMA_PATH = os.environ.get("INODEDUMP_SCHEMA") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "schema",
    "inodedump.schema.json")
RESULT_JSON = "inodedump.json"

_schema = None
_validators = {}


class SchemaFailure(Exception):
    """A document the schema refuses; str() names the path and the why."""


def _jsonschema():
    """Imported on first use: fixture.py is imported where nothing is
    checked (the sid chroot's drgn side has no python3-jsonschema)."""
    import jsonschema
    return jsonschema


def schema():
    global _schema
    if _schema is None:
        with open(SCHEMA_PATH) as f:
            _schema = json.load(f)
        _jsonschema().Draft202012Validator.check_schema(_schema)
    return _schema


def _inline(node, defs, seen=()):
    """node with every "#/$defs/NAME" reference replaced by NAME's schema
    (the schema has no recursion): jsonschema 4.10 resolves a $ref on
    each use, and a sweep's JSON Lines use thousands."""
    if isinstance(node, list):
        return [_inline(x, defs, seen) for x in node]
    if not isinstance(node, dict):
        return node
    out = {k: _inline(v, defs, seen) for k, v in node.items() if k != "$ref"}
    ref = node.get("$ref")
    if ref is None:
        return out
    name = ref.rsplit("/", 1)[-1]
    if not ref.startswith("#/$defs/") or name not in defs or name in seen:
        raise ValueError(f"{SCHEMA_PATH}: $ref {ref} cannot be inlined")
    target = _inline(defs[name], defs, seen + (name,))
    if not out:
        return target
    out["allOf"] = out.get("allOf", []) + [target]
    return out


_JSON_TYPES = {
    "null": lambda v: v is None,
    "boolean": lambda v: isinstance(v, bool),
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool)) or
    (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "string": lambda v: isinstance(v, str),
    "array": lambda v: isinstance(v, list),
    "object": lambda v: isinstance(v, dict),
}


def _type(validator, types, instance, schema):
    """The "type" keyword as the specification says it, without the
    persistent map jsonschema 4.10 looks every type up in (a third of a
    sweep line's time)."""
    types = [types] if isinstance(types, str) else types
    if not any(_JSON_TYPES[t](instance) for t in types):
        yield _jsonschema().ValidationError(
            f"{instance!r} is not of type {', '.join(map(repr, types))}")


_Validator = None


def _validator_class():
    global _Validator
    if _Validator is None:
        js = _jsonschema()
        _Validator = js.validators.extend(js.Draft202012Validator,
                                          {"type": _type})
    return _Validator


def validator(kind):
    if kind not in _validators:
        defs = schema()["$defs"]
        if kind not in defs:
            raise ValueError(f"no $defs/{kind} in {SCHEMA_PATH}")
        _validators[kind] = _validator_class()(_inline(defs[kind], defs,
                                                       (kind,)))
    return _validators[kind]


def _path(error):
    out = "$"
    for p in error.absolute_path:
        out += f"[{p}]" if isinstance(p, int) else f".{p}"
    return out


def _deepest(error):
    """An anyOf's or if/then's error: the branch that went deepest, where
    the offending key is."""
    def rank(e):
        # the "null" branch of "this or null" tells nothing
        return (len(e.absolute_path), e.schema != {"type": "null"},
                bool(e.context))
    while error.context:
        error = max(error.context, key=rank)
    return error


def failures(doc, kind="any_document", limit=5):
    """The schema's complaints about doc, as "path: why" lines."""
    errors = sorted(validator(kind).iter_errors(doc),
                    key=lambda e: list(map(str, e.absolute_path)))
    out = []
    for e in errors[:limit]:
        d = _deepest(e)
        out.append(f"{_path(d)}: {d.message[:300]}")
    if len(errors) > limit:
        out.append(f"... and {len(errors) - limit} more")
    return out


# A document's skeleton: every value replaced by one that no keyword of the
# schema tells from it (numbers clamped to -2..2, a string by the patterns
# it matches, enum and const words kept, keys and nesting kept). Two
# documents with one skeleton are valid or invalid together, so only the
# first document of each skeleton is validated: a big set's sweep of
# 205,164 lines has 62 skeletons, ~10x less time than validating each. It
# holds for the keywords and thresholds SKELETON_KEYWORDS lists: a schema
# with any other (a "maximum", a "maxLength" above 1, a numeric "const"
# beyond 1) validates every document instead.
SKELETON_KEYWORDS = {
    "$schema", "$id", "title", "description", "$defs", "$ref", "allOf",
    "anyOf", "not", "if", "then", "else", "type", "enum", "const",
    "properties", "additionalProperties", "required", "propertyNames",
    "pattern", "minLength", "minimum", "items", "dependentRequired",
    "maxItems"}
_skeleton = None  # (patterns, words) when skeletons are sound, else False
_representative = {}  # a string -> the string standing for it
_by_signature = {}
_skeletons_passed = set()


def _skeleton_rules():
    global _skeleton
    if _skeleton is not None:
        return _skeleton
    patterns, words, sound = set(), set(), [True]

    def walk(node, in_props=False):
        if isinstance(node, list):
            for x in node:
                walk(x)
            return
        if not isinstance(node, dict):
            return
        for k, v in node.items():
            if in_props:  # a property's name, not a keyword
                walk(v)
                continue
            if k not in SKELETON_KEYWORDS:
                sound[0] = False
            elif k == "pattern":
                patterns.add(v)
            elif k == "enum":
                words.update(x for x in v if isinstance(x, str))
                sound[0] &= all(isinstance(x, str) for x in v)
            elif k == "const":
                if isinstance(v, str):
                    words.add(v)
                else:
                    sound[0] &= (isinstance(v, bool) or v in (-1, 0, 1))
            elif k == "minimum":
                sound[0] &= v in (-1, 0, 1)
            elif k in ("minLength", "maxItems"):
                sound[0] &= v in (0, 1) if k == "minLength" else v == 0
            walk(v, k in ("properties", "$defs", "dependentRequired"))

    walk(schema())
    _skeleton = ((tuple(re.compile(p) for p in sorted(patterns)),
                  frozenset(words)) if sound[0] else False)
    return _skeleton


def _skeleton_of(value, rules):
    t = type(value)
    if t is dict:
        return {k: _skeleton_of(v, rules) for k, v in value.items()}
    if t is list:
        return [_skeleton_of(v, rules) for v in value]
    if t is str:
        r = _representative.get(value)
        if r is None:
            patterns, words = rules
            if value in words:
                r = value
            else:
                sig = tuple(bool(p.search(value)) for p in patterns) + (value != "",)
                r = _by_signature.setdefault(sig, value)
            if len(_representative) < 200000:
                _representative[value] = r
        return r
    if t is int:
        return -2 if value < -2 else 2 if value > 2 else value
    if t is float:  # integral or not, as the thresholds see it
        if value.is_integer():
            return float(_skeleton_of(int(value), rules))
        return -2.5 if value < -2 else 2.5 if value > 2 else value
    return value  # None, True, False


def check(doc, kind="any_document", what="document"):
    rules = _skeleton_rules()
    key = None
    if rules:
        key = _digest(kind, json.dumps(_skeleton_of(doc, rules)))
        if key in _skeletons_passed:
            return doc
    bad = failures(doc, kind)
    if bad:
        raise SchemaFailure(f"{what} does not match the schema's {kind}:\n  "
                            + "\n  ".join(bad))
    if key is not None:
        _skeletons_passed.add(key)
    return doc


def check_text(text, kind="any_document", what="document"):
    """The writer escapes every byte outside printable ASCII (\\u00XX):
    a document holding one raw is as wrong as one that is no JSON."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogateescape")
    if not text.isascii():
        at = next(i for i, ch in enumerate(text) if ord(ch) > 0x7f)
        raise SchemaFailure(f"{what} is not ASCII: byte {at} "
                            f"({text[max(0, at - 40):at + 10]!r})")
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise SchemaFailure(f"{what} is not JSON ({e}): {text[:500]!r}")
    return check(doc, kind, what)


# Digests of (kind, line) already found good: a sweep run twice (--threads
# 1 and 2) or a mutated dump's sweep repeats lines, checked once.
_passed = set()


def _digest(kind, text):
    return hashlib.blake2b(f"{kind}\0{text}".encode("utf-8", "surrogateescape"),
                           digest_size=16).digest()


def check_lines(text, kind="any_document", what="JSON Lines", parse=True):
    """Each line, parsed (parse=False: only checked, None returned); a line
    already found good is not checked again."""
    if isinstance(text, bytes):
        text = text.decode("utf-8", "surrogateescape")
    docs = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        d = _digest(kind, line)
        if d in _passed:
            if parse:
                docs.append(json.loads(line))
            continue
        docs.append(check_text(line, kind, f"{what} line {n}"))
        _passed.add(d)
    return docs if parse else None


def check_triage_dir(path):
    """Every inodedump.json and NAME.inodedump.json below path (the
    results --triage writes beside each dump, and entries' error files)."""
    n = 0
    if os.path.isfile(path):  # a dump given directly: NAME.inodedump.json
        path, only = os.path.dirname(path), os.path.basename(path)
    else:
        only = None
    for root, _dirs, files in os.walk(path):
        for name in files:
            if not (name == RESULT_JSON or name.endswith("." + RESULT_JSON)):
                continue
            if only and (root != path or name != f"{only}.{RESULT_JSON}"):
                continue
            p = os.path.join(root, name)
            try:  # a regular file: the tests plant FIFOs by that name
                st = os.lstat(p)
                if not stat.S_ISREG(st.st_mode):
                    continue
                with open(p, errors="surrogateescape") as f:
                    text = f.read()
            except OSError:
                continue  # a results file the test made unreadable
            check_text(text, "triage_result", p)
            n += 1
    return n


def run_kind(args):
    """The schema's kind of what vmcore-inode prints given args, and
    whether as JSON Lines; None when it prints text (as it does for --log,
    --info and a --sweep without --jsonl, --json or not)."""
    has = set(args).__contains__
    json_ = has("--json") or has("-j")
    if has("--help") or has("-h") or has("--version"):
        return None
    if has("--triage"):
        return ("triage_batch_document", False) if json_ else None
    if has("--follow"):
        return ("follow_line", True) if json_ or has("--jsonl") else None
    if has("--sweep"):
        return ("sweep_line", True) if has("--jsonl") else None
    if not json_ or has("--log") or has("--info"):
        return None
    if any(a == "--what" or a.startswith("--what=") for a in args):
        return ("what_document", False)
    return ("decode_document", False)


def check_run(args, stdout, returncode=0):
    """What a run of vmcore-inode with args printed on stdout, checked as
    the document those arguments ask for. A usage error (exit 2) prints
    none; an empty stdout is none either (the test says whether that is
    right). --triage also leaves results files: checked below the
    directory (or beside the dump) it was given."""
    args = [str(a) for a in args]
    if "--triage" in args:
        opts_with_value = ("--settle", "--wait", "--debug-root")
        rest = [a for i, a in enumerate(args)
                if not a.startswith("-") and
                (i == 0 or args[i - 1] not in opts_with_value)]
        if rest and os.path.exists(rest[-1]):
            check_triage_dir(rest[-1])
    kind = run_kind(args)
    if isinstance(stdout, bytes):
        stdout = stdout.decode("utf-8", "surrogateescape")
    if kind is None or not stdout.strip() or returncode == 2:
        return None
    what = "vmcore-inode " + " ".join(a for a in args if a.startswith("-"))
    if kind[1]:  # the caller parses what it needs: a big sweep is 200 k lines
        check_lines(stdout, kind[0], what, parse=False)
        return None
    return check_text(stdout, kind[0], what)


def main(argv):
    lines = argv[:1] == ["--lines"]
    if lines:
        argv = argv[1:]
    if len(argv) < 2:
        print(__doc__.split("usage: ")[1].strip(), file=sys.stderr)
        return 2
    kind, bad = argv[0], 0
    for path in argv[1:]:
        with open(path, errors="surrogateescape") as f:
            text = f.read()
        try:
            (check_lines if lines else check_text)(text, kind, path)
        except SchemaFailure as e:
            print(f"FAIL {e}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
