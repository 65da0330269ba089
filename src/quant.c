/*
 * quant.c - logical parameter counts of packed/quantized checkpoints, and
 * bits per weight.
 *
 * Three steps (rules: shared/research/quantized.md):
 *  1. the description: config.json quantization_config, compression_config,
 *     text_config.quantization_config, MLX "quantization", GPTQ
 *     __metadata__ - method, bits, group size;
 *  2. modules: every tensor name splits into a module and a tail
 *     (".qweight", ".scales", "_blocks", ".weight.absmax", ...); a module's
 *     main tensor and its side tensors are found through one hash table;
 *  3. unpacking: per main tail, dtype and siblings, the unpacked [out, in]
 *     (or [E, out, in]) is recovered from the header and the config and
 *     becomes t->params and the logical shape (ws_tensor_logical).
 * A module whose shapes do not add up is left as stored: the formula
 * comparison then reports the count, which is the honest outcome.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


#include "internal.h"
#include "xxh.h"
#include "ws/formula.h"
#include "ws/json.h"
#include "ws/quant.h"
#include "ws/util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define NONE UINT64_MAX
#define SMALL_READ 4096  /* quant_state JSON is ~170 bytes; more is not one */

/* ==== 1. the description ==== */

static const char *const method_names[WS_QM_COUNT] = {
	[WS_QM_NONE] = "none", [WS_QM_GPTQ] = "gptq", [WS_QM_AWQ] = "awq",
	[WS_QM_COMPRESSED] = "compressed-tensors", [WS_QM_BNB] = "bitsandbytes",
	[WS_QM_MLX] = "mlx", [WS_QM_FP8] = "fp8", [WS_QM_MXFP4] = "mxfp4",
	[WS_QM_GGUF] = "gguf", [WS_QM_OTHER] = "other",
};

/* quant_method values (transformers' names) */
static const struct { const char *name; ws_quant_method m; } qmethods[] = {
	{"gptq", WS_QM_GPTQ}, {"awq", WS_QM_AWQ},
	{"compressed-tensors", WS_QM_COMPRESSED}, {"bitsandbytes", WS_QM_BNB},
	{"fp8", WS_QM_FP8}, {"fbgemm_fp8", WS_QM_FP8}, {"mxfp4", WS_QM_MXFP4},
};

/* Where a description can live, first hit wins. */
static const struct { const char *key, *sub, *source; } places[] = {
	{"quantization_config", NULL, "config.json quantization_config"},
	{"compression_config", NULL, "config.json compression_config"},
	{"text_config", "quantization_config", "config.json text_config.quantization_config"},
	{"quantization", NULL, "config.json quantization"},
};

struct desc {
	ws_quant_method method;
	const char *name, *source;
	const cJSON *q;          /* the description object, or NULL */
	uint32_t bits;
	int64_t group;
	const char *awq_version; /* "gemm" unless told */
};

static bool
jint(const cJSON *o, const char *key, int64_t *v)
{
	const cJSON *it = cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
	if (!cJSON_IsNumber(it) || it->valuedouble < -1e15 || it->valuedouble > 1e15 ||
	    !ws_is_whole(it->valuedouble))
		return false;
	*v = (int64_t)it->valuedouble;
	return true;
}

static bool
jtrue(const cJSON *o, const char *key)
{
	return cJSON_IsObject(o) && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(o, key));
}

static uint32_t
bits_ok(int64_t b)
{
	return b >= 1 && b <= 16 ? (uint32_t)b : 0;
}

/* compressed-tensors: bits and group size when every config group agrees
 * (mixed precision leaves them 0: weight_shape or the scales decide). */
static void
ct_params(const cJSON *q, struct desc *d)
{
	const cJSON *groups = cJSON_GetObjectItemCaseSensitive(q, "config_groups");
	int64_t bits = 0, group = 0;
	bool first = true, same_bits = true, same_group = true;
	const cJSON *g;
	if (!cJSON_IsObject(groups))
		groups = NULL;
	cJSON_ArrayForEach(g, groups) {
		const cJSON *w = cJSON_GetObjectItemCaseSensitive(g, "weights");
		int64_t b = 0, gs = 0;
		if (!cJSON_IsObject(w))
			continue;
		jint(w, "num_bits", &b);
		jint(w, "group_size", &gs);
		if (first) {
			bits = b;
			group = gs;
			first = false;
		}
		same_bits = same_bits && b == bits;
		same_group = same_group && gs == group;
	}
	d->bits = same_bits ? bits_ok(bits) : 0;
	d->group = same_group ? group : 0;
}

static void
desc_params(ws_quant_method meth, const cJSON *q, struct desc *d)
{
	int64_t v;
	switch (meth) {
	case WS_QM_GPTQ:
	case WS_QM_AWQ:
		if (jint(q, "bits", &v) || jint(q, "w_bit", &v))
			d->bits = bits_ok(v);
		if (jint(q, "group_size", &v) || jint(q, "q_group_size", &v))
			d->group = v;
		if (meth == WS_QM_AWQ) {
			const cJSON *ver = cJSON_GetObjectItemCaseSensitive(q, "version");
			if (cJSON_IsString(ver))
				d->awq_version = ver->valuestring;
		}
		break;
	case WS_QM_COMPRESSED: ct_params(q, d); break;
	case WS_QM_BNB:
		if (jtrue(q, "load_in_4bit") || jtrue(q, "_load_in_4bit"))
			d->bits = 4;
		else if (jtrue(q, "load_in_8bit") || jtrue(q, "_load_in_8bit"))
			d->bits = 8;
		break;
	case WS_QM_MLX:
		if (jint(q, "bits", &v))
			d->bits = bits_ok(v);
		if (jint(q, "group_size", &v))
			d->group = v;
		break;
	case WS_QM_FP8: d->bits = 8; break;
	case WS_QM_MXFP4: d->bits = 4; d->group = 32; break;
	default: break;
	}
}

