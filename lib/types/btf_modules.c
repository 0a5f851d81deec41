// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loaded modules' BTF, split on vmlinux's: read from the kernel's
 * btf_modules list the first time a struct is not vmlinux's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "target/target.h"
#include "types/btf_internal.h"

#define MAX_MODULES 4096
#define MODULE_BTF_MAX (16u << 20)

/* A module's BTF bytes, split on vmlinux's (base). */
static struct idd_btf *parse_split(struct idd_btf *base, const void *data,
				   size_t size, const char *module)
{
	char path[64];
	struct idd_btf *m;
	int fd = memfd_create("inodedump-module-btf", MFD_CLOEXEC);
	bool ok = fd >= 0 && write(fd, data, size) == (ssize_t)size;

	if (!ok || !idd_bpf.parse_raw_split) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	m = calloc(1, sizeof(*m));
	if (m)
		m->btf = idd_bpf.parse_raw_split(path, base->btf);
	close(fd);
	if (!m || !m->btf) {
		free(m);
		return NULL;
	}
	m->ntypes = idd_bpf.type_cnt(m->btf);
	m->first_id = base->ntypes;
	m->big_endian = base->big_endian;
	m->size = size;
	snprintf(m->module, sizeof(m->module), "%s", module);
	if (idd_btf_index_build(m)) {
		idd_btf_free(m);
		return NULL;
	}
	return m;
}

void idd_btf_set_source(struct idd_btf *b, struct idd_symbols *syms,
			struct idd_target *t)
{
	b->syms = syms;
	b->target = t;
}

/* A module whose BTF could not be read: counted, the first few said. */
static void unread(struct idd_btf *b, const char *mod, uint64_t at,
		   const struct inodedump_error *err)
{
	char *more;

	if (b->nmods_unread++ >= 3)
		return;
	more = idd_strdup_printf("%s%s%s (its BTF at 0x%llx: %s)",
				 b->mods_unread ? b->mods_unread : "",
				 b->mods_unread ? "; " : "", *mod ? mod : "?",
				 (unsigned long long)at,
				 err ? inodedump_error_message(err)
				     : "not a split BTF of vmlinux's");
	if (more) {
		free(b->mods_unread);
		b->mods_unread = more;
	}
}

/*
 * Every loaded module's BTF, from the kernel's btf_modules list (struct
 * btf_module: the module's struct btf, whose data and data_size are its
 * raw split BTF; struct module's own btf_data is freed after init). Types
 * from vmlinux's BTF. A module that cannot be read is left out.
 */
void idd_btf_load_modules(struct idd_btf *b)
{
	struct idd_struct bm, bt;
	struct idd_member list, btf_m, data, data_size, name;
	uint64_t head, next;
	struct inodedump_error *err = NULL;

	b->mods_tried = true;
	if (!b->syms || !b->target ||
	    !idd_symbols_address(b->syms, "btf_modules", &head))
		return;
	if (!idd_btf_own_struct(b, "btf_module", &bm) ||
	    !idd_btf_own_struct(b, "btf", &bt))
		return;
	idd_btf_types_member(b, &bm, "list", &list);
	idd_btf_types_member(b, &bm, "btf", &btf_m);
	idd_btf_types_member(b, &bt, "data", &data);
	idd_btf_types_member(b, &bt, "data_size", &data_size);
	idd_btf_types_member(b, &bt, "name", &name);
	if (!list.present || !btf_m.present || !data.present ||
	    !data_size.present || bt.size > 4096)
		return;
	if ((err = idd_target_read_u64(b->target, head, &next))) {
		inodedump_error_free(err);
		return;
	}
	for (size_t n = 0; next != head && n < MAX_MODULES; n++) {
		uint8_t sbtf[4096];
		uint64_t at, mbtf = 0, raw, size;
		struct idd_btf *m, **grown;
		char mod[64] = "";
		void *bytes;

		at = next - list.offset;
		/* a link not in the dump ends the list: the rest is not read */
		if ((err = idd_target_read_u64(b->target, next, &next))) {
			inodedump_error_free(err);
			break;
		}
		if ((err = idd_target_read_u64(b->target, at + btf_m.offset,
					       &mbtf)) ||
		    !mbtf || (err = idd_target_read(b->target, mbtf, sbtf, bt.size))) {
			inodedump_error_free(err);
			err = NULL;
			continue;
		}
		raw = idd_member_uval(&data, sbtf);
		size = idd_member_uval(&data_size, sbtf);
		if (name.present)
			memcpy(mod, sbtf + name.offset,
			       name.size < sizeof(mod) ? name.size : sizeof(mod) - 1);
		if (!raw || size < 24 || size > MODULE_BTF_MAX ||
		    !(bytes = malloc(size)))
			continue;
		if ((err = idd_target_read(b->target, raw, bytes, size))) {
			unread(b, mod, raw, err);
			inodedump_error_free(err);
			err = NULL;
			free(bytes);
			continue;
		}
		idd_btf_to_host(bytes, size);
		m = parse_split(b, bytes, size, mod);
		free(bytes);
		if (!m) {
			unread(b, mod, raw, NULL);
			continue;
		}
		grown = realloc(b->mods, (b->nmods + 1) * sizeof(*grown));
		if (!grown) {
			idd_btf_free(m);
			return;
		}
		b->mods = grown;
		b->mods[b->nmods++] = m;
	}
}

const char *idd_btf_module(const struct idd_btf *b)
{
	return b && b->module[0] ? b->module : NULL;
}
