// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The member table (lib/kernel/members.def) as the views rely on it: every
 * JSON key is an identifier the writer may put out as it is (json.h) and
 * names one row only; every row that a view shows has a label.
 */
#include <ctype.h>
#include <string.h>

#include "check.h"
#include "decode/inode.h"
#include "kernel/vfs.h"

static bool identifier(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) &&
		    *s != '_')
			return false;
	return true;
}

int main(void)
{
	for (size_t i = 0; i < IDD_NROWS; i++) {
		const struct idd_row *row = &idd_rows[i];

		CHECKF(row->field && identifier(row->field), "row %zu", i);
		if (!row->key)
			continue;
		CHECKF(identifier(row->key), "row %s: key \"%s\"", row->field,
		       row->key);
		for (size_t k = 0; k < i; k++)
			CHECKF(!idd_rows[k].key ||
				       strcmp(idd_rows[k].key, row->key),
			       "rows %s and %s share the key \"%s\"",
			       idd_rows[k].field, row->field, row->key);
		CHECKF(row->label != NULL, "row %s has no label", row->field);
	}
	/* The sweep's by_type keys are the inode type names. */
	for (int t = 0; t < INODEDUMP_INODE_TYPES; t++)
		CHECKF(identifier(inodedump_inode_type_name(
			       (enum inodedump_inode_type)t)),
		       "type %d", t);
	return check_summary("test_member_table");
}
