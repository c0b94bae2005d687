# src/disk/local.mk: `fstap disk`: the device models (libdisk.a, pure
# arithmetic), the FUSE daemon that serves an image with their timing, the
# command, and their tests.
noinst_LIBRARIES += libdisk.a
libdisk_a_SOURCES = \
	src/disk/disk.h \
	src/disk/model.c \
	src/disk/raid5.c
libdisk_a_CFLAGS = $(AM_CFLAGS)

# The daemon stops as the recorder does (fstap/stop.h, in libfstap).
noinst_LIBRARIES += libdiskd.a
libdiskd_a_SOURCES = src/disk/daemon.h src/disk/daemon.c
libdiskd_a_CFLAGS = $(AM_CFLAGS) $(FUSE_CFLAGS) $(JANSSON_CFLAGS)

fstap_SOURCES += src/cli/cmd-disk.c
fstap_LDADD += libdiskd.a libdisk.a $(FSTAP_LIBS) $(FUSE_LIBS) -lm

DISK_UNIT_TESTS = tests/unit/check_disk_model
check_PROGRAMS += $(DISK_UNIT_TESTS)
TESTS += $(DISK_UNIT_TESTS)
UNIT_TESTS += $(DISK_UNIT_TESTS)
tests_unit_check_disk_model_SOURCES = tests/unit/check_disk_model.c
tests_unit_check_disk_model_CPPFLAGS = $(AM_CPPFLAGS)
tests_unit_check_disk_model_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
tests_unit_check_disk_model_LDADD = libdisk.a $(CHECK_LIBS) -lm

DISK_TESTS = tests/integration/t4000-disk.sh tests/integration/t4010-compare-disk.sh \
	tests/integration/t4020-seed-spool.sh
TESTS += $(DISK_TESTS)
EXTRA_DIST += $(DISK_TESTS) docs/disk.md tests/integration/spool.py
