/*
 * mkfixture.c - deterministic safetensors fixtures.
 *
 *   mkfixture tiny DIR [--tied] [--f32]   a tiny llama checkpoint folder
 *   mkfixture bad DIR                     one broken file per rule, and
 *                                         DIR/EXPECT.tsv: file, offset,
 *                                         message fragment
 *   mkfixture sparse DIR CONFIG [--shards N] [--dtype D]
 *                                         a full-size, sparse checkpoint
 *                                         with the real names and shapes
 *                                         of a llama-family CONFIG
 *
 * Everything is a pure function of the arguments: the same bytes every run.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen.h"

static char *
path_in(const char *dir, const char *name)
{
	char *p;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		die("out of memory");
	return p;
}

static void
write_file(const char *dir, const char *name, const void *buf, size_t len)
{
	char *p = path_in(dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s: %s", p, strerror(errno));
	write_all(fd, buf, len, p);
	close(fd);
	free(p);
}

/* ==== a tensor list and the safetensors writer ==== */

typedef struct tensor {
	char name[160];
	const char *dtype;
	unsigned elem_bits;
	int ndim;
	uint64_t shape[4];
} tensor;

typedef struct tlist {
	tensor *v;
	size_t n, cap;
} tlist;

static void
add(tlist *l, const char *dtype, unsigned bits, int ndim, uint64_t d0, uint64_t d1,
    const char *fmt, ...)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->v = realloc(l->v, l->cap * sizeof *l->v);
		if (!l->v)
			die("out of memory");
	}
	tensor *t = &l->v[l->n++];
	memset(t, 0, sizeof *t);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->name, sizeof t->name, fmt, ap);
	va_end(ap);
	t->dtype = dtype;
	t->elem_bits = bits;
	t->ndim = ndim;
	t->shape[0] = d0;
	t->shape[1] = d1;
}

static uint64_t
elements(const tensor *t)
{
	uint64_t n = 1;
	for (int d = 0; d < t->ndim; d++)
		n *= t->shape[d];
	return n;
}

static uint64_t
nbytes(const tensor *t)
{
	return elements(t) * t->elem_bits / 8;
}

/* Header JSON for tensors [a, b), offsets contiguous in list order, padded
 * with spaces to a multiple of 8 as the reference writer does. */
