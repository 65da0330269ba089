/*
 * arch.c - the architecture parameters, read from a config.json or from
 * GGUF metadata.
 *
 * What each model_type means is data: one line per type in `types` (its
 * GGUF name, norm and MLP kind, the switches it always has, those it has
 * by default, and the config booleans that turn switches on or off).  The
 * few types whose config needs more than that (falcon, deepseek, llama4)
 * have a small fixup.  Every number read is validated here: negative,
 * fractional, too large or of the wrong JSON type is an input error that
 * names the key.
 */
#include <assert.h>
#include <stdatomic.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "ws/formula.h"
#include "ws/json.h"
#include "ws/net.h"
#include "ws/util.h"
#include "catalogue/catalogue.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ==== numeric fields ==== */

static const struct field {
	const char *name;   /* SPEC / JSON name */
	size_t off;
} fields[WS_AK_COUNT] = {
	[WS_AK_HIDDEN] = {"hidden_size", offsetof(struct ws_arch, hidden_size)},
	[WS_AK_LAYERS] = {"num_layers", offsetof(struct ws_arch, num_layers)},
	[WS_AK_HEADS] = {"num_heads", offsetof(struct ws_arch, num_heads)},
	[WS_AK_KV_HEADS] = {"num_kv_heads", offsetof(struct ws_arch, num_kv_heads)},
	[WS_AK_HEAD_DIM] = {"head_dim", offsetof(struct ws_arch, head_dim)},
	[WS_AK_V_HEAD_DIM] = {"v_head_dim", offsetof(struct ws_arch, v_head_dim)},
	[WS_AK_INTER] = {"intermediate_size", offsetof(struct ws_arch, intermediate_size)},
	[WS_AK_VOCAB] = {"vocab_size", offsetof(struct ws_arch, vocab_size)},
	[WS_AK_POSITIONS] = {"max_position_embeddings", offsetof(struct ws_arch, max_position_embeddings)},
	[WS_AK_SLIDING] = {"sliding_window", offsetof(struct ws_arch, sliding_window)},
	[WS_AK_EXPERTS] = {"num_experts", offsetof(struct ws_arch, num_experts)},
	[WS_AK_TOPK] = {"experts_per_tok", offsetof(struct ws_arch, experts_per_tok)},
	[WS_AK_MOE_INTER] = {"moe_intermediate_size", offsetof(struct ws_arch, moe_intermediate_size)},
	[WS_AK_SHARED_N] = {"shared_experts", offsetof(struct ws_arch, shared_experts)},
	[WS_AK_SHARED_INTER] = {"shared_intermediate_size", offsetof(struct ws_arch, shared_intermediate_size)},
	[WS_AK_FIRST_DENSE] = {"first_k_dense", offsetof(struct ws_arch, first_k_dense)},
	[WS_AK_MOE_STEP] = {"moe_step", offsetof(struct ws_arch, moe_step)},
	[WS_AK_Q_LORA] = {"q_lora_rank", offsetof(struct ws_arch, q_lora_rank)},
	[WS_AK_KV_LORA] = {"kv_lora_rank", offsetof(struct ws_arch, kv_lora_rank)},
	[WS_AK_QK_NOPE] = {"qk_nope_head_dim", offsetof(struct ws_arch, qk_nope_head_dim)},
	[WS_AK_QK_ROPE] = {"qk_rope_head_dim", offsetof(struct ws_arch, qk_rope_head_dim)},
	[WS_AK_NEXTN] = {"num_nextn_predict_layers", offsetof(struct ws_arch, num_nextn_predict_layers)},
	[WS_AK_INDEX_HEADS] = {"index_heads", offsetof(struct ws_arch, index_heads)},
	[WS_AK_INDEX_HEAD_DIM] = {"index_head_dim", offsetof(struct ws_arch, index_head_dim)},
	[WS_AK_TYPE_VOCAB] = {"type_vocab_size", offsetof(struct ws_arch, type_vocab_size)},
	[WS_AK_LABELS] = {"num_labels", offsetof(struct ws_arch, num_labels)},
	[WS_AK_EMBED_SIZE] = {"embedding_size", offsetof(struct ws_arch, embedding_size)},
	[WS_AK_CHANNELS] = {"num_channels", offsetof(struct ws_arch, num_channels)},
	[WS_AK_IMAGE] = {"image_size", offsetof(struct ws_arch, image_size)},
	[WS_AK_PATCH] = {"patch_size", offsetof(struct ws_arch, patch_size)},
	[WS_AK_PATCHES] = {"num_patches", offsetof(struct ws_arch, num_patches)},
	[WS_AK_POOLER_OUT] = {"pooler_output_size", offsetof(struct ws_arch, pooler_output_size)},
	[WS_AK_PROJ] = {"projection_dim", offsetof(struct ws_arch, projection_dim)},
	[WS_AK_SSM_INNER] = {"ssm_inner_size", offsetof(struct ws_arch, ssm_inner)},
	[WS_AK_SSM_STATE] = {"ssm_state_size", offsetof(struct ws_arch, ssm_state)},
	[WS_AK_SSM_CONV] = {"ssm_conv_kernel", offsetof(struct ws_arch, ssm_conv)},
	[WS_AK_SSM_RANK] = {"ssm_dt_rank", offsetof(struct ws_arch, ssm_rank)},
	[WS_AK_SSM_HEADS] = {"ssm_heads", offsetof(struct ws_arch, ssm_heads)},
	[WS_AK_SSM_GROUPS] = {"ssm_groups", offsetof(struct ws_arch, ssm_groups)},
	[WS_AK_LIN_K_HEADS] = {"linear_key_heads", offsetof(struct ws_arch, lin_k_heads)},
	[WS_AK_LIN_V_HEADS] = {"linear_value_heads", offsetof(struct ws_arch, lin_v_heads)},
	[WS_AK_LIN_K_DIM] = {"linear_key_head_dim", offsetof(struct ws_arch, lin_k_dim)},
	[WS_AK_LIN_V_DIM] = {"linear_value_head_dim", offsetof(struct ws_arch, lin_v_dim)},
	[WS_AK_REL_ROWS] = {"relative_position_rows", offsetof(struct ws_arch, rel_rows)},
	[WS_AK_REGISTERS] = {"num_register_tokens", offsetof(struct ws_arch, num_registers)},
	[WS_AK_TEMPORAL] = {"temporal_patch_size", offsetof(struct ws_arch, temporal_patch)},
	[WS_AK_MERGE] = {"merge_size", offsetof(struct ws_arch, merge_size)},
	[WS_AK_OUT] = {"output_width", offsetof(struct ws_arch, out_width)},
	[WS_AK_EXTRA_ROWS] = {"extra_embedding_rows", offsetof(struct ws_arch, extra_rows)},
	[WS_AK_TILES] = {"max_num_tiles", offsetof(struct ws_arch, max_tiles)},
	[WS_AK_ASPECTS] = {"aspect_ratio_ids", offsetof(struct ws_arch, aspect_ids)},
};

static uint64_t *
field_ptr(struct ws_arch *a, enum ws_arch_key k)
{
	return (uint64_t *)(void *)((char *)a + fields[k].off);
}

uint64_t
ws_arch_value(const struct ws_arch *a, enum ws_arch_key k)
{
	return *(const uint64_t *)(const void *)((const char *)a + fields[k].off);
}

const char *
ws_arch_key_name(enum ws_arch_key k)
{
	return fields[k].name;
}

const char *
ws_arch_key_label(const struct ws_arch *a, enum ws_arch_key k, char *buf, size_t len)
{
	const char *key = a->keys[k];
	if (!key)
		snprintf(buf, len, "'%s'", fields[k].name);
	else if (strcmp(a->source, "inferred") == 0)
		snprintf(buf, len, "'%s' (inferred from %s)", fields[k].name, key);
	else if (strcmp(a->source, "gguf") == 0)
		snprintf(buf, len, "GGUF key '%s%s'", a->key_prefix, key);
	else
		snprintf(buf, len, "config key '%s'", key);
	return buf;
}

static void
set_field(struct ws_arch *a, enum ws_arch_key k, uint64_t v, const char *key)
{
	*field_ptr(a, k) = v;
	a->keys[k] = key;
}

/* ==== model types: the catalogue (src/catalogue/) ==== */

struct cfg;
typedef int (*fixup_fn)(struct cfg *c);

static int fix_falcon(struct cfg *c);
static int read_sopts(struct cfg *c, const struct ws_cat_entry *t);
static int read_encoder_late(struct cfg *c);
static int fix_deepseek(struct cfg *c);
static int fix_llama4(struct cfg *c);
static int fix_mllama(struct cfg *c);
static int fix_ff_adjust(struct cfg *c);

static const fixup_fn fixups[] = {
	[WS_FIX_NONE] = NULL,
	[WS_FIX_FALCON] = fix_falcon,
	[WS_FIX_DEEPSEEK] = fix_deepseek,
	[WS_FIX_LLAMA4] = fix_llama4,
	[WS_FIX_MLLAMA] = fix_mllama,
	[WS_FIX_FF_ADJUST] = fix_ff_adjust,
};

/* ==== config.json ==== */

/* Config keys for each field, first present wins (GPT-2, BLOOM, Falcon
 * RW, ChatGLM spell them differently). */
static const struct cfg_key {
	enum ws_arch_key field;
	const char *keys[5];
} cfg_keys[] = {
	{WS_AK_HIDDEN, {"hidden_size", "n_embd", "n_embed", "d_model"}},
	{WS_AK_LAYERS, {"num_hidden_layers", "n_layer", "num_layers", "n_layers"}},
	{WS_AK_HEADS, {"num_attention_heads", "n_head", "num_heads", "n_heads"}},
	{WS_AK_KV_HEADS, {"num_key_value_heads", "num_kv_heads", "n_head_kv", "multi_query_group_num", "n_kv_heads"}},
	{WS_AK_HEAD_DIM, {"head_dim", "kv_channels"}},
	{WS_AK_INTER, {"intermediate_size", "n_inner", "ffn_hidden_size", "ffn_dim"}},
	{WS_AK_VOCAB, {"padded_vocab_size", "vocab_size"}},
	{WS_AK_POSITIONS, {"n_positions", "max_position_embeddings"}},
	{WS_AK_SLIDING, {"sliding_window"}},
	{WS_AK_EXPERTS, {"num_local_experts", "num_experts", "n_routed_experts"}},
	{WS_AK_TOPK, {"num_experts_per_tok", "experts_per_token", "moe_topk"}},
	{WS_AK_MOE_INTER, {"moe_intermediate_size"}},
	{WS_AK_SHARED_N, {"n_shared_experts"}},
	{WS_AK_SHARED_INTER, {"shared_expert_intermediate_size", "moe_shared_expert_intermediate_size"}},
	{WS_AK_FIRST_DENSE, {"first_k_dense_replace"}},
	{WS_AK_Q_LORA, {"q_lora_rank"}},
	{WS_AK_KV_LORA, {"kv_lora_rank"}},
	{WS_AK_QK_NOPE, {"qk_nope_head_dim"}},
	{WS_AK_QK_ROPE, {"qk_rope_head_dim"}},
	{WS_AK_NEXTN, {"num_nextn_predict_layers"}},
	{WS_AK_INDEX_HEADS, {"index_n_heads"}},
	{WS_AK_INDEX_HEAD_DIM, {"index_head_dim"}},
	{WS_AK_PROJ, {"projection_dim", "projection_size"}},
	/* towers: a patch over frames (Qwen-VL), patches merged before the
	 * projector; an adapter's output width only by a type's own key */
	{WS_AK_TEMPORAL, {"temporal_patch_size"}},
	{WS_AK_MERGE, {"spatial_merge_size"}},
	{WS_AK_OUT, {NULL}},
	{WS_AK_PATCHES, {NULL}},  /* a position table's own count (Qwen3-VL) */
};

/* MoE layer spacing: the key and whether layer i is MoE when
 * i % step == 0 (DeepSeek) or (i + 1) % step == 0 (Qwen, Llama 4). */
static const struct step_key {
	const char *key;
	uint64_t offset;
} step_keys[] = {
	{"moe_layer_freq", 0},
	{"decoder_sparse_step", 1},
	{"interleave_moe_layer_step", 1},
};

struct cfg {
	const cJSON *root, *text; /* text: text_config of a wrapper, or NULL */
	const char *path;
	struct ws_arch *a;
	ws_error *err;
	const struct ws_cat_entry *entry; /* its class defaults, or NULL */
	cJSON *defs;              /* those defaults as JSON values */
	bool no_defaults;         /* look in the file only */
	/* a wrapper's own defaults for this sub-config, over the type's */
	const struct ws_cat_default *part_defs;
};

_Static_assert(WS_ARCH_MAX_DEFAULTED >= WS_CAT_MAX_DEFAULTS,
	       "every class default of an entry can be listed as defaulted");

/* Record that key came from the class defaults (once). */
static void
note_default(struct ws_arch *a, const char *key)
{
	for (uint32_t i = 0; i < a->n_defaulted; i++)
		if (strcmp(a->defaulted[i], key) == 0)
			return;
	if (a->n_defaulted < WS_ARCH_MAX_DEFAULTED)
		a->defaulted[a->n_defaulted++] = key;
}

/* The item for key: the text model's config first, then the wrapper's,
 * then the class default; a JSON null counts as absent. */
static const cJSON *
cfg_item(const struct cfg *c, const char *key)
{
	const cJSON *it = NULL;
	if (c->text)
		it = cJSON_GetObjectItemCaseSensitive(c->text, key);
	if (!it)
		it = cJSON_GetObjectItemCaseSensitive(c->root, key);
	if (it && !cJSON_IsNull(it))
		return it;
	if (c->no_defaults || !c->entry || !c->defs)
		return NULL;
	/* the wrapper's default for its sub-config, else the type's */
	const struct ws_cat_default *d = NULL;
	for (size_t i = 0; c->part_defs && !d && c->part_defs[i].kind != WS_CAT_END; i++)
		if (!strcmp(c->part_defs[i].key, key))
			d = &c->part_defs[i];
	if (!d)
		d = ws_cat_default(c->entry, key);
	if (!d)
		return NULL;
	note_default(c->a, d->key);
	return cJSON_GetObjectItemCaseSensitive(c->defs, key);
}

/* The class defaults of e as a JSON object, so that they are read and
 * validated exactly as the file's values; NULL when out of memory. */
static cJSON *
defaults_json(const struct ws_cat_entry *e)
{
	cJSON *o = cJSON_CreateObject();
	for (size_t i = 0; o && i < WS_CAT_MAX_DEFAULTS && e->defs[i].kind != WS_CAT_END; i++) {
		const struct ws_cat_default *d = &e->defs[i];
		cJSON *v = d->kind == WS_CAT_NUM ? cJSON_CreateNumber((double)d->num)
			 : d->kind == WS_CAT_LAYERS ? cJSON_CreateArray()
			 : cJSON_CreateBool(d->kind == WS_CAT_TRUE);
		/* a list of layers: bit i is index i */
		for (int b = 0; v && d->kind == WS_CAT_LAYERS && b < 64; b++) {
			cJSON *x = d->num >> b & 1 ? cJSON_CreateNumber(b) : NULL;
			if (x && !cJSON_AddItemToArray(v, x))
				cJSON_Delete(x);
		}
		if (!v || !cJSON_AddItemToObject(o, d->key, v)) {
			cJSON_Delete(v);
			cJSON_Delete(o);
			return NULL;
		}
	}
	return o;
}

/* A wrapper's defaults for a sub-config (catalogue part) over the
 * type's in o; false when out of memory. */
static bool
overlay_defaults(cJSON *o, const struct ws_cat_default *d)
{
	for (size_t i = 0; o && d && d[i].kind != WS_CAT_END; i++) {
		cJSON *v = d[i].kind == WS_CAT_NUM ? cJSON_CreateNumber((double)d[i].num)
			 : cJSON_CreateBool(d[i].kind == WS_CAT_TRUE);
		if (!v)
			return false;
		cJSON_DeleteItemFromObjectCaseSensitive(o, d[i].key);
		if (!cJSON_AddItemToObject(o, d[i].key, v)) {
			cJSON_Delete(v);
			return false;
		}
	}
	return true;
}

static const char *
json_type_name(const cJSON *it)
{
	if (cJSON_IsString(it))
		return "a string";
	if (cJSON_IsBool(it))
		return "a boolean";
	if (cJSON_IsArray(it))
		return "an array";
	if (cJSON_IsObject(it))
		return "an object";
	/* where an object or a list was expected */
	if (cJSON_IsNumber(it))
		return "a number";
	return "not a number";
}

static int
num_value(const struct cfg *c, const char *key, const cJSON *it, uint64_t *out)
{
	double v = cJSON_IsNumber(it) ? it->valuedouble : 0;
	switch (ws_json_count(it, out)) {
	case WS_JSON_COUNT_OK:
		return 0;
	case WS_JSON_COUNT_NOT_NUMBER:
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key '%s': expected a non-negative integer, got %s",
			      key, json_type_name(it));
	case WS_JSON_COUNT_NONFINITE: /* Python's json writes these: named as the file spells them */
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key '%s': %s is not an integer", key, ws_json_nonfinite_name(v));
	case WS_JSON_COUNT_NEGATIVE:
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key '%s': %g is negative", key, v);
	case WS_JSON_COUNT_TOO_LARGE:
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key '%s': %g is too large", key, v);
	case WS_JSON_COUNT_FRACTION:
		break;
	}
	return ws_err(c->err, WS_EXIT_INPUT, c->path,
		      "config key '%s': %g is not an integer", key, v);
}

/* 1 = found (in *out), 0 = absent, -1 = invalid. */
static int
cfg_u64(const struct cfg *c, const char *key, uint64_t *out)
{
	const cJSON *it = cfg_item(c, key);
	if (!it)
		return 0;
	return num_value(c, key, it, out) < 0 ? -1 : 1;
}

static int
cfg_bool(const struct cfg *c, const char *key, bool *out)
{
	const cJSON *it = cfg_item(c, key);
	if (!it)
		return 0;
	if (!cJSON_IsBool(it))
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key '%s': expected true or false, got %s",
			      key, cJSON_IsNumber(it) ? "a number" : json_type_name(it));
	*out = cJSON_IsTrue(it);
	return 1;
}

static const char *
cfg_str(const struct cfg *c, const char *key)
{
	const cJSON *it = cfg_item(c, key);
	return cJSON_IsString(it) ? it->valuestring : NULL;
}

static int
cfg_flag(struct cfg *c, const char *key, const ws_switches *flags, bool off)
{
	bool v = false;
	int r = cfg_bool(c, key, &v);
	if (r > 0) {
		if (v != off)
			ws_sw_or(&c->a->flags, flags);
		else
			ws_sw_andnot(&c->a->flags, flags);
	}
	return r < 0 ? -1 : 0;
}

static int
read_mlp_only_layers(struct cfg *c)
{
	const cJSON *list = cfg_item(c, "mlp_only_layers");
	if (!list)
		return 0;
	if (!cJSON_IsArray(list))
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'mlp_only_layers': expected an array, got %s",
			      json_type_name(list));
	int n = cJSON_GetArraySize(list);
	if (n <= 0)
		return 0;
	if ((unsigned)n > WS_ARCH_MAX_LAYERS)
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'mlp_only_layers': %d entries is too many", n);
	uint32_t *v = calloc((size_t)n, sizeof *v);
	if (!v)
		return ws_err_oom(c->err, c->path);
	uint32_t k = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, list) {
		uint64_t x;
		if (num_value(c, "mlp_only_layers", it, &x) < 0) {
			free(v);
			return -1;
		}
		if (x < WS_ARCH_MAX_LAYERS)   /* beyond any layer: no effect */
			v[k++] = (uint32_t)x;
	}
	c->a->mlp_only_layers = v;
	c->a->n_mlp_only_layers = k;
	return 0;
}

/* layer_types, one kind per layer (a kind the catalogue does not name
 * is kept as attention: it has attention's tensors or none we count). */
