/*
 * mkmutants.c - the mutation suite: mutants of valid safetensors and GGUF
 * files (made by mkfixture, mkmodel and mkgguf), each with its oracle, and
 * the runner that asserts every verdict.
 *
 *   mkmutants gen safetensors|gguf DIR [--per-class N] BASE...
 *       DIR/m-CLASS-K.{safetensors,gguf} and DIR/ORACLE.tsv, one line a
 *       mutant: file, class, expected exit (0 or 3), expected error offset,
 *       tensor count, elements (the counts of an exit-0 mutant, computed
 *       here from the base's own fields)
 *   mkmutants run WEIGHTSCAN DIR [--batch N]
 *       runs `WEIGHTSCAN --json -- FILE...` over the mutants in batches and
 *       asserts each verdict: exit 3 with `FILE: offset N: ` on stderr and
 *       the same offset in the JSON error, or exit 0 with the counts; a
 *       batch over 5 s fails (so does any file in it).  Prints one line per
 *       class and the totals; exit 1 on any wrong verdict.
 *
 * Every class names the rule it breaks or the valid change it makes (the
 * `classes` tables below).  More than half are header mutations; the rest
 * cut the file inside its data or flip data bytes.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "gen.h"

#define BATCH_LIMIT_S 5.0

/* ==== shared ==== */

static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t
rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static uint64_t
rnd_in(uint64_t lo, uint64_t hi) /* [lo, hi] */
{
	return hi - lo == UINT64_MAX ? rnd() : lo + rnd() % (hi - lo + 1);
}

typedef struct bytes {
	uint8_t *p;
	size_t len;
} bytes;

static bytes
read_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("%s: %s", path, strerror(errno));
	bytes b = {0};
	size_t cap = 0, n;
	uint8_t buf[65536];
	while ((n = fread(buf, 1, sizeof buf, f)) > 0) {
		if (b.len + n > cap) {
			cap = (b.len + n) * 2;
			b.p = xrealloc(b.p, cap);
		}
		memcpy(b.p + b.len, buf, n);
		b.len += n;
	}
	fclose(f);
	return b;
}

static bytes
copy(const bytes *b)
{
	bytes c = {xrealloc(NULL, b->len ? b->len : 1), b->len};
	memcpy(c.p, b->p, b->len);
	return c;
}

/* Replace [at, at+n) with r[0..rn). */
static void
buf_splice(bytes *b, size_t at, size_t n, const void *r, size_t rn)
{
	size_t tail = b->len - at - n;
	if (rn > n)
		b->p = xrealloc(b->p, b->len + rn - n);
	memmove(b->p + at + rn, b->p + at + n, tail);
	memcpy(b->p + at, r, rn);
	b->len = b->len - n + rn;
}

static const char *out_dir;
static FILE *oracle;

/* Write mutant k of class cls with its oracle. */
static void
emit(const char *cls, unsigned k, const char *ext, const bytes *b, int exit_code,
     uint64_t offset, uint64_t tensors, uint64_t elements)
{
	char name[256], path[4096];
	snprintf(name, sizeof name, "m-%s-%04u.%s", cls, k, ext);
	snprintf(path, sizeof path, "%s/%s", out_dir, name);
	/* zero blocks (most of a quantized base's data) left as holes: a few
	 * thousand mutants take megabytes, not gigabytes */
	int fd = create_file(path);
	for (size_t at = 0; at < b->len; at += 4096) {
		size_t n = b->len - at < 4096 ? b->len - at : 4096;
		bool zero = true;
		for (size_t i = 0; i < n && zero; i++)
			zero = !b->p[at + i];
		if (zero)
			continue;
		if (lseek(fd, (off_t)at, SEEK_SET) < 0)
			die("%s: %s", path, strerror(errno));
		write_all(fd, b->p + at, n, path);
	}
	if (ftruncate(fd, (off_t)b->len) != 0 || close(fd) != 0)
		die("%s: %s", path, strerror(errno));
	fprintf(oracle, "%s\t%s\t%d\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\n", name, cls, exit_code,
		offset, tensors, elements);
}

/* ==== safetensors ==== */

static const char *const st_dtypes[] = {
	"F64", "F32", "F16", "BF16", "I64", "I32", "I16", "I8", "U64", "U32", "U16", "U8",
	"BOOL", "C64", "F8_E5M2", "F8_E4M3", "F8_E8M0", "F8_E4M3FNUZ", "F8_E5M2FNUZ",
	"F6_E2M3", "F6_E3M2", "F4",
};

typedef struct st_tensor {
	size_t key_at;      /* the opening quote of its name, in the header */
	size_t name_len;    /* raw bytes between the quotes */
	size_t dtype_at;    /* the dtype value's opening quote */
	size_t dtype_len;   /* with its quotes */
	size_t shape_at;    /* '[' */
	size_t ndim;
	size_t dim_at[8], dim_len[8];
	size_t offs_at;     /* '[' of data_offsets */
	size_t begin_at, begin_len, end_at, end_len;
	size_t value_at;    /* '{' of the entry */
	size_t value_end;   /* its '}' */
	uint64_t begin, end;
} st_tensor;

typedef struct st_base {
	bytes b;
	size_t hlen;       /* the header length field */
	size_t json_end;   /* one past the closing '}' of the header object */
	st_tensor t[512];
	size_t nt;
	uint64_t elements;
} st_base;

