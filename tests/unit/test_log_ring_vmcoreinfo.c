// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * log: inodedump_read_log() in a session without types, the ring's layout
 * taken from VMCOREINFO (as for a kernel without BTF and no vmlinux). The
 * ring is built here at offsets no kernel uses, so that only VMCOREINFO's
 * lines can place its members; a complete VMCOREINFO reads, a missing
 * line is named, values that cannot be a ring are refused, and a decode
 * says the session has no types.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "decode/session.h"
#include "log/log.h"
#include "ring_image.h"


/*
 * The image's layout, as its VMCOREINFO says it: every offset moved from
 * where the kernel has it (padding before each struct's first member).
 */
enum {
	RB_SIZE = 104,
	DESC_RING = 8, /* in printk_ringbuffer */
	COUNT = 0, DESCS_OFF = 8, INFOS_OFF = 16, HEAD = 24, TAIL = 32,
	DATA_RING = 64, /* in printk_ringbuffer */
	SIZE_BITS_OFF = 0, DATA_OFF = 8,
	DESC_SIZE = 40, STATE_VAR = 8, TEXT_BLK = 24, BEGIN = 0, NEXT = 8,
	INFO_SIZE = 104, SEQ = 16, TS = 24, TEXT_LEN = 40, CALLER = 44,
};

static const char *const vmcoreinfo_lines[] = {
	"OSRELEASE=6.1.0-50-powerpc64le",
	"SYMBOL(prb)=ffffffff82000000",
	"SIZE(printk_ringbuffer)=104",
	"OFFSET(printk_ringbuffer.desc_ring)=8",
	"OFFSET(printk_ringbuffer.text_data_ring)=64",
	"OFFSET(printk_ringbuffer.fail)=96",
	"SIZE(prb_desc_ring)=48",
	"OFFSET(prb_desc_ring.count_bits)=0",
	"OFFSET(prb_desc_ring.descs)=8",
	"OFFSET(prb_desc_ring.infos)=16",
	"OFFSET(prb_desc_ring.head_id)=24",
	"OFFSET(prb_desc_ring.tail_id)=32",
	"SIZE(prb_desc)=40",
	"OFFSET(prb_desc.state_var)=8",
	"OFFSET(prb_desc.text_blk_lpos)=24",
	"SIZE(prb_data_blk_lpos)=16",
	"OFFSET(prb_data_blk_lpos.begin)=0",
	"OFFSET(prb_data_blk_lpos.next)=8",
	"SIZE(printk_info)=104",
	"OFFSET(printk_info.seq)=16",
	"OFFSET(printk_info.ts_nsec)=24",
	"OFFSET(printk_info.text_len)=40",
	"OFFSET(printk_info.caller_id)=44",
	"OFFSET(printk_info.dev_info)=48",
	"SIZE(prb_data_ring)=32",
	"OFFSET(prb_data_ring.size_bits)=0",
	"OFFSET(prb_data_ring.data)=8",
	"SIZE(atomic_long_t)=8",
	"OFFSET(atomic_long_t.counter)=0",
	NULL,
};

static void ring_reset(uint64_t tail, uint64_t head)
{
	ring_clear();
	put(rb + DESC_RING + COUNT, COUNT_BITS, 4);
	put(rb + DESC_RING + DESCS_OFF, DESCS, 8);
	put(rb + DESC_RING + INFOS_OFF, INFOS, 8);
	put(rb + DESC_RING + HEAD, head, 8);
	put(rb + DESC_RING + TAIL, tail, 8);
	put(rb + DATA_RING + SIZE_BITS_OFF, SIZE_BITS, 4);
	put(rb + DATA_RING + DATA_OFF, DATA, 8);
}

/*
 * Record id in state (desc_committed 1, desc_finalized 2: the kernel's
 * enum desc_state) with its facility, flags:5 and level:3 where 6.1's
 * struct printk_info has them, after text_len.
 */
static void ring_record(uint64_t id, unsigned state, const char *text,
			unsigned facility, unsigned flags, unsigned level)
{
	size_t idx = id & ((1u << COUNT_BITS) - 1), len = strlen(text);
	uint8_t *desc = descs + idx * DESC_SIZE;
	uint8_t *info = infos + idx * INFO_SIZE;

	put(desc + STATE_VAR, ((uint64_t)state << 62) | id, 8);
	put(desc + TEXT_BLK + BEGIN, data_used, 8);
	put(data + data_used, id, 8);
	memcpy(data + data_used + 8, text, len);
	data_used = (data_used + 8 + len + 7) & ~(size_t)7;
	put(desc + TEXT_BLK + NEXT, data_used, 8);
	put(info + SEQ, id + 1000, 8);
	put(info + TS, id * 1000000, 8);
	put(info + TEXT_LEN, len, 2);
	info[TEXT_LEN + 2] = (uint8_t)facility;
	info[TEXT_LEN + 3] = (uint8_t)(flags | level << 5);
	put(info + CALLER, 0x80000001u, 4);
}

/*
 * A session over the image without types, its VMCOREINFO the lines above
 * with the line of key left out (NULL: none), or replaced by replace.
 */
