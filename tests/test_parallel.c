/* test_parallel.c - a large safetensors header is scanned in parallel
 * pieces cut at guessed member boundaries; every outcome must be the
 * serial scan's: the same tensors in the same order, or the same error at
 * the same offset, whatever the pieces' cuts land on. */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"
#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/report.h"

/* A growable header text. */
typedef struct text {
	char *s;
	size_t n, cap;
} text;

static void
put(text *t, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int k = vsnprintf(t->s ? t->s + t->n : NULL, t->s ? t->cap - t->n : 0, fmt, ap);
		va_end(ap);
		cr_assert_geq(k, 0);
		if (t->s && t->n + (size_t)k < t->cap) {
			t->n += (size_t)k;
			return;
		}
		t->cap = (t->cap + (size_t)k + 1) * 2;
		t->s = realloc(t->s, t->cap);
		cr_assert(t->s);
	}
}

/* The header text h framed with its length and followed by data zero
 * bytes, written to dir/file; h is freed.  Returns the path. */
static char *
write_framed(const char *dir, const char *file, text *h, size_t data)
{
	size_t total = 8 + h->n + data;
	char *buf = calloc(1, total);
	cr_assert(buf);
	for (int i = 0; i < 8; i++)
		buf[i] = (char)((uint64_t)h->n >> (8 * i));
	memcpy(buf + 8, h->s, h->n);
	char *p = ws_write_file(dir, file, buf, total);
	free(buf);
	free(h->s);
	*h = (text){0};
	return p;
}

enum shape {
	PLAIN, TRAP_NAMES, LONG_TRAP, META_LAST, DUP_ACROSS, DUP_MIDDLE, DUP_LATE, BAD_LATE,
	SPACED, REVERSED, GAP_FIRST
};

/* n F32[1] tensors in offset order, with the twist of `shape`; returns
 * the file's path. */
static char *
make(const char *dir, const char *file, size_t n, enum shape shape)
{
	text h = {0};
	put(&h, "{");
	if (shape != META_LAST)
		put(&h, "\"__metadata__\":{\"format\":\"pt\"},");
	for (size_t i = 0; i < n; i++) {
		const char *sep = i + 1 < n ? (shape == SPACED ? ", \n " : ",") : "";
		size_t name = i + 1 < n ? i : shape == DUP_ACROSS ? 0 : shape == DUP_MIDDLE
			      ? n * 3 / 5 : shape == DUP_LATE ? n - 2 : i;
		/* every name ends in what the cutter looks for, '}' ',' '"' */
		static char pad[4001];
		memset(pad, 'a', sizeof pad - 1);
		const char *trap = shape == TRAP_NAMES ? "}," : shape == LONG_TRAP ? pad : "";
		/* REVERSED: the data in the opposite order; GAP_FIRST: 4 bytes
		 * before the first range, and none after the last */
		size_t at = shape == REVERSED ? 4 * (n - 1 - i) : shape == GAP_FIRST ? 4 * i + 4 : 4 * i;
		put(&h, "\"model.layers.%zu.mlp.experts.%zu.weight%s%s\":{\"dtype\":\"F32\","
			"\"shape\":[1],\"data_offsets\":[%zu,%zu]}%s",
		    name / 64, name % 64, trap, shape == LONG_TRAP ? "}," : "", at, at + 4,
		    sep);
	}
	if (shape == META_LAST)
		put(&h, ",\"__metadata__\":{\"format\":\"pt\"}");
	put(&h, "}");
	if (shape == BAD_LATE) /* the last data_offsets' ']' becomes ';' */
		*strrchr(h.s, ']') = ';';
	char *p = write_framed(dir, file, &h, 4 * n);
	return p;
}

static int
open_with(const char *p, size_t min_piece, size_t pieces, ws_model **m, ws_error *err)
{
	ws_st_parallel.min_piece = min_piece;
	ws_st_parallel.pieces = pieces;
	int rc = ws_model_open(p, NULL, m, err);
	ws_st_parallel.min_piece = 256u << 10;
	ws_st_parallel.pieces = 0;
	return rc;
}

