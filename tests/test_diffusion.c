/* test_diffusion.c - diffusers networks through the catalogue (UNet, VAE,
 * FLUX and SD3 transformers) from released configs, full-size sparse
 * checkpoints with the released tensor names (mkmodel), and a diffusers
 * folder read as one model of components, with and without fp16
 * variants beside every weight file. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ws/error.h"
#include "ws/model.h"
#include "ws/formula.h"
#include "testutil.h"

#define SDXL "configs/stabilityai__stable-diffusion-xl-base-1.0__"
#define SDXL_UNET 2567463684ull
#define SDXL_VAE 83653863ull
#define SDXL_TE 123060480ull
#define SDXL_TE2 694659840ull
#define SDXL_ALL 3468837867ull
#define FLUX_DEV 11901408320ull

static uint64_t
json_u64(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	cr_assert(cJSON_IsNumber(x), "%s.%s is missing", a, b ? b : "");
	return (uint64_t)x->valuedouble;
}

static uint64_t
total_of_file(const char *path)
{
	cJSON *cfg = ws_load_json(path);
	cr_assert(cfg, "cannot read %s", path);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	uint64_t t = f.total;
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	return t;
}

static char *
shared_or_skip(const char *rel)
{
	char *p = ws_shared_path(rel);
	struct stat st;
	if (!p || stat(p, &st) != 0)
		cr_skip_test("../shared is absent");
	return p;
}

static void
mkmodel(const char *dir, const char *config, const char *o1, const char *o2)
{
	char *argv[] = {getenv("WS_MKMODEL"), (char *)dir, (char *)config, (char *)o1, o1 ? (char *)o2 : NULL, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s: %s", config, r.err);
	ws_run_free(&r);
}

/* check --json: exit `status`, params and formula totals; the finding
 * codes comma-separated into codes. The caller deletes the document. */
static cJSON *
check_json(const char *model, int status, uint64_t total, char *codes, size_t len)
{
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, status, "%s: exit %d: %s%s", model, r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s: not JSON: %s", model, r.out);
	if (total) {
		cr_expect_eq(json_u64(j, "params", "total"), total, "%s: params %llu", model,
			     (unsigned long long)json_u64(j, "params", "total"));
		cr_expect_eq(json_u64(j, "formula", "total"), total, "%s: formula %llu", model,
			     (unsigned long long)json_u64(j, "formula", "total"));
	}
	codes[0] = '\0';
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "code");
		size_t n = strlen(codes);
		snprintf(codes + n, len - n, "%s%s", n ? "," : "", cJSON_IsString(c) ? c->valuestring : "?");
	}
	ws_run_free(&r);
	return j;
}

/* Every tensor of model has a role other than `other`. */
static void
expect_no_other_role(const char *model)
{
	ws_run r = ws_run_cli("ls", model, "--role", "other", "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\"tensors\":[]"), "tensors without a role: %s", r.out);
	ws_run_free(&r);
}

/* The component named name in a check document. */
static const cJSON *
component(const cJSON *j, const char *name)
{
	const cJSON *c;
	cJSON_ArrayForEach(c, cJSON_GetObjectItemCaseSensitive(j, "components")) {
		const cJSON *n = cJSON_GetObjectItemCaseSensitive(c, "name");
		if (cJSON_IsString(n) && !strcmp(n->valuestring, name))
			return c;
	}
	return NULL;
}

/* ==== formulas from released configs ==== */

Test(diffusion, sdxl_and_flux_real_configs)
{
	static const struct {
		const char *file;
		uint64_t total;
	} real[] = {
		{SDXL "unet.json", SDXL_UNET},
		{SDXL "vae.json", SDXL_VAE},
		{"configs/black-forest-labs__FLUX.1-dev__transformer.json", FLUX_DEV},
	};
	for (size_t i = 0; i < sizeof real / sizeof real[0]; i++) {
		char *p = shared_or_skip(real[i].file);
		uint64_t t = total_of_file(p);
		cr_expect_eq(t, real[i].total, "%s: %llu, expected %llu", real[i].file, (unsigned long long)t,
			     (unsigned long long)real[i].total);
		free(p);
	}
}

Test(diffusion, other_released_configs)
{
	static const struct {
		const char *file;
		uint64_t total;
	} rel[] = {
		/* conv projections, one cross-attention width, four levels */
		{"diffusion/runwayml__stable-diffusion-v1-5__unet.json", 859520964ull},
		{"diffusion/stabilityai__stable-diffusion-2-1__unet.json", 865910724ull},
		/* FLUX without the guidance embedder */
		{"diffusion/black-forest-labs__FLUX.1-schnell__transformer.json", 11891178560ull},
		/* MMDiT: the last block's context stream ends in its attention */
		{"diffusion/stabilityai__stable-diffusion-3-medium-diffusers__transformer.json", 2028328000ull},
	};
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		char *p = ws_testdata_path(rel[i].file);
		uint64_t t = total_of_file(p);
		cr_expect_eq(t, rel[i].total, "%s: %llu, expected %llu", rel[i].file, (unsigned long long)t,
			     (unsigned long long)rel[i].total);
		free(p);
	}
}

Test(diffusion, vae_switches)
{
	/* without the quant convolutions and the mid-block attention */
	cJSON *cfg = cJSON_Parse("{\"_class_name\": \"AutoencoderKL\", \"block_out_channels\": [128, 256, 512, 512],"
				 " \"down_block_types\": [\"DownEncoderBlock2D\", \"DownEncoderBlock2D\","
				 " \"DownEncoderBlock2D\", \"DownEncoderBlock2D\"], \"up_block_types\":"
				 " [\"UpDecoderBlock2D\", \"UpDecoderBlock2D\", \"UpDecoderBlock2D\","
				 " \"UpDecoderBlock2D\"], \"latent_channels\": 4, \"layers_per_block\": 2,"
				 " \"use_quant_conv\": false, \"use_post_quant_conv\": false,"
				 " \"mid_block_add_attention\": false}");
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	/* quant_conv 8x8+8, post_quant_conv 4x4+4, two attentions of four
	 * 512x512 linears with biases and a group norm */
	uint64_t less = 72 + 20 + 2 * (4 * (512 * 512 + 512) + 2 * 512);
	cr_expect_eq(f.total, SDXL_VAE - less, "%llu", (unsigned long long)f.total);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(diffusion, unknown_layout_says_so)
{
	cJSON *cfg = cJSON_Parse("{\"_class_name\": \"UNet2DConditionModel\", \"block_out_channels\": [32, 64],"
				 " \"down_block_types\": [\"DownBlock2D\", \"AttnDownBlock2D\"],"
				 " \"up_block_types\": [\"UpBlock2D\", \"UpBlock2D\"]}");
	struct ws_arch a;
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_config(cfg, "config.json", &a, &err), 0, "%s", err.message);
	cr_expect(!a.known);
	cr_expect(a.unsupported && strstr(a.unsupported, "block type"), "%s", a.unsupported ? a.unsupported : "");
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	cfg = cJSON_Parse("{\"_class_name\": \"UNet2DConditionModel\", \"block_out_channels\": [-1]}");
	cr_expect_eq(ws_arch_from_config(cfg, "config.json", &a, &err), -1);
	cr_expect_eq(err.code, WS_EXIT_INPUT);
	cJSON_Delete(cfg);
	/* a diffusers class without a layout: named, no formula */
	cfg = cJSON_Parse("{\"_class_name\": \"UNet2DModel\", \"block_out_channels\": [32]}");
	cr_assert_eq(ws_arch_from_config(cfg, "config.json", &a, &err), 0, "%s", err.message);
	cr_expect(!a.known);
	cr_expect_str_eq(a.architecture, "UNet2DModel");
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	/* more blocks than any network has: refused, not allocated */
	cfg = cJSON_Parse("{\"_class_name\": \"FluxTransformer2DModel\", \"num_layers\": 4000,"
			  " \"num_single_layers\": 4000}");
	cr_expect_eq(ws_arch_from_config(cfg, "config.json", &a, &err), -1);
	cr_expect_eq(err.code, WS_EXIT_INPUT);
	cJSON_Delete(cfg);
}

/* ==== sparse checkpoints ==== */

Test(diffusion, sdxl_unet_and_vae_checked)
{
	char *u = shared_or_skip(SDXL "unet.json"), *v = shared_or_skip(SDXL "vae.json");
	char *dir = ws_tmpdir(), *mu = ws_join(dir, "unet"), *mv = ws_join(dir, "vae");
	char codes[512];
	mkmodel(mu, u, "--dtype", "F16");
	mkmodel(mv, v, NULL, NULL);
	cJSON *j = check_json(mu, 0, SDXL_UNET, codes, sizeof codes);
	cr_expect_str_eq(codes, "");
	const cJSON *c = component(j, "unet");
	cr_expect(c && !strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "unet"));
	cJSON_Delete(j);
	cJSON_Delete(check_json(mv, 0, SDXL_VAE, codes, sizeof codes));
	cr_expect_str_eq(codes, "");
	expect_no_other_role(mu);
	expect_no_other_role(mv);
	free(mu);
	free(mv);
	free(u);
	free(v);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, flux_dev_three_shards)
{
	char *cfg = shared_or_skip("configs/black-forest-labs__FLUX.1-dev__transformer.json");
	char *dir = ws_tmpdir(), *m = ws_join(dir, "transformer");
	char codes[512];
	mkmodel(m, cfg, "--shards", "3");
	char *idx = ws_join(m, "diffusion_pytorch_model.safetensors.index.json");
	struct stat st;
	cr_expect_eq(stat(idx, &st), 0, "no index");
	cJSON_Delete(check_json(m, 0, FLUX_DEV, codes, sizeof codes));
	cr_expect_str_eq(codes, "");
	expect_no_other_role(m);
	free(idx);
	free(m);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, sd3_pos_embed_is_a_buffer)
{
	char *cfg = ws_testdata_path("diffusion/stabilityai__stable-diffusion-3.5-medium__transformer.json");
	char *dir = ws_tmpdir(), *m = ws_join(dir, "transformer");
	char codes[512];
	mkmodel(m, cfg, NULL, NULL);
	uint64_t total = total_of_file(cfg);
	cJSON *j = check_json(m, 0, total, codes, sizeof codes);
	cr_expect_str_eq(codes, "");
	/* [1, 384², 1536]: stored, not a parameter */
	cr_expect_eq(json_u64(j, "buffers", "total"), 384ull * 384 * 1536);
	cJSON_Delete(j);
	free(m);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, wrong_config_is_a_shape_mismatch)
{
	/* SD 1.5's UNet checked against SD 2.1's config: text width 768
	 * against 1024, conv projections against linear ones */
	char *c15 = ws_testdata_path("diffusion/runwayml__stable-diffusion-v1-5__unet.json");
	char *c21 = ws_testdata_path("diffusion/stabilityai__stable-diffusion-2-1__unet.json");
	char *dir = ws_tmpdir(), *m = ws_join(dir, "unet"), *mc = ws_join(m, "config.json");
	char codes[2048];
	mkmodel(m, c15, NULL, NULL);
	cJSON_Delete(check_json(m, 0, 859520964ull, codes, sizeof codes));
	cr_expect_str_eq(codes, "");
	cJSON *cfg21 = ws_load_json(c21);
	char *txt = cJSON_Print(cfg21);
	char *w = ws_write_file(m, "config.json", txt, strlen(txt));
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "shape-mismatch") && ws_contains(codes, "count-mismatch"), "%s", codes);
	free(w);
	free(txt);
	cJSON_Delete(cfg21);
	free(mc);
	free(m);
	free(c15);
	free(c21);
	ws_rmtree(dir);
	free(dir);
}

/* ==== a diffusers folder ==== */

static void
copy_sparse(const char *from, const char *to)
{
	char *argv[] = {"/bin/cp", "--sparse=always", (char *)from, (char *)to, NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "cp %s: %s", from, r.err);
	ws_run_free(&r);
}

