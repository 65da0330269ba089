/* test_safetensors.c - the strict reader: real files, one broken file per
 * rule (status, byte offset, message), sharded checkpoints, the CLI. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"
#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"

/* ==== one broken file per rule ==== */

Test(safetensors, every_rule_has_a_broken_file)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("bad", dir, NULL);
	char *tsv = ws_join(dir, "EXPECT.tsv");
	FILE *f = fopen(tsv, "r");
	cr_assert(f);
	char line[512];
	int cases = 0;
	while (fgets(line, sizeof line, f)) {
		char name[128], expect[256];
		long long off;
		line[strcspn(line, "\n")] = '\0';
		cr_assert(sscanf(line, "%127[^\t]\t%lld\t%255[^\n]", name, &off, expect) == 3,
			  "bad EXPECT line: %s", line);
		char *p = ws_join(dir, name);
		ws_model *m = NULL;
		ws_error err = {0};
		int rc = ws_model_open(p, NULL, &m, &err);
		cr_expect_eq(rc, -1, "%s: accepted", name);
		cr_expect_eq(err.code, WS_EXIT_INPUT, "%s: code %d (%s)", name, err.code, err.message);
		cr_expect(ws_contains(err.message, expect), "%s: message '%s' lacks '%s'",
			  name, err.message, expect);
		cr_expect_str_eq(err.file, p, "%s: names file %s", name, err.file);
		if (off >= 0) {
			cr_expect(err.has_offset, "%s: no offset", name);
			cr_expect_eq(err.offset, (uint64_t)off, "%s: offset %" PRIu64 ", expected %lld (%s)",
				     name, err.offset, off, err.message);
		}
		ws_model_free(m);
		free(p);
		cases++;
	}
	fclose(f);
	cr_expect_geq(cases, 30);
	free(tsv);
	ws_rmtree(dir);
	free(dir);
}

