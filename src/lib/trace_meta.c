/*
 * trace_meta.c: the metadata block's keys that fstap acts on, parsed once
 * into struct fstap_meta (trace.h); everyone else reads the struct, not
 * the JSON.
 */
#include <string.h>

#include <jansson.h>

#include "fstap/trace.h"

/* The integer >= 0 at key of obj in *out; false if there is none. */
static bool ns_value(const json_t *obj, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return false;
	*out = (uint64_t)json_integer_value(v);
	return true;
}

void fstap_meta_parse(const char *metadata_json, struct fstap_meta *m)
{
	json_t *meta = json_loads(metadata_json ? metadata_json : "{}", JSON_ALLOW_NUL, NULL);
	json_t *rec = json_object_get(meta, "recorder");
	json_t *v = json_object_get(rec, "flush_interval_ns");
	json_t *cal = json_object_get(rec, "calibration");
	const char *tool = json_string_value(json_object_get(meta, "tool"));

	memset(m, 0, sizeof(*m));
	m->from_recorder = tool && !strcmp(tool, "fstap record");
	m->flush_interval_ns = json_is_integer(v) && json_integer_value(v) > 0
			       ? (uint64_t)json_integer_value(v) : FSTAP_DEFAULT_FLUSH_NS;
	v = json_object_get(rec, "attr_timeout");
	m->attrs_stale = json_is_number(v) && json_number_value(v) == 0;
	m->syncs_flagged = json_is_true(json_object_get(rec, "sync_writes_flagged")) ||
			   json_is_true(json_object_get(rec, "direct_io")) ||
			   json_is_true(json_object_get(rec, "writeback_cache"));
	m->writeback_cache = json_is_true(json_object_get(rec, "writeback_cache"));
	m->calibrated = ns_value(cal, "meta_round_trip_ns", &m->meta_round_trip_ns);
	if (m->calibrated && !ns_value(cal, "data_round_trip_ns", &m->data_round_trip_ns))
		m->data_round_trip_ns = m->meta_round_trip_ns;
	json_decref(meta);
}