/* Serial, then pieces of every count from 2 to 4: the same outcome. */
static int
agree(const char *p, int cuts_land, ws_model **out, ws_error *out_err)
{
	ws_model *ser;
	ws_error serr = {0};
	int rc = open_with(p, SIZE_MAX, 0, &ser, &serr);
	for (size_t pieces = 2; pieces <= 4; pieces++) {
		ws_model *par;
		ws_error perr = {0};
		unsigned long done = ws_st_parallel.done;
		int prc = open_with(p, 1024, pieces, &par, &perr);
		/* a valid header whose cuts land on members is read in pieces,
		 * others fall back to the serial scan */
		if (cuts_land >= 0)
			cr_expect_eq(ws_st_parallel.done - done, rc == 0 && cuts_land,
				     "%zu pieces: parallel scans %lu", pieces,
				     ws_st_parallel.done - done);
		cr_assert_eq(prc, rc, "%zu pieces: rc %d, serial %d (%s)", pieces, prc, rc,
			     perr.message);
		if (rc) {
			cr_expect_str_eq(perr.message, serr.message);
			cr_expect_eq(perr.offset, serr.offset);
			continue;
		}
		cr_assert_eq(par->n_tensors, ser->n_tensors);
		cr_assert_eq(par->n_meta, ser->n_meta);
		for (uint64_t i = 0; i < ser->n_tensors; i++) {
			const ws_tensor *a = &ser->tensors[i], *b = &par->tensors[i];
			cr_assert_str_eq(b->name, a->name, "tensor %llu", (unsigned long long)i);
			cr_assert_eq(b->offset, a->offset);
			cr_assert_eq(b->ndim, a->ndim);
			cr_assert_eq(b->shape[0], a->shape[0]);
		}
		ws_model_free(par);
	}
	*out = rc ? NULL : ser;
	*out_err = serr;
	if (rc)
		ws_model_free(ser);
	return rc;
}

Test(parallel, large_headers_agree_with_the_serial_scan)
{
	char *dir = ws_tmpdir();
	static const struct {
		enum shape shape;
		const char *file;
		int cuts_land; /* -1: depends on where the cuts fall */
	} cases[] = {
		/* __metadata__ past the first piece sends the header back to
		 * the serial scan; so does a cut inside a name, which names
		 * ending in "}," invite */
		{PLAIN, "plain.safetensors", 1}, {TRAP_NAMES, "trap.safetensors", -1},
		{META_LAST, "meta.safetensors", 0}, {SPACED, "spaced.safetensors", 1},
		/* 4 KB names ending in "},": every cut falls in one */
		{LONG_TRAP, "long.safetensors", 0},
		/* ranges that are no chain from 0 need every entry: serial */
		{REVERSED, "reversed.safetensors", 0},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		size_t n = cases[c].shape == LONG_TRAP ? 60 : 3000;
		char *p = make(dir, cases[c].file, n, cases[c].shape);
		ws_model *m;
		ws_error err;
		cr_assert_eq(agree(p, cases[c].cuts_land, &m, &err), 0, "%s: %s", cases[c].file, err.message);
		cr_expect_eq(m->n_tensors, n);
		cr_expect_eq(m->n_meta, 1);
		cr_expect_eq(m->tensors[n - 1].offset, m->files[0].data_start +
			     (cases[c].shape == REVERSED ? 0 : 4 * (n - 1)));
		ws_model_free(m);
		free(p);
	}
	free(dir);
}

Test(parallel, errors_are_the_serial_ones)
{
	char *dir = ws_tmpdir();
	static const struct {
		enum shape shape;
		const char *file, *message;
		uint64_t offset; /* at least */
	} cases[] = {
		{DUP_ACROSS, "across.safetensors", "duplicate tensor name 'model.layers.0.mlp.experts.0.weight'", 100000},
		{DUP_MIDDLE, "middle.safetensors", "duplicate tensor name 'model.layers.28.mlp.experts.8.weight'", 100000},
		{DUP_LATE, "late.safetensors", "duplicate tensor name 'model.layers.46.mlp.experts.54.weight'", 100000},
		{BAD_LATE, "bad.safetensors", "data_offsets must hold 2 integers", 100000},
		/* found once the entries are sorted: the first tensor's key */
		{GAP_FIRST, "gap.safetensors", "data [4, 8) leaves a gap after byte 0", 40},
	};
	for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
		char *p = make(dir, cases[c].file, 3000, cases[c].shape);
		ws_model *m;
		ws_error err;
		cr_assert_eq(agree(p, 0, &m, &err), -1, "%s parsed", cases[c].file);
		cr_expect(strstr(err.message, cases[c].message), "%s: %s", cases[c].file,
			  err.message);
		cr_expect(err.has_offset && err.offset >= cases[c].offset, "%s: offset %llu", cases[c].file,
			  (unsigned long long)err.offset);
		free(p);
	}
	free(dir);
}

