// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * inodedump._inodedump: the C half of the Python module, on the public API
 * (inodedump.h) only. One type, _Session, holding a struct inodedump *;
 * the Python half (__init__.py) adds reports(), sweep(), log(), info() and
 * the drgn glue over the methods here. Every document is written by the
 * library into a memory stream and handed back as str (JSON is parsed in
 * Python), so what Python sees is what vmcore-inode prints.
 *
 * Built against the stable ABI (Py_LIMITED_API 3.11, file name
 * *.abi3.so): the same build loads in Debian 12's Python 3.11 and in the
 * sid chroot's 3.14 that drgn 0.3.0 runs in.
 */
#define Py_LIMITED_API 0x030B0000
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdlib.h>
#include <string.h>

#include "inodedump.h"
#include "run.h"

/* One exception class per enum inodedump_error_code, and their base. */
static PyObject *Error;
static PyObject *code_errors[INODEDUMP_ERR_NOT_INODE + 1];

static const struct {
	enum inodedump_error_code code;
	const char *name, *base, *doc;
} error_classes[] = {
	{ INODEDUMP_ERR_NOMEM, "NoMemError", NULL,
	  "The library ran out of memory (INODEDUMP_ERR_NOMEM)." },
	{ INODEDUMP_ERR_USAGE, "UsageError", NULL,
	  "A bad argument (INODEDUMP_ERR_USAGE)." },
	{ INODEDUMP_ERR_DUMP, "DumpError", NULL,
	  "The dump cannot be opened or is corrupt (INODEDUMP_ERR_DUMP)." },
	{ INODEDUMP_ERR_VMLINUX, "VmlinuxError", NULL,
	  "vmlinux is unreadable or has no DWARF (INODEDUMP_ERR_VMLINUX)." },
	{ INODEDUMP_ERR_MISMATCH, "MismatchError", NULL,
	  "vmlinux is not the dump's kernel (INODEDUMP_ERR_MISMATCH)." },
	{ INODEDUMP_ERR_TYPE, "KernelTypeError", NULL,
	  "A type or member this work needs is absent (INODEDUMP_ERR_TYPE)." },
	{ INODEDUMP_ERR_FAULT, "FaultError", NULL,
	  "The address is not in the dump or not mapped (INODEDUMP_ERR_FAULT)." },
	{ INODEDUMP_ERR_FILTERED, "FilteredError", "FaultError",
	  "The page was left out of the dump by its writer "
	  "(INODEDUMP_ERR_FILTERED)." },
	{ INODEDUMP_ERR_NOT_INODE, "NotInodeError", NULL,
	  "The address fails the inode plausibility checks "
	  "(INODEDUMP_ERR_NOT_INODE)." },
};

/*
 * Raise err as its class with .code, .address (the library's address, or
 * the one the call was about, or None) and free it. Returns NULL.
 */
static PyObject *raise_error(struct inodedump_error *err, bool has_addr,
			     uint64_t addr)
{
	enum inodedump_error_code code = inodedump_error_code(err);
	PyObject *cls = code >= 1 && code <= INODEDUMP_ERR_NOT_INODE ?
				code_errors[code] : Error;
	PyObject *exc, *v;
	uint64_t a;

	if (inodedump_error_address(err, &a)) {
		has_addr = true;
		addr = a;
	}
	exc = PyObject_CallFunction(cls, "s", inodedump_error_message(err));
	inodedump_error_free(err);
	if (!exc)
		return NULL;
	v = PyLong_FromLong(code);
	if (v) {
		PyObject_SetAttrString(exc, "code", v);
		Py_DECREF(v);
	}
	v = has_addr ? PyLong_FromUnsignedLongLong(addr) : Py_NewRef(Py_None);
	if (v) {
		PyObject_SetAttrString(exc, "address", v);
		Py_DECREF(v);
	}
	PyErr_SetObject(cls, exc);
	Py_DECREF(exc);
	return NULL;
}

/* ------------------------------------------------------------- session */

