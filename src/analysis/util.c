/*
 * util.c: small helpers the analysis commands share: time arguments, the
 * "transform" entry of a derived trace's metadata, and opening a trace for
 * reading in time order.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analysis/analysis.h"
#include "fstap/log.h"
#include "fstap/output.h"
#include "fstap/sort.h"
#include "fstap/util.h"

int an_parse_time(const char *s, uint64_t *ns)
{
	static const struct { const char *suffix; double mult; } units[] = {
		{ "", 1 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
		{ "m", 60e9 }, { "min", 60e9 }, { "h", 3600e9 },
	};
	char *end;
	double v;
	size_t i;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (!strcmp(end, units[i].suffix)) {
			double r = v * units[i].mult;

			if (r >= 18446744073709551615.0)
				return -EINVAL;
			*ns = (uint64_t)(r + 0.5);
			return 0;
		}
	}
	return -EINVAL;
}

char *an_metadata_with_transform(const struct fstap_trace_info *info, const char *step_json)
{
	json_t *md = json_loads(info->metadata_json ? info->metadata_json : "{}",
				JSON_ALLOW_NUL, NULL);
	json_t *step = json_loads(step_json, 0, NULL), *list;
	char *text = NULL;

	if (!json_is_object(md)) {
		json_decref(md);
		md = json_object();
	}
	if (!md || !step)
		goto out;
	list = json_object_get(md, "transform");
	if (!json_is_array(list)) {
		json_t *prev = list ? json_incref(list) : NULL;

		list = json_array();
		if (prev)
			json_array_append_new(list, prev);
		json_object_set_new(md, "transform", list);
	}
	json_array_append(list, step);
	text = json_dumps(md, JSON_COMPACT | JSON_PRESERVE_ORDER);
out:
	json_decref(step);
	json_decref(md);
	return text;
}

int an_open_sorted(const char *trace, struct fstap_reader **r, struct fstap_sorter **s)
{
	char *msg = NULL;
	int ret = fstap_reader_open(r, trace, &msg);

	if (ret) {
		fstap_error(ret, "%s", msg ? msg : strerror(-ret));
		free(msg);
		*r = NULL;
		return ret;
	}
	ret = fstap_sorter_new(s, *r, fstap_sort_window_ns(fstap_reader_info(*r)));
	if (ret) {
		fstap_reader_close(*r);
		*r = NULL;
		return fstap_error(ret, "out of memory");
	}
	return 0;
}

int an_cmp_names(const uint8_t *a, uint32_t alen, const uint8_t *b, uint32_t blen)
{
	int c = memcmp(a, b, alen < blen ? alen : blen);

	return c ? c : (alen > blen) - (alen < blen);
}

int an_open_trace_output(const char *out, const char *const *inputs,
			 const struct fstap_trace_info *info, struct fstap_output **dst,
			 struct fstap_writer **w)
{
	int ret;

	*w = NULL;
	if ((ret = fstap_output_open(dst, out, inputs)))
		return ret;
	ret = fstap_writer_open_fd(w, fstap_output_fd(*dst), out, info, 0);
	if (ret)
		fstap_error(ret, "cannot write trace '%s': %s", out, strerror(-ret));
	return ret;
}