Test(safetensors, cli_malformed_exit_3_names_file_and_offset)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("bad", dir, NULL);
	char *p = ws_join(dir, "gap.safetensors");
	ws_run r = ws_run_cli(p, NULL);
	cr_expect_eq(r.status, 3);
	cr_expect(ws_contains(r.err, p));
	cr_expect(ws_contains(r.err, "offset 9:"), "stderr: %s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("--json", p, NULL);
	cr_expect_eq(r.status, 3);
	cr_expect(ws_contains(r.out, "\"error\":{\"kind\":\"malformed\",\"file\":"), "stdout: %s", r.out);
	cr_expect(ws_contains(r.out, "\"offset\":9"), "stdout: %s", r.out);
	ws_run_free(&r);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* A header of n members whose last repeats the name of member `dup`:
 * tensors, or (meta) __metadata__ keys.  The duplicate is found at the
 * last key, whether the set still compares its few keys one by one or has
 * a table (past WS_STRSET_FEW = 16). */
static void
expect_last_key_refused(const char *dir, size_t n, size_t dup, bool meta)
{
	char *h = NULL;
	size_t hl = 0, last_key = 0;
	FILE *mf = open_memstream(&h, &hl);
	cr_assert(mf);
	fputs(meta ? "{\"__metadata__\":{" : "{", mf);
	for (size_t i = 0; i < n; i++) {
		size_t name = i == n - 1 ? dup : i;
		fflush(mf);
		if (i == n - 1)
			last_key = hl + (i ? 1 : 0);
		if (meta)
			fprintf(mf, "%s\"k%zu\":\"v\"", i ? "," : "", name);
		else
			fprintf(mf, "%s\"t%zu\":{\"dtype\":\"F32\",\"shape\":[1],"
				"\"data_offsets\":[%zu,%zu]}", i ? "," : "", name, 4 * i, 4 * i + 4);
	}
	fputs(meta ? "}}" : "}", mf);
	fclose(mf);
	char *p = ws_write_safetensors(dir, "dup.safetensors", h, hl, meta ? 0 : 4 * n);
	ws_model *m = NULL;
	ws_error err = {0};
	char want[64];
	if (meta)
		snprintf(want, sizeof want, "duplicate __metadata__ key");
	else
		snprintf(want, sizeof want, "duplicate tensor name 't%zu'", dup);
	cr_expect_eq(ws_model_open(p, NULL, &m, &err), -1, "n %zu dup %zu accepted", n, dup);
	cr_expect(ws_contains(err.message, want), "n %zu dup %zu: %s", n, dup, err.message);
	cr_expect_eq(err.offset, 8 + last_key, "n %zu dup %zu: offset %" PRIu64, n, dup,
		     err.offset);
	ws_model_free(m);
	free(p);
	free(h);
}

Test(safetensors, duplicate_names_around_the_set_threshold)
{
	char *dir = ws_tmpdir();
	for (size_t n = 2; n <= 40; n++)
		for (size_t dup = 0; dup + 1 < n; dup += n - 2 > 0 ? n - 2 : 1)
			expect_last_key_refused(dir, n, dup, false);
	ws_rmtree(dir);
	free(dir);
}

/* The same for __metadata__ keys: the last of n repeats key `dup`. */
Test(safetensors, duplicate_metadata_keys_around_the_set_threshold)
{
	char *dir = ws_tmpdir();
	for (size_t n = 2; n <= 40; n++)
		for (size_t dup = 0; dup + 1 < n; dup += n - 2 > 0 ? n - 2 : 1)
			expect_last_key_refused(dir, n, dup, true);
	/* and 40 distinct keys are fine */
	char h[1024] = "{\"__metadata__\":{";
	for (int i = 0; i < 40; i++)
		snprintf(h + strlen(h), sizeof h - strlen(h), "%s\"k%d\":\"v\"", i ? "," : "", i);
	strcat(h, "}}");
	char *p = ws_write_safetensors(dir, "meta40.safetensors", h, strlen(h), 0);
	ws_model *m = NULL;
	ws_error err = {0};
	cr_expect_eq(ws_model_open(p, NULL, &m, &err), 0, "%s", err.message);
	cr_expect_eq(m ? m->n_meta : 0, 40);
	ws_model_free(m);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== valid files ==== */

Test(safetensors, accepted_edge_cases)
{
	static const struct { const char *header; uint64_t data, tensors, elements; } ok[] = {
		{"{}", 0, 0, 0},
		{" \t\n{}  ", 0, 0, 0},
		{"{\"__metadata__\":null}", 0, 0, 0},
		{"{\"s\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[0,4]}}", 4, 1, 1},
		{"{\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 8, 2, 2},
		{"{\"z\":{\"dtype\":\"I8\",\"shape\":[0,7],\"data_offsets\":[0,0]},\"y\":{\"dtype\":\"I8\",\"shape\":[0],\"data_offsets\":[0,0]}}", 0, 2, 0},
		{"{\"a\":{\"dtype\":\"F4\",\"shape\":[3,2],\"data_offsets\":[0,3],\"extra\":{\"x\":[1,2.5e3,null,true]}}}", 3, 1, 6},
		{"{\"\":{\"dtype\":\"F6_E2M3\",\"shape\":[4],\"data_offsets\":[0,3]}}", 3, 1, 4},
		{"{\"a\\u00e9\\n\":{\"dtype\":\"BOOL\",\"shape\":[2],\"data_offsets\":[0,2]}}", 2, 1, 2},
		{"{\"a\":{\"dtype\":\"I8\",\"shape\":[0,9223372036854775808],\"data_offsets\":[0,0]}}", 0, 1, 0},
	};
	char *dir = ws_tmpdir();
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
		char name[32];
		snprintf(name, sizeof name, "ok%zu.safetensors", i);
		char *p = ws_write_safetensors(dir, name, ok[i].header, strlen(ok[i].header), ok[i].data);
		ws_model *m = NULL;
		ws_error err = {0};
		cr_expect_eq(ws_model_open(p, NULL, &m, &err), 0, "case %zu: %s", i, err.message);
		if (m) {
			cr_expect_eq(m->n_tensors, ok[i].tensors, "case %zu", i);
			uint64_t el = 0;
			for (uint64_t t = 0; t < m->n_tensors; t++)
				el += m->tensors[t].elements;
			cr_expect_eq(el, ok[i].elements, "case %zu", i);
		}
		ws_model_free(m);
		free(p);
	}
	ws_rmtree(dir);
	free(dir);
}

/* Shape numbers, each read whole or refused at its first byte, with room
 * after it for the word-at-a-time read (the short headers of the broken
 * files cover the byte-by-byte one). */
Test(safetensors, numbers_read_whole_or_refused)
{
	static const struct { const char *num; uint64_t value; const char *error; } cases[] = {
		{"0", 0, NULL},
		{"7", 7, NULL},
		{" 7 ", 7, NULL},
		{"12345678", 12345678, NULL},
		{"123456789", 123456789, NULL},
		{"123456789012345", 123456789012345ull, NULL},
		{"1234567890123456", 1234567890123456ull, NULL},
		{"9223372036854775808", 9223372036854775808ull, NULL},
		{"18446744073709551615", 18446744073709551615ull, NULL},
		{"18446744073709551616", 0, "does not fit in 64 bits"},
		{"00", 0, "leading zero"},
		{"0012", 0, "leading zero"},
		{"012345678", 0, "leading zero"},
		{"7.5", 0, "no fraction"},
		{"12345678.5", 0, "no fraction"},
		{"12345678e0", 0, "no fraction"},
		{"123456789E2", 0, "no fraction"},
		{"-0", 0, "negative"},
		{"x", 0, "non-negative integer"},
	};
	char *dir = ws_tmpdir();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char h[256], name[32];
		int at = snprintf(h, sizeof h, "{\"a\":{\"dtype\":\"U8\",\"shape\":[");
		snprintf(h + at, sizeof h - (size_t)at,
			 "%s,0],\"data_offsets\":[0,0],\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}",
			 cases[i].num);
		snprintf(name, sizeof name, "n%zu.safetensors", i);
		char *p = ws_write_safetensors(dir, name, h, strlen(h), 0);
		ws_model *m = NULL;
		ws_error err = {0};
		int rc = ws_model_open(p, NULL, &m, &err);
		if (cases[i].error) {
			cr_expect_eq(rc, -1, "%s accepted", cases[i].num);
			cr_expect_eq(err.code, WS_EXIT_INPUT, "%s: code %d", cases[i].num, err.code);
			cr_expect_str_eq(err.file, p, "%s: names %s", cases[i].num, err.file);
			cr_expect(ws_contains(err.message, cases[i].error), "%s: %s", cases[i].num,
				  err.message);
			cr_expect_eq(err.offset, 8 + (uint64_t)at + (cases[i].num[0] == ' '),
				     "%s: offset %llu", cases[i].num, (unsigned long long)err.offset);
		} else {
			cr_expect_eq(rc, 0, "%s: %s", cases[i].num, err.message);
			if (m)
				cr_expect_eq(m->tensors[0].shape[0], cases[i].value, "%s read as %llu",
					     cases[i].num, (unsigned long long)m->tensors[0].shape[0]);
		}
		ws_model_free(m);
		free(p);
	}
	ws_rmtree(dir);
	free(dir);
}

Test(safetensors, offsets_are_absolute_and_sorted_reading_keeps_header_order)
{
	static const char h[] = "{\"b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[4,8]},\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
	size_t hl = sizeof h - 1;
	unsigned char b[256] = {0};
	b[0] = (unsigned char)hl;
	memcpy(b + 8, h, hl);
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "o.safetensors", b, 8 + hl + 8);
	ws_model *m;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(p, NULL, &m, &err), 0, "%s", err.message);
	cr_assert_str_eq(m->tensors[0].name, "b");
	cr_expect_eq(m->tensors[0].offset, 8 + hl + 4);
	cr_expect_eq(m->tensors[1].offset, 8 + hl);
	cr_expect_eq(m->files[0].header_bytes, 8 + hl);
	ws_model_free(m);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== the real files of ../shared/realdata (skipped without it) ==== */