static void
sdxl_pipeline(bool variants)
{
	static const char *const parts[] = {"unet", "vae", "text_encoder", "text_encoder_2"};
	static const uint64_t totals[] = {SDXL_UNET, SDXL_VAE, SDXL_TE, SDXL_TE2};
	static const char *const kinds[] = {"unet", "vae", "text_encoder", "text_encoder"};
	char *mi = shared_or_skip(SDXL "model_index.json");
	char *dir = ws_tmpdir(), *root = ws_join(dir, "sdxl");
	char codes[512];
	mkdir(root, 0755);
	char *mic = ws_join(root, "model_index.json");
	copy_sparse(mi, mic);
	free(mic);
	for (size_t i = 0; i < 4; i++) {
		char rel[128];
		snprintf(rel, sizeof rel, SDXL "%s.json", parts[i]);
		char *cfg = shared_or_skip(rel), *sub = ws_join(root, parts[i]);
		mkmodel(sub, cfg, "--dtype", "F16");
		if (variants) {
			const char *stem = i < 2 ? "diffusion_pytorch_model" : "model";
			char a[128], b[128];
			snprintf(a, sizeof a, "%s.safetensors", stem);
			snprintf(b, sizeof b, "%s.fp16.safetensors", stem);
			char *pa = ws_join(sub, a), *pb = ws_join(sub, b);
			copy_sparse(pa, pb);
			free(pa);
			free(pb);
		}
		free(cfg);
		free(sub);
	}
	cJSON *j = check_json(root, 0, SDXL_ALL, codes, sizeof codes);
	cr_expect_str_eq(codes, variants ? "variant,variant,variant,variant" : "", "%s", codes);
	for (size_t i = 0; i < 4; i++) {
		const cJSON *c = component(j, parts[i]);
		cr_assert(c, "no component %s", parts[i]);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, kinds[i]);
		cr_expect_eq(json_u64(c, "params", NULL), totals[i], "%s", parts[i]);
		cr_expect_eq(json_u64(c, "formula", NULL), totals[i], "%s", parts[i]);
		const cJSON *bc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "formula"),
								  "by_component");
		cr_expect_eq(json_u64(bc, parts[i], NULL), totals[i], "by_component %s", parts[i]);
	}
	cJSON_Delete(j);
	expect_no_other_role(root);
	free(mi);
	free(root);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, sdxl_as_a_diffusers_folder)
{
	sdxl_pipeline(false);
}

Test(diffusion, sdxl_fp16_variants_not_counted_twice)
{
	sdxl_pipeline(true);
}

/* ==== single files ==== */

Test(diffusion, ldm_single_file_components)
{
	/* an original SDXL file's modules are its components; OpenCLIP's
	 * logit_scale has no place in a text-encoder class */
	static const char spec[] =
		"t model.diffusion_model.input_blocks.0.0.weight F16 320 4 3 3\n"
		"t model.diffusion_model.input_blocks.0.0.bias F16 320\n"
		"t first_stage_model.encoder.conv_in.weight F16 128 3 3 3\n"
		"t conditioner.embedders.0.transformer.text_model.final_layer_norm.weight F16 768\n"
		"t conditioner.embedders.1.model.logit_scale F16\n"
		"t conditioner.embedders.1.model.ln_final.weight F16 1280\n";
	char *dir = ws_tmpdir(), *sp = ws_write_file(dir, "spec", spec, sizeof spec - 1);
	char *out = ws_join(dir, "sd_xl_base.safetensors");
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "%s %s < %s", getenv("WS_MKTENSORS"), out, sp);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	char codes[512];
	cJSON *j = check_json(out, 0, 0, codes, sizeof codes);
	cr_expect(ws_contains(codes, "unloaded-tensor"), "%s", codes);
	static const struct {
		const char *name, *kind;
		uint64_t params;
	} want[] = {
		{"unet", "unet", 320 * 4 * 9 + 320}, {"vae", "vae", 128 * 27},
		{"text_encoder", "text_encoder", 768}, {"text_encoder_2", "text_encoder", 1280},
	};
	for (size_t i = 0; i < 4; i++) {
		const cJSON *c = component(j, want[i].name);
		cr_assert(c, "no component %s", want[i].name);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, want[i].kind);
		cr_expect_eq(json_u64(c, "params", NULL), want[i].params, "%s", want[i].name);
	}
	cJSON_Delete(j);
	free(out);
	free(sp);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, ldm_networks_alone)
{
	/* a UNet or a VAE alone in the original names (mkmodel --single-file
	 * on its diffusers config): inferred from the shapes, the config's
	 * formula; SD 2.1's linear projections and 1024-wide text too */
	static const struct {
		const char *cfg;
		bool shared;
		uint64_t total;
	} nets[] = {
		{"diffusion/runwayml__stable-diffusion-v1-5__unet.json", false, 859520964ull},
		{"diffusion/stabilityai__stable-diffusion-2-1__unet.json", false, 865910724ull},
		{SDXL "vae.json", true, SDXL_VAE},
	};
	for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
		char *cfg = nets[i].shared ? shared_or_skip(nets[i].cfg) : ws_testdata_path(nets[i].cfg);
		char *dir = ws_tmpdir(), *m = ws_join(dir, "net"), *f = ws_join(m, "model.safetensors");
		char codes[512];
		mkmodel(m, cfg, "--single-file", NULL);
		cJSON *j = check_json(f, 0, nets[i].total, codes, sizeof codes);
		cr_expect_str_eq(codes, "", "%s", nets[i].cfg);
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "arch");
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(a, "source")->valuestring, "inferred");
		cJSON_Delete(j);
		expect_no_other_role(f);
		free(f);
		free(m);
		free(cfg);
		ws_rmtree(dir);
		free(dir);
	}
}

Test(diffusion, ldm_names_with_sizes_no_network_has)
{
	/* an untrusted file's shapes: widths that overflow a count, a row
	 * number past any network's, thousands of transformer blocks: no
	 * formula, said so, never exit 3 */
	static const char *const specs[] = {
		"t model.diffusion_model.input_blocks.0.0.weight F16 320 4 3 3\n"
		"t model.diffusion_model.input_blocks.1.0.out_layers.3.weight F16 4294967296 1\n"
		"t model.diffusion_model.input_blocks.2.0.out_layers.3.weight F16 4294967295 1\n"
		"t model.diffusion_model.input_blocks.2.1.transformer_blocks.3000.norm1.weight F16 5\n"
		"t model.diffusion_model.time_embed.0.weight F16 4294967295 1\n",
		"t model.diffusion_model.input_blocks.0.0.weight F16 320 4 3 3\n"
		"t model.diffusion_model.input_blocks.3000.0.out_layers.3.weight F16 5\n",
		"t first_stage_model.encoder.down.0.block.0.conv1.weight F16 3\n"
		"t first_stage_model.encoder.down.0.block.0.conv2.weight F16 4000000000\n"
		"t first_stage_model.encoder.down.15.block.99.conv2.weight F16 3\n",
		/* a text tower of 70,001 blocks, alone and beside a UNet: the
		 * config its class would have is refused, so no formula */
		"t cond_stage_model.transformer.text_model.embeddings.token_embedding.weight F16 49408 768\n"
		"t cond_stage_model.transformer.text_model.encoder.layers.70000.self_attn.q_proj.weight F16 768 768\n",
		"t model.diffusion_model.input_blocks.0.0.weight F16 320 4 3 3\n"
		"t conditioner.embedders.1.model.token_embedding.weight F16 49408 1280\n"
		"t conditioner.embedders.1.model.transformer.resblocks.70000.ln_1.weight F16 1280\n",
	};
	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		char *dir = ws_tmpdir(), *sp = ws_write_file(dir, "spec", specs[i], strlen(specs[i]));
		char *out = ws_join(dir, "sd.safetensors");
		char cmd[4096], codes[512];
		snprintf(cmd, sizeof cmd, "%s %s < %s", getenv("WS_MKTENSORS"), out, sp);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		cJSON *j = check_json(out, 0, 0, codes, sizeof codes);
		cr_expect(ws_contains(codes, "unsupported-architecture"), "spec %zu: %s", i, codes);
		cJSON_Delete(j);
		free(out);
		free(sp);
		ws_rmtree(dir);
		free(dir);
	}
}

Test(diffusion, flux_single_file_inferred)
{
	/* FLUX as Black Forest Labs names it, no config: the layout told by
	 * its names, the widths and block counts by its shapes */
	static const struct {
		const char *cfg;
		bool shared;
		uint64_t total;
	} files[] = {
		{"configs/black-forest-labs__FLUX.1-dev__transformer.json", true, FLUX_DEV},
		{"diffusion/black-forest-labs__FLUX.1-schnell__transformer.json", false, 11891178560ull},
	};
	for (size_t i = 0; i < 2; i++) {
		char *cfg = files[i].shared ? shared_or_skip(files[i].cfg) : ws_testdata_path(files[i].cfg);
		char *dir = ws_tmpdir(), *m = ws_join(dir, "flux"), *f = ws_join(m, "model.safetensors");
		char codes[512];
		mkmodel(m, cfg, "--single-file", NULL);
		cJSON *j = check_json(f, 0, files[i].total, codes, sizeof codes);
		cr_expect_str_eq(codes, "");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "arch");
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(a, "source")->valuestring, "inferred");
		const cJSON *c = component(j, "transformer");
		cr_expect(c && !strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "transformer"));
		cJSON_Delete(j);
		expect_no_other_role(f);
		free(f);
		free(m);
		free(cfg);
		ws_rmtree(dir);
		free(dir);
	}
}

/* A diffusers folder of configs only (each component's config.json):
 * what mkmodel --single-file reads.  configs[i] NULL: skipped. */
static char *
config_folder(const char *dir, const char *const *names, char *const *configs, size_t n)
{
	char *root = ws_join(dir, "configs");
	mkdir(root, 0755);
	for (size_t i = 0; i < n; i++) {
		char *sub = ws_join(root, names[i]), *cfg = ws_join(sub, "config.json");
		mkdir(sub, 0755);
		copy_sparse(configs[i], cfg);
		free(cfg);
		free(sub);
	}
	return root;
}

/* The original file of the configs under root (mkmodel --single-file),
 * checked: exit status, each component's params and formula, its
 * architecture inferred; codes as check_json gives them. */
