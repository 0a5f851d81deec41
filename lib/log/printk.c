// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Reports: the printk ring buffer read out of the dump (the lockless
 * format of Linux 5.10+), and the dump_inode() reports found in it.
 *
 * The ring is read in three bulk reads (descriptors, infos, text data) and
 * walked from tail_id to head_id, at most once around: a corrupt index can
 * neither loop nor read outside the arrays.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "decode/session.h"

#define RING_CU "kernel/printk/printk_ringbuffer.c"
#define PRINTK_CU "kernel/printk/printk.c"
#define MAX_COUNT_BITS 24 /* 16M descriptors: far beyond any real log */
#define MAX_SIZE_BITS 28 /* 256 MiB of text: beyond any log_buf_len seen */

struct inodedump_log {
	struct inodedump_record *recs;
	size_t n;
	char *warning; /* the ring's indices did not hold together */
};

struct ring_layout {
	struct idd_struct rb, desc, info;
	struct idd_member count_bits, descs, infos, head_id, tail_id, size_bits,
		data;
	struct idd_member state_var, lpos_begin, lpos_next;
	struct idd_member seq, ts_nsec, text_len, facility, flags, level,
		caller_id;
	int64_t committed, finalized, log_cont;
};

static struct inodedump_error *need(const struct idd_member *m,
				    const char *what)
{
	if (m->present)
		return NULL;
	return idd_error(INODEDUMP_ERR_TYPE,
			 "this kernel's printk ring buffer has no %s: only the "
			 "lockless ring of Linux 5.10 and later is read",
			 what);
}

static struct inodedump_error *ring_layout(struct inodedump *id,
					   struct ring_layout *l)
{
	struct idd_types *t = id->types;
	struct inodedump_error *err;

	idd_anchor(id, RING_CU,
		   (const char *const[]){ "prb_reserve", "prb_commit", NULL });
	idd_anchor(id, PRINTK_CU,
		   (const char *const[]){ "vprintk_emit", "_printk", NULL });
	err = idd_types_struct_in(t, "printk_ringbuffer", RING_CU, &l->rb);
	if (err)
		return idd_error_wrap(err, "kernel log");
#define M(s, field, path)                                                      \
	do {                                                                   \
		idd_types_member(t, &l->s, path, &l->field);                   \
		if ((err = need(&l->field, path)))                             \
			return err;                                            \
	} while (0)
	M(rb, count_bits, "desc_ring.count_bits");
	M(rb, descs, "desc_ring.descs");
	M(rb, infos, "desc_ring.infos");
	M(rb, head_id, "desc_ring.head_id.counter");
	M(rb, tail_id, "desc_ring.tail_id.counter");
	M(rb, size_bits, "text_data_ring.size_bits");
	M(rb, data, "text_data_ring.data");
	if ((err = idd_types_pointee_struct(t, &l->descs, &l->desc)) ||
	    (err = idd_types_pointee_struct(t, &l->infos, &l->info)))
		return idd_error_wrap(err, "kernel log");
	M(desc, state_var, "state_var.counter");
	M(desc, lpos_begin, "text_blk_lpos.begin");
	M(desc, lpos_next, "text_blk_lpos.next");
	M(info, seq, "seq");
	M(info, ts_nsec, "ts_nsec");
	M(info, text_len, "text_len");
	M(info, facility, "facility");
	M(info, flags, "flags");
	M(info, level, "level");
	M(info, caller_id, "caller_id");
#undef M
	if (!idd_types_enumerator(t, RING_CU, "desc_committed", &l->committed) ||
	    !idd_types_enumerator(t, RING_CU, "desc_finalized", &l->finalized))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "vmlinux has no enum desc_state in %s", RING_CU);
	if (!idd_types_enumerator(t, PRINTK_CU, "LOG_CONT", &l->log_cont) &&
	    !idd_types_enumerator(t, RING_CU, "LOG_CONT", &l->log_cont))
		l->log_cont = 0; /* continuation flags then read as unset */
	return NULL;
}

