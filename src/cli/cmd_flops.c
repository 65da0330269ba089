/*
 * cmd_flops.c - `flops PATH [--seq N] [--layers SPEC]... [--kv-dtype T]`:
 * MACs per forward pass as a·N + b·N² from the real shapes, one row per
 * selection of blocks, with the KV cache and the memory a context needs.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <stdint.h>

#include "cli.h"
#include "ws/json.h"
#include "ws/flops.h"
#include "ws/formula.h"

#define MAX_SELECTIONS 64

typedef struct flops_opts {
	bool has_seq;
	uint64_t seq;
	ws_dtype kv_dtype;         /* INVALID: the model's float dtype */
	const char *specs[MAX_SELECTIONS];
	ws_layer_sel sels[MAX_SELECTIONS];
	size_t n_sels;             /* 0: every block */
	uint64_t height, width;    /* --size in pixels (0: the native size) */
} flops_opts;

typedef struct flops_row {
	char layers[256];
	ws_flops_result r;
	ws_flops_eval ev;
	bool has_ev;
} flops_row;

static void
print_text(FILE *out, const char *path, const ws_model *m, const ws_flops_model *f,
	   const flops_row *rows, size_t n, bool quiet)
{
	char b1[32], b2[32], b3[32], b4[32], b5[32];
	const char *arch = m->arch && m->arch->architecture[0] ? m->arch->architecture
							      : "unknown architecture";
	/* the path and the config's model_type are untrusted bytes */
	ws_fput_escaped(out, path, strlen(path));
	fputs(": ", out);
	ws_fput_escaped(out, arch, strlen(arch));
	fprintf(out, ", %s blocks; MACs per forward pass over N tokens = a*N + b*N^2 (FLOPs = 2x)\n",
		ws_fmt_commas(f->num_layers, b1, sizeof b1));
	if (f->num_experts)
		fprintf(out, "  experts: %llu of %llu per token%s\n",
			(unsigned long long)f->experts_per_tok, (unsigned long long)f->num_experts,
			f->topk_unknown ? " (top-k unknown: every expert counted)" : "");
	if (f->head_from_embedding)
		fputs("  head: tied, the embedding matrix counted as lm_head\n", out);
	if (f->no_head)
		fputs("  head: none (a base-model class ends at the hidden states)\n", out);
	if (f->bidirectional)
		fputs("  encoder: attends both ways (b counts every pair of the N tokens), no KV cache\n", out);
	if (f->sliding_window)
		fprintf(out, "  sliding window %s: those blocks cost b_sliding*N*min(N, window)\n",
			ws_fmt_commas(f->sliding_window, b1, sizeof b1));

	fprintf(out, "\n%-20s %7s %18s %12s", "layers", "blocks", "a", "b");
	if (f->sliding_window)
		fprintf(out, " %12s", "b_sliding");
	fprintf(out, " %16s %12s", "params", "KV B/token");
	if (n && rows[0].has_ev)
		fprintf(out, " %22s %18s", "FLOPs @N", "memory @N");
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const flops_row *w = &rows[i];
		fprintf(out, "%-20s %7llu %18s %12s", w->layers, (unsigned long long)w->r.blocks,
			ws_fmt_commas(w->r.a, b1, sizeof b1), ws_fmt_commas(w->r.b, b2, sizeof b2));
		if (f->sliding_window)
			fprintf(out, " %12s", ws_fmt_commas(w->r.b_sliding, b3, sizeof b3));
		fprintf(out, " %16s %12s", ws_fmt_commas(w->r.params, b4, sizeof b4),
			ws_fmt_commas(w->r.kv_bytes_per_token, b5, sizeof b5));
		if (w->has_ev)
			fprintf(out, " %22s %18s", ws_fmt_commas(w->ev.flops, b1, sizeof b1),
				ws_fmt_bytes(w->ev.memory_bytes, b2, sizeof b2));
		fputc('\n', out);
	}
	if (quiet)
		return;
	for (size_t i = 0; i < n; i++) {
		const flops_row *w = &rows[i];
		fprintf(out, "\nlayers %s: a by role (MACs per token)\n", w->layers);
		for (int role = 0; role < WS_ROLE_COUNT; role++)
			if (w->r.a_by_role[role])
				fprintf(out, "  %-18s %18s\n", ws_role_name((ws_role)role),
					ws_fmt_commas(w->r.a_by_role[role], b1, sizeof b1));
		fprintf(out, "  %-18s %18s\n", "total a", ws_fmt_commas(w->r.a, b1, sizeof b1));
		fprintf(out, "  weights %s (%s bytes):", ws_fmt_bytes(w->r.weight_bytes, b1, sizeof b1),
			ws_fmt_commas(w->r.weight_bytes, b2, sizeof b2));
		for (int d = 1; d < WS_DT_COUNT; d++)
			if (w->r.bytes_by_dtype[d])
				fprintf(out, " %s %s", ws_dtype_name((ws_dtype)d),
					ws_fmt_commas(w->r.bytes_by_dtype[d], b1, sizeof b1));
		if (f->bidirectional)
			fputs("\n  KV cache: none (an encoder)\n", out);
		else
			fprintf(out, "\n  KV cache %s bytes per token (%s)\n",
				ws_fmt_commas(w->r.kv_bytes_per_token, b1, sizeof b1),
				ws_dtype_name(w->r.kv_dtype));
		if (w->r.state_bytes)
			fprintf(out, "  KV cache in %llu of %llu blocks; recurrent state %s bytes per sequence "
				"(F32), constant in N\n", (unsigned long long)w->r.kv_blocks,
				(unsigned long long)w->r.blocks, ws_fmt_commas(w->r.state_bytes, b1, sizeof b1));
		if (w->has_ev)
			fprintf(out, "  at N = %s: %s MACs, %s FLOPs, KV cache %s, memory %s\n",
				ws_fmt_commas(w->ev.seq, b1, sizeof b1),
				ws_fmt_commas(w->ev.macs, b2, sizeof b2),
				ws_fmt_commas(w->ev.flops, b3, sizeof b3),
				ws_fmt_bytes(w->ev.kv_cache_bytes, b4, sizeof b4),
				ws_fmt_bytes(w->ev.memory_bytes, b5, sizeof b5));
	}
}

