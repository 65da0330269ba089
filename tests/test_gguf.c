/* test_gguf.c - the GGUF reader on generated and real files, and kv.h. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <criterion/logging.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "internal.h"
#include "testutil.h"
#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/kv.h"

static char *valid_dir, *bad_dir, *tmp_root;

static void
gen(const char *mode, const char *dir)
{
	const char *bin = getenv("WS_MKGGUF");
	cr_assert(bin, "WS_MKGGUF not set");
	char *argv[] = {(char *)bin, (char *)mode, (char *)dir, NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkgguf %s: %s", mode, r.err);
	cr_assert_str_empty(r.out);
	ws_run_free(&r);
}

static void
setup(void)
{
	tmp_root = ws_tmpdir();
	valid_dir = ws_join(tmp_root, "valid");
	bad_dir = ws_join(tmp_root, "bad");
	cr_assert(mkdir(valid_dir, 0700) == 0 && mkdir(bad_dir, 0700) == 0);
	gen("valid", valid_dir);
	gen("bad", bad_dir);
}

static void
teardown(void)
{
	ws_rmtree(tmp_root);
	free(valid_dir);
	free(bad_dir);
	free(tmp_root);
}

TestSuite(gguf, .init = setup, .fini = teardown);

/* Load path with the reader; NULL (and err filled) on failure. */
static ws_model *
load(const char *path, ws_error *err)
{
	ws_model *m = ws_model_new(path);
	cr_assert(m);
	memset(err, 0, sizeof *err);
	if (ws_gguf_load(m, path, err) != 0) {
		cr_assert_eq(m->format, WS_FORMAT_GGUF);
		ws_model_free(m);
		return NULL;
	}
	cr_assert_eq(m->format, WS_FORMAT_GGUF);
	return m;
}

static ws_model *
load_in(const char *dir, const char *name)
{
	ws_error err;
	char *p = ws_join(dir, name);
	ws_model *m = load(p, &err);
	cr_assert(m, "%s: %s", name, err.message);
	free(p);
	return m;
}

static const ws_tensor *
tensor(const ws_model *m, const char *name)
{
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (!strcmp(m->tensors[i].name, name))
			return &m->tensors[i];
	cr_assert_fail("no tensor %s", name);
	return NULL;
}

static size_t
count_findings(const ws_model *m, const char *code)
{
	size_t n = 0;
	for (size_t i = 0; i < m->n_findings; i++)
		if (!strcmp(m->findings[i].code, code)) {
			cr_assert_eq(m->findings[i].severity, WS_SEV_ERROR);
			n++;
		}
	return n;
}

/* ==== valid files ==== */

Test(gguf, tiny_llama_tensors)
{
	ws_model *m = load_in(valid_dir, "tiny-llama.gguf");
	cr_assert_eq(m->n_files, 1);
	cr_assert_eq(m->n_tensors, 12);
	cr_assert_eq(m->n_findings, 0);
	cr_assert_str_eq(m->arch_name, "llama");
	cr_assert_eq(m->files[0].version, 3);
	cr_assert_not(m->files[0].big_endian);
	cr_assert_eq(m->files[0].tensor_count, 12);
	cr_assert_eq(m->files[0].data_start % 32, 0);
	cr_assert_geq(m->files[0].data_start, m->files[0].header_bytes);
	cr_assert_lt(m->files[0].data_start - m->files[0].header_bytes, 32);

	const ws_tensor *t = tensor(m, "token_embd.weight");
	cr_assert_eq(t->dtype, WS_DT_F16);
	cr_assert_eq(t->ndim, 2);
	cr_assert_eq(t->shape[0], 32);   /* PyTorch order: [V, d] */
	cr_assert_eq(t->shape[1], 256);
	cr_assert_eq(t->elements, 8192);
	cr_assert_eq(t->bytes, 16384);
	cr_assert_eq(t->offset, m->files[0].data_start);
	cr_assert_eq(t->params, t->elements);
	t = tensor(m, "blk.0.ffn_down.weight");
	cr_assert_eq(t->dtype, WS_DT_Q4_K);
	cr_assert_eq(t->shape[0], 256);
	cr_assert_eq(t->shape[1], 512);
	cr_assert_eq(t->bytes, 512 * 256 / 256 * 144);
	t = tensor(m, "blk.0.attn_q.weight");
	cr_assert_eq(t->dtype, WS_DT_Q8_0);
	cr_assert_eq(t->bytes, 256 * 256 / 32 * 34);
	/* Contiguous, aligned, in order, inside the file. */
	for (uint64_t i = 1; i < m->n_tensors; i++) {
		const ws_tensor *a = &m->tensors[i - 1], *b = &m->tensors[i];
		cr_assert_eq(b->offset % 32, 0);
		cr_assert_eq(b->offset, a->offset + (a->bytes + 31) / 32 * 32);
	}
	const ws_tensor *last = &m->tensors[m->n_tensors - 1];
	cr_assert_leq(last->offset + last->bytes, m->files[0].size);
	/* general.alignment + 8 llama keys + 11 test scalars + 2 test arrays
	 * + tokenizer model/tokens/scores/types */
	cr_assert_eq(m->n_meta, 26);
	ws_model_free(m);
}