static int
read_layer_types(struct cfg *c)
{
	const cJSON *list = cfg_item(c, "layer_types");
	if (!list)
		return 0;
	if (!cJSON_IsArray(list))
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'layer_types': expected an array, got %s",
			      json_type_name(list));
	int n = cJSON_GetArraySize(list);
	if (n <= 0)
		return 0;
	if ((unsigned)n > WS_ARCH_MAX_LAYERS)
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'layer_types': %d entries is too many", n);
	uint8_t *v = calloc((size_t)n, 1);
	if (!v)
		return ws_err_oom(c->err, c->path);
	uint64_t k = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, list) {
		int kind = cJSON_IsString(it) ? ws_layer_kind_from_config(it->valuestring) : -1;
		v[k++] = (uint8_t)(kind < 0 ? WS_LK_ATTENTION : kind);
	}
	c->a->layer_types = v;
	c->a->n_layer_types = k;
	return 0;
}

/* The sliding-window rule of the type and the values it reads, and the
 * dtype the model runs in. */
static int
read_sliding(struct cfg *c, const struct ws_cat_entry *t)
{
	struct ws_arch *a = c->a;
	uint64_t v;
	int r;
	a->slide_rule = t ? (int)t->slide : WS_SLIDE_ALL;
	a->slide_period = t ? t->slide_period : 0;
	/* a number (every period-th layer is global) or, in EXAONE 4's
	 * released configs, a string of L (local) and G per layer */
	const char *pat = cfg_str(c, "sliding_window_pattern");
	if (pat) {
		size_t n = strlen(pat);
		if (n == 0 || n >= sizeof a->slide_pattern)
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key 'sliding_window_pattern': a pattern of %zu letters "
				      "(1 to %zu expected)", n, sizeof a->slide_pattern - 1);
		memcpy(a->slide_pattern, pat, n + 1);
		a->slide_rule = WS_SLIDE_STRING;
	} else if ((r = cfg_u64(c, "sliding_window_pattern", &v)) < 0) {
		return -1;
	} else if (r > 0) {
		a->slide_period = v;
	}
	if (cfg_bool(c, "use_sliding_window", &a->slide_on) < 0)
		return -1;
	if ((r = cfg_u64(c, "max_window_layers", &v)) < 0)
		return -1;
	if (r > 0)
		a->slide_from = v;
	static const char *const dtype_keys[] = {"torch_dtype", "dtype"};
	for (size_t k = 0; k < ARRAY_LEN(dtype_keys) && !a->dtype[0]; k++) {
		const char *d = cfg_str(c, dtype_keys[k]);
		if (d && strlen(d) < sizeof a->dtype)
			memcpy(a->dtype, d, strlen(d) + 1);
	}
	return read_layer_types(c);
}

/* A size transformers accepts as one number (square) or as [height,
 * width]: 1 = found, 0 = absent, -1 = invalid. */
static int
cfg_size2(const struct cfg *c, const char *key, uint64_t hw[2])
{
	const cJSON *it = cfg_item(c, key);
	if (!it)
		return 0;
	if (!cJSON_IsArray(it)) {
		if (num_value(c, key, it, &hw[0]) < 0)
			return -1;
		hw[1] = hw[0];
		return 1;
	}
	if (cJSON_GetArraySize(it) != 2)
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key '%s': a list of %d numbers (one, or height and width, expected)",
			      key, cJSON_GetArraySize(it));
	return num_value(c, key, cJSON_GetArrayItem(it, 0), &hw[0]) < 0 ||
	       num_value(c, key, cJSON_GetArrayItem(it, 1), &hw[1]) < 0 ? -1 : 1;
}

/* An image encoder's input: channels, and images cut into patches,
 * (height / patch height) x (width / patch width) of them (the
 * convolution's stride is the patch, so a remainder is dropped); its
 * pooler's width.  Sizes are one number (square) or [height, width]. */
static int
read_patches(struct cfg *c)
{
	static const struct { enum ws_arch_key field; const char *key; } keys[] = {
		{WS_AK_CHANNELS, "num_channels"}, {WS_AK_IMAGE, "image_size"}, {WS_AK_PATCH, "patch_size"},
	};
	struct ws_arch *a = c->a;
	uint64_t hw[3][2];
	/* rotary patches (no position table) come in any size */
	bool any_size = ws_sw_has(&a->flags, WS_ARCH_NO_PATCH_POS) || a->keys[WS_AK_PATCHES];
	for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
		/* the type's own spelling (Qwen-VL's in_channels) first */
		const char *key = keys[i].key;
		for (size_t k = 0; c->entry && k < WS_CAT_MAX_ALIASES && c->entry->aliases[k].key; k++)
			if (c->entry->aliases[k].field == keys[i].field)
				key = c->entry->aliases[k].key;
		int r = cfg_size2(c, key, hw[i]);
		if (r < 0)
			return -1;
		if (r == 0 && i == 1 && any_size) {
			hw[1][0] = hw[1][1] = 0;
			continue;
		}
		if (r == 0 || hw[i][0] == 0 || hw[i][1] == 0)
			return ws_err(c->err, WS_EXIT_INPUT, c->path, "config key '%s' %s", key,
				      r ? "must be positive" : "is missing");
		if (i == 0 && hw[0][0] != hw[0][1])
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key '%s': one number expected", key);
		set_field(a, keys[i].field, hw[i][0], key);
	}
	/* ViTConfig's pooler may be narrower or wider than the layers */
	uint64_t v;
	int r = cfg_u64(c, "pooler_output_size", &v);
	if (r < 0)
		return -1;
	if (r > 0)
		set_field(a, WS_AK_POOLER_OUT, v, "pooler_output_size");
	/* a position table of its own count (Qwen3-VL's, interpolated to
	 * the image) keeps it */
	if (!a->image_size || a->keys[WS_AK_PATCHES])
		return 0;
	uint64_t rows = hw[1][0] / hw[2][0], cols = hw[1][1] / hw[2][1];
	if (rows == 0 || cols == 0)
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'image_size': %llu is smaller than patch_size %llu",
			      (unsigned long long)(rows ? hw[1][1] : hw[1][0]),
			      (unsigned long long)(rows ? hw[2][1] : hw[2][0]));
	if (!ws_mul_u64(rows, cols, &a->num_patches))
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'image_size': %llu makes the patch count overflow 64 bits",
			      (unsigned long long)a->image_size);
	return 0;
}

static int u32_cmp(const void *x, const void *y);

/* A tower's window attention: window_size in pixels (a whole number
 * of merged patches, at least one) and fullatt_block_indexes, the
 * blocks that attend over the whole image; every other block attends
 * within its window (as the modeling code tests membership), so with
 * no list and no class default every block is windowed. */
static int
read_vision_window(struct cfg *c)
{
	struct ws_arch *a = c->a;
	uint64_t w, cell;
	int r = cfg_u64(c, "window_size", &w);
	if (r <= 0)
		return r;
	if (!ws_mul_u64(a->patch_size, a->merge_size ? a->merge_size : 1, &cell) || w < cell)
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'window_size': %llu pixels is less than one merged patch (%llu)",
			      (unsigned long long)w, (unsigned long long)cell);
	const cJSON *list = cfg_item(c, "fullatt_block_indexes"), *it;
	if (list && !cJSON_IsArray(list))
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'fullatt_block_indexes': expected an array, got %s", json_type_name(list));
	int n = list ? cJSON_GetArraySize(list) : 0;
	if ((uint64_t)n > a->num_layers)
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'fullatt_block_indexes': %d entries for %llu blocks", n,
			      (unsigned long long)a->num_layers);
	uint32_t *v = n ? calloc((size_t)n, sizeof *v) : NULL;
	if (n && !v)
		return ws_err_oom(c->err, c->path);
	uint32_t k = 0;
	cJSON_ArrayForEach(it, list) {
		uint64_t x;
		if (num_value(c, "fullatt_block_indexes", it, &x) < 0) {
			free(v);
			return -1;
		}
		if (x >= a->num_layers) {
			free(v);
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key 'fullatt_block_indexes': block %llu of a tower of %llu blocks",
				      (unsigned long long)x, (unsigned long long)a->num_layers);
		}
		/* a block named twice is one block */
		bool dup = false;
		for (uint32_t i = 0; i < k; i++)
			dup |= v[i] == x;
		if (!dup)
			v[k++] = (uint32_t)x;
	}
	if (k)
		qsort(v, k, sizeof *v, u32_cmp);
	a->vision_window = w;
	a->full_attn_blocks = v;
	a->n_full_attn_blocks = k;
	return 0;
}

/* An encoder's token-type rows, and a classifier's outputs as
 * PretrainedConfig counts them: num_labels, else one per id2label entry,
 * else its default 2. */
static int
read_encoder(struct cfg *c)
{
	struct ws_arch *a = c->a;
	uint64_t v;
	int r;
	if (ws_sw_has(&a->flags, WS_ARCH_TYPE_EMBED)) {
		if ((r = cfg_u64(c, "type_vocab_size", &v)) < 0)
			return -1;
		if (r > 0)
			set_field(a, WS_AK_TYPE_VOCAB, v, "type_vocab_size");
	}
	if (ws_sw_has(&a->flags, WS_ARCH_EMBED_SIZE)) {
		if ((r = cfg_u64(c, "embedding_size", &v)) < 0)
			return -1;
		if (r > 0)
			set_field(a, WS_AK_EMBED_SIZE, v, "embedding_size");
	}
	if (ws_sw_has(&a->flags, WS_ARCH_PATCHES) && (read_patches(c) < 0 || read_vision_window(c) < 0))
		return -1;
	if (!ws_sw_has(&a->flags, WS_ARCH_CLASSIFIER) && !ws_sw_has(&a->flags, WS_ARCH_CLS_CONCAT))
		return 0;
	if ((r = cfg_u64(c, "num_labels", &v)) < 0)
		return -1;
	if (r > 0) {
		set_field(a, WS_AK_LABELS, v, "num_labels");
		return 0;
	}
	const cJSON *ids = cfg_item(c, "id2label");
	if (ids && !cJSON_IsObject(ids))
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'id2label': expected an object, got %s", json_type_name(ids));
	if (ids) {
		set_field(a, WS_AK_LABELS, (uint64_t)cJSON_GetArraySize(ids), "id2label");
	} else {
		set_field(a, WS_AK_LABELS, 2, NULL);
		note_default(a, "num_labels");
	}
	return 0;
}

/* Does the config string (items split by '|') or list of strings at
 * key name `token`?  1 yes, 0 no or absent, -1 another JSON type. */
static int
cfg_names(const struct cfg *c, const char *key, const char *token)
{
	const cJSON *it = cfg_item(c, key), *x;
	size_t n = strlen(token);
	if (!it)
		return 0;
	if (cJSON_IsString(it)) {
		for (const char *p = it->valuestring; *p;) {
			while (*p == ' ' || *p == '|')
				p++;
			size_t len = strcspn(p, "|");
			size_t end = len;
			while (end && p[end - 1] == ' ')
				end--;
			if (end == n && strncasecmp(p, token, n) == 0)
				return 1;
			p += len;
		}
		return 0;
	}
	if (!cJSON_IsArray(it))
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key '%s': expected a string or a list of strings, got %s", key,
			      json_type_name(it));
	cJSON_ArrayForEach(x, it)
		if (cJSON_IsString(x) && strcasecmp(x->valuestring, token) == 0)
			return 1;
	return 0;
}

/* The type's config strings that name parts (pos_att_type "p2c|c2p"). */
static int
read_sopts(struct cfg *c, const struct ws_cat_entry *t)
{
	for (size_t i = 0; i < ARRAY_LEN(t->sopt) && t->sopt[i].key; i++) {
		int r = cfg_names(c, t->sopt[i].key, t->sopt[i].token);
		if (r < 0)
			return -1;
		if (r > 0 && t->sopt[i].off)
			ws_sw_andnot(&c->a->flags, &t->sopt[i].flags);
		else if (r > 0)
			ws_sw_or(&c->a->flags, &t->sopt[i].flags);
	}
	return 0;
}

/* A count that may be -1 or absent for "none" (DeBERTa's
 * position_buckets, max_relative_positions): the value when it is a
 * whole number of at least 1, else 0. */
static uint64_t
cfg_positive(const struct cfg *c, const char *key)
{
	const cJSON *it = cfg_item(c, key);
	if (!cJSON_IsNumber(it) || !(it->valuedouble >= 1 && it->valuedouble < 0x1p53) ||
	    it->valuedouble != (double)(uint64_t)it->valuedouble)
		return 0;
	return (uint64_t)it->valuedouble;
}

/* What the encoders' switches read once the config's booleans and
 * strings have set them: the rows of a relative-position table, the
 * token-type table (none of 0 rows), register tokens, the widths of an
 * MLP given as a ratio. */
static int
read_encoder_late(struct cfg *c)
{
	struct ws_arch *a = c->a;
	uint64_t v;
	int r;
	if (ws_sw_has(&a->flags, WS_ARCH_TYPE_EMBED) && a->type_vocab_size == 0)
		ws_sw_clear(&a->flags, WS_ARCH_TYPE_EMBED);
	if (ws_sw_has(&a->flags, WS_ARCH_REL_EMBED)) {
		/* 2 × the buckets, else 2 × the span, which defaults to
		 * max_position_embeddings */
		const char *key = "position_buckets";
		uint64_t span = cfg_positive(c, key);
		if (!span)
			span = cfg_positive(c, key = "max_relative_positions");
		if (!span) {
			span = a->max_position_embeddings;
			key = a->keys[WS_AK_POSITIONS];
		}
		if (!span || !ws_mul_u64(2, span, &v))
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "relative attention without a position span (max_position_embeddings)");
		set_field(a, WS_AK_REL_ROWS, v, key);
	}
	if (ws_sw_has(&a->flags, WS_ARCH_REL_DIST)) {
		/* one row per distance, -(P - 1) to P - 1 */
		if (!a->max_position_embeddings || !ws_mul_u64(2, a->max_position_embeddings, &v))
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "a relative position type without max_position_embeddings");
		set_field(a, WS_AK_REL_ROWS, v - 1, a->keys[WS_AK_POSITIONS]);
	}
	if (ws_sw_has(&a->flags, WS_ARCH_REGISTERS)) {
		if ((r = cfg_u64(c, "num_register_tokens", &v)) < 0)
			return -1;
		if (r > 0)
			set_field(a, WS_AK_REGISTERS, v, "num_register_tokens");
		if (!a->num_registers)
			ws_sw_clear(&a->flags, WS_ARCH_REGISTERS);
	}
	if (ws_sw_has(&a->flags, WS_ARCH_PATCHES) && !a->keys[WS_AK_INTER]) {
		/* DINOv2: the MLP is mlp_ratio × hidden wide */
		if ((r = cfg_u64(c, "mlp_ratio", &v)) < 0)
			return -1;
		if (r > 0 && !ws_mul_u64(v, a->hidden_size, &a->intermediate_size))
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key 'mlp_ratio': %llu makes the MLP width overflow",
				      (unsigned long long)v);
		if (r > 0)
			a->keys[WS_AK_INTER] = "mlp_ratio";
	}
	if (ws_sw_has(&a->flags, WS_ARCH_REL_BIAS)) {
		/* T5's relative bias: a row per bucket, a column per head */
		if ((r = cfg_u64(c, "relative_attention_num_buckets", &v)) < 0)
			return -1;
		if (r == 0 || v == 0)
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key 'relative_attention_num_buckets' %s", r ? "must be positive" : "is missing");
		set_field(a, WS_AK_REL_ROWS, v, "relative_attention_num_buckets");
	}
	if (ws_sw_has(&a->flags, WS_ARCH_CONV_STEM)) {
		/* Whisper's first convolution reads num_mel_bins channels */
		if ((r = cfg_u64(c, "num_mel_bins", &v)) < 0)
			return -1;
		if (r == 0 || v == 0)
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key 'num_mel_bins' %s", r ? "must be positive" : "is missing");
		set_field(a, WS_AK_CHANNELS, v, "num_mel_bins");
	}
	if (ws_sw_has(&a->flags, WS_ARCH_GATED_MLP) && a->mlp == WS_MLP_PLAIN)
		a->mlp = WS_MLP_GATED;
	bool swiglu = false;
	if (cfg_bool(c, "use_swiglu_ffn", &swiglu) < 0)
		return -1;
	if (swiglu) {
		a->known = false;
		a->unsupported = "use_swiglu_ffn (a SwiGLU MLP of its own width) is not modelled";
	}
	/* DeBERTa-v2's convolution beside the first layer (conv_kernel_size) */
	if (cfg_positive(c, "conv_kernel_size")) {
		a->known = false;
		a->unsupported = "conv_kernel_size (a convolution beside the first layer) is not modelled";
	}
	return 0;
}

static int
fix_falcon(struct cfg *c)
{
	struct ws_arch *a = c->a;
	bool newdec = false, mq = true, par = true;

	if (cfg_bool(c, "new_decoder_architecture", &newdec) < 0 ||
	    cfg_bool(c, "multi_query", &mq) < 0 ||
	    cfg_bool(c, "parallel_attn", &par) < 0)
		return -1;
	/* the 40B code reads n_head_kv: its layer is the new decoder's */
	if (cJSON_GetObjectItemCaseSensitive(c->text ? c->text : c->root, "n_head_kv"))
		newdec = true;
	if (newdec) {
		/* ln_attn and ln_mlp: two norms, grouped kv heads */
		ws_sw_set(&a->flags, WS_ARCH_NEW_DECODER);
	} else if (mq) {
		ws_sw_set(&a->flags, WS_ARCH_MULTI_QUERY);
		set_field(a, WS_AK_KV_HEADS, 1, "multi_query");
	} else {
		set_field(a, WS_AK_KV_HEADS, a->num_heads, a->keys[WS_AK_HEADS]);
	}
	if (!newdec && par)
		ws_sw_set(&a->flags, WS_ARCH_PARALLEL);
	return 0;
}

static int
fix_deepseek(struct cfg *c)
{
	struct ws_arch *a = c->a;
	const char *m = cfg_str(c, "topk_method");

	/* DeepSeek-V3's aux-loss-free routing adds e_score_correction_bias */
	if (m && strcmp(m, "noaux_tc") == 0)
		ws_sw_set(&a->flags, WS_ARCH_ROUTER_SCORE_BIAS);
	return 0;
}

static int
fix_llama4(struct cfg *c)
{
	struct ws_arch *a = c->a;
	uint64_t v;
	int r;

	/* intermediate_size is the expert width; dense layers use
	 * intermediate_size_mlp; one shared expert of the expert width. */
	set_field(a, WS_AK_MOE_INTER, a->intermediate_size, a->keys[WS_AK_INTER]);
	if ((r = cfg_u64(c, "intermediate_size_mlp", &v)) < 0)
		return -1;
	if (r > 0)
		set_field(a, WS_AK_INTER, v, "intermediate_size_mlp");
	if (a->num_experts) {
		set_field(a, WS_AK_SHARED_N, 1, NULL);
		set_field(a, WS_AK_SHARED_INTER, a->moe_intermediate_size, a->keys[WS_AK_MOE_INTER]);
	}
	return 0;
}

/* Mllama: its text model's embedding holds 8 rows past the vocabulary
 * (MllamaTextModel's vocab_size + 8); its tower's tile tables are
 * max_num_tiles wide, one row per supported aspect ratio and one more. */
static int
fix_mllama(struct cfg *c)
{
	struct ws_arch *a = c->a;
	uint64_t v = 4;
	if (!ws_sw_has(&a->flags, WS_ARCH_TILES)) {
		set_field(a, WS_AK_EXTRA_ROWS, 8, NULL);
		return 0;
	}
	if (cfg_u64(c, "max_num_tiles", &v) < 0)
		return -1;
	set_field(a, WS_AK_TILES, v, "max_num_tiles");
	/* MllamaVisionConfig's default list has 8 */
	const cJSON *r = cfg_item(c, "supported_aspect_ratios");
	if (r && !cJSON_IsArray(r))
		return ws_err(c->err, WS_EXIT_INPUT, c->path,
			      "config key 'supported_aspect_ratios': expected a list, got %s", json_type_name(r));
	set_field(a, WS_AK_ASPECTS, (r ? (uint64_t)cJSON_GetArraySize(r) : 8) + 1, "supported_aspect_ratios");
	return 0;
}

/* LFM2's feed-forward width with block_auto_adjust_ff_dim: two thirds
 * of intermediate_size, times block_ffn_dim_multiplier (unless null),
 * then rounded up to a multiple of block_multiple_of, as Lfm2MLP sizes
 * w1, w3 and w2. */
