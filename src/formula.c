/*
 * formula.c - the analytic parameter count, and the comparison of a
 * model's tensors with it.
 *
 * Both read the catalogue's tensor templates (catalogue/templates.h): one
 * line per tensor an architecture can have, its shape as symbolic
 * quantities of the architecture.  A new architecture is data there, not
 * code here.  All arithmetic is exact and overflow-checked; an overflow
 * names the config key with the largest value behind it.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "ws/formula.h"
#include "ws/json.h"
#include "ws/net.h"
#include "ws/util.h"
#include "catalogue/templates.h"
#include "internal.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const char *const role_names[WS_ROLE_COUNT] = {
#define ROLE_NAME_(id, name, part, mm) [WS_ROLE_##id] = name,
	WS_ROLES(ROLE_NAME_)
#undef ROLE_NAME_
};

/* ==== evaluation ==== */

struct qval {
	uint64_t v[WS_Q_COUNT];
	const struct ws_arch *a;
};

/* The leaf behind q with the largest value: the key an overflow names. */
static int
q_blame(const struct qval *qv, enum ws_q q)
{
	const struct ws_qdef *d = &ws_qdefs[q];
	if (d->op == WS_QOP_LEAF)
		return d->a;
	if (d->op == WS_QOP_CONST)
		return -1;
	if (d->op == WS_QOP_ELSE)
		return q_blame(qv, qv->v[d->a] ? d->a : d->b);
	int x = q_blame(qv, d->a), y = q_blame(qv, d->b);
	if (x < 0)
		return y;
	if (y < 0)
		return x;
	return ws_arch_value(qv->a, x) >= ws_arch_value(qv->a, y) ? x : y;
}

static int
overflow(const struct qval *qv, int leaf, const char *what, ws_error *err)
{
	char k[160];
	if (leaf < 0)
		leaf = WS_AK_LAYERS;
	return ws_err(err, WS_EXIT_INPUT, qv->a->src_path,
		      "%s: %llu makes the %s parameter count overflow 64 bits",
		      ws_arch_key_label(qv->a, leaf, k, sizeof k),
		      (unsigned long long)ws_arch_value(qv->a, leaf), what);
}

static int
q_eval(struct qval *qv, ws_error *err)
{
	for (int i = 0; i < WS_Q_COUNT; i++) {
		const struct ws_qdef *d = &ws_qdefs[i];
		bool ok = true;
		switch (d->op) {
		case WS_QOP_CONST: qv->v[i] = (uint64_t)d->a; break;
		case WS_QOP_LEAF: qv->v[i] = ws_arch_value(qv->a, d->a); break;
		case WS_QOP_MUL: ok = ws_mul_u64(qv->v[d->a], qv->v[d->b], &qv->v[i]); break;
		case WS_QOP_ADD: ok = ws_add_u64(qv->v[d->a], qv->v[d->b], &qv->v[i]); break;
		case WS_QOP_ELSE: qv->v[i] = qv->v[d->a] ? qv->v[d->a] : qv->v[d->b]; break;
		}
		if (!ok)
			return overflow(qv, q_blame(qv, (enum ws_q)i), "shape", err);
	}
	return 0;
}

/* Elements of one tensor of template r. */
static int
rule_value(const struct qval *qv, const struct ws_template *r, uint64_t *out, ws_error *err)
{
	unsigned rank = ws_template_rank(r);
	uint64_t v = qv->v[r->dim[0]];
	for (unsigned i = 1; i < rank; i++) {
		if (ws_mul_u64(v, qv->v[r->dim[i]], &v))
			continue;
		int leaf = -1;   /* the largest leaf behind any dimension */
		for (unsigned j = 0; j < rank; j++) {
			int x = q_blame(qv, r->dim[j]);
			if (x >= 0 && (leaf < 0 || ws_arch_value(qv->a, x) > ws_arch_value(qv->a, leaf)))
				leaf = x;
		}
		return overflow(qv, leaf, role_names[r->role], err);
	}
	*out = v;
	return 0;
}

/* Add n × v into *acc, overflow naming the layer count. */
static bool
acc_mul(uint64_t *acc, uint64_t n, uint64_t v)
{
	uint64_t p;
	return ws_mul_u64(n, v, &p) && ws_add_u64(*acc, p, acc);
}

int
ws_formula_compute(const struct ws_arch *a, struct ws_formula *out, ws_error *err)
{
	struct qval qv = {.a = a};
	ws_switches feat = ws_template_features(a);
	uint64_t mtp_extra = 0, lt[WS_BK_COUNT] = {0};
	uint64_t n_kind[WS_BK_COUNT] = {0};
	uint64_t first_less[WS_ROLE_COUNT] = {0}; /* what block 0 lacks, by role */

	memset(out, 0, sizeof *out);
	if (!a->known)
		return ws_err(err, WS_EXIT_INPUT, a->src_path, "no formula for architecture '%s'",
			      a->architecture);
	if (a->net) {
		ws_net_formula(a->net, out);
		return 0;
	}
	if (a->num_layers > WS_ARCH_MAX_LAYERS)
		return overflow(&qv, WS_AK_LAYERS, "layer", err);
	if (q_eval(&qv, err) < 0)
		return -1;

	for (size_t i = 0; i < ws_n_templates; i++) {
		const struct ws_template *r = &ws_templates[i];
		uint64_t v = 0;
		if (!ws_template_on(r, &feat))
			continue;
		if (rule_value(&qv, r, &v, err) < 0)
			return -1;
		bool ok = true;
		switch (r->scope) {
		case WS_SC_GLOBAL: ok = ws_add_u64(out->by_role[r->role], v, &out->by_role[r->role]); break;
		case WS_SC_MTP: ok = ws_add_u64(mtp_extra, v, &mtp_extra); break;
		case WS_SC_EXPERT:
			ok = ws_add_u64(out->per_expert, v, &out->per_expert) &&
			     ws_mul_u64(v, a->num_experts, &v);
			/* fall through */
		default:
			if (r->scope == WS_SC_LAYER1)
				ok = ws_add_u64(first_less[r->role], v, &first_less[r->role]) &&
				     ws_add_u64(out->first_less, v, &out->first_less);
			for (int k = 0; k < WS_BK_COUNT; k++)
				if (ok && ws_template_in_block(r, k))
					ok = ws_add_u64(out->layer_role[k][r->role], v,
							&out->layer_role[k][r->role]);
		}
		if (!ok)
			return overflow(&qv, q_blame(&qv, r->dim[0]), role_names[r->role], err);
	}
	for (int k = 0; k < WS_BK_COUNT; k++)
		for (int r = 0; r < WS_ROLE_COUNT; r++)
			if (!ws_add_u64(lt[k], out->layer_role[k][r], &lt[k]))
				return overflow(&qv, WS_AK_HIDDEN, "block", err);

	out->num_layers = a->num_layers;
	if (a->num_layers) {
		out->by_layer = calloc((size_t)a->num_layers, sizeof *out->by_layer);
		if (!out->by_layer)
			return ws_err_oom(err, a->src_path);
	}
	for (uint64_t i = 0; i < a->num_layers; i++) {
		int k = ws_arch_layer_block(a, i);
		out->by_layer[i] = lt[k];
		n_kind[k]++;
	}
	for (int r = 0; r < WS_ROLE_COUNT; r++)
		for (int k = 0; k < WS_BK_COUNT; k++)
			if (!acc_mul(&out->by_role[r], n_kind[k], out->layer_role[k][r]))
				goto layers_overflow;
	/* block 0 lacks what only the later blocks hold (each its share of
	 * every block's count, so never more than was added) */
	if (a->num_layers)
		for (int r = 0; r < WS_ROLE_COUNT; r++) {
			out->by_role[r] -= first_less[r];
			out->by_layer[0] -= first_less[r];
		}
	for (int r = 0; r < WS_ROLE_COUNT; r++)
		if (!ws_add_u64(out->total, out->by_role[r], &out->total))
			goto layers_overflow;

	/* active: all but the routed experts a token does not reach */
	uint64_t idle = 0;
	if (a->num_experts) {
		uint64_t per_layer;
		if (!ws_mul_u64(a->num_experts - a->experts_per_tok, out->per_expert, &per_layer))
			goto layers_overflow;
		for (int k = 0; k < WS_BK_COUNT; k++)
			if (WS_BK_FFN(k) == WS_FFN_MOE && !acc_mul(&idle, n_kind[k], per_layer))
				goto layers_overflow;
	}
	out->active = out->total - idle;

	for (uint64_t j = 0; j < a->num_nextn_predict_layers; j++) {
		int k = ws_arch_layer_block(a, a->num_layers + j);
		if (!ws_add_u64(out->mtp, lt[k], &out->mtp) ||
		    !ws_add_u64(out->mtp, mtp_extra, &out->mtp)) {
			ws_formula_free(out);
			return overflow(&qv, WS_AK_NEXTN, "MTP", err);
		}
	}
	return 0;
layers_overflow:
	ws_formula_free(out);
	return overflow(&qv, WS_AK_LAYERS, "total", err);
}

