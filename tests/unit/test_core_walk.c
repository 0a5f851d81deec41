// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * core: the bounded-walk set (idd_visit) that stops a corrupt list at its
 * first repeat, and the cleanup guards.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "core/cleanup.h"
#include "core/error.h"
#include "core/walk.h"



/* For loops: count a failure, stay quiet on success. */
#define CHECK_QUIET(err)                                                       \
	do {                                                                   \
		if (err) {                                                     \
			failed++;                                              \
			printf("FAIL %s:%d: %s\n", __FILE__, __LINE__, #err);  \
		}                                                              \
	} while (0)

/* A list a -> b -> c -> a: the walk meets a again after three nodes. */
static void walk_of_a_cycle_stops_at_its_first_repeat(void)
{
	const uint64_t next[][2] = {
		{ 0xffff888000001000, 0xffff888000002000 },
		{ 0xffff888000002000, 0xffff888000003000 },
		{ 0xffff888000003000, 0xffff888000001000 },
	};
	_cleanup_visited_ struct idd_visited seen = { 0 };
	uint64_t node = next[0][0];
	size_t steps = 0;
	bool again = false;

	for (;;) {
		CHECK(idd_visit(&seen, node, &again) == NULL);
		if (again)
			break;
		steps++;
		for (size_t i = 0; i < 3; i++)
			if (next[i][0] == node) {
				node = next[i][1];
				break;
			}
	}
	CHECK(steps == 3);
	CHECK(node == next[0][0]);
}

/* Thousands of distinct nodes (the set grows), then each one again. */
static void every_node_is_new_once_and_seen_after(void)
{
	_cleanup_visited_ struct idd_visited seen = { 0 };
	size_t fresh = 0, repeats = 0;
	bool again;

	for (uint64_t i = 1; i <= 5000; i++) {
		CHECK_QUIET(idd_visit(&seen, i * 0x40, &again));
		fresh += !again;
	}
	for (uint64_t i = 1; i <= 5000; i++) {
		CHECK_QUIET(idd_visit(&seen, i * 0x40, &again));
		repeats += again;
	}
	CHECK(fresh == 5000);
	CHECK(repeats == 5000);
	CHECK(seen.n == 5000);
}

/* A NULL link in a circular list is corruption: it counts as met. */
static void null_link_counts_as_met(void)
{
	_cleanup_visited_ struct idd_visited seen = { 0 };
	bool again = false;

	CHECK(idd_visit(&seen, 0, &again) == NULL);
	CHECK(again);
}

static void freed_set_starts_empty(void)
{
	struct idd_visited seen = { 0 };
	bool again;

	CHECK(idd_visit(&seen, 0x1000, &again) == NULL && !again);
	idd_visited_free(&seen);
	CHECK(seen.slots == NULL && seen.n == 0);
	CHECK(idd_visit(&seen, 0x1000, &again) == NULL && !again);
	idd_visited_free(&seen);
}

static char *take_guarded(void)
{
	_cleanup_free_ char *s = strdup("kept");

	return_ptr(s);
}

/* TAKE_PTR hands the pointer over and leaves NULL for the guard. */
static void take_ptr_moves_ownership(void)
{
	_cleanup_free_ char *s = strdup("x");
	char *moved = TAKE_PTR(s);
	char *kept = take_guarded();

	CHECK(s == NULL);
	CHECK(moved && !strcmp(moved, "x"));
	CHECK(kept && !strcmp(kept, "kept"));
	free(moved);
	free(kept);
}

/* An error that only means "absent" is dropped; out of memory is not. */
static void error_unless_drops_only_its_code(void)
{
	struct inodedump_error *err;

	err = idd_error_unless(idd_error(INODEDUMP_ERR_TYPE, "no struct x"),
			       INODEDUMP_ERR_TYPE);
	CHECK(err == NULL);
	err = idd_error_unless(idd_nomem(), INODEDUMP_ERR_TYPE);
	CHECK(idd_error_is_nomem(err));
	err = idd_error_unless(idd_error_at(INODEDUMP_ERR_FAULT, 0x1000,
					    "not in the dump"),
			       INODEDUMP_ERR_TYPE);
	CHECK(err && inodedump_error_code(err) == INODEDUMP_ERR_FAULT);
	uint64_t addr = 0;
	CHECK(err && inodedump_error_address(err, &addr) && addr == 0x1000);
	inodedump_error_free(err);
	CHECK(idd_error_unless(NULL, INODEDUMP_ERR_TYPE) == NULL);
}

int main(void)
{
	walk_of_a_cycle_stops_at_its_first_repeat();
	every_node_is_new_once_and_seen_after();
	null_link_counts_as_met();
	freed_set_starts_empty();
	take_ptr_moves_ownership();
	error_unless_drops_only_its_code();
	printf("%d checks passed, %d failed\n", passed, failed);
	return failed || !passed;
}
