/* test_adapter.c - adapters (PEFT LoRA / DoRA, mlx-lm, kohya, LoRA GGUF)
 * built full size and sparse with tools/mktensors, checked against their
 * config and their base (configs in testdata/adapter: the real key sets). */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ws/adapter.h"
#include "ws/model.h"

/* Write SPEC to dir/spec.txt and run mktensors OUT < it. */
static void
mktensors(const char *dir, const char *out, const char *spec)
{
	char *sp = ws_write_file(dir, "spec.txt", spec, strlen(spec));
	char cmd[4096];
	const char *bin = getenv("WS_MKTENSORS");
	cr_assert(bin, "WS_MKTENSORS is not set");
	snprintf(cmd, sizeof cmd, "'%s' '%s' < '%s'", bin, out, sp);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(sp);
}

/* A growing spec. */
typedef struct spec {
	char *s;
	size_t n, cap;
} spec;

static void
add(spec *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void
add(spec *p, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	va_start(ap, fmt);
	int l = vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	if (p->n + (size_t)l + 1 > p->cap) {
		p->cap = (p->n + (size_t)l + 1) * 2;
		p->s = realloc(p->s, p->cap);
		cr_assert(p->s);
	}
	memcpy(p->s + p->n, line, (size_t)l + 1);
	p->n += (size_t)l;
}

static char *
config(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof rel, "adapter/%s", name);
	return ws_testdata_path(rel);
}

/* An adapter folder: its config copied, its factors from spec. */
static char *
adapter_dir(const char *root, const char *sub, const char *cfg, const char *weights, spec *sp)
{
	char *dir = ws_join(root, sub);
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	if (cfg) {
		char *src = config(cfg);
		cJSON *j = ws_load_json(src);
		char *text = cJSON_Print(j);
		free(ws_write_file(dir, "adapter_config.json", text, strlen(text)));
		free(text);
		cJSON_Delete(j);
		free(src);
	}
	char *out = ws_join(dir, weights);
	mktensors(dir, out, sp->s);
	free(out);
	return dir;
}

enum plant { P_NONE, P_MISSING_V, P_RANK8, P_NO_CHAIN, P_IN8192 };

/* Llama-3-8B, r 16 on q_proj and v_proj, PEFT's names. */
static void
llama_spec(spec *sp, enum plant p)
{
	for (int l = 0; l < 32; l++) {
		static const struct { const char *m; unsigned out; } mods[] = {{"q_proj", 4096}, {"v_proj", 1024}};
		for (int k = 0; k < 2; k++) {
			if (p == P_MISSING_V && l == 7 && k == 1)
				continue;
			unsigned r = p == P_RANK8 && l == 11 && k == 0 ? 8 : 16;
			unsigned rb = p == P_NO_CHAIN && l == 13 && k == 1 ? 8 : r;
			unsigned in = p == P_IN8192 ? 8192 : 4096;
			add(sp, "t base_model.model.model.layers.%d.self_attn.%s.lora_A.weight BF16 %u %u\n", l,
			    mods[k].m, r, in);
			add(sp, "t base_model.model.model.layers.%d.self_attn.%s.lora_B.weight BF16 %u %u\n", l,
			    mods[k].m, mods[k].out, rb);
		}
	}
}

static cJSON *
run_json(int want, const char *cmd, const char *path, const char *base)
{
	ws_run r = base ? ws_run_cli(cmd, "--json", path, "--base", base, NULL)
			: ws_run_cli(cmd, "--json", path, NULL);
	cr_assert_eq(r.status, want, "%s %s: exit %d\n%s%s", cmd, path, r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	ws_run_free(&r);
	return j;
}

static double
num_at(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	cr_assert(cJSON_IsNumber(x), "%s.%s", a, b ? b : "");
	return x->valuedouble;
}

/* An adapter-mismatch error naming layer `layer`. */
static bool
has_mismatch(const cJSON *j, int layer)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "code");
		const cJSON *l = cJSON_GetObjectItemCaseSensitive(f, "layer");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(f, "message");
		char want[32];
		snprintf(want, sizeof want, "layer %d", layer);
		if (cJSON_IsString(c) && !strcmp(c->valuestring, "adapter-mismatch") && cJSON_IsNumber(l) &&
		    l->valueint == layer && cJSON_IsString(m) && strstr(m->valuestring, want))
			return true;
	}
	return false;
}

static void
no_other_roles(const char *path)
{
	cJSON *j = run_json(0, "ls", path, NULL);
	const cJSON *t;
	int n = 0;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(j, "tensors")) {
		const cJSON *r = cJSON_GetObjectItemCaseSensitive(t, "role");
		cr_assert(cJSON_IsString(r) && strcmp(r->valuestring, "other"),
			  "%s is other", cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring);
		n++;
	}
	cr_assert_gt(n, 0);
	cJSON_Delete(j);
}

Test(adapter, peft_lora_llama3_8b)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	spec sp = {0};
	llama_spec(&sp, P_NONE);
	char *dir = adapter_dir(root, "lora", "peft-lora-llama3-8b-r16-qv.json", "adapter_model.safetensors", &sp);

	cJSON *j = run_json(0, "check", dir, NULL);
	cr_assert_eq(num_at(j, "params", "total"), 6815744.0);
	cr_assert_eq(num_at(j, "adapter", "rank"), 16.0);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(
		cJSON_GetObjectItemCaseSensitive(j, "adapter"), "base_checked")));
	cJSON_Delete(j);
	j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(j, "params", "total"), 6815744.0);
	cr_assert_eq(num_at(j, "adapter", "base_total"), 8030261248.0);
	cr_assert_eq(num_at(j, "adapter", "total_with_base"), 8037076992.0);
	cJSON_Delete(j);

	/* ls: each factor with the role of what it adapts */
	j = run_json(0, "ls", dir, NULL);
	const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "tensors"), 0);
	cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(t, "adapts")->valuestring, "attn_q");
	cJSON_Delete(j);

	char *cfg = ws_join(dir, "adapter_config.json");
	j = run_json(0, "formula", cfg, base);
	cr_assert_eq(num_at(j, "formula", "total"), 6815744.0);
	cJSON_Delete(j);
	ws_run r = ws_run_cli("formula", cfg, "--base", base, NULL);
	cr_assert(ws_contains(r.out, "6,815,744"), "%s", r.out);
	ws_run_free(&r);
	free(cfg);
	free(sp.s);
	free(dir);
	free(base);
	ws_rmtree(root);
	free(root);
}

Test(adapter, peft_lora_planted)
{
	static const struct { enum plant p; int layer; } plants[] = {
		{P_MISSING_V, 7}, {P_RANK8, 11}, {P_NO_CHAIN, 13}, {P_IN8192, 0},
	};
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	for (size_t i = 0; i < sizeof plants / sizeof plants[0]; i++) {
		spec sp = {0};
		char sub[16];
		snprintf(sub, sizeof sub, "p%zu", i);
		llama_spec(&sp, plants[i].p);
		char *dir = adapter_dir(root, sub, "peft-lora-llama3-8b-r16-qv.json", "adapter_model.safetensors", &sp);
		cJSON *j = run_json(1, "check", dir, base);
		cr_assert(has_mismatch(j, plants[i].layer), "plant %zu: no adapter-mismatch naming layer %d",
			  i, plants[i].layer);
		cJSON_Delete(j);
		free(dir);
		free(sp.s);
	}
	free(base);
	ws_rmtree(root);
	free(root);
}