void
ws_formula_free(struct ws_formula *f)
{
	if (!f)
		return;
	free(f->by_layer);
	f->by_layer = NULL;
	f->num_layers = 0;
}

/* ==== JSON ==== */

static const struct flag_name {
	int flag;          /* enum ws_arch_flag */
	const char *name;
} flag_names[] = {
	{WS_ARCH_QKV_BIAS, "qkv_bias"},
	{WS_ARCH_O_BIAS, "o_bias"},
	{WS_ARCH_MLP_BIAS, "mlp_bias"},
	{WS_ARCH_LM_HEAD_BIAS, "lm_head_bias"},
	{WS_ARCH_FUSED_QKV, "fused_qkv"},
	{WS_ARCH_LEARNED_POS, "learned_positions"},
	{WS_ARCH_PARALLEL, "parallel_blocks"},
	{WS_ARCH_NO_PRE_NORM, "post_norms_only"},
	{WS_ARCH_POST_NORMS, "post_norms"},
	{WS_ARCH_QK_NORM_HEAD, "qk_norm_per_head"},
	{WS_ARCH_QK_NORM_FULL, "qk_norm_full"},
	{WS_ARCH_QK_NORM_BIAS, "qk_norm_bias"},
	{WS_ARCH_EMBED_NORM, "embed_norm"},
	{WS_ARCH_SINKS, "attention_sinks"},
	{WS_ARCH_MLA, "mla"},
	{WS_ARCH_MOE_FUSED, "moe_fused_gate_up"},
	{WS_ARCH_MOE_BIAS, "moe_expert_bias"},
	{WS_ARCH_ROUTER_BIAS, "router_bias"},
	{WS_ARCH_ROUTER_SCORE_BIAS, "router_score_bias"},
	{WS_ARCH_SHARED_GATE, "shared_expert_gate"},
	{WS_ARCH_NEW_DECODER, "new_decoder_architecture"},
	{WS_ARCH_MULTI_QUERY, "multi_query"},
	{WS_ARCH_XIELU, "xielu"},
	{WS_ARCH_NO_FINAL_NORM, "no_final_norm"},
	{WS_ARCH_TYPE_EMBED, "token_types"},
	{WS_ARCH_POOLER, "pooler"},
	{WS_ARCH_MLM, "mlm_head"},
	{WS_ARCH_NSP, "nsp_head"},
	{WS_ARCH_CLASSIFIER, "classifier"},
	{WS_ARCH_CLS_DENSE, "classifier_dense"},
	{WS_ARCH_CHOICE, "multiple_choice"},
	{WS_ARCH_EMBED_SIZE, "embedding_width"},
	{WS_ARCH_PATCHES, "image_patches"},
	{WS_ARCH_PATCH_BIAS, "patch_bias"},
	{WS_ARCH_CLS_TOKEN, "class_token"},
	{WS_ARCH_TEXT_PROJ, "text_projection"},
	{WS_ARCH_VISUAL_PROJ, "visual_projection"},
	{WS_ARCH_TOWER_HEAD, "tower_head"},
	{WS_ARCH_LOGIT_SCALE, "logit_scale"},
	{WS_ARCH_LOGIT_BIAS, "logit_bias"},
	{WS_ARCH_ATTN_POOL, "attention_pool"},
	{WS_ARCH_BARE, "layers_only"},
	{WS_ARCH_PROJ_MLP2, "projector_mlp2"},
	{WS_ARCH_PROJ_LINEAR, "projector_linear"},
	{WS_ARCH_PROJ_IN_NORM, "projector_input_norm"},
	{WS_ARCH_REL_EMBED, "relative_positions"},
	{WS_ARCH_REL_EMBED_NORM, "relative_positions_norm"},
	{WS_ARCH_POS_C2P, "c2p"},
	{WS_ARCH_POS_P2C, "p2c"},
	{WS_ARCH_SHARE_ATT_KEY, "share_att_key"},
	{WS_ARCH_REL_DIST, "distance_embedding"},
	{WS_ARCH_FIRST_NO_NORM, "first_block_no_attn_norm"},
	{WS_ARCH_NO_NORM_BIAS, "norms_without_bias"},
	{WS_ARCH_LAYER_SCALE, "layer_scale"},
	{WS_ARCH_MASK_TOKEN, "mask_token"},
	{WS_ARCH_REGISTERS, "register_tokens"},
	{WS_ARCH_NO_PATCH_POS, "rotary_patches"},
	{WS_ARCH_PIXEL_SHUFFLE_MLP, "pixel_shuffle_adapter"},
	{WS_ARCH_PROJ_MERGE_MLP, "projector_merger"},
	{WS_ARCH_IMAGE_NEWLINE, "image_newline"},
	{WS_ARCH_PROJ_DEEPSTACK, "deepstack_mergers"},
	{WS_ARCH_XATTN, "cross_attention"},
	{WS_ARCH_REL_BIAS, "relative_bias"},
	{WS_ARCH_REL_BIAS_LAYERS, "relative_bias_per_layer"},
	{WS_ARCH_NO_TOKENS, "no_token_table"},
	{WS_ARCH_POS_OFFSET, "positions_offset_2"},
	{WS_ARCH_CONV_STEM, "conv_stem"},
	{WS_ARCH_NO_K_BIAS, "no_k_bias"},
};

/* An encoder class's parts, as the text summary names them. */
static const struct flag_name part_names[] = {
	{WS_ARCH_POOLER, "pooler"},
	{WS_ARCH_MLM, "masked-LM head"},
	{WS_ARCH_NSP, "next-sentence head"},
	{WS_ARCH_CLS_DENSE, "classifier dense"},
	{WS_ARCH_CLASSIFIER, "classifier"},
	{WS_ARCH_CHOICE, "multiple-choice classifier"},
	{WS_ARCH_HEAD_TRANSFORM, "head transform"},
	{WS_ARCH_CLS_CONCAT, "classifier"},
};

static const char *const norm_names[] = {
	[WS_NORM_RMS] = "rmsnorm", [WS_NORM_LAYER] = "layernorm",
	[WS_NORM_LAYER_NOBIAS] = "layernorm", [WS_NORM_NONE] = "none",
};
static const char *const mlp_names[] = {
	[WS_MLP_GATED] = "gated", [WS_MLP_GATED_FUSED] = "gated_fused",
	[WS_MLP_PLAIN] = "plain",
};

/* The norm kind as the formula counts it: a type's LayerNorms a config
 * makes RMS norms are RMS norms. */
static const char *
norm_name(const struct ws_arch *a)
{
	if (a->norm == WS_NORM_LAYER && ws_sw_has(&a->flags, WS_ARCH_RMS_NORMS))
		return norm_names[WS_NORM_RMS];
	return norm_names[a->norm];
}

static bool norm_bias(const struct ws_arch *a);

/* ... as the text summary says it: a LayerNorm without its bias so */
static const char *
norm_text(const struct ws_arch *a)
{
	const char *n = norm_name(a);
	return !strcmp(n, "layernorm") && !norm_bias(a) ? "layernorm without bias" : n;
}

/* Whether the norms have a bias: the formula's own switch, so the
 * summary cannot say otherwise than the count. */
static bool
norm_bias(const struct ws_arch *a)
{
	ws_switches f = ws_template_features(a);
	return ws_sw_has(&f, WS_TX_NORM_B);
}

/* Fields SPEC lists always; the rest only when non-zero. */
static const enum ws_arch_key always_keys[] = {
	WS_AK_HIDDEN, WS_AK_LAYERS, WS_AK_HEADS, WS_AK_KV_HEADS, WS_AK_HEAD_DIM,
	WS_AK_INTER, WS_AK_VOCAB,
};