/* Position of needle in hay[from..to), or die. */
static size_t
find(const uint8_t *hay, size_t from, size_t to, const char *needle)
{
	size_t n = strlen(needle);
	for (size_t i = from; i + n <= to; i++)
		if (!memcmp(hay + i, needle, n))
			return i;
	die("base header: '%s' not found", needle);
}

static size_t
number_len(const uint8_t *p)
{
	size_t n = 0;
	while (p[n] >= '0' && p[n] <= '9')
		n++;
	return n;
}

/* The base is a file our generators wrote: compact JSON whose tensor
 * entries list dtype, shape, data_offsets.  Positions are found by the
 * names cJSON reports. */
static void
st_load(st_base *s, const char *path)
{
	memset(s, 0, sizeof *s);
	s->b = read_file(path);
	if (s->b.len < 8)
		die("%s: too short", path);
	for (int i = 0; i < 8; i++)
		s->hlen |= (size_t)s->b.p[i] << (8 * i);
	const uint8_t *h = s->b.p + 8;
	cJSON *j = cJSON_ParseWithLength((const char *)h, s->hlen);
	if (!j)
		die("%s: base header does not parse", path);
	size_t end = s->hlen;
	while (end && h[end - 1] != '}')
		end--;
	s->json_end = end;
	size_t from = 1;
	for (cJSON *e = j->child; e; e = e->next) {
		if (!strcmp(e->string, "__metadata__"))
			continue;
		if (s->nt == sizeof s->t / sizeof s->t[0])
			die("%s: too many tensors for a base", path);
		st_tensor *t = &s->t[s->nt++];
		char key[600];
		snprintf(key, sizeof key, "\"%s\":{", e->string);
		t->key_at = find(h, from, s->hlen, key);
		t->name_len = strlen(e->string);
		t->value_at = t->key_at + strlen(key) - 1;
		size_t close = t->value_at;
		while (h[close] != '}')
			close++;
		t->value_end = close;
		t->dtype_at = find(h, t->value_at, close, "\"dtype\":\"") + 8;
		t->dtype_len = strlen(cJSON_GetObjectItem(e, "dtype")->valuestring) + 2;
		t->shape_at = find(h, t->value_at, close, "\"shape\":[") + 8;
		size_t p = t->shape_at + 1;
		uint64_t el = 1;
		while (h[p] != ']') {
			if (t->ndim == 8)
				die("%s: base tensor of over 8 dims", path);
			t->dim_at[t->ndim] = p;
			t->dim_len[t->ndim] = number_len(h + p);
			el *= strtoull((const char *)h + p, NULL, 10);
			p += t->dim_len[t->ndim++];
			if (h[p] == ',')
				p++;
		}
		s->elements += el;
		t->offs_at = find(h, t->value_at, close, "\"data_offsets\":[") + 15;
		t->begin_at = t->offs_at + 1;
		t->begin_len = number_len(h + t->begin_at);
		t->end_at = t->begin_at + t->begin_len + 1;
		t->end_len = number_len(h + t->end_at);
		t->begin = strtoull((const char *)h + t->begin_at, NULL, 10);
		t->end = strtoull((const char *)h + t->end_at, NULL, 10);
		from = close;
	}
	cJSON_Delete(j);
	if (!s->nt)
		die("%s: a base needs tensors", path);
}

/* Replace header bytes [at, at+n) with r and fix the length field; at is
 * relative to the header.  Returns the mutant. */
static bytes
st_edit(const st_base *s, size_t at, size_t n, const char *r, size_t rn)
{
	bytes b = copy(&s->b);
	buf_splice(&b, 8 + at, n, r, rn);
	uint64_t hl = s->hlen - n + rn;
	for (int i = 0; i < 8; i++)
		b.p[i] = (uint8_t)(hl >> (8 * i));
	return b;
}

typedef struct st_class {
	const char *name;
	const char *oracle;
} st_class;

/* One mutant of class c from base s: its bytes and oracle. */
typedef struct verdict {
	int exit_code;
	uint64_t offset;
} verdict;

static bool
valid_dtype(const char *d)
{
	for (size_t i = 0; i < sizeof st_dtypes / sizeof st_dtypes[0]; i++)
		if (!strcmp(st_dtypes[i], d))
			return true;
	return false;
}

static const st_class st_classes[] = {
	{"st-dtype", "an unknown dtype string: exit 3 at the value's opening quote"},
	{"st-dtype-type", "dtype not a string (number, literal, array, object): exit 3 at the value"},
	{"st-dim-number", "a shape dimension negative, fractional, with an exponent or over 2^64: exit 3 at the number"},
	{"st-dim-size", "a shape dimension changed (a valid integer): the shape's bytes differ from data_offsets, exit 3 at the tensor's name"},
	{"st-offsets", "one data offset changed: the span differs from the shape's bytes, exit 3 at the tensor's name"},
	{"st-length", "the header length: past the file (exit 3 at 0) or inside the JSON (exit 3 at 8 + length, where the text stops)"},
	{"st-nesting", "an unknown field nesting k arrays: 128 levels or more, exit 3 at the 128th bracket; fewer, valid (exit 0, counts unchanged)"},
	{"st-key-type", "a tensor entry, shape or data_offsets not of its JSON type: exit 3 at the value"},
	{"st-name", "a tensor renamed (a letter changed, names stay distinct): valid, exit 0 with the counts unchanged"},
	{"st-truncate", "the file cut inside its data: exit 3 at the new end of the file"},
	{"st-flip", "data bytes flipped: valid, exit 0 with the counts unchanged"},
};
#define N_ST_CLASSES (sizeof st_classes / sizeof st_classes[0])

