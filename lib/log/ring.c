// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The kernel log: the printk ring buffer read out of the dump (the
 * lockless format of Linux 5.10+), its layout from the kernel's types or,
 * in a session without them, from VMCOREINFO.
 *
 * The ring is read in three bulk reads (descriptors, infos, text data) and
 * walked from tail_id to head_id, at most once around: a corrupt index can
 * neither loop nor read outside the arrays.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/bytes.h"
#include "core/cleanup.h"
#include "decode/session.h"
#include "kernel/printk.h"
#include "log/log.h"

#define RING_CU "kernel/printk/printk_ringbuffer.c"
#define PRINTK_CU "kernel/printk/printk.c"
#define MAX_COUNT_BITS 24 /* 16M descriptors: far beyond any real log */
#define MAX_SIZE_BITS 28 /* 256 MiB of text: beyond any log_buf_len seen */

struct ring_layout {
	struct idd_struct rb, desc, info;
	struct idd_member count_bits, descs, infos, head_id, tail_id, size_bits,
		data;
	struct idd_member state_var, lpos_begin, lpos_next;
	struct idd_member seq, ts_nsec, text_len, facility, flags, level,
		caller_id;
	/* CONFIG_PRINTK_EXECUTION_CTX (7.x): both or none are read */
	struct idd_member caller_id2, comm;
	int64_t committed, finalized, log_cont;
	unsigned state_bits; /* desc_state's, at the top of state_var */
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

static struct inodedump_error *load_ring_layout(struct inodedump *id,
						struct ring_layout *l)
{
	struct idd_types *t = id->types;
	struct inodedump_error *err;

	idd_anchor(t, id->syms, RING_CU,
		   (const char *const[]){ "prb_reserve", "prb_commit", NULL });
	idd_anchor(t, id->syms, PRINTK_CU,
		   (const char *const[]){ "vprintk_emit", "_printk", NULL });
	err = idd_types_struct_in(t, "printk_ringbuffer", RING_CU, &l->rb);
	if (err)
		return idd_error_wrap(err, "kernel log");
#define NEED_MEMBER(s, field, path)                                            \
	do {                                                                   \
		idd_types_member(t, &l->s, path, &l->field);                   \
		if ((err = need(&l->field, path)))                             \
			return err;                                            \
	} while (0)
	NEED_MEMBER(rb, count_bits, "desc_ring.count_bits");
	NEED_MEMBER(rb, descs, "desc_ring.descs");
	NEED_MEMBER(rb, infos, "desc_ring.infos");
	NEED_MEMBER(rb, head_id, "desc_ring.head_id.counter");
	NEED_MEMBER(rb, tail_id, "desc_ring.tail_id.counter");
	NEED_MEMBER(rb, size_bits, "text_data_ring.size_bits");
	NEED_MEMBER(rb, data, "text_data_ring.data");
	if ((err = idd_types_pointee_struct(t, &l->descs, &l->desc)) ||
	    (err = idd_types_pointee_struct(t, &l->infos, &l->info)))
		return idd_error_wrap(err, "kernel log");
	NEED_MEMBER(desc, state_var, "state_var.counter");
	NEED_MEMBER(desc, lpos_begin, "text_blk_lpos.begin");
	NEED_MEMBER(desc, lpos_next, "text_blk_lpos.next");
	NEED_MEMBER(info, seq, "seq");
	NEED_MEMBER(info, ts_nsec, "ts_nsec");
	NEED_MEMBER(info, text_len, "text_len");
	NEED_MEMBER(info, facility, "facility");
	NEED_MEMBER(info, flags, "flags");
	NEED_MEMBER(info, level, "level");
	NEED_MEMBER(info, caller_id, "caller_id");
#undef NEED_MEMBER
	idd_types_member(t, &l->info, "caller_id2", &l->caller_id2);
	idd_types_member(t, &l->info, "comm", &l->comm);
	if (!l->caller_id2.present || l->comm.kind != IDD_KIND_ARRAY)
		l->caller_id2.present = l->comm.present = false;
	if (!idd_types_enumerator(t, RING_CU, "desc_state", "desc_committed", &l->committed) ||
	    !idd_types_enumerator(t, RING_CU, "desc_state", "desc_finalized", &l->finalized))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "vmlinux has no enum desc_state in %s", RING_CU);
	if (!idd_types_enumerator(t, PRINTK_CU, "printk_info_flags", "LOG_CONT", &l->log_cont) &&
	    !idd_types_enumerator(t, RING_CU, "printk_info_flags", "LOG_CONT", &l->log_cont))
		l->log_cont = 0; /* continuation flags then read as unset */
	l->state_bits = 2;
	return NULL;
}