cJSON *
ws_arch_to_json(const struct ws_arch *a)
{
	cJSON *o = cJSON_CreateObject();
	bool ok = o != NULL;

	ok = ok && cJSON_AddStringToObject(o, "source", a->source);
	ok = ok && ws_json_add_bytes(o, "architecture", a->architecture, strlen(a->architecture));
	/* an unknown architecture's unread values are absent, not zeros */
	for (size_t i = 0; ok && i < ARRAY_LEN(always_keys); i++)
		if (a->known || ws_arch_value(a, always_keys[i]))
			ok = ws_json_add_u64(o, ws_arch_key_name(always_keys[i]),
					     ws_arch_value(a, always_keys[i])) != NULL;
	ok = ok && cJSON_AddBoolToObject(o, "tied_embeddings", (ws_sw_has(&a->flags, WS_ARCH_TIED)) != 0);
	if (ok && a->no_head)
		ok = cJSON_AddStringToObject(o, "head", "none") != NULL;
	if (ok && a->cls[0])
		ok = ws_json_add_bytes(o, "class", a->cls, strlen(a->cls)) != NULL;
	if (ok && a->net && a->net->layout[0])
		ok = cJSON_AddStringToObject(o, "layout", a->net->layout) != NULL;
	if (ok && a->assumed)
		ok = cJSON_AddStringToObject(o, "assumed", a->assumed) != NULL;
	if (ok && a->n_defaulted) {
		cJSON *d = cJSON_AddArrayToObject(o, "defaulted");
		ok = d != NULL;
		for (uint32_t i = 0; ok && i < a->n_defaulted; i++) {
			cJSON *k = cJSON_CreateString(a->defaulted[i]);
			ok = k && cJSON_AddItemToArray(d, k);
			if (!ok)
				cJSON_Delete(k);
		}
	}
	if (ok && !a->known) {
		ok = cJSON_AddBoolToObject(o, "known", false) &&
		     cJSON_AddStringToObject(o, "unsupported", a->unsupported ? a->unsupported : "");
		if (!ok)
			goto oom;
		return o;
	}
	ok = ok && cJSON_AddStringToObject(o, "norm", norm_name(a));
	ok = ok && cJSON_AddBoolToObject(o, "norm_bias", norm_bias(a));
	ok = ok && cJSON_AddStringToObject(o, "mlp", mlp_names[a->mlp]);
	for (size_t i = 0; ok && i < ARRAY_LEN(flag_names); i++)
		if (ws_sw_has(&a->flags, flag_names[i].flag))
			ok = cJSON_AddBoolToObject(o, flag_names[i].name, true) != NULL;
	for (int k = 0; ok && k < WS_AK_COUNT; k++) {
		bool always = false;
		for (size_t i = 0; i < ARRAY_LEN(always_keys); i++)
			always = always || always_keys[i] == (enum ws_arch_key)k;
		uint64_t v = ws_arch_value(a, (enum ws_arch_key)k);
		if (always || v == 0)
			continue;
		if (k == WS_AK_V_HEAD_DIM && v == a->head_dim)
			continue;
		if (k == WS_AK_MOE_STEP && v == 1)
			continue;
		ok = ws_json_add_u64(o, ws_arch_key_name((enum ws_arch_key)k), v) != NULL;
	}
	if (ok && a->n_mlp_only_layers) {
		cJSON *arr = cJSON_AddArrayToObject(o, "mlp_only_layers");
		for (uint32_t i = 0; arr && i < a->n_mlp_only_layers; i++) {
			cJSON *n = ws_json_u64(a->mlp_only_layers[i]);
			ok = n && cJSON_AddItemToArray(arr, n);
		}
		ok = ok && arr;
	}
	if (ok)
		return o;
oom:
	cJSON_Delete(o);
	return NULL;
}

/* One by_layer[] entry (SPEC): {component, layer, layer_kind, params}. */
cJSON *
ws_layer_json(const char *component, uint64_t layer, const char *kind, uint64_t params)
{
	cJSON *o = cJSON_CreateObject();
	if (o && cJSON_AddStringToObject(o, "component", component) &&
	    ws_json_add_u64(o, "layer", layer) &&
	    (!kind || cJSON_AddStringToObject(o, "layer_kind", kind)) &&
	    ws_json_add_u64(o, "params", params))
		return o;
	cJSON_Delete(o);
	return NULL;
}

static cJSON *
formula_json(const struct ws_arch *a, const struct ws_formula *f, const char *name);

cJSON *
ws_formula_to_json(const struct ws_arch *a, const struct ws_formula *f)
{
	return formula_json(a, f, WS_MAIN_COMPONENT);
}

/* ... with the main component named `name` (an mmproj's is its tower) */
static cJSON *
formula_json(const struct ws_arch *a, const struct ws_formula *f, const char *name)
{
	cJSON *o = cJSON_CreateObject(), *roles = NULL, *layers = NULL, *comps = NULL;
	bool ok = o != NULL;

	ok = ok && ws_json_add_u64(o, "total", f->total);
	if (ok && f->active != f->total)
		ok = ws_json_add_u64(o, "active", f->active) != NULL;
	if (ok && f->mtp)
		ok = ws_json_add_u64(o, "mtp", f->mtp) != NULL;
	ok = ok && (roles = cJSON_AddObjectToObject(o, "by_role"));
	for (int r = 0; ok && r < WS_ROLE_COUNT; r++)
		if (f->by_role[r])
			ok = ws_json_add_u64(roles, role_names[r], f->by_role[r]) != NULL;
	ok = ok && (layers = cJSON_AddArrayToObject(o, "by_layer"));
	for (uint64_t i = 0; ok && i < f->num_layers; i++) {
		cJSON *n = ws_layer_json(name, i, ws_arch_layer_kind(a, i), f->by_layer[i]);
		ok = n && cJSON_AddItemToArray(layers, n);
	}
	/* the MTP layers after the last, alike: the MTP total shared */
	uint64_t nm = a->num_nextn_predict_layers;
	for (uint64_t i = 0; ok && f->mtp && nm && i < nm; i++) {
		cJSON *n = ws_layer_json(name, f->num_layers + i, ws_arch_layer_kind(a, f->num_layers + i),
					 f->mtp / nm);
		ok = n && cJSON_AddItemToArray(layers, n);
	}
	ok = ok && (comps = cJSON_AddObjectToObject(o, "by_component"));
	ok = ok && ws_json_add_u64(comps, name, f->total);
	if (ok)
		return o;
	cJSON_Delete(o);
	return NULL;
}

cJSON *
ws_model_formula_json(const ws_model *m)
{
	if (!m->arch || !m->formula)
		return NULL;
	/* the whole model's: the main component's and every other's with
	 * a formula (a tower per image counts whole in `active`) */
	struct ws_formula sum = *m->formula;
	bool any = false;
	for (uint32_t c = 0; c < m->n_components; c++) {
		const struct ws_formula *f = m->components[c].formula_of;
		if (m->components[c].main || !f)
			continue;
		any = true;
		bool ok = ws_add_u64(sum.total, f->total, &sum.total) &&
			  ws_add_u64(sum.active, f->total, &sum.active);
		for (int r = 0; ok && r < WS_ROLE_COUNT; r++)
			ok = ws_add_u64(sum.by_role[r], f->by_role[r], &sum.by_role[r]);
		if (!ok)
			return NULL;  /* each is below 2^64 only apart: no total */
	}
	const char *main_name = m->n_components && m->components[0].main ? m->components[0].name : WS_MAIN_COMPONENT;
	cJSON *o = formula_json(m->arch, &sum, main_name);
	cJSON *layers = o ? cJSON_GetObjectItemCaseSensitive(o, "by_layer") : NULL;
	cJSON *comps = o ? cJSON_GetObjectItemCaseSensitive(o, "by_component") : NULL;
	cJSON *mine = any ? ws_json_u64(m->formula->total) : NULL;
	bool ok = layers && comps && (!any || (mine && cJSON_ReplaceItemInObjectCaseSensitive(comps, main_name, mine)));
	if (!ok)
		cJSON_Delete(mine);
	for (uint32_t c = 0; ok && c < m->n_components; c++) {
		const ws_component *co = &m->components[c];
		const struct ws_formula *f = co->formula_of;
		if (co->main || !f)
			continue;
		ok = ws_json_add_u64(comps, co->name, f->total) != NULL;
		for (uint64_t l = 0; ok && l < f->num_layers; l++) {
			cJSON *n = ws_layer_json(co->name, l, ws_arch_layer_kind(co->arch, l), f->by_layer[l]);
			ok = n && cJSON_AddItemToArray(layers, n);
		}
	}
	if (ok)
		return o;
	cJSON_Delete(o);
	return NULL;
}

void
ws_model_formula_print(FILE *out, const ws_model *m, int detail)
{
	char b1[32], b2[32];
	uint64_t total = m->formula ? m->formula->total : 0;
	bool all = m->formula != NULL;
	if (detail)
		ws_formula_print_text(out, m->arch, m->formula, detail > 1);
	else
		ws_formula_print_summary(out, m->arch, m->formula);
	for (uint32_t c = 0; c < m->n_components; c++) {
		const ws_component *co = &m->components[c];
		if (co->main || !co->part)
			continue;
		fprintf(out, "\ncomponent     ");
		ws_fput_escaped(out, co->name, strlen(co->name));
		fprintf(out, " (%s)\n", co->kind);
		if (co->arch && detail)
			ws_formula_print_text(out, co->arch, co->formula_of, detail > 1);
		else if (co->arch)
			ws_formula_print_summary(out, co->arch, co->formula_of);
		all = all && co->formula_of;
		if (co->formula_of && !ws_add_u64(total, co->formula_of->total, &total))
			total = UINT64_MAX;
	}
	if (all && m->n_components > 1)
		fprintf(out, "\nformula total %s (%s), every component\n", ws_fmt_commas(total, b1, sizeof b1),
			ws_fmt_human(total, b2, sizeof b2));
}

/* ==== text ==== */

/* q rendered with its numbers: "4,096", "(8 × 128)", "(12 × 64 + 2 × 64)".
 * parent: the operator around it, or -1 at the top (a factor of a rule,
 * parenthesized whenever composite). */