Test(gguf, big_endian_equals_little_endian)
{
	ws_model *le = load_in(valid_dir, "tiny-llama.gguf");
	ws_model *be = load_in(valid_dir, "tiny-llama-be.gguf");
	cr_assert(be->files[0].big_endian);
	cr_assert_eq(be->files[0].version, 3);
	cr_assert_eq(be->files[0].size, le->files[0].size);
	cr_assert_eq(be->files[0].data_start, le->files[0].data_start);
	cr_assert_eq(be->n_tensors, le->n_tensors);
	for (uint64_t i = 0; i < le->n_tensors; i++) {
		const ws_tensor *a = &le->tensors[i], *b = &be->tensors[i];
		cr_assert_str_eq(a->name, b->name);
		cr_assert_eq(a->dtype, b->dtype);
		cr_assert_eq(a->ndim, b->ndim);
		for (uint32_t j = 0; j < a->ndim; j++)
			cr_assert_eq(a->shape[j], b->shape[j]);
		cr_assert_eq(a->elements, b->elements);
		cr_assert_eq(a->bytes, b->bytes);
		cr_assert_eq(a->offset, b->offset);
	}
	cr_assert_eq(be->n_meta, le->n_meta);
	for (uint64_t i = 0; i < le->n_meta; i++) {
		const ws_kv *a = &le->meta[i], *b = &be->meta[i];
		cr_assert_eq(a->key_len, b->key_len);
		cr_assert_eq(memcmp(a->key, b->key, a->key_len), 0);
		cr_assert_eq(a->type, b->type);
		cr_assert(b->swap);
		if (a->type == WS_V_ARRAY) {
			cr_assert_eq(a->arr_type, b->arr_type);
			cr_assert_eq(a->arr_count, b->arr_count);
			ws_kv_iter ia, ib;
			ws_kv_elem ea, eb;
			uint64_t n = 0;
			ws_kv_iter_init(&ia, a);
			ws_kv_iter_init(&ib, b);
			while (ws_kv_iter_next(&ia, &ea)) {
				cr_assert(ws_kv_iter_next(&ib, &eb));
				cr_assert_eq(ea.num.u, eb.num.u);
				cr_assert_eq(ea.str_len, eb.str_len);
				if (ea.str)
					cr_assert_eq(memcmp(ea.str, eb.str, ea.str_len), 0);
				n++;
			}
			cr_assert_eq(n, a->arr_count);
		} else if (a->type == WS_V_STRING) {
			cr_assert_eq(a->data_len, b->data_len);
			cr_assert_eq(memcmp(a->data, b->data, a->data_len), 0);
		} else {
			cr_assert_eq(a->num.u, b->num.u, "key %.*s", (int)a->key_len, a->key);
		}
	}
	ws_model_free(le);
	ws_model_free(be);
}

Test(gguf, v2_moe_vocab_bool)
{
	ws_model *m = load_in(valid_dir, "tiny-llama-v2.gguf");
	cr_assert_eq(m->files[0].version, 2);
	cr_assert_eq(m->n_tensors, 12);
	ws_model_free(m);

	m = load_in(valid_dir, "tiny-moe.gguf");
	const ws_tensor *t = tensor(m, "blk.0.ffn_down_exps.weight");
	cr_assert_eq(t->ndim, 3);
	cr_assert_eq(t->shape[0], 4);    /* [E, out, in] */
	cr_assert_eq(t->shape[1], 32);
	cr_assert_eq(t->shape[2], 64);
	cr_assert_eq(t->elements, 4 * 32 * 64);
	uint64_t e;
	cr_assert(ws_kv_get_u64(ws_model_find_kv(m, "llama.expert_count"), &e));
	cr_assert_eq(e, 4);
	ws_model_free(m);

	/* Vocab-only: no tensors, no padding, the aligned start past EOF. */
	m = load_in(valid_dir, "vocab-only.gguf");
	cr_assert_eq(m->n_tensors, 0);
	cr_assert_eq(m->files[0].header_bytes, m->files[0].size);
	cr_assert_eq(m->files[0].data_start % 32, 0);
	const ws_kv *kv = ws_model_find_kv(m, "tokenizer.ggml.tokens");
	cr_assert(kv);
	cr_assert_eq(kv->arr_count, 1000);
	ws_model_free(m);
}

