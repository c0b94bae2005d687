/*
 * strace_calls_dir.c: the calls on names of an strace import: getdents64
 * (readdir with its entries), mkdir, unlink, rmdir, rename (with flags),
 * link, symlink and readlink, in all their forms.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fstap/name.h"
#include "fstap/util.h"
#include "import/strace_calls_i.h"

/* ---- directories --------------------------------------------------------- */

static uint32_t dtype_of(struct st_span v)
{
	static const struct { const char *n; uint32_t t; } names[] = {
		{ "DT_UNKNOWN", 0 }, { "DT_FIFO", 1 }, { "DT_CHR", 2 }, { "DT_DIR", 4 },
		{ "DT_BLK", 6 }, { "DT_REG", 8 }, { "DT_LNK", 10 }, { "DT_SOCK", 12 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(names); i++)
		if (strlen(names[i].n) == v.len && !memcmp(names[i].n, v.p, v.len))
			return names[i].t;
	return 0;
}

/*
 * The next item "{...}" at depth 1 of the list "[...]" from *i on (quoted
 * strings kept whole): false when there is none.
 */
static bool next_item(struct st_span list, size_t *i, struct st_span *item)
{
	size_t start;
	int depth = 0;
	bool q = false;

	while (*i < list.len - 1 && list.p[*i] != '{')
		(*i)++;
	if (*i >= list.len - 1)
		return false;
	start = *i;
	for (; *i < list.len - 1; (*i)++) {
		char ch = list.p[*i];

		if (q) {
			if (ch == '\\')
				(*i)++;
			else if (ch == '"')
				q = false;
			continue;
		}
		if (ch == '"')
			q = true;
		else if (ch == '{')
			depth++;
		else if (ch == '}' && --depth == 0)
			break;
	}
	*item = (struct st_span){ list.p + start, *i - start + 1 };
	(*i)++;
	return true;
}

/*
 * The entry of an item {d_ino=, d_off=, d_reclen=, d_type=, d_name=}: its
 * name unescaped at names + *used (*used moved past its NUL), its object
 * (".": the directory; "..": its parent; a name first seen: a new object).
 * 0, -EINVAL or -ENOMEM.
 */
static int dirent_of(struct imp *im, struct imp_ofd *o, struct st_span item, char *names,
		     size_t cap, size_t *used, struct fstap_dirent *d)
{
	char *name = names + *used;
	int64_t ino = 0, off = 0;
	uint64_t obj;
	size_t len;
	bool cut;
	int dots;

	if (st_arg_str(st_field(item, "d_name"), name, cap - *used, &len, &cut) || cut)
		return -EINVAL;
	st_arg_int(st_field(item, "d_ino"), &ino);
	st_arg_int(st_field(item, "d_off"), &off);
	d->name = (struct fstap_bytes){ (const uint8_t *)name, (uint32_t)len };
	d->ino = (uint64_t)ino;
	d->type = dtype_of(st_field(item, "d_type"));
	dots = fstap_name_dots(name, len);
	if (dots == 1)
		obj = o->obj;
	else if (dots == 2)
		obj = ns_parent(im, o->obj);
	else if (!(obj = ns_get(im, o->obj, name)) &&
		 !(obj = ns_new_obj(im, d->type == 4 ? S_IFDIR : 0)))
		return -ENOMEM;
	d->obj = obj;
	o->dir_cookie = (uint64_t)off;
	*used += len + 1;
	return 0;
}

/* The names of a getdents64 result, as entries; *names holds their bytes. */
static int parse_dirents(struct imp *im, struct imp_ofd *o, struct st_span list,
			 struct fstap_dirent **out, uint32_t *n, char **names)
{
	size_t cap = 0, used = 0, i = 1;
	struct fstap_dirent *v = NULL;
	struct st_span item;
	uint32_t cnt = 0;
	char *buf;
	int ret = 0;

	*out = NULL;
	*n = 0;
	*names = NULL;
	if (list.len < 2 || list.p[0] != '[' || list.p[list.len - 1] != ']')
		return -EINVAL;
	buf = malloc(list.len + 1);
	if (!buf)
		return -ENOMEM;
	while (!ret && next_item(list, &i, &item)) {
		if (FSTAP_GROW(v, cnt + 1, cap))
			ret = -ENOMEM;
		else if (!(ret = dirent_of(im, o, item, buf, list.len + 1, &used, &v[cnt])))
			cnt++;
	}
	if (ret) {
		free(v);
		free(buf);
		return ret;
	}
	*out = v;
	*n = cnt;
	*names = buf;
	return 0;
}

int c_getdents(struct imp *im, struct imp_call *c)
{
	struct imp_ofd *o = sc_fd_arg(im, c, 0);
	struct fstap_rec r;
	struct fstap_dirent *ents = NULL;
	char *names = NULL;
	uint64_t cookie;
	int ret = 0;

	if (!o)
		return 0;
	if (!o->dir)
		return sc_unsupported(im, c);
	cookie = o->dir_cookie;
	imp_rec(im, c, FSTAP_OP_READDIR, &r);
	r.obj = o->obj;
	r.fh = o->fh;
	r.offset = cookie;
	r.size = sc_u64_arg(c, 2);
	if (!sc_failed(c) && sc_res_of(c) > 0) {
		if (c->na < 2 || (ret = parse_dirents(im, o, c->a[1], &ents, &r.nentries, &names)))
			return ret == -ENOMEM ? ret : sc_unsupported(im, c);
		r.entries = ents;
		r.result = r.nentries;
	}
	ret = imp_emit(im, &r);
	free(ents);
	free(names);
	return ret;
}

/* mkdir (MKDIR) and mknod (MKNOD: mode with its type, rdev) at (dirarg, patharg). */
static int make_node(struct imp *im, struct imp_call *c, int dirarg, int patharg, unsigned op,
		     uint64_t mode, uint64_t rdev)
{
	struct fstap_rec r;
	struct target t;
	int ret = sc_entry_of(im, c, dirarg, patharg, im->path, false, &t);

	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, op, &r);
	r.obj = t.parent;
	sc_set_name(&r.name, t.leaf);
	r.mode = op == FSTAP_OP_MKDIR ? S_IFDIR | (mode & 07777)
				      : ((mode & S_IFMT) ? mode & S_IFMT : S_IFREG) | (mode & 07777);
	r.rdev = rdev;
	r.umask = c->p->umask;
	if (!sc_failed(c)) {
		r.child = ns_new_obj(im, (uint32_t)(r.mode & S_IFMT));
		if (!r.child)
			return -ENOMEM;
	}
	return imp_emit(im, &r);
}

