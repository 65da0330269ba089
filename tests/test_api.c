/*
 * test_api.c - the public face (include/weightscan.h) through the static
 * library, as a program sees it: only the installed headers, handles and
 * accessors.  What the accessors say agrees with the CLI's JSON (the
 * document ws_model_json returns is the one inspect/check --json print),
 * a tied head stored twice is counted once in every total, out-of-range
 * indexes answer NULL/0/-1, errors are values, and a finding that cannot
 * be recorded fails ws_open with exit 4 and no model.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <weightscan.h>

#include "testutil.h"

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "%s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	cr_assert(b);
	cr_assert_eq(fread(b, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	b[n] = 0;
	*len = (size_t)n;
	return b;
}

/* Set a key of DIR/config.json. */
static void
config_set(const char *dir, const char *key, cJSON *v)
{
	char *p = ws_join(dir, "config.json");
	size_t n;
	char *s = slurp(p, &n);
	cJSON *c = cJSON_Parse(s);
	cr_assert(c);
	cJSON_DeleteItemFromObject(c, key);
	cJSON_AddItemToObject(c, key, v);
	char *o = cJSON_Print(c);
	free(ws_write_file(dir, "config.json", o, strlen(o)));
	free(o);
	cJSON_Delete(c);
	free(s);
	free(p);
}

/* The tiny checkpoint with its config tying the head to the embedding and
 * the stored head a byte copy of the embedding. */
static char *
tied_copy(const char *root)
{
	char *dir = ws_join(root, "tied");
	ws_mkfixture("tiny", dir, NULL);
	config_set(dir, "tie_word_embeddings", cJSON_CreateTrue());
	size_t n;
	char *st = ws_join(dir, "model.safetensors");
	char *b = slurp(st, &n);
	uint64_t hl = 0;
	for (int i = 7; i >= 0; i--)
		hl = hl << 8 | (uint8_t)b[i];
	char save = b[8 + hl];
	b[8 + hl] = 0;
	cJSON *h = cJSON_Parse(b + 8);
	b[8 + hl] = save;
	cr_assert(h);
	cJSON *e = cJSON_GetObjectItem(cJSON_GetObjectItem(h, "model.embed_tokens.weight"), "data_offsets");
	cJSON *l = cJSON_GetObjectItem(cJSON_GetObjectItem(h, "lm_head.weight"), "data_offsets");
	cr_assert(e && l);
	size_t eo = (size_t)cJSON_GetArrayItem(e, 0)->valuedouble;
	size_t lo = (size_t)cJSON_GetArrayItem(l, 0)->valuedouble;
	size_t len = (size_t)cJSON_GetArrayItem(e, 1)->valuedouble - eo;
	cr_assert_eq((size_t)cJSON_GetArrayItem(l, 1)->valuedouble - lo, len);
	memcpy(b + 8 + hl + lo, b + 8 + hl + eo, len);
	free(ws_write_file(dir, "model.safetensors", b, n));
	cJSON_Delete(h);
	free(b);
	free(st);
	return dir;
}

static int64_t
find_tensor(const ws_model *m, const char *name)
{
	for (uint64_t i = 0; i < ws_model_tensor_count(m); i++)
		if (!strcmp(ws_model_tensor_name(m, i, NULL), name))
			return (int64_t)i;
	return -1;
}

static uint64_t
json_u64(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItem(o, a);
	if (b)
		x = cJSON_GetObjectItem(x, b);
	cr_assert(cJSON_IsNumber(x), "%s.%s", a, b ? b : "");
	return (uint64_t)x->valuedouble;
}

