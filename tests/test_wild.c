/* test_wild.c - folder layouts from the wild (issue 27): variants of one
 * checkpoint (transformers, diffusers components, sharded with their own
 * index), tensors duplicated across the files of one checkpoint, and
 * folders of models (each file a whole model). */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "testutil.h"
#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"

/* ==== helpers ==== */

/* A safetensors file of n F32 tensors of 2 elements, named prefix0.. */
static char *
write_st(const char *dir, const char *name, const char *prefix, int n)
{
	char h[8192];
	int o = snprintf(h, sizeof h, "{");
	for (int i = 0; i < n; i++)
		o += snprintf(h + o, sizeof h - (size_t)o,
			      "%s\"%s%d.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[%d,%d]}",
			      i ? "," : "", prefix, i, 8 * i, 8 * i + 8);
	o += snprintf(h + o, sizeof h - (size_t)o, "}");
	return ws_write_safetensors(dir, name, h, (size_t)o, (size_t)n * 8);
}

static ws_model *
open_ok(const char *path, const char *variant)
{
	ws_open_opts o = {.variant = variant};
	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(path, &o, &m, &err), 0, "%s: %s", path, err.message);
	return m;
}

static const ws_finding *
finding(const ws_model *m, const char *code)
{
	for (size_t i = 0; i < m->n_findings; i++)
		if (!strcmp(m->findings[i].code, code))
			return &m->findings[i];
	return NULL;
}

static size_t
count_findings(const ws_model *m, const char *code)
{
	size_t n = 0;
	for (size_t i = 0; i < m->n_findings; i++)
		n += !strcmp(m->findings[i].code, code);
	return n;
}

static void
mkmodel(const char *dir, const char *config, ...) __attribute__((sentinel));

static void
mkmodel(const char *dir, const char *config, ...)
{
	char *argv[16];
	int n = 0;
	argv[n++] = getenv("WS_MKMODEL");
	cr_assert(argv[0], "WS_MKMODEL is not set");
	argv[n++] = (char *)dir;
	argv[n++] = (char *)config;
	va_list ap;
	va_start(ap, config);
	for (char *a; n < 15 && (a = va_arg(ap, char *));)
		argv[n++] = a;
	va_end(ap);
	argv[n] = NULL;
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s: %s", config, r.err);
	ws_run_free(&r);
}

static void
copy_file(const char *from, const char *to)
{
	FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
	cr_assert(a && b, "copy %s -> %s", from, to);
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, a)) > 0)
		cr_assert_eq(fwrite(buf, 1, n, b), n);
	fclose(a);
	cr_assert_eq(fclose(b), 0);
}

/* ==== variants: one file each ==== */

/* model.safetensors (3 tensors) beside model.fp16.safetensors (2): the
 * tensor count tells which one was read. */
static char *
single_variants(const char *stem)
{
	char *dir = ws_tmpdir(), name[128];
	snprintf(name, sizeof name, "%s.safetensors", stem);
	free(write_st(dir, name, "w", 3));
	snprintf(name, sizeof name, "%s.fp16.safetensors", stem);
	free(write_st(dir, name, "w", 2));
	return dir;
}

