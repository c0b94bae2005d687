/*
 * syncw.c: which FSYNC and FDATASYNC requests the kernel makes on its own.
 *
 * A write() to a file opened with O_SYNC (O_DSYNC), or a pwritev2() with
 * RWF_SYNC (RWF_DSYNC), is turned by the kernel into the call's WRITE
 * requests followed by an FSYNC (FDATASYNC) request of the same thread on
 * the same handle (generic_write_sync), which the application did not ask
 * for: its O_SYNC open already stands for it. Each WRITE carries the
 * flags of that write (fuse_write_in.flags), so a WRITE with O_DSYNC set
 * arms its thread's slot with the handle and the sync it announces; the
 * thread's next request takes the slot: the FSYNC (FDATASYNC) of that
 * handle is the kernel's, anything else disarms it. The handlers arm and
 * take before they reply: the thread's next request, which may be served
 * by another daemon thread, comes only after the reply. Only where the kernel
 * does sync after the write: not for FOPEN_DIRECT_IO opens (--cache=direct),
 * whose writes go straight to the daemon, and not for writeback writes
 * (--cache=kernel), which are no thread's.
 *
 * One 64-bit slot per thread id (PID_LIMIT of them, a sparse mapping:
 * only the pages of the thread ids in use are ever touched); a thread only
 * touches its own slot, so no lock.
 *
 * Not here: the recording of the requests (rec_ops.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "record/record_i.h"

#define SYNCW_TIDS 4194304u	/* PID_MAX_LIMIT on 64-bit Linux */

struct rec_syncw {
	_Atomic uint64_t *slot;	/* tid -> handle id << 2 | datasync << 1 | 1, 0: none */
};

int rec_syncw_new(struct rec_syncw **out)
{
	struct rec_syncw *w = calloc(1, sizeof(*w));
	void *p;

	if (!w)
		return -ENOMEM;
	p = mmap(NULL, SYNCW_TIDS * sizeof(uint64_t), PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED) {
		free(w);
		return -ENOMEM;
	}
	w->slot = p;
	*out = w;
	return 0;
}

void rec_syncw_free(struct rec_syncw *w)
{
	if (!w)
		return;
	munmap((void *)w->slot, SYNCW_TIDS * sizeof(uint64_t));
	free(w);
}

static uint64_t slot_key(uint64_t fh_id, bool datasync)
{
	return fh_id << 2 | (uint64_t)datasync << 1 | 1;
}

void rec_syncw_wrote(struct rec_syncw *w, uint32_t tid, uint64_t fh_id, int write_flags)
{
	if (!w || tid == 0 || tid >= SYNCW_TIDS || !(write_flags & O_DSYNC))
		return;
	/* O_SYNC has the O_DSYNC bit too; only O_SYNC itself syncs the metadata */
	atomic_store_explicit(&w->slot[tid],
			      slot_key(fh_id, (write_flags & O_SYNC) != O_SYNC),
			      memory_order_release);
}

bool rec_syncw_take(struct rec_syncw *w, uint32_t tid, unsigned op, uint64_t fh_id)
{
	uint64_t v;

	if (!w || tid == 0 || tid >= SYNCW_TIDS)
		return false;
	v = atomic_load_explicit(&w->slot[tid], memory_order_acquire);
	if (!v || op == FSTAP_OP_WRITE)
		return false;	/* the parts of a write() the kernel split keep it armed */
	atomic_store_explicit(&w->slot[tid], 0, memory_order_release);
	if (op != FSTAP_OP_FSYNC && op != FSTAP_OP_FDATASYNC)
		return false;
	return v == slot_key(fh_id, op == FSTAP_OP_FDATASYNC);
}