/* At the default settings a 2 MB header is cut (on a machine with two or
 * more CPUs) and still reads right. */
Test(parallel, default_settings)
{
	char *dir = ws_tmpdir();
	char *p = make(dir, "big.safetensors", 25000, PLAIN);
	ws_model *m;
	ws_error err = {0};
	unsigned long done = ws_st_parallel.done;
	cr_assert_eq(ws_model_open(p, NULL, &m, &err), 0, "%s", err.message);
	if (ws_st_parallel.pieces == 0 && sysconf(_SC_NPROCESSORS_ONLN) > 1)
		cr_expect_eq(ws_st_parallel.done - done, 1, "not read in pieces");
	cr_expect_eq(m->n_tensors, 25000);
	cr_expect_str_eq(m->tensors[24999].name, "model.layers.390.mlp.experts.39.weight");
	ws_model_free(m);
	free(p);
	free(dir);
}

/* Is path mapped in this process? */
static bool
mapped(const char *path)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	bool yes = false;
	cr_assert(f);
	while (!yes && fgets(line, sizeof line, f))
		yes = strstr(line, path) != NULL;
	fclose(f);
	return yes;
}

/* The model holds copies of a header's names, shapes and metadata: once
 * analyzed, the header's mapping is let go (on a helper thread, so this
 * waits for it), and what the model reports is unchanged. */
Test(parallel, analysis_lets_the_header_mapping_go)
{
	char *dir = ws_tmpdir();
	char *p = make(dir, "big.safetensors", 25000, PLAIN);
	ws_model *m;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(p, NULL, &m, &err), 0, "%s", err.message);
	cr_assert(mapped(p), "the header is not mapped while it is parsed");
	cr_assert_eq(ws_model_analyze(m, &err), 0, "%s", err.message);
	cr_expect_null(m->files[0].map);
	bool gone = false;
	for (int i = 0; i < 1000 && !(gone = !mapped(p)); i++) {
		struct timespec ms10 = {0, 10000000};
		nanosleep(&ms10, NULL);
	}
	cr_expect(gone, "the header is still mapped 10 s after the analysis");
	cr_expect_str_eq(m->tensors[24999].name, "model.layers.390.mlp.experts.39.weight");
	cr_expect_eq(m->n_meta, 1);
	ws_model_free(m);
	free(p);
	free(dir);
}

/* ==== shards read ahead ==== */

static size_t
open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	size_t n = 0;
	cr_assert(d);
	while (readdir(d))
		n++;
	closedir(d);
	return n;
}

/* A folder of 12 shards (its headers read and parsed by a second thread
 * while the index is parsed) opens exactly as its index.json does (shards
 * read one by one, in order): the same files, tensors, metadata and
 * findings, or the same error; and no descriptor is left behind.
 * Patient: every shard comes from the reader; not: this thread reads
 * those the reader has not reached. */
