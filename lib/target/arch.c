// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * target: the architectures whose page walk is ours, one row each (the
 * walk itself is the architecture's file). Any other architecture is
 * read through libkdumpfile.
 */
#include <string.h>

#include "target/arch.h"

static const struct idd_arch_ops *const arches[] = {
	&idd_x86_64_arch,
};

const struct idd_arch_ops *idd_arch_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(arches) / sizeof(*arches); i++)
		if (!strcmp(arches[i]->name, name))
			return arches[i];
	return NULL;
}
