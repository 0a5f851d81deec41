// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * VMCOREINFO read strictly (lib/target/target.c, issue 29): what real
 * kernels write is taken (unknown keys, NUL padding after the last
 * newline); a line that breaks the grammar, a key written twice, a text
 * cut short or shifted is left out and said as a problem.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "target/target.h"

static const uint8_t zero[4096];

static struct idd_target *open_text(const char *text)
{
	const struct idd_memory_region r = { 0xffffffff81000000, zero,
					     sizeof(zero) };
	struct idd_target *t = NULL;
	struct inodedump_error *err = idd_target_open_memory(&r, 1, text, &t);

	CHECKF(!err, "%s", err ? inodedump_error_message(err) : "");
	inodedump_error_free(err);
	return t;
}

/* Whether one of t's problems contains what. */
static bool said(struct idd_target *t, const char *what)
{
	for (size_t i = 0; i < idd_target_problems(t); i++)
		if (strstr(idd_target_problem(t, i), what))
			return true;
	return false;
}

static void test_what_kernels_write(void)
{
	struct idd_target *t = open_text(
		"OSRELEASE=7.3.4\nBUILD-ID=0df7\nPAGESIZE=4096\n"
		"SYMBOL(init_uts_ns)=ffffffff982a5140\n"
		"OFFSET(uts_namespace.name)=0\nLENGTH(mem_section)=1\n"
		"NUMBER(phys_base)=-341835776\nCONFIG_X86_PAE=y\n"
		"A_KEY_OF_TOMORROW(x.y)=1\nKERNELOFFSET=16a00000\n");

	CHECKF(idd_target_problems(t) == 0, "%s", idd_target_problem(t, 0));
	CHECK(!strcmp(idd_target_vmcoreinfo(t, "OSRELEASE"), "7.3.4"));
	CHECK(!strcmp(idd_target_vmcoreinfo(t, "A_KEY_OF_TOMORROW(x.y)"), "1"));
	CHECK(idd_target_has_vmcoreinfo(t));
	idd_target_close(t);
}

static void test_malformed_lines(void)
{
	struct idd_target *t = open_text("OSRELEASE=7.3.4\nno equals sign\n"
					 "lower case(=1\nSYMBOL(a b)=2\n"
					 "PAGESIZE=4096\nKERNELOFFSET=1");

	CHECK(said(t, "at byte 16 has no '='"));
	CHECK(said(t, "at byte 31 has no key"));
	CHECK(said(t, "at byte 45 has no key"));
	CHECK(said(t, "does not end with a newline"));
	CHECK(!idd_target_vmcoreinfo(t, "KERNELOFFSET")); /* cut short */
	CHECK(!strcmp(idd_target_vmcoreinfo(t, "PAGESIZE"), "4096"));
	idd_target_close(t);
}

static void test_twice(void)
{
	struct idd_target *t = open_text("OSRELEASE=7.3.4\nPAGESIZE=4096\n"
					 "OSRELEASE=7.3\nOSRELEASE=7.3.4\n");

	CHECK(idd_target_problems(t) == 1);
	CHECK(said(t, "OSRELEASE is written more than once"));
	CHECK(!idd_target_vmcoreinfo(t, "OSRELEASE")); /* no copy trusted */
	CHECK(!strcmp(idd_target_vmcoreinfo(t, "PAGESIZE"), "4096"));
	idd_target_close(t);
}

static void test_shifted(void)
{
	struct idd_target *t = open_text("SRELEASE=7.3.4\nPAGESIZE=4096\n");

	CHECK(said(t, "no OSRELEASE line"));
	CHECK(said(t, "\"SRELEASE=7.3.4\""));
	idd_target_close(t);
	t = open_text("\x01OSRELEASE=7.3.4\nPAGESIZE=4096\n");
	CHECK(said(t, "byte 0x01 at byte 0 is not text"));
	CHECK(!idd_target_vmcoreinfo(t, "OSRELEASE"));
	idd_target_close(t);
}

/* The line a problem quotes is the dump's: no control byte reaches a terminal. */
static void test_quoted_line_is_escaped(void)
{
	struct idd_target *t = open_text("\x1b[2J\\=1\nPAGESIZE=4096\n");

	CHECK(said(t, "no OSRELEASE line"));
	CHECK(said(t, "\"\\x1b[2J\\x5c=1\""));
	for (size_t i = 0; i < idd_target_problems(t); i++)
		CHECKF(!strchr(idd_target_problem(t, i), '\x1b'), "%zu", i);
	idd_target_close(t);
}

static void test_flood_is_bounded(void)
{
	char text[4096];
	size_t n = 0;

	for (int i = 0; i < 100; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n, "bad %d\n", i);
	struct idd_target *t = open_text(text);

	CHECKF(idd_target_problems(t) <= 9, "%zu", idd_target_problems(t));
	CHECK(said(t, "more problems than these"));
	idd_target_close(t);
}

int main(void)
{
	test_what_kernels_write();
	test_malformed_lines();
	test_twice();
	test_shifted();
	test_quoted_line_is_escaped();
	test_flood_is_bounded();
	return check_summary("test_target_vmcoreinfo");
}