static void
q_render(const struct qval *qv, enum ws_q q, char *buf, size_t len, int parent)
{
	const struct ws_qdef *d = &ws_qdefs[q];
	char x[96], y[96];

	if (d->op == WS_QOP_LEAF || d->op == WS_QOP_CONST || d->op == WS_QOP_ELSE) {
		ws_fmt_commas(qv->v[q], buf, len);
		return;
	}
	q_render(qv, d->a, x, sizeof x, (int)d->op);
	q_render(qv, d->b, y, sizeof y, (int)d->op);
	bool paren = parent < 0 || (parent == WS_QOP_MUL && d->op == WS_QOP_ADD);
	snprintf(buf, len, "%s%s %s %s%s", paren ? "(" : "", x,
		 d->op == WS_QOP_MUL ? "\xc3\x97" : "+", y, paren ? ")" : "");
}

/* One rule's line: "<indent><name> <count> × <dims> = <total>"; returns
 * false (nothing printed) when the rule adds nothing. */
static bool
print_rule(FILE *out, const struct qval *qv, const struct ws_template *r, uint64_t count,
	   const char *count_txt, const char *indent, const char *name)
{
	char dims[4 * 200], tot[32], nb[48];
	unsigned rank = ws_template_rank(r);
	uint64_t v = 1, p;
	size_t len = 0;

	for (unsigned i = 0; i < rank; i++)
		v *= qv->v[r->dim[i]];   /* checked in ws_formula_compute */
	if (!ws_mul_u64(v, count, &p) || p == 0)
		return false;
	if (!out)
		return true;
	dims[0] = '\0';
	for (unsigned i = 0; i < rank && len < sizeof dims; i++) {
		char d[200];
		q_render(qv, r->dim[i], d, sizeof d, -1);
		int w = snprintf(dims + len, sizeof dims - len, "%s%s", i ? " \xc3\x97 " : "", d);
		len += w > 0 ? (size_t)w : 0;
	}
	if (!name) {
		snprintf(nb, sizeof nb, "%s%s", r->what ? r->what : role_names[r->role],
			 r->kind == WS_KIND_BIAS ? ".bias" : "");
		name = nb;
	}
	fprintf(out, "%s%-20s %s%s%s = %s\n", indent, name, count_txt,
		count_txt[0] ? " \xc3\x97 " : "", dims, ws_fmt_commas(p, tot, sizeof tot));
	return true;
}

void
ws_formula_print_summary(FILE *out, const struct ws_arch *a, const struct ws_formula *f)
{
	char b1[32], b2[32], b3[32];

	fprintf(out, "architecture  ");
	if (a->architecture[0])
		ws_fput_escaped(out, a->architecture, strlen(a->architecture));
	else
		fprintf(out, "unknown");
	fprintf(out, " (%s)\n", a->source);
	/* nothing read: say so rather than print zeros as if they were facts */
	if (!a->known && a->hidden_size == 0 && a->num_layers == 0 && a->vocab_size == 0) {
		fprintf(out, "formula       none (%s)\n", a->unsupported ? a->unsupported : "architecture unknown");
		return;
	}
	if (a->known && a->net) {
		/* a diffusion network: its layout is its tensors */
		fprintf(out, "  a %s of %zu tensors, widths up to %s\n", a->net->kind, a->net->n,
			ws_fmt_commas(a->hidden_size, b1, sizeof b1));
		if (a->net->layout[0])
			fprintf(out, "  read from the shapes: %s\n", a->net->layout);
	} else if (a->known && ws_sw_has(&a->flags, WS_ARCH_BARE) && a->embedding_size) {
		/* a projector: its widths are all it has */
		fprintf(out, "  from width %s into %s, %s\n", ws_fmt_commas(a->embedding_size, b1, sizeof b1),
			ws_fmt_commas(a->hidden_size, b2, sizeof b2),
			a->norm == WS_NORM_NONE ? "no norm" : norm_text(a));
	} else if (a->known) {
		/* an image encoder reads patches, not a vocabulary */
		bool img = ws_sw_has(&a->flags, WS_ARCH_PATCHES);
		fprintf(out, "  hidden %s, layers %llu, heads %llu (kv %llu), head_dim %llu, "
			"intermediate %s, %s %s, %s, %s, %s MLP\n",
			ws_fmt_commas(a->hidden_size, b1, sizeof b1),
			(unsigned long long)a->num_layers, (unsigned long long)a->num_heads,
			(unsigned long long)a->num_kv_heads, (unsigned long long)a->head_dim,
			ws_fmt_commas(a->intermediate_size, b2, sizeof b2), img ? "patches" : "vocab",
			/* rotary patches: as many as an image makes */
			img && !a->num_patches ? "any" : !img && !a->vocab_size ? "none"
			: ws_fmt_commas(img ? a->num_patches : a->vocab_size, b3, sizeof b3),
			a->no_head ? "no head" : ws_sw_has(&a->flags, WS_ARCH_TIED) ? "tied" : "untied",
			norm_text(a), mlp_names[a->mlp]);
	} else {
		/* an unknown type: only the values read (nothing derives the
		 * rest, and a zero printed would read as a fact) */
		const char *sep = "  ";
		for (size_t i = 0; i < ARRAY_LEN(always_keys); i++) {
			uint64_t v = ws_arch_value(a, always_keys[i]);
			if (!v)
				continue;
			fprintf(out, "%s%s %s", sep, ws_arch_key_name(always_keys[i]),
				ws_fmt_commas(v, b1, sizeof b1));
			sep = ", ";
		}
		fputc('\n', out);
	}
	if (a->known && a->cls[0]) {
		/* an encoder: what its class adds to the body */
		fprintf(out, "  class ");
		ws_fput_escaped(out, a->cls, strlen(a->cls));
		const char *sep = ": ";
		for (size_t i = 0; i < ARRAY_LEN(part_names); i++) {
			if (!ws_sw_has(&a->flags, part_names[i].flag))
				continue;
			fprintf(out, "%s%s", sep, part_names[i].name);
			if (part_names[i].flag == WS_ARCH_CLASSIFIER)
				fprintf(out, " (%llu outputs)", (unsigned long long)a->num_labels);
			sep = ", ";
		}
		fputc('\n', out);
	}
	if (a->assumed)
		fprintf(out, "  assumed: %s\n", a->assumed);
	if (a->n_defaulted) {
		fprintf(out, "  from class defaults:");
		for (uint32_t i = 0; i < a->n_defaulted; i++)
			fprintf(out, "%s %s", i ? "," : "", a->defaulted[i]);
		fputc('\n', out);
	}
	if (a->num_experts)
		fprintf(out, "  experts %llu (top %llu), expert width %s, shared %llu\n",
			(unsigned long long)a->num_experts, (unsigned long long)a->experts_per_tok,
			ws_fmt_commas(a->moe_intermediate_size, b1, sizeof b1),
			(unsigned long long)a->shared_experts);
	if (!a->known || !f) {
		fprintf(out, "formula       none (%s)\n", a->unsupported ? a->unsupported : "unknown");
		return;
	}
	fprintf(out, "formula       %s (%s)\n", ws_fmt_commas(f->total, b1, sizeof b1),
		ws_fmt_human(f->total, b2, sizeof b2));
	if (f->active != f->total)
		fprintf(out, "  active      %s (%s)\n", ws_fmt_commas(f->active, b1, sizeof b1),
			ws_fmt_human(f->active, b2, sizeof b2));
	if (f->mtp)
		fprintf(out, "  mtp         %s (%s), reported apart; with it %s\n",
			ws_fmt_commas(f->mtp, b1, sizeof b1), ws_fmt_human(f->mtp, b2, sizeof b2),
			ws_fmt_commas(f->total + f->mtp, b3, sizeof b3));
}

