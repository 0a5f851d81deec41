/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the memory-image fuzzers share: one session over a memory target,
 * opened once with the committed fixture's vmlinux and VMCOREINFO, whose
 * regions are swapped for each input's (see extract_seeds.py for the
 * image format).
 */
#ifndef INODEDUMP_FUZZ_HARNESS_H
#define INODEDUMP_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "decode/session.h"

#define FUZZ_MAX_REGIONS 1024
/* Zero-filled records of one input together: enough for the real ring. */
#define FUZZ_MAX_ZERO_BYTES (4u << 20)

/* The session, opened on first use; aborts if the fixture is missing. */
struct inodedump *fuzz_session(void);

/*
 * Point the session's regions at the records of one input. The data
 * records point into data (which must outlive the use); zero-filled ones
 * are allocated and freed by fuzz_image_release(). Returns the number of
 * regions, and the start of the first in *first (0 when none).
 */
size_t fuzz_image_load(const uint8_t *data, size_t size, uint64_t *first);
void fuzz_image_release(void);

/*
 * Forget what the session learnt from the previous image: the holder walk
 * and the module list are read once per session, but each input is a new
 * memory.
 */
void fuzz_session_reset(void);

/* Build the session's cached layouts over an empty image (decode targets). */
void fuzz_session_warm(void);

/*
 * The decode targets' common steps: load the image and decode the inode at
 * its first record (FORCE | HOLDERS); NULL when there is nothing to decode
 * (the image and session are then already released). fuzz_decode_done()
 * frees the inode and releases both.
 */
struct inodedump_inode *fuzz_decode_image(const uint8_t *data, size_t size);
void fuzz_decode_done(struct inodedump_inode *ino);

/* /dev/null, opened once (or stdout when IDD_FUZZ_VERBOSE is set). */
FILE *fuzz_sink(void);

#endif
