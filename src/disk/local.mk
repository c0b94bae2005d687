# src/disk/local.mk: `fstap disk`: the device models (libdisk.a, pure
# arithmetic), the FUSE daemon that serves an image with their timing, the
# command.
noinst_LIBRARIES += libdisk.a
libdisk_a_SOURCES = \
	src/disk/disk.h \
	src/disk/model.c \
	src/disk/raid5.c

# The daemon stops as the recorder does (fstap/stop.h, in libfstap).
noinst_LIBRARIES += libdiskd.a
libdiskd_a_SOURCES = src/disk/daemon.h src/disk/daemon.c

fstap_SOURCES += src/cli/cmd-disk.c
fstap_LDADD += libdiskd.a libdisk.a $(FSTAP_LIBS) $(FUSE_LIBS) -lm