static struct inodedump_error *read_array(struct inodedump *id, uint64_t addr,
					  size_t size, uint8_t **out,
					  const char *what)
{
	struct inodedump_error *err;

	*out = malloc(size ? size : 1);
	if (!*out)
		return idd_nomem();
	err = idd_target_read(id->target, addr, *out, size);
	if (err) {
		free(*out);
		*out = NULL;
		return idd_error_wrap(err, "kernel log %s", what);
	}
	return NULL;
}

/*
 * Where a record's text lies in the data ring, as the kernel's get_data()
 * decides it: a regular block, or one wrapped to the start of the ring.
 */
static bool block_text(uint64_t begin, uint64_t next, unsigned size_bits,
		       uint64_t *off, uint64_t *len)
{
	uint64_t size = UINT64_C(1) << size_bits, mask = size - 1;

	if (begin & 1 || next & 1) /* data-less record */
		return false;
	if ((begin >> size_bits) == (next >> size_bits) && begin < next) {
		*off = begin & mask;
		*len = next - begin;
	} else if (((begin + size) >> size_bits) == (next >> size_bits)) {
		*off = 0;
		*len = next & mask;
	} else {
		return false;
	}
	/* Each block starts with the descriptor id (an unsigned long). */
	if (*len < 8 || *off + *len > size)
		return false;
	*off += 8;
	*len -= 8;
	return true;
}

struct ring {
	struct ring_layout l;
	uint8_t *descs, *infos, *data;
	uint64_t count, head, tail;
	unsigned size_bits;
};

/*
 * The descriptor state sits in the top two bits of state_var, whose width
 * is the kernel's unsigned long (DESC_SV_BITS): taken from its type.
 */
static unsigned desc_flags_shift(const struct ring_layout *l)
{
	return 8 * (unsigned)l->state_var.size - 2;
}

static void add_record(struct ring *r, struct inodedump_log *log, uint64_t rid)
{
	const struct ring_layout *l = &r->l;
	uint64_t idx = rid & (r->count - 1);
	const uint8_t *desc = r->descs + idx * l->desc.size;
	const uint8_t *info = r->infos + idx * l->info.size;
	uint64_t sv = idd_member_uval(&l->state_var, desc);
	unsigned shift = desc_flags_shift(l);
	uint64_t id_mask = (UINT64_C(1) << shift) - 1;
	uint64_t state = (sv >> shift) & 3, off, len, text_len;
	struct inodedump_record *rec = &log->recs[log->n];
	char *text;

	if ((sv & id_mask) != (rid & id_mask) ||
	    (state != (uint64_t)l->committed && state != (uint64_t)l->finalized))
		return;
	if (!block_text(idd_member_uval(&l->lpos_begin, desc),
			idd_member_uval(&l->lpos_next, desc), r->size_bits, &off,
			&len))
		len = 0;
	text_len = idd_member_uval(&l->text_len, info);
	if (text_len > len)
		text_len = len;
	text = malloc(text_len + 1);
	if (!text)
		return;
	if (text_len)
		memcpy(text, r->data + off, text_len);
	text[text_len] = '\0';
	rec->text = text;
	rec->text_len = text_len;
	rec->seq = idd_member_uval(&l->seq, info);
	rec->ts_nsec = idd_member_uval(&l->ts_nsec, info);
	rec->level = (uint8_t)idd_member_uval(&l->level, info);
	rec->facility = (uint8_t)idd_member_uval(&l->facility, info);
	rec->continuation = l->log_cont &&
			    (idd_member_uval(&l->flags, info) & (uint64_t)l->log_cont);
	rec->caller_id = (uint32_t)idd_member_uval(&l->caller_id, info);
	log->n++;
}

