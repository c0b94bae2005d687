/*
 * pathmap_forget.c: how a pathmap forgets (pathmap.h has the rules): the
 * handles open on each object, the objects that may have died during a
 * record, the queue of the dead in order of death, and their forgetting
 * once the grace period has passed (the caller told first).
 */
#include <errno.h>
#include <string.h>

#include "lib/pathmap_i.h"

void fstap_pathmap_on_forget(struct fstap_pathmap *pm, void (*fn)(void *arg, uint64_t obj),
			     void *arg)
{
	pm->on_forget = fn;
	pm->forget_arg = arg;
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

	/* a release without its open (a filtered trace) is ignored */
	if (ni != PM_NONE && pm->nodes[ni].open && !--pm->nodes[ni].open)
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

/* Forgets node ni: the caller is told, then its names and the node go. */
static void forget(struct fstap_pathmap *pm, uint32_t ni)
{
	if (pm->on_forget)
		pm->on_forget(pm->forget_arg, pm->nodes[ni].obj);
	pm_drop_names(pm, ni, true);
	pm_remove_node(pm, ni);
}

int pm_bury(struct fstap_pathmap *pm)
{
	while (pm->ndying) {
		uint32_t ni = pm_find_node(pm, pm->dying[--pm->ndying]);

		if (ni == PM_NONE || !dead(pm, ni))
			continue;
		if (pm->head > pm->ngraves / 2 && pm->head > 1024) {
			memmove(pm->graves, pm->graves + pm->head,
				(pm->ngraves - pm->head) * sizeof(*pm->graves));
			pm->ngraves -= pm->head;
			pm->head = 0;
		}
		if (FSTAP_GROW(pm->graves, pm->ngraves + 1, pm->cap_graves))
			return -ENOMEM;
		pm->nodes[ni].died_ns = pm->now_ns + 1;
		pm->graves[pm->ngraves++] = (struct pm_grave){ pm->nodes[ni].obj, pm->now_ns + 1 };
	}
	if (pm->oom) {
		pm->oom = false;
		return -ENOMEM;
	}
	return 0;
}

/*
 * The graves come due in order, long after their objects were last
 * touched: the slot, node and name of those a few ahead are fetched into
 * the cache now, each stage reading what the one before fetched.
 */
#define AHEAD 4		/* graves between the stages */

/* The node grave i's slot home holds, or NULL (a guess: probing may put it further). */
static const struct pm_node *home_node(const struct fstap_pathmap *pm, size_t i)
{
	uint32_t v = pm->by_obj[fstap_id_home(pm->graves[i].obj, pm->nslots - 1)];

	return v && v <= pm->nnodes ? &pm->nodes[v - 1] : NULL;
}

static void fetch_ahead(const struct fstap_pathmap *pm)
{
	size_t i = pm->head + 3 * AHEAD;
	const struct pm_node *nd;

	if (i < pm->ngraves)
		__builtin_prefetch(&pm->by_obj[fstap_id_home(pm->graves[i].obj, pm->nslots - 1)]);
	i -= AHEAD;
	if (i < pm->ngraves && (nd = home_node(pm, i)))
		__builtin_prefetch(nd);
	i -= AHEAD;
	if (i < pm->ngraves && (nd = home_node(pm, i)) && nd->obj == pm->graves[i].obj &&
	    nd->names && nd->names <= pm->nnames)
		__builtin_prefetch(&pm->names[nd->names - 1]);
}

void pm_reap(struct fstap_pathmap *pm)
{
	while (pm->head < pm->ngraves &&
	       pm->graves[pm->head].died_ns - 1 + FSTAP_PATHMAP_GRACE_NS <= pm->now_ns) {
		const struct pm_grave *g;
		uint32_t ni;

		fetch_ahead(pm);
		g = &pm->graves[pm->head++];
		ni = pm_find_node(pm, g->obj);

		if (ni != PM_NONE && pm->nodes[ni].died_ns == g->died_ns && dead(pm, ni))
			forget(pm, ni);
	}
	if (pm->head == pm->ngraves)
		pm->head = pm->ngraves = 0;
}