static struct inodedump *session(const char *key, const char *replace)
{
	char info[4096] = "";
	size_t used = 0;
	struct inodedump *id = NULL;
	struct idd_target *t;
	struct inodedump_error *err;

	for (const char *const *l = vmcoreinfo_lines; *l; l++) {
		const char *line = *l;

		if (key && !strncmp(line, key, strlen(key)) &&
		    line[strlen(key)] == '=') {
			if (!replace)
				continue;
			line = replace;
		}
		used += (size_t)snprintf(info + used, sizeof(info) - used,
					 "%s\n", line);
	}
	err = idd_target_open_memory(ring_regions, N_RING_REGIONS, info,
				     &t);
	if (!err)
		err = idd_open_target_without_types(t, &id);
	if (err) {
		printf("session: %s\n", inodedump_error_message(err));
		exit(1);
	}
	return id;
}

/* The log of a session as session() makes it, or the error. */
static struct inodedump_log *read_log(const char *key, const char *replace,
				      struct inodedump_error **err)
{
	struct inodedump *id = session(key, replace);
	struct inodedump_log *log = NULL;

	*err = inodedump_read_log(id, &log);
	inodedump_close(id);
	return log;
}

static void complete_vmcoreinfo_reads_every_record(void)
{
	struct inodedump_error *err;
	struct inodedump_log *log;
	const struct inodedump_record *r;

	ring_reset(8, 11);
	ring_record(8, 2, "Linux version 6.1.0-50-powerpc64le", 0, 2, 5);
	ring_record(9, 0, "being written", 0, 0, 6); /* desc_reserved */
	ring_record(10, 2, "a continuation", 0, 8 | 2, 4); /* LOG_CONT */
	ring_record(11, 1, "committed, not yet final", 3, 0, 7);
	log = read_log(NULL, NULL, &err);
	CHECKF(err == NULL, "%s", err ? inodedump_error_message(err) : "");
	if (!log)
		return;
	CHECK(inodedump_log_count(log) == 3);
	CHECK(inodedump_log_warning(log) == NULL);
	r = inodedump_log_record(log, 0);
	CHECK(r && r->seq == 1008 && r->ts_nsec == 8000000);
	CHECK(r && r->text_len == 34 &&
	      !memcmp(r->text, "Linux version 6.1.0-50-powerpc64le", 34));
	CHECK(r && r->level == 5 && r->facility == 0 && !r->continuation);
	CHECK(r && r->caller_id == 0x80000001u && !r->has_execution_ctx);
	r = inodedump_log_record(log, 1);
	CHECK(r && r->seq == 1010 && r->level == 4 && r->continuation);
	CHECK(r && !strcmp(r->text, "a continuation"));
	r = inodedump_log_record(log, 2);
	CHECK(r && r->seq == 1011 && r->level == 7 && r->facility == 3);
	inodedump_log_free(log);
}

/*
 * caller_id where the source does not put it right after the facility
 * and level byte: those are not guessed, they are unknown.
 */
static void level_elsewhere_is_unknown(void)
{
	struct inodedump_error *err;
	struct inodedump_log *log;
	const struct inodedump_record *r;

	ring_reset(8, 8);
	ring_record(8, 2, "one", 0, 0, 6);
	log = read_log("OFFSET(printk_info.caller_id)",
		       "OFFSET(printk_info.caller_id)=48", &err);
	CHECK(err == NULL);
	if (!log)
		return;
	r = inodedump_log_record(log, 0);
	CHECK(r && !strcmp(r->text, "one"));
	CHECK(r && r->level == INODEDUMP_LEVEL_UNKNOWN &&
	      r->facility == INODEDUMP_LEVEL_UNKNOWN && !r->continuation);
	inodedump_log_free(log);
}

/* Every line the layout needs: without it, an error that names it. */
static void each_missing_line_is_named(void)
{
	static const char *const needed[] = {
		"SIZE(printk_ringbuffer)", "SIZE(prb_desc)", "SIZE(printk_info)",
		"SIZE(atomic_long_t)", "OFFSET(atomic_long_t.counter)",
		"OFFSET(printk_ringbuffer.desc_ring)",
		"OFFSET(printk_ringbuffer.text_data_ring)",
		"OFFSET(prb_desc_ring.count_bits)", "OFFSET(prb_desc_ring.descs)",
		"OFFSET(prb_desc_ring.infos)", "OFFSET(prb_desc_ring.head_id)",
		"OFFSET(prb_desc_ring.tail_id)", "OFFSET(prb_data_ring.size_bits)",
		"OFFSET(prb_data_ring.data)", "OFFSET(prb_desc.state_var)",
		"OFFSET(prb_desc.text_blk_lpos)",
		"OFFSET(prb_data_blk_lpos.begin)",
		"OFFSET(prb_data_blk_lpos.next)", "OFFSET(printk_info.seq)",
		"OFFSET(printk_info.ts_nsec)", "OFFSET(printk_info.text_len)",
		"OFFSET(printk_info.caller_id)",
	};

	ring_reset(8, 8);
	ring_record(8, 2, "one", 0, 0, 6);
	for (size_t i = 0; i < sizeof(needed) / sizeof(needed[0]); i++) {
		struct inodedump_error *err;
		struct inodedump_log *log = read_log(needed[i], NULL, &err);

		CHECKF(!log && err &&
			       strstr(inodedump_error_message(err), needed[i]) &&
			       inodedump_error_code(err) == INODEDUMP_ERR_TYPE,
		       "%s: %s", needed[i],
		       err ? inodedump_error_message(err) : "read");
		inodedump_log_free(log);
		inodedump_error_free(err);
	}
}