Test(adapter, peft_dora_mistral_7b)
{
	char *root = ws_tmpdir(), *base = config("mistral-7b-config.json");
	spec sp = {0};
	static const struct { const char *m; unsigned in, out; } mods[] = {
		{"self_attn.q_proj", 4096, 4096}, {"self_attn.k_proj", 4096, 1024},
		{"self_attn.v_proj", 4096, 1024}, {"self_attn.o_proj", 4096, 4096},
		{"mlp.gate_proj", 4096, 14336}, {"mlp.up_proj", 4096, 14336}, {"mlp.down_proj", 14336, 4096},
	};
	for (int l = 0; l < 32; l++)
		for (int k = 0; k < 7; k++) {
			const char *p = "base_model.model.model.layers";
			add(&sp, "t %s.%d.%s.lora_A.weight BF16 16 %u\n", p, l, mods[k].m, mods[k].in);
			add(&sp, "t %s.%d.%s.lora_B.weight BF16 %u 16\n", p, l, mods[k].m, mods[k].out);
			add(&sp, "t %s.%d.%s.lora_magnitude_vector BF16 %u\n", p, l, mods[k].m, mods[k].out);
		}
	char *dir = adapter_dir(root, "dora", "peft-dora-mistral-7b-r16.json", "adapter_model.safetensors", &sp);
	cJSON *j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(j, "params", "total"), 43319296.0);
	const cJSON *ad = cJSON_GetObjectItemCaseSensitive(j, "adapter");
	cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(ad, "kind")->valuestring, "dora");
	cr_assert_eq(num_at(ad, "expected", "factors"), 41943040.0);
	cr_assert_eq(num_at(ad, "expected", "magnitudes"), 1376256.0);
	cr_assert_eq(num_at(ad, "expected", "total"), 43319296.0);
	cJSON_Delete(j);
	no_other_roles(dir);
	/* one magnitude vector left out (layer 9's down_proj): named */
	char *cut = strstr(sp.s, "t base_model.model.model.layers.9.mlp.down_proj.lora_magnitude_vector");
	cr_assert(cut);
	memmove(cut, strchr(cut, '\n') + 1, strlen(strchr(cut, '\n') + 1) + 1);
	char *d2 = adapter_dir(root, "dora9", "peft-dora-mistral-7b-r16.json", "adapter_model.safetensors", &sp);
	j = run_json(1, "check", d2, base);
	cr_assert(has_mismatch(j, 9));
	cJSON_Delete(j);
	free(d2);
	free(sp.s);
	free(dir);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* mlx-lm: lora_a [in, r], lora_b [r, out] on the last num_layers layers. */
static char *
mlx_dir(const char *root, const char *sub, int rank_at, int first_layer)
{
	char *dir = ws_join(root, sub);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	const char *cfg = "{\"fine_tune_type\": \"lora\", \"num_layers\": 8, \"lora_parameters\": "
			  "{\"rank\": 8, \"scale\": 20.0, \"dropout\": 0.0, "
			  "\"keys\": [\"self_attn.q_proj\", \"self_attn.v_proj\"]}}";
	free(ws_write_file(dir, "adapter_config.json", cfg, strlen(cfg)));
	spec sp = {0};
	for (int l = first_layer; l < 32; l++) {
		unsigned r = l == rank_at ? 4 : 8;
		add(&sp, "t model.layers.%d.self_attn.q_proj.lora_a F32 4096 %u\n", l, r);
		add(&sp, "t model.layers.%d.self_attn.q_proj.lora_b F32 %u 4096\n", l, r);
		add(&sp, "t model.layers.%d.self_attn.v_proj.lora_a F32 4096 %u\n", l, r);
		add(&sp, "t model.layers.%d.self_attn.v_proj.lora_b F32 %u 1024\n", l, r);
	}
	char *out = ws_join(dir, "adapters.safetensors");
	mktensors(dir, out, sp.s);
	free(out);
	free(sp.s);
	return dir;
}

Test(adapter, mlx_lm)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	char *ok = mlx_dir(root, "ok", -1, 24);
	no_other_roles(ok);
	cJSON *j = run_json(0, "check", ok, NULL);
	const cJSON *ad = cJSON_GetObjectItemCaseSensitive(j, "adapter");
	cr_assert_eq(num_at(ad, "rank", NULL), 8.0);
	cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(ad, "layout")->valuestring, "mlx");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ad, "targets")), 2);
	cr_assert_eq(num_at(j, "params", "total"), 8.0 * 8 * (4096 + 4096 + 4096 + 1024));
	cJSON_Delete(j);
	j = run_json(0, "check", ok, base);
	cJSON_Delete(j);

	char *rank = mlx_dir(root, "rank", 27, 24);
	j = run_json(1, "check", rank, NULL);
	cr_assert(has_mismatch(j, 27));
	cJSON_Delete(j);

	char *more = mlx_dir(root, "more", -1, 20);
	j = run_json(1, "check", more, NULL);
	cr_assert(has_mismatch(j, 20));
	cJSON_Delete(j);
	j = run_json(1, "check", more, base);
	cr_assert(has_mismatch(j, 20));
	cJSON_Delete(j);
	free(ok);
	free(rank);
	free(more);
	free(base);
	ws_rmtree(root);
	free(root);
}

Test(adapter, kohya_sdxl)
{
	char *root = ws_tmpdir();
	spec sp = {0};
	add(&sp, "m ss_network_dim 32\nm ss_network_alpha 16\n");
	static const char *const unet[] = {"attn1_to_q", "attn1_to_k", "attn1_to_v", "attn1_to_out_0",
					   "attn2_to_q", "attn2_to_k", "attn2_to_v", "attn2_to_out_0"};
	for (int b = 0; b < 2; b++)
		for (int t = 0; t < 10; t++)
			for (int k = 0; k < 8; k++) {
				const char *p = "lora_unet_input_blocks";
				unsigned in = k == 5 || k == 6 ? 2048 : 1280;
				add(&sp, "t %s_%d_1_transformer_blocks_%d_%s.lora_down.weight F16 32 %u\n", p, 7 + b, t,
				    unet[k], in);
				add(&sp, "t %s_%d_1_transformer_blocks_%d_%s.lora_up.weight F16 1280 32\n", p, 7 + b, t,
				    unet[k]);
				add(&sp, "t %s_%d_1_transformer_blocks_%d_%s.alpha F16\n", p, 7 + b, t, unet[k]);
			}
	for (int l = 0; l < 12; l++) {
		add(&sp, "t lora_te1_text_model_encoder_layers_%d_self_attn_q_proj.lora_down.weight F16 32 768\n", l);
		add(&sp, "t lora_te1_text_model_encoder_layers_%d_self_attn_q_proj.lora_up.weight F16 768 32\n", l);
		add(&sp, "t lora_te1_text_model_encoder_layers_%d_self_attn_q_proj.alpha F16\n", l);
	}
	char *dir = ws_join(root, "");
	char *file = ws_join(root, "sdxl_lora.safetensors");
	mktensors(root, file, sp.s);
	no_other_roles(file);
	cJSON *j = run_json(0, "check", file, NULL);
	const cJSON *ad = cJSON_GetObjectItemCaseSensitive(j, "adapter");
	cr_assert(ad);
	cr_assert_eq(num_at(ad, "rank", NULL), 32.0);
	cr_assert_eq(num_at(ad, "alpha", NULL), 16.0);
	cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(ad, "layout")->valuestring, "kohya");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(ad, "targets")), 9);
	cJSON_Delete(j);
	free(dir);
	free(file);
	free(sp.s);
	ws_rmtree(root);
	free(root);
}

Test(adapter, lora_gguf)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	spec sp = {0};
	add(&sp, "m general.architecture llama\nm general.type adapter\nm adapter.type lora\n"
		 "f adapter.lora.alpha 32\n");
	for (int l = 0; l < 32; l++) {
		add(&sp, "t blk.%d.attn_q.weight.lora_a F32 16 4096\n", l);
		add(&sp, "t blk.%d.attn_q.weight.lora_b F32 4096 16\n", l);
		add(&sp, "t blk.%d.attn_v.weight.lora_a F32 16 %u\n", l, l == 9 ? 8192u : 4096u);
		add(&sp, "t blk.%d.attn_v.weight.lora_b F32 1024 16\n", l);
	}
	char *file = ws_join(root, "lora.gguf");
	mktensors(root, file, sp.s);
	no_other_roles(file);
	cJSON *j = run_json(0, "check", file, NULL);
	const cJSON *ad = cJSON_GetObjectItemCaseSensitive(j, "adapter");
	cr_assert_eq(num_at(ad, "rank", NULL), 16.0);
	cr_assert_eq(num_at(ad, "alpha", NULL), 32.0);
	cJSON_Delete(j);
	j = run_json(1, "check", file, base);
	cr_assert(has_mismatch(j, 9));
	cJSON_Delete(j);
	free(file);
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* ==== the config's features, each with a test that fails without it ==== */

/* A PEFT adapter folder: config text, factors from sp. */
static char *
peft_dir(const char *root, const char *sub, const char *cfg, spec *sp)
{
	char *dir = ws_join(root, sub);
	char cmd[2048];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	free(ws_write_file(dir, "adapter_config.json", cfg, strlen(cfg)));
	char *out = ws_join(dir, "adapter_model.safetensors");
	mktensors(dir, out, sp->s);
	free(out);
	return dir;
}