static char *
header_json(const tlist *l, size_t a, size_t b, const char *meta_json, size_t *len)
{
	size_t cap = 256 + (b - a) * 256, o = 0;
	char *s = malloc(cap);
	uint64_t off = 0;
	if (!s)
		die("out of memory");
	o += (size_t)snprintf(s + o, cap - o, "{%s", meta_json ? meta_json : "");
	for (size_t i = a; i < b; i++) {
		const tensor *t = &l->v[i];
		uint64_t n = nbytes(t);
		o += (size_t)snprintf(s + o, cap - o, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[",
				      (i > a || meta_json) ? "," : "", t->name, t->dtype);
		for (int d = 0; d < t->ndim; d++)
			o += (size_t)snprintf(s + o, cap - o, "%s%" PRIu64, d ? "," : "", t->shape[d]);
		o += (size_t)snprintf(s + o, cap - o, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
				      off, off + n);
		off += n;
	}
	s[o++] = '}';
	while (o % 8)
		s[o++] = ' ';
	s[o] = '\0';
	*len = o;
	return s;
}

/* A deterministic, small-valued BF16 payload. */
static void
fill_bf16(uint8_t *p, uint64_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 1;
	for (uint64_t i = 0; i < n; i++) {
		x = x * 1664525u + 1013904223u;
		/* exponent 0x3C..0x3E: magnitudes around 0.01-0.1 */
		uint16_t v = (uint16_t)(((x >> 31) << 15) | ((0x3C00u + (x >> 20 & 0x1FF)) & 0x7FFF));
		p[2 * i] = (uint8_t)v;
		p[2 * i + 1] = (uint8_t)(v >> 8);
	}
}

/* Write tensors [a, b) as one safetensors file; data = deterministic
 * values, or a sparse hole when `sparse`. */
static void
write_safetensors(const char *file, const tlist *l, size_t a, size_t b,
		  const char *meta_json, bool sparse)
{
	size_t hl;
	char *h = header_json(l, a, b, meta_json, &hl);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s: %s", file, strerror(errno));
	uint8_t n8[8];
	for (int i = 0; i < 8; i++)
		n8[i] = (uint8_t)((uint64_t)hl >> (8 * i));
	write_all(fd, n8, 8, file);
	write_all(fd, h, hl, file);
	uint64_t total = 0;
	for (size_t i = a; i < b; i++) {
		const tensor *t = &l->v[i];
		uint64_t n = nbytes(t);
		if (!sparse) {
			uint8_t *buf = calloc(1, n ? n : 1);
			if (!buf)
				die("out of memory");
			if (!strcmp(t->dtype, "BF16"))
				fill_bf16(buf, n / 2, (uint32_t)i + 1);
			else if (!strcmp(t->dtype, "F32"))
				for (uint64_t k = 0; k < n / 4; k++) {
					float one = 1.0f;
					memcpy(buf + 4 * k, &one, 4);
				}
			write_all(fd, buf, n, file);
			free(buf);
		}
		total += n;
	}
	if (sparse && ftruncate(fd, (off_t)(8 + hl + total)) != 0)
		die("truncate %s: %s", file, strerror(errno));
	close(fd);
	free(h);
}

/* ==== llama-family names and shapes ==== */

typedef struct dims {
	uint64_t vocab, hidden, inter, layers, heads, kv_heads, head_dim;
	bool tied;
} dims;

static void
llama_tensors(tlist *l, const dims *d, const char *dt, unsigned bits)
{
	uint64_t q = d->heads * d->head_dim, kv = d->kv_heads * d->head_dim;
	add(l, dt, bits, 2, d->vocab, d->hidden, "model.embed_tokens.weight");
	for (uint64_t i = 0; i < d->layers; i++) {
		add(l, dt, bits, 1, d->hidden, 0, "model.layers.%" PRIu64 ".input_layernorm.weight", i);
		add(l, dt, bits, 2, q, d->hidden, "model.layers.%" PRIu64 ".self_attn.q_proj.weight", i);
		add(l, dt, bits, 2, kv, d->hidden, "model.layers.%" PRIu64 ".self_attn.k_proj.weight", i);
		add(l, dt, bits, 2, kv, d->hidden, "model.layers.%" PRIu64 ".self_attn.v_proj.weight", i);
		add(l, dt, bits, 2, d->hidden, q, "model.layers.%" PRIu64 ".self_attn.o_proj.weight", i);
		add(l, dt, bits, 1, d->hidden, 0, "model.layers.%" PRIu64 ".post_attention_layernorm.weight", i);
		add(l, dt, bits, 2, d->inter, d->hidden, "model.layers.%" PRIu64 ".mlp.gate_proj.weight", i);
		add(l, dt, bits, 2, d->inter, d->hidden, "model.layers.%" PRIu64 ".mlp.up_proj.weight", i);
		add(l, dt, bits, 2, d->hidden, d->inter, "model.layers.%" PRIu64 ".mlp.down_proj.weight", i);
	}
	add(l, dt, bits, 1, d->hidden, 0, "model.norm.weight");
	if (!d->tied)
		add(l, dt, bits, 2, d->vocab, d->hidden, "lm_head.weight");
}

static const char tiny_config[] =
	"{\n"
	"  \"architectures\": [\"LlamaForCausalLM\"],\n"
	"  \"model_type\": \"llama\",\n"
	"  \"vocab_size\": 64,\n"
	"  \"hidden_size\": 32,\n"
	"  \"intermediate_size\": 88,\n"
	"  \"num_hidden_layers\": 2,\n"
	"  \"num_attention_heads\": 4,\n"
	"  \"num_key_value_heads\": 2,\n"
	"  \"head_dim\": 8,\n"
	"  \"rms_norm_eps\": 1e-05,\n"
	"  \"max_position_embeddings\": 256,\n"
	"  \"tie_word_embeddings\": %s,\n"
	"  \"torch_dtype\": \"bfloat16\"\n"
	"}\n";

static int
cmd_tiny(const char *dir, bool tied, bool f32)
{
	dims d = {64, 32, 88, 2, 4, 2, 8, tied};
	tlist l = {0};
	llama_tensors(&l, &d, f32 ? "F32" : "BF16", f32 ? 32 : 16);
	char cfg[1024];
	snprintf(cfg, sizeof cfg, tiny_config, tied ? "true" : "false");
	write_file(dir, "config.json", cfg, strlen(cfg));
	char *p = path_in(dir, "model.safetensors");
	write_safetensors(p, &l, 0, l.n, "\"__metadata__\":{\"format\":\"pt\"}", false);
	free(p);
	free(l.v);
	return 0;
}

/* ==== sparse full-size checkpoints ==== */

static uint64_t
cfg_u64(const cJSON *c, const char *key, uint64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, key);
	return cJSON_IsNumber(v) && v->valuedouble >= 0 ? (uint64_t)v->valuedouble : dflt;
}

