/*
 * kv.c - metadata values: typed access, array iteration, text and JSON.
 *
 * Array elements stay in the file's mapping (a 102,400-token vocabulary is
 * never copied); they are decoded one at a time, byte-swapped when the
 * file is big-endian, and every read is checked against kv->data_len.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ws/json.h"
#include "ws/kv.h"
#include "ws/util.h"

enum vkind { K_U, K_S, K_F, K_B, K_STR, K_ARR };

static const struct {
	const char *name;
	uint8_t size;   /* bytes of a scalar; 0 for STRING / ARRAY */
	uint8_t kind;
} vtypes[WS_V_COUNT] = {
	[WS_V_U8] = {"u8", 1, K_U},
	[WS_V_I8] = {"i8", 1, K_S},
	[WS_V_U16] = {"u16", 2, K_U},
	[WS_V_I16] = {"i16", 2, K_S},
	[WS_V_U32] = {"u32", 4, K_U},
	[WS_V_I32] = {"i32", 4, K_S},
	[WS_V_F32] = {"f32", 4, K_F},
	[WS_V_BOOL] = {"bool", 1, K_B},
	[WS_V_STRING] = {"string", 0, K_STR},
	[WS_V_ARRAY] = {"array", 0, K_ARR},
	[WS_V_U64] = {"u64", 8, K_U},
	[WS_V_I64] = {"i64", 8, K_S},
	[WS_V_F64] = {"f64", 8, K_F},
};

#define TEXT_HEAD 5        /* array elements shown in a text summary */
#define TEXT_STR_MAX 200   /* string bytes shown unless --full */
#define TEXT_ELEM_STR_MAX 60
#define JSON_SUMMARY_OVER 16
#define JSON_HEAD 8
#define MAX_NEST 16        /* as in the reader: deeper nesting is refused */

const char *
ws_vtype_name(ws_vtype t)
{
	return (unsigned)t < WS_V_COUNT ? vtypes[t].name : "?";
}

static bool
valid_type(ws_vtype t)
{
	return (unsigned)t < WS_V_COUNT;
}

/* n (1, 2, 4 or 8) bytes little-endian, or big-endian when swap. */
static uint64_t
raw(const uint8_t *p, unsigned n, bool swap)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[swap ? n - 1 - i : i] << (8 * i);
	return v;
}

/* Decode a scalar of type t from raw bits into the num union layout. */
static void
decode(ws_vtype t, uint64_t bits, uint64_t *u, int64_t *i, double *f)
{
	unsigned n = vtypes[t].size;
	switch (vtypes[t].kind) {
	case K_S:
		if (n < 8 && (bits >> (8 * n - 1)) & 1)
			bits |= ~(uint64_t)0 << (8 * n);
		*i = (int64_t)bits;
		break;
	case K_F:
		if (n == 4) {
			float x;
			uint32_t b = (uint32_t)bits;
			memcpy(&x, &b, 4);
			*f = x;
		} else {
			memcpy(f, &bits, 8);
		}
		break;
	default:
		*u = bits;
	}
}

bool
ws_kv_get_u64(const ws_kv *kv, uint64_t *out)
{
	if (!kv || !valid_type(kv->type))
		return false;
	if (vtypes[kv->type].kind == K_U) {
		*out = kv->num.u;
		return true;
	}
	if (vtypes[kv->type].kind == K_S && kv->num.i >= 0) {
		*out = (uint64_t)kv->num.i;
		return true;
	}
	return false;
}

bool
ws_kv_get_i64(const ws_kv *kv, int64_t *out)
{
	if (!kv || !valid_type(kv->type))
		return false;
	if (vtypes[kv->type].kind == K_S) {
		*out = kv->num.i;
		return true;
	}
	if (vtypes[kv->type].kind == K_U && kv->num.u <= (uint64_t)INT64_MAX) {
		*out = (int64_t)kv->num.u;
		return true;
	}
	return false;
}