/* A wrapper config's vision_feature_layer that reads past the last
 * layer (llava's -2): every stored layer is still counted; NULL when
 * the config has none, or -1. */
static const cJSON *
feature_layer(const ws_model *m)
{
	const cJSON *v = m->config ? cJSON_GetObjectItemCaseSensitive(m->config, "vision_feature_layer") : NULL;
	if (cJSON_IsNumber(v) && v->valuedouble == -1)
		return NULL;
	return cJSON_IsNumber(v) || cJSON_IsArray(v) ? v : NULL;
}

/* Cross-attention layers (Mllama's) cache an image's keys and values
 * once, not per text token: their count and the bytes per image token
 * in the cache's type; 0 without such layers. */
static uint64_t
xattn_kv(const ws_model *m, ws_dtype dt, uint64_t *bytes)
{
	const struct ws_arch *a = m->arch;
	uint64_t n = 0;
	*bytes = 0;
	for (uint64_t i = 0; a && a->layer_block && i < a->n_layer_block; i++)
		n += WS_BK_MIX(a->layer_block[i]) == WS_MIX_XATTN;
	const ws_dtype_info *di = ws_dtype_get(dt);
	uint64_t per = 0;
	if (n && di && di->block && ws_mul_u64(2 * n, a->num_kv_heads, &per) && ws_mul_u64(per, a->head_dim, &per))
		ws_mul_u64(per / di->block + (per % di->block != 0), di->block_bytes, bytes);
	return n;
}