static int
fix_ff_adjust(struct cfg *c)
{
	struct ws_arch *a = c->a;
	bool adjust = false;
	uint64_t of = 0;
	int r;
	if ((r = cfg_bool(c, "block_auto_adjust_ff_dim", &adjust)) < 0)
		return -1;
	if (!adjust)
		return 0;
	/* int(2 * F / 3), without overflow */
	uint64_t f = a->intermediate_size / 3 * 2 + a->intermediate_size % 3 * 2 / 3;
	const cJSON *raw = cJSON_GetObjectItemCaseSensitive(c->text ? c->text : c->root, "block_ffn_dim_multiplier");
	if (!cJSON_IsNull(raw)) {
		double m = 1.0;
		const cJSON *it = cfg_item(c, "block_ffn_dim_multiplier");
		if (it && !cJSON_IsNumber(it))
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key 'block_ffn_dim_multiplier': expected a number, got %s",
				      json_type_name(it));
		if (it)
			m = it->valuedouble;
		if (!(m >= 0 && m * (double)f < 9.0e15))
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key 'block_ffn_dim_multiplier': %g is out of range", m);
		f = (uint64_t)(m * (double)f);
		if ((r = cfg_u64(c, "block_multiple_of", &of)) < 0)
			return -1;
		if (r > 0 && of == 0)
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key 'block_multiple_of': must be positive");
		if (of && !ws_add_u64(f, of - 1, &f))
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key 'block_multiple_of': %llu is too large", (unsigned long long)of);
		if (of)
			f = f / of * of;
	}
	a->intermediate_size = f;
	return 0;
}

static int read_fields(struct cfg *c, const struct cfg_key *keys, size_t n_keys);

/* The sizes of the state-space and linear-attention mixers, by every
 * spelling the config classes use. */
static const struct cfg_key ssm_keys[] = {
	{WS_AK_SSM_STATE, {"state_size", "mamba_d_state", "ssm_state_size"}},
	{WS_AK_SSM_CONV, {"conv_kernel", "mamba_d_conv", "linear_conv_kernel_dim", "conv_L_cache"}},
	{WS_AK_SSM_HEADS, {"mamba_n_heads"}},
	{WS_AK_SSM_GROUPS, {"n_groups", "mamba_n_groups"}},
	{WS_AK_LIN_K_HEADS, {"linear_num_key_heads"}},
	{WS_AK_LIN_V_HEADS, {"linear_num_value_heads"}},
	{WS_AK_LIN_K_DIM, {"linear_key_head_dim"}},
	{WS_AK_LIN_V_DIM, {"linear_value_head_dim"}},
};

/* A period key and its offset: 1 = both read (period > 0), 0 = no
 * period, -1 = invalid. */
static int
cfg_period(struct cfg *c, const char *period, const char *offset, uint64_t *p, uint64_t *o)
{
	int r;
	*o = 0;
	if (!period || (r = cfg_u64(c, period, p)) == 0)
		return 0;
	if (r < 0 || (offset && cfg_u64(c, offset, o) < 0))
		return -1;
	if (*p == 0)
		return ws_err(c->err, WS_EXIT_INPUT, c->path, "config key '%s': must be positive", period);
	return 1;
}

/* The mixer a layer_types kind names in a stack s. */
static uint8_t
stack_mixer(const struct ws_cat_stack *s, uint8_t kind)
{
	switch ((enum ws_layer_kind)kind) {
	case WS_LK_MAMBA: return s->ssm;
	case WS_LK_MAMBA2: return WS_MIX_MAMBA2;
	case WS_LK_LINEAR: return WS_MIX_LINEAR;
	case WS_LK_CONV: return WS_MIX_CONV;
	case WS_LK_HYBRID: return WS_MIX_PARALLEL;
	default: return WS_MIX_ATTN;
	}
}

/* A stack that is not all attention: the mixers' sizes, then each
 * layer's block kind from the config's layer_types, pattern string,
 * period or interval (catalogue stack lines say which keys). */
static int
read_stack(struct cfg *c, const struct ws_cat_stack *s)
{
	struct ws_arch *a = c->a;
	uint64_t v, period, offset;
	int r;

	if (s->ssm_heads && (r = cfg_u64(c, s->ssm_heads, &v)) != 0) {
		if (r < 0)
			return -1;
		set_field(a, WS_AK_SSM_HEADS, v, s->ssm_heads);
	}
	if (read_fields(c, ssm_keys, ARRAY_LEN(ssm_keys)) < 0)
		return -1;
	/* the dt rank: a number, or "auto" (ceil(hidden / 16), as the
	 * config classes compute it) */
	static const char *const rank_keys[] = {"time_step_rank", "mamba_dt_rank"};
	for (size_t i = 0; i < ARRAY_LEN(rank_keys) && !a->keys[WS_AK_SSM_RANK]; i++) {
		const cJSON *it = cfg_item(c, rank_keys[i]);
		if (!it)
			continue;
		if (cJSON_IsString(it) && strcmp(it->valuestring, "auto") == 0)
			v = a->hidden_size / 16 + (a->hidden_size % 16 != 0);
		else if (num_value(c, rank_keys[i], it, &v) < 0)
			return -1;
		set_field(a, WS_AK_SSM_RANK, v, rank_keys[i]);
	}
	if (!a->keys[WS_AK_SSM_RANK] && s->ssm)
		set_field(a, WS_AK_SSM_RANK, a->hidden_size / 16 + (a->hidden_size % 16 != 0), NULL);
	/* the inner width: its own key, heads × head width, else expand ×
	 * hidden (a null inner key, too: not the class default) */
	const cJSON *inner_it = s->inner ? cJSON_GetObjectItemCaseSensitive(c->text ? c->text : c->root, s->inner) : NULL;
	if (s->inner && !cJSON_IsNull(inner_it) && (r = cfg_u64(c, s->inner, &v)) != 0) {
		if (r < 0)
			return -1;
		set_field(a, WS_AK_SSM_INNER, v, s->inner);
	} else if (s->ssm_head_dim && (r = cfg_u64(c, s->ssm_head_dim, &v)) != 0) {
		if (r < 0)
			return -1;
		if (!ws_mul_u64(v, a->ssm_heads, &a->ssm_inner))
			return ws_err(c->err, WS_EXIT_INPUT, c->path,
				      "config key '%s': %llu makes the inner width overflow 64 bits",
				      s->ssm_head_dim, (unsigned long long)v);
		a->keys[WS_AK_SSM_INNER] = s->ssm_head_dim;
	} else {
		static const char *const expand_keys[] = {"expand", "mamba_expand"};
		for (size_t i = 0; i < ARRAY_LEN(expand_keys) && !a->keys[WS_AK_SSM_INNER]; i++) {
			if ((r = cfg_u64(c, expand_keys[i], &v)) < 0)
				return -1;
			if (r > 0 && !ws_mul_u64(v, a->hidden_size, &a->ssm_inner))
				return ws_err(c->err, WS_EXIT_INPUT, c->path,
					      "config key '%s': %llu makes the inner width overflow 64 bits",
					      expand_keys[i], (unsigned long long)v);
			if (r > 0)
				a->keys[WS_AK_SSM_INNER] = expand_keys[i];
		}
	}
	if (s->unmodelled && cfg_positive(c, s->unmodelled)) {
		a->known = false;
		a->unsupported = s->unmodelled_why;
	}
	if ((r = cfg_period(c, s->expert_period, s->expert_offset, &period, &offset)) < 0)
		return -1;
	if (r > 0) {
		/* MoE where i % period == offset: the step rule's form */
		set_field(a, WS_AK_MOE_STEP, period, s->expert_period);
		a->moe_step_offset = (period - offset % period) % period;
	}
	if (a->num_layers > WS_ARCH_MAX_LAYERS)
		return 0;  /* arch_finish says so */
	uint64_t n = a->num_layers ? a->num_layers : 1;
	uint8_t *b = calloc((size_t)n, 1);
	if (!b)
		return ws_err_oom(c->err, c->path);
	uint64_t interval = 0;
	if ((r = cfg_period(c, s->period, s->offset, &period, &offset)) < 0 ||
	    (!r && s->interval && cfg_u64(c, s->interval, &interval) < 0)) {
		free(b);
		return -1;
	}
	/* layers a config list names (Mllama's cross_attention_layers) */
	const cJSON *lst = s->listed ? cfg_item(c, s->listed) : NULL;
	if (lst && !cJSON_IsArray(lst)) {
		free(b);
		return ws_err(c->err, WS_EXIT_INPUT, c->path, "config key '%s': expected a list, got %s",
			      s->listed, json_type_name(lst));
	}
	/* a list of the layers the placed mixer is in: marked in b first */
	const cJSON *idx = s->indices && !a->layer_types ? cfg_item(c, s->indices) : NULL;
	if (idx && !cJSON_IsArray(idx)) {
		free(b);
		return ws_err(c->err, WS_EXIT_INPUT, c->path, "config key '%s': expected an array, got %s",
			      s->indices, json_type_name(idx));
	}
	const cJSON *el;
	cJSON_ArrayForEach(el, idx) {
		if (num_value(c, s->indices, el, &v) < 0) {
			free(b);
			return -1;
		}
		if (v >= a->num_layers) {
			free(b);
			return ws_err(c->err, WS_EXIT_INPUT, c->path, "config key '%s': layer %llu, of %llu layers",
				      s->indices, (unsigned long long)v, (unsigned long long)a->num_layers);
		}
		b[v] = 1;
	}
	const char *pat = s->pattern ? cfg_str(c, s->pattern) : NULL;
	if (pat && strlen(pat) != a->num_layers) {
		free(b);
		return ws_err(c->err, WS_EXIT_INPUT, c->path, "config key '%s': %zu letters for %llu layers",
			      s->pattern, strlen(pat), (unsigned long long)a->num_layers);
	}
	for (uint64_t i = 0; i < a->num_layers; i++) {
		uint8_t mix = s->mixer, ffn = s->ffn;
		/* a pattern string says more than layer_types (Nemotron-H
		 * writes its MLP layers as "moe" there) */
		if (!pat && a->layer_types && i < a->n_layer_types) {
			mix = stack_mixer(s, a->layer_types[i]);
		} else if (pat) {
			size_t k = 0;
			while (k < ARRAY_LEN(s->letters) && s->letters[k].c && s->letters[k].c != pat[i])
				k++;
			if (k == ARRAY_LEN(s->letters) || !s->letters[k].c) {
				free(b);
				return ws_err(c->err, WS_EXIT_INPUT, c->path,
					      "config key '%s': letter %llu is not a layer kind",
					      s->pattern, (unsigned long long)i);
			}
			mix = s->letters[k].mixer;
			ffn = s->letters[k].ffn;
		} else if (r > 0) {
			mix = i % period == offset ? s->placed : s->mixer;
		} else if (interval) {
			mix = (i + 1) % interval == 0 ? s->placed : s->mixer;
		} else if (idx) {
			mix = b[i] ? s->placed : s->other;
		}
		if (ffn != WS_FFN_NONE && !pat)
			ffn = ws_arch_layer_is_moe(a, i) ? WS_FFN_MOE : WS_FFN_DENSE;
		b[i] = (uint8_t)WS_BK(mix, ffn);
	}
	const cJSON *x;
	cJSON_ArrayForEach(x, lst) {
		uint64_t i;
		if (num_value(c, s->listed, x, &i) < 0 || i >= a->num_layers) {
			free(b);
			return i >= a->num_layers && cJSON_IsNumber(x)
				? ws_err(c->err, WS_EXIT_INPUT, c->path, "config key '%s': layer %llu of %llu",
					 s->listed, (unsigned long long)i, (unsigned long long)a->num_layers)
				: -1;
		}
		b[i] = (uint8_t)WS_BK(s->placed, WS_BK_FFN(b[i]));
	}
	/* no list in the config: the class's (layers past the stack's
	 * end left out, as a smaller stack would) */
	for (size_t k = 0; s->listed && !lst && s->listed_default && s->listed_default[k] >= 0; k++)
		if ((uint64_t)s->listed_default[k] < a->num_layers)
			b[s->listed_default[k]] = (uint8_t)WS_BK(s->placed, WS_BK_FFN(b[s->listed_default[k]]));
	/* set last: the MoE rules above read the plain form */
	a->layer_block = b;
	a->n_layer_block = a->num_layers;
	return 0;
}

/* Checks and defaults both readers share. */
static int
arch_finish(struct ws_arch *a, const struct ws_cat_entry *t, ws_error *err)
{
	char k1[128], k2[128];
	const char *path = a->src_path;

	if (!t)
		return 0;
	/* a stack without attention (Mamba) has no heads to require */
	bool attends = !a->layer_block || a->num_nextn_predict_layers;
	for (uint64_t i = 0; !attends && i < a->n_layer_block; i++)
		attends = ws_arch_layer_attends(a, i);
	static const enum ws_arch_key required[] = {WS_AK_HIDDEN, WS_AK_HEADS, WS_AK_VOCAB};
	for (size_t i = 0; i < ARRAY_LEN(required); i++) {
		/* an image encoder, an audio one (its conv stem), or layers
		 * alone, has no vocabulary */
		if (required[i] == WS_AK_VOCAB &&
		    (ws_sw_has(&a->flags, WS_ARCH_PATCHES) || ws_sw_has(&a->flags, WS_ARCH_BARE) ||
		     ws_sw_has(&a->flags, WS_ARCH_CONV_STEM)))
			continue;
		if (required[i] == WS_AK_HEADS && !attends)
			continue;
		if (ws_arch_value(a, required[i]) == 0) {
			if (!a->keys[required[i]])
				return ws_err(err, WS_EXIT_INPUT, path, "%s is missing",
					      ws_arch_key_label(a, required[i], k1, sizeof k1));
			return ws_err(err, WS_EXIT_INPUT, path, "%s: must be positive",
				      ws_arch_key_label(a, required[i], k1, sizeof k1));
		}
	}
	if (!a->keys[WS_AK_LAYERS])
		return ws_err(err, WS_EXIT_INPUT, path, "%s is missing",
			      ws_arch_key_label(a, WS_AK_LAYERS, k1, sizeof k1));
	if (a->num_layers > WS_ARCH_MAX_LAYERS)
		return ws_err(err, WS_EXIT_INPUT, path, "%s: %llu layers is too many",
			      ws_arch_key_label(a, WS_AK_LAYERS, k1, sizeof k1),
			      (unsigned long long)a->num_layers);
	if (a->num_nextn_predict_layers > WS_ARCH_MAX_LAYERS)
		return ws_err(err, WS_EXIT_INPUT, path, "%s: too many layers",
			      ws_arch_key_label(a, WS_AK_NEXTN, k1, sizeof k1));
	if (!a->keys[WS_AK_KV_HEADS] && !a->num_kv_heads)
		a->num_kv_heads = a->num_heads;
	if (!attends) {
		a->num_heads = a->num_kv_heads = a->head_dim = a->v_head_dim = 0;
	} else if (a->num_kv_heads == 0)
		return ws_err(err, WS_EXIT_INPUT, path, "%s: must be positive",
			      ws_arch_key_label(a, WS_AK_KV_HEADS, k1, sizeof k1));
	if (ws_sw_has(&a->flags, WS_ARCH_MLA)) {
		a->head_dim = a->qk_nope_head_dim + a->qk_rope_head_dim;
		a->keys[WS_AK_HEAD_DIM] = a->keys[WS_AK_QK_NOPE];
		if (a->head_dim == 0 || a->kv_lora_rank == 0 || a->v_head_dim == 0)
			return ws_err(err, WS_EXIT_INPUT, path,
				      "%s, %s: MLA dimensions must be positive",
				      ws_arch_key_label(a, WS_AK_KV_LORA, k1, sizeof k1),
				      ws_arch_key_label(a, WS_AK_QK_NOPE, k2, sizeof k2));
	} else if (attends) {
		if (a->head_dim == 0) {
			if (a->hidden_size % a->num_heads != 0)
				return ws_err(err, WS_EXIT_INPUT, path,
					      "%s: %llu is not divisible by the head count %llu",
					      ws_arch_key_label(a, WS_AK_HIDDEN, k1, sizeof k1),
					      (unsigned long long)a->hidden_size,
					      (unsigned long long)a->num_heads);
			a->head_dim = a->hidden_size / a->num_heads;
			a->keys[WS_AK_HEAD_DIM] = NULL;
		}
		if (a->v_head_dim == 0)
			a->v_head_dim = a->head_dim;
	}
	if (a->intermediate_size == 0 && t->ffn_4d &&
	    ws_mul_u64(4, a->hidden_size, &a->intermediate_size))
		a->keys[WS_AK_INTER] = NULL;
	if ((ws_sw_has(&a->flags, WS_ARCH_LEARNED_POS)) && a->max_position_embeddings == 0)
		return ws_err(err, WS_EXIT_INPUT, path, "%s is missing",
			      ws_arch_key_label(a, WS_AK_POSITIONS, k1, sizeof k1));
	if (a->num_experts) {
		if (a->experts_per_tok == 0 || a->experts_per_tok > a->num_experts)
			return ws_err(err, WS_EXIT_INPUT, path,
				      "%s: %llu is not between 1 and the expert count %llu",
				      ws_arch_key_label(a, WS_AK_TOPK, k1, sizeof k1),
				      (unsigned long long)a->experts_per_tok,
				      (unsigned long long)a->num_experts);
		if (a->moe_intermediate_size == 0) {
			a->moe_intermediate_size = a->intermediate_size;
			a->keys[WS_AK_MOE_INTER] = a->keys[WS_AK_INTER];
		}
		if (a->shared_intermediate_size && !a->shared_experts)
			a->shared_experts = 1;
		if (a->shared_experts && !a->shared_intermediate_size) {
			a->shared_intermediate_size = a->moe_intermediate_size;
			a->keys[WS_AK_SHARED_INTER] = a->keys[WS_AK_MOE_INTER];
		}
		if (a->moe_intermediate_size == 0)
			return ws_err(err, WS_EXIT_INPUT, path, "%s is missing",
				      ws_arch_key_label(a, WS_AK_MOE_INTER, k1, sizeof k1));
	} else {
		a->experts_per_tok = 0;
		a->shared_experts = 0;
	}
	if (a->moe_step == 0)
		a->moe_step = 1;
	/* a dense layer needs its width */
	bool any_dense = false;
	for (uint64_t i = 0; i < a->num_layers + a->num_nextn_predict_layers && !any_dense; i++) {
		any_dense = WS_BK_FFN(ws_arch_layer_block(a, i)) == WS_FFN_DENSE;
		if (i > a->first_k_dense + a->moe_step + 1 && a->n_mlp_only_layers == 0 && !a->layer_block)
			break;  /* the pattern repeats from here on */
	}
	if (any_dense && a->intermediate_size == 0)
		return ws_err(err, WS_EXIT_INPUT, path, a->keys[WS_AK_INTER] ? "%s: must be positive" : "%s is missing",
			      ws_arch_key_label(a, WS_AK_INTER, k1, sizeof k1));
	return 0;
}

static int
u32_cmp(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	return a < b ? -1 : a > b;
}

bool
ws_arch_layer_is_moe(const struct ws_arch *a, uint64_t i)
{
	if (a->layer_block && i < a->n_layer_block)
		return WS_BK_FFN(a->layer_block[i]) == WS_FFN_MOE;
	if (a->num_experts == 0 || i < a->first_k_dense)
		return false;
	uint64_t step = a->moe_step ? a->moe_step : 1;
	if ((i + a->moe_step_offset) % step != 0)
		return false;
	if (a->n_mlp_only_layers && i <= UINT32_MAX) {
		uint32_t k = (uint32_t)i;
		if (bsearch(&k, a->mlp_only_layers, a->n_mlp_only_layers,
			    sizeof k, u32_cmp))
			return false;
	}
	return true;
}

bool
ws_arch_layer_sliding(const struct ws_arch *a, uint64_t i)
{
	if (a->sliding_window == 0)
		return false;
	if (a->layer_types)
		return i < a->n_layer_types && a->layer_types[i] == WS_LK_SLIDING;
	switch ((enum ws_cat_slide)a->slide_rule) {
	case WS_SLIDE_EVEN: return i % 2 == 0;
	case WS_SLIDE_PATTERN: return a->slide_period == 0 || (i + 1) % a->slide_period != 0;
	case WS_SLIDE_FROM: return a->slide_on && i >= a->slide_from;
	case WS_SLIDE_STRING:
		return i + 1 != a->num_layers &&
		       a->slide_pattern[i % strlen(a->slide_pattern)] == 'L';
	case WS_SLIDE_ALL: break;
	}
	return true;
}