void
ws_formula_print_text(FILE *out, const struct ws_arch *a, const struct ws_formula *f,
		      bool explain)
{
	char b1[32];

	ws_formula_print_summary(out, a, f);
	if (!a->known || !f)
		return;
	if (!explain) {
		for (int r = 0; r < WS_ROLE_COUNT; r++)
			if (f->by_role[r])
				fprintf(out, "  %-18s %20s\n", role_names[r],
					ws_fmt_commas(f->by_role[r], b1, sizeof b1));
		return;
	}

	struct qval qv = {.a = a};
	ws_error err;
	if (q_eval(&qv, &err) < 0)
		return;
	ws_switches feat = ws_template_features(a);
	uint64_t n_kind[WS_BK_COUNT] = {0};
	for (uint64_t i = 0; i < a->num_layers; i++)
		n_kind[ws_arch_layer_block(a, i)]++;
	char nb[64], nt[32], tot[32];
	snprintf(nt, sizeof nt, "%llu", (unsigned long long)a->num_nextn_predict_layers);
	const struct qval *qv_ptr = &qv;
	bool single = false;

	/* A role made of one rule is one line; several (weight and bias,
	 * MTP parts) get the role's total and a line each. */
	for (int role = 0; role < WS_ROLE_COUNT; role++) {
		uint64_t v = role == WS_ROLE_MTP ? f->mtp : f->by_role[role];
		if (!v)
			continue;
		for (int pass = 0; pass < 2; pass++) {
			int lines = 0;
			for (size_t i = 0; i < ws_n_templates; i++) {
				const struct ws_template *r = &ws_templates[i];
				if ((int)r->role != role || !ws_template_on(r, &feat))
					continue;
				uint64_t cnt = 1;
				const char *txt = "";
				if (r->scope == WS_SC_MTP) {
					cnt = a->num_nextn_predict_layers;
					txt = nt;
				} else if (r->scope != WS_SC_GLOBAL) {
					/* the blocks of every kind that has the tensor */
					uint64_t nk = 0;
					for (int k = 0; k < WS_BK_COUNT; k++)
						if (ws_template_in_block(r, k))
							nk += n_kind[k];
					cnt = nk;
					if (r->scope == WS_SC_LAYER1 && nk) {
						cnt = nk - 1;  /* every block but the first */
						snprintf(nb, sizeof nb, "%llu", (unsigned long long)cnt);
					} else if (r->scope == WS_SC_EXPERT) {
						cnt = nk * a->num_experts;
						snprintf(nb, sizeof nb, "%llu \xc3\x97 %llu", (unsigned long long)nk,
							 (unsigned long long)a->num_experts);
					} else {
						snprintf(nb, sizeof nb, "%llu", (unsigned long long)nk);
					}
					txt = nb;
				}
				FILE *o = pass == 0 ? NULL : out;
				lines += print_rule(o, qv_ptr, r, cnt, txt,
						    single ? "  " : "    ",
						    single ? role_names[role] : NULL);
			}
			if (pass == 0) {
				single = lines == 1 && role != WS_ROLE_MTP;
				if (!single)
					fprintf(out, "  %-20s %s\n", role_names[role],
						ws_fmt_commas(v, tot, sizeof tot));
			}
		}
	}
	if (f->mtp)
		fprintf(out, "  (mtp also holds %llu block%s counted like the others)\n",
			(unsigned long long)a->num_nextn_predict_layers,
			a->num_nextn_predict_layers == 1 ? "" : "s");
}

/* ==== what the class does not load ==== */

#define UNLOADED_NAMED 8       /* names in the finding, then a count */

int
ws_model_mark_unloaded(ws_model *m)
{
	const struct ws_arch *a = m->arch;
	if (!a || !a->known || !a->cls[0])
		return 0;
	/* a head role no template of this class has: another class's part
	 * (an LM head stored beside a tied one is a copy, not unloaded) */
	ws_switches feat = ws_template_features(a);
	bool on[WS_ROLE_COUNT] = {false};
	for (size_t i = 0; i < ws_n_templates; i++)
		if (ws_template_on(&ws_templates[i], &feat))
			on[ws_templates[i].role] = true;
	uint64_t n = 0, elements = 0;
	char names[UNLOADED_NAMED * 80 + 64] = "";
	size_t len = 0;
	/* the roles of the parts a class adds */
	bool part[WS_ROLE_COUNT] = {false};
	static const ws_role parts[] = {WS_ROLE_POOLER, WS_ROLE_MLM_TRANSFORM, WS_ROLE_MLM_BIAS,
					WS_ROLE_NSP_HEAD, WS_ROLE_CLASSIFIER, WS_ROLE_LM_HEAD};
	for (size_t i = 0; i < ARRAY_LEN(parts); i++)
		part[parts[i]] = true;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		ws_tensor *t = &m->tensors[i];
		if ((unsigned)t->role >= WS_ROLE_COUNT || t->layer >= 0 || !part[t->role] || on[t->role] ||
		    (t->role == WS_ROLE_LM_HEAD && !a->no_head))
			continue;
		t->unloaded = true;
		t->params = 0;
		if (!ws_add_u64(elements, t->elements, &elements))
			elements = UINT64_MAX;
		if (n++ < UNLOADED_NAMED && len < sizeof names) {
			char *e = ws_escape_text(t->name, t->name_len);
			if (!e)
				return -1;
			int w = snprintf(names + len, sizeof names - len, "%s'%.72s'", n > 1 ? ", " : "", e);
			free(e);
			len += w > 0 ? (size_t)w : 0;
		}
	}
	if (!n)
		return 0;
	char num[32], more[48] = "", *cls = ws_escape_text(a->cls, strlen(a->cls));
	if (!cls)
		return -1;
	if (n > UNLOADED_NAMED)
		snprintf(more, sizeof more, " and %llu more", (unsigned long long)(n - UNLOADED_NAMED));
	int rc = ws_model_add_finding(m, WS_SEV_WARNING, "unloaded-tensor", NULL, -1, -1, false, 0, 0,
				      "%llu tensor%s stored but not loaded by %s (another class's part): %s%s; "
				      "%s elements, counted apart, not in the parameters",
				      (unsigned long long)n, n == 1 ? "" : "s", cls, names, more,
				      ws_fmt_commas(elements, num, sizeof num));
	free(cls);
	return rc;
}

/* ==== comparison with the tensors ==== */

#define FINDING_CAP 16         /* per kind of finding, then one summary */

static bool
role_compared(int role)
{
	return role != WS_ROLE_OTHER && role != WS_ROLE_BUFFER &&
	       role != WS_ROLE_QUANT_AUX && role != WS_ROLE_LORA_A &&
	       role != WS_ROLE_LORA_B && role != WS_ROLE_MTP;
}

/* One-element tensors whose kind writers disagree on (a bare name, or
 * ".bias"): either kind matches. */
static bool
kind_free(int role)
{
	return role == WS_ROLE_MOE_ROUTER_BIAS || role == WS_ROLE_ATTN_SINKS || role == WS_ROLE_LOGIT_BIAS;
}

/* The rule for a tensor: block kind k (0 dense, 1 MoE) or -1 global. */
static const struct ws_template *
find_rule(int role, ws_kind kind, int k, const ws_switches *feat)
{
	for (size_t i = 0; i < ws_n_templates; i++) {
		const struct ws_template *r = &ws_templates[i];
		if ((int)r->role != role || (r->kind != kind && !kind_free(role)) ||
		    !ws_template_on(r, feat))
			continue;
		if (k < 0 ? r->scope == WS_SC_GLOBAL : ws_template_in_block(r, k))
			return r;
	}
	return NULL;
}

static void
fmt_dims(const uint64_t *d, uint32_t n, char *buf, size_t len)
{
	size_t o = 0;
	o += (size_t)snprintf(buf, len, "[");
	for (uint32_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%llu", i ? ", " : "",
				      (unsigned long long)d[i]);
	if (o < len)
		snprintf(buf + o, len - o, "]");
}

static const char *
kind_word(ws_kind k)
{
	return k == WS_KIND_BIAS ? "bias" : "weight";
}

/* 0 fine, 1 mismatch (finding added when `report`), -1 OOM. */
static int
check_shape(ws_model *m, const struct qval *qv, const struct ws_template *r, const ws_tensor *t,
	    bool report)
{
	uint64_t exp[WS_TEMPLATE_RANK], exp_elems = 1;
	uint32_t en = ws_template_rank(r);
	for (uint32_t i = 0; i < en; i++) {
		exp[i] = qv->v[r->dim[i]];
		if (!ws_mul_u64(exp_elems, exp[i], &exp_elems))
			exp_elems = UINT64_MAX;
	}
	/* a packed quantized weight is compared by its unpacked shape */
	uint32_t nd, n;
	const uint64_t *shape = ws_tensor_logical(t, &nd), *s = shape;
	n = nd;
	bool bad = false;
	char eb[96], ab[160];

	if (r->scope == WS_SC_EXPERT && n == en + 1) {
		/* experts stacked into one tensor: [E, ...] */
		bad = s[0] != qv->a->num_experts;
		s++;
		n--;
	}
	if (r->role == WS_ROLE_ATTN_KV_B && n == 3)
		return 0;  /* GGUF's k_b / v_b halves: counted, not shaped */
	if (!bad && n == en && n == 2) {
		bad = !((s[0] == exp[0] && s[1] == exp[1]) || (s[0] == exp[1] && s[1] == exp[0]));
	} else if (!bad && n == en) {
		for (uint32_t i = 0; i < n; i++)
			bad = bad || s[i] != exp[i];
	} else if (!bad) {
		/* a different rank (per-head norms stored [H, dk]): same count */
		uint64_t p = 1;
		for (uint32_t i = 0; i < n; i++)
			if (!ws_mul_u64(p, s[i], &p))
				p = UINT64_MAX;
		bad = p != exp_elems;
	}
	if (!bad || !report)
		return bad;
	if (r->scope == WS_SC_EXPERT && nd == en + 1)
		exp_elems *= qv->a->num_experts;
	if (en == 2 && n == 2) {
		/* the expected matrix in the order the tensor stores it:
		 * the way round more dimensions agree, else the nearer */
		unsigned straight = (s[0] == exp[0]) + (s[1] == exp[1]), swapped = (s[0] == exp[1]) + (s[1] == exp[0]);
		uint64_t ds = (s[0] > exp[0] ? s[0] - exp[0] : exp[0] - s[0]) / 2 +
			      (s[1] > exp[1] ? s[1] - exp[1] : exp[1] - s[1]) / 2;
		uint64_t dw = (s[0] > exp[1] ? s[0] - exp[1] : exp[1] - s[0]) / 2 +
			      (s[1] > exp[0] ? s[1] - exp[0] : exp[0] - s[1]) / 2;
		if (swapped > straight || (swapped == straight && dw < ds)) {
			uint64_t x = exp[0];
			exp[0] = exp[1];
			exp[1] = x;
		}
	}
	fmt_dims(exp, en, eb, sizeof eb);
	fmt_dims(shape, nd, ab, sizeof ab);
	char *tn = ws_escape_text(t->name, t->name_len);
	if (!tn)
		return -1;
	char per[48] = "per expert ";
	if (r->scope == WS_SC_EXPERT && nd == en + 1)
		snprintf(per, sizeof per, "%llu experts of ",
			 (unsigned long long)qv->a->num_experts);
	char where[48] = "";
	if (t->layer >= 0)
		snprintf(where, sizeof where, " of block %d", (int)t->layer);
	if (ws_model_add_finding(m, WS_SEV_ERROR, "shape-mismatch", t->name, (int)t->role,
				 t->layer, true, exp_elems, t->logical ? t->params : t->elements,
				 "%s %s '%.120s'%s has shape %s; the architecture implies %s%s",
				 role_names[t->role], kind_word(t->kind), tn, where, ab,
				 r->scope == WS_SC_EXPERT ? per : "", eb) < 0) {
		free(tn);
		return -1;
	}
	free(tn);
	return 1;
}