/* LoRA factors of one module (PEFT's names under base_model.model.). */
static void
peft_mod(spec *sp, const char *mod, unsigned r, unsigned in, unsigned out)
{
	add(sp, "t base_model.model.%s.lora_A.weight BF16 %u %u\n", mod, r, in);
	add(sp, "t base_model.model.%s.lora_B.weight BF16 %u %u\n", mod, out, r);
}

/* Llama-3-8B's q_proj and v_proj in layers [lo, hi), ranks rq / rv. */
static void
llama_qv(spec *sp, int lo, int hi, unsigned rq, unsigned rv)
{
	char m[128];
	for (int l = lo; l < hi; l++) {
		snprintf(m, sizeof m, "model.layers.%d.self_attn.q_proj", l);
		peft_mod(sp, m, rq, 4096, 4096);
		snprintf(m, sizeof m, "model.layers.%d.self_attn.v_proj", l);
		peft_mod(sp, m, rv, 4096, 1024);
	}
}

#define LLAMA_QV(rq, rv) ((double)(rq) * 8192 + (double)(rv) * 5120) /* one layer */

/* A finding of this code whose message holds `text` (NULL: any). */
static bool
has_finding(const cJSON *j, const char *sev, const char *text)
{
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "code");
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(f, "severity");
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(f, "message");
		if (cJSON_IsString(c) && !strcmp(c->valuestring, "adapter-mismatch") && cJSON_IsString(s) &&
		    !strcmp(s->valuestring, sev) && cJSON_IsString(m) && (!text || strstr(m->valuestring, text)))
			return true;
	}
	return false;
}

static const cJSON *
adapter_of(const cJSON *j)
{
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "adapter");
	cr_assert(a);
	return a;
}

/* The cases below share this config head: Llama-3-8B's real key set. */
#define PEFT_HEAD "{\"peft_type\": \"LORA\", \"base_model_name_or_path\": \"meta-llama/Meta-Llama-3-8B\", " \
		  "\"lora_dropout\": 0.05, \"fan_in_fan_out\": false, \"inference_mode\": true, "

Test(adapter, rank_and_alpha_pattern)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	const char *cfg = PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, \"target_modules\": [\"q_proj\", \"v_proj\"], "
				    "\"rank_pattern\": {\"v_proj\": 8}, \"alpha_pattern\": {\"v_proj\": 64}}";
	spec sp = {0};
	llama_qv(&sp, 0, 32, 16, 8);
	char *dir = peft_dir(root, "ok", cfg, &sp);
	cJSON *j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(j, "params", "total"), 32 * LLAMA_QV(16, 8));
	cr_assert_eq(num_at(adapter_of(j), "expected", "total"), 32 * LLAMA_QV(16, 8));
	/* the alphas shown are the patterns' */
	const cJSON *g = cJSON_GetObjectItemCaseSensitive(adapter_of(j), "by_rank");
	cr_assert_eq(cJSON_GetArraySize(g), 2);
	bool v64 = false;
	const cJSON *e;
	cJSON_ArrayForEach(e, g)
		v64 = v64 || (num_at(e, "rank", NULL) == 8 && num_at(e, "alpha", NULL) == 64 &&
			      num_at(e, "modules", NULL) == 32);
	cr_assert(v64, "no group of rank 8, alpha 64 in 32 modules");
	cJSON_Delete(j);
	free(dir);
	free(sp.s);

	/* v_proj at r 16 in layer 3 where the pattern says 8 */
	sp = (spec){0};
	llama_qv(&sp, 0, 3, 16, 8);
	llama_qv(&sp, 3, 4, 16, 16);
	llama_qv(&sp, 4, 32, 16, 8);
	dir = peft_dir(root, "bad", cfg, &sp);
	j = run_json(1, "check", dir, base);
	cr_assert(has_mismatch(j, 3));
	cJSON_Delete(j);
	j = run_json(1, "check", dir, NULL); /* the pattern alone, without a base */
	cr_assert(has_mismatch(j, 3));
	cJSON_Delete(j);
	free(dir);
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

Test(adapter, exclude_layers_and_pattern)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	char cfg[1024];
#define EXCL_FMT PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, \"target_modules\": [\"q_proj\", \"v_proj\"], " \
		 "\"layers_to_transform\": [0, 1, 2, 3], \"layers_pattern\": %s, " \
		 "\"exclude_modules\": [\"model.layers.2.self_attn.v_proj\"]}"
	spec sp = {0};
	llama_qv(&sp, 0, 2, 16, 16);
	peft_mod(&sp, "model.layers.2.self_attn.q_proj", 16, 4096, 4096);
	llama_qv(&sp, 3, 4, 16, 16);
	snprintf(cfg, sizeof cfg, EXCL_FMT, "\"layers\"");
	char *dir = peft_dir(root, "ok", cfg, &sp);
	cJSON *j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(adapter_of(j), "expected", "total"), 4 * 16 * 8192.0 + 3 * 16 * 5120.0);
	cr_assert_eq(num_at(adapter_of(j), "modules", NULL), 7);
	cJSON_Delete(j);
	free(dir);
	/* layers_pattern naming no layer list of the base: nothing selected */
	snprintf(cfg, sizeof cfg, EXCL_FMT, "[\"h\", \"blocks\"]");
	dir = peft_dir(root, "pattern", cfg, &sp);
	j = run_json(1, "check", dir, base);
	cr_assert_eq(num_at(adapter_of(j), "expected", "total"), 0);
	cr_assert(has_finding(j, "error", "not a module the config targets"));
	cJSON_Delete(j);
	free(dir);
	/* a layer outside layers_to_transform, and the excluded module */
	spec sp2 = {0};
	llama_qv(&sp2, 0, 4, 16, 16);
	llama_qv(&sp2, 5, 6, 16, 16);
	snprintf(cfg, sizeof cfg, EXCL_FMT, "\"layers\"");
	dir = peft_dir(root, "extra", cfg, &sp2);
	j = run_json(1, "check", dir, base);
	cr_assert(has_mismatch(j, 5));
	cr_assert(has_mismatch(j, 2));
	cJSON_Delete(j);
	free(dir);
	free(sp.s);
	free(sp2.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

Test(adapter, regex_target_and_unmatched_warning)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	spec sp = {0};
	llama_qv(&sp, 0, 32, 16, 16);
	char *dir = peft_dir(root, "re", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, "
				  "\"target_modules\": \".*\\\\.(q|v)_proj\"}", &sp);
	cJSON *j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(adapter_of(j), "expected", "total"), 6815744.0);
	cr_assert_eq(num_at(adapter_of(j), "modules", NULL), 64);
	cJSON_Delete(j);
	free(dir);
	/* Python's (?:...) and \d */
	dir = peft_dir(root, "re3", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, "
			       "\"target_modules\": \"model\\\\.layers\\\\.\\\\d+\\\\.self_attn\\\\.(?:q|v)_proj\"}", &sp);
	j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(adapter_of(j), "modules", NULL), 64);
	cJSON_Delete(j);
	free(dir);
	/* a regex matching k_proj too: its factors are missing */
	dir = peft_dir(root, "re2", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, "
			       "\"target_modules\": \".*\\\\.(q|k|v)_proj\"}", &sp);
	j = run_json(1, "check", dir, base);
	cr_assert(has_finding(j, "error", "k_proj"));
	cJSON_Delete(j);
	free(dir);
	/* a listed name the base lacks: a warning, the check passes */
	dir = peft_dir(root, "warn", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, "
				"\"target_modules\": [\"q_proj\", \"v_proj\", \"c_attn\"]}", &sp);
	j = run_json(0, "check", dir, base);
	cr_assert(has_finding(j, "warning", "'c_attn'"));
	cr_assert(!has_finding(j, "warning", "'q_proj'"));
	cJSON_Delete(j);
	free(dir);
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* Qwen2-0.5B has q / k / v biases: bias lora_only stores the adapted
 * modules', bias all every one; lora_bias gives B a bias. */