/*
 * ---- the layout from VMCOREINFO, for a session without types ----
 *
 * log_buf_vmcoreinfo_setup() (kernel/printk/printk.c, 5.10+) exports the
 * ring's struct sizes and member offsets; the members' sizes, desc_state's
 * values, LOG_CONT and the facility/level byte come from the kernel's
 * source (kernel/printk.c's table). A line missing is said by its key;
 * values that cannot be the ring (a member outside its struct, a struct
 * larger than any kernel's) are refused before anything is read.
 */

#define VI_MAX_STRUCT 4096 /* printk_ringbuffer is 80..88 bytes, the others less */

struct vi_reader {
	struct idd_target *t;
	struct inodedump_error *err; /* the first problem */
};

/* Decimal VMCOREINFO value of key, 0 when it is absent or no number. */
static uint64_t vi_num(struct vi_reader *r, const char *key)
{
	const char *v = idd_target_vmcoreinfo(r->t, key);
	char *end;
	uint64_t n;

	if (r->err)
		return 0;
	if (!v) {
		r->err = idd_error(INODEDUMP_ERR_TYPE,
				   "kernel log: no vmlinux and no BTF, and "
				   "VMCOREINFO has no %s: the ring's layout "
				   "is not known", key);
		return 0;
	}
	n = strtoull(v, &end, 10);
	if (end == v || *end || *v == '-' || *v == '+')
		r->err = idd_error(INODEDUMP_ERR_DUMP,
				   "kernel log: VMCOREINFO's %s=%s is no "
				   "number", key, v);
	return n;
}

static void vi_struct(struct vi_reader *r, const char *name,
		      struct idd_struct *s)
{
	char key[64];

	snprintf(key, sizeof(key), "SIZE(%s)", name);
	s->size = vi_num(r, key);
	if (!r->err && (s->size == 0 || s->size > VI_MAX_STRUCT))
		r->err = idd_error(INODEDUMP_ERR_DUMP,
				   "kernel log: VMCOREINFO's %s=%" PRIu64
				   " is no size of struct %s", key, s->size,
				   name);
}

/*
 * Member m of size bytes at the sum of the OFFSET() keys (a NULL-ended
 * list: an outer member, then the inner), inside s (struct sname).
 */
static void vi_member(struct vi_reader *r, const struct idd_struct *s,
		      const char *sname, const char *path, uint64_t size,
		      const char *const *keys, struct idd_member *m)
{
	uint64_t off = 0;

	for (; *keys; keys++) {
		char key[96];
		uint64_t v;

		snprintf(key, sizeof(key), "OFFSET(%s)", *keys);
		v = vi_num(r, key);
		if (r->err)
			return;
		if (v >= VI_MAX_STRUCT) {
			r->err = idd_error(INODEDUMP_ERR_DUMP,
					   "kernel log: VMCOREINFO's %s=%" PRIu64
					   " is beyond any struct of the ring",
					   key, v);
			return;
		}
		off += v;
	}
	if (off + size > s->size) {
		r->err = idd_error(INODEDUMP_ERR_DUMP,
				   "kernel log: VMCOREINFO puts %s.%s (%" PRIu64
				   " bytes) at offset %" PRIu64 ", outside "
				   "SIZE(%s)=%" PRIu64 ": not the ring of a "
				   "kernel", sname, path, size, off, sname,
				   s->size);
		return;
	}
	*m = (struct idd_member){ .present = true, .offset = off,
				  .size = size, .kind = IDD_KIND_INT,
				  .big_endian = idd_target_big_endian(r->t) };
}

