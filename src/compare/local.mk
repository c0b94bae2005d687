# src/compare/local.mk: `fstap compare`: the candidate lifecycle, the result
# model and its renderers (libcompare.a) and the command.
noinst_LIBRARIES += libcompare.a
libcompare_a_SOURCES = \
	src/compare/compare.h \
	src/compare/model.c \
	src/compare/stats.h \
	src/compare/stats.c \
	src/compare/verdict.c \
	src/compare/render.c \
	src/compare/lifecycle.c \
	src/compare/disk.c \
	src/compare/device.c \
	src/compare/summary.c \
	src/compare/preflight.c \
	src/compare/session.c \
	src/compare/variant.c

fstap_SOURCES += src/cli/cmd-compare.c
fstap_LDADD += libcompare.a $(FSTAP_LIBS) -lm

