// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * log: inodedump_read_log() on a small printk ring built here, in a memory
 * target, with the committed vmlinux's types. Every offset the image uses
 * is found by this test with libdw on its own, never through the library.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "decode/session.h"
#include "log/log.h"
#include "ring_image.h"



/* ---- the ring's layout, from DWARF with libdw alone ---- */

static Dwarf_Die ring_cu;

static bool find_ring_cu(Dwarf *dw)
{
	Dwarf_Off off = 0, next;
	size_t hsize;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		const char *name;

		if (dwarf_offdie(dw, off + hsize, &ring_cu) &&
		    (name = dwarf_diename(&ring_cu)) &&
		    strstr(name, "kernel/printk/printk_ringbuffer.c"))
			return true;
		off = next;
	}
	return false;
}

static bool named_child(Dwarf_Die *parent, int tag, const char *name,
			Dwarf_Die *out)
{
	if (dwarf_child(parent, out) != 0)
		return false;
	do {
		const char *n = dwarf_diename(out);

		if (dwarf_tag(out) == tag && n && !strcmp(n, name) &&
		    !dwarf_hasattr(out, DW_AT_declaration))
			return true;
	} while (dwarf_siblingof(out, out) == 0);
	return false;
}

static void type_of(Dwarf_Die *die, Dwarf_Die *out)
{
	Dwarf_Attribute a;

	*out = *die;
	while (dwarf_attr(out, DW_AT_type, &a) && dwarf_formref_die(&a, out)) {
		int tag = dwarf_tag(out);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type)
			return;
	}
}

/* The offset of a dotted member path in struct name, and its size. */
static uint64_t offset_of(const char *structname, const char *path)
{
	Dwarf_Die agg, m;
	uint64_t total = 0;
	char buf[128], *save = NULL;

	if (!named_child(&ring_cu, DW_TAG_structure_type, structname, &agg)) {
		printf("no struct %s\n", structname);
		exit(1);
	}
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *c = strtok_r(buf, ".", &save); c; c = strtok_r(NULL, ".", &save)) {
		Dwarf_Attribute a;
		Dwarf_Word loc;

		if (!named_child(&agg, DW_TAG_member, c, &m) ||
		    !dwarf_attr(&m, DW_AT_data_member_location, &a) ||
		    dwarf_formudata(&a, &loc) != 0) {
			printf("no member %s.%s\n", structname, path);
			exit(1);
		}
		total += loc;
		type_of(&m, &agg);
	}
	return total;
}

static uint64_t size_of(const char *structname)
{
	Dwarf_Die agg;

	if (!named_child(&ring_cu, DW_TAG_structure_type, structname, &agg))
		exit(1);
	return (uint64_t)dwarf_bytesize(&agg);
}

static int64_t enumerator(const char *name)
{
	Dwarf_Die e, v;

	if (dwarf_child(&ring_cu, &e) == 0) {
		do {
			Dwarf_Attribute a;
			Dwarf_Sword value;

			if (dwarf_tag(&e) == DW_TAG_enumeration_type &&
			    named_child(&e, DW_TAG_enumerator, name, &v) &&
			    dwarf_attr(&v, DW_AT_const_value, &a) &&
			    dwarf_formsdata(&a, &value) == 0)
				return value;
		} while (dwarf_siblingof(&e, &e) == 0);
	}
	printf("no enumerator %s\n", name);
	exit(1);
}

/* ---- the image ---- */


static struct {
	uint64_t rb_size, desc_size, info_size;
	uint64_t count_bits, descs, infos, head_id, tail_id, size_bits, data;
	uint64_t state_var, lpos_begin, lpos_next;
	uint64_t seq, ts_nsec, text_len, caller_id;
	int64_t committed, finalized, reserved;
} L;

static void ring_reset(uint64_t tail, uint64_t head, unsigned count_bits)
{
	ring_clear();
	put(rb + L.count_bits, count_bits, 4);
	put(rb + L.descs, DESCS, 8);
	put(rb + L.infos, INFOS, 8);
	put(rb + L.head_id, head, 8);
	put(rb + L.tail_id, tail, 8);
	put(rb + L.size_bits, SIZE_BITS, 4);
	put(rb + L.data, DATA, 8);
}