int
ws_arch_layer_block(const struct ws_arch *a, uint64_t i)
{
	if (a->layer_block && i < a->n_layer_block)
		return a->layer_block[i];
	return WS_BK(WS_MIX_ATTN, ws_arch_layer_is_moe(a, i) ? WS_FFN_MOE : WS_FFN_DENSE);
}

bool
ws_arch_layer_attends(const struct ws_arch *a, uint64_t i)
{
	enum ws_mixer m = WS_BK_MIX(ws_arch_layer_block(a, i));
	return m == WS_MIX_ATTN || m == WS_MIX_PARALLEL;
}

const char *
ws_block_kind_name(int k)
{
	/* a plain decoder's two keep their names (dense, MoE) */
	static const char *const names[WS_BK_COUNT] = {
#define BKN_(mix, d, m, n) [WS_BK(mix, WS_FFN_DENSE)] = d, [WS_BK(mix, WS_FFN_MOE)] = m, [WS_BK(mix, WS_FFN_NONE)] = n
		BKN_(WS_MIX_ATTN, "dense", "MoE", "attention"),
		BKN_(WS_MIX_MAMBA, "mamba dense", "mamba MoE", "mamba"),
		BKN_(WS_MIX_MAMBA2, "mamba2 dense", "mamba2 MoE", "mamba2"),
		BKN_(WS_MIX_LINEAR, "linear-attention dense", "linear-attention MoE", "linear-attention"),
		BKN_(WS_MIX_CONV, "conv dense", "conv MoE", "conv"),
		BKN_(WS_MIX_PARALLEL, "attention+mamba2 dense", "attention+mamba2 MoE", "attention+mamba2"),
		BKN_(WS_MIX_NONE, "MLP", "MoE-only", "empty"),
		BKN_(WS_MIX_XATTN, "cross-attention dense", "cross-attention MoE", "cross-attention"),
#undef BKN_
	};
	return k >= 0 && k < WS_BK_COUNT ? names[k] : "?";
}

const char *
ws_arch_layer_kind(const struct ws_arch *a, uint64_t i)
{
	if (i >= a->num_layers)
		return ws_layer_kind_name(WS_LK_MTP);
	if (a->layer_block && i < a->n_layer_block) {
		/* a hybrid stack: the layer's mixer names it */
		static const enum ws_layer_kind by_mix[WS_MIX_COUNT] = {
			[WS_MIX_ATTN] = WS_LK_ATTENTION, [WS_MIX_MAMBA] = WS_LK_MAMBA,
			[WS_MIX_MAMBA2] = WS_LK_MAMBA2, [WS_MIX_LINEAR] = WS_LK_LINEAR,
			[WS_MIX_CONV] = WS_LK_CONV, [WS_MIX_PARALLEL] = WS_LK_HYBRID,
			[WS_MIX_XATTN] = WS_LK_XATTN,
		};
		int k = a->layer_block[i];
		if (WS_BK_MIX(k) == WS_MIX_NONE)
			return ws_layer_kind_name(WS_BK_FFN(k) == WS_FFN_MOE ? WS_LK_MOE : WS_LK_DENSE);
		if (WS_BK_MIX(k) == WS_MIX_ATTN && ws_arch_layer_sliding(a, i))
			return ws_layer_kind_name(WS_LK_SLIDING);
		return ws_layer_kind_name(by_mix[WS_BK_MIX(k)]);
	}
	if (a->num_experts)
		return ws_layer_kind_name(ws_arch_layer_is_moe(a, i) ? WS_LK_MOE : WS_LK_DENSE);
	if (a->layer_types && i < a->n_layer_types && a->layer_types[i] != WS_LK_SLIDING)
		return ws_layer_kind_name((enum ws_layer_kind)a->layer_types[i]);
	return ws_layer_kind_name(ws_arch_layer_sliding(a, i) ? WS_LK_SLIDING : WS_LK_ATTENTION);
}

static void
arch_init(struct ws_arch *a, const char *source, const char *path)
{
	memset(a, 0, sizeof *a);
	a->source = source;
	snprintf(a->src_path, sizeof a->src_path, "%s", path ? path : "");
}

static void
apply_type(struct ws_arch *a, const struct ws_cat_entry *t)
{
	a->known = true;
	a->norm = t->norm;
	a->mlp = t->mlp;
	a->flags = t->flags;
	ws_sw_or(&a->flags, &t->defaults);
	a->slide_rule = (int)t->slide;
	a->slide_period = t->slide_period;
	/* a type with encoder classes attends both ways */
	if (t->classes)
		ws_sw_set(&a->flags, WS_ARCH_BIDIRECTIONAL);
}

/* The class named first in `architectures`, or NULL. */
static const char *
config_class(const cJSON *config)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(config, "architectures");
	const cJSON *first = cJSON_IsArray(list) ? cJSON_GetArrayItem(list, 0) : NULL;
	return cJSON_IsString(first) ? first->valuestring : NULL;
}

/* The numeric fields: every spelling in the file first, then the class
 * defaults, so a default never hides a value the file spells another way. */
static int
read_fields(struct cfg *c, const struct cfg_key *keys, size_t n_keys)
{
	for (int pass = 0; pass < 2; pass++) {
		c->no_defaults = pass == 0;
		for (size_t i = 0; i < n_keys; i++) {
			const struct cfg_key *ck = &keys[i];
			if (c->a->keys[ck->field])
				continue;
			/* the type's own spelling first (its attribute_map) */
			for (size_t k = 0; c->entry && k < WS_CAT_MAX_ALIASES && c->entry->aliases[k].key; k++) {
				const struct ws_cat_alias *al = &c->entry->aliases[k];
				uint64_t v;
				int r = al->field == ck->field ? cfg_u64(c, al->key, &v) : 0;
				if (r < 0)
					return -1;
				if (r > 0) {
					set_field(c->a, al->field, v, al->key);
					break;
				}
			}
			if (c->a->keys[ck->field])
				continue;
			for (size_t j = 0; j < ARRAY_LEN(ck->keys) && ck->keys[j]; j++) {
				uint64_t v;
				int r = cfg_u64(c, ck->keys[j], &v);
				if (r < 0)
					return -1;
				if (r > 0) {
					set_field(c->a, ck->field, v, ck->keys[j]);
					break;
				}
			}
		}
	}
	c->no_defaults = false;
	return 0;
}

/* Read a config as a model of type `name` (its entry, or none): the
 * class `cls` names the head (NULL: the type's default class), `adds`
 * the switches a wrapper adds; then every key, default and check. */
static int
arch_read(struct cfg *c, const char *name, const char *cls, const ws_switches *adds)
{
	struct ws_arch *out = c->a;
	ws_error *err = c->err;
	const char *config_path = c->path;
	const struct ws_cat_class *klass = NULL;
	const struct ws_cat_entry *by_cls = cls ? ws_cat_by_class(cls, &klass) : NULL;
	const struct ws_cat_entry *t;

	snprintf(out->architecture, sizeof out->architecture, "%s", name);
	t = ws_cat_by_model_type(name);
	if (t && t->parts) {
		/* a wrapper read as one model (its parts are read apart) */
		t = NULL;
		out->unsupported = "a wrapper of several components: read by its parts";
	} else if (t) {
		apply_type(out, t);
		if (adds)
			ws_sw_or(&out->flags, adds);
		out->no_head = by_cls && klass->head == WS_HEAD_NONE;
		if (t->classes) {
			/* an encoder: its class's parts (another type's class, or
			 * none, reads as the type's first, AutoModel's) */
			const struct ws_cat_class *k = by_cls == t ? klass : ws_cat_default_class(t);
			/* a class of this type whose head the catalogue lacks
			 * (ElectraForMultipleChoice's sequence summary): no
			 * formula, rather than another class's */
			bool unknown = !by_cls && cls && !strncmp(cls, t->cls, strlen(t->cls));
			if (unknown) {
				out->known = false;
				out->unsupported = "the head this class adds is not in the catalogue";
			}
			ws_sw_or(&out->flags, &k->parts);
			out->no_head = k->head == WS_HEAD_NONE;
			if (k == klass || unknown)
				snprintf(out->cls, sizeof out->cls, "%s", cls);
			else
				snprintf(out->cls, sizeof out->cls, "%s%s", t->cls, k->suffix);
		}
		c->entry = t;
		if (!(c->defs = defaults_json(t)) || !overlay_defaults(c->defs, c->part_defs)) {
			cJSON_Delete(c->defs);
			c->defs = NULL;
			return ws_err_oom(err, config_path);
		}
	} else if (!*name) {
		out->unsupported = cls ? "architecture unknown: no model_type, and the class in "
					 "'architectures' is not in the catalogue"
				       : "architecture unknown: the config has neither "
					 "'model_type' nor 'architectures'";
	} else {
		out->unsupported = "no formula for this model_type";
	}

	if (read_fields(c, cfg_keys, ARRAY_LEN(cfg_keys)) < 0)
		goto fail;
	for (size_t i = 0; i < ARRAY_LEN(step_keys); i++) {
		uint64_t v;
		int r = cfg_u64(c, step_keys[i].key, &v);
		if (r < 0)
			goto fail;
		if (r > 0) {
			set_field(out, WS_AK_MOE_STEP, v, step_keys[i].key);
			out->moe_step_offset = step_keys[i].offset;
			break;
		}
	}
	if (read_mlp_only_layers(c) < 0 || read_sliding(c, t) < 0 || read_encoder(c) < 0)
		goto fail;
	if (out->n_mlp_only_layers)
		qsort(out->mlp_only_layers, out->n_mlp_only_layers, sizeof(uint32_t), u32_cmp);
	if (!t) {
		cJSON_Delete(c->defs);
		return 0;
	}

	/* MLA: v_head_dim is the value head; head_dim is derived. */
	if (ws_sw_has(&t->flags, WS_ARCH_MLA)) {
		uint64_t v = 0;
		int r = cfg_u64(c, "v_head_dim", &v);
		if (r < 0)
			goto fail;
		set_field(out, WS_AK_V_HEAD_DIM, v, r > 0 ? "v_head_dim" : NULL);
		out->head_dim = 0;
	}
	static const ws_switches tied = WS_SWITCHES(WS_ARCH_TIED);
	if (cfg_flag(c, "tie_word_embeddings", &tied, false) < 0)
		goto fail;
	for (size_t i = 0; i < ARRAY_LEN(t->opt) && t->opt[i].key; i++)
		if (cfg_flag(c, t->opt[i].key, &t->opt[i].flags, t->opt[i].off) < 0)
			goto fail;
	if (read_sopts(c, t) < 0 || read_encoder_late(c) < 0)
		goto fail;
	if (fixups[t->fixup] && fixups[t->fixup](c) < 0)
		goto fail;
	if (t->stack && read_stack(c, t->stack) < 0)
		goto fail;
	if (arch_finish(out, t, err) < 0)
		goto fail;
	cJSON_Delete(c->defs);
	return 0;
fail:
	cJSON_Delete(c->defs);
	ws_arch_free(out);
	return -1;
}

/* The stack of wrapper w that the config's class (entry by_cls) names
 * alone, T5EncoderModel's: a part of w reading w's own config; else NULL. */
static const struct ws_cat_entry *
stack_alone(const struct ws_cat_entry *w, const struct ws_cat_entry *by_cls)
{
	if (!w || !w->parts || !by_cls || by_cls == w)
		return NULL;
	for (size_t i = 0; i < WS_CAT_MAX_PARTS && w->parts[i].kind; i++)
		if (w->parts[i].config && !w->parts[i].config[0] && w->parts[i].type &&
		    ws_cat_by_model_type(w->parts[i].type) == by_cls)
			return by_cls;
	return NULL;
}

/* A string model_type, or "" when absent; -1 with err when not a string. */
static int
model_type_of(const cJSON *config, const char *path, const char *key, const char **out, ws_error *err)
{
	const cJSON *mt = cJSON_GetObjectItemCaseSensitive(config, "model_type");
	*out = "";
	if (mt && !cJSON_IsString(mt))
		return ws_err(err, WS_EXIT_INPUT, path, "config key '%s%smodel_type': expected a string, got %s",
			      key ? key : "", key ? "." : "", cJSON_IsNumber(mt) ? "a number" : json_type_name(mt));
	if (mt)
		*out = mt->valuestring;
	return 0;
}

int
ws_arch_from_config(const cJSON *config, const char *config_path,
		    struct ws_arch *out, ws_error *err)
{
	struct cfg c = {config, NULL, config_path, out, err, NULL, NULL, false, NULL};

	arch_init(out, "config.json", config_path);
	if (!cJSON_IsObject(config))
		return ws_err(err, WS_EXIT_INPUT, config_path, "config is not a JSON object");
	/* a diffusers network names its class, not a model_type (one the
	 * catalogue has no layout for is said so, by its class) */
	const cJSON *dcn = cJSON_GetObjectItemCaseSensitive(config, "_class_name");
	if (ws_net_config(config) ||
	    (cJSON_IsString(dcn) && !cJSON_GetObjectItemCaseSensitive(config, "model_type") &&
	     !cJSON_GetObjectItemCaseSensitive(config, "architectures") &&
	     !cJSON_GetObjectItemCaseSensitive(config, WS_PIPELINE_MAIN)))
		return ws_net_arch_from_config(config, config_path, out, err);
	/* a diffusers pipeline: its main component's config */
	const cJSON *pm = cJSON_GetObjectItemCaseSensitive(config, WS_PIPELINE_MAIN);
	const cJSON *pmc = cJSON_IsString(pm) ? cJSON_GetObjectItemCaseSensitive(config, pm->valuestring) : NULL;
	const cJSON *pmp = cJSON_GetObjectItemCaseSensitive(config, WS_PIPELINE_MAIN_PATH);
	if (cJSON_IsObject(pmc) && !cJSON_GetObjectItemCaseSensitive(pmc, WS_PIPELINE_MAIN))
		return ws_arch_from_config(pmc, cJSON_IsString(pmp) ? pmp->valuestring : config_path, out, err);

	const char *name;
	if (model_type_of(config, config_path, NULL, &name, err) < 0)
		return -1;
	/* The class in `architectures` names the head it adds and, when the
	 * config has no model_type, the model_type too (as transformers'
	 * auto classes do). */
	const char *cls = config_class(config);
	const struct ws_cat_class *klass = NULL;
	const struct ws_cat_entry *by_cls = cls ? ws_cat_by_class(cls, &klass) : NULL;
	if (!*name && by_cls)
		name = by_cls->names[0];
	/* A wrapper of components: the main one is its text model, read
	 * from its sub-config as its own type (the wrapper's keys beside) */
	const struct ws_cat_entry *w = ws_cat_by_model_type(name);
	const struct ws_cat_entry *alone = stack_alone(w, by_cls);
	if (alone) {
		/* one stack of an encoder-decoder saved alone (T5EncoderModel) */
		name = alone->names[0];
		w = NULL;
	}
	const struct ws_cat_part *main_part = w && w->parts && w->parts[0].config ? &w->parts[0] : NULL;
	/* a part reading the wrapper's own config ("") has no sub-config */
	const cJSON *tc = main_part && !main_part->config[0] ? NULL
		: cJSON_GetObjectItemCaseSensitive(config, main_part ? main_part->config : "text_config");
	if (cJSON_IsObject(tc)) {
		/* A multimodal wrapper: count its language model. */
		c.text = tc;
		const char *tmt;
		if (model_type_of(tc, config_path, main_part ? main_part->config : "text_config", &tmt, err) < 0)
			return -1;
		if (ws_cat_by_model_type(tmt))
			name = tmt;
		else if (main_part)
			name = main_part->type;
	} else if (main_part) {
		name = main_part->type;
	}
	c.part_defs = main_part ? main_part->defs : NULL;
	int r = arch_read(&c, name, cls, main_part ? &main_part->adds : NULL);
	if (r == 0 && w && w->parts)
		out->parts = w->parts;
	/* a stack alone is its part, the main and only one */
	if (r == 0 && alone)
		out->parts = ws_arch_config_parts(config);
	return r;
}

const struct ws_cat_part *
ws_arch_config_parts(const cJSON *config)
{
	const cJSON *mt = cJSON_GetObjectItemCaseSensitive(config, "model_type");
	const struct ws_cat_entry *e = cJSON_IsString(mt) ? ws_cat_by_model_type(mt->valuestring) : NULL;
	const char *cls = config_class(config);
	const struct ws_cat_class *klass;
	const struct ws_cat_entry *by_cls = cls ? ws_cat_by_class(cls, &klass) : NULL;
	if (!cJSON_IsString(mt))
		e = by_cls;
	else if (stack_alone(e, by_cls)) {
		/* one stack alone is that part as the main and only one (its
		 * names read after its prefix: T5's block.N.layer.K need it),
		 * when it ends the wrapper's list */
		for (size_t i = 0; i + 1 < WS_CAT_MAX_PARTS && e->parts[i].kind; i++)
			if (ws_cat_by_model_type(e->parts[i].type) == by_cls && !e->parts[i + 1].kind)
				return &e->parts[i];
		return NULL;
	}
	return e ? e->parts : NULL;
}

int
ws_arch_from_part(const cJSON *config, const char *config_path, const struct ws_cat_part *p,
		  struct ws_arch *out, ws_error *err)
{
	static const cJSON empty = {.type = cJSON_Object};
	arch_init(out, "config.json", config_path);
	const cJSON *sub = p->config[0] ? cJSON_GetObjectItemCaseSensitive(config, p->config) : config;
	if (sub && !cJSON_IsObject(sub) && !cJSON_IsNull(sub))
		return ws_err(err, WS_EXIT_INPUT, config_path, "config key '%s': expected an object, got %s",
			      p->config, json_type_name(sub));
	/* absent: the sub-config class's defaults */
	if (!cJSON_IsObject(sub))
		sub = &empty;
	if (p->whole)
		return ws_arch_from_config(sub, p->path ? p->path : config_path, out, err);
	if (ws_net_config(sub))
		return ws_net_arch_from_config(sub, config_path, out, err);
	const char *name;
	if (model_type_of(sub, config_path, p->config[0] ? p->config : NULL, &name, err) < 0)
		return -1;
	/* unknown, or the wrapper's own name (SmolVLM's vision_config says
	 * idefics3), or a part of its own type (Mllama's global layers), or
	 * a stack of the whole config: the part's type */
	const struct ws_cat_entry *se = ws_cat_by_model_type(name);
	if (!p->config[0] || !se || se->parts || p->own_type)
		name = p->type;
	/* its own keys only: a wrapper's top-level keys describe its text */
	struct cfg c = {sub, NULL, config_path, out, err, NULL, NULL, false, NULL};
	c.part_defs = p->defs;
	return arch_read(&c, name, NULL, &p->adds);
}