static unsigned long
same_as_index_listed(const char *dir, bool patient, uint64_t listing_index)
{
	char *ip = ws_join(dir, "model.safetensors.index.json");
	ws_model *a = NULL, *b = NULL;
	ws_error ea = {0}, eb = {0};
	size_t fds = open_fds();
	unsigned long ahead = ws_st_parallel.ahead, parsed = ws_st_parallel.parsed;
	ws_st_parallel.patient = patient;
	ws_st_parallel.listing_index = listing_index;
	int ra = ws_model_open(dir, NULL, &a, &ea);
	ws_st_parallel.patient = false;
	ws_st_parallel.listing_index = 32u << 10;
	parsed = ws_st_parallel.parsed - parsed;
	if (!ra && patient)
		cr_expect_eq(ws_st_parallel.ahead - ahead, a->n_files, "shards not read ahead");
	int rb = ws_model_open(ip, NULL, &b, &eb);
	cr_assert_eq(ra, rb, "folder %d (%s), index %d (%s)", ra, ea.message, rb, eb.message);
	if (ra) {
		cr_expect_str_eq(ea.message, eb.message);
		cr_expect_str_eq(ea.file, eb.file);
		cr_expect_eq(ea.offset, eb.offset);
	} else {
		cr_assert_eq(a->n_files, b->n_files);
		for (uint32_t i = 0; i < a->n_files; i++) {
			const ws_file *fa = &a->files[i], *fb = &b->files[i];
			cr_expect_str_eq(fa->path, fb->path);
			cr_expect_eq(fa->size, fb->size);
			cr_expect_eq(fa->header_bytes, fb->header_bytes);
			cr_expect_eq(fa->data_start, fb->data_start);
			cr_expect_eq(fa->tensor_count, fb->tensor_count);
		}
		cr_assert_eq(a->n_tensors, b->n_tensors);
		for (uint64_t i = 0; i < a->n_tensors; i++) {
			const ws_tensor *ta = &a->tensors[i], *tb = &b->tensors[i];
			cr_expect_eq(ta->name_len, tb->name_len);
			cr_expect_eq(memcmp(ta->name, tb->name, ta->name_len), 0, "tensor %llu: %s, %s",
				     (unsigned long long)i, ta->name, tb->name);
			cr_expect_eq(ta->offset, tb->offset);
			cr_expect_eq(ta->file, tb->file);
			cr_expect_eq(ta->dtype, tb->dtype);
			cr_expect_eq(ta->elements, tb->elements);
			cr_expect_eq(ta->bytes, tb->bytes);
			cr_assert_eq(ta->ndim, tb->ndim);
			for (uint32_t d = 0; d < ta->ndim; d++)
				cr_expect_eq(ta->shape[d], tb->shape[d]);
		}
		cr_assert_eq(a->n_meta, b->n_meta);
		for (uint64_t i = 0; i < a->n_meta; i++) {
			const ws_kv *ka = &a->meta[i], *kb = &b->meta[i];
			cr_expect_eq(ka->file, kb->file);
			cr_assert_eq(ka->key_len, kb->key_len);
			cr_expect_eq(memcmp(ka->key, kb->key, ka->key_len), 0);
			cr_assert_eq(ka->data_len, kb->data_len);
			cr_expect_eq(memcmp(ka->data, kb->data, ka->data_len), 0);
		}
		/* but for what only a folder can say: a shard the index does not name */
		size_t unnamed = 0;
		for (size_t i = 0; i < a->n_findings; i++)
			unnamed += strstr(a->findings[i].message, "index.json does not name it") != NULL;
		cr_expect_eq(a->n_findings - unnamed, b->n_findings);
	}
	ws_model_free(a);
	ws_model_free(b);
	cr_expect_eq(open_fds(), fds, "descriptors left open");
	free(ip);
	return parsed;
}

/* With the folder listed here, and by the reader: the same, as many
 * shards parsed ahead. */
static unsigned long
same_as_index(const char *dir, bool patient)
{
	unsigned long here = same_as_index_listed(dir, patient, UINT64_MAX);
	unsigned long there = same_as_index_listed(dir, patient, 0);
	if (patient)
		cr_expect_eq(here, there, "parsed ahead: %lu listed here, %lu by the reader", here,
			     there);
	return here;
}