/* One per-expert tensor (HF layout): which block, role and expert. */
struct etrip {
	uint64_t layer, expert;
	uint32_t role, kind;
	uint64_t tensor;         /* index into m->tensors */
};

struct cmp {
	ws_model *m;
	uint32_t comp;           /* the component compared */
	const struct ws_arch *a;
	const struct ws_formula *f;
	ws_switches feat;
	ws_role_set *mask;       /* per block: [weight roles, bias roles] */
	bool *present;           /* per block: it has a tensor */
	uint64_t *ltot;          /* per block: parameters found */
	ws_role_set gmask[2];    /* global roles found, by kind */
	uint64_t actual[WS_ROLE_COUNT], mtp;
	bool head_stored;
	unsigned n_unexpected;
	unsigned n_shape[WS_ROLE_COUNT];  /* shape-mismatch findings per role */
	struct etrip *et;        /* per-expert tensors of MoE blocks */
	size_t n_et;
	uint64_t n_stacks;       /* experts stacked [E, ...] in MoE blocks */
	uint64_t stack_e;        /* the E of the first stack */
	bool stacks_differ;      /* some stack holds another E */
	/* find_rule's answers by role, kind and block kind (global, dense,
	 * MoE): the table is scanned once per combination, not per tensor */
	const struct ws_template *rule_of[WS_ROLE_COUNT][2][WS_BK_COUNT + 1];
	bool rule_known[WS_ROLE_COUNT][2][WS_BK_COUNT + 1];
};

/* How near a tensor's shape is to a template's: same rank first, then
 * dimensions equal (a matrix either way round), then element counts. */
struct shape_fit {
	bool rank;
	unsigned same;
	double ratio;            /* larger count / smaller, >= 1 */
};

static struct shape_fit
shape_fit(const struct qval *qv, const struct ws_template *r, const ws_tensor *t)
{
	struct shape_fit f = {false, 0, 0};
	uint32_t en = ws_template_rank(r), n;
	const uint64_t *s = ws_tensor_logical(t, &n);
	double pe = 1, ps = 1;
	for (uint32_t i = 0; i < en; i++)
		pe *= (double)qv->v[r->dim[i]];
	for (uint32_t i = 0; i < n; i++)
		ps *= (double)s[i];
	f.rank = n == en;
	if (f.rank) {
		unsigned straight = 0, swapped = 0;
		for (uint32_t i = 0; i < n; i++)
			straight += s[i] == qv->v[r->dim[i]];
		if (n == 2)
			swapped = (s[0] == qv->v[r->dim[1]]) + (s[1] == qv->v[r->dim[0]]);
		f.same = straight > swapped ? straight : swapped;
	}
	f.ratio = pe <= 0 || ps <= 0 ? 1e300 : pe > ps ? pe / ps : ps / pe;
	return f;
}

static bool
fit_better(const struct shape_fit *a, const struct shape_fit *b)
{
	if (a->rank != b->rank)
		return a->rank;
	if (a->same != b->same)
		return a->same > b->same;
	return a->ratio < b->ratio;
}

/* A role with several templates of one kind (a head's dense layer and
 * its norm): the one whose shape t has, else the first (which then
 * reports the mismatch). */
static const struct ws_template *
rule_for_shape(const struct ws_switches *feat, const struct qval *qv, const struct ws_template *first,
	       const ws_tensor *t, int k)
{
	if (!first || check_shape(NULL, qv, first, t, false) == 0)
		return first;
	for (size_t i = 0; i < ws_n_templates; i++) {
		const struct ws_template *r = &ws_templates[i];
		if (r == first || r->role != first->role || r->kind != first->kind ||
		    !ws_template_on(r, feat) || !(k < 0 ? r->scope == WS_SC_GLOBAL : ws_template_in_block(r, k)))
			continue;
		if (check_shape(NULL, qv, r, t, false) == 0)
			return r;
	}
	/* none fits: the nearest reports it (a projector's second matrix
	 * against its own expected shape, not the first one's or a norm's) */
	const struct ws_template *best = first;
	struct shape_fit bf = shape_fit(qv, first, t);
	for (size_t i = 0; i < ws_n_templates; i++) {
		const struct ws_template *r = &ws_templates[i];
		if (r == first || r->role != first->role || r->kind != first->kind || !ws_template_on(r, feat) ||
		    !(k < 0 ? r->scope == WS_SC_GLOBAL : ws_template_in_block(r, k)))
			continue;
		struct shape_fit f = shape_fit(qv, r, t);
		if (fit_better(&f, &bf)) {
			best = r;
			bf = f;
		}
	}
	return best;
}

static const struct ws_template *
cmp_rule(struct cmp *c, int role, ws_kind kind, int k)
{
	if ((unsigned)role >= WS_ROLE_COUNT || (unsigned)kind > 1 || k < -1 || k >= WS_BK_COUNT)
		return find_rule(role, kind, k, &c->feat);
	if (!c->rule_known[role][kind][k + 1]) {
		c->rule_of[role][kind][k + 1] = find_rule(role, kind, k, &c->feat);
		c->rule_known[role][kind][k + 1] = true;
	}
	return c->rule_of[role][kind][k + 1];
}

