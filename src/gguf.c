/*
 * gguf.c - the GGUF reader (v2, v3; little- and big-endian; split sets).
 *
 * Layout (research/gguf.md (a)); every field byte-swapped in a big-endian
 * file, which keeps the magic and is recognised by (version & 0xFFFF) == 0:
 *   1. magic "GGUF"                     4 bytes
 *   2. version                          u32 (2 or 3)
 *   3. tensor_count, kv_count           u64, u64
 *   4. kv_count × {key: string, type: u32, value}
 *      string = u64 length + bytes; array = elem type u32, count u64, elems
 *   5. tensor_count × {name: string, n_dims: u32, ne[n_dims]: u64 (inner
 *      first), ggml type: u32, offset: u64 (relative to the data section)}
 *   6. zero padding to general.alignment (default 32), then tensor data.
 *
 * The whole file is mapped; the parser walks it with a bounds-checked
 * reader and keeps pointers into the mapping for strings and arrays.  The
 * structural rules are ggml's gguf_init_from_file rules plus a check that
 * every tensor's data lies inside the file, plus the limits the GGUF
 * specification states and ggml does not enforce (a name over 64 bytes, an
 * alignment that is not a multiple of 8, a bool other than 0 or 1).  What
 * the format allows but llama.cpp refuses (nested arrays, 64-byte names,
 * alignment not a power of two, n_dims over ggml's 4) is an error-level
 * "loader-incompatible" finding, not a failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "internal.h"
#include "ws/kv.h"
#include "ws/util.h"

#define GGUF_MAX_STRING (1ull << 30)  /* ggml GGUF_MAX_STRING_LENGTH */
#define GGUF_MAX_ARRAY (1ull << 30)   /* ggml GGUF_MAX_ARRAY_ELEMENTS */
#define GGUF_MAX_DIMS 4               /* ggml GGML_MAX_DIMS (llama.cpp's limit) */
#define GGUF_READ_MAX_DIMS 64         /* more is a malformed file (exit 3) */
#define GGUF_MAX_NAME 64              /* the spec: at most 64 bytes; llama.cpp: fewer */
#define GGUF_DEFAULT_ALIGN 32
#define GGUF_MAX_NEST 16              /* our own bound on nested arrays */
/* Smallest possible KV (8-byte key length, 1-byte key, type, 1-byte
 * value) and tensor info (name length, n_dims, type, offset). */
#define MIN_KV_BYTES 14u
#define MIN_TENSOR_BYTES 24u

static const uint8_t scalar_size[WS_V_COUNT] = {
	[WS_V_U8] = 1, [WS_V_I8] = 1, [WS_V_U16] = 2, [WS_V_I16] = 2,
	[WS_V_U32] = 4, [WS_V_I32] = 4, [WS_V_F32] = 4, [WS_V_BOOL] = 1,
	[WS_V_U64] = 8, [WS_V_I64] = 8, [WS_V_F64] = 8,
};
static const bool scalar_signed[WS_V_COUNT] = {
	[WS_V_I8] = true, [WS_V_I16] = true, [WS_V_I32] = true, [WS_V_I64] = true,
};

/* One file being parsed. */
typedef struct gg {
	ws_model *m;
	ws_error *err;
	const char *path;
	uint32_t fidx;
	const uint8_t *p;
	uint64_t len, off;
	uint64_t size;      /* file size; len < size for a remote prefix */
	bool more;          /* ran past the prefix: fetch more, parse again */
	bool swap;
	uint64_t align;
	ws_strset keys;
} gg;

/* ==== bounded reads ==== */

static uint64_t
raw(const uint8_t *p, unsigned n, bool swap)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[swap ? n - 1 - i : i] << (8 * i);
	return v;
}

/* n bytes wanted at g->off lie past a remote file's fetched prefix but
 * inside the file: not malformed, only not fetched yet. */
static void
past_prefix(gg *g, uint64_t n)
{
	if (g->len < g->size && n <= g->size - g->off)
		g->more = true;
}

static bool
need(gg *g, uint64_t n, const char *what)
{
	if (g->len - g->off >= n)
		return true;
	past_prefix(g, n);
	ws_err_at(g->err, g->path, g->off,
		  "truncated: %s needs %llu bytes but only %llu remain",
		  what, (unsigned long long)n,
		  (unsigned long long)(g->len - g->off));
	g->err->kind = WS_ERRK_TRUNCATED;
	return false;
}

