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