/* A member's size: fixed, 64-bit, or the kernel source's (kernel/printk.c). */
enum vi_size { VI_UINT, VI_LONG, VI_SEQ, VI_TS, VI_TEXT_LEN, VI_CALLER };

/*
 * Each member the ring is read by: its struct (0 printk_ringbuffer, 1
 * prb_desc, 2 printk_info), its path there, its size, and the OFFSET()
 * keys whose sum places it (an outer member's first).
 */
static const struct vi_row {
	unsigned in;
	const char *path;
	enum vi_size size;
	size_t member; /* offsetof(struct ring_layout, ...) */
	const char *keys[4];
} vi_rows[] = {
#define RB(path, m, size, ...)                                                 \
	{ 0, path, size, offsetof(struct ring_layout, m), { __VA_ARGS__ } }
#define DESC(path, m, size, ...)                                               \
	{ 1, path, size, offsetof(struct ring_layout, m), { __VA_ARGS__ } }
#define INFO(path, m, size, ...)                                               \
	{ 2, path, size, offsetof(struct ring_layout, m), { __VA_ARGS__ } }
	RB("desc_ring.count_bits", count_bits, VI_UINT,
	   "printk_ringbuffer.desc_ring", "prb_desc_ring.count_bits"),
	RB("desc_ring.descs", descs, VI_LONG, "printk_ringbuffer.desc_ring",
	   "prb_desc_ring.descs"),
	RB("desc_ring.infos", infos, VI_LONG, "printk_ringbuffer.desc_ring",
	   "prb_desc_ring.infos"),
	RB("desc_ring.head_id", head_id, VI_LONG, "printk_ringbuffer.desc_ring",
	   "prb_desc_ring.head_id", "atomic_long_t.counter"),
	RB("desc_ring.tail_id", tail_id, VI_LONG, "printk_ringbuffer.desc_ring",
	   "prb_desc_ring.tail_id", "atomic_long_t.counter"),
	RB("text_data_ring.size_bits", size_bits, VI_UINT,
	   "printk_ringbuffer.text_data_ring", "prb_data_ring.size_bits"),
	RB("text_data_ring.data", data, VI_LONG,
	   "printk_ringbuffer.text_data_ring", "prb_data_ring.data"),
	DESC("state_var", state_var, VI_LONG, "prb_desc.state_var",
	     "atomic_long_t.counter"),
	DESC("text_blk_lpos.begin", lpos_begin, VI_LONG,
	     "prb_desc.text_blk_lpos", "prb_data_blk_lpos.begin"),
	DESC("text_blk_lpos.next", lpos_next, VI_LONG, "prb_desc.text_blk_lpos",
	     "prb_data_blk_lpos.next"),
	INFO("seq", seq, VI_SEQ, "printk_info.seq"),
	INFO("ts_nsec", ts_nsec, VI_TS, "printk_info.ts_nsec"),
	INFO("text_len", text_len, VI_TEXT_LEN, "printk_info.text_len"),
	INFO("caller_id", caller_id, VI_CALLER, "printk_info.caller_id"),
#undef RB
#undef DESC
#undef INFO
};