static bool
rd(gg *g, unsigned n, uint64_t *v, const char *what)
{
	if (!need(g, n, what))
		return false;
	*v = raw(g->p + g->off, n, g->swap);
	g->off += n;
	return true;
}

/* Escaped, shortened copy of untrusted bytes for an error message. */
static const char *
esc(char *buf, size_t len, const char *s, size_t n)
{
	char *e = ws_escape_text(s, n > 200 ? 200 : n);
	snprintf(buf, len, "%s%s", e ? e : "?", n > 200 ? "…" : "");
	free(e);
	return buf;
}

static bool
rd_string(gg *g, const uint8_t **s, uint64_t *n, const char *what)
{
	uint64_t at = g->off;
	if (!rd(g, 8, n, what))
		return false;
	if (*n > GGUF_MAX_STRING) {
		ws_err_at(g->err, g->path, at,
			  "%s: string length %llu exceeds the 1 GiB limit",
			  what, (unsigned long long)*n);
		return false;
	}
	if (*n > g->len - g->off) {
		past_prefix(g, *n);
		ws_err_at(g->err, g->path, at,
			  "%s: string of %llu bytes runs past the end of the file (%llu bytes remain)",
			  what, (unsigned long long)*n,
			  (unsigned long long)(g->len - g->off));
		return false;
	}
	*s = g->p + g->off;
	g->off += *n;
	return true;
}

static int
oom(gg *g)
{
	return ws_err_oom(g->err, g->path);
}

/* ==== key/values ==== */

/* The specification: a bool is 1 byte, 0 or 1; "anything else is invalid". */
static int
bad_bool(gg *g, uint64_t at, unsigned byte)
{
	return ws_err_at(g->err, g->path, at, "bool value 0x%02x is neither 0 nor 1", byte);
}

/* Walk an array's elements (after its type and count); sets *nested when
 * arrays hold arrays. */
static bool
skip_array(gg *g, uint64_t at, ws_vtype et, uint64_t count, int depth,
	   bool *nested)
{
	if (count > GGUF_MAX_ARRAY)
		return ws_err_at(g->err, g->path, at,
				 "array of %llu elements exceeds the 2^30 limit",
				 (unsigned long long)count), false;
	if (scalar_size[et]) {
		uint64_t n;
		if (!ws_mul_u64(count, scalar_size[et], &n) || n > g->len - g->off)
			return past_prefix(g, n), ws_err_at(g->err, g->path, at,
					 "array of %llu %s runs past the end of the file",
					 (unsigned long long)count, ws_vtype_name(et)), false;
		for (uint64_t i = 0; et == WS_V_BOOL && i < n; i++)
			if (g->p[g->off + i] > 1)
				return bad_bool(g, g->off + i, g->p[g->off + i]), false;
		g->off += n;
		return true;
	}
	/* Strings take at least 8 bytes, arrays 12: refuse a count the file
	 * cannot hold before walking it. */
	uint64_t min = et == WS_V_STRING ? 8 : 12;
	if (count > (g->size - g->off) / min)
		return ws_err_at(g->err, g->path, at,
				 "array of %llu %s runs past the end of the file",
				 (unsigned long long)count, ws_vtype_name(et)), false;
	if (et == WS_V_ARRAY) {
		*nested = true;
		if (depth >= GGUF_MAX_NEST)
			return ws_err_at(g->err, g->path, at,
					 "arrays nested deeper than %d levels",
					 GGUF_MAX_NEST), false;
	}
	for (uint64_t i = 0; i < count; i++) {
		if (et == WS_V_STRING) {
			const uint8_t *s;
			uint64_t n;
			if (!rd_string(g, &s, &n, "array string"))
				return false;
		} else {
			uint64_t sub_at = g->off, st, sc;
			if (!rd(g, 4, &st, "nested array type") ||
			    !rd(g, 8, &sc, "nested array count"))
				return false;
			if (st >= WS_V_COUNT)
				return ws_err_at(g->err, g->path, sub_at,
						 "nested array has invalid GGUF type %llu",
						 (unsigned long long)st), false;
			if (!skip_array(g, sub_at, (ws_vtype)st, sc, depth + 1, nested))
				return false;
		}
	}
	return true;
}

static bool
key_is(const ws_kv *kv, const char *k)
{
	size_t n = strlen(k);
	return kv->key_len == n && memcmp(kv->key, k, n) == 0;
}