bool
ws_kv_get_f64(const ws_kv *kv, double *out)
{
	if (!kv || !valid_type(kv->type))
		return false;
	switch (vtypes[kv->type].kind) {
	case K_U:
	case K_B:
		*out = (double)kv->num.u;
		return true;
	case K_S:
		*out = (double)kv->num.i;
		return true;
	case K_F:
		*out = kv->num.f;
		return true;
	default:
		return false;
	}
}

bool
ws_kv_get_str(const ws_kv *kv, const char **s, size_t *len)
{
	if (!kv || kv->type != WS_V_STRING)
		return false;
	*s = (const char *)kv->data;
	*len = (size_t)kv->data_len;
	return true;
}

/* ==== arrays ==== */

/* Bytes spanned by `count` elements of type et at p (at most end), or
 * UINT64_MAX when they do not fit. */
static uint64_t
span(const uint8_t *p, const uint8_t *end, ws_vtype et, uint64_t count,
     bool swap, int depth)
{
	uint64_t left = (uint64_t)(end - p), used = 0;

	if (!valid_type(et) || depth > MAX_NEST)
		return UINT64_MAX;
	if (vtypes[et].size) {
		uint64_t n;
		if (!ws_mul_u64(count, vtypes[et].size, &n) || n > left)
			return UINT64_MAX;
		return n;
	}
	for (uint64_t i = 0; i < count; i++) {
		if (et == WS_V_STRING) {
			if (left - used < 8)
				return UINT64_MAX;
			uint64_t len = raw(p + used, 8, swap);
			used += 8;
			if (len > left - used)
				return UINT64_MAX;
			used += len;
		} else {
			if (left - used < 12)
				return UINT64_MAX;
			ws_vtype st = (ws_vtype)raw(p + used, 4, swap);
			uint64_t sc = raw(p + used + 4, 8, swap);
			used += 12;
			uint64_t s = span(p + used, end, st, sc, swap, depth + 1);
			if (s == UINT64_MAX)
				return UINT64_MAX;
			used += s;
		}
	}
	return used;
}

void
ws_kv_iter_init(ws_kv_iter *it, const ws_kv *kv)
{
	memset(it, 0, sizeof *it);
	it->kv = kv;
	if (kv && kv->type == WS_V_ARRAY && kv->data) {
		it->p = kv->data;
		it->end = kv->data + kv->data_len;
	}
}

bool
ws_kv_iter_next(ws_kv_iter *it, ws_kv_elem *out)
{
	const ws_kv *kv = it->kv;

	if (!it->p || it->index >= kv->arr_count || !valid_type(kv->arr_type))
		return false;
	ws_vtype et = kv->arr_type;
	uint64_t left = (uint64_t)(it->end - it->p);
	memset(out, 0, sizeof *out);
	out->type = et;
	if (vtypes[et].size) {
		if (left < vtypes[et].size)
			return false;
		decode(et, raw(it->p, vtypes[et].size, kv->swap), &out->num.u,
		       &out->num.i, &out->num.f);
		it->p += vtypes[et].size;
	} else if (et == WS_V_STRING) {
		if (left < 8)
			return false;
		uint64_t len = raw(it->p, 8, kv->swap);
		if (len > left - 8)
			return false;
		out->str = (const char *)it->p + 8;
		out->str_len = (size_t)len;
		it->p += 8 + len;
	} else {
		if (left < 12)
			return false;
		ws_kv *s = &out->sub;
		s->key = kv->key;
		s->key_len = kv->key_len;
		s->type = WS_V_ARRAY;
		s->arr_type = (ws_vtype)raw(it->p, 4, kv->swap);
		s->arr_count = raw(it->p + 4, 8, kv->swap);
		s->data = it->p + 12;
		s->data_len = span(s->data, it->end, s->arr_type, s->arr_count,
				   kv->swap, 1);
		s->file = kv->file;
		s->swap = kv->swap;
		if (s->data_len == UINT64_MAX)
			return false;
		it->p = s->data + s->data_len;
	}
	it->index++;
	return true;
}

/* ==== text ==== */