/* A __metadata__ string that is a small decimal integer ("-1" allowed). */
static bool
meta_int(const ws_model *m, const char *key, int64_t *out)
{
	const ws_kv *kv = ws_model_find_kv(m, key);
	if (!kv || kv->type != WS_V_STRING || kv->data_len == 0 || kv->data_len > 12)
		return false;
	int64_t v = 0, sign = 1;
	for (uint64_t i = 0; i < kv->data_len; i++) {
		char ch = (char)kv->data[i];
		if (i == 0 && ch == '-') {
			sign = -1;
			continue;
		}
		if (ch < '0' || ch > '9')
			return false;
		v = v * 10 + (ch - '0');
	}
	*out = sign * v;
	return true;
}

/* plainly_unquantized's pass: runs of PLAIN_RUN tensors taken by the
 * caller and a helper on a large model, both stopping at the first that
 * is not plain. */
#define PLAIN_RUN 4096
typedef struct plain_pass {
	const ws_model *m;
	_Atomic uint64_t next;
	_Atomic bool not_plain;
} plain_pass;

static void
plain_worker(void *arg, unsigned worker)
{
	(void)worker;
	plain_pass *p = arg;
	const ws_model *m = p->m;
	for (uint64_t lo; !atomic_load_explicit(&p->not_plain, memory_order_relaxed) &&
			  (lo = atomic_fetch_add(&p->next, PLAIN_RUN)) < m->n_tensors;) {
		uint64_t hi = m->n_tensors - lo < PLAIN_RUN ? m->n_tensors : lo + PLAIN_RUN;
		for (uint64_t i = lo; i < hi; i++) {
			const ws_tensor *t = &m->tensors[i];
			if (t->role == WS_ROLE_QUANT_AUX ||
			    (t->dtype != WS_DT_BF16 && t->dtype != WS_DT_F16 && t->dtype != WS_DT_F32 &&
			     t->dtype != WS_DT_F64 && t->role != WS_ROLE_BUFFER)) {
				atomic_store_explicit(&p->not_plain, true, memory_order_relaxed);
				return;
			}
		}
	}
}

/* Every tensor a 16-bit-or-wider float or a buffer, and no quantizer's
 * side tensor: a plain model. */
static bool
plainly_unquantized(const ws_model *m)
{
	plain_pass p = {.m = m};
	ws_team_run(ws_team_helpers_for(m->n_tensors), plain_worker, &p);
	return !atomic_load(&p.not_plain);
}

static void
find_desc(ws_model *m, struct desc *d)
{
	memset(d, 0, sizeof *d);
	d->awq_version = "gemm";
	for (size_t i = 0; m->config && i < ARRAY_LEN(places); i++) {
		const cJSON *q = cJSON_GetObjectItemCaseSensitive(m->config, places[i].key);
		if (places[i].sub)
			q = cJSON_IsObject(q) ? cJSON_GetObjectItemCaseSensitive(q, places[i].sub) : NULL;
		if (!cJSON_IsObject(q))
			continue;
		const cJSON *qm = cJSON_GetObjectItemCaseSensitive(q, "quant_method");
		ws_quant_method meth = WS_QM_NONE;
		int64_t b, g;
		if (cJSON_IsString(qm)) {
			meth = WS_QM_OTHER;
			for (size_t k = 0; k < ARRAY_LEN(qmethods); k++)
				if (strcmp(qm->valuestring, qmethods[k].name) == 0)
					meth = qmethods[k].m;
		} else if (jint(q, "bits", &b) && jint(q, "group_size", &g)) {
			meth = WS_QM_MLX;  /* MLX writes no quant_method */
		} else {
			continue;
		}
		d->method = meth;
		d->source = places[i].source;
		d->q = q;
		d->name = method_names[meth];
		if (meth == WS_QM_OTHER) {
			/* untrusted text: escaped and bounded before it is kept */
			size_t n = strlen(qm->valuestring);
			char *e = ws_escape_text(qm->valuestring, n > 64 ? 64 : n);
			if (e) {
				d->name = ws_model_strndup(m, e, strlen(e));
				free(e);
			}
			if (!d->name)
				d->name = method_names[meth];
		}
		desc_params(meth, q, d);
		return;
	}
	/* AutoGPTQ also records its settings in the safetensors header */
	int64_t v;
	if (meta_int(m, "gptq_bits", &v)) {
		d->method = WS_QM_GPTQ;
		d->name = method_names[WS_QM_GPTQ];
		d->source = "__metadata__ gptq_bits";
		d->bits = bits_ok(v);
		if (meta_int(m, "gptq_group_size", &v))
			d->group = v;
	}
}

/* ==== 2. modules ==== */