Test(safetensors, realdata_matches_reference)
{
	char *ref = ws_shared_path("safetensors/REFERENCE.txt");
	if (!ref)
		cr_skip_test("../shared/realdata is not here");
	FILE *f = fopen(ref, "r");
	cr_assert(f);
	char line[1024], cur[1024] = "";
	int checked = 0;
	while (fgets(line, sizeof line, f)) {
		if (!strncmp(line, "### ", 4)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(cur, sizeof cur, "%s", line + 4);
			continue;
		}
		unsigned long long tensors, elements, data_bytes;
		if (strncmp(line, "OK tensors=", 11) && strncmp(line, "INDEX shards=", 13))
			continue;
		if (!strncmp(line, "INDEX", 5)) {
			char *e = strstr(line, "elements=");
			char *d = strstr(line, "data_bytes=");
			cr_assert(e && d);
			elements = strtoull(e + 9, NULL, 10);
			data_bytes = strtoull(d + 11, NULL, 10);
			tensors = strtoull(strstr(line, "weight_map_entries=") + 19, NULL, 10);
		} else if (sscanf(line, "OK tensors=%llu elements=%llu data_bytes=%llu",
				  &tensors, &elements, &data_bytes) != 3) {
			continue;
		}
		char *p = ws_shared_path(strncmp(cur, "sharded", 7) ? cur : "safetensors/sharded");
		char *q = NULL;
		if (strncmp(cur, "sharded", 7)) {
			free(p);
			cr_assert(asprintf(&q, "safetensors/%s", cur) > 0);
			p = ws_shared_path(q);
		}
		ws_model *m = NULL;
		ws_error err = {0};
		cr_assert_eq(ws_model_open(p, NULL, &m, &err), 0, "%s: %s", p, err.message);
		uint64_t el = 0, by = 0;
		for (uint64_t t = 0; t < m->n_tensors; t++) {
			el += m->tensors[t].elements;
			by += m->tensors[t].bytes;
		}
		cr_expect_eq(m->n_tensors, tensors, "%s tensors", cur);
		cr_expect_eq(el, elements, "%s elements", cur);
		cr_expect_eq(by, data_bytes, "%s bytes", cur);
		for (size_t i = 0; i < m->n_findings; i++)
			cr_expect(m->findings[i].severity != WS_SEV_ERROR, "%s: %s", cur,
				  m->findings[i].message);
		ws_model_free(m);
		free(p);
		free(q);
		checked++;
	}
	fclose(f);
	free(ref);
	cr_expect_geq(checked, 12);
}