static void
check_single_variants(const char *stem)
{
	char *dir = single_variants(stem), want[160];
	ws_model *m = open_ok(dir, NULL);
	cr_expect_eq(m->n_files, 1);
	cr_expect_eq(m->n_tensors, 3, "the non-variant file is read by default");
	const ws_finding *f = finding(m, "variant");
	cr_assert(f, "no variant finding");
	cr_expect_eq(f->severity, WS_SEV_INFO);
	snprintf(want, sizeof want, "not read: %s.fp16.safetensors", stem);
	cr_expect(ws_contains(f->message, want), "%s", f->message);
	cr_expect_eq(count_findings(m, "duplicate-tensor"), 0, "variants are not duplicates");
	cr_expect_eq(m->n_unread_files, 1);
	ws_model_free(m);

	m = open_ok(dir, "fp16");
	cr_expect_eq(m->n_tensors, 2, "--variant fp16 reads the fp16 file");
	f = finding(m, "variant");
	cr_assert(f);
	snprintf(want, sizeof want, "not read: %s.safetensors", stem);
	cr_expect(ws_contains(f->message, want), "%s", f->message);
	ws_model_free(m);

	ws_run r = ws_run_cli("check", "--variant", "bf16", dir, NULL);
	cr_expect_eq(r.status, 2, "an unknown variant is a usage error: %s", r.err);
	cr_expect(ws_contains(r.err, "variants present: fp16"), "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("check", "--variant", "fp16", "--json", dir, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\"tensor_count\":2"), "%s", r.out);
	cr_expect(ws_contains(r.out, "\"code\":\"variant\""), "%s", r.out);
	ws_run_free(&r);

	/* hash covers both variants */
	r = ws_run_cli("hash", dir, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	snprintf(want, sizeof want, "/%s.safetensors\n", stem);
	cr_expect(ws_contains(r.out, want), "%s", r.out);
	snprintf(want, sizeof want, "/%s.fp16.safetensors\n", stem);
	cr_expect(ws_contains(r.out, want), "%s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(dir);
}

Test(wild, variants_transformers)
{
	check_single_variants("model");
}

Test(wild, variants_diffusers_component)
{
	check_single_variants("diffusion_pytorch_model");
}

/* A checkpoint with only variants (no non-variant file) reads its first,
 * and says so. */
Test(wild, variants_without_the_plain_one)
{
	char *dir = ws_tmpdir();
	free(write_st(dir, "model.fp16.safetensors", "w", 2));
	free(write_st(dir, "model.bf16.safetensors", "w", 4));
	ws_model *m = open_ok(dir, NULL);
	cr_expect_eq(m->n_tensors, 4, "bf16 sorts first");
	cr_assert(finding(m, "variant"));
	cr_expect(ws_contains(finding(m, "variant")->message, "not read: model.fp16.safetensors"));
	ws_model_free(m);
	ws_rmtree(dir);
	free(dir);
}

/* A folder without variants says nothing of them, and --variant there is
 * a usage error naming none. */
Test(wild, no_variants_no_finding)
{
	char *dir = ws_tmpdir();
	free(write_st(dir, "model.safetensors", "w", 2));
	ws_model *m = open_ok(dir, NULL);
	cr_expect_null(finding(m, "variant"));
	cr_expect_eq(m->n_unread_files, 0);
	ws_model_free(m);
	ws_run r = ws_run_cli("check", "--variant", "fp16", dir, NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(ws_contains(r.err, "variants present: none"), "%s", r.err);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(dir);
}

/* ==== variants: sharded, each with its own index ==== */

/* mkmodel's two shards + index, and an fp16 copy written as transformers
 * does: model.fp16-0000N-of-00002.safetensors and
 * model.safetensors.index.fp16.json. */
static char *
sharded_variants(void)
{
	char *cfg = ws_testdata_path("tiny-llama/config.json");
	char *dir = ws_tmpdir();
	mkmodel(dir, cfg, "--shards", "2", NULL);
	free(cfg);
	for (int s = 1; s <= 2; s++) {
		char a[64], b[64];
		snprintf(a, sizeof a, "model-%05d-of-00002.safetensors", s);
		snprintf(b, sizeof b, "model.fp16-%05d-of-00002.safetensors", s);
		char *pa = ws_join(dir, a), *pb = ws_join(dir, b);
		copy_file(pa, pb);
		free(pa);
		free(pb);
	}
	char *ip = ws_join(dir, "model.safetensors.index.json");
	FILE *f = fopen(ip, "rb");
	cr_assert(f);
	char idx[1 << 16];
	size_t n = fread(idx, 1, sizeof idx - 1, f);
	fclose(f);
	idx[n] = '\0';
	/* the fp16 index names the fp16 shards */
	char out[1 << 17];
	size_t o = 0;
	for (const char *p = idx; *p;) {
		if (!strncmp(p, "model-0000", 10)) {
			o += (size_t)snprintf(out + o, sizeof out - o, "model.fp16-");
			p += 6;
		} else {
			out[o++] = *p++;
		}
	}
	free(ws_write_file(dir, "model.safetensors.index.fp16.json", out, o));
	free(ip);
	return dir;
}

static void
sharded_case(const char *dir, const char *variant)
{
	ws_model *m = open_ok(dir, variant);
	cr_expect_eq(m->n_files, 2);
	for (uint32_t i = 0; i < m->n_files; i++)
		cr_expect_eq(ws_contains(m->files[i].path, "model.fp16-"), variant != NULL,
			     "%s read", m->files[i].path);
	cr_expect(ws_contains(m->index_path, variant ? "index.fp16.json" : "index.json"));
	cr_expect_eq(count_findings(m, "index-mismatch"), 0,
		     "the other variant's shards are not unlisted shards");
	const ws_finding *f = finding(m, "variant");
	cr_assert(f);
	cr_expect(ws_contains(f->message, variant ? "model-00001-of-00002.safetensors"
						  : "model.fp16-00001-of-00002.safetensors"),
		  "%s", f->message);
	cr_expect_eq(m->n_unread_files, 3, "two shards and an index not read");
	ws_model_free(m);
}

Test(wild, variants_sharded)
{
	char *dir = sharded_variants();
	sharded_case(dir, NULL);
	sharded_case(dir, "fp16");
	/* the same with the folder listed while the index is parsed (the
	 * path a large index takes) */
	uint64_t keep = ws_st_parallel.listing_index;
	ws_st_parallel.listing_index = 0;
	sharded_case(dir, NULL);
	ws_st_parallel.listing_index = keep;

	ws_run r = ws_run_cli("check", "--variant", "int8", dir, NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "variants present: fp16"), "%s", r.err);
	ws_run_free(&r);
	/* hash: every shard of both variants and both indexes */
	r = ws_run_cli("hash", dir, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	static const char *const files[] = {
		"/model-00001-of-00002.safetensors\n", "/model-00002-of-00002.safetensors\n",
		"/model.fp16-00001-of-00002.safetensors\n", "/model.fp16-00002-of-00002.safetensors\n",
		"/model.safetensors.index.json\n", "/model.safetensors.index.fp16.json\n",
	};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		cr_expect(ws_contains(r.out, files[i]), "%s missing from:\n%s", files[i], r.out);
	ws_run_free(&r);
	/* and verify re-hashes every one of them */
	char *man = ws_join(dir, "MANIFEST");
	r = ws_run_cli("hash", "-o", man, dir, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("verify", man, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		char line[128];
		snprintf(line, sizeof line, "%.*s: OK", (int)strlen(files[i] + 1) - 1, files[i] + 1);
		cr_expect(ws_contains(r.out, line), "'%s' missing from:\n%s", line, r.out);
	}
	ws_run_free(&r);
	free(man);
	ws_rmtree(dir);
	free(dir);
}

/* ==== duplicates and folders of models ==== */

/* Two files of one checkpoint (no index) that hold one name twice: an
 * error naming both files; check fails. */
Test(wild, duplicate_tensor_across_files)
{
	char *dir = ws_tmpdir();
	char *a = write_st(dir, "part-a.safetensors", "a", 4);
	char *b = ws_write_safetensors(dir, "part-b.safetensors",
				       "{\"a0.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
				       "\"b0.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]},"
				       "\"b1.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
				       "\"b2.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[24,32]}}",
				       strlen("{\"a0.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
					      "\"b0.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]},"
					      "\"b1.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
					      "\"b2.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[24,32]}}"),
				       32);
	ws_model *m = open_ok(dir, NULL);
	cr_expect_eq(m->n_files, 2);
	cr_expect_not(m->folder_of_models);
	cr_assert_eq(count_findings(m, "duplicate-tensor"), 1);
	const ws_finding *f = finding(m, "duplicate-tensor");
	cr_expect_eq(f->severity, WS_SEV_ERROR);
	cr_expect(ws_contains(f->message, "'a0.weight'"), "%s", f->message);
	cr_expect(ws_contains(f->message, a) && ws_contains(f->message, b), "%s", f->message);
	ws_model_free(m);
	ws_run r = ws_run_cli("check", dir, NULL);
	cr_expect_eq(r.status, 1, "%s", r.out);
	cr_expect(ws_contains(r.out, "duplicate-tensor"), "%s", r.out);
	ws_run_free(&r);
	free(a);
	free(b);
	ws_rmtree(dir);
	free(dir);
}

/* The same with an index: each shard is a valid file, the checkpoint holds
 * the tensor twice - a finding (check fails), not exit 3. */
Test(wild, duplicate_tensor_across_indexed_shards)
{
	char *dir = ws_tmpdir();
	char *a = write_st(dir, "model-00001-of-00002.safetensors", "a", 2);
	char *b = ws_write_safetensors(dir, "model-00002-of-00002.safetensors",
				       "{\"a1.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}",
				       strlen("{\"a1.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}"),
				       8);
	static const char idx[] = "{\"weight_map\":{\"a0.weight\":\"model-00001-of-00002.safetensors\","
				  "\"a1.weight\":\"model-00002-of-00002.safetensors\"}}";
	free(ws_write_file(dir, "model.safetensors.index.json", idx, sizeof idx - 1));
	ws_model *m = open_ok(dir, NULL);
	cr_assert_eq(count_findings(m, "duplicate-tensor"), 1);
	const ws_finding *f = finding(m, "duplicate-tensor");
	cr_expect(ws_contains(f->message, "'a1.weight'") && ws_contains(f->message, a) &&
		  ws_contains(f->message, b), "%s", f->message);
	cr_expect_eq(count_findings(m, "index-mismatch"), 0, "the map names a file that holds it");
	ws_model_free(m);
	ws_run r = ws_run_cli("check", dir, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	ws_run_free(&r);
	free(a);
	free(b);
	ws_rmtree(dir);
	free(dir);
}

/* A folder whose files each hold a whole model (a full checkpoint and an
 * EMA-only one, LoRAs of one base): each reported on its own, no
 * duplicate-tensor. */
Test(wild, folder_of_models)
{
	char *dir = ws_tmpdir();
	free(write_st(dir, "v1-5-pruned.safetensors", "w", 12));
	free(write_st(dir, "v1-5-pruned-emaonly.safetensors", "w", 8));
	free(write_st(dir, "lora-b.safetensors", "w", 7));
	ws_model *m = open_ok(dir, NULL);
	cr_expect(m->folder_of_models);
	cr_expect_eq(count_findings(m, "duplicate-tensor"), 0);
	ws_model_free(m);

	char **sub = NULL;
	size_t n = 0;
	cr_assert_eq(ws_expand_path(dir, &sub, &n, &(ws_error){0}), 0);
	cr_assert_eq(n, 3);
	cr_expect(ws_contains(sub[0], "lora-b.safetensors"), "%s", sub[0]);
	cr_expect(ws_contains(sub[1], "v1-5-pruned-emaonly.safetensors"), "%s", sub[1]);
	cr_expect(ws_contains(sub[2], "v1-5-pruned.safetensors"), "%s", sub[2]);
	for (size_t i = 0; i < n; i++)
		free(sub[i]);
	free(sub);

	ws_run r = ws_run_cli("check", "--json", dir, NULL);
	cr_expect_eq(r.status, 0, "%s", r.out);
	cr_expect(ws_contains(r.out, "\"tensor_count\":12"), "%s", r.out);
	cr_expect(ws_contains(r.out, "\"tensor_count\":8"), "%s", r.out);
	cr_expect(ws_contains(r.out, "\"tensor_count\":7"), "%s", r.out);
	cr_expect_not(ws_contains(r.out, "duplicate-tensor"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("--json", dir, NULL);
	size_t lines = 0;
	for (const char *p = r.out; (p = strchr(p, '\n')); p++)
		lines++;
	cr_expect_eq(lines, 3, "one object per model: %s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(dir);
}

/* Only the weights names transformers and diffusers give variants are
 * variants: two versions of a LoRA are two models. */
Test(wild, versions_of_a_lora_are_not_variants)
{
	char *dir = ws_tmpdir();
	free(write_st(dir, "style.v1.safetensors", "w", 5));
	free(write_st(dir, "style.v2.safetensors", "w", 5));
	ws_model *m = open_ok(dir, NULL);
	cr_expect_null(finding(m, "variant"));
	cr_expect(m->folder_of_models);
	ws_model_free(m);
	ws_run r = ws_run_cli("check", "--variant", "v2", dir, NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(dir);
}

/* A whole model beside model.safetensors is a folder of models too. */
Test(wild, folder_of_models_with_model_safetensors)
{
	char *dir = ws_tmpdir();
	free(write_st(dir, "model.safetensors", "w", 6));
	free(write_st(dir, "model-ema.safetensors", "w", 6));
	char **sub = NULL;
	size_t n = 0;
	cr_assert_eq(ws_expand_path(dir, &sub, &n, &(ws_error){0}), 0);
	cr_expect_eq(n, 2);
	for (size_t i = 0; i < n; i++)
		free(sub[i]);
	free(sub);
	ws_rmtree(dir);
	free(dir);
}

/* Shards of one checkpoint share no names: a folder of them is one model. */
Test(wild, disjoint_files_are_one_checkpoint)
{
	char *dir = ws_tmpdir();
	free(write_st(dir, "a.safetensors", "a", 3));
	free(write_st(dir, "b.safetensors", "b", 3));
	ws_model *m = open_ok(dir, NULL);
	cr_expect_not(m->folder_of_models);
	cr_expect_eq(m->n_tensors, 6);
	cr_expect_eq(count_findings(m, "duplicate-tensor"), 0);
	ws_model_free(m);
	char **sub = NULL;
	size_t n = 0;
	cr_assert_eq(ws_expand_path(dir, &sub, &n, &(ws_error){0}), 0);
	cr_expect_eq(n, 0);
	ws_rmtree(dir);
	free(dir);
}