int c_mkdir(struct imp *im, struct imp_call *c)
{
	return make_node(im, c, -1, 0, FSTAP_OP_MKDIR, sc_u64_arg(c, 1), 0);
}

int c_mkdirat(struct imp *im, struct imp_call *c)
{
	return make_node(im, c, 0, 1, FSTAP_OP_MKDIR, sc_u64_arg(c, 2), 0);
}

/* A device number as strace prints it: "makedev(0x1, 0x3)" or a number. */
static uint64_t dev_arg(struct imp_call *c, int i)
{
	struct st_span a = i < c->na ? c->a[i] : (struct st_span){ "0", 1 }, mm[2];
	int64_t ma = 0, mi = 0;

	if (a.len > 9 && !memcmp(a.p, "makedev(", 8) &&
	    st_split_args((struct st_span){ a.p + 8, a.len - 9 }, mm, 2) == 2) {
		st_arg_int(mm[0], &ma);
		st_arg_int(mm[1], &mi);
		return makedev((unsigned)ma, (unsigned)mi);
	}
	return sc_u64_arg(c, i);
}

int c_mknod(struct imp *im, struct imp_call *c)
{
	return make_node(im, c, -1, 0, FSTAP_OP_MKNOD, sc_flags_arg(c, 1), dev_arg(c, 2));
}

int c_mknodat(struct imp *im, struct imp_call *c)
{
	return make_node(im, c, 0, 1, FSTAP_OP_MKNOD, sc_flags_arg(c, 2), dev_arg(c, 3));
}

static int remove_common(struct imp *im, struct imp_call *c, int dirarg, int patharg, bool dir)
{
	struct fstap_rec r;
	struct target t;
	int ret = sc_entry_of(im, c, dirarg, patharg, im->path, false, &t);

	if (ret)
		return ret < 0 ? ret : 0;
	if (sc_failed(c) && !t.obj && c->l->err == ENOENT)
		return sc_rec_lookup(im, c, t.parent, t.leaf, 0, c->l->result);
	imp_rec(im, c, dir ? FSTAP_OP_RMDIR : FSTAP_OP_UNLINK, &r);
	r.obj = t.parent;
	sc_set_name(&r.name, t.leaf);
	return imp_emit(im, &r);
}

int c_unlink(struct imp *im, struct imp_call *c) { return remove_common(im, c, -1, 0, false); }
int c_rmdir(struct imp *im, struct imp_call *c) { return remove_common(im, c, -1, 0, true); }

int c_unlinkat(struct imp *im, struct imp_call *c)
{
	return remove_common(im, c, 0, 1, sc_flags_arg(c, 2) & AT_REMOVEDIR);
}