static int
cmp_tensors(struct cmp *c, const struct qval *qv)
{
	const struct ws_arch *a = c->a;
	for (uint64_t i = 0; i < c->m->n_tensors; i++) {
		const ws_tensor *t = &c->m->tensors[i];
		int role = (int)t->role;
		if (t->unloaded || t->tied_copy)
			continue;  /* named by ws_model_mark_unloaded; one table counted once */
		if (c->m->n_components && t->component != c->comp)
			continue;  /* another component's (each has its own formula) */
		if (role == WS_ROLE_MTP) {
			if (!ws_add_u64(c->mtp, t->params, &c->mtp))
				c->mtp = UINT64_MAX;
			continue;
		}
		if (role < 0 || role >= WS_ROLE_COUNT || !role_compared(role))
			continue;
		if (!ws_add_u64(c->actual[role], t->params, &c->actual[role]))
			c->actual[role] = UINT64_MAX;
		int k = -1;
		if (t->layer >= 0) {
			if ((uint64_t)t->layer >= a->num_layers) {
				if (c->n_unexpected++ < FINDING_CAP &&
				    ws_model_add_finding(c->m, WS_SEV_WARNING, "unexpected-tensor", t->name,
							 role, t->layer, false, 0, 0,
							 "%s %s of block %d, beyond the %llu blocks the architecture has",
							 role_names[role], kind_word(t->kind), (int)t->layer,
							 (unsigned long long)a->num_layers) < 0)
					return -1;
				continue;
			}
			uint64_t l = (uint64_t)t->layer;
			ws_rs_add(&c->mask[2 * l + (t->kind == WS_KIND_BIAS)], role);
			c->present[l] = true;
			if (!ws_add_u64(c->ltot[l], t->params, &c->ltot[l]))
				c->ltot[l] = UINT64_MAX;
			k = ws_arch_layer_block(a, l);
		} else {
			ws_rs_add(&c->gmask[t->kind == WS_KIND_BIAS], role);
		}
		if (role == WS_ROLE_LM_HEAD && (ws_sw_has(&a->flags, WS_ARCH_TIED)) && t->kind == WS_KIND_WEIGHT) {
			c->head_stored = true;
			continue;
		}
		const struct ws_template *r = rule_for_shape(&c->feat, qv, cmp_rule(c, role, t->kind, k), t, k);
		if (!r) {
			if (c->n_unexpected++ < FINDING_CAP &&
			    ws_model_add_finding(c->m, WS_SEV_WARNING, "unexpected-tensor", t->name,
						 role, t->layer, false, 0, 0,
						 "%s %s%s%s%s: the %s architecture has no such tensor%s",
						 role_names[role], kind_word(t->kind),
						 k < 0 ? "" : strchr("aeiou", ws_block_kind_name(k)[0]) ? " in an " : " in a ",
						 k < 0 ? "" : ws_block_kind_name(k), k < 0 ? "" : " block", a->architecture,
						 k < 0 && find_rule(role, t->kind, 0, &c->feat) ? " outside a block" : "") < 0)
				return -1;
			continue;
		}
		uint32_t snd;
		const uint64_t *sh = ws_tensor_logical(t, &snd);
		bool moe = k >= 0 && WS_BK_FFN(k) == WS_FFN_MOE;
		if (r->scope == WS_SC_EXPERT && moe && snd == ws_template_rank(r) + 1) {
			if (c->n_stacks++ == 0)
				c->stack_e = sh[0];
			c->stacks_differ = c->stacks_differ || sh[0] != c->stack_e;
		}
		if (r->scope == WS_SC_EXPERT && t->expert >= 0 && moe && c->et) {
			struct etrip *e = &c->et[c->n_et++];
			*e = (struct etrip){(uint64_t)t->layer, (uint64_t)t->expert, (uint32_t)role,
					    (uint32_t)t->kind, i};
		}
		/* a wrong config size puts every block off: name the first
		 * few tensors of each role, then count the rest */
		int sr = check_shape(c->m, qv, r, t, c->n_shape[role] < FINDING_CAP);
		if (sr < 0)
			return -1;
		c->n_shape[role] += (unsigned)sr;
	}
	for (int r = 0; r < WS_ROLE_COUNT; r++)
		if (c->n_shape[r] > FINDING_CAP &&
		    ws_model_add_finding(c->m, WS_SEV_ERROR, "shape-mismatch", NULL, r, -1, false, 0, 0,
					 "and %u more %s tensors with a wrong shape", c->n_shape[r] - FINDING_CAP,
					 role_names[r]) < 0)
			return -1;
	if (c->n_unexpected > FINDING_CAP &&
	    ws_model_add_finding(c->m, WS_SEV_WARNING, "unexpected-tensor", NULL, -1, -1,
				 false, 0, 0, "and %u more unexpected tensors",
				 c->n_unexpected - FINDING_CAP) < 0)
		return -1;
	return 0;
}

static int
cmp_counts(struct cmp *c)
{
	char e[32], g[32];
	const struct ws_formula *f = c->f;

	if (c->head_stored &&
	    ws_model_add_finding(c->m, WS_SEV_WARNING, "tied-embeddings", NULL, WS_ROLE_LM_HEAD, -1,
				 false, 0, 0,
				 "the architecture ties the output head to the embedding, but a head is stored (not compared)") < 0)
		return -1;
	for (int r = 0; r < WS_ROLE_COUNT; r++) {
		if (!role_compared(r) || c->actual[r] == f->by_role[r])
			continue;
		if (r == WS_ROLE_LM_HEAD && (ws_sw_has(&c->a->flags, WS_ARCH_TIED)) && !f->by_role[r])
			continue;
		if (ws_model_add_finding(c->m, WS_SEV_ERROR, "count-mismatch", NULL, r, -1, true,
					 f->by_role[r], c->actual[r],
					 "%s holds %s parameters; the formula expects %s",
					 role_names[r], ws_fmt_commas(c->actual[r], g, sizeof g),
					 ws_fmt_commas(f->by_role[r], e, sizeof e)) < 0)
			return -1;
	}
	/* an MTP layer is often dropped (GGUF, fine-tunes): compare only when stored */
	if (c->mtp && c->mtp != f->mtp &&
	    ws_model_add_finding(c->m, WS_SEV_ERROR, "count-mismatch", NULL, WS_ROLE_MTP, -1, true,
				 f->mtp, c->mtp, "mtp holds %s parameters; the formula expects %s",
				 ws_fmt_commas(c->mtp, g, sizeof g), ws_fmt_commas(f->mtp, e, sizeof e)) < 0)
		return -1;
	return 0;
}

static int
cmp_layers(struct cmp *c)
{
	const struct ws_arch *a = c->a;
	uint64_t gaps = 0;

	for (uint64_t l = 0; l < a->num_layers; l++) {
		if (c->present[l])
			continue;
		if (gaps++ < FINDING_CAP &&
		    ws_model_add_finding(c->m, WS_SEV_ERROR, "layer-gap", NULL, -1, (int32_t)l, false, 0, 0,
					 "block %llu of %llu has no tensors", (unsigned long long)l,
					 (unsigned long long)a->num_layers) < 0)
			return -1;
	}
	if (gaps > FINDING_CAP &&
	    ws_model_add_finding(c->m, WS_SEV_ERROR, "layer-gap", NULL, -1, -1, false, 0, 0,
				 "and %llu more missing blocks", (unsigned long long)(gaps - FINDING_CAP)) < 0)
		return -1;

	unsigned missing = 0;
	for (size_t i = 0; i < ws_n_templates; i++) {
		const struct ws_template *r = &ws_templates[i];
		if (!ws_template_on(r, &c->feat) || r->scope == WS_SC_MTP)
			continue;
		int role = (int)r->role;
		int b = r->kind == WS_KIND_BIAS;
		bool free_kind = kind_free(role);
		if (r->scope == WS_SC_GLOBAL) {
			bool found = ws_rs_has(&c->gmask[b], role) ||
				     (free_kind && ws_rs_has(&c->gmask[!b], role));
			if (!found && missing++ < FINDING_CAP &&
			    ws_model_add_finding(c->m, WS_SEV_ERROR, "missing-tensor", NULL, (int)r->role, -1,
						 false, 0, 0, "no %s %s tensor",
						 role_names[r->role], kind_word(r->kind)) < 0)
				return -1;
			continue;
		}
		uint64_t want = 0, lack = 0, first = 0;
		for (uint64_t l = 0; l < a->num_layers; l++) {
			if (!c->present[l] || !ws_template_in_block(r, ws_arch_layer_block(a, l)) ||
			    (l == 0 && r->scope == WS_SC_LAYER1))
				continue;
			want++;
			bool have = ws_rs_has(&c->mask[2 * l + b], role) ||
				    (free_kind && ws_rs_has(&c->mask[2 * l + !b], role));
			if (!have && lack++ == 0)
				first = l;
		}
		if (!lack)
			continue;
		if (lack == want && want > 1) {
			if (missing++ < FINDING_CAP &&
			    ws_model_add_finding(c->m, WS_SEV_ERROR, "missing-tensor", NULL, (int)r->role, -1,
						 false, 0, 0, "no %s %s in any of the %llu blocks that should have one",
						 role_names[r->role], kind_word(r->kind),
						 (unsigned long long)want) < 0)
				return -1;
			continue;
		}
		for (uint64_t l = first; l < a->num_layers; l++) {
			if (!c->present[l] || !ws_template_in_block(r, ws_arch_layer_block(a, l)) ||
			    (l == 0 && r->scope == WS_SC_LAYER1))
				continue;
			bool have = ws_rs_has(&c->mask[2 * l + b], role) ||
				    (free_kind && ws_rs_has(&c->mask[2 * l + !b], role));
			if (have || missing++ >= FINDING_CAP)
				continue;
			if (ws_model_add_finding(c->m, WS_SEV_ERROR, "missing-tensor", NULL, (int)r->role,
						 (int32_t)l, false, 0, 0, "block %llu has no %s %s",
						 (unsigned long long)l, role_names[r->role],
						 kind_word(r->kind)) < 0)
				return -1;
		}
	}
	if (missing > FINDING_CAP &&
	    ws_model_add_finding(c->m, WS_SEV_ERROR, "missing-tensor", NULL, -1, -1, false, 0, 0,
				 "and %u more missing tensors", missing - FINDING_CAP) < 0)
		return -1;
	return 0;
}

static int
etrip_cmp(const void *x, const void *y)
{
	const struct etrip *a = x, *b = y;
	if (a->layer != b->layer)
		return a->layer < b->layer ? -1 : 1;
	if (a->role != b->role || a->kind != b->kind)
		return a->role != b->role ? (a->role < b->role ? -1 : 1) : (a->kind < b->kind ? -1 : 1);
	return a->expert < b->expert ? -1 : a->expert > b->expert;
}

/* The name of expert `e`'s tensor, from a sibling's name: the digits after
 * "experts." replaced.  Empty when the name has no such part. */