/* ==== sharded checkpoints ==== */

Test(safetensors, index_cross_checked_against_headers)
{
	char *dir = ws_tmpdir();
	char *cfg = ws_testdata_path("tiny-llama/config.json");
	ws_mkfixture("sparse", dir, cfg, "--shards", "3", NULL);
	ws_model *m;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(dir, NULL, &m, &err), 0, "%s", err.message);
	cr_expect_eq(m->n_files, 3);
	cr_expect_eq(m->n_tensors, 21);
	cr_expect_eq(m->n_findings, 0);
	cr_expect_str_eq(m->arch_name, "llama");
	ws_model_free(m);

	/* a stale index: it names a tensor no shard holds */
	char *ip = ws_join(dir, "model.safetensors.index.json");
	FILE *f = fopen(ip, "r+");
	cr_assert(f);
	char buf[8192];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	char *hit = strstr(buf, "model.norm.weight");
	cr_assert(hit);
	memcpy(hit, "model.NORM.weight", 17);
	rewind(f);
	fwrite(buf, 1, n, f);
	fclose(f);
	cr_assert_eq(ws_model_open(dir, NULL, &m, &err), 0, "%s", err.message);
	int mism = 0;
	for (size_t i = 0; i < m->n_findings; i++)
		if (!strcmp(m->findings[i].code, "index-mismatch") &&
		    m->findings[i].severity == WS_SEV_ERROR)
			mism++;
	cr_expect_eq(mism, 2, "both directions reported");
	ws_model_free(m);

	/* a missing shard is exit 3 naming it */
	char *s2 = ws_join(dir, "model-00002-of-00003.safetensors");
	cr_assert_eq(remove(s2), 0);
	cr_expect_eq(ws_model_open(dir, NULL, &m, &err), -1);
	cr_expect_eq(err.code, 3);
	cr_expect(ws_contains(err.file, "model-00002-of-00003.safetensors"), "%s", err.file);
	free(s2);
	free(ip);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(safetensors, sparse_405b_shaped_checkpoint)
{
	char *cfg = ws_shared_path("configs/meta-llama__Llama-3.1-405B.json");
	if (!cfg)
		cr_skip_test("../shared/realdata is not here");
	char *dir = ws_tmpdir();
	ws_mkfixture("sparse", dir, cfg, "--shards", "191", NULL);
	ws_model *m;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(dir, NULL, &m, &err), 0, "%s", err.message);
	uint64_t el = 0;
	for (uint64_t t = 0; t < m->n_tensors; t++)
		el += m->tensors[t].elements;
	cr_expect_eq(m->n_files, 191);
	cr_expect_eq(el, 405853388800ull);
	ws_model_free(m);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

