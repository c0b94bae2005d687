# libimport: fstap import --from=strace: the strace line parser, the
# namespace and initial state of an import (libfstap's state records), and
# the system calls turned into operations.
noinst_LIBRARIES += libimport.a
libimport_a_SOURCES = \
	src/import/strace_i.h \
	src/import/strace_import.h \
	src/import/imp_i.h \
	src/import/strace_parse.c \
	src/import/strace_ns.c \
	src/import/strace_calls_i.h \
	src/import/strace_calls.c \
	src/import/strace_calls_io.c \
	src/import/strace_calls_dir.c \
	src/import/strace_calls_attr.c \
	src/import/strace_proc.c \
	src/import/strace_lines.c \
	src/import/strace_summary.c \
	src/import/strace_import.c
IMPORT_LIBS = libimport.a $(FSTAP_LIBS)

fstap_LDADD += libimport.a