static int
cmd_sparse(const char *dir, const char *config, uint64_t shards, const char *dtype)
{
	FILE *f = fopen(config, "rb");
	if (!f)
		die("open %s: %s", config, strerror(errno));
	char *buf = malloc(1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	fclose(f);
	buf[n] = '\0';
	cJSON *c = cJSON_Parse(buf);
	if (!c)
		die("%s: invalid JSON", config);
	dims d;
	d.vocab = cfg_u64(c, "vocab_size", 0);
	d.hidden = cfg_u64(c, "hidden_size", 0);
	d.inter = cfg_u64(c, "intermediate_size", 0);
	d.layers = cfg_u64(c, "num_hidden_layers", 0);
	d.heads = cfg_u64(c, "num_attention_heads", 0);
	d.kv_heads = cfg_u64(c, "num_key_value_heads", d.heads);
	d.head_dim = cfg_u64(c, "head_dim", d.heads ? d.hidden / d.heads : 0);
	d.tied = cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(c, "tie_word_embeddings"));
	if (!d.vocab || !d.hidden || !d.layers || !d.heads)
		die("%s: not a llama-family config", config);
	unsigned bits = !strcmp(dtype, "F32") ? 32 : 16;
	tlist l = {0};
	llama_tensors(&l, &d, dtype, bits);
	write_file(dir, "config.json", buf, n);
	free(buf);
	cJSON_Delete(c);

	if (shards <= 1) {
		char *p = path_in(dir, "model.safetensors");
		write_safetensors(p, &l, 0, l.n, "\"__metadata__\":{\"format\":\"pt\"}", true);
		free(p);
		free(l.v);
		return 0;
	}
	if (shards > l.n)
		shards = l.n;
	/* split the list into `shards` runs of near-equal tensor counts */
	cJSON *idx = cJSON_CreateObject(), *meta = cJSON_AddObjectToObject(idx, "metadata");
	cJSON *wm = cJSON_AddObjectToObject(idx, "weight_map");
	uint64_t total = 0;
	for (uint64_t s = 0; s < shards; s++) {
		size_t a = (size_t)(l.n * s / shards), b = (size_t)(l.n * (s + 1) / shards);
		char name[96];
		snprintf(name, sizeof name, "model-%05" PRIu64 "-of-%05" PRIu64 ".safetensors",
			 s + 1, shards);
		char *p = path_in(dir, name);
		write_safetensors(p, &l, a, b, "\"__metadata__\":{\"format\":\"pt\"}", true);
		free(p);
		for (size_t i = a; i < b; i++) {
			cJSON_AddStringToObject(wm, l.v[i].name, name);
			total += nbytes(&l.v[i]);
		}
	}
	char tot[32];
	snprintf(tot, sizeof tot, "%" PRIu64, total);
	cJSON_AddItemToObject(meta, "total_size", cJSON_CreateRaw(tot));
	char *js = cJSON_Print(idx);
	write_file(dir, "model.safetensors.index.json", js, strlen(js));
	free(js);
	cJSON_Delete(idx);
	free(l.v);
	return 0;
}

