// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * output: the documents vmcore-inode writes: the inodes of a dump (or the
 * inodes its log reported, with the reports), the log itself as dmesg
 * shows it, --info's facts, the sweep's superblock lines and summary.
 * Text, or JSON through the one writer.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decode/inode.h"
#include "output/output.h"

struct inodedump_document {
	struct inodedump *id;
	const struct inodedump_log *log; /* NULL: inodes by address */
	enum inodedump_format format;
	FILE *out;
	struct idd_json j;
	size_t items;	/* inodes and errors, or reports, written so far */
	uint64_t group; /* text: the address of the last report */
};

static const char *error_kind(enum inodedump_error_code code)
{
	switch (code) {
	case INODEDUMP_ERR_NOMEM: return "out of memory";
	case INODEDUMP_ERR_USAGE: return "usage";
	case INODEDUMP_ERR_DUMP: return "dump";
	case INODEDUMP_ERR_VMLINUX: return "vmlinux";
	case INODEDUMP_ERR_MISMATCH: return "mismatch";
	case INODEDUMP_ERR_TYPE: return "type";
	case INODEDUMP_ERR_FAULT: return "fault";
	case INODEDUMP_ERR_FILTERED: return "filtered";
	case INODEDUMP_ERR_NOT_INODE: return "not-inode";
	}
	return "error";
}

static const char *format_name(enum inodedump_report_format f)
{
	switch (f) {
	case INODEDUMP_REPORT_6_15: return "6.15";
	case INODEDUMP_REPORT_6_18: return "6.18";
	case INODEDUMP_REPORT_7_0: return "7.0";
	}
	return "?";
}

/* printk's caller id: a task ("T<pid>") or a CPU ("C<cpu>", bit 31);
 * "" when the log did not say. */
static void caller_text(uint32_t caller, char *buf, size_t len)
{
	if (caller == INODEDUMP_CALLER_UNKNOWN)
		snprintf(buf, len, "%s", "");
	else if (caller & 0x80000000u)
		snprintf(buf, len, "C%u", caller & 0x7fffffffu);
	else
		snprintf(buf, len, "T%u", caller);
}

struct inodedump_error *
inodedump_document_begin(struct inodedump *id, const struct inodedump_log *log,
			 enum inodedump_format format, FILE *out,
			 struct inodedump_document **docp)
{
	struct inodedump_document *doc = calloc(1, sizeof(*doc));
	const char *release, *source;

	if (!doc)
		return idd_nomem();
	*doc = (struct inodedump_document){
		.id = id, .log = log, .format = format, .out = out
	};
	*docp = doc;
	if (format != INODEDUMP_FORMAT_JSON)
		return NULL;
	release = inodedump_fact(id, INODEDUMP_FACT_OSRELEASE);
	flockfile(out);
	idd_json_init(&doc->j, out, false, 0);
	idd_json_object(&doc->j, IDD_JSON_LINES);
	idd_json_key(&doc->j, "schema");
	idd_json_u64(&doc->j, INODEDUMP_JSON_SCHEMA);
	/* Not known is null, never "": a reader would take that for one. */
	idd_json_key(&doc->j, "osrelease");
	idd_json_string(&doc->j, release);
	source = inodedump_fact(id, INODEDUMP_FACT_OSRELEASE_SOURCE);
	if (source && strcmp(source, "VMCOREINFO OSRELEASE")) {
		idd_json_key(&doc->j, "osrelease_source");
		idd_json_string(&doc->j, source);
	}
	idd_json_key(&doc->j, "inodes");
	if (log) {
		/* Each report holds its inode: "inodes" stays empty. */
		idd_json_array(&doc->j, IDD_JSON_INLINE);
		idd_json_end(&doc->j);
		idd_json_key(&doc->j, "reports");
	}
	idd_json_array(&doc->j, IDD_JSON_FLAT);
	funlockfile(out);
	return NULL;
}

void inodedump_document_inode(struct inodedump_document *doc,
			      const struct inodedump_inode *inode)
{
	if (doc->format == INODEDUMP_FORMAT_JSON) {
		if (doc->log)
			return;
		flockfile(doc->out);
		idd_json_inode(&doc->j, inode);
		funlockfile(doc->out);
	} else {
		if (!doc->log && doc->items)
			fputc('\n', doc->out);
		inodedump_inode_print_text(inode, doc->out);
	}
	if (!doc->log)
		doc->items++;
}