/* Shortest text that reads back as the same float (f32) or double. */
static void
fmt_float(char *buf, size_t len, double v, bool f32)
{
	if (isnan(v)) {
		snprintf(buf, len, "nan");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, v < 0 ? "-inf" : "inf");
		return;
	}
	/* Whole numbers below 2^53 print as integers, not 1e+04. */
	if (ws_is_whole(v) && __builtin_fabs(v) < 0x1p53) {
		snprintf(buf, len, "%.0f", v);
		return;
	}
	for (int prec = 1; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, v);
		double back = strtod(buf, NULL);
		if (f32 ? (float)back == (float)v : back == v)
			return;
	}
}

static void
print_scalar(FILE *f, ws_vtype t, uint64_t u, int64_t i, double d)
{
	char buf[40];

	switch (vtypes[t].kind) {
	case K_U:
		fprintf(f, "%llu", (unsigned long long)u);
		break;
	case K_S:
		fprintf(f, "%lld", (long long)i);
		break;
	case K_B:
		fputs(u ? "true" : "false", f);
		break;
	case K_F:
		fmt_float(buf, sizeof buf, d, t == WS_V_F32);
		fputs(buf, f);
		break;
	default:
		break;
	}
}

/* Quoted, escaped, cut at max bytes (on a UTF-8 boundary) when longer. */
static void
print_str(FILE *f, const char *s, size_t len, size_t max)
{
	size_t n = len;
	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
			n--;
	}
	/* A quote inside is written \" so the value stays unambiguous. */
	fputc('"', f);
	for (size_t a = 0, b; a < n; a = b + 1) {
		const char *q = memchr(s + a, '"', n - a);
		b = q ? (size_t)(q - s) : n;
		ws_fput_escaped(f, s + a, b - a);
		if (q)
			fputs("\\\"", f);
	}
	fputc('"', f);
	if (n < len)
		fprintf(f, "… (%zu bytes)", len);
}

void
ws_kv_print_text(FILE *f, const ws_kv *kv, bool full)
{
	if (!kv || !valid_type(kv->type)) {
		fputs("?", f);
		return;
	}
	if (kv->type == WS_V_STRING) {
		print_str(f, (const char *)kv->data, (size_t)kv->data_len,
			  full ? SIZE_MAX : TEXT_STR_MAX);
		return;
	}
	if (kv->type != WS_V_ARRAY) {
		print_scalar(f, kv->type, kv->num.u, kv->num.i, kv->num.f);
		return;
	}
	fprintf(f, "[%llu × %s]", (unsigned long long)kv->arr_count,
		ws_vtype_name(kv->arr_type));
	ws_kv_iter it;
	ws_kv_elem e;
	ws_kv_iter_init(&it, kv);
	for (uint64_t i = 0; full || i < TEXT_HEAD; i++) {
		if (!ws_kv_iter_next(&it, &e))
			break;
		fputs(i ? ", " : " ", f);
		if (e.type == WS_V_STRING)
			print_str(f, e.str, e.str_len, full ? SIZE_MAX : TEXT_ELEM_STR_MAX);
		else if (e.type == WS_V_ARRAY) {
			fputc('{', f);
			ws_kv_print_text(f, &e.sub, full);
			fputc('}', f);
		} else
			print_scalar(f, e.type, e.num.u, e.num.i, e.num.f);
	}
	if (it.index < kv->arr_count)
		fputs(it.index ? ", …" : " …", f);
}

/* ==== JSON ==== */

static cJSON *
json_float(double v, bool f32)
{
	char buf[40];
	if (!isfinite(v))
		return cJSON_CreateNull();
	fmt_float(buf, sizeof buf, v, f32);
	return cJSON_CreateRaw(buf);
}

static cJSON *
json_scalar(ws_vtype t, uint64_t u, int64_t i, double d)
{
	switch (vtypes[t].kind) {
	case K_U:
		return ws_json_u64(u);
	case K_S:
		return ws_json_i64(i);
	case K_B:
		return cJSON_CreateBool(u != 0);
	case K_F:
		return json_float(d, t == WS_V_F32);
	default:
		return NULL;
	}
}