static struct inodedump_error *
load_ring_layout_vmcoreinfo(struct inodedump *id, struct ring_layout *l)
{
	static const char *const names[] = { "printk_ringbuffer", "prb_desc",
					     "printk_info" };
	const struct idd_printk_consts *k = idd_printk_consts(id->version);
	struct idd_struct *in[] = { &l->rb, &l->desc, &l->info };
	struct vi_reader r = { .t = id->target };
	uint64_t along;

	if (!k)
		return idd_error(INODEDUMP_ERR_TYPE,
				 "kernel log: no vmlinux and no BTF, and Linux "
				 "%s is older than the lockless printk ring "
				 "(5.10), whose layout VMCOREINFO gives",
				 id->release ? id->release : "?");
	/*
	 * unsigned long (state_var, the ids, the lpos) and the pointers: the
	 * ring of a 64-bit kernel, its blocks led by a 64-bit id.
	 */
	along = vi_num(&r, "SIZE(atomic_long_t)");
	if (!r.err && along != 8)
		return idd_error(INODEDUMP_ERR_DUMP,
				 "kernel log: VMCOREINFO's SIZE(atomic_long_t)"
				 "=%" PRIu64 ": only 64-bit kernels' rings are "
				 "read", along);
	for (size_t i = 0; i < 3; i++)
		vi_struct(&r, names[i], in[i]);
	for (size_t i = 0; i < sizeof(vi_rows) / sizeof(vi_rows[0]); i++) {
		const struct vi_row *v = &vi_rows[i];
		const uint64_t size[] = { [VI_UINT] = 4, [VI_LONG] = along,
					  [VI_SEQ] = k->seq_size,
					  [VI_TS] = k->ts_nsec_size,
					  [VI_TEXT_LEN] = k->text_len_size,
					  [VI_CALLER] = k->caller_id_size };

		vi_member(&r, in[v->in], names[v->in], v->path, size[v->size],
			  v->keys,
			  (struct idd_member *)((char *)l + v->member));
	}
	if (r.err)
		return r.err;
	/*
	 * facility and flags:5/level:3 between text_len and caller_id, where
	 * the source puts them: only when VMCOREINFO's offsets agree with it
	 * are they read, else the records say they are unknown.
	 */
	if (l->caller_id.offset == l->text_len.offset + k->caller_id_gap) {
		/*
		 * flags:5 then level:3 in the byte: their offsets from its
		 * low bit (little-endian) are those from its top (big).
		 */
		l->facility = (struct idd_member){
			.present = true, .size = 1, .kind = IDD_KIND_INT,
			.offset = l->text_len.offset + k->facility_from_text_len,
			.big_endian = idd_target_big_endian(id->target)
		};
		l->flags = l->level = l->facility;
		l->flags.offset = l->level.offset =
			l->text_len.offset + k->flags_from_text_len;
		l->flags.bit_offset = k->flags_shift;
		l->flags.bit_size = k->flags_bits;
		l->level.bit_offset = k->level_shift;
		l->level.bit_size = k->level_bits;
	}
	l->state_bits = k->state_bits;
	l->committed = k->desc_committed;
	l->finalized = k->desc_finalized;
	l->log_cont = k->log_cont;
	return NULL;
}