static void
print_parts(FILE *out, const ws_model *m, const ws_flops_part *p, size_t n)
{
	char b1[32], b2[32], b3[32], b4[32];
	uint64_t xb, xn = xattn_kv(m, WS_DT_BF16, &xb);
	char x1[32];
	if (xn)
		fprintf(out, "\ncross-attention: %llu blocks keep an image's keys and values once (not per text "
			"token): %s bytes per image token (BF16)\n", (unsigned long long)xn,
			ws_fmt_commas(xb, x1, sizeof x1));
	if (!n)
		return;
	bool img = false, aud = false, windows = false;
	for (size_t i = 0; i < n; i++) {
		img = img || !p[i].audio;
		aud = aud || p[i].audio;
		windows = windows || p[i].window;
	}
	if (img)
		fprintf(out, "\ncomponents, per image at the config's image size or the one said (T tokens: a*T + "
			"b*T^2%s MACs)\n", windows ? " + b_window*pairs" : "");
	else
		fputs("\ncomponents, per audio input of max_source_positions after the conv stem (T tokens: a*T + "
		      "b*T^2 MACs)\n", out);
	if (img && aud)
		fputs("  (audio components: per audio input of max_source_positions after the conv stem)\n", out);
	for (size_t i = 0; i < n; i++) {
		fputs("  ", out);
		ws_fput_escaped(out, p[i].name, strlen(p[i].name));
		fprintf(out, " (%s): ", p[i].kind);
		if (!p[i].tokens) {
			fprintf(out, "a %s, b %s; no image size in its config, no count per image\n",
				ws_fmt_commas(p[i].a, b1, sizeof b1), ws_fmt_commas(p[i].b, b2, sizeof b2));
			continue;
		}
		if (p[i].image_size)
			fprintf(out, "%llu px, ", (unsigned long long)p[i].image_size);
		if (p[i].audio && strcmp(p[i].kind, "projector"))
			fprintf(out, "%llu mel frames, ", 2 * (unsigned long long)p[i].tokens);
		/* a tower of any size: the image it was costed at, and why */
		if (p[i].height)
			fprintf(out, "%llu x %llu px (%s), ", (unsigned long long)p[i].height,
				(unsigned long long)p[i].width,
				p[i].size_default ? "any size, none in its config: the default, --size H[xW] to change"
						  : "--size, to whole merged patches");
		fprintf(out, "%s tokens, a %s, b %s", ws_fmt_commas(p[i].tokens, b1, sizeof b1),
			ws_fmt_commas(p[i].a, b2, sizeof b2), ws_fmt_commas(p[i].b, b3, sizeof b3));
		if (p[i].window)
			fprintf(out, " (its blocks over the whole image), b_window %s over %s pairs (windows of %llu px)",
				ws_fmt_commas(p[i].b_window, b1, sizeof b1),
				ws_fmt_commas(p[i].window_pairs, b2, sizeof b2), (unsigned long long)p[i].window);
		fprintf(out, ": %s MACs per %s\n", ws_fmt_commas(p[i].macs, b4, sizeof b4),
			p[i].audio ? "audio input" : "image");
	}
	const cJSON *fl = feature_layer(m);
	if (fl && cJSON_IsNumber(fl))
		fprintf(out, "  vision_feature_layer %d: the text model reads an earlier layer's output; every "
			"stored layer is counted\n", (int)fl->valuedouble);
	else if (fl)
		fputs("  vision_feature_layer: the text model reads several layers' outputs; every stored layer "
		      "is counted\n", out);
}

/* components[]' objects of the towers and projectors (a selection
 * over their blocks each) get per: image and their cost per image at
 * the config's image size, per_image {image_size?, tokens, a, b, macs?,
 * flops?}; -1 on OOM. */