static void
single_file(const char *root, const char *plant, int status, const char *const *names, const uint64_t *totals,
	    size_t n, char *codes, size_t len, const char *layout)
{
	char *dir = ws_tmpdir(), *m = ws_join(dir, "sd"), *f = ws_join(m, "model.safetensors");
	char *argv[] = {getenv("WS_MKMODEL"), m, (char *)root, "--single-file", plant ? "--plant" : NULL,
			(char *)plant, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	uint64_t all = 0;
	for (size_t i = 0; i < n; i++)
		all += totals[i];
	cJSON *j = check_json(f, status, plant ? 0 : all, codes, len);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "components")), (int)n);
	for (size_t i = 0; i < n && !plant; i++) {
		const cJSON *c = component(j, names[i]);
		cr_assert(c, "no component %s", names[i]);
		cr_expect_eq(json_u64(c, "params", NULL), totals[i], "%s", names[i]);
		cr_expect_eq(json_u64(c, "formula", NULL), totals[i], "%s", names[i]);
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(c, "arch");
		const cJSON *src = cJSON_GetObjectItemCaseSensitive(a, "source");
		cr_expect(cJSON_IsString(src) && !strcmp(src->valuestring, "inferred"), "%s: not inferred", names[i]);
		/* what was read from the shapes, and what no shape tells */
		const cJSON *lay = cJSON_GetObjectItemCaseSensitive(a, "layout");
		if (i == 0 && layout)
			cr_expect(cJSON_IsString(lay) && !strcmp(lay->valuestring, layout), "layout %s",
				  cJSON_IsString(lay) ? lay->valuestring : "absent");
		if (strcmp(names[i], "vae"))
			cr_expect(cJSON_IsString(cJSON_GetObjectItemCaseSensitive(a, "assumed")), "%s", names[i]);
	}
	cJSON_Delete(j);
	if (!plant)
		expect_no_other_role(f);
	free(f);
	free(m);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, sdxl_single_file_as_the_folder)
{
	/* SDXL as one original file: the same component totals as its
	 * diffusers folder, each architecture read from the shapes; OpenCLIP's
	 * logit_scale stored, not counted */
	static const char *const names[] = {"unet", "vae", "text_encoder", "text_encoder_2"};
	static const uint64_t totals[] = {SDXL_UNET, SDXL_VAE, SDXL_TE, SDXL_TE2};
	char *cfg[4];
	for (size_t i = 0; i < 4; i++) {
		char rel[128];
		snprintf(rel, sizeof rel, SDXL "%s.json", names[i]);
		cfg[i] = shared_or_skip(rel);
	}
	char *dir = ws_tmpdir(), *root = config_folder(dir, names, cfg, 4);
	char codes[512];
	cr_assert_eq(totals[0] + totals[1] + totals[2] + totals[3], SDXL_ALL);
	single_file(root, NULL, 0, names, totals, 4, codes, sizeof codes,
		    "levels 320, 640, 1280; resnets 2, 2, 2; transformer depth 0, 2, 10, mid 10; text width 2048; "
		    "linear projections; text_time embedding of 2816");
	cr_expect_str_eq(codes, "unloaded-tensor");
	for (size_t i = 0; i < 4; i++)
		free(cfg[i]);
	free(root);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, sd15_single_file)
{
	/* SD 1.5's layout: one text encoder under cond_stage_model., 1x1
	 * convolution projections in the UNet's transformers, no add
	 * embedding */
	static const char *const names[] = {"unet", "vae", "text_encoder"};
	static const uint64_t totals[] = {859520964ull, SDXL_VAE, SDXL_TE};
	char *cfg[3] = {ws_testdata_path("diffusion/runwayml__stable-diffusion-v1-5__unet.json"),
			shared_or_skip(SDXL "vae.json"), shared_or_skip(SDXL "text_encoder.json")};
	char *dir = ws_tmpdir(), *root = config_folder(dir, names, cfg, 3);
	char codes[512];
	single_file(root, NULL, 0, names, totals, 3, codes, sizeof codes,
		    "levels 320, 640, 1280, 1280; resnets 2, 2, 2, 2; transformer depth 1, 1, 1, 0, mid 1; "
		    "text width 768; 1x1 convolution projections");
	cr_expect_str_eq(codes, "");
	for (size_t i = 0; i < 3; i++)
		free(cfg[i]);
	free(root);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, single_file_of_a_text_encoder_alone)
{
	/* OpenCLIP's names alone (the main and only component): its roles
	 * read as the inferred CLIP text tower's */
	static const char *const names[] = {"text_encoder_2"};
	static const uint64_t totals[] = {SDXL_TE2};
	char *cfg[1] = {shared_or_skip(SDXL "text_encoder_2.json")};
	char *dir = ws_tmpdir(), *root = config_folder(dir, names, cfg, 1);
	char codes[512];
	single_file(root, NULL, 0, names, totals, 1, codes, sizeof codes, NULL);
	cr_expect_str_eq(codes, "unloaded-tensor");
	free(cfg[0]);
	free(root);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, single_file_missing_transformer_block)
{
	/* one transformer block gone from one attention of a level: the
	 * level's depth is its deepest attention's, so the block is missing
	 * and the UNet's count short */
	static const char *const names[] = {"unet", "vae", "text_encoder"};
	static const uint64_t totals[] = {859520964ull, SDXL_VAE, SDXL_TE};
	char *cfg[3] = {shared_or_skip(SDXL "unet.json"), shared_or_skip(SDXL "vae.json"),
			shared_or_skip(SDXL "text_encoder.json")};
	char *dir = ws_tmpdir(), *root = config_folder(dir, names, cfg, 3);
	char codes[4096];
	single_file(root, "missing-block", 1, names, totals, 3, codes, sizeof codes, NULL);
	cr_expect(ws_contains(codes, "missing-tensor"), "%s", codes);
	cr_expect(ws_contains(codes, "count-mismatch"), "%s", codes);
	for (size_t i = 0; i < 3; i++)
		free(cfg[i]);
	free(root);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, flux_under_the_ldm_module)
{
	/* FLUX's BFL names under model.diffusion_model. (as ComfyUI saves
	 * it): the denoiser is told by its names, a transformer */
	char *cfg = ws_testdata_path("diffusion/black-forest-labs__FLUX.1-schnell__transformer.json");
	char *dir = ws_tmpdir(), *m = ws_join(dir, "flux"), *f = ws_join(m, "model.safetensors");
	mkmodel(m, cfg, "--single-file", NULL);
	ws_run r = ws_run_cli("ls", f, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *j = cJSON_Parse(r.out), *t;
	cr_assert(j);
	char *sp = ws_join(dir, "spec"), *out = ws_join(dir, "comfy.safetensors");
	FILE *fp = fopen(sp, "w");
	cr_assert(fp);
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(j, "tensors")) {
		fprintf(fp, "t model.diffusion_model.%s BF16",
			cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring);
		const cJSON *d;
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(t, "shape"))
			fprintf(fp, " %llu", (unsigned long long)d->valuedouble);
		fputc('\n', fp);
	}
	fclose(fp);
	cJSON_Delete(j);
	ws_run_free(&r);
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "%s %s < %s", getenv("WS_MKTENSORS"), out, sp);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	char codes[512];
	j = check_json(out, 0, 11891178560ull, codes, sizeof codes);
	cr_expect_str_eq(codes, "");
	const cJSON *c = component(j, "transformer");
	cr_expect(c && !strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "transformer"));
	cJSON_Delete(j);
	free(sp);
	free(out);
	free(f);
	free(m);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, pipeline_with_a_sharded_transformer)
{
	/* the transformer in three shards and an index, beside a VAE and a
	 * text encoder: each folder's index checked against its own shards;
	 * a model_index entry with a null class or no folder is not read */
	static const char mi[] = "{\"_class_name\": \"FluxPipeline\", \"scheduler\": [\"diffusers\", \"X\"],"
				 " \"text_encoder\": [\"transformers\", \"CLIPTextModel\"],"
				 " \"text_encoder_2\": [null, null], \"tokenizer\": [\"transformers\", \"CLIPTokenizer\"],"
				 " \"vae\": [\"diffusers\", \"AutoencoderKL\"],"
				 " \"transformer\": [\"diffusers\", \"FluxTransformer2DModel\"]}";
	char *ft = shared_or_skip("configs/black-forest-labs__FLUX.1-dev__transformer.json");
	char *vc = shared_or_skip(SDXL "vae.json"), *tc = shared_or_skip(SDXL "text_encoder.json");
	char *dir = ws_tmpdir(), *root = ws_join(dir, "flux");
	char *st = ws_join(root, "transformer"), *sv = ws_join(root, "vae"), *se = ws_join(root, "text_encoder");
	char codes[512];
	mkdir(root, 0755);
	free(ws_write_file(root, "model_index.json", mi, sizeof mi - 1));
	mkmodel(st, ft, "--shards", "3");
	mkmodel(sv, vc, NULL, NULL);
	mkmodel(se, tc, NULL, NULL);
	cJSON *j = check_json(root, 0, FLUX_DEV + SDXL_VAE + SDXL_TE, codes, sizeof codes);
	cr_expect_str_eq(codes, "");
	const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "components"), 0);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(first, "name")->valuestring, "transformer",
			 "the denoiser is the main component");
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "components")), 3);
	cJSON_Delete(j);
	free(st);
	free(sv);
	free(se);
	free(root);
	free(ft);
	free(vc);
	free(tc);
	ws_rmtree(dir);
	free(dir);
}

/* ==== flops per denoising step, per decode, per prompt ==== */

/* flops --json of a network written from config text (mkmodel) at the
 * arguments given; the document's first component. */
static cJSON *
flops_of(const char *cfg_text, const char *a1, const char *a2, const char *a3, const char *a4)
{
	char *dir = ws_tmpdir(), *cf = ws_write_file(dir, "cfg.json", cfg_text, strlen(cfg_text));
	char *m = ws_join(dir, "net");
	mkmodel(m, cf, NULL, NULL);
	ws_run r = ws_run_cli("flops", m, "--json", a1, a2, a3, a4, NULL);
	cr_assert_eq(r.status, 0, "flops: %s%s", r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(m);
	free(cf);
	free(dir);
	return j;
}

static const cJSON *
first_component(const cJSON *j)
{
	const cJSON *c = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "components"), 0);
	cr_assert(c, "no components[]");
	return c;
}

Test(diffusion, flops_small_unet_by_hand)
{
	/* two levels (8, 16 channels), one resnet each, cross-attention on
	 * the second; --size 32 px: latent 4x4 (level 0, 16 positions; no
	 * VAE read: /8), level 1 2x2 (4); 77 text tokens of width 12; time
	 * embedding 4 x 8 = 32.  A weight's MACs = its elements x the
	 * positions or tokens it runs over; an attention's scores and
	 * weighted values 2 x queries x keys x 16. */
	static const char cfg[] =
		"{\"_class_name\": \"UNet2DConditionModel\", \"block_out_channels\": [8, 16],"
		" \"down_block_types\": [\"DownBlock2D\", \"CrossAttnDownBlock2D\"],"
		" \"up_block_types\": [\"CrossAttnUpBlock2D\", \"UpBlock2D\"], \"layers_per_block\": 1,"
		" \"cross_attention_dim\": 12, \"mid_block_type\": null, \"use_linear_projection\": true,"
		" \"attention_head_dim\": 8, \"norm_num_groups\": 4, \"sample_size\": 4}";
	uint64_t own = 8 * 4 * 9 * 16             /* conv_in */
		       + (32 * 8 + 32 * 32)        /* time embedding, once */
		       + 4 * 8 * 9 * 16;           /* conv_out */
	uint64_t down0 = (8 * 8 * 9 * 2) * 16 + 8 * 32   /* resnet, its time projection once */
			 + 8 * 8 * 9 * 4;                /* downsampler, output at level 1 */
	uint64_t scores = 2 * 4 * 4 * 16 + 2 * 4 * 77 * 16;
	uint64_t attn = (16 * 16 * 2) * 4          /* proj_in, proj_out */
			+ (16 * 16 * 4) * 4        /* attn1 q k v o */
			+ (16 * 16 * 2) * 4        /* attn2 q o */
			+ (16 * 12 * 2) * 77       /* attn2 k v over the text */
			+ (128 * 16 + 16 * 64) * 4 /* GEGLU */
			+ scores;
	uint64_t down1 = (16 * 8 * 9 + 16 * 16 * 9 + 16 * 8) * 4 + 16 * 32 + attn;
	/* up level 1 takes the skips 16 and 8: resnets 16+16 -> 16, 16+8 -> 16 */
	uint64_t up0 = (16 * 32 * 9 + 16 * 16 * 9 + 16 * 32) * 4 + 16 * 32 + attn +
		       (16 * 24 * 9 + 16 * 16 * 9 + 16 * 24) * 4 + 16 * 32 + attn +
		       16 * 16 * 9 * 16;           /* upsampler, output at level 0 */
	/* up level 0 takes the skips 8 and 8: 16+8 -> 8, 8+8 -> 8 */
	uint64_t up1 = (8 * 24 * 9 + 8 * 8 * 9 + 8 * 24) * 16 + 8 * 32 +
		       (8 * 16 * 9 + 8 * 8 * 9 + 8 * 16) * 16 + 8 * 32;
	uint64_t total = own + down0 + down1 + up0 + up1;
	cr_assert_eq(total, 389888ull, "the arithmetic above: %llu", (unsigned long long)total);
	cJSON *j = flops_of(cfg, "--size", "32", NULL, NULL);
	const cJSON *c = first_component(j);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(c, "per")->valuestring, "denoising_step");
	cr_expect_eq(json_u64(c, "macs", "total"), total, "%llu", (unsigned long long)json_u64(c, "macs", "total"));
	cr_expect_eq(json_u64(c, "macs", "attention"), 3 * scores);
	cr_expect_eq(json_u64(c, "flops", "total"), 2 * total);
	cr_expect_eq(json_u64(c, "image_tokens", NULL), 16);
	cr_expect_eq(json_u64(c, "text_tokens", NULL), 77);
	/* the native size: sample_size 4 latent x 8 */
	cr_expect_eq(json_u64(j, "size", "height"), 32);
	cJSON_Delete(j);
	j = flops_of(cfg, NULL, NULL, NULL, NULL);
	cr_expect_eq(json_u64(first_component(j), "macs", "total"), total);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "size"),
							  "source")->valuestring, "sample_size");
	cJSON_Delete(j);
}