int
ws_arch_projector(const struct ws_cat_part *p, const struct ws_arch *text, const struct ws_arch *tower,
		  const cJSON *config, struct ws_arch *out, ws_error *err)
{
	arch_init(out, text->source, text->src_path);
	snprintf(out->architecture, sizeof out->architecture, "%s", p->type);
	/* a tower alone (an mmproj) projects into its projection width */
	bool alone = text == tower;
	const struct ws_cat_projector *pj = ws_cat_projector(p->type);
	if (!pj || !text->known || !tower->known) {
		out->unsupported = !pj ? "no layout for this projector" : "a tower it joins has no formula";
		return 0;
	}
	out->known = true;
	out->no_head = true;
	out->norm = pj->norm;
	out->flags = pj->flags;
	/* from the tower's width (its adapter's, when it has one) into the
	 * text model's; a tower alone (an mmproj) projects into its
	 * projection width */
	if (alone)
		set_field(out, WS_AK_HIDDEN, tower->projection_dim, tower->keys[WS_AK_PROJ]);
	else
		set_field(out, WS_AK_HIDDEN, text->hidden_size, text->keys[WS_AK_HIDDEN]);
	if (out->hidden_size == 0) {
		out->known = false;
		out->unsupported = "the width it projects into is unknown";
		return 0;
	}
	if (tower->out_width)
		set_field(out, WS_AK_EMBED_SIZE, tower->out_width, tower->keys[WS_AK_OUT]);
	else
		set_field(out, WS_AK_EMBED_SIZE, tower->hidden_size, tower->keys[WS_AK_HIDDEN]);
	/* patches merged per side before it: the wrapper's key, else the
	 * tower's own */
	const cJSON *mg = pj->merge && cJSON_IsObject(config) ? cJSON_GetObjectItemCaseSensitive(config, pj->merge) : NULL;
	if (mg && !cJSON_IsNull(mg) && pj->merge_ratio) {
		/* a fraction kept per side: its inverse a whole number of
		 * patches, at most the layer bound (no table grows with it) */
		double r = cJSON_IsNumber(mg) ? mg->valuedouble : 0, inv = r > 0 ? 1 / r : 0;
		double n = inv >= 1 && inv <= 64 ? (double)(uint64_t)(inv + 0.5) : 0;
		if (!cJSON_IsNumber(mg))
			return ws_err(err, WS_EXIT_INPUT, text->src_path,
				      "config key '%s': expected a fraction 1/n of the patches per side, got %s",
				      pj->merge, json_type_name(mg));
		if (!(r > 0 && r <= 1) || n < 1 || inv - n > 1e-9 || n - inv > 1e-9)
			return ws_err(err, WS_EXIT_INPUT, text->src_path,
				      "config key '%s': expected a fraction 1/n (n at most 64) of the patches "
				      "per side, got %g", pj->merge, r);
		set_field(out, WS_AK_MERGE, (uint64_t)n, pj->merge);
	} else if (mg && !cJSON_IsNull(mg)) {
		struct cfg c = {config, NULL, text->src_path, out, err, NULL, NULL, true, NULL};
		uint64_t v;
		if (num_value(&c, pj->merge, mg, &v) < 0)
			return -1;
		set_field(out, WS_AK_MERGE, v, pj->merge);
	} else if (pj->merge && tower->merge_size && !cJSON_IsObject(config)) {
		/* a vision file: its own key */
		set_field(out, WS_AK_MERGE, tower->merge_size, tower->keys[WS_AK_MERGE]);
	} else if (pj->merge) {
		set_field(out, WS_AK_MERGE, pj->merge_default, NULL);
	} else if (tower->merge_size) {
		set_field(out, WS_AK_MERGE, tower->merge_size, tower->keys[WS_AK_MERGE]);
	}
	/* a list of mergers: its length, at the top level or in a
	 * sub-config, is the count of its "blocks" (no mixer, no MLP) */
	const cJSON *list = NULL, *sub;
	if (pj->count && cJSON_IsObject(config)) {
		list = cJSON_GetObjectItemCaseSensitive(config, pj->count);
		cJSON_ArrayForEach(sub, config)
			if (!list && cJSON_IsObject(sub))
				list = cJSON_GetObjectItemCaseSensitive(sub, pj->count);
	}
	if (list && !cJSON_IsArray(list) && !cJSON_IsNull(list))
		return ws_err(err, WS_EXIT_INPUT, text->src_path, "config key '%s': expected a list, got %s",
			      pj->count, json_type_name(list));
	int nl = cJSON_IsArray(list) ? cJSON_GetArraySize(list) : 0;
	if (pj->count && !list)
		nl = (int)pj->count_default;  /* the config class's list */
	if (nl > 0 && (uint64_t)nl <= WS_ARCH_MAX_LAYERS) {
		if (!(out->layer_block = malloc((size_t)nl)))
			return ws_err_oom(err, text->src_path);
		memset(out->layer_block, WS_BK(WS_MIX_NONE, WS_FFN_NONE), (size_t)nl);
		out->n_layer_block = (uint64_t)nl;
		set_field(out, WS_AK_LAYERS, (uint64_t)nl, pj->count);
	}
	out->num_heads = 1;
	out->num_kv_heads = 1;
	out->head_dim = out->v_head_dim = 1;
	return 0;
}

/* ==== GGUF metadata ==== */

static const struct gguf_key {
	enum ws_arch_key field;
	const char *suffix;
} gguf_keys[] = {
	{WS_AK_HIDDEN, "embedding_length"},
	{WS_AK_LAYERS, "block_count"},
	{WS_AK_HEADS, "attention.head_count"},
	{WS_AK_KV_HEADS, "attention.head_count_kv"},
	{WS_AK_HEAD_DIM, "attention.key_length"},
	{WS_AK_V_HEAD_DIM, "attention.value_length"},
	{WS_AK_INTER, "feed_forward_length"},
	{WS_AK_VOCAB, "vocab_size"},
	{WS_AK_POSITIONS, "context_length"},
	{WS_AK_SLIDING, "attention.sliding_window"},
	{WS_AK_EXPERTS, "expert_count"},
	{WS_AK_TOPK, "expert_used_count"},
	{WS_AK_MOE_INTER, "expert_feed_forward_length"},
	{WS_AK_SHARED_N, "expert_shared_count"},
	{WS_AK_SHARED_INTER, "expert_shared_feed_forward_length"},
	{WS_AK_FIRST_DENSE, "leading_dense_block_count"},
	{WS_AK_MOE_STEP, "interleave_moe_layer_step"},
	{WS_AK_Q_LORA, "attention.q_lora_rank"},
	{WS_AK_KV_LORA, "attention.kv_lora_rank"},
	{WS_AK_QK_ROPE, "rope.dimension_count"},
	{WS_AK_NEXTN, "nextn_predict_layers"},
	{WS_AK_INDEX_HEADS, "attention.indexer.head_count"},
	{WS_AK_INDEX_HEAD_DIM, "attention.indexer.key_length"},
	{WS_AK_REL_ROWS, "attention.relative_buckets_count"},
};

static const uint8_t vtype_size[WS_V_COUNT] = {
	[WS_V_U8] = 1, [WS_V_I8] = 1, [WS_V_U16] = 2, [WS_V_I16] = 2,
	[WS_V_U32] = 4, [WS_V_I32] = 4, [WS_V_U64] = 8, [WS_V_I64] = 8,
	[WS_V_BOOL] = 1,
};

static bool
vtype_signed(ws_vtype t)
{
	return t == WS_V_I8 || t == WS_V_I16 || t == WS_V_I32 || t == WS_V_I64;
}

/* Element i of an integer array, or false when out of bounds. */
static bool
arr_elem(const ws_kv *kv, uint64_t i, uint64_t *out, bool *neg)
{
	unsigned sz = kv->arr_type < WS_V_COUNT ? vtype_size[kv->arr_type] : 0;
	uint64_t end;
	if (!sz || kv->arr_type == WS_V_BOOL || !kv->data || i >= kv->arr_count ||
	    !ws_mul_u64(i + 1, sz, &end) || end > kv->data_len)
		return false;
	uint8_t b[8];
	memcpy(b, kv->data + i * sz, sz);
	uint64_t v = 0;
	for (unsigned k = 0; k < sz; k++) {
		unsigned idx = kv->swap ? k : sz - 1 - k;  /* most significant first */
		v = (v << 8) | b[idx];
	}
	*neg = false;
	if (vtype_signed(kv->arr_type) && (v >> (sz * 8 - 1)) & 1)
		*neg = true;
	*out = v;
	return true;
}

/* A scalar (or a constant per-layer array) as u64.  1 found, 0 absent,
 * -1 invalid, -2 a per-layer array whose entries differ. */
static int
gguf_u64(const ws_model *m, const struct ws_arch *a, const char *suffix,
	 uint64_t *out, ws_error *err)
{
	char key[160];
	snprintf(key, sizeof key, "%s%s", a->key_prefix, suffix);
	const ws_kv *kv = ws_model_find_kv(m, key);
	if (!kv)
		return 0;
	if (kv->type == WS_V_ARRAY) {
		uint64_t first = 0, v;
		bool neg;
		if (kv->arr_count == 0 || !arr_elem(kv, 0, &first, &neg) || neg)
			return ws_err(err, WS_EXIT_INPUT, a->src_path,
				      "GGUF key '%s': expected non-negative integers", key);
		for (uint64_t i = 1; i < kv->arr_count; i++) {
			if (!arr_elem(kv, i, &v, &neg) || neg)
				return ws_err(err, WS_EXIT_INPUT, a->src_path,
					      "GGUF key '%s': expected non-negative integers", key);
			if (v != first) {
				*out = first;
				return -2;
			}
		}
		*out = first;
		return 1;
	}
	if (kv->type >= WS_V_COUNT || !vtype_size[kv->type] || kv->type == WS_V_BOOL)
		return ws_err(err, WS_EXIT_INPUT, a->src_path,
			      "GGUF key '%s': expected an integer", key);
	if (vtype_signed(kv->type) && kv->num.i < 0)
		return ws_err(err, WS_EXIT_INPUT, a->src_path,
			      "GGUF key '%s': %lld is negative", key, (long long)kv->num.i);
	*out = kv->num.u;
	return 1;
}

static bool
has_tensor(const ws_model *m, const char *name)
{
	size_t len = strlen(name);
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (m->tensors[i].name_len == len && memcmp(m->tensors[i].name, name, len) == 0)
			return true;
	return false;
}

static const ws_tensor *
find_tensor(const ws_model *m, const char *name)
{
	size_t len = strlen(name);
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (m->tensors[i].name_len == len && memcmp(m->tensors[i].name, name, len) == 0)
			return &m->tensors[i];
	return NULL;
}

/* GGUF metadata does not say which optional tensors exist: the tensors
 * do.  Each switch is set when one of its tensors is present, cleared
 * when none is. */
static const struct probe {
	const char *names[2];
	int flag;          /* enum ws_arch_flag */
} probes[] = {
	{{"blk.0.attn_q.bias", "blk.0.attn_qkv.bias"}, WS_ARCH_QKV_BIAS},
	{{"blk.0.attn_output.bias"}, WS_ARCH_O_BIAS},
	{{"blk.0.ffn_down.bias"}, WS_ARCH_MLP_BIAS},
	{{"output.bias"}, WS_ARCH_LM_HEAD_BIAS},
	{{"blk.0.attn_qkv.weight"}, WS_ARCH_FUSED_QKV},
	{{"blk.0.attn_sinks.weight", "blk.0.attn_sinks"}, WS_ARCH_SINKS},
	{{"token_embd_norm.weight"}, WS_ARCH_EMBED_NORM},
	{{"position_embd.weight"}, WS_ARCH_LEARNED_POS},
	/* llama.cpp keeps the xIELU scalars as metadata arrays (xielu.*),
	 * never as tensors: a GGUF holds none */
	{{NULL}, WS_ARCH_XIELU},
};

static void
gguf_probe_tensors(const ws_model *m, struct ws_arch *a)
{
	char name[96];

	for (size_t i = 0; i < ARRAY_LEN(probes); i++) {
		bool on = false;
		for (size_t j = 0; j < 2 && probes[i].names[j]; j++)
			on = on || has_tensor(m, probes[i].names[j]);
		ws_sw_put(&a->flags, probes[i].flag, on);
	}
	/* the head: no output tensor means it is the embedding */
	if (has_tensor(m, "output.weight"))
		ws_sw_clear(&a->flags, WS_ARCH_TIED);
	else
		ws_sw_set(&a->flags, WS_ARCH_TIED);
	/* a post-norm encoder's norm is after attention (attn_output_norm) */
	if (a->norm == WS_NORM_LAYER || a->norm == WS_NORM_LAYER_NOBIAS)
		a->norm = has_tensor(m, "blk.0.attn_norm.bias") || has_tensor(m, "blk.0.attn_output_norm.bias")
			? WS_NORM_LAYER : WS_NORM_LAYER_NOBIAS;
	/* a bias on the MLP's output side only (JinaBERT v2) */
	if (has_tensor(m, "blk.0.ffn_down.bias"))
		ws_sw_put(&a->flags, WS_ARCH_NO_UP_BIAS, !has_tensor(m, "blk.0.ffn_up.bias"));
	if (has_tensor(m, "blk.0.attn_norm_2.weight")) {
		ws_sw_set(&a->flags, WS_ARCH_NEW_DECODER);
		ws_sw_clear(&a->flags, WS_ARCH_PARALLEL);
	}
	/* one norm before attention and none before the MLP: a parallel
	 * block (phi-2, falcon-7b, command-r) */
	if (has_tensor(m, "blk.0.attn_norm.weight") && !has_tensor(m, "blk.0.ffn_norm.weight") &&
	    !has_tensor(m, "blk.0.attn_norm_2.weight") &&
	    !has_tensor(m, "blk.0.post_attention_norm.weight"))
		ws_sw_set(&a->flags, WS_ARCH_PARALLEL);
	const ws_tensor *qn = find_tensor(m, "blk.0.attn_q_norm.weight");
	if (!ws_sw_has(&a->flags, WS_ARCH_MLA)) {
		uint64_t dk = a->head_dim;
		if (!dk && a->num_heads)
			dk = a->hidden_size / a->num_heads;
		ws_sw_clear(&a->flags, WS_ARCH_QK_NORM_HEAD);
		ws_sw_clear(&a->flags, WS_ARCH_QK_NORM_FULL);
		if (qn)
			ws_sw_set(&a->flags, qn->elements == dk ? WS_ARCH_QK_NORM_HEAD
								: WS_ARCH_QK_NORM_FULL);
	}
	if (a->num_experts) {
		/* the first MoE block speaks for all (llama4 interleaves them);
		 * looked for among as many blocks as there are tensors */
		uint64_t first = a->first_k_dense, last = a->num_layers;
		if (last > m->n_tensors)
			last = m->n_tensors;
		while (first < last && !ws_arch_layer_is_moe(a, first))
			first++;
		snprintf(name, sizeof name, "blk.%llu.exp_probs_b.bias", (unsigned long long)first);
		if (has_tensor(m, name))
			ws_sw_set(&a->flags, WS_ARCH_ROUTER_SCORE_BIAS);
		snprintf(name, sizeof name, "blk.%llu.ffn_gate_inp.bias", (unsigned long long)first);
		if (has_tensor(m, name))
			ws_sw_set(&a->flags, WS_ARCH_ROUTER_BIAS);
		/* llama.cpp's converter splits fused gate_up experts */
		snprintf(name, sizeof name, "blk.%llu.ffn_gate_exps.weight", (unsigned long long)first);
		if (has_tensor(m, name))
			ws_sw_clear(&a->flags, WS_ARCH_MOE_FUSED);
		snprintf(name, sizeof name, "blk.%llu.ffn_gate_up_exps.weight", (unsigned long long)first);
		if (has_tensor(m, name))
			ws_sw_set(&a->flags, WS_ARCH_MOE_FUSED);
		/* a shared expert the metadata does not count */
		snprintf(name, sizeof name, "blk.%llu.ffn_gate_shexp.weight", (unsigned long long)first);
		const ws_tensor *sh = find_tensor(m, name);
		if (sh && !a->shared_experts && sh->ndim == 2) {
			set_field(a, WS_AK_SHARED_N, 1, "the shared expert tensors");
			set_field(a, WS_AK_SHARED_INTER, sh->shape[0], "the shared expert rows");
		}
	}
}

/* A per-layer integer array of n entries (llama.cpp writes
 * head_count_kv and feed_forward_length so for hybrid stacks): 1 read
 * into *out (malloc'd), 0 absent or a scalar, -1 invalid. */
static int
gguf_layer_array(const ws_model *m, const struct ws_arch *a, const char *suffix, uint64_t n,
		 uint64_t **out, ws_error *err)
{
	char key[160];
	snprintf(key, sizeof key, "%s%s", a->key_prefix, suffix);
	const ws_kv *kv = ws_model_find_kv(m, key);
	*out = NULL;
	if (!kv || kv->type != WS_V_ARRAY)
		return 0;
	if (kv->arr_count != n)
		return ws_err(err, WS_EXIT_INPUT, a->src_path, "GGUF key '%s': %llu entries for %llu blocks", key,
			      (unsigned long long)kv->arr_count, (unsigned long long)n);
	uint64_t *v = calloc((size_t)(n ? n : 1), sizeof *v);
	if (!v)
		return ws_err_oom(err, a->src_path);
	for (uint64_t i = 0; i < n; i++) {
		bool neg;
		if (!arr_elem(kv, i, &v[i], &neg) || neg) {
			free(v);
			return ws_err(err, WS_EXIT_INPUT, a->src_path,
				      "GGUF key '%s': expected non-negative integers", key);
		}
	}
	*out = v;
	return 1;
}

/* A hybrid or state-space stack in GGUF: the mixers' sizes from the
 * {arch}.ssm.* keys (which field each fills is the stack's data), then
 * each layer's block kind: attention where the per-layer head_count_kv
 * is not 0 (or every full_attention_interval-th layer), an MLP-only
 * layer where a pattern stack's per-layer feed_forward_length is not 0,
 * MoE where the block has a router (ffn_gate_inp). */
static int
gguf_stack(const ws_model *m, struct ws_arch *a, const struct ws_cat_stack *s, ws_error *err)
{
	static const struct ws_cat_gkey mamba_keys[] = {
		{"ssm.conv_kernel", WS_AK_SSM_CONV}, {"ssm.inner_size", WS_AK_SSM_INNER},
		{"ssm.state_size", WS_AK_SSM_STATE}, {"ssm.group_count", WS_AK_SSM_GROUPS},
		{"ssm.time_step_rank", WS_AK_SSM_RANK}, {NULL, 0},
	};
	uint64_t v, interval = 0;
	int r;
	for (const struct ws_cat_gkey *k = s->gguf_keys ? s->gguf_keys : mamba_keys; k->suffix; k++) {
		if ((r = gguf_u64(m, a, k->suffix, &v, err)) == -1)
			return -1;
		if (r != 0)
			set_field(a, (enum ws_arch_key)k->field, v, k->suffix);
	}
	if ((r = gguf_u64(m, a, "shortconv.l_cache", &v, err)) == -1)
		return -1;
	if (r != 0)
		set_field(a, WS_AK_SSM_CONV, v, "shortconv.l_cache");
	if (a->lin_v_heads && a->ssm_inner)  /* inner_size is the value width */
		set_field(a, WS_AK_LIN_V_DIM, a->ssm_inner / a->lin_v_heads, "ssm.inner_size");
	if ((r = gguf_u64(m, a, "full_attention_interval", &v, err)) == -1)
		return -1;
	if (r != 0)
		interval = v;
	uint64_t n = a->num_layers;
	if (n > WS_ARCH_MAX_LAYERS)
		return 0;  /* arch_finish says so */
	uint64_t *kv = NULL, *ff = NULL;
	if (gguf_layer_array(m, a, "attention.head_count_kv", n, &kv, err) < 0 ||
	    gguf_layer_array(m, a, "feed_forward_length", n, &ff, err) < 0) {
		free(kv);
		return -1;
	}
	uint8_t *b = calloc((size_t)(n ? n : 1), 1);
	if (!b) {
		free(kv);
		free(ff);
		return ws_err_oom(err, a->src_path);
	}
	/* the blocks with a router, in one pass over the tensors (a
	 * has_tensor per block would be blocks × tensors) */
	static const char gate_inp[] = ".ffn_gate_inp.weight";
	for (uint64_t t = 0; a->num_experts && t < m->n_tensors; t++) {
		const char *nm = m->tensors[t].name;
		size_t len = m->tensors[t].name_len, gl = sizeof gate_inp - 1;
		if (len <= 4 + gl || memcmp(nm, "blk.", 4) != 0 || memcmp(nm + len - gl, gate_inp, gl) != 0)
			continue;
		uint64_t idx = 0;
		size_t k = 4;
		while (k < len - gl && nm[k] >= '0' && nm[k] <= '9' && idx < n)
			idx = idx * 10 + (uint64_t)(nm[k++] - '0');
		if (k == len - gl && k > 4 && idx < n)
			b[idx] = 1;
	}
	for (uint64_t i = 0; i < n; i++) {
		uint8_t mix = s->mixer, ffn = s->ffn;
		if (s->pattern) {
			/* one mixer or one feed-forward a layer */
			ffn = WS_FFN_NONE;
			if (kv && kv[i])
				mix = WS_MIX_ATTN;
			else if (ff && ff[i])
				mix = WS_MIX_NONE, ffn = a->num_experts ? WS_FFN_MOE : WS_FFN_DENSE;
			else
				mix = s->ssm;
		} else {
			if (kv)
				mix = kv[i] ? WS_MIX_ATTN : s->indices ? s->other : s->mixer;
			else if (interval)
				mix = (i + 1) % interval == 0 ? s->placed : s->mixer;
			if (ffn != WS_FFN_NONE)
				ffn = b[i] ? WS_FFN_MOE : WS_FFN_DENSE;
		}
		b[i] = (uint8_t)WS_BK(mix, ffn);
	}
	/* the arrays' sizes: those of the layers that have them */
	for (uint64_t i = 0; kv && i < n; i++)
		if (kv[i]) {
			set_field(a, WS_AK_KV_HEADS, kv[i], "attention.head_count_kv");
			break;
		}
	for (uint64_t i = 0; ff && i < n; i++)
		if (ff[i]) {
			set_field(a, WS_AK_INTER, ff[i], "feed_forward_length");
			break;
		}
	free(kv);
	free(ff);
	free(a->layer_block);
	a->layer_block = b;
	a->n_layer_block = n;
	return 0;
}