Test(parallel, shards_read_ahead_load_as_by_name)
{
	char *dir = ws_tmpdir(), *cfg = ws_testdata_path("tiny-llama/config.json");
	char *out = ws_join(dir, "m");
	ws_mkfixture("sparse", out, cfg, "--shards", "12", NULL);
	cr_expect_eq(same_as_index(out, true), 12, "shards not parsed ahead");
	same_as_index(out, false);

	/* a shard the index does not name is read ahead and let go */
	static const char extra[] = "\x02\0\0\0\0\0\0\0{}";
	free(ws_write_file(out, "model-extra.safetensors", extra, sizeof extra - 1));
	same_as_index(out, true);
	same_as_index(out, false);

	/* a broken shard: the error of loading it by name, at the same offset */
	char *s7 = ws_join(out, "model-00007-of-00012.safetensors");
	FILE *f = fopen(s7, "r+");
	cr_assert(f);
	cr_assert_eq(fseek(f, 9, SEEK_SET), 0);
	fputc('[', f);
	fclose(f);
	same_as_index(out, true);
	same_as_index(out, false);

	/* a missing one */
	cr_assert_eq(remove(s7), 0);
	same_as_index(out, true);
	same_as_index(out, false);
	free(s7);
	free(out);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

/* A shard: the 8-byte length, the header, data bytes of zeros. */
static void
shard(const char *dir, const char *name, const char *header, size_t data)
{
	free(ws_write_safetensors(dir, name, header, strlen(header), data));
}

/* Shards of every kind the reader parses, or leaves to this thread:
 * metadata of several keys, none, escaped names, tensors out of offset
 * order, a header longer than the first read, a shape with no dims. */
Test(parallel, shards_parsed_ahead_load_as_by_name)
{
	char *dir = ws_tmpdir();
	text idx = {0}, h = {0}, pad = {0};
	for (int i = 0; i < 300; i++)
		put(&pad, "x");
	put(&idx, "{\"weight_map\":{");
	for (int s = 0; s < 10; s++) {
		char name[64];
		snprintf(name, sizeof name, "m-%05d-of-00010.safetensors", s + 1);
		h.n = 0;
		put(&h, "{");
		if (s % 3 == 0)
			put(&h, "\"__metadata__\":{\"format\":\"pt\",\"shard\":\"%d\"},", s);
		const char *kind = s == 4 ? pad.s : s == 5 ? "\\u0041\\n" : "";
		/* shard 6 lists its second tensor first */
		for (int k = 0; k < 3; k++) {
			int t = s == 6 ? (k == 0 ? 1 : k == 1 ? 0 : 2) : k;
			put(&h, "%s\"t.%d.%d%s\":{\"dtype\":\"%s\",\"shape\":%s,"
				"\"data_offsets\":[%d,%d]}", k ? "," : "", s, t, kind,
			    t == 2 ? "BF16" : "F32", t == 2 ? "[2,1]" : s == 7 ? "[]" : "[1]",
			    4 * t, 4 * t + 4);
			put(&idx, "%s\"t.%d.%d%s\":\"%s\"", s || k ? "," : "", s, t,
			    s == 5 ? "A\\n" : s == 4 ? pad.s : "", name);
		}
		/* shard 8: as many entries as its first read holds, of no data */
		for (int k = 0; s == 8 && k < 12; k++) {
			put(&h, ",\"%c\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[12,12]}",
			    'a' + k);
			put(&idx, ",\"%c\":\"%s\"", 'a' + k, name);
		}
		put(&h, "}");
		cr_assert_lt(h.n, s == 4 ? SIZE_MAX : WS_ST_FIRST_READ - 8);
		shard(dir, name, h.s, 12);
	}
	put(&idx, "}}");
	free(ws_write_file(dir, "model.safetensors.index.json", idx.s, idx.n));
	/* all but the long header (shard 4), loaded from its whole read */
	cr_expect_eq(same_as_index(dir, true), 9, "shards parsed ahead");
	same_as_index(dir, false);

	/* and all of it is there, as the index says */
	ws_model *m;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(dir, NULL, &m, &err), 0, "%s", err.message);
	cr_expect_eq(m->n_tensors, 42);
	cr_expect_eq(m->n_meta, 8);
	cr_expect_eq(m->n_findings, 0, "%s", m->n_findings ? m->findings[0].message : "");
	ws_model_free(m);
	free(idx.s);
	free(h.s);
	free(pad.s);
	ws_rmtree(dir);
	free(dir);
}

/* n shards m00.safetensors... of one tensor each (w0...) in dir, and the
 * start of an index mapping them in idx (to be closed by the caller). */
static void
one_tensor_shards(const char *dir, int n, text *idx)
{
	static const char body[] = "{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
	put(idx, "{\"weight_map\":{");
	for (int s = 0; s < n; s++) {
		char name[32], hs[128];
		snprintf(name, sizeof name, "m%02d.safetensors", s);
		snprintf(hs, sizeof hs, "{\"w%d\":%s", s, body);
		shard(dir, name, hs, 4);
		put(idx, "%s\"w%d\":\"%s\"", s ? "," : "", s, name);
	}
}

