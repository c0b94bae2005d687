/*
 * pathmap_forget.c: how a pathmap forgets (pathmap.h has the rules): the
 * handles open on each object, the objects that may have died during a
 * record, the queue of the dead in order of death (linked through their
 * nodes: each is in it once, at its latest death; the caller told of each
 * death), and their forgetting once the grace period has passed (the
 * caller told first).
 */
#include <errno.h>

#include "lib/pathmap_i.h"

void fstap_pathmap_on_forget(struct fstap_pathmap *pm, void (*fn)(void *arg, uint64_t obj),
			     void *arg)
{
	pm->on_forget = fn;
	pm->forget_arg = arg;
}

void fstap_pathmap_on_death(struct fstap_pathmap *pm, void (*fn)(void *arg, uint64_t obj),
			    void *arg)
{
	pm->on_death = fn;
	pm->death_arg = arg;
}

void pm_maybe_dying(struct fstap_pathmap *pm, uint64_t obj)
{
	if (!obj || obj == FSTAP_ROOT_OBJ)
		return;
	if (FSTAP_GROW(pm->dying, pm->ndying + 1, pm->cap_dying)) {
		pm->oom = true;
		return;
	}
	pm->dying[pm->ndying++] = obj;
}

int pm_open_handle(struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t ni;

	if (!obj || obj == FSTAP_ROOT_OBJ)
		return 0;
	if (pm_ensure_room(pm) || (ni = pm_get_node(pm, obj)) == PM_NONE)
		return -ENOMEM;
	if (pm->nodes[ni].open < UINT32_MAX)
		pm->nodes[ni].open++;
	return 0;
}

void pm_close_handle(struct fstap_pathmap *pm, uint64_t obj)
{
	uint32_t ni = obj ? pm_find_node(pm, obj) : PM_NONE;

	if (ni == PM_NONE)
		return;
	pm->found = ni;		/* pm_bury looks it up again */
	/* a release without its open (a filtered trace) is ignored */
	if (pm->nodes[ni].open && !--pm->nodes[ni].open)
		pm_maybe_dying(pm, obj);
}

/*
 * Dead: its last name removed (or none ever known, for a file), no handle
 * open and no name in it; the trace cannot name it again.
 */
static bool dead(const struct fstap_pathmap *pm, uint32_t ni)
{
	const struct pm_node *nd = &pm->nodes[ni];

	if (nd->open || nd->kids)
		return false;
	return nd->names ? !pm->names[nd->names - 1].linked : !nd->dir;
}

/* Forgets node ni (not buried): the caller is told, then its names and the node go. */
static void forget(struct fstap_pathmap *pm, uint32_t ni)
{
	if (pm->on_forget)
		pm->on_forget(pm->forget_arg, pm->nodes[ni].obj);
	pm_drop_names(pm, ni, true);
	pm_remove_node(pm, ni);
}

/* ---- the queue of the dead, linked through their nodes ------------------- */

/* The link (index + 1) that points at nd: its predecessor's, or the queue's first. */
static uint32_t *link_to(struct fstap_pathmap *pm, const struct pm_node *nd)
{
	return nd->grave_prev ? &pm->nodes[nd->grave_prev - 1].grave_next : &pm->grave_first;
}

/* The link back to nd: its successor's, or the queue's last. */
static uint32_t *link_back(struct fstap_pathmap *pm, const struct pm_node *nd)
{
	return nd->grave_next ? &pm->nodes[nd->grave_next - 1].grave_prev : &pm->grave_last;
}

static void unbury(struct fstap_pathmap *pm, uint32_t ni)
{
	struct pm_node *nd = &pm->nodes[ni];

	*link_to(pm, nd) = nd->grave_next;
	*link_back(pm, nd) = nd->grave_prev;
	nd->grave_prev = nd->grave_next = 0;
	nd->buried = false;
}

static void bury(struct fstap_pathmap *pm, uint32_t ni)
{
	struct pm_node *nd = &pm->nodes[ni];

	nd->grave_prev = pm->grave_last;
	nd->grave_next = 0;
	*link_to(pm, nd) = ni + 1;	/* the last one's next, or the first */
	pm->grave_last = ni + 1;
	nd->buried = true;
}

void pm_grave_moved(struct fstap_pathmap *pm, uint32_t to)
{
	const struct pm_node *nd = &pm->nodes[to];

	*link_to(pm, nd) = to + 1;
	*link_back(pm, nd) = to + 1;
}

int pm_bury(struct fstap_pathmap *pm)
{
	while (pm->ndying) {
		uint32_t ni = pm_find_node(pm, pm->dying[--pm->ndying]);
		struct pm_node *nd;

		if (ni == PM_NONE || !dead(pm, ni))
			continue;
		nd = &pm->nodes[ni];
		/* died again: the latest death counts; again at the same time: nothing new */
		if (nd->buried && nd->died_ns == pm->now_ns + 1)
			continue;
		if (nd->buried)
			unbury(pm, ni);
		nd->died_ns = pm->now_ns + 1;
		bury(pm, ni);
		if (pm->on_death)
			pm->on_death(pm->death_arg, nd->obj);
	}
	if (pm->oom) {
		pm->oom = false;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The dead come due in order, long after they were last touched: the
 * node after the next one and the name of the next one are fetched into
 * the cache now.
 */
static void fetch_ahead(const struct fstap_pathmap *pm, const struct pm_node *nd)
{
	const struct pm_node *next;

	if (!nd->grave_next)
		return;
	next = &pm->nodes[nd->grave_next - 1];
	if (next->grave_next)
		__builtin_prefetch(&pm->nodes[next->grave_next - 1]);
	if (next->names)
		__builtin_prefetch(&pm->names[next->names - 1]);
}

void pm_reap(struct fstap_pathmap *pm)
{
	while (pm->grave_first &&
	       pm->nodes[pm->grave_first - 1].died_ns - 1 + FSTAP_PATHMAP_GRACE_NS <= pm->now_ns) {
		uint32_t ni = pm->grave_first - 1;

		fetch_ahead(pm, &pm->nodes[ni]);
		unbury(pm, ni);
		if (dead(pm, ni))
			forget(pm, ni);
	}
}