static int
parts_json(const ws_model *m, cJSON *comps, const ws_flops_part *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		cJSON *x, *c = NULL;
		cJSON_ArrayForEach(x, comps) {
			const cJSON *nm = cJSON_GetObjectItemCaseSensitive(x, "name");
			if (cJSON_IsString(nm) && !strcmp(nm->valuestring, p[i].name))
				c = x;
		}
		if (!c)
			continue;
		/* an audio tower and its projector: per audio input (the
		 * positions after the conv stem, its mel frames twice those) */
		cJSON *per = cJSON_CreateString(p[i].audio ? "audio" : "image");
		if (!per || !cJSON_ReplaceItemInObjectCaseSensitive(c, "per", per)) {
			cJSON_Delete(per);
			return -1;
		}
		cJSON *o = cJSON_AddObjectToObject(c, p[i].audio ? "per_audio" : "per_image");
		if (!o)
			return -1;
		if (p[i].image_size)
			ws_json_add_u64(o, "image_size", p[i].image_size);
		if (p[i].height) {
			/* a tower of any size: the image it was costed at */
			ws_json_add_u64(o, "height", p[i].height);
			ws_json_add_u64(o, "width", p[i].width);
			if (!cJSON_AddStringToObject(o, "size_source", p[i].size_default ? "default" : "--size"))
				return -1;
		}
		if (p[i].audio && strcmp(p[i].kind, "projector") && p[i].tokens <= UINT64_MAX / 2)
			ws_json_add_u64(o, "mel_frames", 2 * p[i].tokens);
		ws_json_add_u64(o, "tokens", p[i].tokens);
		ws_json_add_u64(o, "a", p[i].a);
		ws_json_add_u64(o, "b", p[i].b);
		if (p[i].window) {
			ws_json_add_u64(o, "b_window", p[i].b_window);
			ws_json_add_u64(o, "window_pairs", p[i].window_pairs);
			ws_json_add_u64(o, "window_size", p[i].window);
		}
		if (p[i].tokens)
			ws_json_add_u64(o, "macs", p[i].macs);
		/* FLOPs = 2 x MACs, when it fits */
		if (p[i].tokens && p[i].macs <= UINT64_MAX / 2)
			ws_json_add_u64(o, "flops", 2 * p[i].macs);
		const cJSON *fl = feature_layer(m);
		if (fl && strcmp(p[i].kind, "projector"))
			cJSON_AddItemToObject(o, "vision_feature_layer", cJSON_Duplicate(fl, true));
	}
	return 0;
}

/* A wrapper's components each with its own blocks (f read the main
 * one): one object each, every block, SPEC components[] (an encoder per
 * input sequence, a decoder per token with its cross-attention). */
static int
component_flops(const ws_model *m, const flops_opts *o, cJSON *arr, FILE *text, ws_error *err)
{
	char b1[32], b2[32], b3[32], b4[32];
	for (uint32_t c = 0; c < m->n_components; c++) {
		const ws_component *co = &m->components[c];
		ws_flops_model f = {0};
		ws_flops_result r;
		ws_flops_eval ev;
		char layers[64] = "";
		if (ws_flops_model_init_component(m, c, &f, err))
			return -1;
		if (f.num_layers)
			snprintf(layers, sizeof layers, "0-%llu", (unsigned long long)(f.num_layers - 1));
		if (ws_flops_select(m, &f, NULL, o->kv_dtype, &r, err) ||
		    (o->has_seq && !ws_flops_eval_at(&f, &r, o->seq, &ev))) {
			ws_flops_model_free(&f);
			return err->code ? -1 : ws_err(err, WS_EXIT_USAGE, m->path, "--seq: the totals overflow 64 bits");
		}
		const char *per = f.bidirectional ? "input_sequence" : "token";
		if (arr) {
			/* a selection's object (every block) with the
			 * component's name, kind and what N counts */
			cJSON *x = ws_flops_result_to_json(&f, &r, layers, o->has_seq ? &ev : NULL);
			bool ok = x && cJSON_AddStringToObject(x, "name", co->name) &&
				  cJSON_AddStringToObject(x, "kind", co->kind) && cJSON_AddStringToObject(x, "per", per);
			if (!ok || !cJSON_AddItemToArray(arr, x)) {
				cJSON_Delete(x);
				ws_flops_model_free(&f);
				return ws_err_oom(err, m->path);
			}
		} else if (ws_flops_per_image(co)) {
			/* a tower or projector: per image, below */
			fputs("\ncomponent ", text);
			ws_fput_escaped(text, co->name, strlen(co->name));
			fprintf(text, " (%s): %s blocks, params %s; per %s below\n", co->kind,
				ws_fmt_commas(f.num_layers, b1, sizeof b1), ws_fmt_commas(r.params, b2, sizeof b2),
				strcmp(co->kind, "audio") ? "image" : "audio input");
		} else {
			/* a component's name may come from a folder's file names */
			fputs("\ncomponent ", text);
			ws_fput_escaped(text, co->name, strlen(co->name));
			fprintf(text, " (%s), per %s: %s blocks, a %s, b %s, params %s", co->kind,
				f.bidirectional ? "input sequence (N input tokens, no KV cache)" : "token",
				ws_fmt_commas(f.num_layers, b1, sizeof b1), ws_fmt_commas(r.a, b2, sizeof b2),
				ws_fmt_commas(r.b, b3, sizeof b3), ws_fmt_commas(r.params, b4, sizeof b4));
			if (!f.bidirectional)
				fprintf(text, ", KV %s B/token", ws_fmt_commas(r.kv_bytes_per_token, b1, sizeof b1));
			fputc('\n', text);
			if (f.cross)
				fprintf(text, "  cross-attention: + c*N*N_input, c %s; the input's K and V %s MACs per "
					"input token (once), cached %s B per input token\n",
					ws_fmt_commas(r.c, b1, sizeof b1), ws_fmt_commas(r.a_input, b2, sizeof b2),
					ws_fmt_commas(r.cross_kv_bytes_per_input_token, b3, sizeof b3));
		}
		ws_flops_model_free(&f);
	}
	return 0;
}