static int
parse_kv(gg *g, uint64_t index)
{
	ws_kv kv = {0};
	const uint8_t *key;
	uint64_t key_len, type, key_at = g->off;
	char kb[1024];

	if (!rd_string(g, &key, &key_len, "key"))
		return -1;
	if (key_len == 0)
		return ws_err_at(g->err, g->path, key_at, "key %llu is empty",
				 (unsigned long long)index);
	if (key_len > UINT32_MAX)
		return ws_err_at(g->err, g->path, key_at, "key of %llu bytes is too long",
				 (unsigned long long)key_len);
	int added = ws_strset_add(&g->keys, (const char *)key, (size_t)key_len);
	if (added < 0)
		return oom(g);
	if (added == 0)
		return ws_err_at(g->err, g->path, key_at, "duplicate key '%s'",
				 esc(kb, sizeof kb, (const char *)key, (size_t)key_len));
	kv.key = (const char *)key;
	kv.key_len = (uint32_t)key_len;
	kv.file = g->fidx;
	kv.swap = g->swap;

	uint64_t type_at = g->off;
	if (!rd(g, 4, &type, "value type"))
		return -1;
	if (type >= WS_V_COUNT)
		return ws_err_at(g->err, g->path, type_at,
				 "key '%s' has invalid GGUF type %llu",
				 esc(kb, sizeof kb, kv.key, kv.key_len),
				 (unsigned long long)type);
	kv.type = (ws_vtype)type;

	uint64_t val_at = g->off;
	if (kv.type == WS_V_STRING) {
		if (!rd_string(g, &kv.data, &kv.data_len, "string value"))
			return -1;
	} else if (kv.type == WS_V_ARRAY) {
		uint64_t et, count;
		bool nested = false;
		if (!rd(g, 4, &et, "array type"))
			return -1;
		if (et >= WS_V_COUNT)
			return ws_err_at(g->err, g->path, val_at,
					 "key '%s' is an array of invalid GGUF type %llu",
					 esc(kb, sizeof kb, kv.key, kv.key_len),
					 (unsigned long long)et);
		if (!rd(g, 8, &count, "array count"))
			return -1;
		kv.arr_type = (ws_vtype)et;
		kv.arr_count = count;
		kv.data = g->p + g->off;
		if (!skip_array(g, val_at, kv.arr_type, count, 1, &nested))
			return -1;
		kv.data_len = (uint64_t)(g->p + g->off - kv.data);
		if (nested &&
		    ws_model_add_finding(g->m, WS_SEV_ERROR, "loader-incompatible",
					 NULL, -1, -1, false, 0, 0,
					 "%s: key '%s' is an array of arrays (llama.cpp refuses nested arrays)",
					 g->path, esc(kb, sizeof kb, kv.key, kv.key_len)) < 0)
			return oom(g);
	} else {
		uint64_t bits;
		unsigned n = scalar_size[kv.type];
		if (!rd(g, n, &bits, "value"))
			return -1;
		if (scalar_signed[kv.type]) {
			if (n < 8 && (bits >> (8 * n - 1)) & 1)
				bits |= ~(uint64_t)0 << (8 * n);
			kv.num.i = (int64_t)bits;
		} else if (kv.type == WS_V_F32) {
			float f;
			uint32_t b = (uint32_t)bits;
			memcpy(&f, &b, 4);
			kv.num.f = f;
		} else if (kv.type == WS_V_F64) {
			memcpy(&kv.num.f, &bits, 8);
		} else {
			if (kv.type == WS_V_BOOL && bits > 1)
				return bad_bool(g, val_at, (unsigned)bits);
			kv.num.u = bits;
		}
	}

	if (key_is(&kv, "general.alignment")) {
		if (kv.type != WS_V_U32)
			return ws_err_at(g->err, g->path, type_at,
					 "general.alignment must be of type u32, not %s",
					 ws_vtype_name(kv.type));
		if (kv.num.u == 0 || kv.num.u % 8)
			return ws_err_at(g->err, g->path, val_at,
					 "general.alignment %llu is not a multiple of 8",
					 (unsigned long long)kv.num.u);
		if ((kv.num.u & (kv.num.u - 1)) != 0 &&
		    ws_model_add_finding(g->m, WS_SEV_ERROR, "loader-incompatible",
					 NULL, -1, -1, false, 0, 0,
					 "%s: general.alignment %llu is not a power of two (llama.cpp refuses it)",
					 g->path, (unsigned long long)kv.num.u) < 0)
			return oom(g);
		g->align = kv.num.u;
	}

	ws_kv *slot = ws_model_push_kv(g->m);
	if (!slot)
		return oom(g);
	*slot = kv;
	return 0;
}