/* The unlisted-shard warnings of a folder with shards a..b and idx. */
static void
expect_unnamed_listed(const char *dir, const char *want0, const char *want1,
		      uint64_t listing_index)
{
	ws_model *m;
	ws_error err = {0};
	ws_st_parallel.listing_index = listing_index;
	int rc = ws_model_open(dir, NULL, &m, &err);
	ws_st_parallel.listing_index = 32u << 10;
	cr_assert_eq(rc, 0, "%s", err.message);
	const char *got[2] = {NULL, NULL};
	size_t n = 0;
	for (size_t i = 0; i < m->n_findings; i++)
		if (strstr(m->findings[i].message, "index.json does not name it") && n < 2)
			got[n++] = m->findings[i].message;
	cr_expect_eq(n, (want0 != NULL) + (want1 != NULL));
	if (want0)
		cr_expect(got[0] && !strncmp(got[0], want0, strlen(want0)), "%s", got[0]);
	if (want1)
		cr_expect(got[1] && !strncmp(got[1], want1, strlen(want1)), "%s", got[1]);
	ws_model_free(m);
}

static void
expect_unnamed(const char *dir, const char *want0, const char *want1)
{
	expect_unnamed_listed(dir, want0, want1, UINT64_MAX);
	expect_unnamed_listed(dir, want0, want1, 0);
}

/* Shards in the folder that the index does not name: one warning each,
 * in name order, however the folder lists them; a shard the index names
 * that the listing leaves out (a dot file) hides none of them. */
Test(parallel, unnamed_shards_are_warned_of_in_name_order)
{
	static const char h[] = "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
	for (int big = 0; big < 2; big++) {
		char *dir = ws_tmpdir();
		text idx = {0};
		/* 10 shards: read ahead; 2: one by one */
		one_tensor_shards(dir, big ? 10 : 2, &idx);
		put(&idx, "}}");
		free(ws_write_file(dir, "model.safetensors.index.json", idx.s, idx.n));
		expect_unnamed(dir, NULL, NULL);
		shard(dir, "zz.safetensors", h, 4);
		shard(dir, "aa.safetensors", h, 4);
		expect_unnamed(dir, "aa.safetensors is in the folder", "zz.safetensors is in the folder");

		/* the index also names .hidden (not listed) but not aa, zz */
		idx.n -= 2;
		put(&idx, ",\"h\":\".hidden.safetensors\"}}");
		free(ws_write_file(dir, "model.safetensors.index.json", idx.s, idx.n));
		shard(dir, ".hidden.safetensors", "{\"h\":{\"dtype\":\"F32\",\"shape\":[1],"
						    "\"data_offsets\":[0,4]}}", 4);
		expect_unnamed(dir, "aa.safetensors is in the folder", "zz.safetensors is in the folder");
		char *zz = ws_join(dir, "zz.safetensors");
		cr_assert_eq(remove(zz), 0);
		free(zz);
		expect_unnamed(dir, "aa.safetensors is in the folder", NULL);
		free(idx.s);
		ws_rmtree(dir);
		free(dir);
	}
}

/* A tensor the map names twice is an error of the index, whether a
 * shard holds it or not, for a folder read ahead and one read in turn. */
Test(parallel, a_tensor_named_twice_is_an_error)
{
	for (int big = 0; big < 2; big++)
		for (int held = 0; held < 2; held++) {
			char *dir = ws_tmpdir();
			text idx = {0};
			one_tensor_shards(dir, big ? 10 : 2, &idx);
			put(&idx, held ? ",\"w1\":\"m01.safetensors\"}}"
				       : ",\"gone\":\"m01.safetensors\",\"gone\":\"m00.safetensors\"}}");
			free(ws_write_file(dir, "model.safetensors.index.json", idx.s, idx.n));
			for (int listed = 0; listed < 2; listed++) {
				ws_model *m = NULL;
				ws_error err = {0};
				ws_st_parallel.listing_index = listed ? 0 : UINT64_MAX;
				cr_assert_eq(ws_model_open(dir, NULL, &m, &err), -1);
				ws_st_parallel.listing_index = 32u << 10;
				cr_expect_eq(err.code, WS_EXIT_INPUT);
				cr_expect_str_eq(err.message, held ? "weight_map names tensor 'w1' twice"
								   : "weight_map names tensor 'gone' twice");
				cr_expect(strstr(err.file, "model.safetensors.index.json"), "%s",
					  err.file);
			}
			free(idx.s);
			ws_rmtree(dir);
			free(dir);
		}
}