static int rename_common(struct imp *im, struct imp_call *c, int od, int op, int nd, int np,
			 uint64_t flags)
{
	struct fstap_rec r;
	struct target s, d;
	char sleaf[NAME_MAX + 1];
	int ret = sc_entry_of(im, c, od, op, im->path, false, &s);

	if (ret)
		return ret < 0 ? ret : 0;
	if (!s.obj && !sc_failed(c) && (ret = sc_learn_leaf(im, c, s.parent, s.leaf, 0, &s.obj)))
		return ret;
	if (sc_failed(c) && !s.obj && c->l->err == ENOENT)
		return sc_rec_lookup(im, c, s.parent, s.leaf, 0, c->l->result);
	memcpy(sleaf, s.leaf, sizeof(sleaf));
	ret = sc_entry_of(im, c, nd, np, im->path2, false, &d);
	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_RENAME, &r);
	r.obj = s.parent;
	sc_set_name(&r.name, sleaf);
	r.newparent = d.parent;
	sc_set_name(&r.newname, d.leaf);
	r.flags_arg = flags;
	return imp_emit(im, &r);
}

int c_rename(struct imp *im, struct imp_call *c)
{
	return rename_common(im, c, -1, 0, -1, 1, 0);
}

int c_renameat(struct imp *im, struct imp_call *c)
{
	return rename_common(im, c, 0, 1, 2, 3, 0);
}

int c_renameat2(struct imp *im, struct imp_call *c)
{
	return rename_common(im, c, 0, 1, 2, 3, sc_flags_arg(c, 4));
}

static int link_common(struct imp *im, struct imp_call *c, int od, int op, int nd, int np)
{
	struct fstap_rec r;
	struct target s, d;
	int ret = sc_target_of(im, c, od, op, &s);

	if (ret)
		return ret < 0 ? ret : 0;
	ret = sc_entry_of(im, c, nd, np, im->path2, false, &d);
	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_LINK, &r);
	r.obj = s.obj;
	r.newparent = d.parent;
	sc_set_name(&r.newname, d.leaf);
	return imp_emit(im, &r);
}

int c_link(struct imp *im, struct imp_call *c) { return link_common(im, c, -1, 0, -1, 1); }
int c_linkat(struct imp *im, struct imp_call *c) { return link_common(im, c, 0, 1, 2, 3); }

static int symlink_common(struct imp *im, struct imp_call *c, int dirarg, int patharg)
{
	char target[PATH_MAX];
	struct fstap_rec r;
	struct target t;
	size_t len;
	bool cut;
	int ret;

	if (st_arg_str(c->a[0], target, sizeof(target), &len, &cut) || cut)
		return sc_unsupported(im, c);
	ret = sc_entry_of(im, c, dirarg, patharg, im->path, false, &t);
	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_SYMLINK, &r);
	r.obj = t.parent;
	sc_set_name(&r.name, t.leaf);
	r.target = (struct fstap_bytes){ (const uint8_t *)target, (uint32_t)len };
	if (!sc_failed(c)) {
		r.child = ns_new_obj(im, S_IFLNK);
		if (!r.child)
			return -ENOMEM;
		im->objs[r.child].target = strdup(target);
	}
	return imp_emit(im, &r);
}

int c_symlink(struct imp *im, struct imp_call *c) { return symlink_common(im, c, -1, 1); }
int c_symlinkat(struct imp *im, struct imp_call *c) { return symlink_common(im, c, 1, 2); }

static int readlink_common(struct imp *im, struct imp_call *c, int dirarg, int patharg)
{
	char target[PATH_MAX];
	struct fstap_rec r;
	struct target t;
	size_t len = 0;
	bool cut = false;
	int ret = sc_target_of(im, c, dirarg, patharg, &t);

	if (ret)
		return ret < 0 ? ret : 0;
	imp_rec(im, c, FSTAP_OP_READLINK, &r);
	r.obj = t.obj;
	if (!sc_failed(c)) {
		const char *known = im->objs[t.obj].target;

		if (patharg + 1 < c->na)
			st_arg_str(c->a[patharg + 1], target, sizeof(target), &len, &cut);
		if ((cut || !len) && known) {
			len = strlen(known);
			memcpy(target, known, len + 1);
		}
		r.target = (struct fstap_bytes){ (const uint8_t *)target, (uint32_t)len };
	}
	return imp_emit(im, &r);
}

int c_readlink(struct imp *im, struct imp_call *c) { return readlink_common(im, c, -1, 0); }
int c_readlinkat(struct imp *im, struct imp_call *c) { return readlink_common(im, c, 0, 1); }