/* ==== tensor infos ==== */

static bool
align_up(uint64_t v, uint64_t a, uint64_t *r)
{
	uint64_t rem = v % a;
	return ws_add_u64(v, rem ? a - rem : 0, r);
}

/* Parse one tensor info.  *expect is the running sum of padded sizes that
 * this tensor's relative offset must equal (ggml's contiguity rule). */
static int
parse_tensor(gg *g, ws_strset *names, uint64_t *expect)
{
	const uint8_t *name;
	uint64_t name_len, nd, type, rel;
	uint64_t name_at = g->off, elements = 1;
	char nb[1024];

	if (!rd_string(g, &name, &name_len, "tensor name"))
		return -1;
	const char *nm = esc(nb, sizeof nb, (const char *)name, (size_t)name_len);
	if (name_len > GGUF_MAX_NAME)
		return ws_err_at(g->err, g->path, name_at,
				 "tensor name '%s' is %llu bytes, over the specification's 64",
				 nm, (unsigned long long)name_len);

	uint64_t nd_at = g->off;
	if (!rd(g, 4, &nd, "n_dims"))
		return -1;
	/* The specification bounds n_dims by nothing but "currently at most
	 * 4, but this may change" (ComfyUI-GGUF stores Wan's and HunyuanVideo's
	 * 5-D patch embeddings): like a safetensors shape, any count whose
	 * dimensions the file holds (8 bytes each, so the shape costs no more
	 * memory than the file's own bytes); over ggml's 4 it is a finding. */
	if (nd > (g->size - g->off) / 8)
		return ws_err_at(g->err, g->path, nd_at,
				 "tensor '%s' has %llu dimensions, more than the rest of the file holds",
				 nm, (unsigned long long)nd);
	/* and a fixed bound besides, so a sparse file of zeros cannot make
	 * each tensor's shape as large as the file */
	if (nd > GGUF_READ_MAX_DIMS)
		return ws_err_at(g->err, g->path, nd_at,
				 "tensor '%s' has %llu dimensions (weightscan reads at most %d)",
				 nm, (unsigned long long)nd, GGUF_READ_MAX_DIMS);
	uint64_t *shape = nd ? ws_model_alloc(g->m, (size_t)nd * sizeof *shape) : NULL;
	if (nd && !shape)
		return oom(g);
	for (uint64_t j = 0; j < nd; j++) {
		uint64_t at = g->off, ne;
		if (!rd(g, 8, &ne, "dimension"))
			return -1;
		if ((int64_t)ne < 0)
			return ws_err_at(g->err, g->path, at,
					 "tensor '%s' has a negative dimension ne[%llu] = %lld",
					 nm, (unsigned long long)j, (long long)(int64_t)ne);
		if (!ws_mul_u64(elements, ne, &elements) || elements > (uint64_t)INT64_MAX)
			return ws_err_at(g->err, g->path, at,
					 "tensor '%s': number of elements overflows int64", nm);
		shape[nd - 1 - j] = ne; /* PyTorch order: outermost first */
	}

	uint64_t type_at = g->off;
	if (!rd(g, 4, &type, "tensor type"))
		return -1;
	ws_dtype dt = type > UINT32_MAX ? WS_DT_INVALID : ws_dtype_from_ggml((uint32_t)type);
	if (dt == WS_DT_INVALID)
		return ws_err_at(g->err, g->path, type_at,
				 "tensor '%s' has invalid ggml type %llu (unknown or removed)",
				 nm, (unsigned long long)type);
	uint32_t block = ws_dtype_get(dt)->block;
	uint64_t ne0 = nd ? shape[nd - 1] : 1;
	if (ne0 % block)
		return ws_err_at(g->err, g->path, nd_at + 4,
				 "tensor '%s': ne[0] = %llu is not a multiple of block size %u of %s",
				 nm, (unsigned long long)ne0, block, ws_dtype_name(dt));
	uint64_t bytes, padded;
	if (!ws_dtype_bytes(dt, elements, &bytes) || !align_up(bytes, g->align, &padded))
		return ws_err_at(g->err, g->path, type_at,
				 "tensor '%s' has a size in bytes that overflows", nm);

	uint64_t off_at = g->off;
	if (!rd(g, 8, &rel, "tensor offset"))
		return -1;
	if (rel != *expect) {
		const char *why = rel % g->align ? "misaligned"
				: rel > *expect ? "a gap before it"
				: "overlaps an earlier tensor or out of order";
		return ws_err_at(g->err, g->path, off_at,
				 "tensor '%s' has offset %llu, expected %llu (%s)",
				 nm, (unsigned long long)rel,
				 (unsigned long long)*expect, why);
	}
	if (!ws_add_u64(*expect, padded, expect))
		return ws_err_at(g->err, g->path, off_at, "data section size overflow");

	int added = ws_strset_add(names, (const char *)name, (size_t)name_len);
	if (added < 0)
		return oom(g);
	if (added == 0)
		return ws_err_at(g->err, g->path, name_at, "duplicate tensor name '%s'", nm);
	if (name_len == GGUF_MAX_NAME &&
	    ws_model_add_finding(g->m, WS_SEV_ERROR, "loader-incompatible", nm,
				 -1, -1, false, 0, 0,
				 "tensor name of %llu bytes (llama.cpp allows at most %d)",
				 (unsigned long long)name_len, GGUF_MAX_NAME - 1) < 0)
		return oom(g);
	if (nd > GGUF_MAX_DIMS &&
	    ws_model_add_finding(g->m, WS_SEV_ERROR, "loader-incompatible", nm,
				 -1, -1, false, 0, 0,
				 "tensor '%s' has %llu dimensions (llama.cpp allows at most %d)",
				 nm, (unsigned long long)nd, GGUF_MAX_DIMS) < 0)
		return oom(g);

	ws_tensor *t = ws_model_push_tensor(g->m);
	if (!t)
		return oom(g);
	t->name = ws_model_strndup(g->m, (const char *)name, (size_t)name_len);
	if (!t->name)
		return oom(g);
	t->name_len = (uint32_t)name_len;
	t->dtype = dt;
	t->ndim = (uint32_t)nd;
	t->shape = shape;
	t->elements = elements;
	t->bytes = bytes;
	t->file = g->fidx;
	t->offset = rel; /* made absolute once the data section is known */
	t->params = elements;
	return 0;
}