enum slot { SL_MAIN, SL_BIAS, SL_SCALES, SL_ZEROS, SL_GIDX, SL_SHAPE, SL_QSTATE,
	    SL_ABSMAX, SL_AUX, SL_COUNT };
enum mainkind { MK_WEIGHT, MK_QWEIGHT, MK_PACKED, MK_BLOCKS, MK_MARLIN };

static const struct tailspec {
	const char *s;
	unsigned char len, slot, kind; /* kind: enum mainkind for SL_MAIN */
} tails[] = {
#define T(str, slot, kind) { str, sizeof str - 1, slot, kind }
	T(".weight", SL_MAIN, MK_WEIGHT),
	T(".qweight", SL_MAIN, MK_QWEIGHT),
	T(".weight_packed", SL_MAIN, MK_PACKED),
	T("_blocks", SL_MAIN, MK_BLOCKS),
	T(".B", SL_MAIN, MK_MARLIN),
	T(".bias", SL_BIAS, 0),
	T(".scales", SL_SCALES, 0),
	T("_scales", SL_SCALES, 0),
	T(".s", SL_SCALES, 0),
	T(".weight_scale", SL_SCALES, 0),
	T(".weight_scale_inv", SL_SCALES, 0),
	T(".qzeros", SL_ZEROS, 0),
	T(".zeros", SL_ZEROS, 0),
	T(".weight_zero_point", SL_ZEROS, 0),
	T(".g_idx", SL_GIDX, 0),
	T(".weight_g_idx", SL_GIDX, 0),
	T(".weight_shape", SL_SHAPE, 0),
	T(".weight.absmax", SL_ABSMAX, 0),
	T(".biases", SL_AUX, 0),
	T(".weight.quant_map", SL_AUX, 0),
	T(".weight.nested_absmax", SL_AUX, 0),
	T(".weight.nested_quant_map", SL_AUX, 0),
	T(".weight_scale_2", SL_AUX, 0),
	T(".weight_global_scale", SL_AUX, 0),
	T(".input_scale", SL_AUX, 0),
	T(".input_global_scale", SL_AUX, 0),
	T(".input_zero_point", SL_AUX, 0),
	T(".SCB", SL_AUX, 0),
	T(".weight_format", SL_AUX, 0),
	T("_scale", SL_AUX, 0),
	T("_scale_inv", SL_AUX, 0),
	T("_scales_inv", SL_AUX, 0),
#undef T
};

/* bitsandbytes' serialized state sits inside the name, not at its end */
static const char qstate[] = ".weight.quant_state.";

/* The module part of a name and its tail's slot; false when no tail. */
static bool
split_name(const char *s, size_t n, size_t *modlen, const struct tailspec **ts)
{
	static const struct tailspec qs = { qstate, sizeof qstate - 1, SL_QSTATE, 0 };
	size_t best = 0;
	*ts = NULL;
	for (size_t i = 0; i < ARRAY_LEN(tails); i++) {
		size_t l = tails[i].len;
		if (n > l && l > best && memcmp(s + n - l, tails[i].s, l) == 0) {
			best = l;
			*ts = &tails[i];
		}
	}
	if (*ts) {
		*modlen = n - best;
		return true;
	}
	for (size_t i = n; i-- > 0;) {
		if (n - i >= qs.len && i > 0 && memcmp(s + i, qstate, qs.len) == 0) {
			*modlen = i;
			*ts = &qs;
			return true;
		}
	}
	return false;
}

struct module {
	uint64_t hash;
	const char *name;
	size_t len;
	bool used, quantized;
	unsigned char kind;        /* enum mainkind of idx[SL_MAIN] */
	uint32_t naux;             /* side tensors (role quant_aux) */
	uint64_t idx[SL_COUNT];
};

struct mtable {
	struct module *v;
	size_t cap;                /* power of two, >= 2 × modules */
};

static struct module *
mod_get(struct mtable *mt, const char *s, size_t len)
{
	uint64_t h = XXH3_64bits(s, len);
	for (size_t i = (size_t)h & (mt->cap - 1);; i = (i + 1) & (mt->cap - 1)) {
		struct module *md = &mt->v[i];
		if (!md->used) {
			md->used = true;
			md->hash = h;
			md->name = s;
			md->len = len;
			for (int k = 0; k < SL_COUNT; k++)
				md->idx[k] = NONE;
			return md;
		}
		if (md->hash == h && md->len == len && memcmp(md->name, s, len) == 0)
			return md;
	}
}

/* ==== 3. unpacking ==== */

struct ctx {
	ws_model *m;
	struct ws_quant *q;
	struct desc d;
	ws_error *err;
};

static const ws_tensor *
sib(const struct ctx *c, const struct module *md, enum slot s)
{
	return md->idx[s] == NONE ? NULL : &c->m->tensors[md->idx[s]];
}

/* Bits of one storage word of an integer packing dtype, or 0. */
static uint32_t
word_bits(ws_dtype dt)
{
	switch (dt) {
	case WS_DT_I8: case WS_DT_U8: return 8;
	case WS_DT_I16: case WS_DT_U16: return 16;
	case WS_DT_I32: case WS_DT_U32: return 32;
	case WS_DT_I64: case WS_DT_U64: return 64;
	default: return 0;
	}
}