/* A FIFO where a file is expected (a shard, the path itself, a .gguf,
 * config.json) is refused as not a regular file: opened without waiting
 * for a writer that never comes. */
static void
refused(const char *path, const char *file)
{
	ws_model *m = NULL;
	ws_error err = {0};
	cr_expect_eq(ws_model_open(path, NULL, &m, &err), -1, "%s accepted", path);
	cr_expect_eq(err.code, WS_EXIT_INPUT, "%s: code %d", path, err.code);
	cr_expect(ws_contains(err.message, "not a regular file"), "%s: %s", path, err.message);
	cr_expect_str_eq(err.file, file);
	ws_model_free(m);
}

Test(safetensors, fifo_refused_not_waited_on)
{
	alarm(20); /* a hang fails the test instead of stalling the suite */
	char *dir = ws_tmpdir(), *cfg = ws_testdata_path("tiny-llama/config.json");
	char *out = ws_join(dir, "m"), *lone = ws_join(dir, "lone.safetensors");
	char *gguf = ws_join(dir, "lone.gguf");
	ws_mkfixture("sparse", out, cfg, "--shards", "12", NULL);
	char *s5 = ws_join(out, "model-00005-of-00012.safetensors");
	cr_assert_eq(remove(s5), 0);
	cr_assert_eq(mkfifo(s5, 0600), 0);
	refused(out, s5); /* read ahead, or here */
	char *ip = ws_join(out, "model.safetensors.index.json");
	refused(ip, s5); /* one by one */
	cr_assert_eq(mkfifo(lone, 0600), 0);
	refused(lone, lone);
	cr_assert_eq(mkfifo(gguf, 0600), 0);
	refused(gguf, gguf);

	char *one = ws_join(dir, "one"), *c = ws_join(one, "config.json");
	char *src = ws_testdata_path("tiny-llama/model.safetensors");
	cr_assert_eq(mkdir(one, 0700), 0);
	FILE *in = fopen(src, "rb");
	cr_assert(in);
	char *buf = malloc(1 << 20);
	size_t n = fread(buf, 1, 1 << 20, in);
	fclose(in);
	free(ws_write_file(one, "model.safetensors", buf, n));
	cr_assert_eq(mkfifo(c, 0600), 0);
	refused(one, c);
	alarm(0);
	free(buf);
	free(src);
	free(c);
	free(one);
	free(ip);
	free(s5);
	free(gguf);
	free(lone);
	free(out);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

/* ==== the reference reader's edges (issue 27) ==== */

/* One tensor whose unknown field "x" holds `arrays` nested arrays: the
 * header nests arrays + 2 levels (the outer object and the tensor's). */
static int
deep_header(char *h, size_t cap, int arrays)
{
	int o = snprintf(h, cap, "{\"a\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4],\"x\":");
	for (int k = 0; k < arrays; k++)
		h[o++] = '[';
	for (int k = 0; k < arrays; k++)
		h[o++] = ']';
	return o + snprintf(h + o, cap - (size_t)o, "}}");
}

/* 127 levels of arrays and objects, the outer object counted, are read;
 * 128 are refused at the 128th bracket (serde_json's limit). */
Test(safetensors, nesting_127_accepted_128_refused)
{
	char *dir = ws_tmpdir();
	char h[512];
	int o = deep_header(h, sizeof h, 125);
	char *p = ws_write_safetensors(dir, "deep-127.safetensors", h, (size_t)o, 4);
	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(p, NULL, &m, &err), 0, "%s", err.message);
	cr_expect_eq(m->n_tensors, 1);
	ws_model_free(m);
	o = deep_header(h, sizeof h, 126);
	char *q = ws_write_safetensors(dir, "deep-128.safetensors", h, (size_t)o, 4);
	cr_assert_eq(ws_model_open(q, NULL, &m, &err), -1);
	cr_expect_eq(err.code, WS_EXIT_INPUT);
	cr_expect(ws_contains(err.message, "nested 128 levels"), "%s", err.message);
	cr_expect_eq(err.offset, (uint64_t)(8 + (strchr(h, 'x') - h) + 3 + 125), "offset %llu",
		     (unsigned long long)err.offset);
	free(p);
	free(q);
	ws_rmtree(dir);
	free(dir);
}