/* A stack's optional tensors, probed in the first block of the kind
 * that has them (a hybrid's block 0 may be a Mamba layer). */
static void
gguf_probe_stack(const ws_model *m, struct ws_arch *a, const struct ws_cat_stack *s)
{
	char name[96];
	uint64_t fr = a->num_layers, fa = a->num_layers, ff = a->num_layers;
	for (uint64_t i = a->num_layers; i-- > 0;) {
		int k = ws_arch_layer_block(a, i);
		enum ws_mixer mx = WS_BK_MIX(k);
		if (mx == WS_MIX_MAMBA || mx == WS_MIX_MAMBA2 || mx == WS_MIX_PARALLEL || mx == WS_MIX_LINEAR ||
		    mx == WS_MIX_CONV)
			fr = i;
		if (mx == WS_MIX_ATTN || mx == WS_MIX_PARALLEL)
			fa = i;
		if (WS_BK_FFN(k) != WS_FFN_NONE)
			ff = i;
	}
#define BLK(i, sfx) (snprintf(name, sizeof name, "blk.%llu.%s", (unsigned long long)(i), sfx), name)
	if (fr < a->num_layers) {
		bool in_b = has_tensor(m, BLK(fr, "ssm_in.bias")) || has_tensor(m, BLK(fr, "shortconv.in_proj.bias"));
		bool out_b = has_tensor(m, BLK(fr, "ssm_out.bias")) || has_tensor(m, BLK(fr, "shortconv.out_proj.bias"));
		ws_sw_put(&a->flags, WS_ARCH_SSM_BIAS, in_b && out_b);
		ws_sw_put(&a->flags, WS_ARCH_SSM_IN_BIAS, in_b && !out_b);
		ws_sw_put(&a->flags, WS_ARCH_SSM_OUT_BIAS, out_b && !in_b);
		ws_sw_put(&a->flags, WS_ARCH_SSM_CONV_BIAS, has_tensor(m, BLK(fr, "ssm_conv1d.bias")) ||
							     has_tensor(m, BLK(fr, "shortconv.conv.bias")));
		ws_sw_put(&a->flags, WS_ARCH_SSM_DT_NORMS, has_tensor(m, BLK(fr, "ssm_dt_norm.weight")));
		enum ws_mixer mx = WS_BK_MIX(ws_arch_layer_block(a, fr));
		if (mx == WS_MIX_MAMBA2 || mx == WS_MIX_PARALLEL)
			ws_sw_put(&a->flags, WS_ARCH_SSM_NO_NORM, !has_tensor(m, BLK(fr, "ssm_norm.weight")));
		/* Gated DeltaNet's q, k, v apart from z (attn_qkv, attn_gate) */
		ws_sw_put(&a->flags, WS_ARCH_LIN_SPLIT, mx == WS_MIX_LINEAR && has_tensor(m, BLK(fr, "attn_gate.weight")));
	}
	if (fa < a->num_layers && !ws_sw_has(&a->flags, WS_ARCH_MLA)) {
		const ws_tensor *qn = find_tensor(m, BLK(fa, "attn_q_norm.weight"));
		uint64_t dk = a->head_dim ? a->head_dim : a->num_heads ? a->hidden_size / a->num_heads : 0;
		ws_sw_clear(&a->flags, WS_ARCH_QK_NORM_HEAD);
		ws_sw_clear(&a->flags, WS_ARCH_QK_NORM_FULL);
		if (qn)
			ws_sw_set(&a->flags, qn->elements == dk ? WS_ARCH_QK_NORM_HEAD : WS_ARCH_QK_NORM_FULL);
		ws_sw_put(&a->flags, WS_ARCH_FUSED_QKV, has_tensor(m, BLK(fa, "attn_qkv.weight")));
		bool qb = has_tensor(m, BLK(fa, "attn_q.bias")) || has_tensor(m, BLK(fa, "attn_qkv.bias"));
		bool ob = has_tensor(m, BLK(fa, "attn_output.bias"));
		ws_sw_put(&a->flags, WS_ARCH_QKV_BIAS, qb);
		ws_sw_put(&a->flags, WS_ARCH_O_BIAS, ob);
	}
	if (ff < a->num_layers) {
		ws_sw_put(&a->flags, WS_ARCH_MLP_BIAS, has_tensor(m, BLK(ff, "ffn_down.bias")));
		/* the converter splits fused gate and up (Granite's shared MLP) */
		if (a->mlp == WS_MLP_GATED_FUSED &&
		    (has_tensor(m, BLK(ff, "ffn_gate.weight")) || has_tensor(m, BLK(ff, "ffn_gate_shexp.weight"))))
			a->mlp = WS_MLP_GATED;
		/* ... into shared experts in a MoE block, else the block's MLP
		 * (whose width feed_forward_length does not say: its rows do) */
		if (ws_sw_has(&a->flags, WS_ARCH_SHARED_MLP)) {
			ws_sw_clear(&a->flags, WS_ARCH_SHARED_MLP);
			const ws_tensor *g = find_tensor(m, BLK(ff, "ffn_gate.weight"));
			if (g && g->ndim == 2)
				set_field(a, WS_AK_INTER, g->shape[0], "ffn_gate rows");
		}
	}
	/* LFM2's final norm under the embedding norm's name */
	if (s->gguf_final_norm && has_tensor(m, s->gguf_final_norm))
		ws_sw_clear(&a->flags, WS_ARCH_EMBED_NORM);
#undef BLK
}

/* llama.cpp's audio file (clip.audio.*): a Whisper-style tower's sizes
 * and mel bins from its keys; its positions (no key says them) the
 * stored table's rows, else its config class's max_source_positions;
 * the projector's input the stacked frames' width when the layout
 * stacks them (Voxtral's stack_factor). */
static int
clip_audio_from_gguf(const ws_model *m, const struct ws_cat_mmproj *mp, const struct ws_cat_entry *t,
		     struct ws_arch *out, ws_error *err)
{
	const char *path = out->src_path;
	static const struct gguf_key audio_keys[] = {
		{WS_AK_HIDDEN, "embedding_length"}, {WS_AK_LAYERS, "block_count"},
		{WS_AK_HEADS, "attention.head_count"}, {WS_AK_INTER, "feed_forward_length"},
		{WS_AK_PROJ, "projection_dim"}, {WS_AK_CHANNELS, "num_mel_bins"},
	};
	for (size_t i = 0; i < ARRAY_LEN(audio_keys); i++) {
		uint64_t v;
		int r = gguf_u64(m, out, audio_keys[i].suffix, &v, err);
		if (r == -1)
			return -1;
		if (r > 0)
			set_field(out, audio_keys[i].field, v, audio_keys[i].suffix);
	}
	if (!out->num_channels)
		return ws_err(err, WS_EXIT_INPUT, path, "GGUF key '%snum_mel_bins': a positive count expected",
			      out->key_prefix);
	const ws_tensor *pe = find_tensor(m, "a.position_embd.weight");
	const struct ws_cat_default *dp = ws_cat_default(t, "max_source_positions");
	if (pe && pe->ndim == 2)
		set_field(out, WS_AK_POSITIONS, pe->shape[0], "a.position_embd rows");
	else if (dp)
		set_field(out, WS_AK_POSITIONS, dp->num, "max_source_positions (class default)");
	if (mp->stack_key) {
		uint64_t v, w;
		int r = gguf_u64(m, out, mp->stack_key, &v, err);
		if (r == -1)
			return -1;
		if (r > 0 && (v == 0 || v > 64 || !ws_mul_u64(v, out->hidden_size, &w)))
			return ws_err(err, WS_EXIT_INPUT, path, "GGUF key '%s%s': %llu frames stacked",
				      out->key_prefix, mp->stack_key, (unsigned long long)v);
		if (r > 0)
			set_field(out, WS_AK_OUT, w, mp->stack_key);
	}
	if (m->n_tensors && !has_tensor(m, "a.post_ln.weight"))
		ws_sw_set(&out->flags, WS_ARCH_NO_FINAL_NORM);
	return arch_finish(out, t, err);
}

/* llama.cpp's vision file (mmproj): the tower's sizes under clip.vision.,
 * its type and the projector's layout from clip.projector_type, the
 * parts the converter kept (class token, norms, biases) from the
 * tensors, as it writes only those the model has.  A block count below
 * the source tower's is the file's: the formula follows the keys. */
static int
clip_from_gguf(const ws_model *m, struct ws_arch *out, ws_error *err)
{
	const char *path = out->src_path;
	const ws_kv *pk = ws_model_find_kv(m, "clip.projector_type");
	char pt[32] = "";
	if (pk && pk->type == WS_V_STRING && pk->data_len < sizeof pt && !memchr(pk->data, 0, pk->data_len))
		memcpy(pt, pk->data, (size_t)pk->data_len);
	const struct ws_cat_mmproj *mp = ws_cat_mmproj(pt);
	const struct ws_cat_entry *t = mp ? ws_cat_by_model_type(mp->parts[0].type) : NULL;
	if (!t) {
		out->unsupported = pk ? "no formula for this clip.projector_type"
				      : "an mmproj without clip.projector_type";
		return 0;
	}
	snprintf(out->architecture, sizeof out->architecture, "%s", t->names[0]);
	snprintf(out->key_prefix, sizeof out->key_prefix, "%s", mp->keys ? mp->keys : "clip.vision.");
	apply_type(out, t);
	out->no_head = true;
	out->parts = mp->parts;
	if (ws_sw_has(&out->flags, WS_ARCH_CONV_STEM))
		return clip_audio_from_gguf(m, mp, t, out, err);
	static const struct gguf_key clip_keys[] = {
		{WS_AK_HIDDEN, "embedding_length"}, {WS_AK_LAYERS, "block_count"},
		{WS_AK_HEADS, "attention.head_count"}, {WS_AK_INTER, "feed_forward_length"},
		{WS_AK_IMAGE, "image_size"}, {WS_AK_PATCH, "patch_size"}, {WS_AK_PROJ, "projection_dim"},
	};
	for (size_t i = 0; i < ARRAY_LEN(clip_keys); i++) {
		uint64_t v;
		int r = gguf_u64(m, out, clip_keys[i].suffix, &v, err);
		if (r == -1)
			return -1;
		if (r > 0)
			set_field(out, clip_keys[i].field, v, clip_keys[i].suffix);
	}
	if (!out->image_size || !out->patch_size || out->image_size < out->patch_size)
		return ws_err(err, WS_EXIT_INPUT, path, "GGUF keys 'clip.vision.image_size' and "
			      "'clip.vision.patch_size': a positive patch no larger than the image expected");
	uint64_t side = out->image_size / out->patch_size;
	if (!ws_mul_u64(side, side, &out->num_patches))
		return ws_err(err, WS_EXIT_INPUT, path, "GGUF key 'clip.vision.image_size': too large");
	/* the patch convolution's input channels, else RGB */
	const ws_tensor *pe = find_tensor(m, "v.patch_embd.weight");
	out->num_channels = pe && pe->ndim == 4 ? pe->shape[1] : 3;
	static const struct { const char *tensor; int sw; } kept[] = {
		{"v.patch_embd.bias", WS_ARCH_PATCH_BIAS}, {"v.class_embd", WS_ARCH_CLS_TOKEN},
		{"v.pre_ln.weight", WS_ARCH_EMBED_NORM},
	};
	for (size_t i = 0; m->n_tensors && i < ARRAY_LEN(kept); i++)
		ws_sw_put(&out->flags, kept[i].sw, has_tensor(m, kept[i].tensor));
	if (m->n_tensors && !has_tensor(m, "v.post_ln.weight"))
		ws_sw_set(&out->flags, WS_ARCH_NO_FINAL_NORM);
	/* a block's own parts, from its first block when the file has it:
	 * q / k / v biases, q / k norms, norms without a bias (InternViT's
	 * rms_norm) */
	if (has_tensor(m, "v.blk.0.attn_q.weight")) {
		ws_sw_put(&out->flags, WS_ARCH_QKV_BIAS, has_tensor(m, "v.blk.0.attn_q.bias"));
		ws_sw_put(&out->flags, WS_ARCH_QK_NORM_FULL, has_tensor(m, "v.blk.0.attn_q_norm.weight"));
		ws_sw_put(&out->flags, WS_ARCH_NO_NORM_BIAS, !has_tensor(m, "v.blk.0.ln1.bias"));
		/* a type whose config's norm without a bias is an RMS norm
		 * (its norm_type option says both) */
		bool rms = false;
		for (size_t i = 0; i < ARRAY_LEN(t->sopt) && t->sopt[i].key; i++)
			rms = rms || (ws_sw_has(&t->sopt[i].flags, WS_ARCH_NO_NORM_BIAS) &&
				      ws_sw_has(&t->sopt[i].flags, WS_ARCH_RMS_NORMS));
		ws_sw_put(&out->flags, WS_ARCH_RMS_NORMS, rms && ws_sw_has(&out->flags, WS_ARCH_NO_NORM_BIAS));
	}
	/* the patches merged per side before the projector, as the file's
	 * layout keeps it */
	if (mp->merge_key) {
		uint64_t v;
		int r = gguf_u64(m, out, mp->merge_key, &v, err);
		if (r == -1)
			return -1;
		if (r > 0 && (v == 0 || v > 64))
			return ws_err(err, WS_EXIT_INPUT, path, "GGUF key 'clip.vision.%s': %llu patches per side",
				      mp->merge_key, (unsigned long long)v);
		if (r > 0)
			set_field(out, WS_AK_MERGE, v, mp->merge_key);
	}
	/* a tower's head is not the converter's */
	ws_sw_clear(&out->flags, WS_ARCH_ATTN_POOL);
	return arch_finish(out, t, err);
}

static int gguf_read(const ws_model *m, struct ws_arch *out, const struct ws_cat_part *part, ws_error *err);

int
ws_arch_vision_gguf(const ws_model *m, struct ws_arch *out, ws_error *err)
{
	const ws_kv *pk = ws_model_find_kv(m, "clip.projector_type");
	const char *path = pk && pk->file < m->n_files ? m->files[pk->file].path : m->path;
	arch_init(out, "gguf", path);
	int r = clip_from_gguf(m, out, err);
	out->parts = NULL;  /* a component's own: the model has the parts */
	return r;
}

int
ws_arch_from_gguf(const ws_model *m, struct ws_arch *out, ws_error *err)
{
	return gguf_read(m, out, NULL, err);
}

int
ws_arch_from_gguf_part(const ws_model *m, const struct ws_cat_part *p, struct ws_arch *out, ws_error *err)
{
	return gguf_read(m, out, p, err);
}

/* Read the GGUF metadata as general.architecture's type, or as part
 * `part`'s type (a stack of a wrapper: t5's decoder, the main one, and
 * its encoder). */
static int
gguf_read(const ws_model *m, struct ws_arch *out, const struct ws_cat_part *part, ws_error *err)
{
	const char *path = m->n_files ? m->files[0].path : m->path;
	arch_init(out, "gguf", path);

	const ws_kv *ak = ws_model_find_kv(m, "general.architecture");
	if (!ak || ak->type != WS_V_STRING)
		return ws_err(err, WS_EXIT_INPUT, path,
			      "GGUF key 'general.architecture' is %s",
			      ak ? "not a string" : "missing");
	size_t n = ak->data_len < sizeof out->architecture - 1 ? (size_t)ak->data_len
							     : sizeof out->architecture - 1;
	memcpy(out->architecture, ak->data, n);
	out->architecture[n] = '\0';
	if (strlen(out->architecture) != ak->data_len)
		out->architecture[0] = '\0';  /* a NUL or an absurd length: no match */
	snprintf(out->key_prefix, sizeof out->key_prefix, "%s.", out->architecture);
	/* a diffusion network as ComfyUI-GGUF writes it: the family alone,
	 * no sizes; its original names and shapes tell the rest */
	if (!part && ws_net_gguf_family(out->architecture)) {
		char family[sizeof out->architecture];
		snprintf(family, sizeof family, "%s", out->architecture);
		/* an older converter kept the names under a single file's
		 * module (model.diffusion_model.): read there, as its part */
		const char *pre = m->parts && m->parts[0].inferred && m->parts[0].prefixes[0] ? m->parts[0].prefixes[0] : "";
		return ws_net_infer_gguf(m, pre, family, out, err);
	}

	const struct ws_cat_entry *t = ws_cat_by_gguf(out->architecture);
	if (!strcmp(out->architecture, "clip") && !part)
		return clip_from_gguf(m, out, err);
	/* a wrapper of stacks reading one config: its main one, or the
	 * part asked for */
	const struct ws_cat_part *wparts = NULL;
	if (t && t->parts && t->parts[0].config && !t->parts[0].config[0] && !part) {
		part = &t->parts[0];
		wparts = t->parts;
	}
	if (part)
		t = ws_cat_by_model_type(part->type);
	if (t && !t->parts) {
		apply_type(out, t);
		if (part)
			ws_sw_or(&out->flags, &part->adds);
	} else {
		t = NULL;
		out->unsupported = "no formula for this GGUF architecture";
	}

	for (size_t i = 0; i < ARRAY_LEN(gguf_keys); i++) {
		uint64_t v;
		int r = gguf_u64(m, out, gguf_keys[i].suffix, &v, err);
		if (r == -1)
			return -1;
		if (r == -2 && t && !t->stack) {
			out->known = false;
			out->unsupported = "per-layer sizes (an array) are not modelled";
		}
		if (r != 0)
			set_field(out, gguf_keys[i].field, v, gguf_keys[i].suffix);
	}
	if (out->moe_step)
		out->moe_step_offset = 1;  /* llama.cpp: (i + 1) % step == 0 */
	/* llama.cpp's block_count holds the MTP blocks: the last
	 * nextn_predict_layers of them (blk.N.nextn.* and a whole block) */
	if (out->num_nextn_predict_layers && out->num_nextn_predict_layers < out->num_layers)
		out->num_layers -= out->num_nextn_predict_layers;
	if (!out->vocab_size) {
		const ws_kv *tok = ws_model_find_kv(m, "tokenizer.ggml.tokens");
		if (tok && tok->type == WS_V_ARRAY) {
			out->vocab_size = tok->arr_count;
			out->keys[WS_AK_VOCAB] = NULL;
		}
	}
	if (!t || !out->known)
		return 0;

	if (ws_sw_has(&out->flags, WS_ARCH_MLA)) {
		/* newer files carry the MLA head sizes apart */
		uint64_t k = out->head_dim, v = out->v_head_dim, x;
		if (gguf_u64(m, out, "attention.key_length_mla", &x, err) > 0)
			k = x;
		if (gguf_u64(m, out, "attention.value_length_mla", &x, err) > 0)
			v = x;
		if (k < out->qk_rope_head_dim)
			return ws_err(err, WS_EXIT_INPUT, path,
				      "GGUF key '%sattention.key_length': %llu is below the rope dimension",
				      out->key_prefix, (unsigned long long)k);
		out->qk_nope_head_dim = k - out->qk_rope_head_dim;
		out->keys[WS_AK_QK_NOPE] = "attention.key_length";
		out->v_head_dim = v;
	} else {
		out->qk_rope_head_dim = 0;
		out->keys[WS_AK_QK_ROPE] = NULL;
	}
	if (t->stack && gguf_stack(m, out, t->stack, err) < 0)
		return -1;
	if (m->n_tensors)
		gguf_probe_tensors(m, out);
	/* an mmproj joined to this text model: its tower and projector are
	 * components beside it */
	const ws_kv *pk = ws_model_find_kv(m, "clip.projector_type");
	if (pk && pk->type == WS_V_STRING) {
		char pt[32] = "";
		if (pk->data_len < sizeof pt && !memchr(pk->data, 0, pk->data_len))
			memcpy(pt, pk->data, (size_t)pk->data_len);
		const struct ws_cat_mmproj *mp = ws_cat_mmproj(pt);
		out->parts = mp ? mp->joined : NULL;
	}
	if (t->stack && m->n_tensors)
		gguf_probe_stack(m, out, t->stack);
	/* a gated MLP the type's config string would ask for: told by a
	 * gate in some stack's first block (t5: enc., dec.) */
	bool gates = false;
	for (size_t i = 0; i < ARRAY_LEN(t->sopt) && t->sopt[i].key; i++)
		gates = gates || ws_sw_has(&t->sopt[i].flags, WS_ARCH_GATED_MLP);
	if (gates && (has_tensor(m, "blk.0.ffn_gate.weight") || has_tensor(m, "enc.blk.0.ffn_gate.weight") ||
		      has_tensor(m, "dec.blk.0.ffn_gate.weight")))
		out->mlp = WS_MLP_GATED;
	if (t->classes) {
		/* an encoder: llama.cpp's converter keeps the body, and a
		 * reranker's classifier as cls (its dense layer) and
		 * cls.output; token types as their own table */
		out->no_head = true;
		const ws_tensor *tt = find_tensor(m, "token_types.weight");
		if (tt && tt->ndim == 2)
			set_field(out, WS_AK_TYPE_VOCAB, tt->shape[0], "token_types rows");
		else if (m->n_tensors)
			ws_sw_clear(&out->flags, WS_ARCH_TYPE_EMBED);
		const ws_tensor *co = find_tensor(m, "cls.output.weight");
		if (co && co->ndim == 2) {
			ws_sw_set(&out->flags, WS_ARCH_CLASSIFIER);
			set_field(out, WS_AK_LABELS, co->shape[0], "cls.output rows");
			if (has_tensor(m, "cls.weight"))
				ws_sw_set(&out->flags, WS_ARCH_CLS_DENSE);
		}
	}
	if (arch_finish(out, t, err) < 0)
		return -1;
	if (wparts)
		out->parts = wparts;
	return 0;
}

