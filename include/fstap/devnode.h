/*
 * devnode.h: the one rule prepare and replay follow for character and
 * block device nodes.
 *
 * A device node in the target directory reaches the device its number
 * names, which may be a disk of the machine the replay runs on. So by
 * default a node is made with the recorded type, mode, owner and times but
 * a device number that reaches no device (fstap_devnode_rdev); stat, chmod,
 * chown, link, rename and unlink on it then behave as recorded, and only an
 * open of it is refused by the replay (counted as a "device" divergence).
 * --devices keeps the recorded numbers.
 *
 * The placeholders: the null device (1:3) for character nodes, whose open,
 * should anything outside the replay open the node, reads nothing and
 * discards what is written; 0:0 for block nodes, a number no block driver
 * is given (block major 0 is reserved and never allocated; see the block
 * list of /proc/devices), whose open fails with ENXIO.
 */
#ifndef FSTAP_DEVNODE_H
#define FSTAP_DEVNODE_H

#include <stdbool.h>
#include <stdint.h>

/* How prepare and replay describe the nodes they made with a placeholder. */
#define FSTAP_DEVNODE_WORDS \
	"with a device number that reaches no device (--devices keeps the recorded ones)"

/* Whether mode (with its file type bits) is a character or block device. */
bool fstap_is_devnode(uint64_t mode);

/*
 * The device number to create a node of mode with: rdev itself for other
 * types or with devices (--devices), else the placeholder of its type.
 */
uint64_t fstap_devnode_rdev(uint64_t mode, uint64_t rdev, bool devices);

#endif