/* Record the unpacked shape dims[0..nd) of tensor t.  false on overflow
 * (nothing changed). */
static bool
set_logical(struct ctx *c, ws_tensor *t, const uint64_t *dims, uint32_t nd)
{
	uint64_t n = 1;
	for (uint32_t i = 0; i < nd; i++)
		if (!ws_mul_u64(n, dims[i], &n))
			return false;
	/* the unpacked dims, their count, then the stored shape (see
	 * ws_tensor_logical) */
	uint32_t sn = t->ndim;
	const uint64_t *stored = t->shape;
	if (t->logical)
		stored = ws_tensor_logical(t, &sn) + sn + 1;
	uint64_t *copy = ws_model_alloc(c->m, ((size_t)nd + 1 + sn) * sizeof *copy);
	if (!copy)
		return false;
	memcpy(copy, dims, nd * sizeof *copy);
	copy[nd] = nd;
	if (sn)
		memcpy(copy + nd + 1, stored, sn * sizeof *copy);
	t->shape = copy + nd + 1;
	t->logical = true;
	if (t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX && !t->unloaded && !t->tied_copy)
		t->params = n;
	c->q->packed++;
	return true;
}

/* Read a small tensor's bytes: 1 read, 0 not readable (too big to be what
 * we want, or no local data), -1 on a read error (err set). */
