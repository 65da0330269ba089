/*
 * test_towers.c - components with their own formula: CLIP and SigLIP
 * towers alone and as dual encoders, a LLaVA wrapper (text decoder, CLIP
 * tower, projector).  Checkpoints are written full size and sparse by
 * tools/mkmodel from the library's reading of each config; the expected
 * numbers are the released models' (configs in ../shared/realdata) or
 * derived by hand in the comments from the config facts written here.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

/* mkmodel DIR/model CONFIG [opt]: the model's path (malloc'd). */
static char *
mkmodel2(const char *dir, const char *cfg, const char *opt, const char *val)
{
	char *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, (char *)cfg, (char *)opt, (char *)val, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	return model;
}

static char *
mkmodel(const char *dir, const char *cfg, const char *opt)
{
	return mkmodel2(dir, cfg, opt, NULL);
}

static cJSON *
check_json(const char *model, int want)
{
	ws_run r = ws_run_cli("check", "--json", model, NULL);
	cr_assert_eq(r.status, want, "exit %d: %s%s", r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	ws_run_free(&r);
	return j;
}

static const cJSON *
at(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	cr_assert(v, "no key '%s'", k);
	return v;
}

/* Exact integers are printed raw (or as small numbers); read one back. */
static unsigned long long
u64(const cJSON *v)
{
	if (cJSON_IsRaw(v))
		return strtoull(v->valuestring, NULL, 10);
	cr_assert(cJSON_IsNumber(v));
	return (unsigned long long)v->valuedouble;
}

struct part { const char *name; unsigned long long n; };

/* params = formula = total; each component's formula equals its count. */
static void
expect_components(const cJSON *j, unsigned long long total, const struct part *p, int n)
{
	cr_expect_eq(u64(at(at(j, "params"), "total")), total);
	cr_expect_eq(u64(at(at(j, "formula"), "total")), total);
	const cJSON *fbc = at(at(j, "formula"), "by_component"), *pbc = at(at(j, "params"), "by_component");
	for (int i = 0; i < n; i++) {
		cr_expect_eq(u64(at(fbc, p[i].name)), p[i].n, "formula of %s", p[i].name);
		cr_expect_eq(u64(at(pbc, p[i].name)), p[i].n, "params of %s", p[i].name);
	}
	cr_expect_eq(cJSON_GetArraySize(at(j, "components")), n);
}

/* Every tensor of ls --json has a role other than `other`. */
static void
expect_roles(const char *model)
{
	ws_run r = ws_run_cli("ls", "--json", model, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *j = cJSON_Parse(r.out), *t;
	cr_assert(j);
	cJSON_ArrayForEach(t, at(j, "tensors")) {
		const cJSON *role = at(t, "role");
		cr_expect(strcmp(role->valuestring, "other") != 0, "%s has no role",
			  at(t, "name")->valuestring);
	}
	cJSON_Delete(j);
	ws_run_free(&r);
}

static char *
shared_config(const char *name)
{
	char rel[256];
	snprintf(rel, sizeof rel, "configs/%s.json", name);
	char *p = ws_shared_path(rel);
	FILE *f = p ? fopen(p, "rb") : NULL;
	if (f)
		fclose(f);
	if (!f) {
		free(p);
		return NULL;
	}
	return p;
}

Test(towers, clip_dual_encoder)
{
	char *cfg = shared_config("openai__clip-vit-large-patch14");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *model = mkmodel(dir, cfg, "--position-ids");
	cJSON *j = check_json(model, 0);
	/* the text tower with its projection and the logit scale, the
	 * vision tower with its own; two position_ids buffers apart */
	static const struct part p[] = {{"text", 123650305ull}, {"vision_model", 303966208ull}};
	expect_components(j, 427616513ull, p, 2);
	cr_expect_eq(u64(at(at(j, "buffers"), "total")), 77 + 257);
	cr_expect_eq(cJSON_GetArraySize(at(j, "findings")), 0);
	cr_expect_eq(u64(at(at(at(j, "formula"), "by_role"), "logit_scale")), 1);
	cJSON_Delete(j);
	expect_roles(model);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

Test(towers, clip_text_towers_alone)
{
	static const struct { const char *cfg; unsigned long long n; } t[] = {
		/* CLIPTextModel, CLIPTextModelWithProjection */
		{"stabilityai__stable-diffusion-xl-base-1.0__text_encoder", 123060480ull},
		{"stabilityai__stable-diffusion-xl-base-1.0__text_encoder_2", 694659840ull},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		char *cfg = shared_config(t[i].cfg);
		if (!cfg)
			cr_skip_test("../shared is absent");
		char *dir = ws_tmpdir(), *model = mkmodel(dir, cfg, NULL);
		cJSON *j = check_json(model, 0);
		static const struct part one[] = {{"text", 0}};
		struct part p = one[0];
		p.n = t[i].n;
		expect_components(j, t[i].n, &p, 1);
		cr_expect_eq(cJSON_GetArraySize(at(j, "findings")), 0);
		cJSON_Delete(j);
		expect_roles(model);
		ws_rmtree(dir);
		free(model);
		free(dir);
		free(cfg);
	}
}

/* A SigLIP dual encoder at siglip-base-patch16-224's sizes, by hand:
 * layer = 4 (768² + 768) + 2 · 768 · 3072 + 3072 + 768 + 4 · 768 = 7,087,872;
 * text = 32000 · 768 + 64 · 768 + 12 layers + 1,536 (norm) + 590,592 (head)
 *      = 110,271,744 (+ logit scale and bias, 2);
 * vision = 590,592 (patches, bias) + 196 · 768 + 12 layers + 1,536
 *      + 7,087,104 (attention-pooling head) = 92,884,224. */
static const char siglip_cfg[] =
	"{\"architectures\": [\"SiglipModel\"], \"model_type\": \"siglip\","
	" \"text_config\": {\"model_type\": \"siglip_text_model\"},"
	" \"vision_config\": {\"model_type\": \"siglip_vision_model\"}}";

Test(towers, siglip_dual_encoder_from_class_defaults)
{
	char *dir = ws_tmpdir();
	char *cfg = ws_write_file(dir, "siglip.json", siglip_cfg, strlen(siglip_cfg));
	char *model = mkmodel(dir, cfg, NULL);
	cJSON *j = check_json(model, 0);
	static const struct part p[] = {{"text", 110271746ull}, {"vision_model", 92884224ull}};
	expect_components(j, 203155970ull, p, 2);
	cr_expect_eq(u64(at(at(at(j, "formula"), "by_role"), "attn_pool")), 7087104ull);
	cJSON_Delete(j);
	expect_roles(model);

	/* without the pooling head, as Gemma 3's tower is configured */
	const char *nohead = "{\"architectures\": [\"SiglipModel\"], \"model_type\": \"siglip\","
			     " \"vision_config\": {\"vision_use_head\": false}}";
	char *cfg2 = ws_write_file(dir, "nohead.json", nohead, strlen(nohead));
	ws_run r = ws_run_cli("formula", "--json", cfg2, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *f = cJSON_Parse(r.out);
	cr_expect_eq(u64(at(at(at(f, "formula"), "by_component"), "vision_model")), 92884224ull - 7087104ull);
	cJSON_Delete(f);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(cfg2);
	free(model);
	free(cfg);
	free(dir);
}

Test(towers, llava_three_components)
{
	char *cfg = shared_config("llava-hf__llava-1.5-7b-hf");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *model = mkmodel(dir, cfg, NULL);
	cJSON *j = check_json(model, 0);
	static const struct part p[] = {
		{"text", 6738939904ull}, {"vision_tower", 303507456ull}, {"multi_modal_projector", 20979712ull},
	};
	expect_components(j, 7063427072ull, p, 3);
	cr_expect_eq(cJSON_GetArraySize(at(j, "findings")), 0);
	/* the text config relies on LlamaConfig's defaults: said so */
	const cJSON *def = at(at(j, "arch"), "defaulted");
	cr_expect_gt(cJSON_GetArraySize(def), 0);
	cJSON_Delete(j);
	expect_roles(model);
	/* the report lists every component with its count and formula */
	char *html = ws_join(dir, "r.html");
	ws_run rr = ws_run_cli("report", model, "-o", html, NULL);
	cr_assert_eq(rr.status, 0, "%s", rr.err);
	ws_run_free(&rr);
	FILE *hf = fopen(html, "rb");
	cr_assert(hf);
	static char page[1 << 20];
	size_t got = fread(page, 1, sizeof page - 1, hf);
	page[got] = '\0';
	fclose(hf);
	cr_expect(ws_contains(page, "vision_tower (vision): 303,507,456 parameters, formula 303,507,456"));
	cr_expect(ws_contains(page, "multi_modal_projector (projector): 20,979,712 parameters"));
	cr_expect(ws_contains(page, "7,063,427,072"));
	/* the role table and the blocks are the main component's, as its
	 * formula is: the tower's blocks are not added to the text model's */
	cr_expect(ws_contains(page, "By role (main component)"));
	cr_expect(!ws_contains(page, "+303,507,456") && !ws_contains(page, "+20,979,712"));
	free(html);
	ws_rmtree(dir);
	free(model);
	free(dir);

	/* a tower layer missing: the layer gap names the vision tower */
	dir = ws_tmpdir();
	model = mkmodel2(dir, cfg, "--plant", "missing-tower-layer");
	j = check_json(model, 1);
	bool named = false;
	const cJSON *fd;
	cJSON_ArrayForEach(fd, at(j, "findings")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(fd, "component");
		if (!strcmp(at(fd, "code")->valuestring, "layer-gap") && cJSON_IsString(c) &&
		    !strcmp(c->valuestring, "vision_tower") && u64(at(fd, "layer")) == 1)
			named = true;
		cr_expect(cJSON_IsString(c) && !strcmp(c->valuestring, "vision_tower"), "%s",
			  at(fd, "message")->valuestring);
	}
	cr_expect(named, "no layer-gap of vision_tower block 1");
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(model);
	free(dir);
	free(cfg);
}

Test(towers, formula_of_a_wrapper_config_lists_its_components)
{
	char *cfg = shared_config("google__gemma-3-4b-it");
	if (!cfg)
		cr_skip_test("../shared is absent");
	ws_run r = ws_run_cli("formula", cfg, NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "component     vision_tower (vision)"), "%s", r.out);
	cr_expect(ws_contains(r.out, "architecture  siglip_vision_model"), "%s", r.out);
	cr_expect(ws_contains(r.out, "from width 1,152 into 2,560"), "%s", r.out);
	cr_expect(ws_contains(r.out, "formula total 4,300,079,472"), "%s", r.out);
	ws_run_free(&r);
	free(cfg);
}

/* A malformed sub-config is the config's error, naming the key. */
Test(towers, malformed_vision_config_is_an_input_error)
{
	char *dir = ws_tmpdir();
	const char *bad = "{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"llama\"},"
			  " \"vision_config\": [1, 2]}";
	char *cfg = ws_write_file(dir, "bad.json", bad, strlen(bad));
	ws_run r = ws_run_cli("formula", cfg, NULL);
	cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.err, "vision_config"), "%s", r.err);
	ws_run_free(&r);
	const char *neg = "{\"model_type\": \"llava\", \"text_config\": {\"model_type\": \"llama\"},"
			  " \"vision_config\": {\"hidden_size\": -4}}";
	char *cfg2 = ws_write_file(dir, "neg.json", neg, strlen(neg));
	r = ws_run_cli("formula", cfg2, NULL);
	cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.err, "hidden_size"), "%s", r.err);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(cfg2);
	free(cfg);
	free(dir);
}