Test(api, accessors_agree_with_the_cli)
{
	char *root = ws_tmpdir();
	char *dir = ws_join(root, "m");
	ws_mkfixture("tiny", dir, NULL);

	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_open(dir, NULL, 0, &m, &err), 0, "%s", err.message);
	cr_assert_eq(err.code, 0);
	cr_assert_str_eq(ws_version(), WS_VERSION);
	cr_assert_str_eq(ws_model_format(m), "safetensors");
	cr_assert_str_eq(ws_model_architecture(m), "llama");
	cr_assert_eq(ws_model_tensor_count(m), 21);

	/* the whole document is the CLI's, byte for byte */
	char *js = ws_model_json(m, "inspect", &err);
	cr_assert(js, "%s", err.message);
	ws_run r = ws_run_cli("inspect", "--json", dir, NULL);
	cr_assert_eq(r.status, 0);
	size_t ol = strlen(r.out);
	cr_assert(ol && r.out[ol - 1] == '\n');
	r.out[ol - 1] = 0;
	cr_assert_str_eq(js, r.out);
	ws_run_free(&r);
	cJSON *o = cJSON_Parse(js);
	ws_string_free(js);
	cr_assert(o);

	uint64_t total = 0, mtp = 1;
	cr_assert(ws_model_formula(m, &total, &mtp));
	cr_assert_eq(total, json_u64(o, "formula", "total"));
	cr_assert_eq(mtp, 0);
	cr_assert_eq(ws_model_params(m), json_u64(o, "params", "total"));
	cr_assert_eq(ws_model_params(m), 27296);

	/* ls --json's tensors, field by field */
	r = ws_run_cli("ls", "--json", dir, NULL);
	cr_assert_eq(r.status, 0);
	cJSON *ls = cJSON_Parse(r.out);
	cr_assert(ls, "%s", r.out);
	cJSON *ts = cJSON_GetObjectItem(ls, "tensors");
	cr_assert_eq((uint64_t)cJSON_GetArraySize(ts), ws_model_tensor_count(m));
	cJSON *t;
	cJSON_ArrayForEach(t, ts) {
		const char *name = cJSON_GetObjectItem(t, "name")->valuestring;
		int64_t i = find_tensor(m, name);
		cr_assert_geq(i, 0, "%s", name);
		size_t len = 0;
		ws_model_tensor_name(m, (uint64_t)i, &len);
		cr_assert_eq(len, strlen(name));
		cr_assert_str_eq(ws_model_tensor_dtype(m, (uint64_t)i),
				 cJSON_GetObjectItem(t, "dtype")->valuestring);
		cr_assert_str_eq(ws_model_tensor_role(m, (uint64_t)i),
				 cJSON_GetObjectItem(t, "role")->valuestring);
		cr_assert_str_eq(ws_model_tensor_component(m, (uint64_t)i),
				 cJSON_GetObjectItem(t, "component")->valuestring);
		cJSON *shape = cJSON_GetObjectItem(t, "shape");
		cr_assert_eq(ws_model_tensor_rank(m, (uint64_t)i), (uint32_t)cJSON_GetArraySize(shape));
		for (int d = 0; d < cJSON_GetArraySize(shape); d++)
			cr_assert_eq(ws_model_tensor_dim(m, (uint64_t)i, (uint32_t)d),
				     (uint64_t)cJSON_GetArrayItem(shape, d)->valuedouble);
		cr_assert_eq(ws_model_tensor_dim(m, (uint64_t)i, 9), 0);
		cr_assert_eq(ws_model_tensor_params(m, (uint64_t)i), json_u64(t, "params", NULL));
		cr_assert_eq(ws_model_tensor_bytes(m, (uint64_t)i), json_u64(t, "bytes", NULL));
		cr_assert_eq(ws_model_tensor_offset(m, (uint64_t)i), json_u64(t, "offset", NULL));
		const cJSON *layer = cJSON_GetObjectItem(t, "layer");
		cr_assert_eq(ws_model_tensor_layer(m, (uint64_t)i),
			     cJSON_IsNumber(layer) ? (int32_t)layer->valuedouble : -1);
		cr_assert_eq(ws_model_tensor_expert(m, (uint64_t)i), -1);
		cr_assert(strstr(ws_model_tensor_file(m, (uint64_t)i), "model.safetensors"));
	}
	cJSON_Delete(ls);
	ws_run_free(&r);

	/* components */
	cJSON *cs = cJSON_GetObjectItem(o, "components");
	cr_assert_eq(ws_model_component_count(m), (uint32_t)cJSON_GetArraySize(cs));
	cr_assert_str_eq(ws_model_component_name(m, 0), "text");
	cr_assert_str_eq(ws_model_component_kind(m, 0), "text");
	cr_assert_eq(ws_model_component_params(m, 0), ws_model_params(m));
	uint64_t ct = 0;
	cr_assert(ws_model_component_formula(m, 0, &ct));
	cr_assert_eq(ct, total);
	cJSON_Delete(o);

	/* out of range: NULL, 0, -1, never a crash */
	uint64_t n = ws_model_tensor_count(m);
	size_t len = 7;
	cr_assert_null(ws_model_tensor_name(m, n, &len));
	cr_assert_eq(len, 0);
	cr_assert_null(ws_model_tensor_dtype(m, n));
	cr_assert_null(ws_model_tensor_role(m, n));
	cr_assert_null(ws_model_tensor_file(m, n));
	cr_assert_null(ws_model_tensor_component(m, n));
	cr_assert_eq(ws_model_tensor_rank(m, n), 0);
	cr_assert_eq(ws_model_tensor_params(m, n), 0);
	cr_assert_eq(ws_model_tensor_layer(m, n), -1);
	cr_assert_null(ws_model_component_name(m, 1));
	cr_assert_not(ws_model_component_formula(m, 1, &ct));
	cr_assert_eq(ws_model_finding_count(m), 0);
	cr_assert_null(ws_model_finding_code(m, 0));
	cr_assert_eq(ws_model_finding_layer(m, 0), -1);
	cr_assert_not(ws_model_has_errors(m));
	ws_model_free(m);
	ws_model_free(NULL);
	ws_string_free(NULL);
	ws_rmtree(root);
	free(dir);
	free(root);
}