static int
read_small(struct ctx *c, const ws_tensor *t, uint8_t *buf, size_t cap)
{
	if (t->bytes == 0 || t->bytes > cap || t->file >= c->m->n_files)
		return 0;
	const ws_file *f = &c->m->files[t->file];
	size_t done = 0, want = (size_t)t->bytes;
	if (f->fd < 0)
		return 0;  /* a remote file: headers only, the fallbacks decide */
	while (done < want) {
		ssize_t r = pread(f->fd, buf + done, want - done, (off_t)(t->offset + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return ws_err_at(c->err, f->path, t->offset + done,
					 "tensor '%s' data %s", t->name,
					 r < 0 ? strerror(errno) : "ends early: the file shrank");
		done += (size_t)r;
	}
	return 1;
}

static uint64_t
le(const uint8_t *p, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

/* GPTQ: qweight [in*bits/word, out] packed along rows; g_idx [in]. */
static int
unpack_gptq(struct ctx *c, const struct module *md, ws_tensor *w)
{
	const ws_tensor *g = sib(c, md, SL_GIDX), *z = sib(c, md, SL_ZEROS);
	uint64_t R = w->shape[0], out = w->shape[1], wb = word_bits(w->dtype), in = 0;
	uint32_t bits = c->d.method == WS_QM_GPTQ ? c->d.bits : 0;

	if (!bits && z && z->ndim == 2 && out && word_bits(z->dtype) &&
	    (z->shape[1] * word_bits(z->dtype)) % out == 0)
		bits = bits_ok((int64_t)(z->shape[1] * word_bits(z->dtype) / out));
	if (g && g->ndim == 1 && g->shape[0])
		in = g->shape[0];  /* holds for per-module bit overrides too */
	else if (bits && (R * wb) % bits == 0)
		in = R * wb / bits;
	if (!in || !wb)
		return 0;
	if ((R * wb) % in != 0 || !bits_ok((int64_t)(R * wb / in))) {
		uint64_t exp = R * wb / (bits ? bits : 4);
		return ws_model_add_finding(c->m, WS_SEV_ERROR, "shape-mismatch", w->name, (int)w->role,
					    w->layer, true, exp, in,
					    "%s: %llu packed rows do not hold the %llu input rows its g_idx lists",
					    w->name, (unsigned long long)R, (unsigned long long)in) < 0 ? -1 : 0;
	}
	uint64_t dims[2] = {out, in};
	set_logical(c, w, dims, 2);
	return 0;
}

/* AWQ (AutoAWQ): GEMM qweight [in, out*bits/32]; GEMV [out, in*bits/32];
 * GEMV_fast I16 [out/4, in]. */
static int
unpack_awq(struct ctx *c, const struct module *md, ws_tensor *w)
{
	const ws_tensor *s = sib(c, md, SL_SCALES);
	uint64_t R = w->shape[0], C = w->shape[1], wb = word_bits(w->dtype);
	uint32_t bits = c->d.bits ? c->d.bits : 4;  /* AutoAWQ writes only 4-bit */
	uint64_t dims[2];
	const char *v = c->d.awq_version;

	if (!wb)
		return 0;
	if (strcmp(v, "gemv") == 0) {
		dims[0] = R;
		dims[1] = C * wb / bits;
	} else if (strcmp(v, "gemv_fast") == 0) {
		dims[0] = R * (wb / bits);
		dims[1] = C;
	} else {
		dims[1] = R;
		/* bits-free: scales [in/g, out] carry out */
		dims[0] = s && s->ndim == 2 ? s->shape[1] : C * wb / bits;
	}
	set_logical(c, w, dims, 2);
	return 0;
}

/* compressed-tensors pack-quantized: weight_packed [out, ceil(in*bits/32)]
 * (I32), or U8 [out, in/2] for NVFP4/MXFP4; weight_shape holds [out, in]. */
static int
unpack_ct(struct ctx *c, const struct module *md, ws_tensor *w)
{
	const ws_tensor *sh = sib(c, md, SL_SHAPE);
	uint64_t R = w->shape[0], C = w->shape[1], wb = word_bits(w->dtype), in = 0;
	uint32_t bits = w->dtype == WS_DT_U8 ? 4 : c->d.method == WS_QM_COMPRESSED ? c->d.bits : 0;

	if (!wb)
		return 0;
	if (bits)
		in = C * wb / bits;
	if (sh && sh->ndim == 1 && sh->shape[0] == 2 &&
	    (sh->dtype == WS_DT_I32 || sh->dtype == WS_DT_I64)) {
		uint8_t buf[16];
		unsigned es = sh->dtype == WS_DT_I64 ? 8 : 4;
		int r = read_small(c, sh, buf, sizeof buf);
		if (r < 0)
			return -1;
		uint64_t o = r ? le(buf, es) : 0, i = r ? le(buf + es, es) : 0;
		/* a plausible record wins (in need not be a multiple of the
		 * pack); zeros (a hole, a placeholder) do not */
		bool fits = bits ? (i * bits + wb - 1) / wb == C : i <= C * wb && i >= C;
		if (o == R && i && i < (1ull << 40) && fits)
			in = i;
	}
	if (!in)
		return 0;
	uint64_t dims[2] = {R, in};
	set_logical(c, w, dims, 2);
	return 0;
}

/* MXFP4 (gpt-oss): blocks [..., out, in/32, 16] U8, two values a byte. */
static int
unpack_blocks(struct ctx *c, ws_tensor *w)
{
	uint64_t dims[8];
	uint32_t n = w->ndim;
	if (n < 2 || n > 8 || w->dtype != WS_DT_U8)
		return 0;
	memcpy(dims, w->shape, (n - 2) * sizeof *dims);
	uint64_t last;
	if (!ws_mul_u64(w->shape[n - 2], w->shape[n - 1], &last) || !ws_mul_u64(last, 2, &last))
		return 0;
	dims[n - 2] = last;
	set_logical(c, w, dims, n - 1);
	return 0;
}

/* bitsandbytes 4-bit: weight [(n+1)/2, 1] bytes (of the quant storage
 * dtype); the exact [out, in] only from the quant_state JSON. */
static int
unpack_bnb4(struct ctx *c, const struct module *md, ws_tensor *w)
{
	const ws_tensor *qs = sib(c, md, SL_QSTATE);
	uint64_t bytes = w->bytes, n;
	const ws_dtype_info *di = ws_dtype_get(w->dtype);
	uint64_t item = di && di->block == 1 ? di->block_bytes : 1;

	if (qs && qs->dtype == WS_DT_U8) {
		uint8_t buf[SMALL_READ];
		int r = read_small(c, qs, buf, sizeof buf);
		if (r < 0)
			return -1;
		cJSON *j = r ? cJSON_ParseWithLength((const char *)buf, (size_t)qs->bytes) : NULL;
		const cJSON *shape = j ? cJSON_GetObjectItemCaseSensitive(j, "shape") : NULL;
		int nd = cJSON_IsArray(shape) ? cJSON_GetArraySize(shape) : 0;
		uint64_t dims[4], prod = 1;
		bool ok = nd >= 1 && nd <= 4;
		for (int i = 0; ok && i < nd; i++) {
			const cJSON *d = cJSON_GetArrayItem(shape, i);
			ok = cJSON_IsNumber(d) && d->valuedouble >= 0 && d->valuedouble < 9.0e15 &&
			     ws_is_whole(d->valuedouble);
			if (ok) {
				dims[i] = (uint64_t)d->valuedouble;
				ok = ws_mul_u64(prod, dims[i], &prod);
			}
		}
		cJSON_Delete(j);
		/* the state must describe these bytes: ceil(n/2) of them,
		 * rounded up to whole storage items */
		if (ok && prod < UINT64_MAX && (prod + 1) / 2 <= bytes && bytes - (prod + 1) / 2 < item) {
			set_logical(c, w, dims, (uint32_t)nd);
			return 0;
		}
	}
	if (!ws_mul_u64(bytes, 2, &n))
		return 0;
	uint64_t dims[1] = {n};  /* header only: odd n is off by one */
	set_logical(c, w, dims, 1);
	return 0;
}

/* MLX: weight U32 [..., out, in*bits/32] with .scales [..., out, in/g];
 * bits per module from the config (a per-path entry overrides). */
static int
unpack_mlx(struct ctx *c, const struct module *md, ws_tensor *w)
{
	const ws_tensor *s = sib(c, md, SL_SCALES);
	uint32_t n = w->ndim, bits = 0;
	int64_t group = 0, v;
	uint64_t dims[8];

	if (n < 1 || n > 8)
		return 0;
	if (c->d.method == WS_QM_MLX) {
		bits = c->d.bits;
		group = c->d.group;
		char key[512];
		if (md->len < sizeof key) {
			memcpy(key, md->name, md->len);
			key[md->len] = '\0';
			const cJSON *o = cJSON_GetObjectItemCaseSensitive(c->d.q, key);
			if (jint(o, "bits", &v))
				bits = bits_ok(v);
			if (jint(o, "group_size", &v))
				group = v;
		}
	}
	uint64_t C = w->shape[n - 1], in = bits && (C * 32) % bits == 0 ? C * 32 / bits : 0;
	uint64_t in_s;
	if (s && s->ndim == n && group > 0 && ws_mul_u64(s->shape[n - 1], (uint64_t)group, &in_s)) {
		/* the scales' groups are authoritative when the config's bits
		 * do not fit them (a per-module entry we could not find) */
		if (in_s != in && in_s && (C * 32) % in_s == 0 && bits_ok((int64_t)(C * 32 / in_s)))
			in = in_s;
	}
	if (!in)
		return 0;
	memcpy(dims, w->shape, n * sizeof *dims);
	dims[n - 1] = in;
	set_logical(c, w, dims, n);
	return 0;
}

/* GPTQ Marlin (AutoGPTQ): B [in/16, out*2] for 4-bit. */
static int
unpack_marlin(struct ctx *c, const struct module *md, ws_tensor *w)
{
	if (!sib(c, md, SL_SCALES) || w->ndim != 2 || word_bits(w->dtype) != 32)
		return 0;
	uint64_t dims[2] = {w->shape[1] / 2, w->shape[0] * 16};
	set_logical(c, w, dims, 2);
	return 0;
}

static bool
looks_awq(const struct ctx *c, const struct module *md, const ws_tensor *w)
{
	const ws_tensor *s = sib(c, md, SL_SCALES);
	if (c->d.method == WS_QM_AWQ)
		return true;
	if (c->d.method == WS_QM_GPTQ || sib(c, md, SL_GIDX))
		return false;
	/* GPTQ: scales.cols == qweight.cols; AWQ packs the columns */
	return s && s->ndim == 2 && s->shape[1] != w->shape[1];
}

/* The switch that gives a role a bias in the architecture. */
static const struct { ws_role role; int flag; } bias_flags[] = {
	{WS_ROLE_ATTN_Q, WS_ARCH_QKV_BIAS}, {WS_ROLE_ATTN_K, WS_ARCH_QKV_BIAS},
	{WS_ROLE_ATTN_V, WS_ARCH_QKV_BIAS}, {WS_ROLE_ATTN_QKV, WS_ARCH_QKV_BIAS},
	{WS_ROLE_ATTN_O, WS_ARCH_O_BIAS}, {WS_ROLE_FFN_GATE, WS_ARCH_MLP_BIAS},
	{WS_ROLE_FFN_UP, WS_ARCH_MLP_BIAS}, {WS_ROLE_FFN_DOWN, WS_ARCH_MLP_BIAS},
	{WS_ROLE_FFN_GATE_UP, WS_ARCH_MLP_BIAS}, {WS_ROLE_LM_HEAD, WS_ARCH_LM_HEAD_BIAS},
	{WS_ROLE_MOE_GATE, WS_ARCH_MOE_BIAS}, {WS_ROLE_MOE_UP, WS_ARCH_MOE_BIAS},
	{WS_ROLE_MOE_DOWN, WS_ARCH_MOE_BIAS}, {WS_ROLE_MOE_GATE_UP, WS_ARCH_MOE_BIAS},
	{WS_ROLE_MOE_ROUTER, WS_ARCH_ROUTER_BIAS},
};

/* Old GPTQ writers give every QuantLinear a bias; on a layer the
 * architecture has without one it is an all-zero side tensor. */
static void
zero_bias(struct ctx *c, const struct module *md, const ws_tensor *w)
{
	const struct ws_arch *a = c->m->arch;
	ws_tensor *b = md->idx[SL_BIAS] == NONE ? NULL : &c->m->tensors[md->idx[SL_BIAS]];
	if (!b || !a || !a->known || b->role == WS_ROLE_QUANT_AUX)
		return;
	for (size_t i = 0; i < ARRAY_LEN(bias_flags); i++) {
		if (bias_flags[i].role != w->role)
			continue;
		if (!ws_sw_has(&a->flags, bias_flags[i].flag)) {
			b->role = WS_ROLE_QUANT_AUX;
			b->params = 0;
			c->q->zero_biases++;
		}
		return;
	}
}

static int
unpack_module(struct ctx *c, struct module *md)
{
	ws_tensor *w = &c->m->tensors[md->idx[SL_MAIN]];
	uint64_t packed_before = c->q->packed;
	int r = 0;

	if (w->ndim == 0)
		return 0;
	switch (md->kind) {
	case MK_QWEIGHT:
		if (w->ndim != 2)
			break;
		if (looks_awq(c, md, w)) {
			r = unpack_awq(c, md, w);
		} else {
			r = unpack_gptq(c, md, w);
			zero_bias(c, md, w);
		}
		break;
	case MK_MARLIN:
		r = unpack_marlin(c, md, w);
		if (c->q->packed > packed_before)
			zero_bias(c, md, w);
		break;
	case MK_PACKED:
		if (w->ndim == 2)
			r = unpack_ct(c, md, w);
		break;
	case MK_BLOCKS:
		r = unpack_blocks(c, w);
		break;
	case MK_WEIGHT:
		if (sib(c, md, SL_QSTATE) || sib(c, md, SL_ABSMAX))
			r = unpack_bnb4(c, md, w);
		else if (w->dtype == WS_DT_U32 && sib(c, md, SL_SCALES))
			r = unpack_mlx(c, md, w);
		break;
	}
	md->quantized = c->q->packed > packed_before || md->naux > 0;
	return r;
}

/* Which method the tensors show, when no description names one. */
static ws_quant_method
method_from(const struct ctx *c, const struct module *md)
{
	const ws_tensor *w = &c->m->tensors[md->idx[SL_MAIN]];
	switch (md->kind) {
	case MK_QWEIGHT: return looks_awq(c, md, w) ? WS_QM_AWQ : WS_QM_GPTQ;
	case MK_MARLIN: return WS_QM_GPTQ;
	case MK_PACKED: return WS_QM_COMPRESSED;
	case MK_BLOCKS: return WS_QM_MXFP4;
	default:
		if (sib(c, md, SL_QSTATE) || sib(c, md, SL_ABSMAX))
			return WS_QM_BNB;
		if (w->dtype == WS_DT_U32)
			return WS_QM_MLX;
		if (w->dtype == WS_DT_F8_E4M3 || w->dtype == WS_DT_F8_E5M2)
			return WS_QM_FP8;
		return WS_QM_OTHER;
	}
}

static int
apply_gguf(ws_model *m, ws_error *err)
{
	uint64_t nq = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_dtype_info *di = ws_dtype_get(m->tensors[i].dtype);
		nq += di && (di->flags & WS_DTF_QUANT);
	}
	if (!nq)
		return 0;
	struct ws_quant *q = ws_model_alloc(m, sizeof *q);
	uint8_t *br = ws_model_alloc(m, (size_t)m->n_tensors);
	if (!q || !br)
		return ws_err_oom(err, m->path);
	memset(q, 0, sizeof *q);
	q->method = WS_QM_GGUF;
	q->method_name = method_names[WS_QM_GGUF];
	q->source = "gguf tensor types";
	q->quantized = nq;
	q->bpw_role = br;
	/* ggml types already count logical elements: nothing to unpack */
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		const ws_dtype_info *di = ws_dtype_get(t->dtype);
		br[i] = di && (di->flags & WS_DTF_QUANT) && t->role != WS_ROLE_BUFFER &&
				t->role != WS_ROLE_QUANT_AUX && (unsigned)t->role < WS_ROLE_COUNT
			? (uint8_t)t->role : WS_QUANT_NO_ROLE;
	}
	m->quant = q;
	return 0;
}

int
ws_quant_apply(ws_model *m, ws_error *err)
{
	_Static_assert(WS_ROLE_COUNT < WS_QUANT_NO_ROLE, "a role fits bpw_role");
	if (m->n_tensors == 0)
		return 0;
	if (m->format == WS_FORMAT_GGUF)
		return apply_gguf(m, err);

	struct ctx c = {.m = m, .err = err};
	struct ws_quant qtmp = {0};
	struct mtable mt = {0};
	uint32_t *modof = NULL;
	int rc = -1;

	c.q = &qtmp;
	find_desc(m, &c.d);
	if (c.d.method == WS_QM_NONE && plainly_unquantized(m))
		return 0; /* nothing to unpack: skip the per-module pass */
	if (m->n_tensors > UINT32_MAX / 4)  /* modof holds 32-bit slots */
		return ws_err_oom(err, m->path);
	mt.cap = 16;
	while (mt.cap < 2 * m->n_tensors)
		mt.cap *= 2;
	mt.v = calloc(mt.cap, sizeof *mt.v);
	modof = malloc((size_t)m->n_tensors * sizeof *modof);
	if (!mt.v || !modof) {
		ws_err_oom(err, m->path);
		goto out;
	}

	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		const struct tailspec *ts;
		size_t ml;
		modof[i] = UINT32_MAX;
		if (!t->name || !split_name(t->name, t->name_len, &ml, &ts))
			continue;
		struct module *md = mod_get(&mt, t->name, ml);
		modof[i] = (uint32_t)(md - mt.v);
		if (ts->slot == SL_MAIN) {
			/* a packed form beats a plain .weight of the same module */
			if (md->idx[SL_MAIN] == NONE || (md->kind == MK_WEIGHT && ts->kind != MK_WEIGHT)) {
				md->idx[SL_MAIN] = i;
				md->kind = ts->kind;
			}
		} else if (md->idx[ts->slot] == NONE) {
			md->idx[ts->slot] = i;
		}
		if (ts->slot != SL_MAIN && ts->slot != SL_BIAS && t->role == WS_ROLE_QUANT_AUX)
			md->naux++;
	}

	ws_quant_method seen = WS_QM_NONE;
	for (size_t k = 0; k < mt.cap; k++) {
		struct module *md = &mt.v[k];
		if (!md->used || md->idx[SL_MAIN] == NONE)
			continue;
		if (unpack_module(&c, md) < 0)
			goto out;
		if (md->quantized) {
			qtmp.quantized++;
			if (seen == WS_QM_NONE)
				seen = method_from(&c, md);
		}
	}

	if (qtmp.quantized || c.d.method != WS_QM_NONE) {
		struct ws_quant *q = ws_model_alloc(m, sizeof *q);
		uint8_t *br = ws_model_alloc(m, (size_t)m->n_tensors);
		if (!q || !br) {
			ws_err_oom(err, m->path);
			goto out;
		}
		*q = qtmp;
		q->method = c.d.method != WS_QM_NONE ? c.d.method : seen;
		q->method_name = c.d.method != WS_QM_NONE ? c.d.name : method_names[seen];
		q->source = c.d.method != WS_QM_NONE ? c.d.source : "tensor names";
		q->bits = c.d.bits;
		q->group_size = c.d.group;
		q->bpw_role = br;
		for (uint64_t i = 0; i < m->n_tensors; i++) {
			const ws_tensor *t = &m->tensors[i];
			const struct module *md = modof[i] == UINT32_MAX ? NULL : &mt.v[modof[i]];
			br[i] = WS_QUANT_NO_ROLE;
			if (!md || !md->quantized)
				continue;
			const ws_tensor *w = &m->tensors[md->idx[SL_MAIN]];
			if ((i == md->idx[SL_MAIN] || t->role == WS_ROLE_QUANT_AUX) &&
			    (unsigned)w->role < WS_ROLE_COUNT && w->role != WS_ROLE_QUANT_AUX &&
			    w->role != WS_ROLE_BUFFER)
				br[i] = (uint8_t)w->role;
		}
		m->quant = q;
	}
	rc = 0;
out:
	free(mt.v);
	free(modof);
	return rc;
}