/* llama.cpp's vision file (mmproj) of a wrapper's tower and projector:
 * the formula from its clip.* keys, the block count as the file says. */
static void
expect_mmproj(const char *cfgname, const char *drop, unsigned long long tower, unsigned long long proj)
{
	char *cfg = shared_config(cfgname);
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, cfg, "--format", "mmproj",
			drop ? "--mmproj-drop" : NULL, (char *)drop, NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	char *file = ws_join(model, "mmproj.gguf");
	cJSON *j = check_json(file, 0);
	const struct part p[] = {{"vision", tower}, {"mm", proj}};
	expect_components(j, tower + proj, p, 2);
	cr_expect_eq(cJSON_GetArraySize(at(j, "findings")), 0);
	cr_expect_str_eq(at(at(j, "arch"), "source")->valuestring, "gguf");
	cJSON_Delete(j);
	expect_roles(file);
	ws_rmtree(dir);
	free(file);
	free(model);
	free(dir);
	free(cfg);
}

Test(towers, mmproj_gguf_of_a_siglip_tower)
{
	/* Gemma 3's tower and projector, as the safetensors count them */
	expect_mmproj("google__gemma-3-4b-it", NULL, 416866032ull, 2950272ull);
}

Test(towers, mmproj_gguf_with_a_block_dropped)
{
	/* block_count one less than the source tower: one 15,239,504-
	 * parameter block less, as the file's keys say */
	expect_mmproj("google__gemma-3-4b-it", "1", 416866032ull - 15239504ull, 2950272ull);
}