Test(diffusion, flops_small_flux_by_hand)
{
	/* D = 2 heads x 4 = 8, MLP 32; --size 32: latent 4x4, packed 2x2
	 * into 2x2 = 4 image tokens; --seq 3 text tokens; joint attention
	 * over 7 */
	static const char cfg[] =
		"{\"_class_name\": \"FluxTransformer2DModel\", \"num_layers\": 1, \"num_single_layers\": 1,"
		" \"num_attention_heads\": 2, \"attention_head_dim\": 4, \"in_channels\": 4,"
		" \"joint_attention_dim\": 6, \"pooled_projection_dim\": 5, \"patch_size\": 1}";
	uint64_t own = 8 * 4 * 4             /* x_embedder over the image */
		       + 8 * 6 * 3           /* context_embedder over the text */
		       + 8 * 256 + 8 * 8     /* timestep MLP, once */
		       + 8 * 5 + 8 * 8       /* pooled text MLP, once */
		       + 16 * 8              /* norm_out modulation, once */
		       + 4 * 8 * 4;          /* proj_out over the image */
	uint64_t joint = 2 * 7 * 7 * 8;
	uint64_t dbl = 2 * 48 * 8                 /* two modulations */
		       + (4 * 64 + 2 * 256) * 4   /* image stream: q k v o, MLP */
		       + (4 * 64 + 2 * 256) * 3   /* text stream */
		       + joint;
	uint64_t single = 24 * 8 + (32 * 8 + 3 * 64 + 8 * 40) * 7 + joint;
	uint64_t total = own + dbl + single;
	cr_assert_eq(total, 16024ull, "the arithmetic above: %llu", (unsigned long long)total);
	cJSON *j = flops_of(cfg, "--size", "32", "--seq", "3");
	const cJSON *c = first_component(j);
	cr_expect_eq(json_u64(c, "macs", "total"), total, "%llu", (unsigned long long)json_u64(c, "macs", "total"));
	cr_expect_eq(json_u64(c, "macs", "attention"), 2 * joint);
	cr_expect_eq(json_u64(c, "image_tokens", NULL), 4);
	cJSON_Delete(j);
	/* a size the packing does not divide: a usage error naming the multiple */
	char *dir = ws_tmpdir(), *cf = ws_write_file(dir, "cfg.json", cfg, sizeof cfg - 1), *m = ws_join(dir, "n");
	mkmodel(m, cf, NULL, NULL);
	ws_run r = ws_run_cli("flops", m, "--size", "40", NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(ws_contains(r.err, "multiples of 16"), "%s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("flops", m, "--size", "32x", NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	ws_run_free(&r);
	/* a size whose attention overflows 64 bits: said, a usage error */
	r = ws_run_cli("flops", m, "--size", "1048576", NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	cr_expect(ws_contains(r.err, "overflow"), "%s", r.err);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(m);
	free(cf);
	free(dir);
}

Test(diffusion, flops_small_vae_by_hand)
{
	/* levels of 4 and 8 channels: scale factor 2; --size 4: pixels 4x4
	 * (16), latent 2x2 (4); the mid block's single-head attention of
	 * width 8 over the 4 latent positions */
	static const char cfg[] =
		"{\"_class_name\": \"AutoencoderKL\", \"block_out_channels\": [4, 8], \"latent_channels\": 2,"
		" \"down_block_types\": [\"DownEncoderBlock2D\", \"DownEncoderBlock2D\"],"
		" \"up_block_types\": [\"UpDecoderBlock2D\", \"UpDecoderBlock2D\"], \"layers_per_block\": 1,"
		" \"norm_num_groups\": 2, \"sample_size\": 4}";
	uint64_t mid = 2 * (8 * 8 * 9 * 2) * 4 + 4 * 64 * 4 + 2 * 4 * 4 * 8;
	uint64_t decode = 2 * 2 * 4             /* post_quant_conv */
			  + 8 * 2 * 9 * 4       /* decoder.conv_in */
			  + mid
			  + 2 * (8 * 8 * 9 * 2) * 4 /* up level 1: two resnets */
			  + 8 * 8 * 9 * 16      /* its upsampler, at the pixels */
			  + (4 * 8 * 9 + 4 * 4 * 9 + 4 * 8) * 16 + (4 * 4 * 9 * 2) * 16
			  + 3 * 4 * 9 * 16;     /* decoder.conv_out */
	uint64_t encode = 4 * 3 * 9 * 16 + (4 * 4 * 9 * 2) * 16 + 4 * 4 * 9 * 4 +
			  (8 * 4 * 9 + 8 * 8 * 9 + 8 * 4) * 4 + mid + 4 * 8 * 9 * 4 + 4 * 4 * 4;
	cr_assert_eq(decode, 43280ull, "the arithmetic above: %llu", (unsigned long long)decode);
	cr_assert_eq(encode, 22208ull, "the arithmetic above: %llu", (unsigned long long)encode);
	cJSON *j = flops_of(cfg, NULL, NULL, NULL, NULL);
	const cJSON *c = first_component(j);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(c, "per")->valuestring, "decode");
	cr_expect_eq(json_u64(c, "macs", "total"), decode, "%llu", (unsigned long long)json_u64(c, "macs", "total"));
	cr_expect_eq(json_u64(c, "encode", "macs"), encode, "%llu", (unsigned long long)json_u64(c, "encode", "macs"));
	cr_expect_eq(json_u64(c, "macs", "attention"), 2 * 4 * 4 * 8);
	cr_expect_eq(json_u64(j, "size", "width"), 4, "a VAE's sample_size is in pixels");
	cJSON_Delete(j);
}

Test(diffusion, flops_sdxl_pipeline_and_flux)
{
	/* SDXL base at its native 1024x1024: the UNet per step at 6.76
	 * TFLOPs (published estimates put it near 6.7-7), the VAE per decode,
	 * CLIP-L and OpenCLIP-bigG per prompt of 77 tokens */
	static const char *const parts[] = {"unet", "vae", "text_encoder", "text_encoder_2"};
	char *mi = shared_or_skip(SDXL "model_index.json");
	char *dir = ws_tmpdir(), *root = ws_join(dir, "sdxl");
	mkdir(root, 0755);
	char *mic = ws_join(root, "model_index.json");
	copy_sparse(mi, mic);
	for (size_t i = 0; i < 4; i++) {
		char rel[128];
		snprintf(rel, sizeof rel, SDXL "%s.json", parts[i]);
		char *cfg = shared_or_skip(rel), *sub = ws_join(root, parts[i]);
		mkmodel(sub, cfg, "--dtype", "F16");
		free(cfg);
		free(sub);
	}
	ws_run r = ws_run_cli("flops", root, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j);
	cr_expect_eq(json_u64(j, "size", "height"), 1024);
	cr_expect_eq(json_u64(j, "size", "vae_scale_factor"), 8);
	const cJSON *u = component(j, "unet"), *v = component(j, "vae"), *t = component(j, "text_encoder");
	cr_assert(u && v && t);
	uint64_t um = json_u64(u, "macs", "total");
	cr_expect_eq(um, 3380618199040ull, "%llu", (unsigned long long)um);
	cr_expect(2 * um > 6700000000000ull && 2 * um < 7000000000000ull);
	cr_expect_eq(json_u64(u, "text_tokens", NULL), 77);
	cr_expect_eq(json_u64(u, "grid", "height"), 128);
	cr_expect_eq(json_u64(v, "macs", "total"), 5235196297216ull);
	/* CLIP-L: 12 layers x (4 x 768² + 2 x 768 x 3072) MACs a token, and
	 * 12 x 12 heads x (64 + 64) per pair of the 77 tokens */
	cr_expect_eq(json_u64(t, "macs", "total"), 12ull * (4 * 768 * 768 + 2 * 768 * 3072) * 77 + 12ull * 12 * 128 * 77 * 77);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(t, "per")->valuestring, "prompt");
	cJSON_Delete(j);
	ws_run_free(&r);
	/* --component: the one component, still at the VAE's scale */
	r = ws_run_cli("flops", root, "--json", "--component", "unet", "--size", "512x768", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	j = cJSON_Parse(r.out);
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "components")), 1);
	cr_expect_eq(json_u64(first_component(j), "grid", "width"), 96);
	cJSON_Delete(j);
	ws_run_free(&r);
	/* the text: a line per component, what it runs once for */
	r = ws_run_cli("flops", root, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "unet (unet), per denoising step: 128x128 latent grid") &&
		  ws_contains(r.out, "vae (vae), per decode: 1024x1024 pixels") &&
		  ws_contains(r.out, "text_encoder_2 (text_encoder), per prompt of 77 tokens") &&
		  ws_contains(r.out, "3,380,618,199,040 MACs"), "%s", r.out);
	ws_run_free(&r);
	/* --size of a model that is no diffusion network */
	char *te = ws_join(root, "text_encoder");
	r = ws_run_cli("flops", te, "--size", "512", NULL);
	cr_expect_eq(r.status, 2, "%s", r.err);
	ws_run_free(&r);
	free(te);
	ws_rmtree(dir);
	free(mic);
	free(mi);
	free(root);
	free(dir);

	/* FLUX.1-dev at 1024x1024: 4,096 image tokens and 512 T5 tokens;
	 * 19 double and 38 single blocks of 12 x 3072² MACs per token over
	 * the 4,608, joint attention 2 x 4,608² x 3072 in each; the
	 * embedders: x 64 -> 3072 over the image, context 4096 -> 3072 over
	 * the text, proj_out 3072 -> 64; the time, guidance and pooled MLPs
	 * and the modulations once */
	char *cfg = shared_or_skip("configs/black-forest-labs__FLUX.1-dev__transformer.json");
	dir = ws_tmpdir();
	char *m = ws_join(dir, "transformer");
	mkmodel(m, cfg, NULL, NULL);
	const uint64_t D = 3072, N = 4096 + 512;
	uint64_t once = 2 * (D * 256 + D * D) + D * 768 + D * D   /* time, guidance, pooled */
			+ 19 * 2 * 6 * D * D + 38 * 3 * D * D + 2 * D * D; /* modulations */
	uint64_t flux = 57 * (12 * D * D * N + 2 * N * N * D) + 64 * D * 4096 + 4096 * D * 512 +
			D * 64 * 4096 + once;
	r = ws_run_cli("flops", m, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	j = cJSON_Parse(r.out);
	cr_expect_eq(json_u64(first_component(j), "macs", "total"), flux, "%llu against %llu",
		     (unsigned long long)json_u64(first_component(j), "macs", "total"), (unsigned long long)flux);
	cr_expect_eq(json_u64(first_component(j), "image_tokens", NULL), 4096);
	cJSON_Delete(j);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(m);
	free(cfg);
	free(dir);
}

/* ==== GGUF as ComfyUI-GGUF writes a network ==== */

/* Overwrite the value of general.architecture (same length) in a GGUF
 * header. */
static void
set_gguf_arch(const char *path, const char *from, const char *to)
{
	FILE *f = fopen(path, "r+b");
	cr_assert(f, "%s", path);
	char h[4096];
	size_t n = fread(h, 1, sizeof h, f);
	const char *k = memmem(h, n, "general.architecture", 20);
	cr_assert(k);
	const char *v = memmem(k, n - (size_t)(k - h), from, strlen(from));
	cr_assert(v);
	cr_assert_eq(fseek(f, v - h, SEEK_SET), 0);
	cr_assert_eq(fwrite(to, 1, strlen(to), f), strlen(to));
	fclose(f);
}