typedef struct {
	PyObject_HEAD
	struct inodedump *id;
	/* A caller's memory: read(address, count) -> bytes, symbol(address). */
	PyObject *read, *symbol;
	/*
	 * An exception a callback raised that is not the library's to judge
	 * (a bug in the reader, KeyboardInterrupt): the read fails as a
	 * fault, and the call that caused it raises this instead of its result.
	 */
	PyObject *pending_type, *pending_value, *pending_tb;
} Session;

static void session_stash(Session *s)
{
	PyObject *t, *v, *tb;

	PyErr_Fetch(&t, &v, &tb);
	if (s->pending_type) {
		Py_XDECREF(t);
		Py_XDECREF(v);
		Py_XDECREF(tb);
		return;
	}
	s->pending_type = t;
	s->pending_value = v;
	s->pending_tb = tb;
}

/* The callbacks' own exception, raised now: true when there was one. */
static bool session_reraise(Session *s)
{
	if (!s->pending_type)
		return false;
	PyErr_Restore(s->pending_type, s->pending_value, s->pending_tb);
	s->pending_type = s->pending_value = s->pending_tb = NULL;
	return true;
}

static int read_cb(void *buf, uint64_t address, size_t count, bool physical,
		   void *arg)
{
	Session *s = arg;
	PyObject *r;
	char *data;
	Py_ssize_t len;

	if (physical || s->pending_type)
		return INODEDUMP_ERR_FAULT;
	r = PyObject_CallFunction(s->read, "Kn", (unsigned long long)address,
				  (Py_ssize_t)count);
	if (!r) {
		if (PyErr_ExceptionMatches(code_errors[INODEDUMP_ERR_FILTERED])) {
			PyErr_Clear();
			return INODEDUMP_ERR_FILTERED;
		}
		if (PyErr_ExceptionMatches(code_errors[INODEDUMP_ERR_FAULT])) {
			PyErr_Clear();
			return INODEDUMP_ERR_FAULT;
		}
		session_stash(s);
		return INODEDUMP_ERR_FAULT;
	}
	if (PyBytes_AsStringAndSize(r, &data, &len) < 0 ||
	    (size_t)len != count) {
		if (!PyErr_Occurred()) {
			/* PyErr_Format knows no %llx: the address made here */
			char at[24];

			snprintf(at, sizeof(at), "0x%llx",
				 (unsigned long long)address);
			PyErr_Format(PyExc_ValueError,
				     "read(%s, %zu) returned %zd bytes", at,
				     count, len);
		}
		Py_DECREF(r);
		session_stash(s);
		return INODEDUMP_ERR_FAULT;
	}
	memcpy(buf, data, count);
	Py_DECREF(r);
	return 0;
}

/* symbol(address) -> None or (name, module, offset). */
static bool symbol_cb(uint64_t address, char *name, size_t name_size,
		      char *module, size_t module_size, uint64_t *offset,
		      void *arg)
{
	Session *s = arg;
	const char *n, *m;
	unsigned long long off;
	PyObject *r;

	if (s->pending_type)
		return false;
	r = PyObject_CallFunction(s->symbol, "K", (unsigned long long)address);
	if (!r) {
		session_stash(s);
		return false;
	}
	if (r == Py_None) {
		Py_DECREF(r);
		return false;
	}
	if (!PyArg_ParseTuple(r, "ssK", &n, &m, &off)) {
		Py_DECREF(r);
		session_stash(s);
		return false;
	}
	snprintf(name, name_size, "%s", n);
	snprintf(module, module_size, "%s", m);
	*offset = off;
	Py_DECREF(r);
	return true;
}

static void session_dealloc(Session *s)
{
	PyTypeObject *tp = Py_TYPE((PyObject *)s);
	freefunc tp_free = (freefunc)PyType_GetSlot(tp, Py_tp_free);

	PyObject_GC_UnTrack((PyObject *)s);
	inodedump_close(s->id);
	Py_CLEAR(s->read);
	Py_CLEAR(s->symbol);
	Py_CLEAR(s->pending_type);
	Py_CLEAR(s->pending_value);
	Py_CLEAR(s->pending_tb);
	tp_free((PyObject *)s);
	Py_DECREF(tp);
}

static int session_traverse(Session *s, visitproc visit, void *arg)
{
	Py_VISIT(s->read);
	Py_VISIT(s->symbol);
	Py_VISIT(Py_TYPE((PyObject *)s));
	return 0;
}