Test(adapter, biases_qwen2)
{
	char *root = ws_tmpdir(), *base = config("qwen2-0.5b-config.json");
	static const char *const modes[] = {"lora_only", "all"};
	for (int k = 0; k < 2; k++) {
		spec sp = {0};
		char m[128], cfg[512];
		for (int l = 0; l < 24; l++) {
			snprintf(m, sizeof m, "model.layers.%d.self_attn.q_proj", l);
			peft_mod(&sp, m, 8, 896, 896);
			snprintf(m, sizeof m, "model.layers.%d.self_attn.v_proj", l);
			peft_mod(&sp, m, 8, 896, 128);
			add(&sp, "t base_model.model.model.layers.%d.self_attn.q_proj.bias BF16 896\n", l);
			add(&sp, "t base_model.model.model.layers.%d.self_attn.v_proj.bias BF16 128\n", l);
			if (k == 1)
				add(&sp, "t base_model.model.model.layers.%d.self_attn.k_proj.bias BF16 128\n", l);
		}
		snprintf(cfg, sizeof cfg, "{\"peft_type\": \"LORA\", \"r\": 8, \"lora_alpha\": 16, \"bias\": \"%s\", "
			 "\"target_modules\": [\"q_proj\", \"v_proj\"], \"task_type\": \"CAUSAL_LM\"}", modes[k]);
		char sub[16];
		snprintf(sub, sizeof sub, "b%d", k);
		char *dir = peft_dir(root, sub, cfg, &sp);
		cJSON *j = run_json(0, "check", dir, base);
		double fac = 24 * (8.0 * (896 + 896) + 8.0 * (896 + 128));
		double bias = 24 * (k ? 896 + 128 + 128.0 : 896 + 128.0);
		cr_assert_eq(num_at(adapter_of(j), "expected", "factors"), fac);
		cr_assert_eq(num_at(adapter_of(j), "expected", "saved_modules"), bias);
		cr_assert_eq(num_at(j, "params", "total"), fac + bias);
		cJSON_Delete(j);
		free(dir);
		free(sp.s);
	}
	/* lora_bias: B's bias, out elements per module */
	spec sp = {0};
	llama_qv(&sp, 0, 32, 16, 16);
	for (int l = 0; l < 32; l++) {
		add(&sp, "t base_model.model.model.layers.%d.self_attn.q_proj.lora_B.bias BF16 4096\n", l);
		add(&sp, "t base_model.model.model.layers.%d.self_attn.v_proj.lora_B.bias BF16 1024\n", l);
	}
	char *llama = config("llama3-8b-config.json");
	char *dir = peft_dir(root, "lb", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, \"lora_bias\": true, "
				"\"target_modules\": [\"q_proj\", \"v_proj\"]}", &sp);
	cJSON *j = run_json(0, "check", dir, llama);
	cr_assert_eq(num_at(adapter_of(j), "expected", "total"), 6815744.0 + 32 * 5120.0);
	cr_assert_eq(num_at(j, "params", "total"), 6815744.0 + 32 * 5120.0);
	cJSON_Delete(j);
	free(dir);
	free(llama);
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* modules_to_save, and SEQ_CLS's implicit classifier, on a BERT
 * classifier with 3 labels: full copies, weight and bias. */
Test(adapter, seq_cls_saves_classifier)
{
	char *root = ws_tmpdir(), *base = config("bert-base-cls3-config.json");
	spec sp = {0};
	char m[160];
	for (int l = 0; l < 12; l++) {
		snprintf(m, sizeof m, "bert.encoder.layer.%d.attention.self.query", l);
		peft_mod(&sp, m, 8, 768, 768);
		snprintf(m, sizeof m, "bert.encoder.layer.%d.attention.self.value", l);
		peft_mod(&sp, m, 8, 768, 768);
	}
	add(&sp, "t base_model.model.classifier.weight F32 3 768\nt base_model.model.classifier.bias F32 3\n");
	const double fac = 12 * 2 * 8.0 * 1536, head = 3 * 768 + 3;
	static const char *const cfgs[] = {
		"{\"peft_type\": \"LORA\", \"task_type\": \"SEQ_CLS\", \"r\": 8, \"lora_alpha\": 16, "
		"\"target_modules\": [\"query\", \"value\"], \"modules_to_save\": null}",
		"{\"peft_type\": \"LORA\", \"task_type\": null, \"r\": 8, \"lora_alpha\": 16, "
		"\"target_modules\": [\"query\", \"value\"], \"modules_to_save\": [\"classifier\"]}",
	};
	for (int k = 0; k < 2; k++) {
		char sub[8];
		snprintf(sub, sizeof sub, "c%d", k);
		char *dir = peft_dir(root, sub, cfgs[k], &sp);
		cJSON *j = run_json(0, "check", dir, base);
		cr_assert_eq(num_at(adapter_of(j), "expected", "saved_modules"), head, "config %d", k);
		cr_assert_eq(num_at(j, "params", "total"), fac + head);
		cJSON_Delete(j);
		free(dir);
	}
	/* without SEQ_CLS or modules_to_save the copy is unexplained */
	char *dir = peft_dir(root, "none", "{\"peft_type\": \"LORA\", \"r\": 8, \"lora_alpha\": 16, "
				  "\"target_modules\": [\"query\", \"value\"]}", &sp);
	cJSON *j = run_json(1, "check", dir, base);
	cr_assert(has_finding(j, "error", "its config and the base imply"));
	cJSON_Delete(j);
	free(dir);
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* Resized embeddings: PEFT saves the frozen base layer; named, counted
 * apart from the adapter's total. */
Test(adapter, base_layer_apart)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	spec sp = {0};
	llama_qv(&sp, 0, 32, 16, 16);
	add(&sp, "t base_model.model.model.embed_tokens.base_layer.weight BF16 128256 4096\n");
	char *dir = peft_dir(root, "bl", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, "
				"\"target_modules\": [\"q_proj\", \"v_proj\"]}", &sp);
	cJSON *j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(j, "params", "total"), 6815744.0);
	cr_assert_eq(num_at(adapter_of(j), "base_layers", "total"), 128256.0 * 4096);
	cr_assert_eq(num_at(adapter_of(j), "base_layers", "tensors"), 1);
	cJSON_Delete(j);
	ws_run r = ws_run_cli("inspect", dir, NULL);
	cr_assert(ws_contains(r.out, "525,336,576 parameters in 1 tensors"), "%s", r.out);
	ws_run_free(&r);
	free(dir);
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* trainable_token_indices: rows of the embedding; layer_replication: the
 * adapter sees the replicated stack. */
Test(adapter, tokens_and_replication)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	spec sp = {0};
	llama_qv(&sp, 0, 32, 16, 16);
	add(&sp, "t base_model.model.model.embed_tokens.token_adapter.trainable_tokens_delta BF16 3 4096\n");
	char *dir = peft_dir(root, "tok", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, "
				 "\"trainable_token_indices\": [128000, 128001, 128009], "
				 "\"target_modules\": [\"q_proj\", \"v_proj\"]}", &sp);
	cJSON *j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(adapter_of(j), "expected", "token_rows"), 3 * 4096.0);
	cr_assert_eq(num_at(j, "params", "total"), 6815744.0 + 3 * 4096);
	cJSON_Delete(j);
	no_other_roles(dir);
	free(dir);
	/* the dict form names the module */
	dir = peft_dir(root, "tok2", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, "
				  "\"trainable_token_indices\": {\"embed_tokens\": [1, 2]}, "
				  "\"target_modules\": [\"q_proj\", \"v_proj\"]}", &sp);
	j = run_json(1, "check", dir, base);
	cr_assert_eq(num_at(adapter_of(j), "expected", "token_rows"), 2 * 4096.0);
	cJSON_Delete(j);
	free(dir);
	free(sp.s);

	/* [[0, 16], [8, 32]]: 40 layers */
	const char *rep = PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, \"layer_replication\": [[0, 16], [8, 32]], "
				    "\"target_modules\": [\"q_proj\", \"v_proj\"]}";
	sp = (spec){0};
	llama_qv(&sp, 0, 40, 16, 16);
	dir = peft_dir(root, "rep", rep, &sp);
	j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(adapter_of(j), "expected", "total"), 40 * LLAMA_QV(16, 16));
	cJSON_Delete(j);
	free(dir);
	llama_qv(&sp, 40, 41, 16, 16);
	dir = peft_dir(root, "rep41", rep, &sp);
	j = run_json(1, "check", dir, base);
	cr_assert(has_mismatch(j, 40));
	cJSON_Delete(j);
	free(dir);
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* ==== matching stays linear: a MoE adapter of ~37,000 modules ==== */