/* ==== broken files: one per rule ==== */

typedef struct bad_case {
	const char *name;
	const char *header;   /* JSON header, or NULL for raw */
	uint64_t data;        /* data bytes after the header */
	int64_t offset;       /* expected error offset (-1: any) */
	const char *expect;   /* fragment of the expected message */
} bad_case;

/* Offsets are 8 + the position in the header where the scanner stops. */
static const bad_case bad_cases[] = {
	{"not-object.safetensors", "[]", 0, 8, "expected '{'"},
	{"trailing.safetensors", "{} {}", 0, 11, "trailing characters"},
	{"nul-pad.safetensors", "{}\0\0\0\0\0\0", 0, 10, "trailing characters"},
	{"bad-utf8.safetensors", "{\"a\xff\":{}}", 0, 11, "invalid UTF-8"},
	{"dup-tensor.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, 62, "duplicate tensor name 'a'"},
	{"dup-field.safetensors", "{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4, 28, "duplicate key"},
	{"float-dim.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1.0],\"data_offsets\":[0,4]}}", 4, 37, "no fraction"},
	{"exp-dim.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1e0],\"data_offsets\":[0,4]}}", 4, 37, "no fraction"},
	{"neg-dim.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[-1],\"data_offsets\":[0,4]}}", 4, 37, "negative"},
	{"huge-dim.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[18446744073709551616],\"data_offsets\":[0,4]}}", 4, 37, "64 bits"},
	{"big-int.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[9007199254740993],\"data_offsets\":[0,4]}}", 4, 9, "needs 36028797018963972 bytes"},
	{"overflow.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[4294967296,4294967296,0],\"data_offsets\":[0,0]}}", 0, 9, "overflows"},
	{"bad-dtype.safetensors", "{\"a\":{\"dtype\":\"bf16\",\"shape\":[1],\"data_offsets\":[0,2]}}", 2, 22, "unknown dtype \"bf16\""},
	{"missing-offsets.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1]}}", 0, 9, "missing \"data_offsets\""},
	{"cut-offsets.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0", 0, 57, "unexpected end"},
	{"three-offsets.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4,8]}}", 8, 55, "2 integers"},
	{"f4-odd.safetensors", "{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2, 9, "whole number of bytes"},
	{"size-mismatch.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,4]}}", 4, 9, "needs 8 bytes"},
	{"gap.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, 9, "gap"},
	{"overlap.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]}}", 8, 62, "overlaps"},
	{"truncated.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[4],\"data_offsets\":[0,16]}}", 8, 71, "truncated"},
	{"trailing-data.safetensors", "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 12, 66, "8 trailing bytes"},
	{"dup-metadata.safetensors", "{\"__metadata__\":{},\"__metadata__\":{}}", 0, 27, "duplicate __metadata__"},
	{"meta-not-string.safetensors", "{\"__metadata__\":{\"a\":1}}", 0, 29, "must be strings"},
	{"lone-surrogate.safetensors", "{\"\\ud800\":{}}", 0, 16, "lone surrogate"},
	/* 128 levels (the outer object, the tensor's, 126 arrays): serde_json's
	 * limit, at the 128th opening bracket */
	{"deep.safetensors", NULL, 0, 8 + 10 + 125, "nested 128 levels deep"},
	{"header-too-large.safetensors", NULL, 0, 0, "100,000,000"},
	{"header-past-end.safetensors", NULL, 0, 0, "truncated"},
	{"tiny.safetensors", NULL, 0, 0, "too small"},
	{"empty.safetensors", NULL, 0, 0, "empty file"},
	{"lfs-pointer.safetensors", NULL, 0, 0, "LFS pointer for a 4,976,698,592-byte file"},
	{"html.safetensors", NULL, 0, 0, "HTML"},
	{"json-page.safetensors", NULL, 0, 0, "JSON document"},
	{"pickle.safetensors", NULL, 0, 0, "pickle"},
	{"zip.safetensors", NULL, 0, 0, "zip archive"},
};

static void
write_header_file(const char *dir, const char *name, const char *h, size_t hl, uint64_t data)
{
	size_t total = 8 + hl + (size_t)data;
	uint8_t *b = calloc(1, total);
	if (!b)
		die("out of memory");
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)((uint64_t)hl >> (8 * i));
	memcpy(b + 8, h, hl);
	write_file(dir, name, b, total);
	free(b);
}

static int
cmd_bad(const char *dir)
{
	char *tsv = path_in(dir, "EXPECT.tsv");
	FILE *ex = fopen(tsv, "w");
	if (!ex)
		die("open %s: %s", tsv, strerror(errno));
	for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; i++) {
		const bad_case *c = &bad_cases[i];
		if (c->header) {
			/* nul-pad has embedded NULs: its length is fixed */
			size_t hl = !strcmp(c->name, "nul-pad.safetensors") ? 8 : strlen(c->header);
			write_header_file(dir, c->name, c->header, hl, c->data);
		} else if (!strcmp(c->name, "deep.safetensors")) {
			char h[512];
			size_t o = 0;
			o += (size_t)snprintf(h, sizeof h, "{\"a\":{\"x\":");
			for (int k = 0; k < 126; k++)
				h[o++] = '[';
			for (int k = 0; k < 126; k++)
				h[o++] = ']';
			h[o++] = '}';
			h[o++] = '}';
			write_header_file(dir, c->name, h, o, 0);
		} else if (!strcmp(c->name, "header-too-large.safetensors")) {
			uint8_t b[16] = {0x01, 0xE1, 0xF5, 0x05}; /* 100,000,001 */
			memcpy(b + 8, "{}      ", 8);
			write_file(dir, c->name, b, 16);
		} else if (!strcmp(c->name, "header-past-end.safetensors")) {
			uint8_t b[12] = {64};
			memcpy(b + 8, "{}  ", 4);
			write_file(dir, c->name, b, 12);
		} else if (!strcmp(c->name, "tiny.safetensors")) {
			write_file(dir, c->name, "\x02\0\0", 3);
		} else if (!strcmp(c->name, "empty.safetensors")) {
			write_file(dir, c->name, "", 0);
		} else if (!strcmp(c->name, "lfs-pointer.safetensors")) {
			static const char p[] = "version https://git-lfs.github.com/spec/v1\n"
				"oid sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
				"size 4976698592\n";
			write_file(dir, c->name, p, sizeof p - 1);
		} else if (!strcmp(c->name, "html.safetensors")) {
			static const char p[] = "<!DOCTYPE html><html><body>Not found</body></html>\n";
			write_file(dir, c->name, p, sizeof p - 1);
		} else if (!strcmp(c->name, "json-page.safetensors")) {
			static const char p[] = "{\"error\":\"Repository not found\"}";
			write_file(dir, c->name, p, sizeof p - 1);
		} else if (!strcmp(c->name, "pickle.safetensors")) {
			static const uint8_t p[] = {0x80, 0x02, 0x63, 0x63, 0x6f, 0x6c, 0x6c, 0x65,
						    0x63, 0x74, 0x69, 0x6f, 0x6e, 0x73, 0x0a};
			write_file(dir, c->name, p, sizeof p);
		} else if (!strcmp(c->name, "zip.safetensors")) {
			static const uint8_t p[] = {'P', 'K', 3, 4, 20, 0, 0, 0, 0, 0, 0xAA, 0xBB};
			write_file(dir, c->name, p, sizeof p);
		}
		fprintf(ex, "%s\t%" PRId64 "\t%s\n", c->name, c->offset, c->expect);
	}
	fclose(ex);
	free(tsv);
	return 0;
}

/* ==== hostile names: what must never reach a terminal or a CI log raw ==== */

static void
put_u32(uint8_t **p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		*(*p)++ = (uint8_t)(v >> (8 * i));
}

static void
put_u64(uint8_t **p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		*(*p)++ = (uint8_t)(v >> (8 * i));
}

static void
put_str(uint8_t **p, const char *s, size_t n)
{
	put_u64(p, n);
	memcpy(*p, s, n);
	*p += n;
}

/* Names with a newline + GitHub command, ANSI escapes, a bidi override,
 * percent signs; the GGUF adds invalid UTF-8 and a NUL byte. */
static const char *const hostile_st[] = {
	"a\\n::error::pwned",
	"b\\u001b[31mred\\u001b[0m",
	"c\\u202eoverride",
	"d%0A%25,:x",
};

static int
cmd_hostile(const char *dir)
{
	char h[1024];
	size_t o = 0;
	o += (size_t)snprintf(h + o, sizeof h - o, "{\"__metadata__\":{\"k\\u001b]0;title\\u0007\":\"v\\n::warning::x\"}");
	for (size_t i = 0; i < 4; i++)
		o += (size_t)snprintf(h + o, sizeof h - o,
				      ",\"%s\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[%zu,%zu]}",
				      hostile_st[i], 4 * i, 4 * i + 4);
	h[o++] = '}';
	write_header_file(dir, "hostile.safetensors", h, o, 16);

#define LIT(s) {s, sizeof s - 1}
	static const struct { const char *name; size_t len; } gn[] = {
		LIT("bad\xff\xfeutf8"),
		LIT("nul\0hidden"),
		LIT("esc\x1b]8;;http://x\x07link"),
	};
#undef LIT
	uint8_t buf[1024], *p = buf;
	memcpy(p, "GGUF", 4);
	p += 4;
	put_u32(&p, 3);
	put_u64(&p, 3); /* tensors */
	put_u64(&p, 2); /* kv */
	put_str(&p, "general.architecture", 20);
	put_u32(&p, 8);
	put_str(&p, "llama", 5);
	put_str(&p, "general.name", 12);
	put_u32(&p, 8);
	put_str(&p, "x\n::error::y\x1b[2J", 16);
	for (size_t i = 0; i < 3; i++) {
		put_str(&p, gn[i].name, gn[i].len);
		put_u32(&p, 1);
		put_u64(&p, 8);
		put_u32(&p, 0); /* F32 */
		put_u64(&p, 32 * i);
	}
	size_t hl = (size_t)(p - buf), pad = (32 - hl % 32) % 32;
	memset(p, 0, pad + 96);
	write_file(dir, "hostile.gguf", buf, hl + pad + 96);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "hostile")) {
		mkdir(argv[2], 0755);
		return cmd_hostile(argv[2]);
	}
	if (argc >= 3 && !strcmp(argv[1], "tiny")) {
		bool tied = false, f32 = false;
		for (int i = 3; i < argc; i++) {
			if (!strcmp(argv[i], "--tied"))
				tied = true;
			else if (!strcmp(argv[i], "--f32"))
				f32 = true;
			else
				die("tiny: unknown option %s", argv[i]);
		}
		mkdir(argv[2], 0755);
		return cmd_tiny(argv[2], tied, f32);
	}
	if (argc == 3 && !strcmp(argv[1], "bad")) {
		mkdir(argv[2], 0755);
		return cmd_bad(argv[2]);
	}
	if (argc >= 4 && !strcmp(argv[1], "sparse")) {
		uint64_t shards = 1;
		const char *dtype = "BF16";
		for (int i = 4; i < argc; i++) {
			if (!strcmp(argv[i], "--shards") && i + 1 < argc)
				shards = strtoull(argv[++i], NULL, 10);
			else if (!strcmp(argv[i], "--dtype") && i + 1 < argc)
				dtype = argv[++i];
			else
				die("sparse: unknown option %s", argv[i]);
		}
		mkdir(argv[2], 0755);
		return cmd_sparse(argv[2], argv[3], shards, dtype);
	}
	fputs("usage: mkfixture tiny DIR [--tied] [--f32]\n"
	      "       mkfixture bad DIR\n"
	      "       mkfixture hostile DIR\n"
	      "       mkfixture sparse DIR CONFIG [--shards N] [--dtype BF16|F32]\n", stderr);
	return 2;
}