/* ==== one file ==== */

/* ComfyUI-GGUF's converter stores an sd1 / sdxl tensor whose rows are
 * not whole quant blocks as rows of 256, its original shape (PyTorch
 * order) in comfy.gguf.orig_shape.NAME, an INT32 array its loader views
 * the tensor as: that is the tensor's logical shape, laid out before the
 * stored one as for an unpacked quantized weight (ws_tensor_logical).  A
 * value that is not such a shape of as many elements is a finding. */
#define ORIG_SHAPE "comfy.gguf.orig_shape."

static int
name_cmp(const void *a, const void *b)
{
	const ws_tensor *x = *(const ws_tensor *const *)a, *y = *(const ws_tensor *const *)b;
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);
	return c ? c : (x->name_len > y->name_len) - (x->name_len < y->name_len);
}

static int
orig_shapes(ws_model *m, uint32_t file, uint64_t first)
{
	const size_t pl = sizeof ORIG_SHAPE - 1;
	bool any = false;
	for (uint64_t i = 0; i < m->n_meta && !any; i++)
		any = m->meta[i].file == file && m->meta[i].key_len > pl && !memcmp(m->meta[i].key, ORIG_SHAPE, pl);
	uint64_t n = m->n_tensors - first;
	if (!any || !n)
		return 0;
	ws_tensor **by = malloc((size_t)n * sizeof *by);
	if (!by)
		return -1;
	for (uint64_t i = 0; i < n; i++)
		by[i] = &m->tensors[first + i];
	qsort(by, (size_t)n, sizeof *by, name_cmp);
	int rc = 0;
	for (uint64_t i = 0; i < m->n_meta && !rc; i++) {
		const ws_kv *kv = &m->meta[i];
		if (kv->file != file || kv->key_len <= pl || memcmp(kv->key, ORIG_SHAPE, pl))
			continue;
		ws_tensor key = {.name = kv->key + pl, .name_len = kv->key_len - (uint32_t)pl}, *kp = &key;
		ws_tensor **hit = bsearch(&kp, by, (size_t)n, sizeof *by, name_cmp);
		uint64_t dims[GGUF_MAX_DIMS], prod = 1;
		bool ok = hit && !(*hit)->logical && kv->type == WS_V_ARRAY && kv->arr_type == WS_V_I32 &&
			  kv->arr_count >= 1 && kv->arr_count <= GGUF_MAX_DIMS;
		for (uint64_t d = 0; ok && d < kv->arr_count; d++) {
			int64_t v = (int32_t)raw(kv->data + 4 * d, 4, kv->swap);
			ok = v > 0 && ws_mul_u64(prod, (uint64_t)v, &prod);
			dims[d] = ok ? (uint64_t)v : 0;
		}
		if (!hit)
			continue;  /* a key of no tensor: nothing to view */
		ws_tensor *t = *hit;
		if (!ok || prod != t->elements) {
			char nb[1024];
			rc = ws_model_add_finding(m, WS_SEV_WARNING, "metadata-mismatch", esc(nb, sizeof nb, t->name, t->name_len),
						  -1, -1, false, 0, 0,
						  "%s%s is not a shape of the tensor's %llu elements (an INT32 array): "
						  "its stored shape is kept", ORIG_SHAPE, nb,
						  (unsigned long long)t->elements) < 0 ? -1 : 0;
			continue;
		}
		uint64_t od = kv->arr_count;
		uint64_t *l = ws_model_alloc(m, (size_t)(od + 1 + t->ndim) * sizeof *l);
		if (!l) {
			rc = -1;
			break;
		}
		memcpy(l, dims, (size_t)od * sizeof *l);
		l[od] = od;
		if (t->ndim)
			memcpy(l + od + 1, t->shape, t->ndim * sizeof *l);
		t->shape = l + od + 1;
		t->logical = true;
	}
	free(by);
	return rc;
}