/* size bytes at addr into *out, malloc'd (the caller frees it). */
static struct inodedump_error *read_array(struct inodedump *id, uint64_t addr,
					  size_t size, uint8_t **out,
					  const char *what)
{
	_cleanup_free_ uint8_t *buf = malloc(size ? size : 1);
	struct inodedump_error *err;

	if (!buf)
		return idd_nomem();
	err = idd_target_read(id->target, addr, buf, size);
	if (err)
		return idd_error_wrap(err, "kernel log %s", what);
	*out = TAKE_PTR(buf);
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

/* The ring's layout and its three arrays, read whole. */
struct ring {
	struct ring_layout l;
	uint8_t *descs, *infos, *data;
	uint64_t count, head, tail;
	unsigned size_bits;
	uint64_t id_mask;
	bool big_endian; /* the dump's byte order */
	size_t foreign; /* text blocks that belong to another record */
};

static void ring_release(struct ring *r)
{
	free(r->descs);
	free(r->infos);
	free(r->data);
}

static void log_freep(struct inodedump_log **log)
{
	inodedump_log_free(*log);
}

/*
 * The descriptor state sits in the top two bits of state_var, whose width
 * is the kernel's unsigned long (DESC_SV_BITS): taken from its type.
 */
static unsigned desc_flags_shift(const struct ring_layout *l)
{
	return 8 * (unsigned)l->state_var.size - l->state_bits;
}

/*
 * Append record rid to log (which has room for it) when its descriptor is
 * committed or finalized; others are skipped.
 */
static struct inodedump_error *add_record(struct ring *r,
					  struct inodedump_log *log,
					  uint64_t rid)
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
		return NULL;
	if (!block_text(idd_member_uval(&l->lpos_begin, desc),
			idd_member_uval(&l->lpos_next, desc), r->size_bits, &off,
			&len))
		len = 0;
	/*
	 * A block starts with its record's id (the kernel's get_data()
	 * checks it): one that does not is another's text, or none, as when
	 * the ring's data pointer is damaged. Its text is not shown.
	 */
	if (len && (idd_load(r->data + off - 8, 8, r->big_endian) & r->id_mask) !=
			   (rid & r->id_mask)) {
		r->foreign++;
		len = 0;
	}
	text_len = idd_member_uval(&l->text_len, info);
	if (text_len > len)
		text_len = len;
	text = malloc(text_len + 1);
	if (!text)
		return idd_nomem();
	if (text_len)
		memcpy(text, r->data + off, text_len);
	text[text_len] = '\0';
	rec->text = text;
	rec->text_len = text_len;
	rec->seq = idd_member_uval(&l->seq, info);
	rec->ts_nsec = idd_member_uval(&l->ts_nsec, info);
	if (l->level.present) {
		rec->level = (uint8_t)idd_member_uval(&l->level, info);
		rec->facility = (uint8_t)idd_member_uval(&l->facility, info);
		rec->continuation =
			l->log_cont && (idd_member_uval(&l->flags, info) &
					(uint64_t)l->log_cont);
	} else { /* VMCOREINFO's offsets disagree with the source's */
		rec->level = rec->facility = INODEDUMP_LEVEL_UNKNOWN;
	}
	rec->caller_id = (uint32_t)idd_member_uval(&l->caller_id, info);
	if (l->comm.present) {
		size_t n = l->comm.size < sizeof(rec->comm)
				   ? (size_t)l->comm.size
				   : sizeof(rec->comm) - 1;

		rec->has_execution_ctx = true;
		rec->caller_id2 =
			(uint32_t)idd_member_uval(&l->caller_id2, info);
		memcpy(rec->comm, info + l->comm.offset, n);
		rec->comm[n] = '\0';
	}
	log->n++;
	return NULL;
}

static struct inodedump_error *read_ring(struct inodedump *id, struct ring *r,
					 uint64_t rb_addr)
{
	struct ring_layout *l = &r->l;
	_cleanup_free_ uint8_t *rb = NULL;
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
	    r->size_bits < 4)
		return idd_error_at(INODEDUMP_ERR_DUMP, rb_addr,
				    "kernel log ring at 0x%" PRIx64
				    " is corrupt: count_bits %u, size_bits %u",
				    rb_addr, count_bits, r->size_bits);
	r->count = UINT64_C(1) << count_bits;
	/* A real ring (LOG_BUF_SHIFT <= 25) is far below this in all. */
	if (r->count * (l->desc.size + l->info.size) +
		    (UINT64_C(1) << r->size_bits) > (UINT64_C(512) << 20))
		return idd_error_at(INODEDUMP_ERR_DUMP, rb_addr,
				    "kernel log ring at 0x%" PRIx64
				    " is corrupt: %" PRIu64 " descriptors and "
				    "%" PRIu64 " bytes of text are beyond any "
				    "real log", rb_addr, r->count,
				    UINT64_C(1) << r->size_bits);
	if ((err = read_array(id, idd_member_uval(&l->descs, rb),
			      r->count * l->desc.size, &r->descs,
			      "descriptors")) ||
	    (err = read_array(id, idd_member_uval(&l->infos, rb),
			      r->count * l->info.size, &r->infos, "infos")))
		return err;
	return read_array(id, idd_member_uval(&l->data, rb),
			  UINT64_C(1) << r->size_bits, &r->data, "text data");
}