/* Qwen3-MoE-like with 256 experts; layers given. */
static char *
moe_config(const char *dir, int layers)
{
	char cfg[1024];
	snprintf(cfg, sizeof cfg,
		 "{\"architectures\": [\"Qwen3MoeForCausalLM\"], \"model_type\": \"qwen3_moe\", "
		 "\"hidden_size\": 2048, \"intermediate_size\": 6144, \"moe_intermediate_size\": 768, "
		 "\"num_attention_heads\": 32, \"num_key_value_heads\": 4, \"head_dim\": 128, "
		 "\"num_hidden_layers\": %d, \"num_experts\": 256, \"num_experts_per_tok\": 8, "
		 "\"decoder_sparse_step\": 1, \"mlp_only_layers\": [], \"vocab_size\": 151936, "
		 "\"tie_word_embeddings\": false, \"rms_norm_eps\": 1e-06, \"max_position_embeddings\": 40960}",
		 layers);
	char name[32];
	snprintf(name, sizeof name, "base-%d.json", layers);
	return ws_write_file(dir, name, cfg, strlen(cfg));
}

static void
moe_adapter(const char *root, const char *sub, int layers, const char *base, uint64_t *work,
	    uint64_t *modules)
{
	spec sp = {0};
	char m[160];
	static const struct { const char *n; unsigned in, out; } attn[] = {
		{"q_proj", 2048, 4096}, {"k_proj", 2048, 512}, {"v_proj", 2048, 512}, {"o_proj", 4096, 2048}};
	static const struct { const char *n; unsigned in, out; } ex[] = {
		{"gate_proj", 2048, 768}, {"up_proj", 2048, 768}, {"down_proj", 768, 2048}};
	for (int l = 0; l < layers; l++) {
		for (int k = 0; k < 4; k++) {
			snprintf(m, sizeof m, "model.layers.%d.self_attn.%s", l, attn[k].n);
			peft_mod(&sp, m, 4, attn[k].in, attn[k].out);
		}
		for (int e = 0; e < 256; e++)
			for (int k = 0; k < 3; k++) {
				snprintf(m, sizeof m, "model.layers.%d.mlp.experts.%d.%s", l, e, ex[k].n);
				peft_mod(&sp, m, 4, ex[k].in, ex[k].out);
			}
	}
	char *dir = peft_dir(root, sub, "{\"peft_type\": \"LORA\", \"r\": 4, \"lora_alpha\": 8, "
				  "\"rank_pattern\": {\"model.layers.0.self_attn.q_proj\": 4}, "
				  "\"target_modules\": [\"q_proj\", \"k_proj\", \"v_proj\", \"o_proj\", "
				  "\"gate_proj\", \"up_proj\", \"down_proj\"]}", &sp);
	free(sp.s);
	ws_open_opts o = {.base_path = base};
	ws_model *md = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(dir, &o, &md, &err), 0, "%s", err.message);
	cr_assert_eq(ws_model_analyze(md, &err), 0, "%s", err.message);
	const ws_adapter *ad = md->adapter;
	cr_assert(ad && ad->base_checked);
	for (size_t i = 0; i < md->n_findings; i++)
		cr_assert_neq(md->findings[i].severity, WS_SEV_ERROR, "%s", md->findings[i].message);
	cr_assert_eq(ad->params, ad->expected);
	cr_assert_eq(ad->modules, (uint64_t)layers * (4 + 3 * 256));
	*work = ad->work;
	*modules = ad->modules;
	ws_model_free(md);
	free(dir);
}

Test(adapter, moe_matching_is_linear, .timeout = 240)
{
	char *root = ws_tmpdir();
	char *b12 = moe_config(root, 12), *b48 = moe_config(root, 48);
	uint64_t w12, w48, n12, n48;
	moe_adapter(root, "m12", 12, b12, &w12, &n12);
	moe_adapter(root, "m48", 48, b48, &w48, &n48);
	cr_assert_eq(n48, 37056);
	/* 4x the modules: about 4x the lookups (a scan per module would be
	 * 16x); and a bounded number of probes per module */
	double ratio = (double)w48 / (double)w12;
	cr_assert_lt(ratio, 5.0, "work %llu for %llu modules, %llu for %llu: ratio %.2f",
		     (unsigned long long)w48, (unsigned long long)n48, (unsigned long long)w12,
		     (unsigned long long)n12, ratio);
	cr_assert_lt((double)w48 / (double)n48, 64.0, "%.1f probes per module", (double)w48 / (double)n48);
	free(b12);
	free(b48);
	ws_rmtree(root);
	free(root);
}

/* ==== kohya roles, LyCORIS parts, mlx defaults ==== */

static const char *
adapts_of(const cJSON *ls, const char *name)
{
	const cJSON *t;
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(ls, "tensors")) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(t, "name");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(t, "adapts");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return cJSON_IsString(a) ? a->valuestring : "";
	}
	cr_assert_fail("no tensor %s", name);
	return NULL;
}

Test(adapter, kohya_adapts_and_lycoris)
{
	char *root = ws_tmpdir();
	spec sp = {0};
	const char *u = "lora_unet_input_blocks_7_1_transformer_blocks_0";
	const char *te = "lora_te1_text_model_encoder_layers_3";
	add(&sp, "t %s_attn1_to_q.lora_down.weight F16 8 1280\nt %s_attn1_to_q.lora_up.weight F16 1280 8\n", u, u);
	add(&sp, "t %s_attn2_to_out_0.lora_down.weight F16 8 1280\nt %s_attn2_to_out_0.lora_up.weight F16 1280 8\n",
	    u, u);
	add(&sp, "t %s_ff_net_2.lora_down.weight F16 8 5120\nt %s_ff_net_2.lora_up.weight F16 1280 8\n", u, u);
	add(&sp, "t %s_self_attn_v_proj.lora_down.weight F16 8 768\nt %s_self_attn_v_proj.lora_up.weight F16 768 8\n",
	    te, te);
	add(&sp, "t %s_mlp_fc1.lora_down.weight F16 8 768\nt %s_mlp_fc1.lora_up.weight F16 3072 8\n", te, te);
	char *file = ws_join(root, "k.safetensors");
	mktensors(root, file, sp.s);
	cJSON *j = run_json(0, "ls", file, NULL);
	char n[256];
	snprintf(n, sizeof n, "%s_attn1_to_q.lora_down.weight", u);
	cr_assert_str_eq(adapts_of(j, n), "attn_q");
	snprintf(n, sizeof n, "%s_attn2_to_out_0.lora_up.weight", u);
	cr_assert_str_eq(adapts_of(j, n), "attn_o");
	snprintf(n, sizeof n, "%s_ff_net_2.lora_up.weight", u);
	cr_assert_str_eq(adapts_of(j, n), "ffn_down");
	snprintf(n, sizeof n, "%s_self_attn_v_proj.lora_down.weight", te);
	cr_assert_str_eq(adapts_of(j, n), "attn_v");
	snprintf(n, sizeof n, "%s_mlp_fc1.lora_down.weight", te);
	cr_assert_str_eq(adapts_of(j, n), "ffn_up");
	cJSON_Delete(j);
	free(file);
	free(sp.s);

	/* LoHa: w1_a [out, r] x w1_b [r, in], and w2 the same; each part
	 * compared (a wrong w2_b is named, not only w1's) */
	for (int bad = 0; bad < 3; bad++) {
		sp = (spec){0};
		for (int k = 0; k < 4; k++) {
			char m[160];
			snprintf(m, sizeof m, "%s_attn1_to_%c", u, "qkvo"[k]);
			add(&sp, "t %s.hada_w1_a F16 1280 8\nt %s.hada_w1_b F16 8 1280\n", m, m);
			unsigned r2 = bad == 1 && k == 2 ? 4 : 8, in2 = bad == 2 && k == 2 ? 640 : 1280;
			add(&sp, "t %s.hada_w2_a F16 1280 8\nt %s.hada_w2_b F16 %u %u\nt %s.alpha F16\n", m, m, r2,
			    in2, m);
		}
		char name[32];
		snprintf(name, sizeof name, "loha%d.safetensors", bad);
		file = ws_join(root, name);
		mktensors(root, file, sp.s);
		j = run_json(bad ? 1 : 0, "check", file, NULL);
		cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(adapter_of(j), "kind")->valuestring, "loha");
		cr_assert_eq(num_at(adapter_of(j), "rank", NULL), 8);
		if (bad)
			cr_assert(has_finding(j, "error", bad == 1 ? "do not chain" : "two products differ"),
				  "LoHa plant %d", bad);
		cJSON_Delete(j);
		free(file);
		free(sp.s);
	}
	/* LoKr: w1 whole, w2 as a pair that must chain */
	for (int bad = 0; bad < 2; bad++) {
		sp = (spec){0};
		add(&sp, "t %s_attn1_to_q.lokr_w1 F16 8 8\nt %s_attn1_to_q.lokr_w2_a F16 160 16\n"
			 "t %s_attn1_to_q.lokr_w2_b F16 %u 160\nt %s_attn1_to_q.alpha F16\n", u, u, u, bad ? 12u : 16u, u);
		char name[32];
		snprintf(name, sizeof name, "lokr%d.safetensors", bad);
		file = ws_join(root, name);
		mktensors(root, file, sp.s);
		j = run_json(bad, "check", file, NULL);
		cr_assert_str_eq(cJSON_GetObjectItemCaseSensitive(adapter_of(j), "kind")->valuestring, "lokr");
		if (bad)
			cr_assert(has_finding(j, "error", "LoKr factors do not chain"));
		cJSON_Delete(j);
		free(file);
		free(sp.s);
	}
	ws_rmtree(root);
	free(root);
}