/* Record id with text in state (the top two bits of state_var). */
static void ring_record(uint64_t id, int64_t state, const char *text)
{
	size_t idx = id & ((1u << COUNT_BITS) - 1), len = strlen(text);
	uint8_t *desc = descs + idx * L.desc_size;
	uint8_t *info = infos + idx * L.info_size;

	put(desc + L.state_var, ((uint64_t)state << 62) | id, 8);
	put(desc + L.lpos_begin, data_used, 8);
	put(data + data_used, id, 8);
	memcpy(data + data_used + 8, text, len);
	/* Blocks are aligned to the kernel's long (to_blk_size()). */
	data_used = (data_used + 8 + len + 7) & ~(size_t)7;
	put(desc + L.lpos_next, data_used, 8);
	put(info + L.seq, id + 1000, 8);
	put(info + L.ts_nsec, id * 1000000, 8);
	put(info + L.text_len, len, 2);
	put(info + L.caller_id, 95, 4);
}

static struct inodedump *session(void)
{
	static const char info[] = "OSRELEASE=6.12.118\n"
				   "SYMBOL(prb)=ffffffff82000000\n";
	static struct inodedump *id;
	struct idd_target *t;
	struct inodedump_error *err;

	if (id)
		return id;
	err = idd_target_open_memory(ring_regions, N_RING_REGIONS, info,
				     &t);
	if (!err)
		err = idd_open_target(t, getenv("IDD_TEST_VMLINUX"), &id);
	if (err) {
		printf("session: %s\n", inodedump_error_message(err));
		exit(1);
	}
	return id;
}

static void layout_from_dwarf(const char *vmlinux)
{
	int fd = open(vmlinux, O_RDONLY);
	Dwarf *dw = fd >= 0 ? dwarf_begin(fd, DWARF_C_READ) : NULL;

	if (!dw || !find_ring_cu(dw)) {
		printf("no printk_ringbuffer.c unit in %s\n", vmlinux);
		exit(1);
	}
	L.rb_size = size_of("printk_ringbuffer");
	L.desc_size = size_of("prb_desc");
	L.info_size = size_of("printk_info");
	L.count_bits = offset_of("printk_ringbuffer", "desc_ring.count_bits");
	L.descs = offset_of("printk_ringbuffer", "desc_ring.descs");
	L.infos = offset_of("printk_ringbuffer", "desc_ring.infos");
	L.head_id = offset_of("printk_ringbuffer", "desc_ring.head_id.counter");
	L.tail_id = offset_of("printk_ringbuffer", "desc_ring.tail_id.counter");
	L.size_bits = offset_of("printk_ringbuffer", "text_data_ring.size_bits");
	L.data = offset_of("printk_ringbuffer", "text_data_ring.data");
	L.state_var = offset_of("prb_desc", "state_var.counter");
	L.lpos_begin = offset_of("prb_desc", "text_blk_lpos.begin");
	L.lpos_next = offset_of("prb_desc", "text_blk_lpos.next");
	L.seq = offset_of("printk_info", "seq");
	L.ts_nsec = offset_of("printk_info", "ts_nsec");
	L.text_len = offset_of("printk_info", "text_len");
	L.caller_id = offset_of("printk_info", "caller_id");
	L.committed = enumerator("desc_committed");
	L.finalized = enumerator("desc_finalized");
	L.reserved = enumerator("desc_reserved");
	/* The image's arrays must hold what the kernel's types need. */
	if (L.rb_size > sizeof(rb) ||
	    (L.desc_size << COUNT_BITS) > sizeof(descs) ||
	    (L.info_size << COUNT_BITS) > sizeof(infos))
		exit(1);
	dwarf_end(dw);
	close(fd);
}

/* ---- the tests ---- */

static struct inodedump_log *read_log(struct inodedump_error **err)
{
	struct inodedump_log *log = NULL;