/* Parse PATH (already the next file of m) into m.  `names` holds the
 * tensor names of earlier parts so duplicates across a split set show. */
static int
load_one(ws_model *m, const char *path, ws_strset *names, ws_error *err)
{
	int idx = ws_model_add_file(m, path, err);
	if (idx < 0)
		return -1;
	return ws_gguf_parse(m, (uint32_t)idx, names, err);
}

int
ws_gguf_load_file(ws_model *m, const char *path, ws_error *err)
{
	ws_strset names = {0};
	m->format = WS_FORMAT_GGUF;
	int rc = load_one(m, path, &names, err);
	ws_strset_free(&names);
	return rc;
}

/* Metadata is parsed from map[0..map_len) (a remote file's fetched
 * prefix); counts and data ranges are checked against the file size. */
int
ws_gguf_parse(ws_model *m, uint32_t idx, ws_strset *names, ws_error *err)
{
	ws_file *f = &m->files[idx];
	gg g = {.m = m, .err = err, .path = f->path, .fidx = idx,
		.p = f->map, .len = f->map ? f->map_len : 0, .size = f->size,
		.align = GGUF_DEFAULT_ALIGN};
	uint64_t version, n_tensors, n_kv, expect = 0;
	int rc = -1;

	if (g.len < 4 || memcmp(g.p, "GGUF", 4) != 0) {
		char mb[64];
		/* an LFS pointer or an error page saved as x.gguf: say so */
		if (ws_sniff(g.path, g.p, g.len, f->size, err))
			return -1;
		ws_err_at(err, g.path, 0, "bad magic %s: not a GGUF file",
			  g.len ? esc(mb, sizeof mb, (const char *)g.p, g.len < 4 ? (size_t)g.len : 4)
				: "(empty file)");
		return -1;
	}
	g.off = 4;
	if (!rd(&g, 4, &version, "version"))
		return -1;
	if ((version & 0xFFFF) == 0 && version) {
		/* Byte-swapped file: re-read every field swapped. */
		g.swap = true;
		version = raw(g.p + 4, 4, true);
	}
	if (version == 0)
		return ws_err_at(err, g.path, 4, "bad GGUF version 0");
	if (version == 1)
		return ws_err_at(err, g.path, 4, "GGUF v1 is not supported (v2 and v3 are)");
	if (version > 3)
		return ws_err_at(err, g.path, 4, "unsupported GGUF version %llu (at most 3)",
				 (unsigned long long)version);
	f->version = (uint32_t)version;
	f->big_endian = g.swap;

	if (!rd(&g, 8, &n_tensors, "tensor count") || !rd(&g, 8, &n_kv, "kv count"))
		return -1;
	/* Counts are checked against the bytes present before anything is
	 * sized by them. */
	uint64_t left = g.size - g.off;
	if (n_tensors > left / MIN_TENSOR_BYTES)
		return ws_err_at(err, g.path, 8,
				 "tensor count %llu cannot fit in the %llu bytes that follow",
				 (unsigned long long)n_tensors, (unsigned long long)left);
	if (n_kv > left / MIN_KV_BYTES ||
	    n_kv * MIN_KV_BYTES + n_tensors * MIN_TENSOR_BYTES > left)
		return ws_err_at(err, g.path, 16,
				 "kv count %llu cannot fit in the %llu bytes that follow",
				 (unsigned long long)n_kv, (unsigned long long)left);

	for (uint64_t i = 0; i < n_kv; i++)
		if (parse_kv(&g, i) < 0)
			goto out;

	uint64_t first = m->n_tensors;
	for (uint64_t i = 0; i < n_tensors; i++)
		if (parse_tensor(&g, names, &expect) < 0)
			goto out;

	f->header_bytes = g.off;
	f->tensor_count = n_tensors;
	/* Zero-tensor files have no data section and are not padded; the
	 * aligned start is still reported, as gguf-py does. */
	if (!align_up(g.off, g.align, &f->data_start)) {
		ws_err_at(err, g.path, g.off, "data section start overflows");
		goto out;
	}
	f->expected_size = n_tensors ? f->data_start : f->size;
	if (n_tensors && f->data_start > f->size)
		f->truncated_at = g.off;
	if (n_tensors && f->data_start > f->size && !m->keep_truncated) {
		ws_err_at(err, g.path, g.off,
			  "data section would start at %llu, past the end of the file (%llu bytes): truncated",
			  (unsigned long long)f->data_start, (unsigned long long)f->size);
		err->kind = WS_ERRK_TRUNCATED;
		goto out;
	}
	for (uint64_t i = first; i < m->n_tensors; i++) {
		ws_tensor *t = &m->tensors[i];
		uint64_t end = 0;
		t->offset += f->data_start;
		bool sums = ws_add_u64(t->offset, t->bytes, &end);
		if (sums && end > f->expected_size)
			f->expected_size = end;
		if (sums && end > f->size && !f->truncated_at)
			f->truncated_at = t->offset;
		if (!sums || (end > f->size && !m->keep_truncated)) {
			char nb[1024];
			ws_err_at(err, g.path, t->offset,
				  "tensor '%s' data [%llu, %llu) extends past the end of the file (%llu bytes): truncated",
				  esc(nb, sizeof nb, t->name, t->name_len),
				  (unsigned long long)t->offset,
				  (unsigned long long)t->offset + t->bytes,
				  (unsigned long long)f->size);
			err->kind = WS_ERRK_TRUNCATED;
			goto out;
		}
	}
	if (orig_shapes(m, idx, first) < 0) {
		oom(&g);
		goto out;
	}
	rc = 0;
out:
	ws_strset_free(&g.keys);
	return rc && g.more ? WS_NEED_MORE : rc;
}