/* A NUL in a tensor name (\u0000) is read, as the reference reads it, and
 * printed escaped like any other control byte. */
Test(safetensors, nul_in_name_accepted_and_escaped)
{
	char *dir = ws_tmpdir();
	static const char h[] = "{\"a\\u0000b\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}";
	char *p = ws_write_safetensors(dir, "nul-name.safetensors", h, sizeof h - 1, 4);
	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(p, NULL, &m, &err), 0, "%s", err.message);
	cr_assert_eq(m->n_tensors, 1);
	cr_expect_eq(m->tensors[0].name_len, 3);
	cr_expect_eq(memcmp(m->tensors[0].name, "a\0b", 3), 0);
	ws_model_free(m);
	ws_run r = ws_run_cli("ls", p, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "a\\x00b"), "stdout: %s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("check", p, NULL);
	cr_expect_neq(r.status, 3, "%s", r.err);
	ws_run_free(&r);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== the writer's spelling and the general one ==== */

/* header with a blank after every ':' and ',' (none sit inside its
 * strings): read the general way, where the writer's spelling is read in
 * one go. */
static char *
spaced(const char *h)
{
	char *o = malloc(2 * strlen(h) + 1);
	size_t n = 0;
	cr_assert(o);
	for (; *h; h++) {
		o[n++] = *h;
		if (*h == ':' || *h == ',')
			o[n++] = ' ';
	}
	o[n] = '\0';
	return o;
}

static int
open_header(const char *dir, const char *name, const char *h, uint64_t data, ws_model **m,
	    ws_error *err)
{
	/* the writer's blanks after the object keep the last entry away
	 * from the end, where the one-go reading needs 16 bytes in hand */
	char *padded = malloc(strlen(h) + 32);
	cr_assert(padded);
	snprintf(padded, strlen(h) + 32, "%s%24s", h, "");
	char *p = ws_write_safetensors(dir, name, padded, strlen(padded), 0);
	cr_assert_eq(truncate(p, (off_t)(8 + strlen(padded) + data)), 0);
	*m = NULL;
	memset(err, 0, sizeof *err);
	int rc = ws_model_open(p, NULL, m, err);
	free(padded);
	free(p);
	return rc;
}