static void json_error(struct idd_json *j, uint64_t address,
		       const struct inodedump_error *err)
{
	uint64_t where;

	idd_json_object(j, IDD_JSON_INLINE);
	idd_json_key(j, "address");
	idd_json_hex(j, address);
	idd_json_key(j, "error");
	idd_json_object(j, IDD_JSON_INLINE);
	idd_json_key(j, "kind");
	idd_json_string(j, error_kind(inodedump_error_code(err)));
	idd_json_key(j, "message");
	idd_json_string(j, inodedump_error_message(err));
	if (inodedump_error_address(err, &where)) {
		idd_json_key(j, "address");
		idd_json_hex(j, where);
	}
	idd_json_end(j);
	idd_json_end(j);
}

void inodedump_document_error(struct inodedump_document *doc,
			      uint64_t address,
			      const struct inodedump_error *err)
{
	if (doc->log)
		return;
	if (doc->format == INODEDUMP_FORMAT_JSON) {
		flockfile(doc->out);
		json_error(&doc->j, address, err);
		funlockfile(doc->out);
	}
	doc->items++;
}

/* A value in a difference's format (literal formats only, for -Wformat). */
static void as_kernel_prints(FILE *out, const char *format, int64_t v)
{
	if (format && !strcmp(format, "0%llo"))
		fprintf(out, "0%llo", (long long)v);
	else if (format && !strcmp(format, "0x%llx"))
		fprintf(out, "0x%llx", (long long)v);
	else
		fprintf(out, "%lld", (long long)v);
}

static void report_text(FILE *out, const struct inodedump_report *r,
			const struct inodedump_difference *d, size_t nd)
{
	char caller[16];

	caller_text(r->caller_id, caller, sizeof(caller));
	/* Reason, task and location are the log's: escaped. */
	fputs("report  ", out);
	idd_text_escape(out, r->reason);
	fprintf(out, "\n  at [%5llu.%06llu] seq %llu%s%s%s",
		(unsigned long long)(r->ts_nsec / 1000000000),
		(unsigned long long)(r->ts_nsec % 1000000000 / 1000),
		(unsigned long long)r->seq, caller[0] || r->task[0] ? " by " : "",
		caller, caller[0] && r->task[0] ? " " : "");
	idd_text_escape(out, r->task);
	fprintf(out, " (dump_inode format %s)\n", format_name(r->format));
	if (r->location[0]) {
		fputs("  ", out);
		idd_text_escape(out, r->location);
		fputc('\n', out);
	}
	/* A BUG line names no function: the splat's RIP did. */
	if (r->site_function[0] && !strstr(r->location, r->site_function)) {
		fputs("  in ", out);
		idd_text_escape(out, r->site_function);
		fputc('\n', out);
	}
	for (size_t i = 0; i < nd; i++) {
		fprintf(out, "  %s at report ", d[i].field);
		as_kernel_prints(out, d[i].format, d[i].at_report);
		fputs(", in dump ", out);
		as_kernel_prints(out, d[i].format, d[i].in_dump);
		fputc('\n', out);
	}
}

static void report_json(struct idd_json *j, const struct inodedump_report *r,
			const struct inodedump_difference *d, size_t nd)
{
	const struct inodedump_report_fields *f = &r->fields;
	char caller[16];

	caller_text(r->caller_id, caller, sizeof(caller));
	idd_json_key(j, "reason");
	idd_json_string(j, r->reason);
	idd_json_key(j, "address");
	idd_json_hex(j, r->address);
	idd_json_key(j, "format");
	idd_json_string(j, format_name(r->format));
	idd_json_key(j, "seq");
	idd_json_u64(j, r->seq);
	idd_json_key(j, "timestamp_ns");
	idd_json_u64(j, r->ts_nsec);
	idd_json_key(j, "caller");
	idd_json_string(j, caller[0] ? caller : NULL);
	idd_json_key(j, "task");
	idd_json_string(j, r->task[0] ? r->task : NULL);
	idd_json_key(j, "location");
	idd_json_string(j, r->location[0] ? r->location : NULL);
	idd_json_key(j, "site");
	if (r->location[0]) {
		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "file");
		idd_json_string(j, r->site_file[0] ? r->site_file : NULL);
		idd_json_key(j, "line");
		if (r->site_line)
			idd_json_u64(j, r->site_line);
		else
			idd_json_null(j);
		idd_json_key(j, "function");
		idd_json_string(j, r->site_function[0] ? r->site_function : NULL);
		idd_json_end(j);
	} else {
		idd_json_null(j);
	}
	idd_json_key(j, "unreadable_at_report");
	idd_json_bool(j, r->unreadable);
	idd_json_key(j, "fields_at_report");
	if (r->has_fields) {
		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "fs_type");
		idd_json_string(j, f->fs_type);
		idd_json_key(j, "mode");
		idd_json_u64(j, f->mode);
		idd_json_key(j, "opflags");
		idd_json_u64(j, f->opflags);
		idd_json_key(j, "flags");
		idd_json_u64(j, f->flags);
		idd_json_key(j, "state");
		idd_json_u64(j, f->state);
		idd_json_key(j, "count");
		idd_json_i64(j, f->count);
		idd_json_end(j);
	} else {
		idd_json_null(j);
	}
	idd_json_key(j, "differences");
	idd_json_array(j, IDD_JSON_INLINE);
	for (size_t i = 0; i < nd; i++) {
		idd_json_object(j, IDD_JSON_INLINE);
		idd_json_key(j, "field");
		idd_json_string(j, d[i].field);
		idd_json_key(j, "at_report");
		idd_json_i64(j, d[i].at_report);
		idd_json_key(j, "in_dump");
		idd_json_i64(j, d[i].in_dump);
		idd_json_end(j);
	}
	idd_json_end(j);
}

