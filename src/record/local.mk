# librecord: the FUSE recording passthrough (fstap record). The inode table
# and descriptor cache, the passthrough operations, the FUSE handlers that
# record them, the per-thread chunks and writer thread, the initial-state
# snapshot, and the session. Links libfstap for the trace format.
noinst_LIBRARIES += librecord.a
librecord_a_SOURCES = \
	src/record/record.h \
	src/record/record_i.h \
	src/record/snapshot_i.h \
	src/record/calibrate_i.h \
	src/record/calibrate.c \
	src/record/inode.c \
	src/record/passthrough.c \
	src/record/passthrough_files.c \
	src/record/passthrough_attrs.c \
	src/record/passthrough_i.h \
	src/record/recbuf.c \
	src/record/snapshot.c \
	src/record/rec_ops_i.h \
	src/record/rec_ops.c \
	src/record/rec_entries.c \
	src/record/rec_files.c \
	src/record/rec_dirs.c \
	src/record/rec_attrs.c \
	src/record/syncw.c \
	src/record/record.c
librecord_a_CFLAGS = $(AM_CFLAGS) $(FUSE_CFLAGS) $(JANSSON_CFLAGS)

fstap_SOURCES += src/cli/cmd-record.c
# librecord needs libfstap: it comes first, and FSTAP_LIBS again after it.
fstap_LDADD += librecord.a $(FSTAP_LIBS) $(FUSE_LIBS)

# Unit test of the passthrough operations on a temporary directory.
check_PROGRAMS += tests/unit/check_passthrough
TESTS += tests/unit/check_passthrough
UNIT_TESTS += tests/unit/check_passthrough
tests_unit_check_passthrough_SOURCES = tests/unit/check_passthrough.c
tests_unit_check_passthrough_CPPFLAGS = $(AM_CPPFLAGS)
tests_unit_check_passthrough_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(FUSE_CFLAGS)
tests_unit_check_passthrough_LDADD = librecord.a $(FSTAP_LIBS) $(FUSE_LIBS) $(CHECK_LIBS)

check_PROGRAMS += tests/unit/check_syncw
TESTS += tests/unit/check_syncw
UNIT_TESTS += tests/unit/check_syncw
tests_unit_check_syncw_SOURCES = tests/unit/check_syncw.c
tests_unit_check_syncw_CPPFLAGS = $(AM_CPPFLAGS)
tests_unit_check_syncw_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS) $(FUSE_CFLAGS)
tests_unit_check_syncw_LDADD = librecord.a $(FSTAP_LIBS) $(FUSE_LIBS) $(CHECK_LIBS)

# Integration tests: real mounts (skip with 77 without /dev/fuse or root,
# fail instead under CI=true).
RECORD_TESTS = \
	tests/integration/t1000-record-basics.sh \
	tests/integration/t1010-record-nonroot.sh \
	tests/integration/t1020-record-load.sh \
	tests/integration/t1030-record-crash.sh \
	tests/integration/t1031-record-crash-hook.sh \
	tests/integration/t1040-record-modes.sh \
	tests/integration/t1050-record-many-files.sh \
	tests/integration/t1060-record-disk-full.sh \
	tests/integration/t1070-record-posix-edges.sh \
	tests/integration/t1080-record-pid-reuse.sh \
	tests/integration/t1090-record-submount.sh \
	tests/integration/t1100-record-ioctl.sh \
	tests/integration/t1110-record-direct-suid.sh \
	tests/integration/t1120-record-kill-random.sh \
	tests/integration/t1130-record-stop.sh \
	tests/integration/t1150-record-xattr-values.sh
TESTS += $(RECORD_TESTS)
EXTRA_DIST += $(RECORD_TESTS) tests/integration/lib-record.sh \
	tests/integration/record-tools.py docs/recording.md bench/record-mdbench.py