/* ==== kv.h ==== */

static char *
text_of(const ws_kv *kv, bool full)
{
	char *txt;
	size_t len;
	FILE *f = open_memstream(&txt, &len);
	ws_kv_print_text(f, kv, full);
	fclose(f);
	return txt;
}

static char *
json_of(const ws_kv *kv, bool full)
{
	cJSON *j = ws_kv_to_json(kv, full);
	cr_assert(j);
	char *s = cJSON_PrintUnformatted(j);
	cJSON_Delete(j);
	return s;
}

Test(gguf, kv_values)
{
	static const struct {
		const char *key;
		const char *text;
		const char *json;
	} want[] = {
		{"test.u8", "200", "200"},
		{"test.i8", "-5", "-5"},
		{"test.u16", "60000", "60000"},
		{"test.i16", "-300", "-300"},
		{"test.u32", "4000000000", "4000000000"},
		{"test.i32", "-70000", "-70000"},
		{"test.f32", "1.5", "1.5"},
		{"test.bool", "true", "true"},
		{"test.u64", "9223372036854775813", "9223372036854775813"},
		{"test.i64", "-5000000000000", "-5000000000000"},
		{"test.f64", "0.1", "0.1"},
		{"llama.attention.layer_norm_rms_epsilon", "1e-05", "1e-05"},
		{"general.architecture", "\"llama\"", "\"llama\""},
		{"test.arr_i16", "[3 × i16] -1, 2, -300", "[-1,2,-300]"},
		{"test.arr_u64", "[2 × u64] 1, 18446744073709551615", "[1,18446744073709551615]"},
	};
	const char *files[] = {"tiny-llama.gguf", "tiny-llama-be.gguf"};
	for (size_t f = 0; f < 2; f++) {
		ws_model *m = load_in(valid_dir, files[f]);
		for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
			const ws_kv *kv = ws_model_find_kv(m, want[i].key);
			cr_assert(kv, "%s", want[i].key);
			char *t = text_of(kv, false), *j = json_of(kv, false);
			cr_assert_str_eq(t, want[i].text, "%s: %s", files[f], want[i].key);
			cr_assert_str_eq(j, want[i].json, "%s: %s", files[f], want[i].key);
			free(t);
			free(j);
		}
		uint64_t u;
		int64_t s;
		const char *str;
		size_t len;
		cr_assert(ws_kv_get_u64(ws_model_find_kv(m, "test.u64"), &u));
		cr_assert_eq(u, (1ull << 63) + 5);
		cr_assert_not(ws_kv_get_u64(ws_model_find_kv(m, "test.i8"), &u));
		cr_assert(ws_kv_get_i64(ws_model_find_kv(m, "test.i32"), &s));
		cr_assert_eq(s, -70000);
		cr_assert(ws_kv_get_u64(ws_model_find_kv(m, "llama.block_count"), &u));
		cr_assert_eq(u, 1);
		cr_assert_not(ws_kv_get_u64(ws_model_find_kv(m, "general.name"), &u));
		cr_assert(ws_kv_get_str(ws_model_find_kv(m, "general.name"), &str, &len));
		cr_assert_eq(len, 11);
		cr_assert_eq(memcmp(str, "mkgguf tiny", 11), 0);

		/* A 32-token vocabulary: summarized unless full. */
		const ws_kv *tok = ws_model_find_kv(m, "tokenizer.ggml.tokens");
		char *t = text_of(tok, false);
		cr_assert_str_eq(t, "[32 × string] \"<unk>\", \"<s>\", \"</s>\", \"tok3\", \"tok4\", …");
		free(t);
		t = text_of(tok, true);
		cr_assert(ws_contains(t, "\"tok31\""));
		cr_assert_not(ws_contains(t, "…"));
		free(t);
		char *j = json_of(tok, false);
		cr_assert(ws_contains(j, "\"type\":\"string\",\"count\":32,\"head\":[\"<unk>\",\"<s>\""), "%s", j);
		free(j);
		j = json_of(ws_model_find_kv(m, "tokenizer.ggml.scores"), true);
		cr_assert(!strncmp(j, "[-0,-1,-2,", 10), "%s", j);
		cr_assert(ws_contains(j, ",-31]"), "%s", j);
		free(j);
		ws_model_free(m);
	}
}