/* mlx-lm without keys adapts every linear module of the last num_layers
 * blocks (mlx-lm since its to_lora rewrite); `formula` takes the config. */
Test(adapter, mlx_default_keys_and_formula)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	char *dir = ws_join(root, "mlx");
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
	cr_assert_eq(system(cmd), 0);
	const char *cfg = "{\"fine_tune_type\": \"lora\", \"num_layers\": 2, \"model\": \"mlx-community/x\", "
			  "\"lora_parameters\": {\"rank\": 8, \"scale\": 20.0, \"dropout\": 0.0}}";
	char *cfgp = ws_write_file(dir, "adapter_config.json", cfg, strlen(cfg));
	static const struct { const char *m; unsigned in, out; } mods[] = {
		{"self_attn.q_proj", 4096, 4096}, {"self_attn.k_proj", 4096, 1024},
		{"self_attn.v_proj", 4096, 1024}, {"self_attn.o_proj", 4096, 4096},
		{"mlp.gate_proj", 4096, 14336}, {"mlp.up_proj", 4096, 14336}, {"mlp.down_proj", 14336, 4096},
	};
	spec sp = {0};
	for (int l = 30; l < 32; l++)
		for (int k = 0; k < 7; k++) {
			add(&sp, "t model.layers.%d.%s.lora_a F32 %u 8\n", l, mods[k].m, mods[k].in);
			add(&sp, "t model.layers.%d.%s.lora_b F32 8 %u\n", l, mods[k].m, mods[k].out);
		}
	char *out = ws_join(dir, "adapters.safetensors");
	mktensors(dir, out, sp.s);
	const double want = 2 * 8.0 * (8192 + 5120 + 5120 + 8192 + 18432 * 3);
	cJSON *j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(adapter_of(j), "expected", "total"), want);
	cr_assert_eq(num_at(adapter_of(j), "modules", NULL), 14);
	cJSON_Delete(j);
	j = run_json(0, "formula", cfgp, base);
	cr_assert_eq(num_at(j, "formula", "total"), want);
	cJSON_Delete(j);
	ws_run r = ws_run_cli("formula", cfgp, "--base", base, NULL);
	cr_assert(ws_contains(r.out, "1,310,720"), "%s", r.out);
	ws_run_free(&r);
	free(out);
	free(cfgp);
	free(dir);
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* ==== the base as a checkpoint folder, an HF cache folder, or by name ==== */

Test(adapter, base_folder_and_hf_cache)
{
	char *root = ws_tmpdir(), *cfgp = config("llama3-8b-config.json");
	char *hub = ws_join(root, "hub");
	char *repo = ws_join(hub, "models--meta-llama--Meta-Llama-3-8B");
	char *snap = ws_join(repo, "snapshots/0123abcd");
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s/refs' '%s' && printf 0123abcd > '%s/refs/main'", repo, snap, repo);
	cr_assert_eq(system(cmd), 0);
	char *argv[] = {getenv("WS_MKMODEL"), snap, cfgp, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);

	spec sp = {0};
	llama_qv(&sp, 0, 32, 16, 16);
	char *dir = adapter_dir(root, "lora", "peft-lora-llama3-8b-r16-qv.json", "adapter_model.safetensors", &sp);
	/* a checkpoint folder, the cache folder itself */
	const char *bases[] = {snap, repo};
	for (int k = 0; k < 2; k++) {
		cJSON *j = run_json(0, "check", dir, bases[k]);
		cr_assert_eq(num_at(adapter_of(j), "base_total", NULL), 8030261248.0, "base %s", bases[k]);
		cr_assert_eq(num_at(adapter_of(j), "total_with_base", NULL), 8037076992.0);
		cJSON_Delete(j);
	}
	/* base_model_name_or_path found in the HF cache without --base */
	setenv("HF_HUB_CACHE", hub, 1);
	cJSON *j = run_json(0, "check", dir, NULL);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(adapter_of(j), "base_checked")));
	cr_assert_eq(num_at(adapter_of(j), "total_with_base", NULL), 8037076992.0);
	cJSON_Delete(j);
	unsetenv("HF_HUB_CACHE");
	/* ... or as a folder path */
	char *d2 = ws_join(root, "bypath");
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", d2);
	cr_assert_eq(system(cmd), 0);
	char cfg[1024];
	snprintf(cfg, sizeof cfg, "{\"peft_type\": \"LORA\", \"r\": 16, \"lora_alpha\": 32, "
		 "\"target_modules\": [\"q_proj\", \"v_proj\"], \"base_model_name_or_path\": \"%s\"}", snap);
	free(d2);
	d2 = peft_dir(root, "bypath", cfg, &sp);
	j = run_json(0, "check", d2, NULL);
	cr_assert_eq(num_at(adapter_of(j), "base_total", NULL), 8030261248.0);
	cJSON_Delete(j);
	/* absent: not checked, and said why */
	unsetenv("HF_HOME");
	setenv("HF_HUB_CACHE", root, 1);
	j = run_json(0, "check", dir, NULL);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(adapter_of(j), "base_checked")));
	cr_assert(ws_contains(cJSON_GetObjectItemCaseSensitive(adapter_of(j), "base_note")->valuestring,
			      "meta-llama/Meta-Llama-3-8B"));
	cJSON_Delete(j);
	unsetenv("HF_HUB_CACHE");
	free(d2);
	free(dir);
	free(sp.s);
	free(snap);
	free(repo);
	free(hub);
	free(cfgp);
	ws_rmtree(root);
	free(root);
}

/* ==== docs and the ls column ==== */

Test(adapter, base_documented)
{
	static const char *const cmds[] = {"inspect", "ls", "check", "formula"};
	for (size_t i = 0; i < 4; i++) {
		ws_run r = ws_run_cli(cmds[i], "--help", NULL);
		cr_assert(ws_contains(r.out, "--base PATH"), "%s --help: %s", cmds[i], r.out);
		ws_run_free(&r);
	}
	/* the man page: each command's section holds --base */
	char *man = ws_testdata_path("../src/weightscan.1");
	FILE *f = fopen(man, "r");
	cr_assert(f, "%s", man);
	char line[1024], cur[32] = "";
	bool seen[4] = {0};
	while (fgets(line, sizeof line, f)) {
		for (size_t i = 0; i < 4; i++) {
			char head[48];
			snprintf(head, sizeof head, ".BI \"%s ", cmds[i]);
			if (!strncmp(line, head, strlen(head)))
				snprintf(cur, sizeof cur, "%s", cmds[i]);
		}
		if (!strncmp(line, ".BI \"", 5) && !strstr(line, cur))
			cur[0] = 0;
		if (strstr(line, "\\-\\-base"))
			for (size_t i = 0; i < 4; i++)
				seen[i] = seen[i] || !strcmp(cur, cmds[i]);
	}
	fclose(f);
	for (size_t i = 0; i < 4; i++)
		cr_assert(seen[i], "the man page's %s section does not mention --base", cmds[i]);
	free(man);
}

