// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The session's notes — what it could not trust about the dump, said by
 * every run and making it partial — and the kernel's release, with whence
 * it came: what depends on the kernel's version is never decided on an
 * empty or malformed answer without a note. And whence the session's
 * symbols come, for the messages of a symbol not there.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/session.h"

/* msg (taken) added once, as a note that makes a run partial or not. */
static void add_note(struct inodedump *id, char *msg, bool informs)
{
	char **v;
	bool *inf;

	if (!msg)
		return;
	for (size_t i = 0; i < id->nnotes; i++) {
		if (!strcmp(id->notes[i], msg)) { /* once per cause */
			free(msg);
			return;
		}
	}
	v = realloc(id->notes, (id->nnotes + 1) * sizeof(*v));
	if (v)
		id->notes = v;
	inf = realloc(id->notes_inform, (id->nnotes + 1) * sizeof(*inf));
	if (inf)
		id->notes_inform = inf;
	if (!v || !inf) {
		free(msg);
		return;
	}
	inf[id->nnotes] = informs;
	v[id->nnotes++] = msg;
}

void idd_session_note(struct inodedump *id, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	add_note(id, msg, false);
}

void idd_session_inform(struct inodedump *id, const char *text)
{
	add_note(id, strdup(text), true);
}

bool idd_session_noted(const struct inodedump *id, const char *head)
{
	size_t len = strlen(head);

	for (size_t i = 0; i < id->nnotes; i++)
		if (!strncmp(id->notes[i], head, len))
			return true;
	return false;
}

bool idd_session_partial(const struct inodedump *id)
{
	for (size_t i = 0; i < id->nnotes; i++)
		if (!id->notes_inform[i])
			return true;
	return false;
}

void idd_session_note_damage(struct inodedump *id, const char *what,
			     const struct inodedump_error *err)
{
	if (err && err->damage && !idd_session_noted(id, what))
		idd_session_note(id, "%s: %s", what, err->message);
}

void idd_session_notes_free(struct inodedump *id)
{
	for (size_t i = 0; i < id->nnotes; i++)
		free(id->notes[i]);
	free(id->notes);
	free(id->notes_inform);
	free(id->release);
}

const char *inodedump_note(const struct inodedump *id, size_t i)
{
	return id && i < id->nnotes ? id->notes[i] : NULL;
}

bool inodedump_note_informs(const struct inodedump *id, size_t i)
{
	return id && i < id->nnotes && id->notes_inform[i];
}

/* Printable ASCII only: a release read from the dump is quoted in notes. */
static bool is_text(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e ||
		    *s == '\\')
			return false;
	return true;
}

/* init_uts_ns.name.release in the dump's memory, malloc'd, or NULL. */
static char *release_in_memory(struct inodedump *id, char **why)
{
	struct idd_struct uts;
	struct idd_member release;
	struct inodedump_error *err;
	uint64_t at;
	char *s = NULL;
	bool truncated;

	*why = NULL;
	if (!id->syms || !idd_symbols_address(id->syms, "init_uts_ns", &at)) {
		*why = strdup("vmlinux has no init_uts_ns");
		return NULL;
	}
	err = idd_types_struct(id->types, "uts_namespace", &uts);
	if (!err) {
		idd_types_member(id->types, &uts, "name.release", &release);
		if (!release.present || !release.size)
			err = idd_error(INODEDUMP_ERR_TYPE, "struct uts_namespace "
					"has no name.release");
	}
	if (!err)
		err = idd_target_read_string(id->target, at + release.offset,
					     release.size, &s, &truncated);
	if (!err && (truncated || !is_text(s) || !idd_parse_release(s)))
		err = idd_error(INODEDUMP_ERR_DUMP, "init_uts_ns.name.release "
				"is no release");
	if (err) {
		*why = strdup(inodedump_error_message(err));
		inodedump_error_free(err);
		free(s);
		return NULL;
	}
	return s;
}

/*
 * The release init_uts_ns holds, where VMCOREINFO places it, without the
 * kernel's types (a struct lookup costs a BTF scan on every open): its
 * name is a struct new_utsname, the uname(2) ABI (include/uapi/linux/
 * utsname.h: six fields of __NEW_UTS_LEN + 1 bytes), whose sysname is
 * "Linux"; found in the namespace's first bytes, the release two fields
 * on. malloc'd, or NULL when not read or not found.
 */
#define UTS_FIELD 65 /* __NEW_UTS_LEN + 1 */
static char *uts_release_near(struct inodedump *id)
{
	const char *sym = idd_target_vmcoreinfo(id->target, "SYMBOL(init_uts_ns)");
	char buf[128 + 3 * UTS_FIELD], *end;
	uint64_t at;
	struct inodedump_error *err;

	if (!sym || !*sym)
		return NULL;
	at = strtoull(sym, &end, 16);
	if (*end || !at)
		return NULL;
	err = idd_target_read(id->target, at, buf, sizeof(buf));
	if (err) {
		inodedump_error_free(err);
		return NULL;
	}
	for (size_t o = 0; o < 128; o += 4) {
		char *rel = buf + o + 2 * UTS_FIELD;

		if (memcmp(buf + o, "Linux", 6) || !memchr(rel, 0, UTS_FIELD))
			continue;
		return is_text(rel) && idd_parse_release(rel) ? strdup(rel)
							       : NULL;
	}
	return NULL;
}