Test(gguf, kv_safetensors_string_and_nested)
{
	/* A __metadata__ entry as the safetensors reader fills it. */
	static const char v[] = "pt\n\x01";
	ws_kv kv = {.key = "format", .key_len = 6, .type = WS_V_STRING,
		    .data = (const uint8_t *)v, .data_len = 4};
	char *t = text_of(&kv, false);
	cr_assert_str_eq(t, "\"pt\\x0A\\x01\"");
	free(t);
	char *j = json_of(&kv, false);
	cJSON *back = cJSON_Parse(j);
	cr_assert(back && cJSON_IsString(back));
	cr_assert_str_eq(back->valuestring, "pt\n\x01");
	cJSON_Delete(back);
	free(j);

	ws_kv q = {.key = "q", .key_len = 1, .type = WS_V_STRING,
		   .data = (const uint8_t *)"a\"b\\", .data_len = 4};
	t = text_of(&q, false);
	cr_assert_str_eq(t, "\"a\\\"b\\\\\"");
	free(t);

	ws_model *m = load_in(bad_dir, "li-nested-array.gguf");
	const ws_kv *n = ws_model_find_kv(m, "test.nested");
	cr_assert_eq(n->arr_type, WS_V_ARRAY);
	t = text_of(n, false);
	cr_assert_str_eq(t, "[2 × array] {[2 × u32] 0, 10}, {[2 × u32] 1, 11}");
	free(t);
	j = json_of(n, false);
	cr_assert_str_eq(j, "[[0,10],[1,11]]");
	free(j);
	ws_model_free(m);
}

/* ==== broken files ==== */

/* Offset of the offending field as the generator recorded it. */
static uint64_t
expected_offset(const char *name)
{
	char *p = ws_join(bad_dir, "expect.tsv"), line[512];
	FILE *f = fopen(p, "r");
	cr_assert(f);
	free(p);
	while (fgets(line, sizeof line, f)) {
		char *tab = strchr(line, '\t');
		if (tab && (size_t)(tab - line) == strlen(name) &&
		    !strncmp(line, name, strlen(name))) {
			fclose(f);
			return strtoull(tab + 1, NULL, 10);
		}
	}
	fclose(f);
	cr_assert_fail("%s not in expect.tsv", name);
	return 0;
}

#define FROM_TSV UINT64_MAX