void
ws_arch_free(struct ws_arch *a)
{
	if (!a)
		return;
	free(a->mlp_only_layers);
	a->mlp_only_layers = NULL;
	a->n_mlp_only_layers = 0;
	free(a->full_attn_blocks);
	a->full_attn_blocks = NULL;
	a->n_full_attn_blocks = 0;
	free(a->layer_types);
	a->layer_types = NULL;
	a->n_layer_types = 0;
	free(a->layer_block);
	a->layer_block = NULL;
	a->n_layer_block = 0;
	ws_net_free(a->net);
	a->net = NULL;
}

/* ==== inferred from the tensors ==== */

/*
 * Without config.json or GGUF metadata the architecture is read back from
 * the tensors, roles already assigned by name: the family from name
 * patterns (`families`), sizes from shapes (`measures`, the most common
 * value across blocks, so one odd block does not set the size and is
 * still flagged by the comparison), switches from which roles are present
 * (`presences`).  What shapes cannot say (the top-k of a MoE, the split of
 * a projection into heads when no per-head tensor exists) is chosen so
 * that every count is exact, and `keys` say where each value came from.
 */

/* First line whose substrings some tensor names hold wins; unsupported
 * lines name what only a config can say. */
static const struct family {
	const char *needle, *also;  /* both must occur (also may be NULL) */
	const char *arch;           /* a model_type of `types` */
	const char *unsupported;
} families[] = {
	{"self_attn.kv_a_proj_with_mqa", NULL, "deepseek_v2", "multi-head latent attention: its ranks and head split need config.json"},
	{"pre_feedforward_layernorm", NULL, "gemma2", "post_attention_layernorm is a post-norm in this family, which only config.json says"},
	{"post_feedforward_layernorm", NULL, "olmo2", "post_attention_layernorm is a post-norm in this family, which only config.json says"},
	{"block_sparse_moe.experts.", NULL, "mixtral", NULL},
	{"self_attn.sinks", NULL, "gpt_oss", NULL},
	{"mlp.experts.", "mlp.shared_expert.", "qwen2_moe", NULL},
	{"mlp.experts.", "self_attn.q_norm", "qwen3_moe", NULL},
	{"mlp.experts.", NULL, "qwen2_moe", NULL},
	{"self_attn.qkv_proj", NULL, "phi3", NULL},
	{"mlp.gate_up_proj", NULL, "phi3", NULL},
	{"attn.c_attn", NULL, "gpt2", NULL},
	{"self_attn.q_proj", "self_attn.q_norm", "qwen3", NULL},
	{"self_attn.q_proj", NULL, "llama", NULL},
	{"attention.wq.", NULL, "llama", NULL},
};

/* Sizes read from shapes: a matrix's side other than hidden_size (its
 * last two dimensions: experts stacked as [E, ...] count too), or a
 * vector's length. */
enum meas {
	MS_Q, MS_K, MS_V, MS_QKV, MS_O, MS_F, MS_F2, MS_FE, MS_FE2, MS_E, MS_ESTACK, MS_SHF,
	MS_P, MS_QNORM, MS_SINKS, MS_COUNT
};

static const struct measure {
	ws_role role;
	enum meas m;
	bool vector;        /* the length of a weight vector */
} measures[] = {
	{WS_ROLE_ATTN_Q, MS_Q, false}, {WS_ROLE_ATTN_K, MS_K, false},
	{WS_ROLE_ATTN_V, MS_V, false}, {WS_ROLE_ATTN_QKV, MS_QKV, false},
	{WS_ROLE_ATTN_O, MS_O, false},
	{WS_ROLE_FFN_GATE, MS_F, false}, {WS_ROLE_FFN_UP, MS_F, false},
	{WS_ROLE_FFN_DOWN, MS_F, false}, {WS_ROLE_FFN_GATE_UP, MS_F2, false},
	{WS_ROLE_MOE_GATE, MS_FE, false}, {WS_ROLE_MOE_UP, MS_FE, false},
	{WS_ROLE_MOE_DOWN, MS_FE, false}, {WS_ROLE_MOE_GATE_UP, MS_FE2, false},
	{WS_ROLE_MOE_ROUTER, MS_E, false},
	{WS_ROLE_MOE_SHARED_GATE, MS_SHF, false}, {WS_ROLE_MOE_SHARED_UP, MS_SHF, false},
	{WS_ROLE_MOE_SHARED_DOWN, MS_SHF, false},
	{WS_ROLE_POS_EMBED, MS_P, false},
	{WS_ROLE_ATTN_Q_NORM, MS_QNORM, true}, {WS_ROLE_ATTN_SINKS, MS_SINKS, true},
};

/* A switch is on when one of its tensors is present. */
#define ANY_KIND 2
static const struct presence {
	ws_role role;
	int kind;           /* ws_kind, or ANY_KIND */
	int flag;           /* enum ws_arch_flag */
} presences[] = {
	{WS_ROLE_ATTN_Q, WS_KIND_BIAS, WS_ARCH_QKV_BIAS},
	{WS_ROLE_ATTN_K, WS_KIND_BIAS, WS_ARCH_QKV_BIAS},
	{WS_ROLE_ATTN_V, WS_KIND_BIAS, WS_ARCH_QKV_BIAS},
	{WS_ROLE_ATTN_QKV, WS_KIND_BIAS, WS_ARCH_QKV_BIAS},
	{WS_ROLE_ATTN_O, WS_KIND_BIAS, WS_ARCH_O_BIAS},
	{WS_ROLE_FFN_GATE, WS_KIND_BIAS, WS_ARCH_MLP_BIAS},
	{WS_ROLE_FFN_UP, WS_KIND_BIAS, WS_ARCH_MLP_BIAS},
	{WS_ROLE_FFN_DOWN, WS_KIND_BIAS, WS_ARCH_MLP_BIAS},
	{WS_ROLE_FFN_GATE_UP, WS_KIND_BIAS, WS_ARCH_MLP_BIAS},
	{WS_ROLE_LM_HEAD, WS_KIND_BIAS, WS_ARCH_LM_HEAD_BIAS},
	{WS_ROLE_ATTN_QKV, WS_KIND_WEIGHT, WS_ARCH_FUSED_QKV},
	{WS_ROLE_POS_EMBED, WS_KIND_WEIGHT, WS_ARCH_LEARNED_POS},
	{WS_ROLE_ATTN_POST_NORM, ANY_KIND, WS_ARCH_POST_NORMS},
	{WS_ROLE_FFN_POST_NORM, ANY_KIND, WS_ARCH_POST_NORMS},
	{WS_ROLE_ATTN_Q_NORM, WS_KIND_BIAS, WS_ARCH_QK_NORM_BIAS},
	{WS_ROLE_EMBED_NORM, ANY_KIND, WS_ARCH_EMBED_NORM},
	{WS_ROLE_ATTN_SINKS, ANY_KIND, WS_ARCH_SINKS},
	{WS_ROLE_MOE_GATE_UP, WS_KIND_WEIGHT, WS_ARCH_MOE_FUSED},
	{WS_ROLE_MOE_GATE_UP, WS_KIND_BIAS, WS_ARCH_MOE_BIAS},
	{WS_ROLE_MOE_DOWN, WS_KIND_BIAS, WS_ARCH_MOE_BIAS},
	{WS_ROLE_MOE_ROUTER, WS_KIND_BIAS, WS_ARCH_ROUTER_BIAS},
	{WS_ROLE_MOE_ROUTER_BIAS, ANY_KIND, WS_ARCH_ROUTER_SCORE_BIAS},
	{WS_ROLE_MOE_SHARED_ROUTER, WS_KIND_WEIGHT, WS_ARCH_SHARED_GATE},
};

/* Head sizes tried when no per-head tensor says: 128 first for q widths
 * of 4096 and more, 64 first below (the common choices at those sizes),
 * then the others. */
static const uint64_t head_dims[] = {128, 64, 256, 96, 80, 160, 32};
#define WIDE_Q 4096

static bool
is_norm(int r)
{
	return r == WS_ROLE_ATTN_NORM || r == WS_ROLE_FFN_NORM || r == WS_ROLE_FINAL_NORM ||
	       r == WS_ROLE_EMBED_NORM;
}

static bool
is_dense_mlp(int r)
{
	return r == WS_ROLE_FFN_GATE || r == WS_ROLE_FFN_UP || r == WS_ROLE_FFN_DOWN ||
	       r == WS_ROLE_FFN_GATE_UP;
}

/* Does s hold a role of the class `is`? */
static bool
any_role(const ws_role_set *s, bool (*is)(int))
{
	for (int r = 0; r < WS_ROLE_COUNT; r++)
		if (is(r) && ws_rs_has(s, r))
			return true;
	return false;
}

struct sample {
	uint32_t m;
	uint64_t v;
};

struct infer {
	const ws_model *m;
	struct ws_arch *a;
	ws_role_set seen[2];       /* roles present, by kind */
	uint64_t mode[MS_COUNT];    /* most common value; 0 = none */
	uint64_t layers;           /* highest block index + 1 */
	uint64_t max_expert;       /* highest expert index + 1 */
	uint8_t *blk;              /* per block: 1 router, 2 dense MLP */
	uint64_t blk_cap;          /* blocks blk has room for */
	const ws_tensor *emb;      /* the embedding, else the head, or NULL */
};

static const uint64_t *
shape_of(const ws_tensor *t, uint32_t *n)
{
	return ws_tensor_logical(t, n);
}

/* The family and the embedding in one pass over the tensors (each pass
 * over a 100k-tensor MoE costs a walk through megabytes of tensor
 * records).  The family: the first line of `families` whose substrings
 * some tensor names hold.  Experts past the first repeat its names with
 * another index: they are not searched, which makes the search
 * O(layers), not O(layers x experts), on a MoE.  The embedding: the
 * first 2-D [vocab, hidden] embedding weight, else the first such head. */
#define MAX_NEEDLES 32
#define NO_NEEDLE UINT8_MAX

static uint32_t
line_mask(const uint8_t bits[2])
{
	uint32_t mask = 0;
	for (int w = 0; w < 2; w++)
		if (bits[w] != NO_NEEDLE)
			mask |= 1u << bits[w];
	return mask;
}

/* The substrings the lines before `best` need. */
static uint32_t
needles_before(uint8_t (*line_bits)[2], size_t best)
{
	uint32_t mask = 0;
	for (size_t l = 0; l < best; l++)
		mask |= line_mask(line_bits[l]);
	return mask;
}

/* family_of's pass, on two threads for a large checkpoint: each worker
 * takes runs of tensors and keeps its own roles seen, first embedding
 * and head (by index: the first of both workers is the first), the
 * substrings found and the best line whole in them. */
#define FAMILY_RUN 2048

typedef struct {
	ws_role_set seen[2];
	uint64_t emb, head;  /* tensor index, UINT64_MAX none */
	uint32_t found;
	size_t best;
} family_worker_state;

typedef struct {
	const ws_model *m;
	const char *const *needle;
	size_t nn;
	uint8_t (*line_bits)[2];
	uint64_t runs;
	family_worker_state w[2];
	_Atomic uint64_t next;
} family_pass;

static void
family_worker(void *arg, unsigned worker)
{
	family_pass *p = arg;
	const ws_model *m = p->m;
	family_worker_state *s = &p->w[worker < 2 ? worker : 1];
	uint32_t want = needles_before(p->line_bits, s->best);
	for (uint64_t r; (r = atomic_fetch_add(&p->next, 1)) < p->runs;) {
		uint64_t hi = m->n_tensors - r * FAMILY_RUN < FAMILY_RUN ? m->n_tensors : (r + 1) * FAMILY_RUN;
		for (uint64_t i = r * FAMILY_RUN; i < hi; i++) {
			const ws_tensor *t = &m->tensors[i];
			uint32_t n;
			if ((unsigned)t->role < WS_ROLE_COUNT)
				ws_rs_add(&s->seen[t->kind == WS_KIND_BIAS], (int)t->role);
			/* the role first: the shape is looked up for the few
			 * tensors it can make the embedding or head */
			if (s->emb == UINT64_MAX && t->kind == WS_KIND_WEIGHT &&
			    (t->role == WS_ROLE_EMBED || (t->role == WS_ROLE_LM_HEAD && s->head == UINT64_MAX)) &&
			    (shape_of(t, &n), n == 2)) {
				if (t->role == WS_ROLE_EMBED)
					s->emb = i;
				else
					s->head = i;
			}
			if (t->expert >= 1 || !(want & ~s->found))
				continue;
			for (size_t k = 0; k < p->nn; k++)
				if ((want & ~s->found) >> k & 1 && strstr(t->name, p->needle[k]))
					s->found |= 1u << k;
			for (size_t l = 0; l < s->best; l++)
				if ((line_mask(p->line_bits[l]) & ~s->found) == 0) {
					s->best = l;
					want = needles_before(p->line_bits, s->best);
					break;
				}
		}
	}
}

/* The family the names tell, the embedding (else the head) in *emb, and
 * the roles present by kind in seen[2] (what infer_sizes reads when
 * there is no embedding to size the rest by): one pass. */
static const struct family *
family_of(const ws_model *m, const ws_tensor **emb, ws_role_set seen[2])
{
	const char *needle[MAX_NEEDLES];
	uint8_t line_bits[ARRAY_LEN(families)][2];
	size_t nn = 0, best = ARRAY_LEN(families);

	_Static_assert(2 * ARRAY_LEN(families) <= MAX_NEEDLES, "needles fit the mask");
	/* each distinct substring once, searched while a line before the
	 * best one found so far may still need it */
	for (size_t i = 0; i < ARRAY_LEN(families); i++)
		for (int w = 0; w < 2; w++) {
			const char *str = w ? families[i].also : families[i].needle;
			size_t k = 0;
			while (str && k < nn && strcmp(needle[k], str))
				k++;
			if (str && k == nn)
				needle[nn++] = str;
			line_bits[i][w] = str ? (uint8_t)k : NO_NEEDLE;
		}
	family_pass p = {.m = m, .needle = needle, .nn = nn, .line_bits = line_bits,
			 .runs = m->n_tensors / FAMILY_RUN + (m->n_tensors % FAMILY_RUN != 0)};
	for (int w = 0; w < 2; w++)
		p.w[w] = (family_worker_state){.emb = UINT64_MAX, .head = UINT64_MAX, .best = ARRAY_LEN(families)};
	atomic_init(&p.next, 0);
	ws_team_run(ws_team_helpers_for(m->n_tensors), family_worker, &p);
	/* the lines before the workers' best were searched for in every
	 * tensor, and that best line is whole in the union: the first
	 * whole line up to it is the first of all */
	uint32_t found = p.w[0].found | p.w[1].found;
	size_t upto = p.w[0].best < p.w[1].best ? p.w[0].best : p.w[1].best;
	for (size_t l = 0; l < ARRAY_LEN(families) && l <= upto; l++)
		if ((line_mask(line_bits[l]) & ~found) == 0) {
			best = l;
			break;
		}
	for (int k = 0; k < 2; k++)
		for (size_t i = 0; i < WS_ROLE_WORDS; i++)
			seen[k].w[i] |= p.w[0].seen[k].w[i] | p.w[1].seen[k].w[i];
	uint64_t e = p.w[0].emb < p.w[1].emb ? p.w[0].emb : p.w[1].emb;
	uint64_t h = p.w[0].head < p.w[1].head ? p.w[0].head : p.w[1].head;
	*emb = e < m->n_tensors ? &m->tensors[e] : h < m->n_tensors ? &m->tensors[h] : NULL;
	return best < ARRAY_LEN(families) ? &families[best] : NULL;
}

static int
sample_cmp(const void *x, const void *y)
{
	const struct sample *a = x, *b = y;
	if (a->m != b->m)
		return a->m < b->m ? -1 : 1;
	return a->v < b->v ? -1 : a->v > b->v;
}

/* The side of matrix s[0..n) that is not d: 1 found (*v), 0 none. */
static int
other_side(const uint64_t *s, uint32_t n, uint64_t d, uint64_t *v)
{
	if (n != 2)
		return 0;
	if (s[1] == d)
		*v = s[0];
	else if (s[0] == d)
		*v = s[1];
	else
		return 0;
	return 1;
}

/* The samples one tensor gives its role's measure (at most two). */
static size_t
tensor_samples(const ws_tensor *t, const struct measure *me, uint64_t d,
	       struct sample out[2])
{
	uint32_t n;
	const uint64_t *s = shape_of(t, &n);
	uint64_t v;
	size_t ns = 0;

	if (t->kind != WS_KIND_WEIGHT && me->m != MS_SINKS)
		return 0;
	if (me->vector) {
		if (t->elements)
			out[ns++] = (struct sample){me->m, t->elements};
		return ns;
	}
	if (n == 3 && (me->m == MS_FE || me->m == MS_FE2)) {
		/* experts stacked: [E, rows, cols] */
		out[ns++] = (struct sample){MS_ESTACK, s[0]};
		s++;
		n--;
	}
	if (other_side(s, n, d, &v) && v)
		out[ns++] = (struct sample){me->m, v};
	return ns;
}

/* A measure takes few distinct values (one per kind of block, in a sane
 * checkpoint): they are counted in a small table per measure, and only
 * when one overflows are the samples gathered again and sorted. */
#define TALLY_SLOTS 8
struct tally {
	uint64_t v[TALLY_SLOTS], n[TALLY_SLOTS];
	unsigned used;
};

static bool
tally_add(struct tally *ty, uint64_t v)
{
	for (unsigned i = 0; i < ty->used; i++)
		if (ty->v[i] == v) {
			ty->n[i]++;
			return true;
		}
	if (ty->used == TALLY_SLOTS)
		return false;
	ty->v[ty->used] = v;
	ty->n[ty->used++] = 1;
	return true;
}

/* Most common value by sorting every sample (the general case). */
static int
modes_by_sort(struct infer *in, uint64_t d, const int8_t *mof)
{
	const ws_model *m = in->m;
	struct sample *smp = malloc((size_t)(m->n_tensors ? m->n_tensors : 1) * 2 * sizeof *smp);
	size_t ns = 0;
	if (!smp)
		return -1;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if ((unsigned)t->role < WS_ROLE_COUNT && mof[t->role] >= 0)
			ns += tensor_samples(t, &measures[mof[t->role]], d, smp + ns);
	}
	qsort(smp, ns, sizeof *smp, sample_cmp);
	size_t best[MS_COUNT] = {0};
	for (size_t i = 0, j; i < ns; i = j) {
		for (j = i; j < ns && smp[j].m == smp[i].m && smp[j].v == smp[i].v; j++)
			;
		/* a tie keeps the smaller value, which sorted first */
		if (j - i > best[smp[i].m]) {
			best[smp[i].m] = j - i;
			in->mode[smp[i].m] = smp[i].v;
		}
	}
	free(smp);
	return 0;
}

