/*
 * ws/kv.h - reading and printing metadata values (ws_kv).
 *
 * A ws_kv points into its file's read-only mapping: GGUF key/values
 * (scalars decoded, strings and arrays left in place, possibly
 * byte-swapped) and safetensors __metadata__ entries (always STRING).
 * Everything here is bounds-checked against kv->data_len, so a ws_kv is
 * safe to walk even if it was filled by hand.
 */
#ifndef WS_KV_H
#define WS_KV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

/* "u8", "i32", "string", "array", ... ("?" when out of range). */
const char *ws_vtype_name(ws_vtype t);

/* Any integer scalar (u8..i64) that is >= 0.  false otherwise (negative,
 * float, bool, string, array). */
bool ws_kv_get_u64(const ws_kv *kv, uint64_t *out);
/* Any integer scalar that fits an int64. */
bool ws_kv_get_i64(const ws_kv *kv, int64_t *out);
/* Any numeric scalar (integers, floats, bool) as a double. */
bool ws_kv_get_f64(const ws_kv *kv, double *out);
/* A STRING value: its bytes (not NUL-terminated) and length. */
bool ws_kv_get_str(const ws_kv *kv, const char **s, size_t *len);

/* One array element.  For a nested array (elements of type ARRAY), `sub`
 * describes it as a ws_kv of type ARRAY that can itself be iterated. */
typedef struct ws_kv_elem {
	ws_vtype type;
	union { uint64_t u; int64_t i; double f; } num; /* scalar, decoded */
	const char *str;   /* STRING: bytes */
	size_t str_len;
	ws_kv sub;         /* ARRAY: the nested array */
} ws_kv_elem;

typedef struct ws_kv_iter {
	const ws_kv *kv;
	uint64_t index;    /* elements returned so far */
	const uint8_t *p, *end;
} ws_kv_iter;

/* Iterate the elements of an ARRAY value in order (handles byte-swapped
 * files).  ws_kv_iter_next returns false at the end or when the bytes do
 * not hold the declared elements. */
void ws_kv_iter_init(ws_kv_iter *it, const ws_kv *kv);
bool ws_kv_iter_next(ws_kv_iter *it, ws_kv_elem *out);

/*
 * The value alone as text (no key, no newline).  Strings are quoted and
 * escaped (ws_fput_escaped).  Unless `full`: arrays are summarized as
 * `[N × type] first, few, …` and long strings are cut with their length.
 */
void ws_kv_print_text(FILE *f, const ws_kv *kv, bool full);
/* The same, strings without quotes (meta --raw): for scripts. */
void ws_kv_print_raw(FILE *f, const ws_kv *kv, bool full);

/* llama.cpp's name of a general.file_type value ("Q5_K_M" for 17), or
 * NULL for a value it does not define. */
const char *ws_gguf_file_type_name(uint64_t v);

/*
 * The value as JSON: integers exact, floats as shortest round-trip
 * numbers (null for NaN/Inf), bools, strings (ws_json_bytes), arrays as
 * JSON arrays; unless `full`, arrays longer than 16 elements become
 * {"type": T, "count": N, "head": [first 8]}.  NULL on OOM.
 */
struct cJSON *ws_kv_to_json(const ws_kv *kv, bool full);

#ifdef __cplusplus
}
#endif
#endif