/* A tensor the map names twice is the error to report, before what else
 * is wrong with the index or its shards; but a fault earlier in the map
 * than the second naming is reported as before. */
Test(parallel, a_tensor_named_twice_is_reported_first)
{
	static const char h[] = "{\"w\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
	static const struct { const char *map, *want; } cases[] = {
		/* the second naming points at a missing shard */
		{"\"w\":\"a.safetensors\",\"w\":\"gone.safetensors\"", "names tensor 'w' twice"},
		/* a missing shard named first, the duplicate after */
		{"\"x\":\"gone.safetensors\",\"w\":\"a.safetensors\",\"w\":\"a.safetensors\"",
		 "names tensor 'w' twice"},
		/* the duplicate, then a shard name leaving the folder */
		{"\"w\":\"a.safetensors\",\"w\":\"a.safetensors\",\"y\":\"../x.safetensors\"",
		 "names tensor 'w' twice"},
		/* the shard name leaving the folder, then the duplicate */
		{"\"y\":\"../x.safetensors\",\"w\":\"a.safetensors\",\"w\":\"a.safetensors\"",
		 "leaves the index's folder"},
		/* the duplicate, then a value that is no file name */
		{"\"w\":\"a.safetensors\",\"w\":\"a.safetensors\",\"z\":5", "names tensor 'w' twice"},
		{"\"z\":5,\"w\":\"a.safetensors\",\"w\":\"a.safetensors\"", "not a file name"},
		/* the duplicate, and a shard whose header is broken */
		{"\"w\":\"a.safetensors\",\"v\":\"bad.safetensors\",\"w\":\"a.safetensors\"",
		 "names tensor 'w' twice"},
		/* the duplicate, and the tensor stored in two shards */
		{"\"w\":\"a.safetensors\",\"w\":\"b.safetensors\"", "names tensor 'w' twice"},
		/* no duplicate: the shard's own error */
		{"\"w\":\"a.safetensors\",\"v\":\"bad.safetensors\"", "bad.safetensors"},
	};
	char *dir = ws_tmpdir();
	shard(dir, "a.safetensors", h, 4);
	shard(dir, "b.safetensors", h, 4);
	shard(dir, "bad.safetensors", "{\"v\":[}", 0);
	char *ip = ws_join(dir, "model.safetensors.index.json");
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		text idx = {0};
		put(&idx, "{\"weight_map\":{%s}}", cases[i].map);
		free(ws_write_file(dir, "model.safetensors.index.json", idx.s, idx.n));
		ws_model *m = NULL;
		ws_error err = {0};
		cr_assert_eq(ws_model_open(ip, NULL, &m, &err), -1, "case %zu accepted", i);
		cr_expect_eq(err.code, WS_EXIT_INPUT, "case %zu", i);
		cr_expect(strstr(err.message, cases[i].want) || strstr(err.file, cases[i].want),
			  "case %zu: %s: %s, not '%s'", i, err.file, err.message, cases[i].want);
		free(idx.s);
	}
	free(ip);
	ws_rmtree(dir);
	free(dir);
}

/* The totals of a large model are summed in runs by the caller and a
 * helper: they must be the one-pass sums, whatever the runs fall to. */