Test(diffusion, flux_gguf_quantized)
{
	/* general.architecture flux, BFL names, Q4_K where the rows are whole
	 * blocks, F16 where not (img_in's 64), F32 for vectors: the layout
	 * read from the shapes, the parameters from the logical shapes */
	static const struct {
		const char *cfg, *dtype;
		bool shared;
		uint64_t total;
	} files[] = {
		{"configs/black-forest-labs__FLUX.1-dev__transformer.json", "Q4_K", true, FLUX_DEV},
		{"diffusion/black-forest-labs__FLUX.1-schnell__transformer.json", "Q8_0", false, 11891178560ull},
	};
	for (size_t i = 0; i < 2; i++) {
		char *cfg = files[i].shared ? shared_or_skip(files[i].cfg) : ws_testdata_path(files[i].cfg);
		char *dir = ws_tmpdir(), *m = ws_join(dir, "flux"), *f = ws_join(m, "model.gguf");
		char codes[512];
		char *argv[] = {getenv("WS_MKMODEL"), m, cfg, "--format", "gguf", "--dtype", (char *)files[i].dtype, NULL};
		ws_run r = ws_run_argv(argv);
		cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
		ws_run_free(&r);
		cJSON *j = check_json(f, 0, files[i].total, codes, sizeof codes);
		cr_expect_str_eq(codes, "", "%s", files[i].cfg);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(j, "format")->valuestring, "gguf");
		const cJSON *bd = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "params"), "by_dtype");
		cr_expect(json_u64(bd, files[i].dtype, NULL) > files[i].total / 2, "most parameters in %s", files[i].dtype);
		const cJSON *c = component(j, "transformer");
		cr_expect(c && !strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "transformer"));
		cJSON_Delete(j);
		expect_no_other_role(f);
		/* the same network per step as its safetensors */
		r = ws_run_cli("flops", f, "--json", NULL);
		cr_expect_eq(r.status, 0, "%s", r.err);
		cr_expect(ws_contains(r.out, "\"per\":\"denoising_step\""), "%s", r.out);
		ws_run_free(&r);
		if (i == 0) {
			/* FLUX.1-dev at 1024 px: the figure flops_sdxl_pipeline_and_flux
			 * works out for the safetensors */
			r = ws_run_cli("flops", f, "--json", "--size", "1024", NULL);
			cr_assert_eq(r.status, 0, "%s", r.err);
			cJSON *fj = cJSON_Parse(r.out);
			cr_expect_eq(json_u64(first_component(fj), "macs", "total"), 37192326709248ull, "%s", r.out);
			cJSON_Delete(fj);
			ws_run_free(&r);
		}
		if (i == 0) {
			/* a family other than the names': no formula, saying so */
			set_gguf_arch(f, "flux", "sdxl");
			r = ws_run_cli("check", f, NULL);
			cr_expect_eq(r.status, 0, "%s", r.err);
			cr_expect(ws_contains(r.out, "another diffusion family"), "%s", r.out);
			ws_run_free(&r);
		}
		free(f);
		free(m);
		free(cfg);
		ws_rmtree(dir);
		free(dir);
	}
}

/* ==== a value per level ==== */

static uint64_t
total_of_text(const char *text)
{
	cJSON *cfg = cJSON_Parse(text);
	cr_assert(cfg, "%s", text);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_assert(a.known, "%s: %s", text, a.unsupported ? a.unsupported : "");
	uint64_t t = f.total;
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	return t;
}

Test(diffusion, cross_attention_dim_per_level)
{
	/* cross_attention_dim as a list, one per down block: the up blocks
	 * read it backwards, the mid block the last.  Level 0 (8 channels)
	 * has 3 transformer blocks (one down, two up), level 1 (16) 4 (one
	 * down, two up, the mid block's); attn2.to_k and to_v are [C, X] */
#define XCFG(x) "{\"_class_name\": \"UNet2DConditionModel\", \"block_out_channels\": [8, 16]," \
	" \"down_block_types\": [\"CrossAttnDownBlock2D\", \"CrossAttnDownBlock2D\"]," \
	" \"up_block_types\": [\"CrossAttnUpBlock2D\", \"CrossAttnUpBlock2D\"], \"layers_per_block\": 1," \
	" \"attention_head_dim\": 8, \"norm_num_groups\": 4, \"sample_size\": 4, \"cross_attention_dim\": " x "}"
	uint64_t list = total_of_text(XCFG("[12, 20]"));
	uint64_t all12 = total_of_text(XCFG("12")), all20 = total_of_text(XCFG("20"));
	cr_expect_eq(list - all12, 4 * 2 * 16 * (20 - 12), "level 1 reads 20: %llu", (unsigned long long)(list - all12));
	cr_expect_eq(all20 - list, 3 * 2 * 8 * (20 - 12), "level 0 reads 12: %llu", (unsigned long long)(all20 - list));
	/* a list of another length than the levels: the key named */
	cJSON *cfg = cJSON_Parse(XCFG("[12, 20, 24]"));
	struct ws_arch a;
	ws_error err = {0};
	cr_expect_eq(ws_arch_from_config(cfg, "config.json", &a, &err), -1);
	cr_expect(strstr(err.message, "cross_attention_dim"), "%s", err.message);
	cJSON_Delete(cfg);
	/* a checkpoint of the list's widths checks clean, and its
	 * cross-attention keys and values run over the text per level */
	char *dir = ws_tmpdir(), *cf = ws_write_file(dir, "c.json", XCFG("[12, 20]"), strlen(XCFG("[12, 20]")));
	char *m = ws_join(dir, "unet"), codes[512];
	mkmodel(m, cf, NULL, NULL);
	cJSON_Delete(check_json(m, 0, list, codes, sizeof codes));
	cr_expect_str_eq(codes, "");
	ws_run r = ws_run_cli("flops", m, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *j = cJSON_Parse(r.out);
	const cJSON *br = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(first_component(j), "macs"), "by_role");
	cr_expect_eq(json_u64(br, "xattn_k", NULL), (3 * 8 * 12 + 4 * 16 * 20) * 77ull);
	cJSON_Delete(j);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(m);
	free(cf);
	free(dir);
#undef XCFG
}

Test(diffusion, flops_t5_prompt_in_a_flux_pipeline)
{
	/* a FLUX pipeline's CLIP runs over its 77-row position table, its T5
	 * (relative positions, no table) over the pipeline's 512 tokens:
	 * flan-t5-base's encoder, 12 x (4 x 768² + 3 x 768 x 2048) MACs a
	 * token and 12 x 12 x (64 + 64) per pair; --seq 256 sets T5's
	 * length and the transformer's context, not CLIP's */
	char *t5 = shared_or_skip("configs/google__flan-t5-base.json");
	char *clip = shared_or_skip(SDXL "text_encoder.json");
	char *dir = ws_tmpdir(), *root = ws_join(dir, "flux");
	mkdir(root, 0755);
	static const char mi[] = "{\"_class_name\": \"FluxPipeline\", \"transformer\": [\"diffusers\", \"X\"],"
				 " \"text_encoder\": [\"transformers\", \"CLIPTextModel\"],"
				 " \"text_encoder_2\": [\"transformers\", \"T5EncoderModel\"]}";
	static const char tr[] = "{\"_class_name\": \"FluxTransformer2DModel\", \"num_layers\": 1,"
				 " \"num_single_layers\": 1, \"num_attention_heads\": 2, \"attention_head_dim\": 4,"
				 " \"in_channels\": 64, \"joint_attention_dim\": 768, \"pooled_projection_dim\": 768}";
	free(ws_write_file(root, "model_index.json", mi, sizeof mi - 1));
	cJSON *c = ws_load_json(t5);
	cJSON_ReplaceItemInObjectCaseSensitive(c, "architectures", cJSON_CreateStringArray((const char *[]){"T5EncoderModel"}, 1));
	char *txt = cJSON_PrintUnformatted(c);
	char *t5e = ws_write_file(dir, "t5.json", txt, strlen(txt)), *trc = ws_write_file(dir, "tr.json", tr, sizeof tr - 1);
	char *st = ws_join(root, "transformer"), *s1 = ws_join(root, "text_encoder"), *s2 = ws_join(root, "text_encoder_2");
	mkmodel(st, trc, NULL, NULL);
	mkmodel(s1, clip, NULL, NULL);
	mkmodel(s2, t5e, NULL, NULL);
	const uint64_t a = 12ull * (4 * 768 * 768 + 3 * 768 * 2048), b = 12ull * 12 * 128;
	for (int k = 0; k < 2; k++) {
		uint64_t n = k ? 256 : 512;
		ws_run r = k ? ws_run_cli("flops", root, "--json", "--seq", "256", NULL) : ws_run_cli("flops", root, "--json", NULL);
		cr_assert_eq(r.status, 0, "%s", r.err);
		cJSON *j = cJSON_Parse(r.out);
		cr_expect_eq(json_u64(component(j, "text_encoder"), "text_tokens", NULL), 77);
		cr_expect_eq(json_u64(component(j, "text_encoder_2"), "text_tokens", NULL), n);
		cr_expect_eq(json_u64(component(j, "text_encoder_2"), "macs", "total"), a * n + b * n * n);
		cr_expect_eq(json_u64(component(j, "transformer"), "text_tokens", NULL), n);
		cJSON_Delete(j);
		ws_run_free(&r);
	}
	free(st);
	free(s1);
	free(s2);
	free(t5e);
	free(trc);
	free(txt);
	cJSON_Delete(c);
	free(t5);
	free(clip);
	free(root);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, sd3_in_stability_names_and_gguf)
{
	/* SD3 as Stability AI names it (joint_blocks.N.x_block / context_block,
	 * q k v fused), as a single file and as ComfyUI-GGUF's "sd3": the
	 * layout, qk norms and SD3.5's dual-attention blocks (0-12 of 24)
	 * read from the names and shapes; the same count as the diffusers
	 * config's formula and the same MACs per step as its folder */
	static const char *const cfgs[] = {
		"diffusion/stabilityai__stable-diffusion-3-medium-diffusers__transformer.json",
		"diffusion/stabilityai__stable-diffusion-3.5-medium__transformer.json",
	};
	/* the released totals, so formula and reading cannot be wrong together */
	static const uint64_t totals[] = {2028328000ull, 2243171520ull};
	for (size_t i = 0; i < 2; i++) {
		char *cfg = ws_testdata_path(cfgs[i]);
		uint64_t total = total_of_file(cfg);
		cr_expect_eq(total, totals[i], "%s", cfgs[i]);
		char *dir = ws_tmpdir(), *md = ws_join(dir, "diffusers"), *ms = ws_join(dir, "single"),
		     *mg = ws_join(dir, "gguf");
		mkmodel(md, cfg, NULL, NULL);
		mkmodel(ms, cfg, "--single-file", NULL);
		char *argv[] = {getenv("WS_MKMODEL"), mg, cfg, "--format", "gguf", "--dtype", "Q8_0", NULL};
		ws_run r = ws_run_argv(argv);
		cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
		ws_run_free(&r);
		char *fs = ws_join(ms, "model.safetensors"), *fg = ws_join(mg, "model.gguf");
		const char *paths[] = {md, fs, fg};
		uint64_t macs[3];
		for (size_t k = 0; k < 3; k++) {
			char codes[512];
			cJSON *j = check_json(paths[k], 0, total, codes, sizeof codes);
			cr_expect_str_eq(codes, "", "%s", paths[k]);
			cr_expect(json_u64(j, "buffers", "total") > 0, "pos_embed is a buffer");
			cJSON_Delete(j);
			if (k)
				expect_no_other_role(paths[k]);
			r = ws_run_cli("flops", paths[k], "--json", NULL);
			cr_assert_eq(r.status, 0, "%s", r.err);
			j = cJSON_Parse(r.out);
			macs[k] = json_u64(first_component(j), "macs", "total");
			cJSON_Delete(j);
			ws_run_free(&r);
		}
		cr_expect(macs[0] == macs[1] && macs[1] == macs[2], "%llu %llu %llu", (unsigned long long)macs[0],
			  (unsigned long long)macs[1], (unsigned long long)macs[2]);
		free(fs);
		free(fg);
		free(md);
		free(ms);
		free(mg);
		free(cfg);
		ws_rmtree(dir);
		free(dir);
	}
}

