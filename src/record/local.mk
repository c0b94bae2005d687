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

fstap_SOURCES += src/cli/cmd-record.c
# librecord needs libfstap: it comes first, and FSTAP_LIBS again after it.
fstap_LDADD += librecord.a $(FSTAP_LIBS) $(FUSE_LIBS)

