/* test_spec.c - SPEC items found missing by the audit: the unknown-role,
 * dtype-mixed, declared-mismatch (size label / name) and GGUF
 * metadata-mismatch findings, per-tensor manifests written outside the
 * model's folder, meta's text layout and --key summaries, --format
 * without a value. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "testutil.h"

/* The one JSON object `weightscan --json ARGS` prints. */
static cJSON *
run_json(int want, const char *a1, const char *a2, const char *a3)
{
	ws_run r = ws_run_cli("--json", a1, a2, a3, NULL);
	cr_assert_eq(r.status, want, "status %d, stderr %s", r.status, r.err);
	cJSON *o = cJSON_Parse(r.out);
	cr_assert(o, "not JSON: %s", r.out);
	ws_run_free(&r);
	return o;
}

/* The finding with this code, or NULL. */
static const cJSON *
finding(const cJSON *o, const char *code)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(o, "findings")) {
		const cJSON *c = cJSON_GetObjectItem(f, "code");
		if (cJSON_IsString(c) && !strcmp(c->valuestring, code))
			return f;
	}
	return NULL;
}

static const char *
str(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : "";
}

/* A safetensors file from a header; data is zero bytes of the given size. */
static char *
write_st(const char *dir, const char *name, const char *header, size_t data)
{
	return ws_write_safetensors(dir, name, header, strlen(header), data);
}

Test(spec, unknown_role_is_one_warning_with_a_count)
{
	char *d = ws_tmpdir();
	char *p = write_st(d, "x.safetensors",
			   "{\"foo.bar\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
			   "\"baz\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}", 16);
	cJSON *o = run_json(0, p, NULL, NULL);
	const cJSON *f = finding(o, "unknown-role");
	cr_assert(f, "no unknown-role finding");
	cr_expect_str_eq(str(f, "severity"), "warning");
	cr_expect(ws_contains(str(f, "message"), "2 tensors"), "%s", str(f, "message"));
	cJSON_Delete(o);
	/* a recognized checkpoint has none */
	char *tl = ws_testdata_path("tiny-llama");
	o = run_json(0, tl, NULL, NULL);
	cr_expect_null(finding(o, "unknown-role"));
	cJSON_Delete(o);
	free(tl);
	free(p);
	ws_rmtree(d);
	free(d);
}

Test(spec, dtype_mixed_matrices_in_a_block_are_info)
{
	char *d = ws_tmpdir();
	char *p = write_st(d, "mixed.safetensors",
			   "{\"model.layers.0.self_attn.q_proj.weight\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,8]},"
			   "\"model.layers.0.self_attn.k_proj.weight\":{\"dtype\":\"F16\",\"shape\":[2,2],\"data_offsets\":[8,16]}}",
			   16);
	cJSON *o = run_json(0, p, NULL, NULL);
	const cJSON *f = finding(o, "dtype-mixed");
	cr_assert(f, "no dtype-mixed finding");
	cr_expect_str_eq(str(f, "severity"), "info");
	cr_expect_eq(cJSON_GetObjectItem(f, "layer")->valueint, 0);
	cJSON_Delete(o);
	/* F32 norm vectors beside BF16 matrices are not "mixed" */
	char *q = write_st(d, "norms.safetensors",
			   "{\"model.layers.0.self_attn.q_proj.weight\":{\"dtype\":\"BF16\",\"shape\":[2,2],\"data_offsets\":[0,8]},"
			   "\"model.layers.0.input_layernorm.weight\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}",
			   16);
	o = run_json(0, q, NULL, NULL);
	cr_expect_null(finding(o, "dtype-mixed"));
	cJSON_Delete(o);
	free(p);
	free(q);
	ws_rmtree(d);
	free(d);
}

/* Blocks are kept for a few thousand first: a block past those (here
 * 4,100 of a 4,102-tensor file) is checked all the same. */
Test(spec, dtype_mixed_in_a_block_past_four_thousand)
{
	enum { BLOCKS = 4101 };
	size_t cap = (size_t)BLOCKS * 120 + 256, len = 0;
	char *h = malloc(cap);
	cr_assert(h);
	len += (size_t)snprintf(h + len, cap - len, "{");
	for (int i = 0; i < BLOCKS; i++)
		len += (size_t)snprintf(h + len, cap - len,
					"\"model.layers.%d.self_attn.q_proj.weight\":{\"dtype\":\"BF16\",\"shape\":[2,2],"
					"\"data_offsets\":[%d,%d]},", i, 8 * i, 8 * i + 8);
	len += (size_t)snprintf(h + len, cap - len,
				"\"model.layers.%d.self_attn.k_proj.weight\":{\"dtype\":\"F16\",\"shape\":[2,2],"
				"\"data_offsets\":[%d,%d]}}", BLOCKS - 1, 8 * BLOCKS, 8 * BLOCKS + 8);
	cr_assert_lt(len, cap);
	char *d = ws_tmpdir();
	char *p = write_st(d, "many.safetensors", h, (size_t)8 * BLOCKS + 8);
	cJSON *o = run_json(0, p, NULL, NULL);
	const cJSON *f = finding(o, "dtype-mixed");
	cr_assert(f, "no dtype-mixed finding");
	cr_expect_eq(cJSON_GetObjectItem(f, "layer")->valueint, BLOCKS - 1);
	cr_expect(ws_contains(str(f, "message"), "1 block"), "%s", str(f, "message"));
	cJSON_Delete(o);
	free(p);
	free(h);
	ws_rmtree(d);
	free(d);
}