static bytes
st_mutant(const st_base *s, size_t cls, verdict *v)
{
	const st_tensor *t = &s->t[rnd() % s->nt];
	const uint8_t *h = s->b.p + 8;
	char r[512];
	size_t rn;
	bytes b;
	*v = (verdict){3, 0};
	switch (cls) {
	case 0: { /* st-dtype */
		char d[32];
		do {
			static const char al[] = "ABFIUCabfiuc0123456789_X";
			size_t n = rnd_in(0, 12);
			for (size_t i = 0; i < n; i++)
				d[i] = al[rnd() % (sizeof al - 1)];
			d[n] = '\0';
			if (rnd() % 2) /* a near miss: a real name, altered */
				snprintf(d, sizeof d, "%s%s", st_dtypes[rnd() % 22],
					 (const char *[]){"X", "_", "0", "FN", "16"}[rnd() % 5]);
		} while (valid_dtype(d));
		rn = (size_t)snprintf(r, sizeof r, "\"%s\"", d);
		v->offset = 8 + t->dtype_at;
		return st_edit(s, t->dtype_at, t->dtype_len, r, rn);
	}
	case 1: { /* st-dtype-type */
		static const char *const vals[] = {"16", "-1", "1.5", "true", "false", "null",
						   "[\"F32\"]", "{\"F32\":1}", "[]", "{}"};
		const char *val = vals[rnd() % 10];
		if (rnd() % 3 == 0) {
			rn = (size_t)snprintf(r, sizeof r, "%" PRIu64, rnd() % 100000);
		} else {
			rn = strlen(val);
			memcpy(r, val, rn);
		}
		v->offset = 8 + t->dtype_at;
		return st_edit(s, t->dtype_at, t->dtype_len, r, rn);
	}
	case 2: { /* st-dim-number */
		if (!t->ndim)
			return st_mutant(s, cls, v);
		size_t d = rnd() % t->ndim;
		switch (rnd() % 4) {
		case 0: rn = (size_t)snprintf(r, sizeof r, "-%" PRIu64, rnd_in(1, 1u << 20)); break;
		case 1: rn = (size_t)snprintf(r, sizeof r, "%" PRIu64 ".%" PRIu64, rnd() % 99, rnd() % 10); break;
		case 2: rn = (size_t)snprintf(r, sizeof r, "%" PRIu64 "e%" PRIu64, rnd() % 99, rnd() % 5); break;
		default: rn = (size_t)snprintf(r, sizeof r, "%" PRIu64 "%05" PRIu64, (uint64_t)(UINT64_MAX / 10 + 1 + rnd() % 1000), rnd() % 100000); break;
		}
		v->offset = 8 + t->dim_at[d];
		return st_edit(s, t->dim_at[d], t->dim_len[d], r, rn);
	}
	case 3: { /* st-dim-size */
		if (!t->ndim)
			return st_mutant(s, cls, v);
		size_t d = rnd() % t->ndim;
		uint64_t old = strtoull((const char *)h + t->dim_at[d], NULL, 10), nv;
		do
			nv = rnd() % 3 ? rnd_in(1, 4096) : rnd_in(1, UINT32_MAX);
		while (nv == old);
		rn = (size_t)snprintf(r, sizeof r, "%" PRIu64, nv);
		v->offset = 8 + t->key_at;
		return st_edit(s, t->dim_at[d], t->dim_len[d], r, rn);
	}
	case 4: { /* st-offsets */
		bool end = rnd() % 2;
		uint64_t old = end ? t->end : t->begin, nv;
		do
			nv = rnd() % 2 ? old + rnd_in(1, 64) - (old > 64 ? rnd_in(0, 64) : 0)
				       : rnd_in(0, s->b.len);
		while (nv == old || (end ? nv < t->begin : nv > t->end));
		rn = (size_t)snprintf(r, sizeof r, "%" PRIu64, nv);
		v->offset = 8 + t->key_at;
		return end ? st_edit(s, t->end_at, t->end_len, r, rn)
			   : st_edit(s, t->begin_at, t->begin_len, r, rn);
	}
	case 5: { /* st-length */
		b = copy(&s->b);
		uint64_t hl;
		if (rnd() % 2) {
			hl = rnd() % 4 ? rnd_in(s->b.len - 7, s->b.len + 1000000) : rnd_in(s->b.len, UINT64_MAX);
			v->offset = 0;
		} else {
			hl = rnd_in(2, s->json_end - 1);
			v->offset = 8 + hl;
		}
		for (int i = 0; i < 8; i++)
			b.p[i] = (uint8_t)(hl >> (8 * i));
		return b;
	}
	case 6: { /* st-nesting */
		unsigned k = (unsigned)rnd_in(1, 200);
		char *ins = xrealloc(NULL, 2 * k + 16);
		size_t n = (size_t)snprintf(ins, 16, ",\"x\":");
		for (unsigned i = 0; i < k; i++)
			ins[n++] = '[';
		for (unsigned i = 0; i < k; i++)
			ins[n++] = ']';
		/* the outer object, the entry, then k arrays */
		if (k + 2 >= 128) {
			v->offset = 8 + t->value_end + 5 + (128 - 3);
		} else {
			v->exit_code = 0;
		}
		b = st_edit(s, t->value_end, 0, ins, n);
		free(ins);
		return b;
	}
	case 7: { /* st-key-type */
		static const char *const vals[] = {"\"x\"", "1", "true", "null", "[1]", "{\"a\":1}"};
		const char *val = vals[rnd() % 6];
		switch (rnd() % 3) {
		case 0: /* the entry itself */
			if (val[0] == '{')
				val = "[]";
			v->offset = 8 + t->value_at;
			return st_edit(s, t->value_at, t->value_end + 1 - t->value_at, val, strlen(val));
		case 1: { /* shape */
			if (val[0] == '[')
				val = "{}";
			size_t close = t->shape_at;
			while (h[close] != ']')
				close++;
			v->offset = 8 + t->shape_at;
			return st_edit(s, t->shape_at, close + 1 - t->shape_at, val, strlen(val));
		}
		default: { /* data_offsets */
			if (val[0] == '[')
				val = "{}";
			size_t close = t->offs_at;
			while (h[close] != ']')
				close++;
			v->offset = 8 + t->offs_at;
			return st_edit(s, t->offs_at, close + 1 - t->offs_at, val, strlen(val));
		}
		}
	}
	case 8: { /* st-name: a letter changed; the new name must be new */
		for (;;) {
			size_t pos = t->key_at + 1 + rnd() % t->name_len;
			char c = (char)('a' + rnd() % 26);
			if (h[pos] == (uint8_t)c || h[pos] == '\\')
				continue;
			bool clash = false;
			for (size_t i = 0; i < s->nt && !clash; i++) {
				const st_tensor *o = &s->t[i];
				if (o == t || o->name_len != t->name_len)
					continue;
				clash = true;
				for (size_t q = 0; q < t->name_len && clash; q++) {
					uint8_t a = t->key_at + 1 + q == pos ? (uint8_t)c : h[t->key_at + 1 + q];
					clash = a == h[o->key_at + 1 + q];
				}
			}
			if (clash || !strncmp((const char *)h + t->key_at + 1, "__metadata__", 12))
				continue;
			v->exit_code = 0;
			return st_edit(s, pos, 1, &c, 1);
		}
	}
	case 9: { /* st-truncate */
		size_t data = 8 + s->hlen;
		if (s->b.len <= data + 1)
			die("base without data to cut");
		b = copy(&s->b);
		b.len = rnd_in(data, s->b.len - 1);
		v->offset = b.len;
		return b;
	}
	default: { /* st-flip */
		size_t data = 8 + s->hlen;
		b = copy(&s->b);
		unsigned flips = (unsigned)rnd_in(1, 16);
		for (unsigned i = 0; i < flips && b.len > data; i++)
			b.p[rnd_in(data, b.len - 1)] ^= (uint8_t)rnd_in(1, 255);
		v->exit_code = 0;
		return b;
	}
	}
}