Test(parallel, summary_is_the_serial_sum)
{
	ws_model *m = ws_model_new(NULL);
	cr_assert(m);
	const uint64_t n = 50000;
	uint64_t st = 88172645463325252ull;
	for (uint64_t i = 0; i < n; i++) {
		ws_tensor *t = ws_model_push_tensor(m);
		cr_assert(t);
		st ^= st << 13, st ^= st >> 7, st ^= st << 17;
		t->dtype = (uint8_t)(st % WS_DT_COUNT);
		t->role = (uint8_t)(st >> 8) % WS_ROLE_COUNT;
		t->layer = (int32_t)((st >> 20) % 90) - 5;
		t->elements = (st >> 24) % 100000;
		t->bytes = 2 * t->elements;
		t->params = (st >> 30) % 3 ? t->elements : 0;
		t->unloaded = (st >> 40) % 17 == 0;
	}
	ws_summary s;
	cr_assert_eq(ws_summary_compute(m, &s), 0);
	uint64_t params = 0, elements = 0, by_role[WS_ROLE_COUNT] = {0}, by_layer[90] = {0};
	uint64_t by_dtype[WS_DT_COUNT] = {0}, buffers = 0, unloaded = 0;
	int32_t top = -1;
	for (uint64_t i = 0; i < n; i++) {
		const ws_tensor *t = &m->tensors[i];
		elements += t->elements;
		by_dtype[t->dtype]++;
		if (t->layer > top)
			top = t->layer;
		if (t->role == WS_ROLE_BUFFER) {
			buffers += t->elements;
			continue;
		}
		if (t->role == WS_ROLE_QUANT_AUX)
			continue;
		if (t->unloaded) {
			unloaded += t->elements;
			continue;
		}
		params += t->params;
		by_role[t->role] += t->params;
		if (t->layer >= 0)
			by_layer[t->layer] += t->params;
	}
	cr_expect_eq(s.params, params);
	cr_expect_eq(s.elements, elements);
	cr_expect_eq(s.buffers, buffers);
	cr_expect_eq(s.unloaded, unloaded);
	cr_expect_eq(s.n_layers, top + 1);
	for (size_t r = 0; r < WS_ROLE_COUNT; r++)
		cr_expect_eq(s.params_by_role[r], by_role[r], "role %zu", r);
	for (size_t d = 0; d < WS_DT_COUNT; d++)
		cr_expect_eq(s.tensors_by_dtype[d], by_dtype[d], "dtype %zu", d);
	for (int32_t l = 0; l <= top; l++)
		cr_expect_eq(s.params_by_layer[l], by_layer[l], "layer %d", l);
	ws_summary_free(&s);
	ws_model_free(m);
}

/* A name read plain (copied and hashed as it is scanned) and its twin
 * spelled with an escape (decoded, then hashed whole) hash alike at every
 * length around the 16-byte steps: the duplicate is found both ways. */
Test(parallel, an_escaped_twin_is_a_duplicate_at_every_length)
{
	char *dir = ws_tmpdir();
	static const size_t lens[] = {1, 2, 8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49, 64, 65, 100, 255, 256, 300};
	for (size_t c = 0; c < sizeof lens / sizeof lens[0]; c++) {
		size_t n = 3000, len = lens[c], twin = n / 2;
		text h = {0};
		char name[400];
		put(&h, "{");
		for (size_t i = 0; i < n; i++) {
			/* "t", the index, then 'a' up to len (at least the index) */
			int k = snprintf(name, sizeof name, "t%zu", i);
			size_t want = i == twin || i + 1 == n ? len : 1 + (i % 70);
			while ((size_t)k < want)
				name[k++] = 'a';
			name[k] = '\0';
			if (i + 1 == n) { /* the twin of tensor `twin`, 't' escaped */
				k = snprintf(name, sizeof name, "t%zu", twin);
				while ((size_t)k < len)
					name[k++] = 'a';
				name[k] = '\0';
				put(&h, "\"\\u0074%s\"", name + 1);
			} else {
				put(&h, "\"%s\"", name);
			}
			put(&h, ":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[%zu,%zu]}%s", 4 * i,
			    4 * i + 4, i + 1 < n ? "," : "}");
		}
		char file[64];
		snprintf(file, sizeof file, "twin%zu.safetensors", len);
		char *p = write_framed(dir, file, &h, 4 * n);
		ws_model *m;
		ws_error err;
		cr_assert_eq(agree(p, 0, &m, &err), -1, "length %zu: the twin was not found", len);
		cr_expect(strstr(err.message, "duplicate tensor name"), "length %zu: %s", len, err.message);
		free(p);
	}
	free(dir);
}