#define NO_TENSORS_SKIPPED "no tensors: no MACs, FLOPs, KV cache or memory to compute"

static int
no_tensors(const ws_cli *cli, const char *path, const ws_model *m)
{
	bool vocab = m->format == WS_FORMAT_GGUF;
	if (cli->format == WS_OUT_JSON) {
		cJSON *obj = ws_cli_json_header("flops", path);
		int rc = !obj || !cJSON_AddArrayToObject(obj, "selections") ||
				 !cJSON_AddStringToObject(obj, "skipped", NO_TENSORS_SKIPPED) ||
				 (vocab && !cJSON_AddBoolToObject(obj, "vocab_only", true)) ||
				 ws_json_print_line(cli->out, obj)
			 ? WS_EXIT_INTERNAL : WS_EXIT_OK;
		cJSON_Delete(obj);
		return rc;
	}
	ws_fput_escaped(cli->out, path, strlen(path));
	fprintf(cli->out, ": %s%s\n", vocab ? "vocab-only GGUF (metadata and tokenizer), " : "",
		NO_TENSORS_SKIPPED);
	return WS_EXIT_OK;
}

static void
print_stage(FILE *out, const ws_flops_stage *s)
{
	char b1[32], b2[32], b3[32], b4[32];
	fputs("  ", out);
	ws_fput_escaped(out, s->name, strlen(s->name));
	fprintf(out, " (%s)", s->kind);
	if (!s->known) {
		fprintf(out, ": no architecture to cost it by; params %s\n", ws_fmt_commas(s->params, b1, sizeof b1));
		return;
	}
	if (!strcmp(s->per, "prompt"))
		fprintf(out, ", per prompt of %s tokens", ws_fmt_commas(s->text_tokens, b1, sizeof b1));
	else
		fprintf(out, ", per %s: %llux%llu %s (%s positions)%s%s%s", strcmp(s->per, "decode") ? "denoising step" : "decode",
			(unsigned long long)s->grid_h, (unsigned long long)s->grid_w,
			!strcmp(s->per, "decode") ? "pixels" : !strcmp(s->kind, "unet") ? "latent grid" : "token grid", ws_fmt_commas(s->image_tokens, b1, sizeof b1),
			s->text_tokens ? ", " : "", s->text_tokens ? ws_fmt_commas(s->text_tokens, b2, sizeof b2) : "",
			s->text_tokens ? " text tokens" : "");
	fprintf(out, ": %s MACs (attention %s), %s FLOPs; params %s\n", ws_fmt_commas(s->macs, b1, sizeof b1),
		ws_fmt_commas(s->attention, b2, sizeof b2),
		s->macs <= UINT64_MAX / 2 ? ws_fmt_commas(2 * s->macs, b3, sizeof b3) : "(over 2^64)",
		ws_fmt_commas(s->params, b4, sizeof b4));
	if (s->encode_macs)
		fprintf(out, "    encode (image to latent): %s MACs (attention %s)\n",
			ws_fmt_commas(s->encode_macs, b1, sizeof b1), ws_fmt_commas(s->encode_attention, b2, sizeof b2));
}

/* A diffusion pipeline or network: each component per what it runs
 * once for (SPEC flops: per denoising step, per decode, per prompt). */