/* A single file's modules are found after names that start like one
 * (model.alphas_cumprod before model.diffusion_model.*: the same first
 * bytes, not the same first eight): those turned away do not hide the
 * ones after. */
Test(spec, single_file_modules_after_names_turned_away)
{
	char *d = ws_tmpdir();
	char *p = write_st(d, "sd.safetensors",
			   "{\"model.alphas_cumprod\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
			   "\"model.betas\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]},"
			   "\"model.diffusion_model.time_embed.0.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]},"
			   "\"first_stage_model.decoder.conv_in.bias\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[24,32]}}",
			   32);
	cJSON *o = run_json(0, p, NULL, NULL);
	const cJSON *c;
	bool unet = false, vae = false;
	cJSON_ArrayForEach(c, cJSON_GetObjectItem(o, "components")) {
		unet = unet || !strcmp(str(c, "name"), "unet");
		vae = vae || !strcmp(str(c, "name"), "vae");
	}
	cr_expect(unet, "no unet component");
	cr_expect(vae, "no vae component");
	cJSON_Delete(o);
	free(p);
	ws_rmtree(d);
	free(d);
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "%s", path);
	static char buf[1 << 17];
	*len = fread(buf, 1, sizeof buf - 1, f);
	buf[*len] = '\0';
	fclose(f);
	return buf;
}

/* testdata/tiny-llama (27,296 parameters) with config.json's
 * _name_or_path set to NAME, in a fresh folder. */
static cJSON *
tiny_named(const char *d, const char *name)
{
	static int seq;
	char sub[32];
	snprintf(sub, sizeof sub, "m%d", seq++);
	char *dir = ws_join(d, sub);
	cr_assert(mkdir(dir, 0755) == 0);
	char *src = ws_testdata_path("tiny-llama");
	char *cp = ws_join(src, "config.json"), *mp = ws_join(src, "model.safetensors");
	size_t n;
	cJSON *cfg = cJSON_Parse(slurp(cp, &n));
	cr_assert(cfg);
	cJSON_AddStringToObject(cfg, "_name_or_path", name);
	char *text = cJSON_Print(cfg);
	free(ws_write_file(dir, "config.json", text, strlen(text)));
	const char *model = slurp(mp, &n);
	free(ws_write_file(dir, "model.safetensors", model, n));
	cJSON *o = run_json(0, dir, NULL, NULL);
	free(text);
	cJSON_Delete(cfg);
	free(cp);
	free(mp);
	free(src);
	free(dir);
	return o;
}

Test(spec, declared_mismatch_for_a_size_in_the_name)
{
	char *d = ws_tmpdir();
	cJSON *o = tiny_named(d, "acme/Tiny-7B-hf");
	const cJSON *f = finding(o, "declared-mismatch");
	cr_assert(f, "no declared-mismatch for a 7B name");
	cr_expect_str_eq(str(f, "severity"), "warning");
	cr_expect_eq(cJSON_GetObjectItem(f, "expected")->valuedouble, 7e9);
	cr_expect_eq(cJSON_GetObjectItem(f, "actual")->valueint, 27296);
	cJSON_Delete(o);
	/* 30,000 is within 25% of 27,296; 20,000 is not */
	o = tiny_named(d, "tiny-0.00003B");
	cr_expect_null(finding(o, "declared-mismatch"));
	cJSON_Delete(o);
	o = tiny_named(d, "tiny-0.00002B");
	cr_expect(finding(o, "declared-mismatch"));
	cJSON_Delete(o);
	/* 8x7B labels, A3B and context lengths are not sizes */
	static const char *const not_sizes[] = {"Mix-8x7B", "q-A3B", "phi-4k"};
	for (size_t i = 0; i < 3; i++) {
		o = tiny_named(d, not_sizes[i]);
		cr_expect_null(finding(o, "declared-mismatch"), "%s", not_sizes[i]);
		cJSON_Delete(o);
	}
	ws_rmtree(d);
	free(d);
}