	*err = inodedump_read_log(session(), &log);
	return log;
}

/* On the second lap of ids, tail..head, a reserved record skipped. */
static void committed_and_finalized_records_are_read_in_order(void)
{
	struct inodedump_error *err;
	struct inodedump_log *log;
	const struct inodedump_record *r;
	struct inodedump_report *reps = NULL;
	size_t n = 0;

	ring_reset(8, 12, COUNT_BITS);
	ring_record(8, L.finalized, "Linux version 6.12.118");
	ring_record(9, L.finalized, "VFS_WARN_ON_INODE(strlen(link) != linklen) "
		    "encountered for inode ffff888004a8e6a0");
	ring_record(10, L.finalized,
		    "fs tmpfs mode 120777 opflags 0x4c flags 0x0 state 0x0 "
		    "count 2");
	ring_record(11, L.reserved, "being written");
	ring_record(12, L.committed, "WARNING: CPU: 0 PID: 95 at x.c:1 f");
	log = read_log(&err);
	CHECK(err == NULL);
	if (!log)
		return;
	CHECK(inodedump_log_count(log) == 4);
	CHECK(inodedump_log_warning(log) == NULL);
	r = inodedump_log_record(log, 0);
	CHECK(r && r->seq == 1008 && r->ts_nsec == 8000000);
	CHECK(r && r->text_len == 22 && !memcmp(r->text, "Linux version 6.12.118", 22));
	CHECK(r && r->caller_id == 95);
	r = inodedump_log_record(log, 3);
	CHECK(r && r->seq == 1012 && !strcmp(r->text, "WARNING: CPU: 0 PID: 95 at x.c:1 f"));
	CHECK(inodedump_log_record(log, 4) == NULL);
	err = inodedump_find_reports(log, &reps, &n);
	CHECK(err == NULL && n == 1);
	if (n == 1) {
		CHECK(reps[0].format == INODEDUMP_REPORT_6_18);
		CHECK(reps[0].address == 0xffff888004a8e6a0ull);
		CHECK(reps[0].seq == 1009);
		CHECK(!strcmp(reps[0].location, "WARNING: CPU: 0 PID: 95 at x.c:1 f"));
	}
	free(reps);
	inodedump_log_free(log);
}

/* head_id out of reach of tail_id: what was read, and a warning. */
static void unreachable_head_reads_once_around_and_warns(void)
{
	struct inodedump_error *err;
	struct inodedump_log *log;

	ring_reset(8, 8 + 100, COUNT_BITS);
	ring_record(8, L.finalized, "first");
	ring_record(9, L.finalized, "second");
	log = read_log(&err);
	CHECK(err == NULL);
	if (!log)
		return;
	CHECK(inodedump_log_count(log) == 2);
	CHECK(inodedump_log_warning(log) &&
	      strstr(inodedump_log_warning(log), "is corrupt"));
	inodedump_log_free(log);
}

/* A ring whose size no kernel has is an error naming the ring's address. */
static void impossible_ring_size_is_an_error_at_the_ring(void)
{
	struct inodedump_error *err;
	struct inodedump_log *log;
	uint64_t addr = 0;

	ring_reset(0, 0, 30);
	log = read_log(&err);
	CHECK(log == NULL && err != NULL);
	if (!err)
		return;
	CHECK(inodedump_error_code(err) == INODEDUMP_ERR_DUMP);
	CHECK(inodedump_error_address(err, &addr) && addr == RB_ADDR);
	inodedump_error_free(err);
}

int main(void)
{
	const char *vmlinux = getenv("IDD_TEST_VMLINUX");

	if (!vmlinux) {
		printf("IDD_TEST_VMLINUX not set\n");
		return 1;
	}
	layout_from_dwarf(vmlinux);
	committed_and_finalized_records_are_read_in_order();
	unreachable_head_reads_once_around_and_warns();
	impossible_ring_size_is_an_error_at_the_ring();
	inodedump_close(session());
	printf("%d checks passed, %d failed\n", passed, failed);
	return failed || !passed;
}
