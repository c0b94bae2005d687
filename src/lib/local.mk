# libfstap: the trace format, its reader and writer, JSON Lines, path
# resolution, logging, the crash handler, safe output files, the stopping of
# a FUSE daemon (stop.h) and the shared pieces (util.h, list.h). Every other part
# links it.
noinst_LIBRARIES += libfstap.a
libfstap_a_SOURCES = \
	include/fstap/ops.h \
	include/fstap/trace.h \
	include/fstap/jsonl.h \
	include/fstap/hex.h \
	include/fstap/pathmap.h \
	include/fstap/sort.h \
	include/fstap/log.h \
	include/fstap/crash.h \
	include/fstap/output.h \
	include/fstap/devnode.h \
	include/fstap/fileattr.h \
	include/fstap/xattr.h \
	include/fstap/util.h \
	include/fstap/list.h \
	include/fstap/name.h \
	include/fstap/state.h \
	include/fstap/stop.h \
	include/fstap/testhook.h \
	src/lib/codec_i.h \
	src/lib/crc32c.c \
	src/lib/ops.c \
	src/lib/chunk_encode.c \
	src/lib/chunk_decode.c \
	src/lib/trace_writer.c \
	src/lib/trace_reader.c \
	src/lib/trace_meta.c \
	src/lib/jsonl_export.c \
	src/lib/jsonl_import.c \
	src/lib/pathmap_i.h \
	src/lib/pathmap.c \
	src/lib/pathmap_table.c \
	src/lib/pathmap_forget.c \
	src/lib/pathmap_kind.c \
	src/lib/trace_sort.c \
	src/lib/rec_pack.c \
	src/lib/log.c \
	src/lib/crash.c \
	src/lib/output.c \
	src/lib/devnode.c \
	src/lib/xattr.c \
	src/lib/fileattr.c \
	src/lib/util.c \
	src/lib/name.c \
	src/lib/state.c \
	src/lib/stop.c \
	src/lib/testhook.c
libfstap_a_CFLAGS = $(AM_CFLAGS) $(UNWIND_CFLAGS)
FSTAP_LIBS = libfstap.a $(JANSSON_LIBS) $(UNWIND_LIBS)
