// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What a session remembers between decodes: the names of operations
 * pointers by address, and the rows of the last superblock decoded.
 */
#include <string.h>

#include "decode/inode.h"
#include "decode/layout.h"
#include "decode/memo.h"

/*
 * Operations tables repeat across inodes: a sweep asks for the same few
 * dozen addresses thousands of times, so answers are remembered.
 */
#define SYM_MEMO_SIZE 1024 /* power of two */

struct sym_memo {
	uint64_t addr;
	char *symbol, *module, *note;
	bool used;
};

static struct sym_memo *memo_slot(struct inodedump *id, uint64_t addr,
				  bool *found)
{
	struct sym_memo *memo;
	size_t slot;

	if (!id->sym_memo)
		id->sym_memo = calloc(SYM_MEMO_SIZE, sizeof(struct sym_memo));
	memo = id->sym_memo;
	slot = (size_t)((addr >> 4) * 0x9e3779b97f4a7c15ull >> 54) &
	       (SYM_MEMO_SIZE - 1);
	for (size_t probe = 0; memo && probe < 8; probe++) {
		struct sym_memo *e = &memo[(slot + probe) & (SYM_MEMO_SIZE - 1)];

		if (!e->used || e->addr == addr) {
			*found = e->used;
			return e;
		}
	}
	*found = false;
	return NULL;
}

bool idd_sym_memo_get(struct inodedump *id, struct inodedump_inode *ino,
		      uint64_t addr, char **symbol, char **module,
		      char **note)
{
	bool found;
	struct sym_memo *e = memo_slot(id, addr, &found);

	if (!found)
		return false;
	*symbol = e->symbol ? idd_arena_strdup(&ino->arena, e->symbol) : NULL;
	*module = e->module ? idd_arena_strdup(&ino->arena, e->module) : NULL;
	*note = e->note ? idd_arena_strdup(&ino->arena, e->note) : NULL;
	return true;
}

void idd_sym_memo_put(struct inodedump *id, uint64_t addr, const char *symbol,
		      const char *module, const char *note)
{
	bool found;
	struct sym_memo *e = memo_slot(id, addr, &found);

	if (!e || found)
		return;
	e->used = true;
	e->addr = addr;
	e->symbol = symbol ? strdup(symbol) : NULL;
	e->module = module ? strdup(module) : NULL;
	e->note = note ? strdup(note) : NULL;
}

void idd_free_sym_memo(struct sym_memo *memo)
{
	for (size_t i = 0; memo && i < SYM_MEMO_SIZE; i++) {
		free(memo[i].symbol);
		free(memo[i].module);
		free(memo[i].note);
	}
	free(memo);
}

/* A copy of one row's value (strings duplicated, names left out). */
static struct inodedump_error *copy_row(struct inodedump_inode *to,
					const struct inodedump_inode *from,
					const struct idd_row *row)
{
	switch (row->kind) {
	case IDD_ROW_SYM:
	case IDD_ROW_ADDR: {
		const struct idd_ptr *f = IDD_ROW_CFIELD(from, row, struct idd_ptr);
		struct idd_ptr *t = IDD_ROW_FIELD(to, row, struct idd_ptr);

		*t = (struct idd_ptr){ f->state, f->addr, NULL, NULL, NULL, NULL };
		if ((f->symbol && !(t->symbol = idd_arena_strdup(&to->arena, f->symbol))) ||
		    (f->module && !(t->module = idd_arena_strdup(&to->arena, f->module))) ||
		    (f->symbol_error &&
		     !(t->symbol_error = idd_arena_strdup(&to->arena, f->symbol_error))) ||
		    (f->symbol_note &&
		     !(t->symbol_note = idd_arena_strdup(&to->arena, f->symbol_note))))
			return idd_nomem();
		return NULL;
	}
	case IDD_ROW_STR: {
		const struct idd_str *f = IDD_ROW_CFIELD(from, row, struct idd_str);
		struct idd_str *t = IDD_ROW_FIELD(to, row, struct idd_str);

		*t = *f;
		t->s = NULL;
		if (f->s && !(t->s = idd_arena_strdup(&to->arena, f->s)))
			return idd_nomem();
		return NULL;
	}
	case IDD_ROW_TIME:
		*IDD_ROW_FIELD(to, row, struct idd_time) =
			*IDD_ROW_CFIELD(from, row, struct idd_time);
		return NULL;
	case IDD_ROW_VIEW:
		return NULL;
	default:
		*IDD_ROW_FIELD(to, row, struct idd_num) =
			*IDD_ROW_CFIELD(from, row, struct idd_num);
		return NULL;
	}
}

struct inodedump_error *idd_copy_sb_rows(const struct inode_layout *l,
					 struct inodedump_inode *to,
					 const struct inodedump_inode *from)
{
	for (size_t k = 0; k < l->sb_rows.n; k++) {
		struct inodedump_error *err;

		err = copy_row(to, from, &idd_rows[l->sb_rows.id[k]]);
		if (err)
			return err;
	}
	return NULL;
}

const struct inodedump_inode *idd_sb_memo_find(const struct inodedump *id,
					       uint64_t sb)
{
	return id->sb_memo.valid && id->sb_memo.addr == sb ? id->sb_memo.rows
							   : NULL;
}

void idd_free_sb_memo(struct sb_memo *m)
{
	inodedump_inode_free(m->rows);
	memset(m, 0, sizeof(*m));
}

/* Inodes of one superblock come in runs: remember the last good one. */
struct inodedump_error *idd_sb_memo_put(struct inodedump *id,
					const struct inodedump_inode *ino)
{
	struct sb_memo *m = &id->sb_memo;
	struct inodedump_error *err;

	/* A memory image may change under us (fuzzers): no memo there. */
	if (idd_target_is_memory(id->target))
		return NULL;
	for (size_t k = 0; k < id->layout->sb_rows.n; k++) {
		size_t i = id->layout->sb_rows.id[k];

		if (id->layout->row[i].m.present &&
		    *idd_row_state(ino, &idd_rows[i]) != IDD_OK)
			return NULL;
	}
	idd_free_sb_memo(m);
	m->rows = calloc(1, sizeof(*m->rows));
	if (!m->rows)
		return idd_nomem();
	err = idd_copy_sb_rows(id->layout, m->rows, ino);
	if (err) {
		idd_free_sb_memo(m);
		return err;
	}
	m->addr = ino->sb.addr;
	m->valid = true;
	return NULL;
}