static void
expert_name(const ws_tensor *sib, uint64_t e, char *buf, size_t len)
{
	const char *n = sib->name, *end = n + sib->name_len, *p = n;
	buf[0] = '\0';
	for (; p + 8 <= end; p++) {
		if (memcmp(p, "experts.", 8) || p + 8 >= end || p[8] < '0' || p[8] > '9')
			continue;
		const char *q = p + 8;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		snprintf(buf, len, "%.*s%llu%.*s", (int)(p + 8 - n), n, (unsigned long long)e,
			 (int)(end - q), q);
		return;
	}
}

/* Experts stored one tensor each: name every expert missing from a block
 * (missing-tensor), or say once that every block stores the same number
 * of experts and the architecture declares another. */
static int
cmp_experts(struct cmp *c)
{
	uint64_t n_exp = c->a->num_experts, common = 0, missing = 0;
	bool uniform = true;
	char name[256], key[96];

	if (!c->n_et)
		return 0;
	qsort(c->et, c->n_et, sizeof *c->et, etrip_cmp);
	/* pass 0: is every (block, role) group experts 0..D-1 for one D?
	 * pass 1 (not uniform): the gaps in 0..n_exp-1, group by group */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0, j; i < c->n_et; i = j) {
			uint64_t distinct = 0;
			for (j = i; j < c->n_et && c->et[j].layer == c->et[i].layer &&
				    c->et[j].role == c->et[i].role && c->et[j].kind == c->et[i].kind; j++)
				if (j == i || c->et[j].expert != c->et[j - 1].expert)
					distinct++;
			if (pass == 0) {
				common = i ? common : distinct;
				uniform = uniform && distinct == common && c->et[j - 1].expert + 1 == distinct;
				continue;
			}
			const struct etrip *g = &c->et[i];
			const ws_tensor *sib = &c->m->tensors[g->tensor];
			uint64_t want = 0;  /* the next expert index not yet seen */
			for (size_t k = i; k <= j && want < n_exp; k++) {
				uint64_t upto = k < j && c->et[k].expert < n_exp ? c->et[k].expert : n_exp;
				if (k < j && c->et[k].expert < want)
					continue;  /* a duplicate index */
				/* name the first few, count the rest without a walk */
				for (; want < upto && missing < FINDING_CAP; want++, missing++) {
					expert_name(sib, want, name, sizeof name);
					if (ws_model_add_finding(c->m, WS_SEV_ERROR, "missing-tensor",
								 name[0] ? name : NULL, (int)g->role,
								 (int32_t)g->layer, false, 0, 0,
								 "block %llu has no %s %s for expert %llu",
								 (unsigned long long)g->layer, role_names[g->role],
								 kind_word((ws_kind)g->kind),
								 (unsigned long long)want) < 0)
						return -1;
				}
				if (want < upto) {
					missing += upto - want;
					want = upto;
				}
				if (k < j)
					want = upto + 1;
			}
		}
		if (uniform)
			break;
	}
	if (missing > FINDING_CAP &&
	    ws_model_add_finding(c->m, WS_SEV_ERROR, "missing-tensor", NULL, -1, -1, false, 0, 0,
				 "and %llu more missing expert tensors",
				 (unsigned long long)(missing - FINDING_CAP)) < 0)
		return -1;
	if (uniform && common != n_exp &&
	    ws_model_add_finding(c->m, WS_SEV_ERROR, "count-mismatch", NULL, -1, -1, true, n_exp, common,
				 "every MoE block stores %llu experts; the architecture declares %llu (%s)",
				 (unsigned long long)common, (unsigned long long)n_exp,
				 ws_arch_key_label(c->a, WS_AK_EXPERTS, key, sizeof key)) < 0)
		return -1;
	return 0;
}

/* Experts stacked [E, ...] (GGUF, fused Hugging Face layouts): when every
 * stack holds the same E and the architecture declares another, the
 * expert count is wrong; say so once, naming its key. */
static int
cmp_stacks(struct cmp *c)
{
	char key[96];

	if (!c->n_stacks || c->stacks_differ || c->stack_e == c->a->num_experts)
		return 0;
	return ws_model_add_finding(c->m, WS_SEV_ERROR, "count-mismatch", NULL, -1, -1, true,
				    c->a->num_experts, c->stack_e,
				    "every MoE block stores %llu experts; the architecture declares %llu (%s)",
				    (unsigned long long)c->stack_e, (unsigned long long)c->a->num_experts,
				    ws_arch_key_label(c->a, WS_AK_EXPERTS, key, sizeof key)) < 0 ? -1 : 0;
}

static int
u64_cmp(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	return a < b ? -1 : a > b;
}

/* A block whose parameter total differs from most blocks of its kind. */
static int
cmp_siblings(struct cmp *c)
{
	const struct ws_arch *a = c->a;
	uint64_t *v = malloc(((size_t)a->num_layers + 1) * sizeof *v);
	unsigned odd = 0;

	if (!v)
		return -1;
	for (int k = 0; k < WS_BK_COUNT; k++) {
		size_t n = 0;
		/* block 0 counted as if it held what only the later ones do */
		uint64_t lack0 = c->f ? c->f->first_less : 0;
		for (uint64_t l = 0; l < a->num_layers; l++)
			if (c->present[l] && ws_arch_layer_block(a, l) == k)
				v[n++] = c->ltot[l] + (l ? 0 : lack0);
		if (n < 3)
			continue;  /* no majority to speak of */
		qsort(v, n, sizeof *v, u64_cmp);
		uint64_t mode = v[0];
		size_t best = 0, run = 0;
		for (size_t i = 0; i < n; i++) {
			run = i && v[i] == v[i - 1] ? run + 1 : 1;
			if (run > best) {
				best = run;
				mode = v[i];
			}
		}
		char g[32], e[32];
		for (uint64_t l = 0; l < a->num_layers; l++) {
			if (!c->present[l] || ws_arch_layer_block(a, l) != k ||
			    c->ltot[l] + (l ? 0 : lack0) == mode || odd++ >= FINDING_CAP)
				continue;
			if (ws_model_add_finding(c->m, WS_SEV_WARNING, "layer-inconsistent", NULL, -1,
						 (int32_t)l, true, mode, c->ltot[l],
						 "block %llu holds %s parameters; its %s siblings hold %s",
						 (unsigned long long)l, ws_fmt_commas(c->ltot[l], g, sizeof g),
						 ws_block_kind_name(k), ws_fmt_commas(mode, e, sizeof e)) < 0) {
				free(v);
				return -1;
			}
		}
	}
	free(v);
	return 0;
}

int
ws_model_compare(ws_model *m)
{
	/* the main component is the first, when it holds any tensor */
	uint32_t main = !m->n_components || m->components[0].main ? 0 : UINT32_MAX;
	return ws_model_compare_component(m, main, m->arch, m->formula);
}

int
ws_model_compare_component(ws_model *m, uint32_t comp, const struct ws_arch *a,
			   const struct ws_formula *f)
{
	struct cmp c = {.m = m, .comp = comp, .a = a, .f = f};
	ws_error e;
	int rc = -1;

	if (a && a->known && a->net)
		return comp == UINT32_MAX ? 0 : ws_net_compare(m, comp, a->net);

	if (!c.a || !c.a->known || !c.f || c.a->num_layers > WS_ARCH_MAX_LAYERS)
		return 0;
	/* Every block holds a tensor: a declared count beyond the tensors is
	 * said once, not walked block by block (the work would follow the
	 * declared number, not the bytes in hand). */
	if (c.a->num_layers > m->n_tensors)
		return ws_model_add_finding(m, WS_SEV_ERROR, "layer-gap", NULL, -1, -1, true,
					    c.a->num_layers, m->n_tensors,
					    "the architecture declares %llu blocks; the checkpoint holds only %llu tensors",
					    (unsigned long long)c.a->num_layers,
					    (unsigned long long)m->n_tensors);
	struct qval qv = {.a = c.a};
	if (q_eval(&qv, &e) < 0)
		return 0;
	c.feat = ws_template_features(c.a);
	c.mask = calloc((size_t)c.a->num_layers * 2 + 2, sizeof *c.mask);
	c.present = calloc((size_t)c.a->num_layers + 1, sizeof *c.present);
	c.ltot = calloc((size_t)c.a->num_layers + 1, sizeof *c.ltot);
	if (!c.mask || !c.present || !c.ltot)
		goto out;
	if (c.a->num_experts && m->n_tensors &&
	    !(c.et = malloc((size_t)m->n_tensors * sizeof *c.et)))
		goto out;
	if (cmp_tensors(&c, &qv) < 0 || cmp_counts(&c) < 0 || cmp_layers(&c) < 0 ||
	    cmp_experts(&c) < 0 || cmp_stacks(&c) < 0 || cmp_siblings(&c) < 0)
		goto out;
	rc = 0;
out:
	free(c.et);
	free(c.mask);
	free(c.present);
	free(c.ltot);
	return rc;
}

int
ws_arch_quantities(const struct ws_arch *a, uint64_t v[WS_Q_COUNT], ws_error *err)
{
	struct qval qv = {.a = a};
	if (q_eval(&qv, err) < 0)
		return -1;
	memcpy(v, qv.v, sizeof qv.v);
	return 0;
}