/*
 * The release: VMCOREINFO's OSRELEASE, else the dump header's utsname,
 * else init_uts_ns in memory; said unless VMCOREINFO gave it, or there was
 * no VMCOREINFO to give it (a caller's reader without one) and memory did.
 */
void idd_session_find_release(struct inodedump *id)
{
	const char *vi = idd_target_vmcoreinfo(id->target, "OSRELEASE");
	const char *header = idd_target_uts_release(id->target);
	char lack[256], *why = NULL, shown[64 * 4 + 1] = "";
	bool given = idd_target_has_vmcoreinfo(id->target), header_text = false;
	const char *walk;

	/* The header's bytes are the dump's: quoted escaped, taken if text. */
	if (header) {
		size_t len = strnlen(header, 64);

		idd_escape_bytes(shown, header, len);
		header_text = len < 64 && is_text(header);
	}

	for (size_t i = 0; i < idd_target_problems(id->target); i++)
		idd_session_note(id, "%s", idd_target_problem(id->target, i));
	if ((walk = idd_target_walk_why(id->target)))
		idd_session_note(id, "inodedump's page walk cannot start (%s): "
				 "libkdumpfile translates every address", walk);
	if (vi && idd_parse_release(vi)) {
		char *mem = uts_release_near(id);

		/* the running kernel's own, where it can be read, is the
		 * witness: a VMCOREINFO that disagrees is damaged (issue 41) */
		if (mem && strcmp(mem, vi)) {
			idd_session_note(id, "VMCOREINFO's OSRELEASE %s and "
					 "init_uts_ns's release %s in the "
					 "dump's memory differ: the kernel's own "
					 "is taken", vi, mem);
			id->release = mem;
			id->release_source = "init_uts_ns in the dump's memory";
			goto done;
		}
		free(mem);
		id->release = strdup(vi);
		id->release_source = "VMCOREINFO OSRELEASE";
		if (header && *header && strcmp(header, vi))
			idd_session_note(id, "VMCOREINFO's OSRELEASE %s and "
					 "the dump header's utsname %s differ: "
					 "VMCOREINFO's is taken", vi, shown);
		goto done;
	}
	if (vi)
		snprintf(lack, sizeof(lack), "VMCOREINFO's OSRELEASE \"%.64s\" "
			 "is no kernel release", vi);
	else
		snprintf(lack, sizeof(lack), "%s",
			 given ? "VMCOREINFO gives no OSRELEASE to trust"
			       : "no VMCOREINFO");
	/* The header's own utsname, not its answer from VMCOREINFO. */
	if (header_text && idd_parse_release(header)) {
		id->release = strdup(header);
		id->release_source = "the dump header's utsname";
	} else if ((id->release = release_in_memory(id, &why))) {
		id->release_source = "init_uts_ns in the dump's memory";
		if (!given)
			goto done;
	}
	if (id->release)
		idd_session_note(id, "the kernel's release %s is taken from "
				 "%s (%s)", id->release, id->release_source,
				 lack);
	else
		idd_session_note(id, "%s, and neither the dump header nor "
				 "init_uts_ns gives it (%s): the kernel's version "
				 "is unknown, and what depends on it (the flag "
				 "tables' names, ctime's flag bits) assumes the "
				 "newest kernel this inodedump knows", lack,
				 why ? why : "no release there");
	free(why);
done:
	id->version = idd_parse_release(id->release);
}

/*
 * The KASLR offset was not given by VMCOREINFO's KERNELOFFSET nor derived
 * from one of its SYMBOL()s: addresses are taken as vmlinux links them.
 */
void idd_session_note_kaslr(struct inodedump *id)
{
	if (!idd_target_has_vmcoreinfo(id->target))
		return;
	idd_session_note(id, "VMCOREINFO has no KERNELOFFSET%s: the KASLR "
			 "offset is taken as 0",
			 idd_target_vmcoreinfo(id->target, "KERNELOFFSET")
				 ? " that is a hex number"
				 : " (or none to trust)");
}

const char *idd_session_symbols_whence(struct inodedump *id)
{
	if (!idd_symbols_kallsyms(id->syms))
		return "vmlinux";
	return idd_symbols_text_only(id->syms)
		       ? "the dump's kallsyms (it keeps text symbols only: its "
			 "kernel was built with CONFIG_KALLSYMS_ALL off; the "
			 "kernel's debuginfo, -k VMLINUX, has them)"
		       : "the dump's kallsyms";
}