Test(gguf, bad_files_exit_3)
{
	static const struct {
		const char *file;
		uint64_t offset;
		const char *msg;
	} bad[] = {
		{"bad-magic.gguf", 0, "bad magic"},
		{"version-0.gguf", 4, "version 0"},
		{"version-1.gguf", 4, "GGUF v1 is not supported"},
		{"version-4.gguf", 4, "unsupported GGUF version 4"},
		{"tensors-count-lie.gguf", 8, "tensor count"},
		{"kv-count-lie.gguf", 16, "kv count"},
		{"string-past-end.gguf", FROM_TSV, "runs past the end"},
		{"string-too-long.gguf", FROM_TSV, "exceeds the 1 GiB"},
		{"array-past-end.gguf", FROM_TSV, "runs past the end"},
		{"array-too-long.gguf", FROM_TSV, "exceeds the 2^30"},
		{"empty-key.gguf", FROM_TSV, "is empty"},
		{"dup-key.gguf", FROM_TSV, "duplicate key 'general.architecture'"},
		{"bad-value-type.gguf", FROM_TSV, "invalid GGUF type 13"},
		{"dup-tensor.gguf", FROM_TSV, "duplicate tensor name"},
		/* n_dims itself is unbounded (li-ndims-5): only what the file holds */
		{"ndims-past-end.gguf", FROM_TSV, "4294967295 dimensions, more than the rest of the file holds"},
		{"negative-dim.gguf", FROM_TSV, "negative dimension"},
		{"elements-overflow.gguf", FROM_TSV, "overflows"},
		{"type-unknown.gguf", FROM_TSV, "invalid ggml type 99"},
		{"type-removed.gguf", FROM_TSV, "invalid ggml type 4"},
		{"block-mismatch.gguf", FROM_TSV, "not a multiple of block size 32"},
		{"align-type.gguf", FROM_TSV, "must be of type u32"},
		{"align-zero.gguf", FROM_TSV, "general.alignment 0 is not a multiple of 8"},
		/* the specification's limits (ggml accepts these three) */
		{"align-12.gguf", FROM_TSV, "general.alignment 12 is not a multiple of 8"},
		{"align-4.gguf", FROM_TSV, "general.alignment 4 is not a multiple of 8"},
		{"bool-2.gguf", FROM_TSV, "bool value 0x02 is neither 0 nor 1"},
		{"bool-array-3.gguf", FROM_TSV, "bool value 0x03 is neither 0 nor 1"},
		{"name-65.gguf", FROM_TSV, "is 65 bytes, over the specification's 64"},
		{"offset-misaligned.gguf", FROM_TSV, "misaligned"},
		{"offset-gap.gguf", FROM_TSV, "a gap"},
		{"offset-overlap.gguf", FROM_TSV, "overlaps"},
		{"offset-order.gguf", FROM_TSV, "expected 0"},
		{"truncated-data.gguf", FROM_TSV, "truncated"},
		{"data-start-past-eof.gguf", FROM_TSV, "past the end of the file"},
		{"truncated-header.gguf", FROM_TSV, "truncated"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		ws_error err;
		char *p = ws_join(bad_dir, bad[i].file);
		ws_model *m = load(p, &err);
		cr_assert_null(m, "%s parsed", bad[i].file);
		cr_assert_eq(err.code, WS_EXIT_INPUT, "%s", bad[i].file);
		cr_assert(err.has_offset, "%s", bad[i].file);
		uint64_t off = bad[i].offset == FROM_TSV ? expected_offset(bad[i].file)
							 : bad[i].offset;
		cr_assert_eq(err.offset, off, "%s: offset %llu, want %llu (%s)",
			     bad[i].file, (unsigned long long)err.offset,
			     (unsigned long long)off, err.message);
		cr_assert(ws_contains(err.message, bad[i].msg), "%s: %s",
			  bad[i].file, err.message);
		cr_assert_str_eq(err.file, p);
		free(p);
	}
}

Test(gguf, loader_incompatible_findings)
{
	static const char *files[] = {
		"li-nested-array.gguf", "li-long-name.gguf", "li-align-48.gguf", "li-ndims-5.gguf",
	};
	for (size_t i = 0; i < 4; i++) {
		ws_model *m = load_in(bad_dir, files[i]);
		cr_assert_eq(count_findings(m, "loader-incompatible"), 1, "%s", files[i]);
		cr_assert_eq(m->n_tensors, 12);
		ws_model_free(m);
	}
	ws_model *m = load_in(bad_dir, "li-long-name.gguf");
	const ws_tensor *t = &m->tensors[1];
	cr_assert_eq(t->name_len, 64);
	cr_assert_eq(strlen(t->name), 64);
	ws_model_free(m);
	m = load_in(bad_dir, "li-align-48.gguf");
	cr_assert_eq(m->files[0].data_start % 48, 0);
	cr_assert_eq(m->tensors[1].offset - m->tensors[0].offset, 16384 / 48 * 48 + 48);
	ws_model_free(m);
	/* five dimensions, read as stored (PyTorch order), the finding naming
	 * the tensor and llama.cpp's limit */
	m = load_in(bad_dir, "li-ndims-5.gguf");
	t = &m->tensors[1];
	cr_assert_eq(t->ndim, 5);
	cr_assert(t->shape[0] == 1 && t->shape[3] == 1 && t->shape[4] == 256);
	cr_assert_eq(t->elements, 256);
	const ws_finding *f = NULL;
	for (size_t i = 0; i < m->n_findings; i++)
		if (!strcmp(m->findings[i].code, "loader-incompatible"))
			f = &m->findings[i];
	cr_assert(f);
	cr_expect(ws_contains(f->tensor, "blk.0.attn_norm.weight"), "%s", f->tensor);
	cr_expect(ws_contains(f->message, "'blk.0.attn_norm.weight' has 5 dimensions") &&
		  ws_contains(f->message, "llama.cpp allows at most 4"), "%s", f->message);
	ws_model_free(m);
}

/* `check` on bad_dir/file: exit 3, "FILE: offset N: " with the offset
 * the generator's table gives. */
static void
cli_exit3_at(const char *file)
{
	char *p = ws_join(bad_dir, file), want[256];
	ws_run r = ws_run_cli("check", p, NULL);
	cr_expect_eq(r.status, 3, "%s: %s%s", file, r.out, r.err);
	snprintf(want, sizeof want, "%s: offset %llu: ", p, (unsigned long long)expected_offset(file));
	cr_expect(ws_contains(r.err, want), "want '%s' in %s", want, r.err);
	ws_run_free(&r);
	free(p);
}

/* `check` on bad_dir/file: read, a loader-incompatible finding, exit 1. */
static void
cli_loader_finding(const char *file)
{
	char *p = ws_join(bad_dir, file);
	ws_run r = ws_run_cli("check", p, NULL);
	cr_expect_eq(r.status, 1, "%s: %s%s", file, r.out, r.err);
	cr_expect(ws_contains(r.out, "loader-incompatible"), "%s: %s", file, r.out);
	ws_run_free(&r);
	free(p);
}

/* The specification's limits through the CLI: a 64-byte name is a loader
 * finding that fails check (exit 1); 65 bytes is exit 3 with the offset. */
Test(gguf, cli_name_limits)
{
	cli_loader_finding("li-long-name.gguf");
	cli_exit3_at("name-65.gguf");
	/* five dimensions: read, a finding that fails check; more than the
	 * file holds: exit 3 at n_dims */
	cli_loader_finding("li-ndims-5.gguf");
	cli_exit3_at("ndims-past-end.gguf");
	/* 65 dimensions the file could hold: past the reader's fixed bound
	 * (a sparse file of zeros must not make every shape file-sized),
	 * exit 3 at n_dims.  The 5-D file with its n_dims made 65: found as
	 * u32 5 then ne[0] then four u64 ones. */
	char *p = ws_join(bad_dir, "li-ndims-5.gguf"), want[256];
	FILE *fp = fopen(p, "rb");
	cr_assert(fp);
	static unsigned char b[1 << 16];
	size_t n = fread(b, 1, sizeof b, fp);
	fclose(fp);
	free(p);
	static const unsigned char one[8] = {1};
	size_t at = 0;
	for (size_t i = 0; !at && i + 44 <= n; i++)
		if (!memcmp(b + i, "\5\0\0\0", 4) && !memcmp(b + i + 12, one, 8) && !memcmp(b + i + 20, one, 8) &&
		    !memcmp(b + i + 28, one, 8) && !memcmp(b + i + 36, one, 8))
			at = i;
	cr_assert(at, "no n_dims 5 in li-ndims-5.gguf");
	b[at] = 65;
	char *dir = ws_tmpdir();
	p = ws_write_file(dir, "ndims-65.gguf", b, n);
	ws_run r = ws_run_cli("check", p, NULL);
	cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
	snprintf(want, sizeof want, "%s: offset %zu: ", p, at);
	cr_expect(ws_contains(r.err, want), "want '%s' in %s", want, r.err);
	cr_expect(ws_contains(r.err, "65 dimensions (weightscan reads at most 64)"), "%s", r.err);
	ws_run_free(&r);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* A vocab-only GGUF (metadata and tokenizer, no tensors) is valid: check
 * passes with the vocab-only finding, flops succeeds; both say what they
 * could not do.  The generated file, then llama.cpp's own when present. */
static void
vocab_only_cli(const char *p)
{
	ws_run r = ws_run_cli("check", p, NULL);
	cr_expect_eq(r.status, 0, "%s: %s%s", p, r.out, r.err);
	cr_expect(ws_contains(r.out, "vocab-only"), "%s", r.out);
	cr_expect(ws_contains(r.out, "no formula comparison"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("check", "--json", p, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\"ok\":true"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("flops", p, NULL);
	cr_expect_eq(r.status, 0, "%s: %s", p, r.err);
	cr_expect(ws_contains(r.out, "no MACs, FLOPs"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("flops", "--json", p, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\"vocab_only\":true"), "%s", r.out);
	ws_run_free(&r);
}

Test(gguf, vocab_only_check_and_flops_succeed)
{
	char *p = ws_join(valid_dir, "vocab-only.gguf");
	vocab_only_cli(p);
	free(p);
	p = ws_shared_path("gguf/ggml-vocab-llama-spm.gguf");
	if (p)
		vocab_only_cli(p);
	free(p);
}

/* ==== split sets ==== */

Test(gguf, split_set_loads_as_one)
{
	const char *parts[] = {"tiny-split-00001-of-00003.gguf",
			       "tiny-split-00002-of-00003.gguf",
			       "tiny-split-00003-of-00003.gguf"};
	ws_model *one = load_in(valid_dir, "tiny-llama.gguf");
	for (size_t i = 0; i < 3; i++) {
		ws_model *m = load_in(valid_dir, parts[i]);
		cr_assert_eq(m->n_files, 3);
		cr_assert_eq(m->n_findings, 0, "%s", m->n_findings ? m->findings[0].message : "");
		cr_assert(ws_contains(m->files[0].path, "-00001-of-00003"));
		cr_assert(ws_contains(m->files[2].path, "-00003-of-00003"));
		cr_assert_eq(m->n_tensors, one->n_tensors);
		for (uint64_t j = 0; j < m->n_tensors; j++) {
			cr_assert_str_eq(m->tensors[j].name, one->tensors[j].name);
			cr_assert_eq(m->tensors[j].elements, one->tensors[j].elements);
			cr_assert_eq(m->tensors[j].file, j / 4);
		}
		uint64_t no;
		const ws_kv *kv = ws_model_find_kv(m, "split.no");
		cr_assert(ws_kv_get_u64(kv, &no));
		cr_assert_eq(no, 0); /* part 1's */
		cr_assert_eq(kv->file, 0);
		cr_assert_str_eq(m->arch_name, "llama");
		ws_model_free(m);
	}
	ws_model_free(one);
}

Test(gguf, split_set_errors)
{
	ws_error err;
	char *p = ws_join(bad_dir, "split-missing-00003-of-00003.gguf");
	cr_assert_null(load(p, &err));
	cr_assert_eq(err.code, WS_EXIT_INPUT);
	cr_assert(ws_contains(err.file, "split-missing-00002-of-00003.gguf"), "%s", err.file);
	cr_assert(ws_contains(err.message, "missing"));
	free(p);

	p = ws_join(bad_dir, "split-dup-00001-of-00002.gguf");
	cr_assert_null(load(p, &err));
	cr_assert_eq(err.code, WS_EXIT_INPUT);
	cr_assert(ws_contains(err.file, "split-dup-00002-of-00002.gguf"));
	cr_assert(ws_contains(err.message, "duplicate tensor name 'token_embd.weight'"));
	free(p);

	ws_model *m = load_in(bad_dir, "split-total-00002-of-00002.gguf");
	cr_assert_eq(count_findings(m, "metadata-mismatch"), 1);
	cr_assert(m->findings[0].has_expected);
	cr_assert_eq(m->findings[0].expected, 17);
	cr_assert_eq(m->findings[0].actual, 12);
	ws_model_free(m);
}

Test(gguf, public_open)
{
	ws_model *m = NULL;
	ws_error err = {0};
	char *p = ws_join(valid_dir, "tiny-llama-be.gguf");
	cr_assert_eq(ws_model_open(p, NULL, &m, &err), 0, "%s", err.message);
	cr_assert_eq(m->format, WS_FORMAT_GGUF);
	cr_assert_eq(m->n_tensors, 12);
	ws_model_free(m);
	free(p);
	p = ws_join(bad_dir, "dup-key.gguf");
	cr_assert_eq(ws_model_open(p, NULL, &m, &err), -1);
	cr_assert_eq(err.code, WS_EXIT_INPUT);
	free(p);
}

/* ==== real files ==== */

Test(gguf, real_files_match_reference)
{
	char *facts = ws_shared_path("gguf/REFERENCE_FACTS.tsv");
	if (!facts)
		cr_skip_test("../shared/realdata absent");
	FILE *f = fopen(facts, "r");
	if (!f) {
		free(facts);
		cr_skip_test("REFERENCE_FACTS.tsv absent");
	}
	char line[1024];
	int rows = 0;
	cr_assert(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		char name[256], arch[64], tok[64], tm[64], tp[64];
		unsigned long long size, version, nkv, nt, doff, elems;
		cr_assert_eq(sscanf(line, "%255s %llu %llu %llu %llu %63s %63s %63s %63s %llu %llu",
				    name, &size, &version, &nkv, &nt, arch, tok, tm, tp,
				    &doff, &elems), 11, "%s", line);
		char *rel = ws_join("gguf", name), *p = ws_shared_path(rel);
		ws_error err;
		ws_model *m = load(p, &err);
		cr_assert(m, "%s: %s", name, err.message);
		/* The file's own index in the (possibly split) model. */
		uint32_t fi = 0;
		while (fi < m->n_files && strcmp(m->files[fi].path, p))
			fi++;
		cr_assert_lt(fi, m->n_files, "%s", name);
		const ws_file *wf = &m->files[fi];
		uint64_t kvs = 0, el = 0, tens = 0;
		for (uint64_t i = 0; i < m->n_meta; i++)
			kvs += m->meta[i].file == fi;
		for (uint64_t i = 0; i < m->n_tensors; i++)
			if (m->tensors[i].file == fi) {
				el += m->tensors[i].elements;
				tens++;
			}
		cr_assert_eq(wf->size, size, "%s", name);
		cr_assert_eq(wf->version, version, "%s", name);
		cr_assert_eq(kvs, nkv, "%s kv", name);
		cr_assert_eq(tens, nt, "%s tensors", name);
		cr_assert_eq(wf->tensor_count, nt, "%s", name);
		cr_assert_eq(el, elems, "%s elements", name);
		cr_assert_eq(wf->data_start, doff, "%s data offset", name);
		cr_assert_eq(wf->big_endian, ws_contains(name, "-be.") ? 1 : 0);
		if (strcmp(arch, "None"))
			cr_assert_str_eq(m->arch_name, arch, "%s", name);
		if (ws_contains(name, "split")) {
			uint64_t total = 0;
			for (uint64_t i = 0; i < m->n_tensors; i++)
				total += m->tensors[i].elements;
			cr_assert_eq(m->n_tensors, 21);
			cr_assert_eq(total, 106816);
			cr_assert_eq(m->n_findings, 0);
		}
		if (strcmp(tok, "None")) {
			const ws_kv *kv = ws_model_find_kv(m, "tokenizer.ggml.tokens");
			cr_assert(kv, "%s", name);
			cr_assert_eq(kv->arr_count, strtoull(tok, NULL, 10), "%s", name);
			/* Every token is reachable by iteration. */
			ws_kv_iter it;
			ws_kv_elem e;
			uint64_t n = 0;
			ws_kv_iter_init(&it, kv);
			while (ws_kv_iter_next(&it, &e))
				n++;
			cr_assert_eq(n, kv->arr_count);
		}
		ws_model_free(m);
		free(rel);
		free(p);
		rows++;
	}
	fclose(f);
	free(facts);
	cr_assert_eq(rows, 18);
}

/* The best of nine parses of one file, in ms of this process's CPU time
 * (time on the CPU, not on the wall: other work on the machine does not
 * add to it). */
static double
best_parse_ms(const char *p, uint64_t *tokens)
{
	double best = 1e9;
	for (int rep = 0; rep < 9; rep++) {
		struct timespec a, b;
		ws_error err;
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
		ws_model *m = load(p, &err);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
		cr_assert(m, "%s", err.message);
		*tokens = ws_model_find_kv(m, "tokenizer.ggml.tokens")->arr_count;
		ws_model_free(m);
		double ms = (double)(b.tv_sec - a.tv_sec) * 1e3 +
			    (double)(b.tv_nsec - a.tv_nsec) / 1e6;
		if (ms < best)
			best = ms;
	}
	return best;
}

/* Linear in the vocabulary, whatever the machine's load: the 102,400-token
 * vocabulary costs per token at most a few times what a 32,000-token one
 * costs in the same run (quadratic work would be 3x per token and grow);
 * the absolute time is tools/bench's GGUF row. */
Test(gguf, vocab_parse_is_linear)
{
	char *p = ws_shared_path("gguf/ggml-vocab-deepseek-llm.gguf");
	char *q = ws_shared_path("gguf/ggml-vocab-llama-spm.gguf");
	if (!p || !q)
		cr_skip_test("../shared/realdata absent");
	uint64_t nb, ns;
	double big = best_parse_ms(p, &nb), small = best_parse_ms(q, &ns);
	cr_assert_eq(nb, 102400);
	cr_assert_eq(ns, 32000);
	cr_log_info("vocab parse: %" PRIu64 " tokens %.2f ms, %" PRIu64 " tokens %.2f ms", nb, big,
		    ns, small);
	cr_expect_lt(big / (double)nb, 4 * small / (double)ns + 1e-4,
		     "%.2f ms for %" PRIu64 " tokens vs %.2f ms for %" PRIu64, big, nb, small, ns);
	free(p);
	free(q);
}