static struct inodedump_error *read_ring(struct inodedump *id, struct ring *r,
					 uint64_t rb_addr)
{
	struct ring_layout *l = &r->l;
	uint8_t *rb;
	unsigned count_bits;
	struct inodedump_error *err;

	err = read_array(id, rb_addr, l->rb.size, &rb, "struct printk_ringbuffer");
	if (err)
		return err;
	count_bits = (unsigned)idd_member_uval(&l->count_bits, rb);
	r->size_bits = (unsigned)idd_member_uval(&l->size_bits, rb);
	r->head = idd_member_uval(&l->head_id, rb);
	r->tail = idd_member_uval(&l->tail_id, rb);
	if (count_bits > MAX_COUNT_BITS || r->size_bits > MAX_SIZE_BITS ||
	    r->size_bits < 4) {
		free(rb);
		return idd_error_at(INODEDUMP_ERR_DUMP, rb_addr,
				    "kernel log ring at 0x%" PRIx64
				    " is corrupt: count_bits %u, size_bits %u",
				    rb_addr, count_bits, r->size_bits);
	}
	r->count = UINT64_C(1) << count_bits;
	/* A real ring (LOG_BUF_SHIFT <= 25) is far below this in all. */
	if (r->count * (l->desc.size + l->info.size) +
		    (UINT64_C(1) << r->size_bits) > (UINT64_C(512) << 20)) {
		free(rb);
		return idd_error_at(INODEDUMP_ERR_DUMP, rb_addr,
				    "kernel log ring at 0x%" PRIx64
				    " is corrupt: %" PRIu64 " descriptors and "
				    "%" PRIu64 " bytes of text are beyond any "
				    "real log", rb_addr, r->count,
				    UINT64_C(1) << r->size_bits);
	}
	err = read_array(id, idd_member_uval(&l->descs, rb),
			 r->count * l->desc.size, &r->descs, "descriptors");
	if (!err)
		err = read_array(id, idd_member_uval(&l->infos, rb),
				 r->count * l->info.size, &r->infos, "infos");
	if (!err)
		err = read_array(id, idd_member_uval(&l->data, rb),
				 UINT64_C(1) << r->size_bits, &r->data,
				 "text data");
	free(rb);
	return err;
}

struct inodedump_error *inodedump_read_log(struct inodedump *id,
					   struct inodedump_log **out)
{
	struct ring r = { 0 };
	struct inodedump_log *log = NULL;
	struct inodedump_error *err;
	uint64_t prb_sym, rb_addr, id_mask;
	const char *v = idd_target_vmcoreinfo(id->target, "SYMBOL(prb)");

	if (!(v && (prb_sym = strtoull(v, NULL, 16))) &&
	    !idd_symbols_address(id->syms, "prb", &prb_sym))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "no symbol prb in VMCOREINFO or vmlinux: only "
				 "the lockless printk ring of Linux 5.10 and "
				 "later is read");
	err = ring_layout(id, &r.l);
	if (!err)
		err = idd_target_read_u64(id->target, prb_sym, &rb_addr);
	if (!err)
		err = read_ring(id, &r, rb_addr);
	if (err)
		goto out;
	log = calloc(1, sizeof(*log));
	if (log)
		log->recs = calloc(r.count, sizeof(*log->recs));
	if (!log || !log->recs) {
		err = idd_nomem();
		goto out;
	}
	/* tail..head inclusive, never more than once around the ring. */
	bool reached = false;

	id_mask = (UINT64_C(1) << desc_flags_shift(&r.l)) - 1;

	for (uint64_t rid = r.tail & id_mask, n = 0; n < r.count;
	     rid = (rid + 1) & id_mask, n++) {
		add_record(&r, log, rid);
		if (rid == (r.head & id_mask)) {
			reached = true;
			break;
		}
	}
	if (!reached || !log->n)
		log->warning = idd_strdup_printf(
			"kernel log ring at 0x%" PRIx64 " is corrupt: tail_id "
			"0x%" PRIx64 " and head_id 0x%" PRIx64 " are not within "
			"%" PRIu64 " descriptors of each other; %zu records read",
			rb_addr, r.tail, r.head, r.count, log->n);
	*out = log;
	log = NULL;
out:
	inodedump_log_free(log);
	free(r.descs);
	free(r.infos);
	free(r.data);
	return err;
}

const char *inodedump_log_warning(const struct inodedump_log *log)
{
	return log->warning;
}

size_t inodedump_log_count(const struct inodedump_log *log)
{
	return log->n;
}

const struct inodedump_record *
inodedump_log_record(const struct inodedump_log *log, size_t i)
{
	return i < log->n ? &log->recs[i] : NULL;
}