static int session_clear(Session *s)
{
	Py_CLEAR(s->read);
	Py_CLEAR(s->symbol);
	return 0;
}

static bool session_usable(Session *s)
{
	if (s->id)
		return true;
	PyErr_SetString(PyExc_ValueError, "the session is closed");
	return false;
}

static PyObject *session_open(Session *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "vmcore", "vmlinux", "ignore_build_id",
				  "debug_root", NULL };
	INODEDUMP_OPTS(inodedump_open_opts, opts);
	const char *vmcore;
	int ignore = 0;
	struct inodedump_error *err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "s|zpz", kwlist, &vmcore,
					 &opts.vmlinux, &ignore,
					 &opts.debug_root))
		return NULL;
	if (s->id) {
		PyErr_SetString(PyExc_ValueError, "the session is open already");
		return NULL;
	}
	opts.ignore_build_id = ignore;
	err = inodedump_open(vmcore, &opts, &s->id);
	if (err)
		return raise_error(err, false, 0);
	Py_RETURN_NONE;
}

static PyObject *session_open_reader(Session *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "read", "vmlinux", "vmcoreinfo", "symbol",
				  "ignore_build_id", NULL };
	INODEDUMP_OPTS(inodedump_reader_opts, opts);
	PyObject *read, *symbol = Py_None;
	int ignore = 0;
	struct inodedump_error *err;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "Os|zOp", kwlist, &read,
					 &opts.vmlinux, &opts.vmcoreinfo,
					 &symbol, &ignore))
		return NULL;
	if (s->id) {
		PyErr_SetString(PyExc_ValueError, "the session is open already");
		return NULL;
	}
	if (!PyCallable_Check(read) ||
	    (symbol != Py_None && !PyCallable_Check(symbol))) {
		PyErr_SetString(PyExc_TypeError, "read and symbol must be callable");
		return NULL;
	}
	Py_XDECREF(s->read);
	s->read = Py_NewRef(read);
	opts.read = read_cb;
	opts.arg = s;
	if (symbol != Py_None) {
		Py_XDECREF(s->symbol);
		s->symbol = Py_NewRef(symbol);
		opts.symbol = symbol_cb;
	}
	opts.ignore_build_id = ignore;
	err = inodedump_open_reader(&opts, &s->id);
	if (session_reraise(s)) {
		inodedump_error_free(err);
		inodedump_close(s->id);
		s->id = NULL;
		return NULL;
	}
	if (err)
		return raise_error(err, false, 0);
	Py_RETURN_NONE;
}

static PyObject *session_close(Session *s, PyObject *unused)
{
	(void)unused;
	inodedump_close(s->id);
	s->id = NULL;
	Py_RETURN_NONE;
}

/* ----------------------------------------------- output to a Python str */

struct capture {
	char *buf;
	size_t len;
	FILE *f;
	PyObject *errors; /* list of messages the run reported */
	struct inodedump_error *fatal; /* why the run as a whole failed */
	struct run_out out;
};

static void capture_error(const char *message, void *arg)
{
	struct capture *c = arg;
	PyObject *m = PyUnicode_DecodeUTF8(message, strlen(message),
					   "surrogateescape");

	if (!m || PyList_Append(c->errors, m) < 0)
		PyErr_Clear();
	Py_XDECREF(m);
}

static bool capture_begin(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->fatal = NULL;
	c->errors = PyList_New(0);
	if (!c->errors)
		return false;
	c->f = open_memstream(&c->buf, &c->len);
	if (!c->f) {
		Py_CLEAR(c->errors);
		PyErr_NoMemory();
		return false;
	}
	c->out = (struct run_out){ .out = c->f, .on_error = capture_error,
				  .arg = c, .fatal = &c->fatal };
	return true;
}

static PyObject *capture_str(struct capture *c)
{
	PyObject *r;

	fclose(c->f);
	r = PyUnicode_DecodeUTF8(c->buf ? c->buf : "", c->len,
				 "surrogateescape");
	free(c->buf);
	return r;
}

/*
 * (output, errors, status) of a run; the callbacks' exception, or the
 * library's error when the run as a whole failed, raised instead.
 */