/* Room for block index l in in->blk (zero-filled); -1 on OOM. */
static int
blk_reserve(struct infer *in, uint64_t n)
{
	if (n <= in->blk_cap)
		return 0;
	uint64_t cap = in->blk_cap ? in->blk_cap : 64;
	while (cap < n)
		cap *= 2;
	uint8_t *p = realloc(in->blk, (size_t)cap);
	if (!p)
		return -1;
	memset(p + in->blk_cap, 0, (size_t)(cap - in->blk_cap));
	in->blk = p;
	in->blk_cap = cap;
	return 0;
}

/* Roles present, block and expert extents, which blocks hold a router or
 * a dense MLP, and every measure's most common value (a tie keeps the
 * smaller value); one pass over the tensors. */
static int
gather(struct infer *in, uint64_t d)
{
	const ws_model *m = in->m;
	int8_t mof[WS_ROLE_COUNT];   /* role -> its measure, or -1 */
	struct tally ty[MS_COUNT];
	bool overflow = false;

	memset(mof, -1, sizeof mof);
	for (size_t k = 0; k < ARRAY_LEN(measures); k++) {
		assert(mof[measures[k].role] < 0);  /* one measure per role */
		mof[measures[k].role] = (int8_t)k;
	}
	for (size_t k = 0; k < MS_COUNT; k++)
		ty[k].used = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if ((unsigned)t->role >= WS_ROLE_COUNT)
			continue;
		ws_rs_add(&in->seen[t->kind == WS_KIND_BIAS], (int)t->role);
		if (t->layer >= 0 && (uint64_t)t->layer + 1 > in->layers)
			in->layers = (uint64_t)t->layer + 1;
		if (t->expert >= 0 && (uint64_t)t->expert + 1 > in->max_expert)
			in->max_expert = (uint64_t)t->expert + 1;
		/* blocks past WS_ARCH_MAX_LAYERS make the architecture
		 * unsupported before the layout is read */
		if (t->layer >= 0 && (uint64_t)t->layer < WS_ARCH_MAX_LAYERS &&
		    (t->role == WS_ROLE_MOE_ROUTER || is_dense_mlp((int)t->role))) {
			if (blk_reserve(in, (uint64_t)t->layer + 1) < 0)
				return -1;
			in->blk[t->layer] |= t->role == WS_ROLE_MOE_ROUTER ? 1 : 2;
		}
		struct sample smp[2];
		if (mof[t->role] < 0 || overflow)
			continue;
		size_t ns = tensor_samples(t, &measures[mof[t->role]], d, smp);
		for (size_t k = 0; k < ns && !overflow; k++)
			overflow = !tally_add(&ty[smp[k].m], smp[k].v);
	}
	if (overflow)
		return modes_by_sort(in, d, mof);
	for (size_t k = 0; k < MS_COUNT; k++) {
		uint64_t best = 0;
		for (unsigned i = 0; i < ty[k].used; i++)
			if (ty[k].n[i] > best || (ty[k].n[i] == best && ty[k].v[i] < in->mode[k])) {
				best = ty[k].n[i];
				in->mode[k] = ty[k].v[i];
			}
	}
	return 0;
}

/* Split q (q_w rows), k and v widths into heads.  A per-head q norm or
 * the attention sinks give the split; otherwise the first common head
 * size dividing all three, else their largest common divisor up to 256:
 * the counts are exact whichever split is picked. */
static const char *
split_heads(struct infer *in, uint64_t q_w, uint64_t k_w, uint64_t v_w)
{
	struct ws_arch *a = in->a;
	uint64_t dk = 0, qn = in->mode[MS_QNORM], h = in->mode[MS_SINKS];
	const char *how = "the q/k/v rows (one split of several that count the same)";

	if (qn && qn < q_w && q_w % qn == 0 && k_w % qn == 0) {
		dk = qn;
		how = "the per-head q norm";
	} else if (h && q_w % h == 0 && k_w % (q_w / h) == 0) {
		dk = q_w / h;
		how = "the attention sinks";
	}
	for (size_t i = 0; !dk && i <= ARRAY_LEN(head_dims); i++) {
		uint64_t c = i == 0 ? (q_w >= WIDE_Q ? 128 : 64) : head_dims[i - 1];
		if (q_w % c == 0 && k_w % c == 0 && v_w % c == 0)
			dk = c;
	}
	if (!dk) {
		uint64_t g = q_w, x = k_w, r;
		for (int pass = 0; pass < 2; pass++, x = v_w)
			while (x) {
				r = g % x;
				g = x;
				x = r;
			}
		for (dk = g < 256 ? g : 256; dk > 1 && g % dk; dk--)
			;
	}
	if (!dk || !k_w || v_w % (k_w / dk))
		return "the q, k and v projection widths do not split into heads";
	set_field(a, WS_AK_HEAD_DIM, dk, how);
	set_field(a, WS_AK_HEADS, q_w / dk, how);
	set_field(a, WS_AK_KV_HEADS, k_w / dk, how);
	set_field(a, WS_AK_V_HEAD_DIM, v_w / (k_w / dk), how);
	if (qn)
		ws_sw_set(&a->flags, qn == q_w ? WS_ARCH_QK_NORM_FULL : WS_ARCH_QK_NORM_HEAD);
	return NULL;
}

/* The attention widths: q, k, v apart, or one fused qkv whose q part is
 * the output projection's input. */
static const char *
infer_attention(struct infer *in)
{
	uint64_t q = in->mode[MS_Q], k = in->mode[MS_K], v = in->mode[MS_V];
	uint64_t qkv = in->mode[MS_QKV], o = in->mode[MS_O];

	if (ws_sw_has(&in->a->flags, WS_ARCH_FUSED_QKV)) {
		if (o && qkv > o && (qkv - o) % 2 == 0) {
			q = o;
			k = v = (qkv - o) / 2;
		} else if (qkv % 3 == 0) {
			q = k = v = qkv / 3;
		} else {
			return "the fused qkv rows do not split into q, k and v";
		}
	}
	if (!q)
		return "no attention projection whose shape matches hidden_size";
	if (!k)
		k = q;
	if (!v)
		v = k;
	return split_heads(in, q, k, v);
}

/* Dense and MoE blocks: a block with a router is MoE, one with a dense
 * MLP dense, one with neither (a gap) takes the majority's kind.  The
 * leading dense blocks are first_k_dense, later ones mlp_only_layers. */
static int
infer_layout(struct infer *in)
{
	struct ws_arch *a = in->a;
	uint64_t n[3] = {0, 0, 0}, k = 0, extra = 0;

	for (uint64_t l = 0; l < in->layers; l++)
		n[in->blk[l] & 1 ? 1 : in->blk[l] & 2 ? 0 : 2]++;
	int gap = n[1] >= n[0];
	for (uint64_t l = 0; l < in->layers; l++) {
		int moe = in->blk[l] & 1 ? 1 : in->blk[l] & 2 ? 0 : gap;
		in->blk[l] = (uint8_t)moe;
	}
	while (k < in->layers && !in->blk[k])
		k++;
	for (uint64_t l = k; l < in->layers; l++)
		extra += !in->blk[l];
	set_field(a, WS_AK_FIRST_DENSE, k, "the leading blocks without a router");
	if (!extra)
		return 0;
	a->mlp_only_layers = calloc((size_t)extra, sizeof *a->mlp_only_layers);
	if (!a->mlp_only_layers)
		return -1;
	for (uint64_t l = k; l < in->layers; l++)
		if (!in->blk[l])
			a->mlp_only_layers[a->n_mlp_only_layers++] = (uint32_t)l;
	return 0;
}

/* Everything but the family: NULL, or why the shapes do not tell. */
static const char *
infer_sizes(struct infer *in, int *oom)
{
	struct ws_arch *a = in->a;
	const ws_tensor *emb = in->emb;
	const ws_role_set *w = &in->seen[WS_KIND_WEIGHT], *b = &in->seen[WS_KIND_BIAS];

	if (ws_rs_has(w, WS_ROLE_ATTN_KV_A))
		return "multi-head latent attention: its ranks and head split need config.json";
	if (!emb)
		return "no 2-D embedding or lm_head to read hidden_size and vocab_size from";
	uint32_t n;
	const uint64_t *es = shape_of(emb, &n);
	bool is_head = emb->role == WS_ROLE_LM_HEAD;
	set_field(a, WS_AK_VOCAB, es[0], is_head ? "the lm_head rows" : "the embedding rows");
	set_field(a, WS_AK_HIDDEN, es[1], is_head ? "the lm_head columns" : "the embedding columns");
	if (!a->hidden_size || !a->vocab_size)
		return "the embedding has a zero dimension";
	if (!in->layers)
		return "no numbered blocks";
	if (in->layers > WS_ARCH_MAX_LAYERS)
		return "a block index beyond any model";
	set_field(a, WS_AK_LAYERS, in->layers, "the highest block index + 1");

	/* switches from the tensors present */
	a->flags = (ws_switches)WS_NO_SWITCHES;
	for (size_t i = 0; i < ARRAY_LEN(presences); i++) {
		const struct presence *p = &presences[i];
		int r = (int)p->role;
		if (p->kind == ANY_KIND ? ws_rs_has(w, r) || ws_rs_has(b, r) : ws_rs_has(&in->seen[p->kind], r))
			ws_sw_set(&a->flags, p->flag);
	}
	if (!ws_rs_has(w, WS_ROLE_LM_HEAD))
		ws_sw_set(&a->flags, WS_ARCH_TIED);
	a->norm = any_role(b, is_norm) ? WS_NORM_LAYER : any_role(w, is_norm) ? WS_NORM_RMS : WS_NORM_NONE;
	if (ws_rs_has(w, WS_ROLE_ATTN_NORM) && !ws_rs_has(w, WS_ROLE_FFN_NORM) &&
	    !ws_sw_has(&a->flags, WS_ARCH_POST_NORMS))
		ws_sw_set(&a->flags, WS_ARCH_PARALLEL);
	if ((ws_sw_has(&a->flags, WS_ARCH_POST_NORMS)) && !ws_rs_has(w, WS_ROLE_ATTN_NORM))
		ws_sw_set(&a->flags, WS_ARCH_NO_PRE_NORM);
	a->mlp = ws_rs_has(w, WS_ROLE_FFN_GATE_UP) ? WS_MLP_GATED_FUSED
		 : ws_rs_has(w, WS_ROLE_FFN_GATE) ? WS_MLP_GATED
		 : ws_rs_has(w, WS_ROLE_FFN_UP) ? WS_MLP_PLAIN : WS_MLP_GATED;
	if (ws_sw_has(&a->flags, WS_ARCH_LEARNED_POS))
		set_field(a, WS_AK_POSITIONS, in->mode[MS_P], "the position embedding rows");

	const char *why = infer_attention(in);
	if (why)
		return why;

	/* MLP widths */
	uint64_t f = in->mode[MS_F], fe = in->mode[MS_FE];
	if (!f && in->mode[MS_F2] % 2 == 0)
		f = in->mode[MS_F2] / 2;
	if (!fe && in->mode[MS_FE2] % 2 == 0)
		fe = in->mode[MS_FE2] / 2;
	uint64_t e = in->mode[MS_E] ? in->mode[MS_E] : in->max_expert ? in->max_expert : in->mode[MS_ESTACK];
	if (ws_rs_has(w, WS_ROLE_MOE_ROUTER)) {
		if (!e || !fe)
			return "a router without experts whose shape matches hidden_size";
		set_field(a, WS_AK_EXPERTS, e, in->mode[MS_E] ? "the router rows" : "the expert tensors");
		/* the shapes do not say how many experts a token uses */
		set_field(a, WS_AK_TOPK, e, "no tensor: top-k is not in the shapes, every expert is counted active");
		set_field(a, WS_AK_MOE_INTER, fe, "the expert rows");
		if (in->mode[MS_SHF]) {
			set_field(a, WS_AK_SHARED_N, 1, "the shared expert tensors");
			set_field(a, WS_AK_SHARED_INTER, in->mode[MS_SHF], "the shared expert rows");
		}
		if (blk_reserve(in, in->layers) < 0) {
			*oom = 1;
			return NULL;
		}
		if (infer_layout(in) < 0) {
			*oom = 1;
			return NULL;
		}
	}
	if (!f && any_role(w, is_dense_mlp))
		return "no dense MLP matrix whose shape matches hidden_size";
	set_field(a, WS_AK_INTER, f ? f : fe, f ? "the MLP rows" : "the expert rows");
	return NULL;
}

/* The value a text encoder's key reads from the tensors under prefix:
 * a dim of the named tensor, or the count of blocks numbered under a
 * name ending in '.'; 0: absent. */
static uint64_t
text_key_value(const ws_model *m, size_t pl, const char *tensor, unsigned dim)
{
	size_t tl = strlen(tensor);
	uint64_t v = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (t->name_len < pl + tl || memcmp(t->name + pl, tensor, tl))
			continue;
		if (tensor[tl - 1] != '.') {
			if (t->name_len == pl + tl && dim < t->ndim)
				return t->shape[dim];
			continue;
		}
		uint64_t n = 0;
		size_t k = pl + tl;
		for (; k < t->name_len && t->name[k] >= '0' && t->name[k] <= '9' && n <= WS_ARCH_MAX_LAYERS; k++)
			n = n * 10 + (uint64_t)(t->name[k] - '0');
		if (k > pl + tl && k < t->name_len && t->name[k] == '.' && n + 1 > v)
			v = n + 1;
	}
	return v;
}

int
ws_arch_infer_part(const ws_model *m, const struct ws_cat_part *p, struct ws_arch *out, ws_error *err)
{
	const char *path = m->n_files ? m->files[0].path : m->path;
	const char *prefix = p->prefixes[0] ? p->prefixes[0] : "";
	size_t pl = strlen(prefix);
	arch_init(out, "inferred", path);
	snprintf(out->architecture, sizeof out->architecture, "%s", p->type);
	/* a network: its layout by its names (any the catalogue has: FLUX
	 * as BFL names it under model.diffusion_model. too) */
	int nr = ws_net_infer_part(m, prefix, NULL, out, err);
	if (nr)
		return nr < 0 ? -1 : 0;
	const struct ws_cat_text_names *tn = ws_cat_text_names(p->type);
	if (!tn) {
		out->unsupported = "the tensor names are of no layout the catalogue infers";
		return 0;
	}
	/* a text encoder: the config its class would have, from the shapes */
	cJSON *cfg = cJSON_CreateObject(), *arr = cJSON_CreateArray();
	bool proj = text_key_value(m, pl, tn->proj, 0) > 0;
	if (!cfg || !arr || !cJSON_AddItemToObject(cfg, "architectures", arr) ||
	    !cJSON_AddItemToArray(arr, cJSON_CreateString(proj ? tn->cls_proj : tn->cls)) ||
	    !cJSON_AddStringToObject(cfg, "model_type", tn->model_type)) {
		if (cfg)
			cJSON_Delete(cfg);
		else
			cJSON_Delete(arr);
		return ws_err_oom(err, path);
	}
	uint64_t hidden = 0;
	for (size_t k = 0; k < WS_CAT_TEXT_KEYS && tn->keys[k].key; k++) {
		uint64_t v = text_key_value(m, pl, tn->keys[k].tensor, tn->keys[k].dim);
		if (!v)
			continue;
		if (!strcmp(tn->keys[k].key, "hidden_size"))
			hidden = v;
		if (!cJSON_AddNumberToObject(cfg, tn->keys[k].key, (double)v)) {
			cJSON_Delete(cfg);
			return ws_err_oom(err, path);
		}
	}
	if (!hidden || hidden % tn->head_dim) {
		cJSON_Delete(cfg);
		out->unsupported = "no token embedding whose width is a whole number of heads";
		return 0;
	}
	if (!cJSON_AddNumberToObject(cfg, "num_attention_heads", (double)(hidden / tn->head_dim))) {
		cJSON_Delete(cfg);
		return ws_err_oom(err, path);
	}
	/* The values come from a file's shapes, not a config: one the class
	 * refuses (a width past its bounds, 70,000 blocks) leaves this part
	 * without a formula, saying so, rather than failing the whole open
	 * with a message about a config key the file does not have. */
	ws_error e2 = {0};
	struct cfg c = {cfg, NULL, path, out, &e2, NULL, NULL, false, NULL};
	int r = arch_read(&c, tn->model_type, proj ? tn->cls_proj : tn->cls, &p->adds);
	cJSON_Delete(cfg);
	if (r) {
		if (e2.code == WS_EXIT_INTERNAL) {
			*err = e2;
			return -1;
		}
		ws_arch_free(out);
		arch_init(out, "inferred", path);
		snprintf(out->architecture, sizeof out->architecture, "%s", p->type);
		out->unsupported = "the shapes give values its class does not take (a width or block count out of range)";
		return 0;
	}
	out->source = "inferred";
	out->assumed = "heads: width / 64, in no shape (every released CLIP and OpenCLIP text tower's); "
		       "no count depends on them";
	return r;
}

int
ws_arch_infer(const ws_model *m, struct ws_arch *out, ws_error *err)
{
	const char *path = m->n_files ? m->files[0].path : m->path;
	struct infer in = {.m = m, .a = out};
	int oom = 0;

	/* a single file's module: its own layout (the main component's) */
	if (m->n_components && m->components[0].part && m->components[0].part->inferred)
		return ws_arch_infer_part(m, m->components[0].part, out, err);
	arch_init(out, "inferred", path);
	/* a diffusion network's layout told by its names (a single file) */
	int nr = ws_net_infer(m, out, err);
	if (nr)
		return nr < 0 ? -1 : 0;
	snprintf(out->architecture, sizeof out->architecture, "unknown");
	ws_role_set seen[2] = {{{0}}, {{0}}};
	const struct family *fam = family_of(m, &in.emb, seen);
	if (!fam) {
		out->unsupported = "no config.json, and the tensor names are of no family "
				   "the architecture can be inferred for";
		return 0;
	}
	snprintf(out->architecture, sizeof out->architecture, "%s", fam->arch);
	if (fam->unsupported) {
		out->unsupported = fam->unsupported;
		return 0;
	}
	const struct ws_cat_entry *t = ws_cat_by_model_type(fam->arch);

	/* hidden_size first: every matrix is measured against it */
	if (in.emb) {
		uint32_t n;
		out->hidden_size = shape_of(in.emb, &n)[1];
		if (gather(&in, out->hidden_size) < 0) {
			free(in.blk);
			return ws_err_oom(err, path);
		}
	} else {
		/* no sizes to read (a shard of experts): infer_sizes says why
		 * from the roles present alone (family_of gathered them) */
		in.seen[0] = seen[0];
		in.seen[1] = seen[1];
	}
	out->hidden_size = 0;
	const char *why = infer_sizes(&in, &oom);
	free(in.blk);
	if (oom) {
		ws_arch_free(out);
		return ws_err_oom(err, path);
	}
	if (!why && t) {
		/* the shared checks and defaults; then a trial count, so sizes
		 * that overflow are an unsupported architecture, not exit 3 */
		ws_error e2 = {0};
		struct ws_formula f;
		out->known = true;
		if (arch_finish(out, t, &e2) < 0)
			why = "the tensor shapes do not form a consistent architecture";
		else if (ws_formula_compute(out, &f, &e2) < 0)
			why = "the sizes read from the shapes overflow a 64-bit parameter count";
		else
			ws_formula_free(&f);
		if (e2.code == WS_EXIT_INTERNAL) {
			ws_arch_free(out);
			*err = e2;
			return -1;
		}
	}
	if (why || !t) {
		out->known = false;
		out->unsupported = why ? why : "no formula for this family";
		ws_arch_free(out);
	}
	return 0;
}

struct ws_arch *
ws_arch_infer_new(const ws_model *m, ws_error *err)
{
	struct ws_arch *a = calloc(1, sizeof *a);
	if (!a) {
		ws_err_oom(err, m->path);
		return NULL;
	}
	if (ws_arch_infer(m, a, err)) {
		free(a);
		return NULL;
	}
	return a;
}
