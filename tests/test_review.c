/* test_review.c - regressions for what the code review found: capped
 * index findings, whole-name shard matching, MTP only where it exists,
 * no active count without a known architecture, valid UTF-8 from meta. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "testutil.h"
#include "ws/util.h"

/* A safetensors file of `n` zero-size F32 tensors named PREFIXi. */
static void
write_shard(const char *dir, const char *file, const char *prefix, int n)
{
	size_t cap = 64 + (size_t)n * 96, o = 0;
	char *h = malloc(cap);
	cr_assert(h);
	o += (size_t)snprintf(h + o, cap - o, "{");
	for (int i = 0; i < n; i++)
		o += (size_t)snprintf(h + o, cap - o, "%s\"%s%d\":{\"dtype\":\"F32\",\"shape\":[0],\"data_offsets\":[0,0]}",
				      i ? "," : "", prefix, i);
	o += (size_t)snprintf(h + o, cap - o, "}");
	unsigned char *b = malloc(8 + o);
	cr_assert(b);
	for (int k = 0; k < 8; k++)
		b[k] = (unsigned char)((uint64_t)o >> (8 * k));
	memcpy(b + 8, h, o);
	free(ws_write_file(dir, file, b, 8 + o));
	free(b);
	free(h);
}

static int
count_code(const char *json, const char *code)
{
	cJSON *o = cJSON_Parse(json);
	cr_assert(o, "invalid JSON: %.200s", json);
	int n = 0;
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItem(o, "findings")) {
		const cJSON *c = cJSON_GetObjectItem(f, "code");
		n += cJSON_IsString(c) && !strcmp(c->valuestring, code);
	}
	cJSON_Delete(o);
	return n;
}

Test(review, index_findings_are_capped)
{
	char *dir = ws_tmpdir();
	write_shard(dir, "model-1.safetensors", "t", 2000);
	/* the index knows none of them and names 2000 others */
	char *ip = ws_join(dir, "model.safetensors.index.json");
	FILE *f = fopen(ip, "w");
	cr_assert(f);
	free(ip);
	fputs("{\"weight_map\":{", f);
	for (int i = 0; i < 2000; i++)
		fprintf(f, "%s\"u%d\":\"model-1.safetensors\"", i ? "," : "", i);
	fputs("}}", f);
	fclose(f);
	ws_run r = ws_run_cli("--json", dir, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	int n = count_code(r.out, "index-mismatch");
	cr_expect(n >= 2 && n <= 17, "%d index-mismatch findings", n);
	cr_expect(ws_contains(r.out, "and 3984 more"), "%.400s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(dir);
}

Test(review, shard_names_match_whole_components)
{
	char *dir = ws_tmpdir();
	write_shard(dir, "xmodel-1.safetensors", "a", 1);
	char *ip = ws_join(dir, "model.safetensors.index.json");
	FILE *f = fopen(ip, "w");
	cr_assert(f);
	/* the index names a shard that does not exist under that name */
	fputs("{\"weight_map\":{\"a0\":\"model-1.safetensors\"}}", f);
	fclose(f);
	ws_run r = ws_run_cli("--json", dir, NULL);
	/* model-1.safetensors is missing: a suffix match would have found it */
	cr_expect_eq(r.status, 3, "%s", r.out);
	cr_expect(ws_contains(r.err, "model-1.safetensors"), "%s", r.err);
	ws_run_free(&r);
	free(ip);
	ws_rmtree(dir);
	free(dir);
}

Test(review, extra_blocks_are_no_mtp_without_one)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("tiny", dir, NULL);
	char *cfg = ws_join(dir, "config.json");
	FILE *f = fopen(cfg, "r+");
	char buf[2048];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	char *p = strstr(buf, "\"num_hidden_layers\": 2");
	cr_assert(p);
	p[21] = '1';
	rewind(f);
	fwrite(buf, 1, n, f);
	fclose(f);
	ws_run r = ws_run_cli("--json", dir, NULL);
	cr_expect_not(ws_contains(r.out, "\"mtp\""), "%.600s", r.out);
	ws_run_free(&r);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(review, no_active_count_for_an_unknown_architecture)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("tiny", dir, NULL);
	char *cfg = ws_write_file(dir, "config.json",
				  "{\"model_type\":\"foo\",\"num_local_experts\":2,\"num_experts_per_tok\":100}", 68);
	ws_run r = ws_run_cli("--json", dir, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect_not(ws_contains(r.out, "\"active\""), "%.600s", r.out);
	ws_run_free(&r);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(review, meta_json_config_is_valid_utf8)
{
	char *dir = ws_tmpdir();
	ws_mkfixture("tiny", dir, NULL);
	static const char cfg[] = "{\"model_type\":\"llama\",\"bad\":\"\xff\xfe\",\"k\xff\":1}";
	free(ws_write_file(dir, "config.json", cfg, sizeof cfg - 1));
	ws_run r = ws_run_cli("meta", "--json", dir, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_utf8_valid(r.out, strlen(r.out)), "meta --json wrote invalid UTF-8");
	cJSON *o = cJSON_Parse(r.out);
	cr_expect(o);
	cJSON_Delete(o);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(dir);
}