static PyObject *capture_end(Session *s, struct capture *c, int status)
{
	PyObject *out = capture_str(c);

	if (session_reraise(s) || !out || c->fatal) {
		Py_XDECREF(out);
		Py_DECREF(c->errors);
		if (c->fatal && !PyErr_Occurred())
			return raise_error(c->fatal, false, 0);
		inodedump_error_free(c->fatal);
		return NULL;
	}
	return Py_BuildValue("(NNi)", out, c->errors, status);
}

static unsigned int decode_flags(int force, int holders, int paths)
{
	return (force ? INODEDUMP_DECODE_FORCE : 0) |
	       (holders ? INODEDUMP_DECODE_HOLDERS : 0) |
	       (paths ? 0 : INODEDUMP_DECODE_NO_PATHS);
}

/* decode(address, force, holders, paths, json) -> str, or raises. */
static PyObject *session_decode(Session *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "address", "force", "holders", "paths",
				  "json", NULL };
	unsigned long long address;
	int force = 0, holders = 0, paths = 1, json = 1;
	struct inodedump_inode *ino = NULL;
	struct inodedump_error *err;
	struct capture c;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "K|pppp", kwlist, &address,
					 &force, &holders, &paths, &json) ||
	    !session_usable(s))
		return NULL;
	err = inodedump_decode(s->id, address,
			       decode_flags(force, holders, paths), &ino);
	if (session_reraise(s)) {
		if (!err)
			inodedump_inode_free(ino);
		inodedump_error_free(err);
		return NULL;
	}
	if (err)
		return raise_error(err, true, address);
	if (!capture_begin(&c)) {
		inodedump_inode_free(ino);
		return NULL;
	}
	Py_DECREF(c.errors);
	if (json)
		inodedump_inode_print_json(ino, c.f);
	else
		inodedump_inode_print_text(ino, c.f);
	inodedump_inode_free(ino);
	return capture_str(&c);
}

/* A sequence of ints as a malloc'd array (*n of them); NULL: raised. */
static uint64_t *addresses_of(PyObject *seq, Py_ssize_t *n)
{
	PyObject *fast = PySequence_List(seq);
	uint64_t *addrs;

	if (!fast)
		return NULL;
	*n = PyList_Size(fast);
	addrs = calloc(*n ? *n : 1, sizeof(*addrs));
	if (!addrs) {
		Py_DECREF(fast);
		PyErr_NoMemory();
		return NULL;
	}
	for (Py_ssize_t i = 0; i < *n; i++) {
		addrs[i] = PyLong_AsUnsignedLongLong(PyList_GetItem(fast, i));
		if (PyErr_Occurred()) {
			free(addrs);
			Py_DECREF(fast);
			return NULL;
		}
	}
	Py_DECREF(fast);
	return addrs;
}

static PyObject *session_run_addresses(Session *s, PyObject *args,
				       PyObject *kw)
{
	static char *kwlist[] = { "addresses", "json", "force", "holders",
				  NULL };
	PyObject *seq;
	int json = 0, force = 0, holders = 0, status;
	uint64_t *addrs;
	Py_ssize_t n;
	struct capture c;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|ppp", kwlist, &seq,
					 &json, &force, &holders) ||
	    !session_usable(s))
		return NULL;
	if (!(addrs = addresses_of(seq, &n)))
		return NULL;
	if (!capture_begin(&c)) {
		free(addrs);
		return NULL;
	}
	status = run_addresses(s->id, addrs, n, decode_flags(force, holders, 1),
			       json ? INODEDUMP_FORMAT_JSON : INODEDUMP_FORMAT_TEXT,
			       &c.out);
	free(addrs);
	return capture_end(s, &c, status);
}

/* _run_what(addresses, json) -> (out, errors, status): --what. */
static PyObject *session_run_what(Session *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "addresses", "json", NULL };
	PyObject *seq;
	int json = 0, status;
	uint64_t *addrs;
	Py_ssize_t n;
	struct capture c;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "O|p", kwlist, &seq, &json) ||
	    !session_usable(s))
		return NULL;
	if (!(addrs = addresses_of(seq, &n)))
		return NULL;
	if (!capture_begin(&c)) {
		free(addrs);
		return NULL;
	}
	status = run_what(s->id, addrs, (size_t)n,
			  json ? INODEDUMP_FORMAT_JSON : INODEDUMP_FORMAT_TEXT,
			  &c.out);
	free(addrs);
	return capture_end(s, &c, status);
}