/* Columns a line takes on a terminal (UTF-8 continuation bytes take none). */
static size_t
columns(const char *s, size_t n)
{
	size_t w = 0;
	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xC0) != 0x80;
	return w;
}

Test(adapter, ls_text_aligned)
{
	char *root = ws_tmpdir();
	spec sp = {0};
	llama_qv(&sp, 0, 2, 16, 16);
	add(&sp, "t base_model.model.model.norm.weight BF16 4096\n");
	char *dir = peft_dir(root, "a", PEFT_HEAD "\"r\": 16, \"target_modules\": [\"q_proj\", \"v_proj\"]}", &sp);
	ws_run r = ws_run_cli("ls", dir, NULL);
	cr_assert_eq(r.status, 0);
	cr_assert(ws_contains(r.out, "lora_a \xe2\x86\x92 attn_q"), "%s", r.out);
	/* the layer column ends at the same column on every line */
	size_t want = 0;
	int lines = 0;
	for (char *p = r.out, *nl; (nl = strchr(p, '\n')); p = nl + 1, lines++) {
		/* name, two spaces, role, two spaces, layer: the third field */
		char *q = p;
		for (int field = 0; field < 2; field++) {
			q = strstr(q, "  ");
			cr_assert(q && q < nl);
			while (*q == ' ')
				q++;
		}
		char *end = q;
		while (*end != ' ')
			end++;
		size_t col = columns(p, (size_t)(end - p));
		if (!lines)
			want = col;
		cr_assert_eq(col, want, "line %d misaligned:\n%s", lines, r.out);
	}
	cr_assert_gt(lines, 4);
	ws_run_free(&r);
	free(dir);
	free(sp.s);
	ws_rmtree(root);
	free(root);
}

/* ==== real adapter configs of other bases and shapes ==== */

typedef struct rmod {
	const char *path;  /* "%d" the layer, then "%d" the expert when experts */
	unsigned in, out, r;
	int lo, hi;        /* layers [lo, hi); hi 0: every layer */
	int experts;
} rmod;

/* Factors (and DoRA magnitudes) for each module; skip_layer / skip_path
 * leave one module out. */
static void
real_spec(spec *sp, const rmod *m, size_t n, int layers, bool dora, int skip_layer, const char *skip_path)
{
	char path[192], full[256];
	for (size_t k = 0; k < n; k++)
		for (int l = m[k].lo; l < (m[k].hi ? m[k].hi : layers); l++)
			for (int e = 0; e < (m[k].experts ? m[k].experts : 1); e++) {
				if (l == skip_layer && skip_path == m[k].path && e == 0)
					continue;
				/* the path's "%d"s by hand: -Wformat-nonliteral */
				size_t o = 0;
				int nth = 0;
				for (const char *c = m[k].path; *c && o + 12 < sizeof path; c++) {
					if (c[0] == '%' && c[1] == 'd') {
						o += (size_t)snprintf(path + o, sizeof path - o, "%d", nth++ ? e : l);
						c++;
					} else {
						path[o++] = *c;
					}
				}
				path[o] = 0;
				snprintf(full, sizeof full, "model.layers.%s", path);
				peft_mod(sp, full, m[k].r, m[k].in, m[k].out);
				if (dora)
					add(sp, "t base_model.model.%s.lora_magnitude_vector BF16 %u\n", full, m[k].out);
			}
}

static const rmod qwen2_all7[] = {
	{"%d.self_attn.q_proj", 896, 896, 16, 0, 0, 0}, {"%d.self_attn.k_proj", 896, 128, 16, 0, 0, 0},
	{"%d.self_attn.v_proj", 896, 128, 16, 0, 0, 0}, {"%d.self_attn.o_proj", 896, 896, 16, 0, 0, 0},
	{"%d.mlp.gate_proj", 896, 4864, 16, 0, 0, 0}, {"%d.mlp.up_proj", 896, 4864, 16, 0, 0, 0},
	{"%d.mlp.down_proj", 4864, 896, 16, 0, 0, 0},
};
static const rmod gemma_attn[] = {
	{"%d.self_attn.q_proj", 3072, 4096, 8, 0, 0, 0}, {"%d.self_attn.k_proj", 3072, 4096, 8, 0, 0, 0},
	{"%d.self_attn.v_proj", 3072, 4096, 8, 0, 0, 0}, {"%d.self_attn.o_proj", 4096, 3072, 8, 0, 0, 0},
};
static const rmod mixtral_experts[] = {
	{"%d.self_attn.q_proj", 4096, 4096, 8, 0, 0, 0}, {"%d.self_attn.k_proj", 4096, 1024, 8, 0, 0, 0},
	{"%d.self_attn.v_proj", 4096, 1024, 8, 0, 0, 0}, {"%d.self_attn.o_proj", 4096, 4096, 8, 0, 0, 0},
	{"%d.block_sparse_moe.experts.%d.w1", 4096, 14336, 8, 0, 0, 8},
	{"%d.block_sparse_moe.experts.%d.w2", 14336, 4096, 8, 0, 0, 8},
	{"%d.block_sparse_moe.experts.%d.w3", 4096, 14336, 8, 0, 0, 8},
};
static const rmod mistral_dora_pattern[] = {
	{"%d.self_attn.q_proj", 4096, 4096, 16, 0, 0, 0}, {"%d.self_attn.k_proj", 4096, 1024, 16, 0, 0, 0},
	{"%d.self_attn.v_proj", 4096, 1024, 8, 0, 0, 0}, {"%d.self_attn.o_proj", 4096, 4096, 16, 0, 0, 0},
	{"%d.mlp.gate_proj", 4096, 14336, 16, 0, 0, 0}, {"%d.mlp.up_proj", 4096, 14336, 16, 0, 0, 0},
	{"%d.mlp.down_proj", 14336, 4096, 32, 0, 4, 0}, {"%d.mlp.down_proj", 14336, 4096, 16, 4, 32, 0},
};

static const struct real_case {
	const char *adapter, *base;
	const rmod *mods;
	size_t n;
	int layers;
	bool dora;
	double total, factors;
} real_cases[] = {
	{"peft-lora-qwen2-0.5b-r16-all7.json", "qwen2-0.5b-config.json", qwen2_all7, 7, 24, false, 8798208,
	 8798208},
	{"peft-lora-gemma-7b-r8-attn.json", "gemma-7b-config.json", gemma_attn, 4, 28, false, 6422528, 6422528},
	{"peft-lora-mixtral-8x7b-r8-experts.json", "mixtral-8x7b-config.json", mixtral_experts, 7, 32, false,
	 120061952, 120061952},
	{"peft-dora-mistral-7b-r16-rank-pattern.json", "mistral-7b-config.json", mistral_dora_pattern, 8, 32, true,
	 43188224, 41811968},
};

Test(adapter, real_configs_other_bases, .timeout = 120)
{
	char *root = ws_tmpdir();
	for (size_t i = 0; i < sizeof real_cases / sizeof real_cases[0]; i++) {
		const struct real_case *rc = &real_cases[i];
		char *base = config(rc->base), sub[16];
		spec sp = {0};
		real_spec(&sp, rc->mods, rc->n, rc->layers, rc->dora, -1, NULL);
		snprintf(sub, sizeof sub, "r%zu", i);
		char *dir = adapter_dir(root, sub, rc->adapter, "adapter_model.safetensors", &sp);
		cJSON *j = run_json(0, "check", dir, base);
		cr_assert_eq(num_at(j, "params", "total"), rc->total, "%s", rc->adapter);
		cr_assert_eq(num_at(adapter_of(j), "expected", "total"), rc->total, "%s", rc->adapter);
		cr_assert_eq(num_at(adapter_of(j), "expected", "factors"), rc->factors, "%s", rc->adapter);
		cr_assert(!has_finding(j, "warning", NULL), "%s: a warning", rc->adapter);
		cJSON_Delete(j);
		char *cfg = ws_join(dir, "adapter_config.json");
		j = run_json(0, "formula", cfg, base);
		cr_assert_eq(num_at(j, "formula", "total"), rc->total, "formula %s", rc->adapter);
		cJSON_Delete(j);
		free(cfg);
		no_other_roles(dir);
		free(dir);
		free(sp.s);

		/* one module of layer 5 left out: named */
		sp = (spec){0};
		real_spec(&sp, rc->mods, rc->n, rc->layers, rc->dora, 5, rc->mods[rc->n - 1].path);
		snprintf(sub, sizeof sub, "m%zu", i);
		dir = adapter_dir(root, sub, rc->adapter, "adapter_model.safetensors", &sp);
		j = run_json(1, "check", dir, base);
		cr_assert(has_mismatch(j, 5), "%s: the missing module of layer 5 is not named", rc->adapter);
		cJSON_Delete(j);
		free(dir);
		free(sp.s);
		free(base);
	}
	ws_rmtree(root);
	free(root);
}