Test(diffusion, gguf_orig_shape_is_the_logical_shape)
{
	/* ComfyUI-GGUF's converter reshapes a tensor whose rows are not
	 * whole blocks to rows of 256 and keeps its shape in
	 * comfy.gguf.orig_shape.NAME (INT32): img_in [3072, 64] stored as
	 * [768, 256] (Q4_K) reads and compares as [3072, 64] */
	char *cfg = ws_testdata_path("diffusion/black-forest-labs__FLUX.1-schnell__transformer.json");
	char *dir = ws_tmpdir(), *m = ws_join(dir, "flux"), *f = ws_join(m, "model.gguf");
	char codes[512];
	char *argv[] = {getenv("WS_MKMODEL"), m, cfg, "--format", "gguf", "--dtype", "Q4_K", "--gguf-shape-fix", NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("ls", f, "--match", "img_in.weight", "--json", NULL);
	cr_expect(ws_contains(r.out, "Q4_K"), "%s", r.out);
	/* "shape" the stored one (elements and bytes are its), the one
	 * read at beside it; in text the real one, the stored beside */
	cr_expect(ws_contains(r.out, "\"shape\":[768,256],\"logical_shape\":[3072,64]"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("ls", f, "--match", "img_in.weight", "--json", "--gguf-order", NULL);
	cr_expect(ws_contains(r.out, "\"ne\":[256,768],\"logical_ne\":[64,3072]"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("ls", f, "--match", "img_in.weight", NULL);
	cr_expect(ws_contains(r.out, "[3072, 64] (stored [768, 256])"), "%s", r.out);
	ws_run_free(&r);
	cJSON_Delete(check_json(f, 0, 11891178560ull, codes, sizeof codes));
	cr_expect_str_eq(codes, "");
	/* diff against the single file compares the shapes read at (SPEC:
	 * structurally, the logical shape): equal; against the same GGUF
	 * unreshaped (F16 rows of 64), by name: a dtype change, both
	 * shapes shown */
	char *ms = ws_join(dir, "single"), *fs = ws_join(ms, "model.safetensors");
	char *mu = ws_join(dir, "plain"), *fu = ws_join(mu, "model.gguf");
	mkmodel(ms, cfg, "--single-file", NULL);
	char *au[] = {getenv("WS_MKMODEL"), mu, cfg, "--format", "gguf", "--dtype", "Q4_K", NULL};
	r = ws_run_argv(au);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("diff", fs, f, NULL);
	cr_expect_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.out, "structurally equal") && !ws_contains(r.out, "shape     "), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("diff", f, fu, NULL);
	cr_expect_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.out, "img_in.weight  Q4_K [3072, 64] (stored [768, 256]) -> F16 [3072, 64]"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("diff", f, fu, "--json", NULL);
	cr_expect(ws_contains(r.out, "\"shape\":[768,256],\"logical_shape\":[3072,64]"), "%s", r.out);
	ws_run_free(&r);
	free(fs);
	free(ms);
	free(fu);
	free(mu);
	/* a shape of other elements than the tensor's: kept as stored, said */
	FILE *fp = fopen(f, "r+b");
	cr_assert(fp);
	char h[8192];
	size_t n = fread(h, 1, sizeof h, fp);
	const char *k = memmem(h, n, "comfy.gguf.orig_shape.img_in.weight", 35);
	cr_assert(k);
	/* key, type ARRAY, INT32, count 2, then 3072 and 64 */
	long at = (long)(k - h) + 35 + 4 + 4 + 8 + 4;
	uint32_t v = 65;
	cr_assert_eq(fseek(fp, at, SEEK_SET), 0);
	cr_assert_eq(fwrite(&v, 4, 1, fp), 1u);
	fclose(fp);
	cJSON_Delete(check_json(f, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "metadata-mismatch") && ws_contains(codes, "shape-mismatch"), "%s", codes);
	free(f);
	free(m);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, sdxl_gguf_ldm_names_reshaped)
{
	/* SDXL's UNet as ComfyUI-GGUF writes it: general.architecture sdxl,
	 * the original (LDM) names, Q4_K, every tensor whose rows are not
	 * whole blocks reshaped to rows of 256 with comfy.gguf.orig_shape:
	 * the levels read at the original shapes, the count and the MACs
	 * per step as the diffusers folder's */
	char *cfg = shared_or_skip(SDXL "unet.json");
	char *dir = ws_tmpdir(), *m = ws_join(dir, "sdxl"), *f = ws_join(m, "model.gguf");
	char codes[512];
	char *argv[] = {getenv("WS_MKMODEL"), m, cfg, "--format", "gguf", "--dtype", "Q4_K", "--gguf-shape-fix", NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	cJSON *j = check_json(f, 0, SDXL_UNET, codes, sizeof codes);
	cr_expect_str_eq(codes, "");
	cJSON_Delete(j);
	expect_no_other_role(f);
	r = ws_run_cli("flops", f, "--json", "--size", "1024", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	j = cJSON_Parse(r.out);
	cr_expect_eq(json_u64(first_component(j), "macs", "total"), 3380618199040ull);
	cJSON_Delete(j);
	ws_run_free(&r);
	free(f);
	free(m);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, flops_ldm_single_file_as_its_folder)
{
	/* one original SDXL file (LDM names, every component inferred) costs
	 * what the diffusers folder does, component by component */
	static const char *const parts[] = {"unet", "vae", "text_encoder", "text_encoder_2"};
	char *mi = shared_or_skip(SDXL "model_index.json");
	char *dir = ws_tmpdir(), *root = ws_join(dir, "sdxl"), *one = ws_join(dir, "one");
	mkdir(root, 0755);
	char *mic = ws_join(root, "model_index.json");
	copy_sparse(mi, mic);
	for (size_t i = 0; i < 4; i++) {
		char rel[128];
		snprintf(rel, sizeof rel, SDXL "%s.json", parts[i]);
		char *cfg = shared_or_skip(rel), *sub = ws_join(root, parts[i]);
		mkmodel(sub, cfg, "--dtype", "F16");
		free(cfg);
		free(sub);
	}
	mkmodel(one, root, "--single-file", NULL);
	char *f = ws_join(one, "model.safetensors");
	ws_run a = ws_run_cli("flops", root, "--json", "--size", "1024", NULL);
	ws_run b = ws_run_cli("flops", f, "--json", "--size", "1024", NULL);
	cr_assert_eq(a.status, 0, "%s", a.err);
	cr_assert_eq(b.status, 0, "%s", b.err);
	cJSON *ja = cJSON_Parse(a.out), *jb = cJSON_Parse(b.out);
	for (size_t i = 0; i < 4; i++) {
		const cJSON *ca = component(ja, parts[i]), *cb = component(jb, parts[i]);
		cr_assert(ca && cb, "%s", parts[i]);
		cr_expect_eq(json_u64(ca, "macs", "total"), json_u64(cb, "macs", "total"), "%s", parts[i]);
	}
	/* no config: no native size to take */
	ws_run c = ws_run_cli("flops", f, NULL);
	cr_expect_eq(c.status, 2, "%s", c.err);
	cr_expect(ws_contains(c.err, "give --size"), "%s", c.err);
	ws_run_free(&c);
	cJSON_Delete(ja);
	cJSON_Delete(jb);
	ws_run_free(&a);
	ws_run_free(&b);
	free(f);
	free(mic);
	free(mi);
	free(root);
	free(one);
	ws_rmtree(dir);
	free(dir);
}

/* ==== other released networks ==== */

/* The config at path with key set to the JSON value (NULL: removed),
 * written as dir's config.json: a checkpoint checked against a config it
 * was not made from. */
static void
config_with(const char *dir, const char *path, const char *key, const char *value)
{
	cJSON *cfg = ws_load_json(path);
	cr_assert(cfg, "cannot read %s", path);
	cJSON_DeleteItemFromObjectCaseSensitive(cfg, key);
	if (value) {
		cJSON *v = cJSON_Parse(value);
		cr_assert(v, "%s", value);
		cJSON_AddItemToObject(cfg, key, v);
	}
	char *txt = cJSON_Print(cfg);
	free(ws_write_file(dir, "config.json", txt, strlen(txt)));
	free(txt);
	cJSON_Delete(cfg);
}

/* A released component config (testdata/diffusion) as a full-size sparse
 * checkpoint: formula and params total, exit 0, no finding, no role
 * other.  The folder is left under *dir for a defect to be planted. */
static char *
released_checked(const char *rel, uint64_t total, char **dir)
{
	char *cfg = ws_testdata_path(rel);
	cr_expect_eq(total_of_file(cfg), total, "%s: formula %llu", rel, (unsigned long long)total_of_file(cfg));
	*dir = ws_tmpdir();
	char *m = ws_join(*dir, "component"), codes[512];
	mkmodel(m, cfg, "--dtype", "BF16");
	cJSON_Delete(check_json(m, 0, total, codes, sizeof codes));
	cr_expect_str_eq(codes, "", "%s", rel);
	expect_no_other_role(m);
	free(cfg);
	return m;
}

#define VAE16 83819683ull

Test(diffusion, vaes_of_sixteen_latent_channels)
{
	/* FLUX's and SD3's VAE: 16 latent channels, no quant convolutions
	 * (use_quant_conv / use_post_quant_conv false): SDXL's 83,653,863
	 * + the wider encoder.conv_out and decoder.conv_in - the two 1x1s */
	cr_assert_eq(SDXL_VAE + 9 * 512 * 24 + 24 + 9 * 512 * 12 - 72 - 20, VAE16);
	static const char *const rel[] = {"diffusion/black-forest-labs__FLUX.1-dev__vae.json",
					  "diffusion/stabilityai__stable-diffusion-3-medium-diffusers__vae.json"};
	for (size_t i = 0; i < 2; i++) {
		char *dir, codes[2048];
		char *m = released_checked(rel[i], VAE16, &dir);
		char *cfg = ws_testdata_path(rel[i]);
		/* planted: the config asks for the quant convolutions the
		 * checkpoint does not hold */
		config_with(m, cfg, "use_quant_conv", "true");
		cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
		cr_expect(ws_contains(codes, "missing-tensor") && ws_contains(codes, "count-mismatch"), "%s", codes);
		/* ... and the latent width SDXL's VAE has */
		config_with(m, cfg, "latent_channels", "4");
		cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
		cr_expect(ws_contains(codes, "shape-mismatch"), "%s", codes);
		free(cfg);
		free(m);
		ws_rmtree(dir);
		free(dir);
	}
}

Test(diffusion, sd35_large_transformer)
{
	/* 38 MMDiT blocks of 2,432 (38 heads of 64), q/k RMS norms, no
	 * dual-attention layers; pos_embed (192² positions) a buffer */
	char *dir, codes[2048];
	const char *rel = "diffusion/stabilityai__stable-diffusion-3.5-large__transformer.json";
	char *m = released_checked(rel, 8056627520ull, &dir);
	char *cfg = ws_testdata_path(rel);
	/* planted: a config whose first block attends twice (SD3.5-medium's
	 * dual layers): its norm1 9 wide, its attn2 absent */
	config_with(m, cfg, "dual_attention_layers", "[0]");
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "missing-tensor") && ws_contains(codes, "shape-mismatch"), "%s", codes);
	/* and one without the q/k norms: they are unexpected */
	config_with(m, cfg, "qk_norm", NULL);
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "unexpected-tensor") && ws_contains(codes, "count-mismatch"), "%s", codes);
	free(cfg);
	free(m);
	ws_rmtree(dir);
	free(dir);
}

/* The formula of config path with key set to value (NULL: removed). */
static uint64_t
total_with(const char *path, const char *key, const char *value)
{
	char *dir = ws_tmpdir();
	config_with(dir, path, key, value);
	char *p = ws_join(dir, "config.json");
	uint64_t t = total_of_file(p);
	free(p);
	ws_rmtree(dir);
	free(dir);
	return t;
}

#define PIXART_SIGMA 610856096ull

Test(diffusion, pixart_sigma_and_alpha)
{
	/* 28 AdaLN-single blocks of 1,152 (16 heads of 72), cross-attention to
	 * T5's 4,096 through the caption projection; PixArt-α's config names
	 * Transformer2DModel and (sample_size 128, no key) adds the resolution
	 * and aspect-ratio embeddings: 2 × (256 × 384 + 384 + 384² + 384) */
	char *dir, codes[2048];
	const char *sigma = "diffusion/PixArt-alpha__PixArt-Sigma-XL-2-1024-MS__transformer.json";
	const char *alpha = "diffusion/PixArt-alpha__PixArt-XL-2-1024-MS__transformer.json";
	char *m = released_checked(sigma, PIXART_SIGMA, &dir);
	char *cfg = ws_testdata_path(sigma);
	/* planted: a config that asks for the size embeddings */
	config_with(m, cfg, "use_additional_conditions", "true");
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "missing-tensor") && ws_contains(codes, "count-mismatch"), "%s", codes);
	free(cfg);
	free(m);
	ws_rmtree(dir);
	free(dir);

	const uint64_t sizes = 2 * (256 * 384 + 384 + 384 * 384 + 384);
	m = released_checked(alpha, PIXART_SIGMA + sizes, &dir);
	cfg = ws_testdata_path(alpha);
	/* planted: the same file against a config without them */
	config_with(m, cfg, "use_additional_conditions", "false");
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "unexpected-tensor") && ws_contains(codes, "count-mismatch"), "%s", codes);
	/* Transformer2DModel's own default norm is not PixArt's layout: no
	 * formula, said so */
	cJSON *c = ws_load_json(cfg);
	cJSON_DeleteItemFromObjectCaseSensitive(c, "norm_type");
	struct ws_arch a;
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_config(c, "config.json", &a, &err), 0, "%s", err.message);
	cr_expect(!a.known && a.unsupported, "Transformer2DModel without norm_type has a formula");
	ws_arch_free(&a);
	cJSON_Delete(c);
	/* biases off, affine norms on: the rule, not the example */
	cr_expect_eq(total_with(cfg, "attention_bias", "false"), PIXART_SIGMA + sizes - 28ull * 6 * 1152);
	cr_expect_eq(total_with(cfg, "norm_elementwise_affine", "true"), PIXART_SIGMA + sizes + 28ull * 6 * 1152);
	free(cfg);
	free(m);
	ws_rmtree(dir);
	free(dir);
}

