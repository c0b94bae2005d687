# lib-daemon.sh: sourced (bash) by the bench scripts that run a FUSE daemon
# (fstap record, passthrough_ll, LoggedFS) on a mount point.
#
# daemon_stop MOUNTPOINT PID [TENTHS]: unmounts MOUNTPOINT, gives the daemon
# PID (a child of this shell, or empty) up to TENTHS tenths of a second to
# finish (fstap writes its trace's footer then), else stops it by its pid.
daemon_stop() {
	local m=$1 pid=$2 n=${3:-300} i
	mountpoint -q "$m" 2>/dev/null && { fusermount3 -u "$m" 2>/dev/null || umount -l "$m"; }
	[ -n "$pid" ] || return 0
	for i in $(seq "$n"); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && kill "$pid"
	wait "$pid" 2>/dev/null
	return 0
}
