// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * nofutex.so: pthread_once(3) without futex(2), for one thread. The
 * follow73 guest's kernel (tinyconfig) has no CONFIG_FUTEX, and sid's
 * glibc wakes a once-control's waiters with futex(FUTEX_WAKE) each time,
 * which aborts ("The futex facility returned an unexpected error code")
 * before drgn has read anything: preloaded into drgn's python (one
 * thread: OMP_NUM_THREADS=1), it lets drgn run as it would elsewhere.
 * Built shared by recipes/follow73.sh.
 */
#include <pthread.h>

int pthread_once(pthread_once_t *once, void (*init)(void))
{
	if (*once == 2) /* glibc's __PTHREAD_ONCE_DONE */
		return 0;
	*once = 1;
	init();
	*once = 2;
	return 0;
}