void inodedump_document_report(struct inodedump_document *doc,
			       const struct inodedump_report *report,
			       const struct inodedump_inode *inode,
			       const struct inodedump_error *err)
{
	struct inodedump_difference d[INODEDUMP_MAX_DIFFERENCES];
	size_t nd = inodedump_report_differences(report, inode, d);

	flockfile(doc->out);
	if (doc->format == INODEDUMP_FORMAT_JSON) {
		idd_json_object(&doc->j, IDD_JSON_INLINE);
		report_json(&doc->j, report, d, nd);
		idd_json_key(&doc->j, "inode");
		if (inode)
			idd_json_inode(&doc->j, inode);
		else
			json_error(&doc->j, report->address, err);
		idd_json_end(&doc->j);
	} else {
		/* A blank line before each inode's group of reports. */
		if (doc->items && report->address != doc->group)
			fputc('\n', doc->out);
		report_text(doc->out, report, d, nd);
	}
	doc->group = report->address;
	doc->items++;
	funlockfile(doc->out);
}

void inodedump_report_print(const struct inodedump_report *report,
			    const struct inodedump_inode *inode,
			    const struct inodedump_error *err,
			    enum inodedump_format format, FILE *out)
{
	struct inodedump_difference d[INODEDUMP_MAX_DIFFERENCES];
	size_t nd = inodedump_report_differences(report, inode, d);
	struct idd_json j;

	flockfile(out);
	if (format == INODEDUMP_FORMAT_JSON) {
		idd_json_init(&j, out, true, 0);
		idd_json_object(&j, IDD_JSON_INLINE);
		report_json(&j, report, d, nd);
		idd_json_key(&j, "inode");
		if (inode)
			idd_json_inode(&j, inode);
		else if (err)
			json_error(&j, report->address, err);
		else
			idd_json_null(&j);
		idd_json_end(&j);
		fputc('\n', out);
	} else {
		report_text(out, report, d, nd);
		if (inode)
			inodedump_inode_print_text(inode, out);
		else if (err) {
			fputs("  not decoded: ", out);
			idd_text_escape(out, inodedump_error_message(err));
			fputc('\n', out);
		}
		fputc('\n', out);
	}
	funlockfile(out);
}

void inodedump_document_end(struct inodedump_document *doc)
{
	if (!doc)
		return;
	flockfile(doc->out);
	if (doc->format == INODEDUMP_FORMAT_JSON) {
		idd_json_end(&doc->j); /* "inodes" or "reports" */
		idd_json_end(&doc->j);
		fputc('\n', doc->out);
	} else if (doc->log && !doc->items) {
		fprintf(doc->out, "no dump_inode() report in the kernel log "
				  "(%zu records)\n",
			inodedump_log_count(doc->log));
	}
	funlockfile(doc->out);
	free(doc);
}