/* WS_OPEN_CHECK compares the stored head with the embedding: the same
 * bytes are counted once, in the model's, the tensor's and the
 * component's totals alike, and check --json says the same. */
Test(api, check_counts_a_tied_copy_once)
{
	char *root = ws_tmpdir();
	char *dir = tied_copy(root);
	ws_model *m = NULL;
	ws_error err = {0};

	cr_assert_eq(ws_open(dir, NULL, 0, &m, &err), 0, "%s", err.message);
	uint64_t inspect_params = ws_model_params(m);
	ws_model_free(m);

	cr_assert_eq(ws_open(dir, NULL, WS_OPEN_CHECK, &m, &err), 0, "%s", err.message);
	int64_t head = find_tensor(m, "lm_head.weight");
	cr_assert_geq(head, 0);
	cr_assert_eq(ws_model_tensor_params(m, (uint64_t)head), 0);
	cr_assert_eq(ws_model_tensor_elements(m, (uint64_t)head), 64 * 32);
	cr_assert_eq(ws_model_params(m), inspect_params - 64 * 32);
	cr_assert_eq(ws_model_component_params(m, 0), ws_model_params(m));
	uint64_t total = 0;
	cr_assert(ws_model_formula(m, &total, NULL));
	cr_assert_eq(ws_model_params(m), total);

	cr_assert_eq(ws_model_finding_count(m), 1);
	cr_assert_eq(ws_model_finding_severity(m, 0), WS_SEV_WARNING);
	cr_assert_str_eq(ws_severity_name(ws_model_finding_severity(m, 0)), "warning");
	cr_assert_str_eq(ws_model_finding_code(m, 0), "tied-embeddings");
	cr_assert_str_eq(ws_model_finding_tensor(m, 0), "lm_head.weight");
	cr_assert(strstr(ws_model_finding_message(m, 0), "counted once"));
	cr_assert_null(ws_model_finding_component(m, 0));
	cr_assert_eq(ws_model_finding_layer(m, 0), -1);
	cr_assert_not(ws_model_has_errors(m));

	char *js = ws_model_json(m, "check", &err);
	cr_assert(js);
	ws_run r = ws_run_cli("check", "--json", dir, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	r.out[strlen(r.out) - 1] = 0;
	cr_assert_str_eq(js, r.out);
	cJSON *o = cJSON_Parse(js);
	cr_assert_eq(json_u64(o, "params", "total"), ws_model_params(m));
	cr_assert_eq(json_u64(cJSON_GetObjectItem(o, "params"), "by_component", "text"),
		     ws_model_params(m));
	cJSON_Delete(o);
	ws_string_free(js);
	ws_run_free(&r);
	ws_model_free(m);
	ws_rmtree(root);
	free(dir);
	free(root);
}

/* A config.json given instead of the one beside the weights. */
Test(api, config_override)
{
	char *root = ws_tmpdir();
	char *dir = ws_join(root, "m");
	ws_mkfixture("tiny", dir, NULL);
	char *cp = ws_join(dir, "config.json");
	size_t n;
	char *cfg = slurp(cp, &n);
	free(ws_write_file(root, "other.json", cfg, n));
	char *other = ws_join(root, "other.json");
	config_set(dir, "num_hidden_layers", cJSON_CreateNumber(9));

	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_open(dir, NULL, 0, &m, &err), 0, "%s", err.message);
	cr_assert(ws_model_has_errors(m));
	bool gap = false;
	for (size_t i = 0; i < ws_model_finding_count(m); i++)
		gap |= ws_model_finding_severity(m, i) == WS_SEV_ERROR;
	cr_assert(gap);
	ws_model_free(m);

	cr_assert_eq(ws_open(dir, other, 0, &m, &err), 0, "%s", err.message);
	cr_assert_not(ws_model_has_errors(m));
	cr_assert_eq(ws_model_finding_count(m), 0);
	ws_model_free(m);
	ws_rmtree(root);
	free(cfg);
	free(cp);
	free(other);
	free(dir);
	free(root);
}