static PyObject *session_run_reports(Session *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "json", "force", "holders", NULL };
	int json = 0, force = 0, holders = 0, status;
	struct capture c;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|ppp", kwlist, &json,
					 &force, &holders) ||
	    !session_usable(s) || !capture_begin(&c))
		return NULL;
	status = run_reports(s->id, decode_flags(force, holders, 1),
			     json ? INODEDUMP_FORMAT_JSON : INODEDUMP_FORMAT_TEXT,
			     &c.out);
	return capture_end(s, &c, status);
}

static PyObject *session_run_log(Session *s, PyObject *unused)
{
	struct capture c;
	int status;

	(void)unused;
	if (!session_usable(s) || !capture_begin(&c))
		return NULL;
	status = run_log(s->id, &c.out);
	return capture_end(s, &c, status);
}

static PyObject *session_run_sweep(Session *s, PyObject *args, PyObject *kw)
{
	static char *kwlist[] = { "jsonl", "violations_only", "fs", "sb",
				  "types", "paths", "holders", "force", NULL };
	INODEDUMP_OPTS(inodedump_sweep_opts, opts);
	int jsonl = 0, violations_only = 0, paths = 0, holders = 0, force = 0;
	unsigned long long sb = 0;
	struct capture c;
	int status;

	if (!PyArg_ParseTupleAndKeywords(args, kw, "|ppzKzppp", kwlist, &jsonl,
					 &violations_only, &opts.fs, &sb,
					 &opts.types, &paths, &holders, &force) ||
	    !session_usable(s) || !capture_begin(&c))
		return NULL;
	opts.sb = sb;
	opts.flags = decode_flags(force, holders, paths) | INODEDUMP_DECODE_NO_FS;
	status = run_sweep(s->id, &opts, jsonl, violations_only, &c.out);
	return capture_end(s, &c, status);
}

/* The facts as --info prints them, with the session's notes said. */
static PyObject *session_run_info(Session *s, PyObject *unused)
{
	struct capture c;
	int status;

	(void)unused;
	if (!session_usable(s) || !capture_begin(&c))
		return NULL;
	status = run_info(s->id, &c.out);
	return capture_end(s, &c, status);
}

/* notes() -> list of str: what the session could not trust. */
static PyObject *session_notes(Session *s, PyObject *unused)
{
	PyObject *list;
	const char *note;

	(void)unused;
	if (!session_usable(s) || !(list = PyList_New(0)))
		return NULL;
	for (size_t i = 0; (note = inodedump_note(s->id, i)); i++) {
		PyObject *m = PyUnicode_DecodeUTF8(note, strlen(note),
						   "surrogateescape");

		if (!m || PyList_Append(list, m) < 0) {
			Py_XDECREF(m);
			Py_DECREF(list);
			return NULL;
		}
		Py_DECREF(m);
	}
	return list;
}

static PyObject *session_fact(Session *s, PyObject *args)
{
	const char *name, *v;

	if (!PyArg_ParseTuple(args, "s", &name) || !session_usable(s))
		return NULL;
	v = inodedump_fact(s->id, name);
	if (!v)
		Py_RETURN_NONE;
	return PyUnicode_DecodeUTF8(v, strlen(v), "surrogateescape");
}

static PyObject *record_dict(const struct inodedump_record *r)
{
	return Py_BuildValue(
		"{s:K,s:K,s:i,s:i,s:O,s:k,s:N}", "seq",
		(unsigned long long)r->seq, "ts_nsec",
		(unsigned long long)r->ts_nsec, "level", r->level, "facility",
		r->facility, "continuation", r->continuation ? Py_True : Py_False,
		"caller_id", (unsigned long)r->caller_id, "text",
		PyUnicode_DecodeUTF8(r->text, r->text_len, "surrogateescape"));
}