#define SANA_1600M 1604462752ull

Test(diffusion, sana_1600m)
{
	/* 20 blocks of 2,240 (70 linear-attention heads of 32), cross-attention
	 * of 20 heads of 112 to Gemma's 2,304 through the caption projection
	 * and its RMS norm, GLUMBConv of int(2.5 × 2,240) = 5,600 */
	char *dir, codes[2048];
	const char *rel = "diffusion/Efficient-Large-Model__Sana_1600M_1024px_diffusers__transformer.json";
	char *m = released_checked(rel, SANA_1600M, &dir);
	char *cfg = ws_testdata_path(rel);
	/* planted: q/k norms the file does not hold (SANA 1.5's) */
	config_with(m, cfg, "qk_norm", "\"rms_norm_across_heads\"");
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "missing-tensor") && ws_contains(codes, "count-mismatch"), "%s", codes);
	/* ... a wider feed-forward */
	config_with(m, cfg, "mlp_ratio", "3.0");
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "shape-mismatch"), "%s", codes);
	/* the rule: four norms of 2,240 a block; Sprint's guidance embedder
	 * (256 × 2,240 + 2,240 + 2,240² + 2,240) */
	cr_expect_eq(total_with(cfg, "qk_norm", "\"rms_norm_across_heads\""), SANA_1600M + 20ull * 4 * 2240);
	cr_expect_eq(total_with(cfg, "guidance_embeds", "true"),
		     SANA_1600M + 256ull * 2240 + 2240 + 2240ull * 2240 + 2240);
	/* a ratio that is not one names its key */
	config_with(m, cfg, "mlp_ratio", "\"2.5\"");
	ws_run r = ws_run_cli("check", m, NULL);
	cr_expect_eq(r.status, 3, "%s", r.err);
	cr_expect(ws_contains(r.err, "mlp_ratio"), "%s", r.err);
	ws_run_free(&r);
	free(cfg);
	free(m);
	ws_rmtree(dir);
	free(dir);
}

#define WAN_1_3B 1418996800ull
#define WAN_14B 14288491584ull

Test(diffusion, wan21_transformers)
{
	/* Wan 2.1: a 3-D patch embedding ([D, 16, 1, 2, 2]), blocks of
	 * self- and cross-attention with q/k RMS norms, an affine norm before
	 * the cross-attention, a GELU feed-forward, [1, 6, D] modulation
	 * tables; T2V-1.3B (12 heads, 30 blocks, ffn 8,960) and T2V-14B (40
	 * heads, 40 blocks, ffn 13,824) */
	static const struct {
		const char *rel;
		uint64_t total;
	} wan[] = {
		{"diffusion/Wan-AI__Wan2.1-T2V-1.3B-Diffusers__transformer.json", WAN_1_3B},
		{"diffusion/Wan-AI__Wan2.1-T2V-14B-Diffusers__transformer.json", WAN_14B},
	};
	for (size_t i = 0; i < 2; i++) {
		char *dir, codes[2048];
		char *m = released_checked(wan[i].rel, wan[i].total, &dir);
		char *cfg = ws_testdata_path(wan[i].rel);
		/* planted: no norm before the cross-attention in the config */
		config_with(m, cfg, "cross_attn_norm", "false");
		cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
		cr_expect(ws_contains(codes, "unexpected-tensor") && ws_contains(codes, "count-mismatch"), "%s",
			  codes);
		/* ... and an image-to-video model's 36 input channels */
		config_with(m, cfg, "in_channels", "36");
		cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
		cr_expect(ws_contains(codes, "shape-mismatch"), "%s", codes);
		free(cfg);
		free(m);
		ws_rmtree(dir);
		free(dir);
	}
}

Test(diffusion, wan21_image_to_video)
{
	/* I2V-14B-480P: T2V-14B with 36 input channels, CLIP's 1,280-wide
	 * image features embedded (two norms, two linears) and attended by
	 * every block's own keys and values from 5,120 wide */
	const char *rel = "diffusion/Wan-AI__Wan2.1-I2V-14B-480P-Diffusers__transformer.json";
	const uint64_t more = 20ull * 4 * 5120 + 2 * 1280 + 1280ull * 1280 + 1280 + 5120ull * 1280 + 5120 + 2 * 5120 +
			      40 * (2 * (5120ull * 5120 + 5120) + 5120);
	char *dir, codes[2048];
	char *m = released_checked(rel, WAN_14B + more, &dir);
	char *cfg = ws_testdata_path(rel);
	/* FLF2V's image positions [1, 514, 1,280]: the rule */
	cr_expect_eq(total_with(cfg, "pos_embed_seq_len", "514"), WAN_14B + more + 514ull * 1280);
	/* planted: the config without the image's keys and values */
	config_with(m, cfg, "added_kv_proj_dim", "null");
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "unexpected-tensor") && ws_contains(codes, "count-mismatch"), "%s", codes);
	/* a patch that is not three counts names its key */
	config_with(m, cfg, "patch_size", "[1, 2]");
	ws_run r = ws_run_cli("check", m, NULL);
	cr_expect_eq(r.status, 3, "%s", r.err);
	cr_expect(ws_contains(r.err, "patch_size"), "%s", r.err);
	ws_run_free(&r);
	free(cfg);
	free(m);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, wan21_vae)
{
	/* AutoencoderKLWan (Wan 2.1's causal video VAE): 3-D convolutions,
	 * widths 96 × [1, 2, 4, 4], the encoder's resnets and samplers in one
	 * run of down_blocks, time resampled where temperal_downsample says
	 * (the decoder reads it backwards), RMS norms' gammas [C, 1, 1, 1] */
	char *dir, codes[2048];
	const char *rel = "diffusion/Wan-AI__Wan2.1-T2V-1.3B-Diffusers__vae.json";
	char *m = released_checked(rel, 126892531ull, &dir);
	char *cfg = ws_testdata_path(rel);
	/* planted: time resampled at other levels than the file's */
	config_with(m, cfg, "temperal_downsample", "[true, true, false]");
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "missing-tensor") && ws_contains(codes, "unexpected-tensor"), "%s", codes);
	/* ... a wider base */
	config_with(m, cfg, "base_dim", "128");
	cJSON_Delete(check_json(m, 1, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "shape-mismatch") && ws_contains(codes, "count-mismatch"), "%s", codes);
	/* Wan 2.2's residual blocks: no layout, said so */
	config_with(m, cfg, "is_residual", "true");
	cJSON_Delete(check_json(m, 0, 0, codes, sizeof codes));
	cr_expect(ws_contains(codes, "unsupported-architecture"), "%s", codes);
	/* a list that is not one names its key */
	config_with(m, cfg, "temperal_downsample", "[false, true]");
	ws_run r = ws_run_cli("check", m, NULL);
	cr_expect_eq(r.status, 3, "%s", r.err);
	cr_expect(ws_contains(r.err, "temperal_downsample"), "%s", r.err);
	ws_run_free(&r);
	free(cfg);
	free(m);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, wan21_as_a_diffusers_folder)
{
	/* Wan2.1-T2V-1.3B-Diffusers: the transformer, the video VAE and
	 * umt5-xxl's encoder (24 layers of 4,096, each its own relative
	 * position table: 5,680,910,336) */
	static const char *const parts[] = {"transformer", "vae", "text_encoder"};
	static const char *const kinds[] = {"transformer", "vae", "text_encoder"};
	static const uint64_t totals[] = {WAN_1_3B, 126892531ull, 5680910336ull};
	char *dir = ws_tmpdir(), *root = ws_join(dir, "wan"), codes[512];
	mkdir(root, 0755);
	char *mi = ws_testdata_path("diffusion/Wan-AI__Wan2.1-T2V-1.3B-Diffusers__model_index.json");
	char *mic = ws_join(root, "model_index.json");
	copy_sparse(mi, mic);
	for (size_t i = 0; i < 3; i++) {
		char rel[128];
		snprintf(rel, sizeof rel, "diffusion/Wan-AI__Wan2.1-T2V-1.3B-Diffusers__%s.json", parts[i]);
		char *cfg = ws_testdata_path(rel), *sub = ws_join(root, parts[i]);
		mkmodel(sub, cfg, "--dtype", "BF16");
		free(cfg);
		free(sub);
	}
	cJSON *j = check_json(root, 0, totals[0] + totals[1] + totals[2], codes, sizeof codes);
	cr_expect_str_eq(codes, "");
	for (size_t i = 0; i < 3; i++) {
		const cJSON *c = component(j, parts[i]);
		cr_assert(c, "no component %s", parts[i]);
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, kinds[i]);
		cr_expect_eq(json_u64(c, "params", NULL), totals[i], "%s", parts[i]);
		cr_expect_eq(json_u64(c, "formula", NULL), totals[i], "%s", parts[i]);
	}
	const cJSON *first = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "components"), 0);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(first, "name")->valuestring, "transformer",
			 "the denoiser is the main component");
	cJSON_Delete(j);
	expect_no_other_role(root);
	free(mic);
	free(mi);
	free(root);
	ws_rmtree(dir);
	free(dir);
}

/* The tensors of file rewritten by mktensors into out: each name after
 * prefix, the one named skip left out (a planted defect). */
static void
respec(const char *dir, const char *file, const char *out, const char *prefix, const char *skip)
{
	ws_run r = ws_run_cli("ls", file, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *j = cJSON_Parse(r.out), *t;
	cr_assert(j);
	char *sp = ws_join(dir, "spec");
	FILE *fp = fopen(sp, "w");
	cr_assert(fp);
	cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(j, "tensors")) {
		const char *name = cJSON_GetObjectItemCaseSensitive(t, "name")->valuestring;
		if (skip && !strcmp(name, skip))
			continue;
		fprintf(fp, "t %s%s BF16", prefix, name);
		const cJSON *d;
		cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(t, "shape"))
			fprintf(fp, " %llu", (unsigned long long)d->valuedouble);
		fputc('\n', fp);
	}
	fclose(fp);
	cJSON_Delete(j);
	ws_run_free(&r);
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "%s %s < %s", getenv("WS_MKTENSORS"), out, sp);
	cr_assert_eq(system(cmd), 0, "%s", cmd);
	free(sp);
}