Test(safetensors, the_writers_spelling_reads_as_any_other)
{
	static const struct { const char *h; uint64_t data; } cases[] = {
		{"{\"__metadata__\":{\"format\":\"pt\"},"
		 "\"a\":{\"dtype\":\"BF16\",\"shape\":[2048,7168],\"data_offsets\":[0,29360128]},"
		 "\"b\":{\"dtype\":\"BF16\",\"shape\":[7168,2048],\"data_offsets\":[29360128,58720256]},"
		 "\"c\":{\"dtype\":\"F8_E4M3FNUZ\",\"shape\":[3],\"data_offsets\":[58720256,58720259]},"
		 "\"d\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[58720259,58720263]},"
		 "\"e\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[58720263,58720263]},"
		 "\"f\":{\"dtype\":\"I32\",\"shape\":[1],\"data_offsets\":[58720263,58720267]},"
		 /* shapes spelled as ones before */
		 "\"g\":{\"dtype\":\"BF16\",\"shape\":[2048,7168],\"data_offsets\":[58720267,88080395]},"
		 "\"h\":{\"dtype\":\"F8_E4M3FNUZ\",\"shape\":[2048,7168],\"data_offsets\":[88080395,102760459]},"
		 "\"i\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[102760459,102760463]},"
		 "\"j\":{\"dtype\":\"F32\",\"shape\":[204,7168],\"data_offsets\":[102760463,108609551]}}",
		 108609551},
		/* 13 digits, a begin repeating them, and a shape past the
		 * one-go reading's 15 digits */
		{"{\"a\":{\"dtype\":\"U8\",\"shape\":[1000000000000],\"data_offsets\":[0,1000000000000]},"
		 "\"b\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[1000000000000,1000000000001]},"
		 "\"c\":{\"dtype\":\"U8\",\"shape\":[1000000000000000,0],\"data_offsets\":[1000000000001,1000000000001]}}",
		 1000000000001ull},
		/* errors: each the general reading's */
		{"{\"a\":{\"dtype\":\"\",\"shape\":[1],\"data_offsets\":[0,1]}}", 1},
		{"{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
		 "\"b\":{\"dtype\":\"BF17\",\"shape\":[1],\"data_offsets\":[1,3]}}", 3},
		{"{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
		 "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[08,16]}}", 16},
		{"{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
		 "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[8.0,16]}}", 16},
		{"{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
		 "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[80,88]}}", 88},
		{"{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
		 "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[8,15]}}", 15},
		{"{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[8,16]},"
		 "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]}}", 16},
		{"{\"a\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[0,8]},"
		 "\"b\":{\"dtype\":\"U8\",\"shape\":[8],\"data_offsets\":[8,16]}}", 12},
		{"{\"a\":{\"dtype\":\"F4\",\"shape\":[3],\"data_offsets\":[0,2]}}", 2},
	};
	char *dir = ws_tmpdir();
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *sp = spaced(cases[i].h), name[32];
		ws_model *a, *b;
		ws_error ea, eb;
		snprintf(name, sizeof name, "w%zu.safetensors", i);
		int ra = open_header(dir, name, cases[i].h, cases[i].data, &a, &ea);
		snprintf(name, sizeof name, "s%zu.safetensors", i);
		int rb = open_header(dir, name, sp, cases[i].data, &b, &eb);
		cr_assert_eq(ra, rb, "case %zu: %d (%s), spaced %d (%s)", i, ra, ea.message, rb,
			     eb.message);
		if (ra) {
			cr_expect_str_eq(ea.message, eb.message, "case %zu", i);
		} else {
			cr_assert_eq(a->n_tensors, b->n_tensors, "case %zu", i);
			for (uint64_t k = 0; k < a->n_tensors; k++) {
				const ws_tensor *x = &a->tensors[k], *y = &b->tensors[k];
				cr_expect_str_eq(x->name, y->name, "case %zu", i);
				cr_expect_eq(x->dtype, y->dtype, "case %zu %s", i, x->name);
				cr_expect_eq(x->bytes, y->bytes, "case %zu %s", i, x->name);
				cr_expect_eq(x->offset - a->files[0].data_start,
					     y->offset - b->files[0].data_start, "case %zu %s", i, x->name);
				cr_assert_eq(x->ndim, y->ndim, "case %zu %s", i, x->name);
				for (uint32_t d = 0; d < x->ndim; d++)
					cr_expect_eq(x->shape[d], y->shape[d], "case %zu %s", i, x->name);
			}
		}
		ws_model_free(a);
		ws_model_free(b);
		free(sp);
	}
	ws_rmtree(dir);
	free(dir);
}