/* testdata/tiny-llama written as GGUF by mkmodel, then
 * llama.attention.head_count_kv changed from 2 to 4. */
Test(spec, gguf_head_count_contradicting_tensors_is_metadata_mismatch)
{
	char *d = ws_tmpdir();
	char *cfg = ws_testdata_path("tiny-llama/config.json");
	char *argv[] = {getenv("WS_MKMODEL"), d, cfg, "--format", "gguf", NULL};
	ws_run g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0, "%s", g.err);
	ws_run_free(&g);
	free(cfg);
	char *p = ws_join(d, "model.gguf");
	cJSON *o = run_json(0, "check", p, NULL);
	cr_assert_null(finding(o, "metadata-mismatch"), "the unpatched model is consistent");
	cJSON_Delete(o);
	FILE *f = fopen(p, "r+b");
	cr_assert(f);
	static uint8_t buf[1 << 20];
	size_t n = fread(buf, 1, sizeof buf, f);
	static const char key[] = "llama.attention.head_count_kv";
	uint8_t *k = memmem(buf, n, key, sizeof key - 1);
	cr_assert(k);
	uint8_t *v = k + sizeof key - 1 + 4; /* after the u32 type id */
	cr_assert(v[0] == 2 && v[1] == 0, "head_count_kv is %u", v[0]);
	v[0] = 4;
	cr_assert(fseek(f, 0, SEEK_SET) == 0 && fwrite(buf, 1, n, f) == n);
	fclose(f);
	o = run_json(1, "check", p, NULL);
	const cJSON *m = finding(o, "metadata-mismatch");
	cr_assert(m, "no metadata-mismatch");
	cr_expect_str_eq(str(m, "severity"), "error");
	cr_expect(ws_contains(str(m, "message"), "head_count_kv 4"), "%s", str(m, "message"));
	cJSON_Delete(o);
	free(p);
	ws_rmtree(d);
	free(d);
}

Test(spec, per_tensor_manifest_outside_the_model_folder_verifies)
{
	char *d = ws_tmpdir();
	char *man = ws_join(d, "tiny.xxh128");
	char *tl = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("hash", tl, "--per-tensor", "-o", man, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("verify", man, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.out, "0 FAILED, 0 MISSING"), "%s", r.out);
	cr_expect(ws_contains(r.out, "tensor:model.norm.weight: OK"), "%s", r.out);
	ws_run_free(&r);
	free(tl);
	free(man);
	ws_rmtree(d);
	free(d);
}

Test(spec, meta_text_layout_and_key_summaries)
{
	char *tl = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("meta", tl, NULL);
	cr_assert_eq(r.status, 0);
	cr_expect(!ws_contains(r.out, "\\x0A") && !ws_contains(r.out, "\\x09"), "%s", r.out);
	cr_expect(ws_contains(r.out, "\n  \"model_type\": \"llama\",\n"), "%s", r.out);
	ws_run_free(&r);
	free(tl);

	char *d = ws_tmpdir();
	char *argv[] = {getenv("WS_MKGGUF"), "valid", d, NULL};
	ws_run g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0);
	ws_run_free(&g);
	char *p = ws_join(d, "tiny-llama.gguf");
	r = ws_run_cli("meta", p, "--key", "tokenizer.ggml.tokens", NULL);
	ws_run full = ws_run_cli("meta", p, "--key", "tokenizer.ggml.tokens", "--full", NULL);
	cr_assert_eq(r.status, 0);
	cr_expect(ws_contains(r.out, "[32 × string]") && ws_contains(r.out, "…"), "%s", r.out);
	cr_expect(!ws_contains(r.out, "tok31") && ws_contains(full.out, "tok31"), "%s / %s", r.out, full.out);
	ws_run_free(&r);
	ws_run_free(&full);
	free(p);
	ws_rmtree(d);
	free(d);
}

Test(spec, format_without_a_value_is_a_usage_error)
{
	ws_run r = ws_run_cli("--format", NULL);
	cr_expect_eq(r.status, 2);
	cr_expect(ws_contains(r.err, "--format needs a value"), "%s", r.err);
	ws_run_free(&r);
}

Test(spec, quiet_inspect_and_check_print_only_findings)
{
	char *tl = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("--quiet", "check", tl, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect_str_eq(r.out, "");
	ws_run_free(&r);
	char *d = ws_tmpdir();
	char *p = write_st(d, "x.safetensors",
			   "{\"foo\":{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[0,4]}}", 4);
	r = ws_run_cli("-q", p, NULL);
	cr_expect_eq(r.status, 0);
	cr_expect(ws_contains(r.out, ": warning unknown-role: 1 tensor ") && !ws_contains(r.out, "by dtype"),
		  "%s", r.out);
	ws_run_free(&r);
	free(p);
	ws_rmtree(d);
	free(d);
	free(tl);
}