/* ==== split sets ==== */

#define SPLIT_SUFFIX_LEN 20 /* "-00001-of-00003.gguf" */

/* Does path end in -NNNNN-of-MMMMM.gguf?  Sets the prefix length, the
 * part number (1-based) and the part count. */
static bool
split_name(const char *path, size_t *prefix, unsigned *no, unsigned *count)
{
	static const char pat[] = "-#####-of-#####.gguf";
	size_t len = strlen(path);

	if (len <= SPLIT_SUFFIX_LEN)
		return false;
	const char *s = path + len - SPLIT_SUFFIX_LEN;
	unsigned a = 0, b = 0;
	for (size_t i = 0; i < SPLIT_SUFFIX_LEN; i++) {
		if (pat[i] == '#') {
			if (s[i] < '0' || s[i] > '9')
				return false;
			unsigned *d = i < 6 ? &a : &b;
			*d = *d * 10 + (unsigned)(s[i] - '0');
		} else if (s[i] != pat[i]) {
			return false;
		}
	}
	if (a == 0 || b == 0 || a > b)
		return false;
	*prefix = len - SPLIT_SUFFIX_LEN;
	*no = a;
	*count = b;
	return true;
}

/* A split key of file fidx as an integer, or false when absent/not one. */
static bool
split_key(const ws_model *m, uint32_t fidx, const char *key, int64_t *v)
{
	size_t n = strlen(key);
	for (uint64_t i = 0; i < m->n_meta; i++) {
		const ws_kv *kv = &m->meta[i];
		if (kv->file == fidx && kv->key_len == n && memcmp(kv->key, key, n) == 0)
			return ws_kv_get_i64(kv, v);
	}
	return false;
}