static int
diffusion_one(const ws_cli *cli, const char *path, ws_model *m, const flops_opts *o)
{
	ws_error err = {0};
	ws_flops_diffusion d;
	if (o->n_sels)
		return ws_cli_usage_error("flops: --layers: a diffusion network has no numbered blocks to select");
	if (ws_flops_diffusion_run(m, o->height, o->width, o->has_seq ? o->seq : 0, &d, &err)) {
		if (err.code == WS_EXIT_USAGE)
			return ws_cli_usage_error("flops: %s", err.message);
		return ws_cli_report_error(cli, "flops", path, &err);
	}
	bool any = false;
	for (size_t i = 0; i < d.n; i++)
		any |= !cli->component || !strcmp(cli->component, d.stages[i].name);
	if (!any) {
		ws_flops_diffusion_free(&d);
		return ws_cli_select_component(cli, "flops", path, m);
	}
	int rc = WS_EXIT_OK;
	const char *arch = m->arch && m->arch->architecture[0] ? m->arch->architecture : "diffusion network";
	if (cli->format == WS_OUT_JSON) {
		cJSON *obj = ws_cli_json_header("flops", path);
		cJSON *sz = obj ? cJSON_AddObjectToObject(obj, "size") : NULL;
		cJSON *sel = sz ? cJSON_AddArrayToObject(obj, "selections") : NULL;
		cJSON *comps = sel ? cJSON_AddArrayToObject(obj, "components") : NULL;
		if (comps) {
			ws_json_add_u64(sz, "height", d.height);
			ws_json_add_u64(sz, "width", d.width);
			cJSON_AddStringToObject(sz, "source", d.size_from);
			ws_json_add_u64(sz, "vae_scale_factor", d.vae_scale);
			cJSON_AddBoolToObject(sz, "vae_scale_assumed", d.vae_scale_assumed);
		}
		for (size_t i = 0; comps && i < d.n; i++) {
			if (cli->component && strcmp(cli->component, d.stages[i].name))
				continue;
			cJSON *x = ws_flops_stage_to_json(&d.stages[i]);
			/* selections[]: the main component's (the denoiser's) */
			cJSON *y = x && !cJSON_GetArraySize(sel) ? cJSON_Duplicate(x, true) : NULL;
			if (!x || !cJSON_AddItemToArray(comps, x) || (y && !cJSON_AddItemToArray(sel, y)))
				comps = NULL;
		}
		if (!comps || ws_json_print_line(cli->out, obj))
			rc = WS_EXIT_INTERNAL;
		cJSON_Delete(obj);
	} else {
		ws_fput_escaped(cli->out, path, strlen(path));
		fputs(": ", cli->out);
		ws_fput_escaped(cli->out, arch, strlen(arch));
		fprintf(cli->out, ", %llux%llu pixels (%s), latent = pixels / %llu%s; FLOPs = 2x MACs\n",
			(unsigned long long)d.height, (unsigned long long)d.width,
			d.size_given ? "--size" : strcmp(d.size_from, "sample_size") ? "the native size, the pipeline's default"
									 : "the native size, from sample_size",
			(unsigned long long)d.vae_scale,
			d.vae_scale_assumed ? " (no VAE read: the usual factor assumed)" : " (the VAE's scale factor)");
		for (size_t i = 0; i < d.n; i++)
			if (!cli->component || !strcmp(cli->component, d.stages[i].name))
				print_stage(cli->out, &d.stages[i]);
	}
	ws_flops_diffusion_free(&d);
	return rc;
}

