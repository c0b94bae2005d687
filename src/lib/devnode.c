/*
 * devnode.c: the device numbers prepare and replay give device nodes
 * (the rule and the choice of placeholders are in fstap/devnode.h).
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "fstap/devnode.h"

bool fstap_is_devnode(uint64_t mode)
{
	return S_ISCHR((mode_t)mode) || S_ISBLK((mode_t)mode);
}

uint64_t fstap_devnode_rdev(uint64_t mode, uint64_t rdev, bool devices)
{
	if (devices || !fstap_is_devnode(mode))
		return rdev;
	return S_ISCHR((mode_t)mode) ? makedev(1, 3) : makedev(0, 0);
}