void inodedump_log_print(const struct inodedump_log *log, FILE *out)
{
	for (size_t i = 0; i < log->n; i++) {
		const struct inodedump_record *r = &log->recs[i];

		fprintf(out, "[%5" PRIu64 ".%06" PRIu64 "] ",
			r->ts_nsec / 1000000000, r->ts_nsec % 1000000000 / 1000);
		fwrite(r->text, 1, r->text_len, out);
		fputc('\n', out);
	}
}

void inodedump_log_free(struct inodedump_log *log)
{
	if (!log)
		return;
	for (size_t i = 0; i < log->n; i++)
		free((char *)log->recs[i].text);
	free(log->recs);
	free(log->warning);
	free(log);
}

/* ------------------------------------------------------------ reports -- */

/* A %px value: hex digits only, ended by the end of the line or a space. */
static bool parse_px(const char *s, const char *end, uint64_t *out,
		     const char **after)
{
	const char *p = s;
	uint64_t v = 0;

	if (p + 2 <= end && p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	s = p;
	while (p < end && isxdigit((unsigned char)*p) && p - s < 16) {
		v = v * 16 + (uint64_t)(isdigit((unsigned char)*p)
						? *p - '0'
						: (tolower((unsigned char)*p) - 'a' + 10));
		p++;
	}
	if (p == s || (p < end && !isspace((unsigned char)*p)))
		return false;
	*out = v;
	*after = p;
	return true;
}

static bool copy_reason(char *dst, size_t dstlen, const char *s, size_t len)
{
	while (len && isspace((unsigned char)*s)) {
		s++;
		len--;
	}
	if (!len)
		return false;
	if (len >= dstlen)
		len = dstlen - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
	return true;
}

/* "fs tmpfs mode 100644 opflags 0xc flags 0x0 state 0x0 count 1" (6.18) */
static bool parse_6_18_fields(const char *line, struct inodedump_report *out)
{
	struct inodedump_report_fields f = { 0 };
	int n = 0;

	if (sscanf(line, "fs %63s mode %o opflags 0x%x flags 0x%x state 0x%x "
			 "count %d%n",
		   f.fs_type, &f.mode, &f.opflags, &f.flags, &f.state, &f.count,
		   &n) != 6 || !n)
		return false;
	out->fields = f;
	out->has_fields = true;
	return true;
}

static bool parse_2026(const char *text, const char *end,
		       struct inodedump_report *out)
{
	static const char unreadable[] = ": unreadable inode:";
	static const char readable[] = ": inode:";
	const char *p, *after;
	struct inodedump_report_fields f = { 0 };
	char line[512];
	size_t len = (size_t)(end - text);

	if (len >= sizeof(line))
		len = sizeof(line) - 1;
	memcpy(line, text, len);
	line[len] = '\0';
	if ((p = strstr(line, unreadable))) {
		if (!copy_reason(out->reason, sizeof(out->reason), line,
				 (size_t)(p - line)) ||
		    !parse_px(p + strlen(unreadable), line + len, &out->address,
			      &after))
			return false;
		out->unreadable = true;
	} else if ((p = strstr(line, readable))) {
		int n = 0;

		if (!copy_reason(out->reason, sizeof(out->reason), line,
				 (size_t)(p - line)) ||
		    !parse_px(p + strlen(readable), line + len, &out->address,
			      &after) ||
		    sscanf(after, " fs:%63s mode:%o opflags:%x flags:%x state:%x "
				  "count:%d%n",
			   f.fs_type, &f.mode, &f.opflags, &f.flags, &f.state,
			   &f.count, &n) != 6 || !n)
			return false;
		out->fields = f;
		out->has_fields = true;
	} else {
		return false;
	}
	out->format = INODEDUMP_REPORT_2026;
	return true;
}

bool inodedump_parse_report(const char *text, size_t len,
			    struct inodedump_report *out)
{
	static const char marker[] = " encountered for inode ";
	const char *end = text + len, *nl, *p, *after;
	struct inodedump_report r = { 0 };

	/* The first line; a NUL (corrupt memory) ends it too. */
	nl = memchr(text, '\n', len);
	if (!nl)
		nl = end;
	{
		const char *nul = memchr(text, '\0', (size_t)(nl - text));

		if (nul)
			nl = end = nul;
	}
	/* The marker must be on the first line of the record. */
	for (p = text; p + sizeof(marker) - 1 <= nl; p++)
		if (!memcmp(p, marker, sizeof(marker) - 1))
			break;
	if (p + sizeof(marker) - 1 > nl) {
		if (!parse_2026(text, nl, &r))
			return false;
		*out = r;
		return true;
	}
	if (!copy_reason(r.reason, sizeof(r.reason), text, (size_t)(p - text)) ||
	    !parse_px(p + sizeof(marker) - 1, nl, &r.address, &after))
		return false;
	r.format = INODEDUMP_REPORT_6_15;
	if (nl < end) {
		char line[256];
		size_t l = (size_t)(end - nl - 1);

		if (l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, nl + 1, l);
		line[l] = '\0';
		if (parse_6_18_fields(line, &r))
			r.format = INODEDUMP_REPORT_6_18;
	}
	*out = r;
	return true;
}

static bool starts_with(const struct inodedump_record *r, const char *prefix)
{
	size_t n = strlen(prefix);

	return r->text_len >= n && !memcmp(r->text, prefix, n);
}

static void copy_line(char *dst, size_t dstlen, const char *s, size_t len)
{
	const char *nl = memchr(s, '\n', len);

	if (nl)
		len = (size_t)(nl - s);
	if (len >= dstlen)
		len = dstlen - 1;
	memcpy(dst, s, len);
	dst[len] = '\0';
}

/* The WARNING/BUG line and the task named in the splat after a report. */
static void find_splat(const struct inodedump_log *log, size_t i,
		       struct inodedump_report *rep)
{
	size_t limit = i + 40 < log->n ? i + 40 : log->n;

	for (size_t j = i + 1; j < limit; j++) {
		const struct inodedump_record *r = &log->recs[j];
		struct inodedump_report other;

		/* The next report's splat is not ours. */
		if (inodedump_parse_report(r->text, r->text_len, &other))
			return;
		if (!rep->location[0] && (starts_with(r, "WARNING: ") ||
					  starts_with(r, "kernel BUG at "))) {
			copy_line(rep->location, sizeof(rep->location), r->text,
				  r->text_len);
			continue;
		}
		if (rep->location[0] && !rep->task[0]) {
			const char *comm = memmem(r->text, r->text_len, " Comm: ", 7);

			if (comm && starts_with(r, "CPU: ")) {
				const char *s = comm + 7;
				size_t k = 0;

				while (s + k < r->text + r->text_len &&
				       !isspace((unsigned char)s[k]) &&
				       k < sizeof(rep->task) - 1)
					k++;
				memcpy(rep->task, s, k);
				rep->task[k] = '\0';
				return;
			}
		}
	}
}

size_t inodedump_find_reports(const struct inodedump_log *log,
			      struct inodedump_report **out)
{
	struct inodedump_report *reps = NULL;
	size_t n = 0;

	for (size_t i = 0; i < log->n; i++) {
		const struct inodedump_record *r = &log->recs[i];
		struct inodedump_report rep, *grown;

		if (!inodedump_parse_report(r->text, r->text_len, &rep))
			continue;
		/* 6.18 fields printed as a record of their own. */
		if (rep.format == INODEDUMP_REPORT_6_15 && i + 1 < log->n) {
			const struct inodedump_record *next = &log->recs[i + 1];
			char line[256];

			copy_line(line, sizeof(line), next->text, next->text_len);
			if (parse_6_18_fields(line, &rep))
				rep.format = INODEDUMP_REPORT_6_18;
		}
		rep.seq = r->seq;
		rep.ts_nsec = r->ts_nsec;
		rep.caller_id = r->caller_id;
		find_splat(log, i, &rep);
		grown = realloc(reps, (n + 1) * sizeof(*reps));
		if (!grown)
			break;
		reps = grown;
		reps[n++] = rep;
	}
	*out = reps;
	return n;
}
