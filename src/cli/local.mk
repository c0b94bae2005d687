# The fstap binary: a thin main with a table of subcommands, one file each.
bin_PROGRAMS += fstap
fstap_SOURCES = \
	src/cli/cmd.h \
	src/cli/fstap.c \
	src/cli/cmd-export.c \
	src/cli/cmd-import.c \
	src/cli/cmd-info.c
fstap_LDADD = $(FSTAP_LIBS)