struct inodedump_error *inodedump_read_log(struct inodedump *id,
					   struct inodedump_log **out)
{
	_cleanup_(ring_release) struct ring r = { 0 };
	_cleanup_(log_freep) struct inodedump_log *log = NULL;
	struct inodedump_error *err;
	uint64_t prb_sym, rb_addr, id_mask;
	const char *v = idd_target_vmcoreinfo(id->target, "SYMBOL(prb)");
	bool reached = false;

	if (!(v && (prb_sym = strtoull(v, NULL, 16))) &&
	    !(id->syms && idd_symbols_address(id->syms, "prb", &prb_sym)))
		return idd_error(INODEDUMP_ERR_TYPE,
				 "no symbol prb in VMCOREINFO or vmlinux: only "
				 "the lockless printk ring of Linux 5.10 and "
				 "later is read");
	if ((err = (id->types ? load_ring_layout(id, &r.l)
			      : load_ring_layout_vmcoreinfo(id, &r.l))) ||
	    (err = idd_target_read_u64(id->target, prb_sym, &rb_addr)) ||
	    (err = read_ring(id, &r, rb_addr)))
		return err;
	log = calloc(1, sizeof(*log));
	if (!log)
		return idd_nomem();
	log->recs = calloc(r.count, sizeof(*log->recs));
	if (!log->recs)
		return idd_nomem();
	/* tail..head inclusive, never more than once around the ring. */
	id_mask = (UINT64_C(1) << desc_flags_shift(&r.l)) - 1;
	r.id_mask = id_mask;
	r.big_endian = idd_target_big_endian(id->target);
	for (uint64_t rid = r.tail & id_mask, n = 0; n < r.count;
	     rid = (rid + 1) & id_mask, n++) {
		if ((err = add_record(&r, log, rid)))
			return err;
		if (rid == (r.head & id_mask)) {
			reached = true;
			break;
		}
	}
	if (!reached || !log->n) {
		log->corrupt = idd_error_at(
			INODEDUMP_ERR_DUMP, rb_addr,
			"kernel log ring at 0x%" PRIx64 " is corrupt: tail_id "
			"0x%" PRIx64 " and head_id 0x%" PRIx64 " are not within "
			"%" PRIu64 " descriptors of each other; %zu records read",
			rb_addr, r.tail, r.head, r.count, log->n);
		if (idd_error_is_nomem(log->corrupt)) {
			log->corrupt = NULL;
			return idd_nomem();
		}
	}
	if (r.foreign && !log->corrupt) {
		log->corrupt = idd_error_at(
			INODEDUMP_ERR_DUMP, rb_addr,
			"kernel log ring at 0x%" PRIx64 " is corrupt: the text "
			"of %zu of its %zu records is not where their "
			"descriptors say (a block there starts with another "
			"record's id); their text is left out", rb_addr,
			r.foreign, log->n);
		if (idd_error_is_nomem(log->corrupt)) {
			log->corrupt = NULL;
			return idd_nomem();
		}
	}
	*out = TAKE_PTR(log);
	return NULL;
}

const char *inodedump_log_warning(const struct inodedump_log *log)
{
	return log->corrupt ? inodedump_error_message(log->corrupt) : NULL;
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

void inodedump_log_free(struct inodedump_log *log)
{
	if (!log)
		return;
	for (size_t i = 0; i < log->n; i++)
		free((char *)log->recs[i].text);
	free(log->recs);
	inodedump_error_free(log->corrupt);
	free(log);
}