/* Values whose start ('{' to the data_offsets' '[') is spelled as one
 * read before take its dtype, shape and count: six starts in turn, more
 * than are kept, some a byte apart, read in the writer's spelling and in
 * the general way give the same tensors, and the ones spelled. */
Test(safetensors, a_value_spelled_as_one_before_reads_the_same)
{
	static const struct { const char *dtype; uint64_t d0, d1; unsigned esize; } kinds[] = {
		{"BF16", 2048, 7168, 2}, {"BF16", 7168, 2048, 2}, {"BF16", 2048, 7169, 2},
		{"F16", 2048, 7168, 2}, {"BF16", 2048, 716, 2}, {"F32", 2048, 7168, 4},
	};
	enum { K = sizeof kinds / sizeof kinds[0], N = 60 };
	char *h = malloc(N * 128 + 16);
	size_t len = 0;
	uint64_t off = 0;
	cr_assert(h);
	h[len++] = '{';
	for (size_t i = 0; i < N; i++) {
		/* every order of the kinds over the rounds: i*7 mod 6 walks them */
		size_t k = (i * 7 + i / K) % K;
		uint64_t bytes = kinds[k].d0 * kinds[k].d1 * kinds[k].esize;
		len += (size_t)snprintf(h + len, N * 128 + 16 - len,
					"%s\"t%zu\":{\"dtype\":\"%s\",\"shape\":[%llu,%llu],"
					"\"data_offsets\":[%llu,%llu]}",
					i ? "," : "", i, kinds[k].dtype, (unsigned long long)kinds[k].d0,
					(unsigned long long)kinds[k].d1, (unsigned long long)off,
					(unsigned long long)(off + bytes));
		off += bytes;
	}
	h[len++] = '}';
	h[len] = '\0';
	char *dir = ws_tmpdir(), *sp = spaced(h);
	ws_model *a, *b;
	ws_error ea, eb;
	cr_assert_eq(open_header(dir, "w.safetensors", h, off, &a, &ea), 0, "%s", ea.message);
	cr_assert_eq(open_header(dir, "s.safetensors", sp, off, &b, &eb), 0, "%s", eb.message);
	cr_assert_eq(a->n_tensors, N);
	cr_assert_eq(b->n_tensors, N);
	for (size_t i = 0; i < N; i++) {
		size_t k = (i * 7 + i / K) % K;
		const ws_tensor *x = &a->tensors[i], *y = &b->tensors[i];
		cr_expect_str_eq(ws_dtype_name(x->dtype), kinds[k].dtype, "t%zu", i);
		cr_expect_eq(x->dtype, y->dtype, "t%zu", i);
		cr_assert_eq(x->ndim, 2, "t%zu", i);
		cr_expect_eq(x->shape[0], kinds[k].d0, "t%zu", i);
		cr_expect_eq(x->shape[1], kinds[k].d1, "t%zu", i);
		cr_expect_eq(x->elements, kinds[k].d0 * kinds[k].d1, "t%zu", i);
		cr_expect_eq(x->elements, y->elements, "t%zu", i);
		cr_expect_eq(x->bytes, y->bytes, "t%zu", i);
		cr_expect_eq(x->offset - a->files[0].data_start, y->offset - b->files[0].data_start, "t%zu", i);
	}
	ws_model_free(a);
	ws_model_free(b);
	free(sp);
	free(h);
	free(dir);
}
