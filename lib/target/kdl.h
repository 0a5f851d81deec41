/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libkdumpfile, loaded when first needed (kdl.c). Include this instead of
 * <libkdumpfile/kdumpfile.h>: its functions are renamed to our loaders,
 * so a run that our own reader serves never loads libkdumpfile and the
 * C++ runtime it brings in (through snappy).
 */
#ifndef INODEDUMP_KDL_H
#define INODEDUMP_KDL_H

#define kdump_new idd_kdl_new
#define kdump_free idd_kdl_free
#define kdump_set_attr idd_kdl_set_attr
#define kdump_get_typed_attr idd_kdl_get_typed_attr
#define kdump_get_err idd_kdl_get_err
#define kdump_read idd_kdl_read
#define kdump_vmcoreinfo_raw idd_kdl_vmcoreinfo_raw
#define kdump_get_addrxlat idd_kdl_get_addrxlat
#define addrxlat_fulladdr_conv idd_kdl_fulladdr_conv
#define addrxlat_ctx_decref idd_kdl_ctx_decref
#define addrxlat_sys_decref idd_kdl_sys_decref

#include <libkdumpfile/kdumpfile.h>

/* NULL when libkdumpfile loads, else why it does not. */
const char *idd_kdl_load_error(void);

#endif