/* Append up to `max` elements of kv to arr; false on OOM. */
static bool
json_elems(cJSON *arr, const ws_kv *kv, uint64_t max, bool full)
{
	ws_kv_iter it;
	ws_kv_elem e;

	ws_kv_iter_init(&it, kv);
	for (uint64_t i = 0; i < max && ws_kv_iter_next(&it, &e); i++) {
		cJSON *n;
		if (e.type == WS_V_STRING)
			n = ws_json_bytes(e.str, e.str_len);
		else if (e.type == WS_V_ARRAY)
			n = ws_kv_to_json(&e.sub, full);
		else
			n = json_scalar(e.type, e.num.u, e.num.i, e.num.f);
		if (!n)
			return false;
		cJSON_AddItemToArray(arr, n);
	}
	return true;
}

cJSON *
ws_kv_to_json(const ws_kv *kv, bool full)
{
	if (!kv || !valid_type(kv->type))
		return cJSON_CreateNull();
	if (kv->type == WS_V_STRING)
		return ws_json_bytes((const char *)kv->data, (size_t)kv->data_len);
	if (kv->type != WS_V_ARRAY)
		return json_scalar(kv->type, kv->num.u, kv->num.i, kv->num.f);

	if (full || kv->arr_count <= JSON_SUMMARY_OVER) {
		cJSON *arr = cJSON_CreateArray();
		if (arr && !json_elems(arr, kv, UINT64_MAX, full)) {
			cJSON_Delete(arr);
			return NULL;
		}
		return arr;
	}
	cJSON *obj = cJSON_CreateObject();
	cJSON *head = cJSON_CreateArray();
	if (!obj || !head ||
	    !cJSON_AddStringToObject(obj, "type", ws_vtype_name(kv->arr_type)) ||
	    !ws_json_add_u64(obj, "count", kv->arr_count) ||
	    !json_elems(head, kv, JSON_HEAD, full)) {
		cJSON_Delete(obj);
		cJSON_Delete(head);
		return NULL;
	}
	cJSON_AddItemToObject(obj, "head", head);
	return obj;
}

/* llama.cpp's enum llama_ftype: the quantization a GGUF file is said to
 * be made with (general.file_type); the gaps are values it removed. */
static const char *const file_types[] = {
	[0] = "F32", [1] = "F16", [2] = "Q4_0", [3] = "Q4_1", [4] = "Q4_1_SOME_F16",
	[7] = "Q8_0", [8] = "Q5_0", [9] = "Q5_1", [10] = "Q2_K", [11] = "Q3_K_S",
	[12] = "Q3_K_M", [13] = "Q3_K_L", [14] = "Q4_K_S", [15] = "Q4_K_M",
	[16] = "Q5_K_S", [17] = "Q5_K_M", [18] = "Q6_K", [19] = "IQ2_XXS",
	[20] = "IQ2_XS", [21] = "Q2_K_S", [22] = "IQ3_XS", [23] = "IQ3_XXS",
	[24] = "IQ1_S", [25] = "IQ4_NL", [26] = "IQ3_S", [27] = "IQ3_M", [28] = "IQ2_S",
	[29] = "IQ2_M", [30] = "IQ4_XS", [31] = "IQ1_M", [32] = "BF16",
	[33] = "Q4_0_4_4", [34] = "Q4_0_4_8", [35] = "Q4_0_8_8", [36] = "TQ1_0",
	[37] = "TQ2_0", [38] = "MXFP4_MOE",
};

const char *
ws_gguf_file_type_name(uint64_t v)
{
	return v < sizeof file_types / sizeof file_types[0] ? file_types[v] : NULL;
}

void
ws_kv_print_raw(FILE *f, const ws_kv *kv, bool full)
{
	if (kv && kv->type == WS_V_STRING) {
		size_t n = full || kv->data_len <= TEXT_STR_MAX ? (size_t)kv->data_len : TEXT_STR_MAX;
		ws_fput_escaped(f, (const char *)kv->data, n);
		return;
	}
	ws_kv_print_text(f, kv, full);
}