static int
mismatch(ws_model *m, ws_error *err, const char *path, bool has_expected,
	 uint64_t expected, uint64_t actual, const char *what)
{
	if (ws_model_add_finding(m, WS_SEV_ERROR, "metadata-mismatch", NULL, -1, -1,
				 has_expected, expected, actual, "%s: %s", path, what) < 0)
		return ws_err_oom(err, path);
	return 0;
}

/* Check split.no / split.count of every part and split.tensors.count of
 * the first against what was loaded; contradictions are findings. */
static int
check_split(ws_model *m, unsigned count, ws_error *err)
{
	char msg[160];

	for (uint32_t i = 0; i < m->n_files; i++) {
		const char *p = m->files[i].path;
		int64_t v = -1;
		bool has = split_key(m, i, "split.no", &v);
		if (!has || v != (int64_t)i) {
			snprintf(msg, sizeof msg, "split.no should be %u for part %u of %u",
				 (unsigned)i, (unsigned)i + 1, count);
			if (mismatch(m, err, p, has, i, (uint64_t)v, msg) < 0)
				return -1;
		}
		has = split_key(m, i, "split.count", &v);
		if (!has || v != (int64_t)count) {
			snprintf(msg, sizeof msg, "split.count should be %u", count);
			if (mismatch(m, err, p, has, count, (uint64_t)v, msg) < 0)
				return -1;
		}
	}
	int64_t v = -1;
	bool has = split_key(m, 0, "split.tensors.count", &v);
	if (!has || v < 0 || (uint64_t)v != m->n_tensors) {
		snprintf(msg, sizeof msg,
			 "split.tensors.count does not match the %llu tensors in the %u parts",
			 (unsigned long long)m->n_tensors, count);
		if (mismatch(m, err, m->files[0].path, has && v >= 0, (uint64_t)v,
			     m->n_tensors, msg) < 0)
			return -1;
	}
	return 0;
}

/* ==== entry point ==== */

static void set_arch(ws_model *m);

int
ws_gguf_finish(ws_model *m, unsigned parts, ws_error *err)
{
	m->format = WS_FORMAT_GGUF;
	if (parts > 1 && check_split(m, parts, err) < 0)
		return -1;
	set_arch(m);
	return 0;
}

static void
set_arch(ws_model *m)
{
	const ws_kv *kv = ws_model_find_kv(m, "general.architecture");
	const char *s;
	size_t n, o = 0;

	if (!kv || !ws_kv_get_str(kv, &s, &n))
		return;
	/* Only a lookup key: keep printable ASCII, cut to fit. */
	for (size_t i = 0; i < n && o + 1 < sizeof m->arch_name; i++)
		m->arch_name[o++] = s[i] > 0x20 && s[i] < 0x7f ? s[i] : '?';
	m->arch_name[o] = '\0';
}

int
ws_gguf_load(ws_model *m, const char *path, ws_error *err)
{
	ws_strset names = {0};
	size_t prefix;
	unsigned no, count;
	int rc = -1;

	m->format = WS_FORMAT_GGUF;
	if (!split_name(path, &prefix, &no, &count)) {
		rc = load_one(m, path, &names, err);
	} else {
		char *part = NULL;
		struct stat st;
		/* Every part must be there before any is parsed. */
		for (unsigned i = 1; i <= count; i++) {
			free(part);
			if (asprintf(&part, "%.*s-%05u-of-%05u.gguf", (int)prefix, path,
				     i, count) < 0) {
				part = NULL;
				ws_err_oom(err, path);
				goto out;
			}
			if (stat(part, &st) != 0) {
				ws_err(err, WS_EXIT_INPUT, part,
				       "split part %u of %u is missing (the set was opened from %s)",
				       i, count, path);
				free(part);
				goto out;
			}
		}
		for (unsigned i = 1; i <= count; i++) {
			free(part);
			if (asprintf(&part, "%.*s-%05u-of-%05u.gguf", (int)prefix, path,
				     i, count) < 0) {
				part = NULL;
				ws_err_oom(err, path);
				goto out;
			}
			if (load_one(m, part, &names, err) < 0) {
				free(part);
				goto out;
			}
		}
		free(part);
		if (check_split(m, count, err) < 0)
			goto out;
		rc = 0;
	}
	if (rc == 0)
		set_arch(m);
out:
	ws_strset_free(&names);
	return rc;
}