static int
flops_one(const ws_cli *cli, const char *path, const char *vision, const flops_opts *o)
{
	ws_error err = {0};
	ws_model *m = NULL;
	ws_flops_model f = {0};
	ws_flops_part *parts = NULL;
	size_t n_parts = 0;
	size_t n = o->n_sels ? o->n_sels : 1;
	flops_row *rows = calloc(n, sizeof *rows);
	int rc = 0;

	if (!rows)
		return WS_EXIT_INTERNAL;
	ws_open_opts oo = {.allow_full_download = cli->allow_full_download, .vision_file = vision};
	if (ws_model_open(path, &oo, &m, &err) || ws_model_analyze(m, &err))
		goto fail;
	if (m->n_tensors && ws_flops_is_diffusion(m)) {
		rc = diffusion_one(cli, path, m, o);
		ws_model_free(m);
		free(rows);
		return rc;
	}
	if ((rc = ws_cli_select_component(cli, "flops", path, m)) != 0) {
		ws_model_free(m);
		free(rows);
		return rc;
	}
	if (m->n_tensors == 0) {
		/* a vocab-only GGUF or a `{}` safetensors file is valid: say what
		 * cannot be computed, and succeed */
		rc = no_tensors(cli, path, m);
		ws_model_free(m);
		free(rows);
		return rc;
	}
	if (ws_flops_model_init(m, &f, &err) || ws_flops_parts(m, o->height, o->width, &parts, &n_parts, &err))
		goto fail;
	/* --size sizes an image only a tower of any size takes (a
	 * diffusion network's went above) */
	bool sized = false;
	for (size_t i = 0; i < n_parts; i++)
		sized |= parts[i].height != 0;
	if (o->height && !sized) {
		ws_err(&err, WS_EXIT_USAGE, path,
		       "--size is for a vision tower of any image size (none in its config) or a diffusion network");
		goto fail;
	}
	for (size_t i = 0; i < n; i++) {
		const ws_layer_sel *sel = o->n_sels ? &o->sels[i] : NULL;
		flops_row *w = &rows[i];
		if (sel)
			ws_layer_sel_format(sel, w->layers, sizeof w->layers);
		else if (f.num_layers)
			snprintf(w->layers, sizeof w->layers, "0-%llu",
				 (unsigned long long)(f.num_layers - 1));
		if (ws_flops_select(m, &f, sel, o->kv_dtype, &w->r, &err))
			goto fail;
		if (o->has_seq) {
			if (!ws_flops_eval_at(&f, &w->r, o->seq, &w->ev)) {
				ws_err(&err, WS_EXIT_USAGE, path,
				       "--seq %llu: the totals overflow 64 bits",
				       (unsigned long long)o->seq);
				goto fail;
			}
			w->has_ev = true;
		}
	}
	if (cli->format == WS_OUT_JSON) {
		cJSON *obj = ws_cli_json_header("flops", path);
		cJSON *arr = obj ? cJSON_AddArrayToObject(obj, "selections") : NULL;
		for (size_t i = 0; arr && i < n; i++) {
			cJSON *s = ws_flops_result_to_json(&f, &rows[i].r, rows[i].layers,
							   rows[i].has_ev ? &rows[i].ev : NULL);
			if (!s) {
				arr = NULL;
				break;
			}
			cJSON_AddItemToArray(arr, s);
		}
		cJSON *comps = arr && f.comp == 0 ? cJSON_AddArrayToObject(obj, "components") : NULL;
		if (comps && component_flops(m, o, comps, NULL, &err)) {
			cJSON_Delete(obj);
			goto fail;
		}
		if (comps && parts_json(m, comps, parts, n_parts) < 0)
			arr = NULL;
		/* a text stack's cross-attention layers (Mllama's): the
		 * image's keys and values, cached once */
		uint64_t xb, xn = xattn_kv(m, rows[0].r.kv_dtype, &xb);
		cJSON *xo = xn ? cJSON_AddObjectToObject(obj, "cross_attention") : NULL;
		if (xo) {
			ws_json_add_u64(xo, "blocks", xn);
			ws_json_add_u64(xo, "kv_cache_bytes_per_image_token", xb);
		}
		if (!arr || ws_json_print_line(cli->out, obj))
			rc = WS_EXIT_INTERNAL;
		cJSON_Delete(obj);
	} else {
		print_text(cli->out, path, m, &f, rows, n, cli->quiet);
		if (f.comp == 0 && component_flops(m, o, NULL, cli->out, &err))
			goto fail;
		print_parts(cli->out, m, parts, n_parts);
	}
	free(parts);
	ws_flops_model_free(&f);
	ws_model_free(m);
	free(rows);
	return rc;
fail:
	free(parts);
	ws_flops_model_free(&f);
	ws_model_free(m);
	free(rows);
	if (err.code == WS_EXIT_USAGE)
		return ws_cli_usage_error("flops: %s", err.message);
	return ws_cli_report_error(cli, "flops", path, &err);
}

/* The value of --opt V or --opt=V at argv[*i]; NULL when a is not opt. */
static const char *
opt_value(int argc, char **argv, int *i, const char *opt, bool *missing)
{
	const char *a = argv[*i];
	size_t n = strlen(opt);
	if (strncmp(a, opt, n) != 0)
		return NULL;
	if (a[n] == '=')
		return a + n + 1;
	if (a[n] != '\0')
		return NULL;
	if (*i + 1 >= argc) {
		*missing = true;
		return NULL;
	}
	return argv[++*i];
}