static void
gen_safetensors(char **bases, int nb, unsigned per)
{
	st_base *s = xrealloc(NULL, (size_t)nb * sizeof *s);
	for (int i = 0; i < nb; i++)
		st_load(&s[i], bases[i]);
	for (size_t c = 0; c < N_ST_CLASSES; c++) {
		rng = 0x9E3779B97F4A7C15ull ^ (c * 0x100000001B3ull);
		for (unsigned k = 0; k < per; k++) {
			const st_base *b = &s[k % (unsigned)nb];
			verdict v;
			bytes m = st_mutant(b, c, &v);
			emit(st_classes[c].name, k, "safetensors", &m, v.exit_code, v.offset, b->nt,
			     b->elements);
			free(m.p);
		}
	}
	for (int i = 0; i < nb; i++)
		free(s[i].b.p);
	free(s);
}

/* ==== GGUF ==== */

typedef struct g_kv {
	size_t key_len_at, type_at, val_at, end;
	uint32_t type, arr_type;
	uint64_t key_len;
	char key[96];
	size_t str_len_at; /* a string value's length field */
} g_kv;

typedef struct g_ti {
	size_t name_len_at, name_at, nd_at, ne_at[8], type_at, off_at;
	uint64_t name_len, rel, bytes, elements;
	uint32_t nd, type;
} g_ti;

typedef struct g_base {
	bytes b;
	bool be;
	g_kv kv[64];
	size_t nkv;
	g_ti t[64];
	size_t nt;
	size_t header_end, data_start;
	uint64_t align, elements;
	size_t align_kv, bool_kv; /* indexes, or SIZE_MAX */
} g_base;

static uint64_t
g_rd(const g_base *g, size_t at, unsigned n)
{
	if (at + n > g->b.len)
		die("GGUF base truncated at %zu", at);
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++)
		v |= (uint64_t)g->b.p[at + (g->be ? n - 1 - i : i)] << (8 * i);
	return v;
}

static void
g_wr(bytes *b, bool be, size_t at, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		b->p[at + (be ? n - 1 - i : i)] = (uint8_t)(v >> (8 * i));
}