Test(api, gguf)
{
	char *root = ws_tmpdir();
	char *argv[] = {getenv("WS_MKGGUF"), "valid", root, NULL};
	cr_assert(argv[0]);
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0);
	ws_run_free(&r);
	char *p = ws_join(root, "tiny-llama.gguf");
	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_open(p, NULL, 0, &m, &err), 0, "%s", err.message);
	cr_assert_str_eq(ws_model_format(m), "gguf");
	cr_assert_str_eq(ws_model_architecture(m), "llama");
	cr_assert_gt(ws_model_tensor_count(m), 0);
	/* the shape in PyTorch order, as the CLI prints it by default */
	char *js = ws_model_json(m, "inspect", &err);
	r = ws_run_cli("inspect", "--json", p, NULL);
	r.out[strlen(r.out) - 1] = 0;
	cr_assert_str_eq(js, r.out);
	ws_run_free(&r);
	ws_string_free(js);
	ws_model_free(m);
	ws_rmtree(root);
	free(p);
	free(root);
}

Test(api, errors_are_values)
{
	ws_model *m = (ws_model *)&m;
	ws_error err = {0};
	char buf[64];

	cr_assert_str_eq(ws_error_kind(&err), "");
	cr_assert_eq(ws_open("/nonexistent/x.safetensors", NULL, 0, &m, &err), -1);
	cr_assert_null(m);
	cr_assert_eq(err.code, WS_EXIT_INPUT);
	cr_assert_str_eq(ws_error_kind(&err), "not-found");
	cr_assert_str_eq(err.file, "/nonexistent/x.safetensors");
	ws_error_format(&err, buf, sizeof buf);
	cr_assert(!strncmp(buf, "/nonexistent/x.safetensors: ", 28), "%s", buf);
	cr_assert_lt(strlen(buf), sizeof buf);

	memset(&err, 0, sizeof err);
	cr_assert_eq(ws_open("x", NULL, 1u << 7, &m, &err), -1);
	cr_assert_eq(err.code, WS_EXIT_USAGE);
	cr_assert_str_eq(ws_error_kind(&err), "usage");
	memset(&err, 0, sizeof err);
	cr_assert_eq(ws_open(NULL, NULL, 0, &m, &err), -1);
	cr_assert_eq(err.code, WS_EXIT_USAGE);

	char *root = ws_tmpdir();
	char *bad = ws_write_file(root, "bad.safetensors", "\x08\0\0\0\0\0\0\0{\"a\":1} ", 16);
	memset(&err, 0, sizeof err);
	cr_assert_eq(ws_open(bad, NULL, 0, &m, &err), -1);
	cr_assert_eq(err.code, WS_EXIT_INPUT);
	cr_assert_str_eq(ws_error_kind(&err), "malformed");
	cr_assert(err.has_offset);
	ws_rmtree(root);
	free(bad);
	free(root);
}

/* The test-only hook: the first finding fails, so does ws_open (exit 4,
 * no model); a clean checkpoint records none and opens. */
Test(api, lost_finding_fails_the_open)
{
	char *root = ws_tmpdir();
	char *dir = tied_copy(root);
	char *clean = ws_join(root, "clean");
	ws_mkfixture("tiny", clean, NULL);
	setenv("WS_FAIL_FINDING", "1", 1);

	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_open(clean, NULL, WS_OPEN_CHECK, &m, &err), 0, "%s", err.message);
	ws_model_free(m);
	cr_assert_eq(ws_open(dir, NULL, WS_OPEN_CHECK, &m, &err), -1);
	cr_assert_null(m);
	cr_assert_eq(err.code, WS_EXIT_INTERNAL);
	cr_assert_str_eq(ws_error_kind(&err), "internal");
	cr_assert_str_eq(err.message, "out of memory");
	/* read once: the second finding of the process is recorded */
	memset(&err, 0, sizeof err);
	cr_assert_eq(ws_open(dir, NULL, WS_OPEN_CHECK, &m, &err), 0, "%s", err.message);
	cr_assert_eq(ws_model_finding_count(m), 1);
	ws_model_free(m);
	unsetenv("WS_FAIL_FINDING");
	ws_rmtree(root);
	free(clean);
	free(dir);
	free(root);
}
