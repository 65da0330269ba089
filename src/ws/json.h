/*
 * ws/json.h - JSON output through cJSON with exact integers and
 * valid UTF-8 whatever the file's bytes are.
 */
#ifndef WS_JSON_H
#define WS_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#ifdef __cplusplus
extern "C" {
#endif

/* An integer node printed exactly (cJSON would print through a double). */
cJSON *ws_json_u64(uint64_t v);
cJSON *ws_json_i64(int64_t v);
cJSON *ws_json_add_u64(cJSON *obj, const char *key, uint64_t v);
cJSON *ws_json_add_i64(cJSON *obj, const char *key, int64_t v);
/* A string from untrusted bytes: valid UTF-8 is kept (NUL and all);
 * otherwise invalid bytes become U+FFFD and the raw bytes are added as
 * KEY_hex beside it.  Returns the string node or NULL on OOM. */
cJSON *ws_json_add_bytes(cJSON *obj, const char *key, const char *s, size_t len);
/* A string node from untrusted bytes (U+FFFD for invalid bytes). */
cJSON *ws_json_bytes(const char *s, size_t len);
/* Print obj unformatted and a newline; 0 or -1 (OOM / write error). */
int ws_json_print_line(FILE *f, const cJSON *obj);
/* Parse JSON text as Python's json module writes it: the bare tokens
 * Infinity, -Infinity and NaN are numbers (+inf, -inf, NaN); everything
 * else as strict as cJSON_ParseWithLengthOpts(buf, len, end, false).
 * *end (may be NULL) points into buf: past the value, or at the error. */
cJSON *ws_json_parse_py(const char *buf, size_t len, const char **end);
/* Python's spelling of a non-finite v ("Infinity", "-Infinity", "NaN"),
 * or NULL for a finite one. */
const char *ws_json_nonfinite_name(double v);
/* A count in JSON: a whole number, not negative, below 2^53 (where a
 * double stops being exact).  WS_JSON_COUNT_OK with *out set, or why not. */
enum ws_json_count {
	WS_JSON_COUNT_OK = 0,
	WS_JSON_COUNT_NOT_NUMBER,
	WS_JSON_COUNT_NONFINITE,   /* Python's Infinity, -Infinity, NaN */
	WS_JSON_COUNT_NEGATIVE,
	WS_JSON_COUNT_TOO_LARGE,
	WS_JSON_COUNT_FRACTION,
};
enum ws_json_count ws_json_count(const cJSON *it, uint64_t *out);
/* Replace every non-finite number in tree by Python's spelling of it: as
 * a string node, or (raw) as the bare token.  0, or -1 on OOM. */
int ws_json_nonfinite_spelled(cJSON *tree, bool raw);
/* Make cJSON allocate from an arena, process-wide: for a program that uses
 * cJSON on one thread only (the CLI; another thread aborts).  Call before
 * any cJSON allocation. */
void ws_json_use_arena(void);

#ifdef __cplusplus
}
#endif
#endif