void inodedump_facts_print(struct inodedump *id, FILE *out)
{
	/* Each fact, and where it comes from when that is fixed. */
	static const struct {
		const char *fact, *label, *whence;
	} facts[] = {
		{ INODEDUMP_FACT_FORMAT, "format", "dump header" },
		{ INODEDUMP_FACT_READER, "read by", NULL },
		{ INODEDUMP_FACT_TRANSLATION, "translated by", NULL },
		{ INODEDUMP_FACT_COMPRESSION, "compression", "dump header" },
		{ INODEDUMP_FACT_WRITER, "writer", NULL },
		{ INODEDUMP_FACT_DUMP_LEVEL, "dump level", "diskdump sub-header" },
		{ INODEDUMP_FACT_EXCLUDED_PAGES, "excluded", "dump bitmaps" },
		{ INODEDUMP_FACT_EXCLUDED_BY_KIND, "excluded, by kind", "each page's struct page" },
		{ INODEDUMP_FACT_ARCH, "architecture", "dump header, else vmlinux" },
		/* whence when unknown; else its source fact */
		{ INODEDUMP_FACT_OSRELEASE, "release",
		  "none of VMCOREINFO OSRELEASE, the dump header, init_uts_ns" },
		{ INODEDUMP_FACT_BUILD_ID, "build-id", "VMCOREINFO BUILD-ID" },
		{ INODEDUMP_FACT_KASLR_OFFSET, "KASLR offset", "VMCOREINFO KERNELOFFSET" },
		{ INODEDUMP_FACT_PAGE_SIZE, "page size", "dump header" },
		{ INODEDUMP_FACT_VMLINUX, "vmlinux", NULL },
		{ INODEDUMP_FACT_VMLINUX_BUILD_ID, "vmlinux build-id", "vmlinux GNU build-id note" },
		{ INODEDUMP_FACT_TYPES, "types", NULL },
		{ INODEDUMP_FACT_SYMBOLS, "symbols", NULL },
		{ INODEDUMP_FACT_SLAB, "slab allocator", "this kernel's types" },
	};
	/* What of the kernel's types a fact needs, said when there are none. */
	static const struct {
		const char *fact, *needs;
	} needs[] = {
		{ INODEDUMP_FACT_EXCLUDED_BY_KIND,
		  "what each page was needs struct page's layout" },
		{ INODEDUMP_FACT_SLAB,
		  "the allocator's structs (kmem_cache, slab) are needed" },
	};
	const char *no_types = inodedump_fact(id, INODEDUMP_FACT_NO_TYPES);

	for (size_t i = 0; i < sizeof(facts) / sizeof(facts[0]); i++) {
		const char *v = inodedump_fact(id, facts[i].fact);

		const char *lacking = NULL;

		fprintf(out, "%-18s ", facts[i].label);
		for (size_t j = 0; !v && no_types &&
				   j < sizeof(needs) / sizeof(needs[0]); j++)
			if (!strcmp(facts[i].fact, needs[j].fact))
				lacking = needs[j].needs;
		if (lacking) { /* not unknown: not read */
			fprintf(out, "(not read: no kernel types; %s)\n",
				lacking);
			continue;
		}
		if (v)
			idd_text_escape(out, v); /* the dump's header */
		else if (!strcmp(facts[i].fact, INODEDUMP_FACT_VMLINUX) ||
			 !strcmp(facts[i].fact, INODEDUMP_FACT_VMLINUX_BUILD_ID))
			fputs("(none)", out);
		else
			fputs("(unknown)", out);
		if (!strcmp(facts[i].fact, INODEDUMP_FACT_OSRELEASE) && v)
			fprintf(out, "  [%s]",
				inodedump_fact(id, INODEDUMP_FACT_OSRELEASE_SOURCE));
		else if (!strcmp(facts[i].fact, INODEDUMP_FACT_PAGE_SIZE) && v)
			fprintf(out, "  [%s]",
				inodedump_fact(id, INODEDUMP_FACT_PAGE_SIZE_SOURCE));
		else if (facts[i].whence ||
			 !strcmp(facts[i].fact, INODEDUMP_FACT_VMLINUX))
			fprintf(out, "  [%s]",
				facts[i].whence ? facts[i].whence
						: inodedump_fact(id, INODEDUMP_FACT_VMLINUX_SOURCE));
		fputc('\n', out);
	}
}

/* A string of the dump, escaped, left-aligned in width columns. */
static void padded(FILE *out, const char *s, int width)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m) {
		fprintf(out, "%-*s", width, "?");
		return;
	}
	idd_text_escape(m, s);
	fclose(m);
	fprintf(out, "%-*s", width, buf ? buf : "?");
	free(buf);
}

void inodedump_sweep_sb_print(const struct inodedump_sweep_sb *sb,
			      enum inodedump_format format, FILE *out)
{
	struct idd_json j;