/* mlx-lm on a MoE base: its default keys take the router and the stacked
 * experts (LoRASwitchLinear: A [E, r, in], B [E, out, r]) too. */
Test(adapter, mlx_moe_switch_experts)
{
	char *root = ws_tmpdir(), *base = config("mixtral-8x7b-config.json");
	for (int bad = 0; bad < 2; bad++) {
		char sub[8];
		snprintf(sub, sizeof sub, "x%d", bad);
		char *dir = ws_join(root, sub);
		char cmd[1024];
		snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
		cr_assert_eq(system(cmd), 0);
		const char *cfg = "{\"fine_tune_type\": \"lora\", \"num_layers\": 1, "
				  "\"lora_parameters\": {\"rank\": 8, \"scale\": 20.0, \"dropout\": 0.0}}";
		free(ws_write_file(dir, "adapter_config.json", cfg, strlen(cfg)));
		spec sp = {0};
		static const struct { const char *m; unsigned in, out; } dense[] = {
			{"self_attn.q_proj", 4096, 4096}, {"self_attn.k_proj", 4096, 1024},
			{"self_attn.v_proj", 4096, 1024}, {"self_attn.o_proj", 4096, 4096},
			{"block_sparse_moe.gate", 4096, 8},
		};
		for (int k = 0; k < 5; k++)
			add(&sp, "t model.layers.31.%s.lora_a F32 %u 8\nt model.layers.31.%s.lora_b F32 8 %u\n",
			    dense[k].m, dense[k].in, dense[k].m, dense[k].out);
		static const struct { const char *m; unsigned in, out; } sw[] = {
			{"gate_proj", 4096, 14336}, {"up_proj", 4096, 14336}, {"down_proj", 14336, 4096}};
		for (int k = 0; k < 3; k++) {
			unsigned e = bad && k == 1 ? 4 : 8;
			add(&sp, "t model.layers.31.block_sparse_moe.switch_mlp.%s.lora_a F32 %u 8 %u\n", sw[k].m, e,
			    sw[k].in);
			add(&sp, "t model.layers.31.block_sparse_moe.switch_mlp.%s.lora_b F32 %u %u 8\n", sw[k].m, e,
			    sw[k].out);
		}
		char *out = ws_join(dir, "adapters.safetensors");
		mktensors(dir, out, sp.s);
		cJSON *j = run_json(bad, "check", dir, base);
		cr_assert_eq(num_at(adapter_of(j), "expected", "total"),
			     8.0 * (8192 + 5120 + 5120 + 8192 + 4104) + 3 * 8 * 8.0 * 18432);
		if (bad)
			cr_assert(has_mismatch(j, 31));
		else
			cr_assert_eq(num_at(j, "params", "total"), 3784768.0);
		cJSON_Delete(j);
		if (!bad)
			no_other_roles(dir);
		free(out);
		free(dir);
		free(sp.s);
	}
	free(base);
	ws_rmtree(root);
	free(root);
}

/* A decoder classifier's score (no template: its width is the labels'):
 * SEQ_CLS saves it, and the adapter's copy is counted as stored. */
Test(adapter, seq_cls_decoder_score)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-seqcls-config.json");
	spec sp = {0};
	llama_qv(&sp, 0, 32, 16, 16);
	add(&sp, "t base_model.model.score.weight BF16 2 4096\n");
	char *dir = peft_dir(root, "s", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, \"task_type\": \"SEQ_CLS\", "
			       "\"target_modules\": [\"q_proj\", \"v_proj\"]}", &sp);
	cJSON *j = run_json(0, "check", dir, base);
	cr_assert_eq(num_at(j, "params", "total"), 6815744.0 + 8192);
	cr_assert_eq(num_at(adapter_of(j), "expected", "saved_modules"), 8192.0);
	cJSON_Delete(j);
	free(dir);
	/* a CAUSAL_LM config does not explain the copy */
	dir = peft_dir(root, "c", PEFT_HEAD "\"r\": 16, \"lora_alpha\": 32, \"task_type\": \"CAUSAL_LM\", "
			       "\"target_modules\": [\"q_proj\", \"v_proj\"]}", &sp);
	j = run_json(1, "check", dir, base);
	cr_assert(has_finding(j, "error", "its config and the base imply 6,815,744"));
	cJSON_Delete(j);
	free(dir);
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* Malformed configs: an input error naming the key, never a crash. */
Test(adapter, malformed_configs)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	static const char *const bad[] = {
		"\"layers_to_transform\": [-1]", "\"layers_to_transform\": [99999999]",
		"\"layers_to_transform\": \"all\"", "\"layer_replication\": [[5, 2]]",
		"\"layer_replication\": [[0, 99]]", "\"layer_replication\": 3", "\"rank_pattern\": []",
		"\"alpha_pattern\": 2", "\"trainable_token_indices\": \"x\"", "\"exclude_modules\": 7",
		"\"layers_to_transform\": [1], \"layers_pattern\": 5", "\"r\": -4", "\"r\": 1e300",
		"\"target_modules\": 12", "\"modules_to_save\": \"lm_head\"",
	};
	static const char *const odd[] = {
		"\"target_modules\": \"((\"", "\"rank_pattern\": {\"[\": 4}", "\"rank_pattern\": {\"q_proj\": \"x\"}",
		"\"trainable_token_indices\": {\"embed_tokens\": 3}", "\"layers_pattern\": [\"layers\", 4]",
		"\"layer_replication\": [[0, 32], [0, 32], [0, 32]]",
	};
	spec sp = {0};
	llama_qv(&sp, 0, 32, 16, 16);
	for (size_t k = 0; k < sizeof bad / sizeof bad[0] + sizeof odd / sizeof odd[0]; k++) {
		bool is_bad = k < sizeof bad / sizeof bad[0];
		const char *kv = is_bad ? bad[k] : odd[k - sizeof bad / sizeof bad[0]];
		char cfg[512], sub[16];
		/* cJSON reads a key given twice as its first: r and the
		 * targets only when the case does not give them */
		snprintf(cfg, sizeof cfg, "{\"peft_type\": \"LORA\", %s%s%s}", kv,
			 strncmp(kv, "\"r\"", 3) ? ", \"r\": 16" : "",
			 strncmp(kv, "\"target_modules\"", 16) ? ", \"target_modules\": [\"q_proj\", \"v_proj\"]" : "");
		snprintf(sub, sizeof sub, "k%zu", k);
		char *dir = peft_dir(root, sub, cfg, &sp);
		ws_run r = ws_run_cli("check", dir, "--base", base, NULL);
		cr_assert_lt(r.status, 4, "%s: exit %d\n%s", kv, r.status, r.err);
		if (is_bad)
			cr_assert_eq(r.status, 3, "%s: exit %d\n%s%s", kv, r.status, r.out, r.err);
		ws_run_free(&r);
		free(dir);
	}
	free(sp.s);
	free(base);
	ws_rmtree(root);
	free(root);
}

/* target_modules absent: PEFT's default per type (the attention's query
 * and value); all-linear: every linear module of the blocks, no head. */
Test(adapter, default_and_all_linear_targets)
{
	char *root = ws_tmpdir(), *base = config("llama3-8b-config.json");
	static const struct { const char *targets; double want; } cases[] = {
		{"", 6815744}, {", \"target_modules\": null", 6815744},
		{", \"target_modules\": \"all-linear\"", 41943040},
	};
	for (size_t k = 0; k < 3; k++) {
		char cfg[256];
		snprintf(cfg, sizeof cfg, "{\"peft_type\": \"LORA\", \"r\": 16, \"lora_alpha\": 32%s}", cases[k].targets);
		char *p = ws_write_file(root, "adapter_config.json", cfg, strlen(cfg));
		cJSON *j = run_json(0, "formula", p, base);
		cr_assert_eq(num_at(j, "formula", "total"), cases[k].want, "%s", cfg);
		cJSON_Delete(j);
		free(p);
	}
	free(base);
	ws_rmtree(root);
	free(root);
}