/* Values no ring has: refused before anything is read, said why. */
static void absurd_values_are_refused(void)
{
	static const struct {
		const char *key, *line, *says;
	} bad[] = {
		{ "SIZE(printk_info)", "SIZE(printk_info)=1000000",
		  "SIZE(printk_info)=1000000" },
		{ "SIZE(prb_desc)", "SIZE(prb_desc)=0", "SIZE(prb_desc)=0" },
		{ "OFFSET(printk_info.seq)", "OFFSET(printk_info.seq)=100",
		  "printk_info.seq" },
		{ "OFFSET(prb_desc.state_var)",
		  "OFFSET(prb_desc.state_var)=18446744073709551608",
		  "OFFSET(prb_desc.state_var)" },
		{ "OFFSET(printk_ringbuffer.text_data_ring)",
		  "OFFSET(printk_ringbuffer.text_data_ring)=100",
		  "text_data_ring" },
		{ "SIZE(atomic_long_t)", "SIZE(atomic_long_t)=4",
		  "64-bit" },
		{ "OFFSET(printk_info.text_len)",
		  "OFFSET(printk_info.text_len)=0x28", "no number" },
		{ "OFFSET(printk_info.ts_nsec)",
		  "OFFSET(printk_info.ts_nsec)=-8", "no number" },
	};

	ring_reset(8, 8);
	ring_record(8, 2, "one", 0, 0, 6);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct inodedump_error *err;
		struct inodedump_log *log = read_log(bad[i].key, bad[i].line,
						     &err);

		CHECKF(!log && err &&
			       strstr(inodedump_error_message(err), bad[i].says),
		       "%s: %s", bad[i].line,
		       err ? inodedump_error_message(err) : "read");
		inodedump_log_free(log);
		inodedump_error_free(err);
	}
}

/* The ring's own values are checked as with types: a size no ring has. */
static void impossible_ring_is_an_error_at_the_ring(void)
{
	struct inodedump_error *err;
	struct inodedump_log *log;
	uint64_t addr = 0;

	ring_reset(0, 0);
	put(rb + DESC_RING + COUNT, 30, 4);
	log = read_log(NULL, NULL, &err);
	CHECK(log == NULL && err != NULL);
	if (!err)
		return;
	CHECK(inodedump_error_code(err) == INODEDUMP_ERR_DUMP);
	CHECK(inodedump_error_address(err, &addr) && addr == RB_ADDR);
	inodedump_error_free(err);
}

/* What needs types says the session has none; the facts say so too. */
static void decodes_need_types(void)
{
	struct inodedump *id = session(NULL, NULL);
	struct inodedump_inode *ino = NULL;
	struct inodedump_what *w = NULL;
	struct inodedump_error *err;

	err = inodedump_decode(id, 0xffff888004a8e6a0ull, 0, &ino);
	CHECK(err && !ino && inodedump_error_code(err) == INODEDUMP_ERR_VMLINUX &&
	      strstr(inodedump_error_message(err), "no types"));
	inodedump_error_free(err);
	err = inodedump_what(id, 0xffff888004a8e6a0ull, &w);
	CHECK(err && !w && inodedump_error_code(err) == INODEDUMP_ERR_VMLINUX);
	inodedump_error_free(err);
	err = inodedump_prepare(id);
	CHECK(err && inodedump_error_code(err) == INODEDUMP_ERR_VMLINUX);
	inodedump_error_free(err);
	err = inodedump_sweep(id, NULL, NULL, NULL, NULL);
	CHECK(err && inodedump_error_code(err) == INODEDUMP_ERR_VMLINUX);
	inodedump_error_free(err);
	CHECK(inodedump_fact(id, INODEDUMP_FACT_NO_TYPES) != NULL);
	CHECK(inodedump_fact(id, INODEDUMP_FACT_SLAB) == NULL);
	CHECK(inodedump_fact(id, INODEDUMP_FACT_EXCLUDED_BY_KIND) == NULL);
	CHECK(inodedump_fact(id, INODEDUMP_FACT_OSRELEASE) &&
	      !strcmp(inodedump_fact(id, INODEDUMP_FACT_OSRELEASE),
		      "6.1.0-50-powerpc64le"));
	inodedump_close(id);
}

int main(void)
{
	complete_vmcoreinfo_reads_every_record();
	level_elsewhere_is_unknown();
	each_missing_line_is_named();
	absurd_values_are_refused();
	impossible_ring_is_an_error_at_the_ring();
	decodes_need_types();
	return check_summary("printk ring from VMCOREINFO");
}