	flockfile(out);
	if (format == INODEDUMP_FORMAT_TEXT) {
		/* a "?" would pass for a name: say it is not known */
		padded(out, sb->fs_type_error ? "(unreadable)" : sb->fs_type,
		       12);
		fputc(' ', out);
		padded(out, sb->s_id, 16);
		fprintf(out, " 0x%" PRIx64 "  %zu inodes", sb->address,
			sb->matched);
		for (int i = 0; i < INODEDUMP_INODE_TYPES; i++)
			if (sb->by_type[i])
				fprintf(out, ", %zu %s", sb->by_type[i],
					inodedump_inode_type_name(
						(enum inodedump_inode_type)i));
		fprintf(out, "; %zu with violations", sb->violations);
		if (sb->from_slabs)
			fprintf(out, "; found through the inode caches' slabs, "
				"on no list the sweep could read (and %zu more "
				"allocated on none of its lists)", sb->off_list);
		fputc('\n', out);
		if (sb->fs_type_error) {
			fputs("  FILESYSTEM TYPE UNREADABLE: ", out);
			idd_text_escape(out, sb->fs_type_error);
			fputc('\n', out);
		}
		if (sb->error)
		{
			fputs("  WALK STOPPED: ", out);
			idd_text_escape(out, sb->error);
			fputc('\n', out);
		}
		funlockfile(out);
		return;
	}
	idd_json_init(&j, out, true, 0);
	idd_json_object(&j, IDD_JSON_INLINE);
	idd_json_key(&j, "superblock");
	idd_json_hex(&j, sb->address);
	idd_json_key(&j, "fs_type");
	idd_json_string(&j, sb->fs_type_error ? NULL : sb->fs_type);
	idd_json_key(&j, "s_id");
	idd_json_string(&j, sb->s_id);
	idd_json_key(&j, "inodes");
	idd_json_u64(&j, sb->inodes);
	idd_json_key(&j, "matched");
	idd_json_u64(&j, sb->matched);
	idd_json_key(&j, "violations");
	idd_json_u64(&j, sb->violations);
	idd_json_key(&j, "by_type");
	idd_json_object(&j, IDD_JSON_INLINE);
	for (int i = 0; i < INODEDUMP_INODE_TYPES; i++) {
		idd_json_key(&j, inodedump_inode_type_name(
					 (enum inodedump_inode_type)i));
		idd_json_u64(&j, sb->by_type[i]);
	}
	idd_json_end(&j);
	idd_json_key(&j, "error");
	idd_json_string(&j, sb->error);
	if (sb->from_slabs) { /* only in the slabs' event */
		idd_json_key(&j, "from_slabs");
		idd_json_bool(&j, true);
		idd_json_key(&j, "off_list");
		idd_json_u64(&j, sb->off_list);
	}
	if (sb->fs_type_error) { /* only then: fs_type is null */
		idd_json_key(&j, "fs_type_error");
		idd_json_string(&j, sb->fs_type_error);
	}
	idd_json_end(&j);
	fputc('\n', out);
	funlockfile(out);
}

void inodedump_sweep_summary_print(const struct inodedump_sweep_totals *totals,
				   enum inodedump_format format, FILE *out)
{
	struct idd_json j;

	flockfile(out);
	if (format == INODEDUMP_FORMAT_TEXT) {
		fprintf(out, "\n%zu inodes checked, %zu with violations, %zu "
			     "superblock walks cut short",
			totals->inodes, totals->violations, totals->cut_short);
		if (totals->from_slabs)
			fprintf(out, ", %zu inodes found only through the "
				     "inode caches' slabs", totals->from_slabs);
		fputc('\n', out);
		funlockfile(out);
		return;
	}
	idd_json_init(&j, out, true, 0);
	idd_json_object(&j, IDD_JSON_INLINE);
	idd_json_key(&j, "summary");
	idd_json_object(&j, IDD_JSON_INLINE);
	idd_json_key(&j, "inodes");
	idd_json_u64(&j, totals->inodes);
	idd_json_key(&j, "violations");
	idd_json_u64(&j, totals->violations);
	idd_json_key(&j, "superblocks_cut_short");
	idd_json_u64(&j, totals->cut_short);
	if (totals->from_slabs) { /* only when the slabs were walked */
		idd_json_key(&j, "inodes_from_slabs");
		idd_json_u64(&j, totals->from_slabs);
	}
	idd_json_end(&j);
	idd_json_end(&j);
	fputc('\n', out);
	funlockfile(out);
}

/* The kernel log as dmesg shows it (--log). */
void inodedump_log_print(const struct inodedump_log *log, FILE *out)
{
	size_t n = inodedump_log_count(log);

	for (size_t i = 0; i < n; i++) {
		const struct inodedump_record *r = inodedump_log_record(log, i);

		fprintf(out, "[%5" PRIu64 ".%06" PRIu64 "] ",
			r->ts_nsec / 1000000000, r->ts_nsec % 1000000000 / 1000);
		/* dmesg's look, without the dump's control bytes. */
		idd_text_escape_len(out, r->text, r->text_len, true);
		fputc('\n', out);
	}
}