static PyObject *session_log_records(Session *s, PyObject *unused)
{
	struct inodedump_log *log;
	struct inodedump_error *err;
	PyObject *list;

	(void)unused;
	if (!session_usable(s))
		return NULL;
	err = inodedump_read_log(s->id, &log);
	if (session_reraise(s)) {
		if (!err)
			inodedump_log_free(log);
		inodedump_error_free(err);
		return NULL;
	}
	if (err)
		return raise_error(err, false, 0);
	list = PyList_New(0);
	for (size_t i = 0; list && i < inodedump_log_count(log); i++) {
		PyObject *d = record_dict(inodedump_log_record(log, i));

		if (!d || PyList_Append(list, d) < 0)
			Py_CLEAR(list);
		Py_XDECREF(d);
	}
	inodedump_log_free(log);
	return list;
}

static PyMethodDef session_methods[] = {
	{ "_open", (PyCFunction)(void (*)(void))session_open,
	  METH_VARARGS | METH_KEYWORDS,
	  "_open(vmcore, vmlinux=None, ignore_build_id=False, debug_root=None)" },
	{ "_open_reader", (PyCFunction)(void (*)(void))session_open_reader,
	  METH_VARARGS | METH_KEYWORDS,
	  "_open_reader(read, vmlinux, vmcoreinfo=None, symbol=None, "
	  "ignore_build_id=False)" },
	{ "close", (PyCFunction)session_close, METH_NOARGS,
	  "Close the session (later calls raise ValueError)." },
	{ "_decode", (PyCFunction)(void (*)(void))session_decode,
	  METH_VARARGS | METH_KEYWORDS,
	  "_decode(address, force, holders, paths, json) -> str" },
	{ "_run_addresses", (PyCFunction)(void (*)(void))session_run_addresses,
	  METH_VARARGS | METH_KEYWORDS,
	  "_run_addresses(addresses, json, force, holders) -> (out, errors, status)" },
	{ "_run_what", (PyCFunction)(void (*)(void))session_run_what,
	  METH_VARARGS | METH_KEYWORDS,
	  "_run_what(addresses, json) -> (out, errors, status)" },
	{ "_run_reports", (PyCFunction)(void (*)(void))session_run_reports,
	  METH_VARARGS | METH_KEYWORDS,
	  "_run_reports(json, force, holders) -> (out, errors, status)" },
	{ "_run_log", (PyCFunction)session_run_log, METH_NOARGS,
	  "_run_log() -> (out, errors, status)" },
	{ "_run_sweep", (PyCFunction)(void (*)(void))session_run_sweep,
	  METH_VARARGS | METH_KEYWORDS,
	  "_run_sweep(jsonl, violations_only, fs, sb, types, paths, holders, "
	  "force) -> (out, errors, status)" },
	{ "_run_info", (PyCFunction)session_run_info, METH_NOARGS,
	  "_run_info() -> (out, errors, status)" },
	{ "notes", (PyCFunction)session_notes, METH_NOARGS,
	  "notes() -> list of str: what the session could not trust about "
	  "the dump (vmcore-inode says each and exits 4)" },
	{ "fact", (PyCFunction)session_fact, METH_VARARGS,
	  "fact(name) -> str or None: one of the INODEDUMP_FACT_* keys." },
	{ "_log_records", (PyCFunction)session_log_records, METH_NOARGS,
	  "_log_records() -> list of dict" },
	{ NULL, NULL, 0, NULL },
};

static PyType_Slot session_slots[] = {
	{ Py_tp_doc, "A session over one dump (or a host's memory)." },
	{ Py_tp_new, PyType_GenericNew },
	{ Py_tp_dealloc, session_dealloc },
	{ Py_tp_traverse, session_traverse },
	{ Py_tp_clear, session_clear },
	{ Py_tp_methods, session_methods },
	{ 0, NULL },
};

static PyType_Spec session_spec = {
	.name = "inodedump._inodedump._Session",
	.basicsize = sizeof(Session),
	.flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC,
	.slots = session_slots,
};

/* -------------------------------------------------------------- module */