int
ws_cmd_flops(const ws_cli *cli, int argc, char **argv)
{
	flops_opts o = {.kv_dtype = WS_DT_INVALID};
	char **paths = calloc((size_t)argc, sizeof *paths);
	int np = 0, rc = WS_EXIT_OK;
	bool ended = false;

	if (!paths)
		return WS_EXIT_INTERNAL;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v;
		bool missing = false;
		if (ended || a[0] != '-' || !a[1]) {
			paths[np++] = argv[i];
		} else if (!strcmp(a, "--")) {
			ended = true;
		} else if ((v = opt_value(argc, argv, &i, "--seq", &missing))) {
			if (!ws_parse_count(v, true, &o.seq, NULL)) {
				ws_cli_usage_error("flops: --seq: '%s' is not a token count (4096, 8k, 1m)", v);
				rc = WS_EXIT_USAGE;
				goto out;
			}
			o.has_seq = true;
		} else if ((v = opt_value(argc, argv, &i, "--layers", &missing))) {
			char why[512];
			if (o.n_sels == MAX_SELECTIONS) {
				rc = ws_cli_usage_error("flops: at most %d --layers", MAX_SELECTIONS);
				goto out;
			}
			if (ws_layer_sel_parse(v, &o.sels[o.n_sels], why, sizeof why)) {
				rc = ws_cli_usage_error("flops: --layers: %s", why);
				goto out;
			}
			o.specs[o.n_sels++] = v;
		} else if ((v = opt_value(argc, argv, &i, "--size", &missing))) {
			/* H or HxW pixels */
			char *end = NULL;
			unsigned long long hh = strtoull(v, &end, 10), ww = hh;
			if (end && (*end == 'x' || *end == 'X') && end[1] >= '0' && end[1] <= '9')
				ww = strtoull(end + 1, &end, 10);
			if (!(v[0] >= '0' && v[0] <= '9') || !end || *end || !hh || !ww || hh > (1u << 20) ||
			    ww > (1u << 20)) {
				rc = ws_cli_usage_error("flops: --size: '%s' is not H or HxW pixels (1024, 768x1344)", v);
				goto out;
			}
			o.height = hh;
			o.width = ww;
		} else if ((v = opt_value(argc, argv, &i, "--kv-dtype", &missing))) {
			o.kv_dtype = ws_flops_parse_dtype(v);
			if (o.kv_dtype == WS_DT_INVALID) {
				rc = ws_cli_usage_error("flops: --kv-dtype: unknown dtype '%s' (BF16, F16, F32, F8_E4M3, Q8_0 ...)", v);
				goto out;
			}
		} else {
			rc = missing ? ws_cli_usage_error("flops: %s needs a value", a)
				     : ws_cli_usage_error("flops: unknown option '%s'", a);
			goto out;
		}
		if (missing) {
			rc = ws_cli_usage_error("flops: %s needs a value", a);
			goto out;
		}
	}
	if (!np) {
		rc = ws_cli_usage_error("flops: no PATH given");
		goto out;
	}
	for (int i = 0; i < np; i++) {
		/* a folder of GGUF models: each on its own, a vision file
		 * (mmproj) joined to its text model as components, as check
		 * reads it */
		char **sub = NULL, **vis = NULL;
		size_t nsub = 0;
		ws_error err = {0};
		if (ws_expand_joined(paths[i], &sub, &vis, &nsub, &err)) {
			rc = ws_exit_worst(rc, ws_cli_report_error(cli, "flops", paths[i], &err));
			continue;
		}
		for (size_t k = 0; k < nsub; k++) {
			rc = ws_exit_worst(rc, flops_one(cli, sub[k], vis ? vis[k] : NULL, &o));
			free(sub[k]);
			if (vis)
				free(vis[k]);
		}
		free(sub);
		free(vis);
		if (!nsub)
			rc = ws_exit_worst(rc, flops_one(cli, paths[i], NULL, &o));
	}
out:
	for (size_t i = 0; i < o.n_sels; i++)
		ws_layer_sel_free(&o.sels[i]);
	free(paths);
	return rc;
}