Test(towers, mmproj_gguf_of_a_clip_tower)
{
	/* LLaVA-1.5's: class token and pre-norm kept, the MLP projector */
	expect_mmproj("llava-hf__llava-1.5-7b-hf", NULL, 303507456ull, 20979712ull);
}

/* A folder of GGUF models and a vision file: the vision file joins the
 * model whose width its projector outputs (one model of three
 * components, as the safetensors count it); a model of another width
 * stays alone, and so would a vision file that fits none. */
Test(towers, mmproj_joins_its_text_model_in_a_folder)
{
	char *cfg = shared_config("google__gemma-3-4b-it");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *f = ws_join(dir, "f"), *t = ws_join(dir, "t"), *v = ws_join(dir, "v");
	char *o = ws_join(dir, "o");
	char *a1[] = {getenv("WS_MKMODEL"), t, cfg, "--format", "gguf", NULL};
	char *a2[] = {getenv("WS_MKMODEL"), v, cfg, "--format", "mmproj", NULL};
	const char *small = "{\"model_type\": \"llama\", \"hidden_size\": 64, \"intermediate_size\": 128,"
			    " \"num_hidden_layers\": 2, \"num_attention_heads\": 4, \"vocab_size\": 256}";
	char *scfg = ws_write_file(dir, "small.json", small, strlen(small));
	char *a3[] = {getenv("WS_MKMODEL"), o, scfg, "--format", "gguf", NULL};
	char *const *runs[] = {a1, a2, a3};
	for (size_t i = 0; i < 3; i++) {
		ws_run r = ws_run_argv(runs[i]);
		cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
		ws_run_free(&r);
	}
	cr_assert_eq(mkdir(f, 0755), 0);
	char *src[] = {ws_join(t, "model.gguf"), ws_join(v, "mmproj.gguf"), ws_join(o, "model.gguf")};
	const char *dst[] = {"gemma-3-4b-it-BF16.gguf", "mmproj-BF16.gguf", "other-F16.gguf"};
	for (size_t i = 0; i < 3; i++) {
		char *d = ws_join(f, dst[i]);
		cr_assert_eq(rename(src[i], d), 0);
		free(d);
		free(src[i]);
	}
	ws_run r = ws_run_cli("check", "--json", f, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	/* one line per model: the joined one and the other */
	int lines = 0, joined = 0;
	for (char *line = strtok(r.out, "\n"); line; line = strtok(NULL, "\n")) {
		cJSON *j = cJSON_Parse(line);
		cr_assert(j, "%s", line);
		lines++;
		if (cJSON_GetArraySize(at(j, "components")) == 3) {
			joined++;
			static const struct part p[] = {
				{"text", 3880263168ull}, {"v", 416866032ull}, {"mm", 2950272ull},
			};
			expect_components(j, 4300079472ull, p, 3);
			cr_expect_eq(cJSON_GetArraySize(at(j, "files")), 2);
		}
		cJSON_Delete(j);
	}
	cr_expect_eq(lines, 2);
	cr_expect_eq(joined, 1);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(scfg);
	free(o);
	free(v);
	free(t);
	free(f);
	free(dir);
	free(cfg);
}

/* A vision file whose keys contradict themselves breaks no GGUF rule,
 * but no loader can use it: a metadata-mismatch naming the key (exit 1),
 * as for a text model's unusable architecture keys. */
Test(towers, mmproj_gguf_with_a_bad_patch_is_an_input_error)
{
	char *cfg = shared_config("google__gemma-3-4b-it");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, cfg, "--format", "mmproj", "--meta", "patch_size=0", NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	char *file = ws_join(model, "mmproj.gguf");
	r = ws_run_cli("check", file, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.out, "metadata-mismatch") && ws_contains(r.out, "clip.vision.patch_size"), "%s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(file);
	free(model);
	free(dir);
	free(cfg);
}