static int add_errors(PyObject *m)
{
	Error = PyErr_NewExceptionWithDoc(
		"inodedump.Error",
		"An error of libinodedump: .code (enum inodedump_error_code), "
		".address (the address it concerns, or None), str() the message.",
		NULL, NULL);
	if (!Error || PyModule_AddObjectRef(m, "Error", Error) < 0)
		return -1;
	for (size_t i = 0; i < sizeof(error_classes) / sizeof(*error_classes);
	     i++) {
		char qual[64];
		PyObject *base = Error, *cls;

		if (error_classes[i].base)
			base = PyObject_GetAttrString(m, error_classes[i].base);
		else
			Py_INCREF(base);
		snprintf(qual, sizeof(qual), "inodedump.%s",
			 error_classes[i].name);
		cls = PyErr_NewExceptionWithDoc(qual, error_classes[i].doc,
						base, NULL);
		Py_XDECREF(base);
		if (!cls || PyModule_AddObjectRef(m, error_classes[i].name,
						  cls) < 0)
			return -1;
		code_errors[error_classes[i].code] = cls;
	}
	return 0;
}

static int add_constants(PyObject *m)
{
	static const struct { const char *name; long value; } ints[] = {
		{ "JSON_SCHEMA", INODEDUMP_JSON_SCHEMA },
		{ "ERR_NOMEM", INODEDUMP_ERR_NOMEM },
		{ "ERR_USAGE", INODEDUMP_ERR_USAGE },
		{ "ERR_DUMP", INODEDUMP_ERR_DUMP },
		{ "ERR_VMLINUX", INODEDUMP_ERR_VMLINUX },
		{ "ERR_MISMATCH", INODEDUMP_ERR_MISMATCH },
		{ "ERR_TYPE", INODEDUMP_ERR_TYPE },
		{ "ERR_FAULT", INODEDUMP_ERR_FAULT },
		{ "ERR_FILTERED", INODEDUMP_ERR_FILTERED },
		{ "ERR_NOT_INODE", INODEDUMP_ERR_NOT_INODE },
	};
	static const char *facts[] = {
		INODEDUMP_FACT_OSRELEASE, INODEDUMP_FACT_OSRELEASE_SOURCE,
		INODEDUMP_FACT_BUILD_ID,
		INODEDUMP_FACT_VMLINUX_BUILD_ID, INODEDUMP_FACT_FORMAT,
		INODEDUMP_FACT_READER, INODEDUMP_FACT_TRANSLATION,
		INODEDUMP_FACT_KASLR_OFFSET, INODEDUMP_FACT_VMLINUX,
		INODEDUMP_FACT_VMLINUX_SOURCE, INODEDUMP_FACT_DUMP_LEVEL,
		INODEDUMP_FACT_ARCH, INODEDUMP_FACT_PAGE_SIZE,
		INODEDUMP_FACT_PAGE_SIZE_SOURCE, INODEDUMP_FACT_SLAB,
	};
	PyObject *t = PyTuple_New(sizeof(facts) / sizeof(*facts));

	for (size_t i = 0; i < sizeof(ints) / sizeof(*ints); i++)
		if (PyModule_AddIntConstant(m, ints[i].name, ints[i].value) < 0)
			return -1;
	if (!t)
		return -1;
	for (size_t i = 0; i < sizeof(facts) / sizeof(*facts); i++)
		PyTuple_SetItem(t, i, PyUnicode_FromString(facts[i]));
	if (PyModule_AddObjectRef(m, "FACTS", t) < 0) {
		Py_DECREF(t);
		return -1;
	}
	Py_DECREF(t);
	return 0;
}

static struct PyModuleDef module_def = {
	PyModuleDef_HEAD_INIT,
	.m_name = "inodedump._inodedump",
	.m_doc = "libinodedump's public API for Python (see the inodedump package).",
	.m_size = -1,
};

PyMODINIT_FUNC PyInit__inodedump(void)
{
	PyObject *m = PyModule_Create(&module_def), *type;

	if (!m)
		return NULL;
	type = PyType_FromSpec(&session_spec);
	if (!type || PyModule_AddObjectRef(m, "_Session", type) < 0 ||
	    add_errors(m) < 0 || add_constants(m) < 0) {
		Py_XDECREF(type);
		Py_DECREF(m);
		return NULL;
	}
	Py_DECREF(type);
	return m;
}