Test(diffusion, wan21_single_files)
{
	/* Wan as its original code names it (ComfyUI's repackaged files), no
	 * config: widths, block count, the image embedder and added keys and
	 * values read from the shapes and names; alone and under
	 * model.diffusion_model. */
	static const struct {
		const char *rel;
		uint64_t total;
	} files[] = {
		{"diffusion/Wan-AI__Wan2.1-T2V-1.3B-Diffusers__transformer.json", WAN_1_3B},
		{"diffusion/Wan-AI__Wan2.1-I2V-14B-480P-Diffusers__transformer.json", 16394878784ull},
	};
	for (size_t i = 0; i < 2; i++) {
		char *cfg = ws_testdata_path(files[i].rel);
		char *dir = ws_tmpdir(), *m = ws_join(dir, "wan"), *f = ws_join(m, "model.safetensors");
		char codes[2048];
		mkmodel(m, cfg, "--single-file", NULL);
		cJSON *j = check_json(f, 0, files[i].total, codes, sizeof codes);
		cr_expect_str_eq(codes, "");
		const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "arch");
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(a, "source")->valuestring, "inferred");
		const cJSON *c = component(j, "transformer");
		cr_expect(c && !strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "transformer"));
		cJSON_Delete(j);
		expect_no_other_role(f);
		if (i == 0) {
			char *pre = ws_join(dir, "comfy.safetensors"), *cut = ws_join(dir, "cut.safetensors");
			respec(dir, f, pre, "model.diffusion_model.", NULL);
			j = check_json(pre, 0, files[i].total, codes, sizeof codes);
			cr_expect_str_eq(codes, "");
			c = component(j, "transformer");
			cr_expect(c && !strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "transformer"));
			cJSON_Delete(j);
			/* planted: one block's feed-forward gone */
			respec(dir, f, cut, "", "blocks.7.ffn.0.weight");
			cJSON_Delete(check_json(cut, 1, 0, codes, sizeof codes));
			cr_expect(ws_contains(codes, "missing-tensor") && ws_contains(codes, "count-mismatch"), "%s",
				  codes);
			free(pre);
			free(cut);
		}
		free(f);
		free(m);
		free(cfg);
		ws_rmtree(dir);
		free(dir);
	}
}

Test(diffusion, wan21_gguf_with_its_5d_patch_embedding)
{
	/* Wan2.1-T2V-1.3B as ComfyUI-GGUF writes it: general.architecture
	 * wan, the original names, matrices in Q4_K, and the 5-D patch
	 * embedding its converter sets aside and tools/fix_5d_tensors.py
	 * adds back in F32: read (the GGUF specification bounds n_dims by
	 * nothing), a loader-incompatible finding naming it (ggml reads 4
	 * dims at most), which fails check; the same count as the
	 * safetensors single file */
	char *cfg = ws_testdata_path("diffusion/Wan-AI__Wan2.1-T2V-1.3B-Diffusers__transformer.json");
	char *dir = ws_tmpdir(), *m = ws_join(dir, "wan"), *f = ws_join(m, "model.gguf");
	char codes[512];
	char *argv[] = {getenv("WS_MKMODEL"), m, cfg, "--format", "gguf", "--dtype", "Q4_K", NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	cJSON *j = check_json(f, 1, WAN_1_3B, codes, sizeof codes);
	cr_expect_str_eq(codes, "loader-incompatible");
	const cJSON *fd = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "findings"), 0);
	cr_assert(fd);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(fd, "tensor")->valuestring, "patch_embedding.weight");
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(fd, "severity")->valuestring, "error");
	cr_expect(ws_contains(cJSON_GetObjectItemCaseSensitive(fd, "message")->valuestring, "at most 4"));
	const cJSON *bd = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "params"), "by_dtype");
	cr_expect(json_u64(bd, "Q4_K", NULL) > WAN_1_3B / 2, "most parameters in Q4_K");
	const cJSON *c = component(j, "transformer");
	cr_expect(c && !strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "transformer"));
	cJSON_Delete(j);
	expect_no_other_role(f);
	r = ws_run_cli("ls", f, "--match", "patch_embedding.weight", "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\"dtype\":\"F32\",\"shape\":[1536,16,1,2,2]"), "%s", r.out);
	ws_run_free(&r);
	/* the text report says which tensor and why */
	r = ws_run_cli("check", f, NULL);
	cr_expect_eq(r.status, 1);
	cr_expect(ws_contains(r.out, "'patch_embedding.weight' has 5 dimensions"), "%s", r.out);
	ws_run_free(&r);
	/* I2V-14B-480P (the image embedder, added keys and values) in Q8_0 */
	char *cfg2 = ws_testdata_path("diffusion/Wan-AI__Wan2.1-I2V-14B-480P-Diffusers__transformer.json");
	char *m2 = ws_join(dir, "i2v"), *f2 = ws_join(m2, "model.gguf");
	char *argv2[] = {getenv("WS_MKMODEL"), m2, cfg2, "--format", "gguf", "--dtype", "Q8_0", NULL};
	r = ws_run_argv(argv2);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	cJSON_Delete(check_json(f2, 1, 16394878784ull, codes, sizeof codes));
	cr_expect_str_eq(codes, "loader-incompatible");
	expect_no_other_role(f2);
	free(f2);
	free(m2);
	free(cfg2);
	free(f);
	free(m);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, wan21_gguf_under_the_single_file_prefix)
{
	/* an older ComfyUI-GGUF converter kept a ComfyUI checkpoint's
	 * model.diffusion_model. (its loader strips it): read as the
	 * prefix-less file, that module its transformer; the same count,
	 * finding and MACs per step */
	char *cfg = ws_testdata_path("diffusion/Wan-AI__Wan2.1-T2V-1.3B-Diffusers__transformer.json");
	char *dir = ws_tmpdir(), *m0 = ws_join(dir, "plain"), *m1 = ws_join(dir, "prefixed");
	char *f0 = ws_join(m0, "model.gguf"), *f1 = ws_join(m1, "model.gguf");
	char codes[512];
	char *a0[] = {getenv("WS_MKMODEL"), m0, cfg, "--format", "gguf", "--dtype", "Q8_0", NULL};
	char *a1[] = {getenv("WS_MKMODEL"), m1, cfg, "--format", "gguf", "--dtype", "Q8_0", "--gguf-prefix", NULL};
	ws_run r = ws_run_argv(a0);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	r = ws_run_argv(a1);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	r = ws_run_cli("ls", f1, "--match", "model.diffusion_model.blocks.0.ffn.0.weight", "--json", NULL);
	cr_expect(ws_contains(r.out, "\"name\":\"model.diffusion_model.blocks.0.ffn.0.weight\""), "%s", r.out);
	ws_run_free(&r);
	cJSON *j = check_json(f1, 1, WAN_1_3B, codes, sizeof codes);
	cr_expect_str_eq(codes, "loader-incompatible");
	const cJSON *fd = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "findings"), 0);
	cr_expect(fd && !strcmp(cJSON_GetObjectItemCaseSensitive(fd, "tensor")->valuestring,
				"model.diffusion_model.patch_embedding.weight"));
	const cJSON *a = cJSON_GetObjectItemCaseSensitive(j, "arch");
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(a, "source")->valuestring, "inferred");
	const cJSON *c = component(j, "transformer");
	cr_expect(c && !strcmp(cJSON_GetObjectItemCaseSensitive(c, "kind")->valuestring, "transformer"));
	cr_expect_eq(json_u64(c, "params", NULL), WAN_1_3B);
	cJSON_Delete(j);
	expect_no_other_role(f1);
	uint64_t macs[2];
	const char *fs[] = {f0, f1};
	for (size_t k = 0; k < 2; k++) {
		r = ws_run_cli("flops", fs[k], "--json", "--size", "480x832", NULL);
		cr_assert_eq(r.status, 0, "%s", r.err);
		j = cJSON_Parse(r.out);
		macs[k] = json_u64(first_component(j), "macs", "total");
		cJSON_Delete(j);
		ws_run_free(&r);
	}
	cr_expect(macs[0] && macs[0] == macs[1], "%llu %llu", (unsigned long long)macs[0], (unsigned long long)macs[1]);
	/* and what flops_pixart_and_wan_by_hand works out for the safetensors */
	cr_expect_eq(macs[0], 2325787198464ull);
	/* another family's key than the names': said, no formula */
	set_gguf_arch(f1, "wan", "sd1");
	r = ws_run_cli("check", f1, NULL);
	cr_expect(ws_contains(r.out, "another diffusion family"), "%s", r.out);
	ws_run_free(&r);
	free(f0);
	free(f1);
	free(m0);
	free(m1);
	free(cfg);
	ws_rmtree(dir);
	free(dir);
}

Test(diffusion, flops_pixart_and_wan_by_hand)
{
	/* PixArt-Σ at its native 1024 px: 64 x 64 = 4,096 tokens (latent /8,
	 * patch 2), T5's 300 text tokens; Wan 2.1 T2V-1.3B at 480 x 832: 30 x
	 * 52 = 1,560 tokens of one latent frame (frames are not modeled),
	 * umT5's 512.  Per block: q k v o over the image, cross-attention's q
	 * and o over the image and k v over the text, the feed-forward, the
	 * modulation table once; scores 2 x N x N x D and 2 x N x T x D */
	static const struct {
		const char *rel, *size;
		uint64_t d, f, n, t, layers, own;
	} nets[] = {
		{"diffusion/PixArt-alpha__PixArt-Sigma-XL-2-1024-MS__transformer.json", NULL, 1152, 4608, 4096, 300, 28,
		 /* patch, timestep MLP and AdaLN-single once, caption projection
		  * over the text, final table once, proj_out */
		 16ull * 1152 * 4096 + 256 * 1152 + 1152ull * 1152 + 6ull * 1152 * 1152 +
			 (4096ull * 1152 + 1152ull * 1152) * 300 + 2 * 1152 + 32ull * 1152 * 4096},
		{"diffusion/Wan-AI__Wan2.1-T2V-1.3B-Diffusers__transformer.json", "480x832", 1536, 8960, 1560, 512, 30,
		 64ull * 1536 * 1560 + 256 * 1536 + 1536ull * 1536 + 6ull * 1536 * 1536 +
			 (4096ull * 1536 + 1536ull * 1536) * 512 + 2 * 1536 + 64ull * 1536 * 1560},
	};
	for (size_t i = 0; i < 2; i++) {
		uint64_t d = nets[i].d, n = nets[i].n, t = nets[i].t;
		uint64_t att = 2 * n * n * d + 2 * n * t * d;
		uint64_t blk = 6 * d * d * n + 2 * d * d * t + 2 * d * nets[i].f * n + 6 * d + att;
		uint64_t total = nets[i].layers * blk + nets[i].own;
		char *cfg = ws_testdata_path(nets[i].rel), *dir = ws_tmpdir(), *m = ws_join(dir, "net");
		mkmodel(m, cfg, NULL, NULL);
		ws_run r = ws_run_cli("flops", m, "--json", nets[i].size ? "--size" : NULL, nets[i].size, NULL);
		cr_assert_eq(r.status, 0, "flops: %s%s", r.out, r.err);
		cJSON *j = cJSON_Parse(r.out);
		cr_assert(j, "not JSON: %s", r.out);
		const cJSON *c = first_component(j);
		cr_expect_eq(json_u64(c, "macs", "total"), total, "%s: %llu, by hand %llu", nets[i].rel,
			     (unsigned long long)json_u64(c, "macs", "total"), (unsigned long long)total);
		cr_expect_eq(json_u64(c, "macs", "attention"), nets[i].layers * att, "%s", nets[i].rel);
		cr_expect_eq(json_u64(c, "image_tokens", NULL), n, "%s", nets[i].rel);
		cJSON_Delete(j);
		ws_run_free(&r);
		free(m);
		free(cfg);
		ws_rmtree(dir);
		free(dir);
	}
}