/* ==== bits per weight ==== */

void
ws_quant_bpw(const ws_model *m, ws_bpw *o)
{
	memset(o, 0, sizeof *o);
	const uint8_t *br = m->quant ? m->quant->bpw_role : NULL;
	/* sums of validated sizes: bounded by the files' sizes */
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		bool aux = t->role == WS_ROLE_QUANT_AUX;
		if (t->role == WS_ROLE_BUFFER)
			continue;
		o->all_bytes += t->bytes;
		if (!aux)
			o->all_params += t->params;
		if (!br || br[i] == WS_QUANT_NO_ROLE)
			continue;
		o->role_bytes[br[i]] += t->bytes;
		o->bytes += t->bytes;
		if (!aux) {
			o->role_params[br[i]] += t->params;
			o->params += t->params;
		}
	}
}

double
ws_bpw_value(uint64_t bytes, uint64_t params)
{
	if (!params)
		return 0.0;
	/* rounded half up, as round() would for a value >= 0, without libm */
	double v = 8000.0 * (double)bytes / (double)params;
	if (v >= 0x1p52)
		return v / 1000.0; /* a whole number already */
	double r = (double)(uint64_t)v;
	return (v - r >= 0.5 ? r + 1.0 : r) / 1000.0;
}

int
ws_quant_report_json(const ws_model *m, cJSON *obj)
{
	const struct ws_quant *q = m->quant;
	ws_bpw b;
	if (!q || !q->quantized)
		return 0;
	ws_quant_bpw(m, &b);
	cJSON *qo = cJSON_AddObjectToObject(obj, "quantization");
	if (!qo)
		return -1;
	ws_json_add_bytes(qo, "method", q->method_name, strlen(q->method_name));
	cJSON_AddStringToObject(qo, "source", q->source);
	if (q->bits)
		ws_json_add_u64(qo, "bits", q->bits);
	if (q->group_size)
		ws_json_add_i64(qo, "group_size", q->group_size);
	ws_json_add_u64(qo, "quantized_tensors", q->quantized);
	ws_json_add_u64(qo, "packed_tensors", q->packed);
	if (q->zero_biases)
		ws_json_add_u64(qo, "zero_biases", q->zero_biases);

	cJSON *bo = cJSON_AddObjectToObject(obj, "bits_per_weight");
	if (!bo)
		return -1;
	cJSON_AddNumberToObject(bo, "total", ws_bpw_value(b.bytes, b.params));
	cJSON_AddNumberToObject(bo, "overall", ws_bpw_value(b.all_bytes, b.all_params));
	cJSON *br = cJSON_AddObjectToObject(bo, "by_role");
	for (int r = 0; br && r < WS_ROLE_COUNT; r++)
		if (b.role_params[r])
			cJSON_AddNumberToObject(br, ws_role_name((ws_role)r),
						ws_bpw_value(b.role_bytes[r], b.role_params[r]));
	return br ? 0 : -1;
}