static const uint8_t g_scalar[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* The ggml types our generators write: block elements and bytes. */
static void
g_type_size(uint32_t type, uint64_t *block, uint64_t *nbytes)
{
	static const struct { uint32_t id; uint64_t block, bytes; } t[] = {
		{0, 1, 4}, {1, 1, 2}, {8, 32, 34}, {12, 256, 144}, {30, 1, 2},
		{2, 32, 18}, {3, 32, 20}, {6, 32, 22}, {7, 32, 24}, {10, 256, 84},
		{11, 256, 110}, {13, 256, 176}, {14, 256, 210}, {15, 256, 292},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (t[i].id == type) {
			*block = t[i].block;
			*nbytes = t[i].bytes;
			return;
		}
	die("GGUF base: ggml type %u not in mkmutants' table", type);
}

static size_t
g_skip_value(const g_base *g, size_t at, uint32_t type, int depth)
{
	if (type < 13 && g_scalar[type])
		return at + g_scalar[type];
	if (type == 8)
		return at + 8 + g_rd(g, at, 8);
	if (type == 9 && depth < 4) {
		uint32_t et = (uint32_t)g_rd(g, at, 4);
		uint64_t n = g_rd(g, at + 4, 8);
		size_t p = at + 12;
		for (uint64_t i = 0; i < n; i++)
			p = g_skip_value(g, p, et, depth + 1);
		return p;
	}
	die("GGUF base: value type %u", type);
}

static void
g_load(g_base *g, const char *path)
{
	memset(g, 0, sizeof *g);
	g->b = read_file(path);
	if (g->b.len < 24 || memcmp(g->b.p, "GGUF", 4))
		die("%s: not a GGUF base", path);
	g->be = (g_rd(g, 4, 4) & 0xFFFF) == 0;
	uint64_t nt = g_rd(g, 8, 8), nkv = g_rd(g, 16, 8);
	if (nkv > 64 || nt > 64)
		die("%s: base too large", path);
	g->align = 32;
	g->align_kv = g->bool_kv = SIZE_MAX;
	size_t p = 24;
	for (size_t i = 0; i < nkv; i++) {
		g_kv *k = &g->kv[g->nkv++];
		k->key_len_at = p;
		k->key_len = g_rd(g, p, 8);
		snprintf(k->key, sizeof k->key, "%.*s", (int)k->key_len, (const char *)g->b.p + p + 8);
		p += 8 + k->key_len;
		k->type_at = p;
		k->type = (uint32_t)g_rd(g, p, 4);
		k->val_at = p + 4;
		if (k->type == 9)
			k->arr_type = (uint32_t)g_rd(g, k->val_at, 4);
		if (k->type == 8)
			k->str_len_at = k->val_at;
		k->end = g_skip_value(g, k->val_at, k->type, 0);
		if (!strcmp(k->key, "general.alignment")) {
			g->align = g_rd(g, k->val_at, 4);
			g->align_kv = i;
		}
		if (k->type == 7)
			g->bool_kv = i;
		p = k->end;
	}
	for (size_t i = 0; i < nt; i++) {
		g_ti *t = &g->t[g->nt++];
		t->name_len_at = p;
		t->name_len = g_rd(g, p, 8);
		t->name_at = p + 8;
		p += 8 + t->name_len;
		t->nd_at = p;
		t->nd = (uint32_t)g_rd(g, p, 4);
		if (t->nd > 8)
			die("%s: a base tensor of %u dimensions", path, t->nd);
		p += 4;
		t->elements = 1;
		for (uint32_t d = 0; d < t->nd; d++) {
			t->ne_at[d] = p;
			t->elements *= g_rd(g, p, 8);
			p += 8;
		}
		t->type_at = p;
		t->type = (uint32_t)g_rd(g, p, 4);
		t->off_at = p + 4;
		t->rel = g_rd(g, p + 4, 8);
		p += 12;
		uint64_t block, bb;
		g_type_size(t->type, &block, &bb);
		t->bytes = t->elements / block * bb;
		g->elements += t->elements;
	}
	g->header_end = p;
	g->data_start = (p + g->align - 1) / g->align * g->align;
	if (!g->nt)
		die("%s: a base needs tensors", path);
}

static const st_class g_classes[] = {
	{"gg-kv-type", "a key's value type not a GGUF type (13 and up): exit 3 at the type"},
	{"gg-array-type", "an array's element type not a GGUF type: exit 3 at the array"},
	{"gg-tensor-type", "a tensor's ggml type unknown or removed (4, 5, 100 and up): exit 3 at the type"},
	{"gg-ndims", "n_dims more than the rest of the file holds (8 bytes a dimension): exit 3 at n_dims"},
	{"gg-dim", "a dimension of 2^63 or more (negative as int64): exit 3 at the dimension"},
	{"gg-length", "a key, string value or tensor name length past the end of the file, or a name over 64 bytes: exit 3 at the length"},
	{"gg-count", "the tensor or key/value count more than the file can hold: exit 3 at the count (8 or 16)"},
	{"gg-alignment", "general.alignment not a multiple of 8, or not a u32: exit 3 at the value or the type"},
	{"gg-bool", "a bool byte other than 0 or 1: exit 3 at the byte"},
	{"gg-offset", "a tensor's data offset not the running sum of padded sizes: exit 3 at the offset"},
	{"gg-version", "a version other than 2 or 3: exit 3 at 4"},
	{"gg-name", "a tensor renamed (a letter changed, names stay distinct): valid, exit 0 with the counts unchanged"},
	{"gg-truncate", "the file cut after its tensor infos: exit 3 at the end of the infos (data start past the end) or at the first tensor whose data runs past the cut"},
	{"gg-flip", "data bytes flipped: valid, exit 0 with the counts unchanged"},
};
#define N_G_CLASSES (sizeof g_classes / sizeof g_classes[0])

static bytes
g_mutant(const g_base *g, size_t cls, verdict *v)
{
	bytes b = copy(&g->b);
	const g_ti *t = &g->t[rnd() % g->nt];
	const g_kv *k = &g->kv[rnd() % g->nkv];
	*v = (verdict){3, 0};
	switch (cls) {
	case 0:
		g_wr(&b, g->be, k->type_at, rnd_in(13, UINT32_MAX), 4);
		v->offset = k->type_at;
		break;
	case 1: {
		size_t tries = 0;
		while (k->type != 9 && tries++ < 1000)
			k = &g->kv[rnd() % g->nkv];
		if (k->type != 9)
			die("GGUF base without arrays");
		g_wr(&b, g->be, k->val_at, rnd_in(13, UINT32_MAX), 4);
		v->offset = k->val_at;
		break;
	}
	case 2: {
		uint64_t ty = rnd() % 8 == 0 ? 4 + rnd() % 2 : rnd_in(100, UINT32_MAX);
		g_wr(&b, g->be, t->type_at, ty, 4);
		v->offset = t->type_at;
		break;
	}
	case 3:
		/* fewer, over ggml's 4, are the specification's to allow */
		g_wr(&b, g->be, t->nd_at, rnd_in((b.len - t->nd_at - 4) / 8 + 1, UINT32_MAX), 4);
		v->offset = t->nd_at;
		break;
	case 4: {
		if (!t->nd)
			return free(b.p), g_mutant(g, cls, v);
		size_t d = rnd() % t->nd;
		g_wr(&b, g->be, t->ne_at[d], rnd_in(1ull << 63, UINT64_MAX), 8);
		v->offset = t->ne_at[d];
		break;
	}
	case 5: {
		size_t at;
		uint64_t lo;
		switch (rnd() % 3) {
		case 0: at = k->key_len_at; break;
		case 1:
			while (k->type != 8)
				k = &g->kv[rnd() % g->nkv];
			at = k->str_len_at;
			break;
		default: at = t->name_len_at; break;
		}
		lo = g->b.len - (at + 8) + 1; /* one more byte than remains */
		if (at == t->name_len_at && rnd() % 2)
			lo = 65; /* over the specification's 64 */
		g_wr(&b, g->be, at, rnd() % 4 ? rnd_in(lo, lo + 100000) : rnd_in(lo, UINT64_MAX), 8);
		v->offset = at;
		break;
	}
	case 6: {
		uint64_t left = g->b.len - 24;
		if (rnd() % 2) {
			g_wr(&b, g->be, 8, rnd_in(left / 24 + 1, UINT64_MAX), 8);
			v->offset = 8;
		} else {
			/* kv count: over what is left once the tensors take theirs */
			uint64_t room = (left - g->nt * 24) / 14;
			g_wr(&b, g->be, 16, rnd_in(room + 1, UINT64_MAX), 8);
			v->offset = 16;
		}
		break;
	}
	case 7: {
		if (g->align_kv == SIZE_MAX)
			die("GGUF base without general.alignment");
		const g_kv *a = &g->kv[g->align_kv];
		if (rnd() % 4) {
			uint64_t al;
			do
				al = rnd() % 2 ? rnd_in(0, 300) : rnd_in(0, UINT32_MAX);
			while (al % 8 == 0 && al != 0);
			g_wr(&b, g->be, a->val_at, al, 4);
			v->offset = a->val_at;
		} else {
			/* another scalar type (not bool: its byte is checked first) */
			static const uint32_t types[] = {0, 1, 2, 3, 5, 6, 10, 11, 12};
			g_wr(&b, g->be, a->type_at, types[rnd() % 9], 4);
			v->offset = a->type_at;
		}
		break;
	}
	case 8:
		if (g->bool_kv == SIZE_MAX)
			die("GGUF base without a bool");
		b.p[g->kv[g->bool_kv].val_at] = (uint8_t)rnd_in(2, 255);
		v->offset = g->kv[g->bool_kv].val_at;
		break;
	case 9: {
		uint64_t nv;
		do
			nv = rnd() % 2 ? t->rel + rnd_in(1, 4096) - rnd_in(0, t->rel < 4096 ? t->rel : 4096)
				       : rnd();
		while (nv == t->rel);
		g_wr(&b, g->be, t->off_at, nv, 8);
		v->offset = t->off_at;
		break;
	}
	case 10: {
		uint64_t ver;
		do
			ver = rnd() % 4 == 0 ? rnd() % 2 : rnd_in(4, 0xFFFF);
		while (ver == 2 || ver == 3);
		g_wr(&b, g->be, 4, ver, 4);
		v->offset = 4;
		break;
	}
	case 11:
		for (;;) {
			size_t pos = t->name_at + rnd() % t->name_len;
			uint8_t c = (uint8_t)('a' + rnd() % 26);
			if (b.p[pos] == c)
				continue;
			bool clash = false;
			for (size_t i = 0; i < g->nt && !clash; i++) {
				const g_ti *o = &g->t[i];
				if (o == t || o->name_len != t->name_len)
					continue;
				clash = true;
				for (size_t q = 0; q < t->name_len && clash; q++) {
					uint8_t a = t->name_at + q == pos ? c : g->b.p[t->name_at + q];
					clash = a == g->b.p[o->name_at + q];
				}
			}
			if (clash)
				continue;
			b.p[pos] = c;
			v->exit_code = 0;
			break;
		}
		break;
	case 12:
		b.len = rnd_in(g->header_end, g->b.len - 1);
		if (b.len < g->data_start) {
			v->offset = g->header_end;
		} else {
			for (size_t i = 0; i < g->nt; i++)
				if (g->data_start + g->t[i].rel + g->t[i].bytes > b.len) {
					v->offset = g->data_start + g->t[i].rel;
					break;
				}
			if (!v->offset) /* the cut is in the last padding: valid */
				v->exit_code = 0;
		}
		break;
	default: {
		unsigned flips = (unsigned)rnd_in(1, 16);
		for (unsigned i = 0; i < flips; i++)
			b.p[rnd_in(g->data_start, b.len - 1)] ^= (uint8_t)rnd_in(1, 255);
		v->exit_code = 0;
		break;
	}
	}
	return b;
}

static void
gen_gguf(char **bases, int nb, unsigned per)
{
	g_base *g = xrealloc(NULL, (size_t)nb * sizeof *g);
	for (int i = 0; i < nb; i++)
		g_load(&g[i], bases[i]);
	for (size_t c = 0; c < N_G_CLASSES; c++) {
		rng = 0xD1B54A32D192ED03ull ^ (c * 0x100000001B3ull);
		for (unsigned k = 0; k < per; k++) {
			const g_base *b = &g[k % (unsigned)nb];
			verdict v;
			bytes m = g_mutant(b, c, &v);
			emit(g_classes[c].name, k, "gguf", &m, v.exit_code, v.offset, b->nt,
			     b->elements);
			free(m.p);
		}
	}
	for (int i = 0; i < nb; i++)
		free(g[i].b.p);
	free(g);
}

/* ==== the runner ==== */

typedef struct entry {
	char file[128], cls[32];
	int exit_code;
	uint64_t offset, tensors, elements;
	char path[4200];
	bool seen;
} entry;

typedef struct tally {
	char cls[32];
	unsigned n, ok;
} tally;

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read all of fd into a malloc'd string. */
static char *
slurp(int fd)
{
	size_t len = 0, cap = 65536;
	char *s = xrealloc(NULL, cap);
	ssize_t r;
	while ((r = read(fd, s + len, cap - len - 1)) > 0 || (r < 0 && errno == EINTR)) {
		if (r < 0)
			continue;
		len += (size_t)r;
		if (cap - len < 4096) {
			cap *= 2;
			s = xrealloc(s, cap);
		}
	}
	s[len] = '\0';
	return s;
}

/* Run ws over entries [lo, hi); stdout and stderr read by a child each
 * (a pipe full on one side must not stall the other). */
static int
run_batch(const char *ws, entry *e, size_t lo, size_t hi, char **out, char **err, double *secs)
{
	char tmpl_o[] = "/tmp/mkmutants-out-XXXXXX", tmpl_e[] = "/tmp/mkmutants-err-XXXXXX";
	int fo = mkstemp(tmpl_o), fe = mkstemp(tmpl_e);
	if (fo < 0 || fe < 0)
		die("mkstemp: %s", strerror(errno));
	unlink(tmpl_o);
	unlink(tmpl_e);
	char **argv = xrealloc(NULL, (hi - lo + 4) * sizeof *argv);
	size_t n = 0;
	argv[n++] = (char *)ws;
	argv[n++] = "--json";
	argv[n++] = "--";
	for (size_t i = lo; i < hi; i++)
		argv[n++] = e[i].path;
	argv[n] = NULL;
	double t0 = now();
	pid_t pid = fork();
	if (pid < 0)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		dup2(fo, 1);
		dup2(fe, 2);
		execv(ws, argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	*secs = now() - t0;
	free(argv);
	lseek(fo, 0, SEEK_SET);
	lseek(fe, 0, SEEK_SET);
	*out = slurp(fo);
	*err = slurp(fe);
	close(fo);
	close(fe);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static bool
json_u64(const cJSON *o, const char *a, const char *b, uint64_t *v)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	if (!cJSON_IsNumber(x))
		return false;
	*v = (uint64_t)x->valuedouble;
	return true;
}

/* Check one JSON line against its entry; a reason when wrong. */
static const char *
judge(const entry *e, const cJSON *o, const char *err_text, char *why, size_t wn)
{
	const cJSON *er = cJSON_GetObjectItemCaseSensitive(o, "error");
	uint64_t off, tc, el;
	if (e->exit_code == 3) {
		if (!er)
			return "accepted; the oracle says exit 3";
		if (!json_u64(er, "offset", NULL, &off))
			return "error without an offset";
		if (off != e->offset) {
			const cJSON *msg = cJSON_GetObjectItemCaseSensitive(er, "message");
			snprintf(why, wn, "offset %" PRIu64 ", the oracle says %" PRIu64 " (%s)", off,
				 e->offset, cJSON_IsString(msg) ? msg->valuestring : "?");
			return why;
		}
		char want[4400];
		snprintf(want, sizeof want, "%s: offset %" PRIu64 ": ", e->path, e->offset);
		if (!strstr(err_text, want)) {
			snprintf(why, wn, "stderr lacks '%.500s'", want);
			return why;
		}
		return NULL;
	}
	if (er) {
		const cJSON *msg = cJSON_GetObjectItemCaseSensitive(er, "message");
		snprintf(why, wn, "refused (%s); the oracle says valid",
			 cJSON_IsString(msg) ? msg->valuestring : "?");
		return why;
	}
	if (!json_u64(o, "tensor_count", NULL, &tc) || !json_u64(o, "elements", "total", &el))
		return "no tensor_count or elements.total";
	if (tc != e->tensors || el != e->elements) {
		snprintf(why, wn, "%" PRIu64 " tensors, %" PRIu64 " elements; the oracle says %" PRIu64
			 ", %" PRIu64, tc, el, e->tensors, e->elements);
		return why;
	}
	return NULL;
}

static int
run(const char *ws, const char *dir, size_t batch)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/ORACLE.tsv", dir);
	FILE *f = fopen(p, "r");
	if (!f)
		die("%s: %s", p, strerror(errno));
	entry *e = NULL;
	size_t n = 0, cap = 0;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1024;
			e = xrealloc(e, cap * sizeof *e);
		}
		entry *x = &e[n];
		memset(x, 0, sizeof *x);
		if (sscanf(line, "%127[^\t]\t%31[^\t]\t%d\t%" SCNu64 "\t%" SCNu64 "\t%" SCNu64, x->file,
			   x->cls, &x->exit_code, &x->offset, &x->tensors, &x->elements) != 6)
			die("bad oracle line: %s", line);
		snprintf(x->path, sizeof x->path, "%s/%s", dir, x->file);
		n++;
	}
	fclose(f);
	tally *t = NULL;
	size_t nt = 0;
	unsigned wrong = 0, slow = 0;
	double worst = 0, total = 0;
	for (size_t lo = 0; lo < n; lo += batch) {
		size_t hi = lo + batch < n ? lo + batch : n;
		char *out, *err;
		double secs;
		int st = run_batch(ws, e, lo, hi, &out, &err, &secs);
		total += secs;
		if (secs > worst)
			worst = secs;
		if (secs > BATCH_LIMIT_S) {
			fprintf(stderr, "mkmutants: batch %s..%s took %.2f s (limit %.0f s)\n",
				e[lo].file, e[hi - 1].file, secs, BATCH_LIMIT_S);
			slow++;
		}
		int want_status = 0;
		for (size_t i = lo; i < hi; i++)
			if (e[i].exit_code > want_status)
				want_status = e[i].exit_code;
		if (st != want_status) {
			fprintf(stderr, "mkmutants: batch %s..%s exited %d, expected %d\n%s",
				e[lo].file, e[hi - 1].file, st, want_status, err);
			wrong++;
		}
		size_t lines = 0;
		for (char *l = out, *nl; *l; l = nl + 1) {
			nl = strchr(l, '\n');
			if (!nl)
				break;
			*nl = '\0';
			lines++;
			cJSON *o = cJSON_Parse(l);
			const cJSON *path = cJSON_GetObjectItemCaseSensitive(o, "path");
			entry *x = NULL;
			for (size_t i = lo; i < hi && cJSON_IsString(path) && !x; i++)
				if (!e[i].seen && !strcmp(e[i].path, path->valuestring))
					x = &e[i];
			if (!x) {
				fprintf(stderr, "mkmutants: an output line names no mutant: %.200s\n", l);
				wrong++;
				cJSON_Delete(o);
				continue;
			}
			x->seen = true;
			char why[600];
			const char *bad = judge(x, o, err, why, sizeof why);
			size_t k = 0;
			while (k < nt && strcmp(t[k].cls, x->cls))
				k++;
			if (k == nt) {
				t = xrealloc(t, ++nt * sizeof *t);
				memset(&t[k], 0, sizeof t[k]);
				snprintf(t[k].cls, sizeof t[k].cls, "%s", x->cls);
			}
			t[k].n++;
			if (bad) {
				fprintf(stderr, "mkmutants: %s: %s\n", x->file, bad);
				wrong++;
			} else {
				t[k].ok++;
			}
			cJSON_Delete(o);
		}
		if (lines != hi - lo) {
			fprintf(stderr, "mkmutants: batch %s..%s printed %zu lines for %zu files\n",
				e[lo].file, e[hi - 1].file, lines, hi - lo);
			wrong++;
		}
		free(out);
		free(err);
	}
	for (size_t k = 0; k < nt; k++)
		printf("%-16s %5u mutants, %5u verdicts as the oracle says\n", t[k].cls, t[k].n, t[k].ok);
	printf("mutants: %zu in %zu classes, %u wrong; %.1f s in all, slowest batch of %zu %.2f s\n",
	       n, nt, wrong, total, batch, worst);
	free(t);
	free(e);
	return wrong || slow ? 1 : 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "run")) {
		size_t batch = 100;
		if (argc == 6 && !strcmp(argv[4], "--batch"))
			batch = (size_t)strtoul(argv[5], NULL, 10);
		return run(argv[2], argv[3], batch ? batch : 100);
	}
	if (argc < 5 || strcmp(argv[1], "gen") ||
	    (strcmp(argv[2], "safetensors") && strcmp(argv[2], "gguf"))) {
		fprintf(stderr, "usage: mkmutants gen safetensors|gguf DIR [--per-class N] BASE...\n"
				"       mkmutants run WEIGHTSCAN DIR [--batch N]\n");
		return 2;
	}
	out_dir = argv[3];
	int first = 4;
	unsigned per = 250;
	if (!strcmp(argv[4], "--per-class")) {
		if (argc < 7)
			die("--per-class N BASE...");
		per = (unsigned)strtoul(argv[5], NULL, 10);
		first = 6;
	}
	mkdir(out_dir, 0755);
	char p[4096];
	snprintf(p, sizeof p, "%s/ORACLE.tsv", out_dir);
	oracle = fopen(p, "w");
	if (!oracle)
		die("%s: %s", p, strerror(errno));
	if (!strcmp(argv[2], "safetensors"))
		gen_safetensors(argv + first, argc - first, per);
	else
		gen_gguf(argv + first, argc - first, per);
	if (fclose(oracle))
		die("%s: %s", p, strerror(errno));
	return 0;
}
