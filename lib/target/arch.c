// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * target: the architectures whose page walk is ours, one row each (the
 * walk itself is the architecture's file), and which of them a dump is:
 * by the machine its header names, its ELF machine, or the VMCOREINFO
 * keys only one of them writes. Any other architecture is read through
 * libkdumpfile.
 */
#include <elf.h>
#include <string.h>

#include "target/arch.h"
#include "target/target.h"
#include "target/vmcoreinfo.h"

static const struct idd_arch_ops *const arches[] = {
	&idd_x86_64_arch,
	&idd_aarch64_arch,
	&idd_ppc64_arch,
	&idd_s390x_arch,
};
#define NARCHES (sizeof(arches) / sizeof(*arches))

const struct idd_arch_ops *idd_arch_find(const char *name)
{
	for (size_t i = 0; name && i < NARCHES; i++) {
		if (!strcmp(arches[i]->name, name))
			return arches[i];
		for (const char *const *a = arches[i]->aliases; a && *a; a++)
			if (!strcmp(*a, name))
				return arches[i];
	}
	return NULL;
}

const struct idd_arch_ops *idd_arch_of_elf(unsigned machine)
{
	for (size_t i = 0; i < NARCHES; i++)
		if (arches[i]->elf_machine == machine)
			return arches[i];
	return NULL;
}

const struct idd_arch_ops *idd_arch_of_vmcoreinfo(
	const struct idd_vmcoreinfo *info)
{
	const struct idd_arch_ops *found = NULL;

	for (size_t i = 0; info && i < NARCHES; i++) {
		if (!arches[i]->owns_vmcoreinfo(info))
			continue;
		if (found)
			return NULL; /* keys of two: say none */
		found = arches[i];
	}
	return found;
}

const char *idd_target_arch_of_elf(unsigned machine, bool is64)
{
	const struct idd_arch_ops *a = idd_arch_of_elf(machine);

	if (a && (is64 || machine != EM_S390)) /* EM_S390: s390 too */
		return a->name;
	/* The others by libkdumpfile's names, for its own translation. */
	switch (machine) {
	case EM_386: return "ia32";
	case EM_ARM: return "arm";
	case EM_PPC64: return "ppc64";
	case EM_PPC: return "ppc";
	case EM_S390: return is64 ? "s390x" : "s390";
	case EM_IA_64: return "ia64";
	case EM_MIPS: return "mips";
	case EM_ALPHA: return "alpha";
	default: return NULL;
	}
}

unsigned idd_target_arch_elf_machine(const char *name)
{
	const struct idd_arch_ops *a = idd_arch_find(name);

	return a ? a->elf_machine : 0;
}

bool idd_target_same_arch(const char *a, const char *b)
{
	const struct idd_arch_ops *aa = idd_arch_find(a), *bb = idd_arch_find(b);

	if (aa || bb)
		return aa == bb;
	return a && b && !strcmp(a, b);
}