void
ws_quant_report_text(FILE *f, const ws_model *m)
{
	const struct ws_quant *q = m->quant;
	ws_bpw b;
	char c1[32];
	if (!q || !q->quantized)
		return;
	ws_quant_bpw(m, &b);
	fprintf(f, "%-14s %s", "quantization", q->method_name);
	if (q->bits)
		fprintf(f, ", %u-bit", q->bits);
	if (q->group_size)
		fprintf(f, ", group %lld", (long long)q->group_size);
	fprintf(f, " (%s); %s quantized tensors, %llu unpacked", q->source,
		ws_fmt_commas(q->quantized, c1, sizeof c1), (unsigned long long)q->packed);
	if (q->zero_biases)
		fprintf(f, ", %llu zero biases set apart", (unsigned long long)q->zero_biases);
	fprintf(f, "\n%-14s %.3f quantized weights with their side tensors; %.3f overall\n",
		"bits/weight", ws_bpw_value(b.bytes, b.params),
		ws_bpw_value(b.all_bytes, b.all_params));
	for (int r = 0; r < WS_ROLE_COUNT; r++)
		if (b.role_params[r])
			fprintf(f, "  %-17s %7.3f\n", ws_role_name((ws_role)r),
				ws_bpw_value(b.role_bytes[r], b.role_params[r]));
}
