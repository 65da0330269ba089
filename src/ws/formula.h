/*
 * ws/formula.h - the architecture parameters and the analytic
 * parameter count.
 *
 * A ws_arch is read from a Hugging Face config.json or from GGUF metadata:
 * the few numbers (hidden size, layers, heads, ...) and switches (biases,
 * fused projections, norm kind, MoE layout, MLA) that decide how many
 * parameters each role holds.  ws_formula_compute() turns it into exact
 * per-role and per-layer counts from a table of rules, one line per tensor
 * an architecture has; ws_model_compare() checks a model's tensors against
 * the same table.
 */
#ifndef WS_FORMULA_H
#define WS_FORMULA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

enum ws_norm_kind {
	WS_NORM_RMS = 0,        /* weight only */
	WS_NORM_LAYER,          /* LayerNorm with weight and bias */
	WS_NORM_LAYER_NOBIAS,   /* LayerNorm with weight only (cohere) */
	WS_NORM_NONE,           /* no parameters at all (OLMo 1) */
};

enum ws_mlp_kind {
	WS_MLP_GATED = 0,       /* gate, up, down (SwiGLU / GeGLU) */
	WS_MLP_GATED_FUSED,     /* gate_up fused into one matrix, down */
	WS_MLP_PLAIN,           /* up, down (GPT-2 style) */
};

/* Switches of an architecture; one bit each, named in JSON by
 * ws_arch_to_json(). */
enum ws_arch_flag {
	WS_ARCH_TIED = 1u << 0,              /* lm_head shares the embedding */
	WS_ARCH_QKV_BIAS = 1u << 1,          /* q, k, v (or fused qkv) bias */
	WS_ARCH_O_BIAS = 1u << 2,            /* attention output bias */
	WS_ARCH_MLP_BIAS = 1u << 3,          /* dense MLP biases */
	WS_ARCH_LM_HEAD_BIAS = 1u << 4,
	WS_ARCH_FUSED_QKV = 1u << 5,         /* one qkv projection */
	WS_ARCH_LEARNED_POS = 1u << 6,       /* a position embedding table */
	WS_ARCH_PARALLEL = 1u << 7,          /* one norm per block (attn ‖ mlp) */
	WS_ARCH_NO_PRE_NORM = 1u << 8,       /* OLMo 2: post norms only */
	WS_ARCH_POST_NORMS = 1u << 9,        /* Gemma 2/3, OLMo 2 post norms */
	WS_ARCH_QK_NORM_HEAD = 1u << 10,     /* q/k norm over head_dim */
	WS_ARCH_QK_NORM_FULL = 1u << 11,     /* q/k norm over heads × head_dim */
	WS_ARCH_QK_NORM_BIAS = 1u << 12,     /* that norm has a bias */
	WS_ARCH_EMBED_NORM = 1u << 13,       /* BLOOM embedding LayerNorm */
	WS_ARCH_SINKS = 1u << 14,            /* gpt-oss attention sinks */
	WS_ARCH_MLA = 1u << 15,              /* DeepSeek multi-head latent attn */
	WS_ARCH_MOE_FUSED = 1u << 16,        /* experts' gate_up fused */
	WS_ARCH_MOE_BIAS = 1u << 17,         /* experts have biases (gpt-oss) */
	WS_ARCH_ROUTER_BIAS = 1u << 18,      /* router Linear has a bias */
	WS_ARCH_ROUTER_SCORE_BIAS = 1u << 19, /* e_score_correction_bias */
	WS_ARCH_SHARED_GATE = 1u << 20,      /* qwen2_moe shared_expert_gate */
	WS_ARCH_NEW_DECODER = 1u << 21,      /* falcon new_decoder_architecture */
	WS_ARCH_MULTI_QUERY = 1u << 22,      /* falcon multi_query */
};

#define WS_ARCH_MAX_DEFAULTED 16
#define WS_ARCH_MAX_LAYERS (1u << 20) /* a bigger count is not a model */

/* The numeric fields of a ws_arch, by index: ws_arch_value() reads one,
 * ws_arch_key_name() is its SPEC/JSON name, and ws_arch.keys[] holds the
 * config or GGUF key each was read from (for error messages). */
enum ws_arch_key {
	WS_AK_HIDDEN, WS_AK_LAYERS, WS_AK_HEADS, WS_AK_KV_HEADS,
	WS_AK_HEAD_DIM, WS_AK_V_HEAD_DIM, WS_AK_INTER, WS_AK_VOCAB,
	WS_AK_POSITIONS, WS_AK_SLIDING, WS_AK_EXPERTS, WS_AK_TOPK,
	WS_AK_MOE_INTER, WS_AK_SHARED_N, WS_AK_SHARED_INTER,
	WS_AK_FIRST_DENSE, WS_AK_MOE_STEP, WS_AK_Q_LORA, WS_AK_KV_LORA,
	WS_AK_QK_NOPE, WS_AK_QK_ROPE, WS_AK_NEXTN,
	WS_AK_COUNT
};

/*
 * Numeric fields.  Every one is the value as read (or derived, e.g.
 * head_dim = hidden / heads); 0 means "not applicable".
 */
struct ws_arch {
	const char *source;         /* "config.json" | "gguf" | "inferred" */
	char architecture[64];      /* model_type / general.architecture */
	bool known;                 /* a formula rule set exists */
	const char *unsupported;    /* why !known (static), or NULL */
	bool no_head;               /* a base-model class: no LM head */

	uint64_t hidden_size, num_layers, num_heads, num_kv_heads;
	uint64_t head_dim;          /* q/k per-head dim (MLA: nope + rope) */
	uint64_t v_head_dim;        /* v per-head dim (= head_dim unless MLA) */
	uint64_t intermediate_size; /* dense MLP width */
	uint64_t vocab_size, max_position_embeddings;
	uint64_t sliding_window;
	enum ws_norm_kind norm;
	enum ws_mlp_kind mlp;
	uint32_t flags;             /* enum ws_arch_flag */

	/* MoE (num_experts == 0: dense) */
	uint64_t num_experts, experts_per_tok, moe_intermediate_size;
	uint64_t shared_experts, shared_intermediate_size; /* per shared expert */
	uint64_t first_k_dense;     /* first_k_dense_replace */
	uint64_t moe_step;          /* a MoE layer every moe_step layers */
	uint64_t moe_step_offset;   /* 0: i % step == 0; 1: (i+1) % step == 0 */
	uint32_t *mlp_only_layers;  /* malloc'd; freed by ws_arch_free */
	uint32_t n_mlp_only_layers;

	/* MLA */
	uint64_t q_lora_rank, kv_lora_rank;
	uint64_t qk_nope_head_dim, qk_rope_head_dim;

	uint64_t num_nextn_predict_layers; /* MTP blocks after the last layer */

	/* Which layers slide (see ws_arch_layer_sliding): the config's
	 * layer_types (malloc'd kinds, enum ws_layer_kind of the catalogue),
	 * else the catalogue's rule for the type with these values. */
	uint8_t *layer_types;
	uint64_t n_layer_types;
	int slide_rule;             /* enum ws_cat_slide */
	uint64_t slide_period;      /* sliding_window_pattern */
	bool slide_on;              /* use_sliding_window (rule FROM) */
	uint64_t slide_from;        /* max_window_layers (rule FROM) */
	char dtype[16];             /* torch_dtype / dtype, or "" */

	/* Where each value came from, for error messages: static strings
	 * indexed by enum ws_arch_key (NULL: derived or defaulted). */
	const char *keys[WS_AK_COUNT];
	/* Config keys that came from the class defaults (static strings). */
	const char *defaulted[WS_ARCH_MAX_DEFAULTED];
	uint32_t n_defaulted;
	char key_prefix[72];        /* GGUF: "<arch>." prepended to keys */
	char src_path[1024];        /* config.json or GGUF path, for errors */
};

uint64_t ws_arch_value(const struct ws_arch *a, enum ws_arch_key k);
const char *ws_arch_key_name(enum ws_arch_key k);
/* "config key 'hidden_size'" / "GGUF key 'llama.embedding_length'"
 * (or the field name when derived) into buf. */
const char *ws_arch_key_label(const struct ws_arch *a, enum ws_arch_key k,
			      char *buf, size_t len);

/*
 * Read the architecture from a parsed config.json.  Multimodal wrappers
 * (a "text_config" object) are read through their text model.  A value
 * that is negative, fractional, of the wrong JSON type or too large is an
 * input error (exit 3) naming the key; an unknown model_type is not an
 * error: out->known is false.  Returns 0 or -1.  Free with ws_arch_free.
 */
int ws_arch_from_config(const struct cJSON *config, const char *config_path,
			struct ws_arch *out, ws_error *err);

/*
 * Read the architecture from GGUF metadata ({arch}.block_count, ...);
 * switches the metadata does not carry (biases, tied output, norm kind)
 * are taken from the tensors present when there are tensors.
 */
int ws_arch_from_gguf(const ws_model *m, struct ws_arch *out, ws_error *err);

/*
 * Infer the architecture from the tensors when neither config.json nor
 * GGUF metadata gives one (roles already assigned by name): the family
 * from name patterns, sizes from shapes (the most common value across
 * blocks), switches from the tensors present.  out->source is "inferred";
 * names or shapes that do not tell leave out->known false with the reason
 * in out->unsupported.  A MoE's top-k is not in the shapes: every expert
 * is counted active.  Returns 0, or -1 on OOM.  Free with ws_arch_free.
 */
int ws_arch_infer(const ws_model *m, struct ws_arch *out, ws_error *err);

/* Is layer i a MoE layer? */
bool ws_arch_layer_is_moe(const struct ws_arch *a, uint64_t i);
/* Does layer i attend through a sliding window (sliding_window set)? */
bool ws_arch_layer_sliding(const struct ws_arch *a, uint64_t i);
/* Layer i's kind as SPEC names it (by_layer[].layer_kind): moe or dense
 * in a model with experts, else its attention (attention,
 * sliding_attention, or what layer_types says); "mtp" past the last
 * layer.  A static string. */
const char *ws_arch_layer_kind(const struct ws_arch *a, uint64_t i);

void ws_arch_free(struct ws_arch *a);

struct ws_formula {
	uint64_t total;             /* without the MTP layers */
	uint64_t active;            /* per token (MoE); = total when dense */
	uint64_t mtp;               /* the MTP layers, reported apart */
	uint64_t by_role[WS_ROLE_COUNT];
	uint64_t num_layers;
	uint64_t *by_layer;         /* num_layers totals (malloc'd) */
	/* per-role counts of one dense and one MoE layer */
	uint64_t layer_role[2][WS_ROLE_COUNT];
	uint64_t per_expert;        /* parameters of one routed expert */
};

/*
 * Compute the analytic count.  Exact, overflow-checked: an overflow is an
 * input error (exit 3) naming the config key behind it.  The arch must be
 * known (a->known), else -1 with an error.  Free with ws_formula_free.
 */
int ws_formula_compute(const struct ws_arch *a, struct ws_formula *out,
		       ws_error *err);
void ws_formula_free(struct ws_formula *f);

/* JSON objects (SPEC "arch" and "formula"); NULL on OOM. */
struct cJSON *ws_arch_to_json(const struct ws_arch *a);
struct cJSON *ws_formula_to_json(const struct ws_arch *a, const struct ws_formula *f);
/* One SPEC by_layer[] object {component, layer, layer_kind, params}
 * (kind NULL: left out); NULL on OOM. */
struct cJSON *ws_layer_json(const char *component, uint64_t layer, const char *kind,
			    uint64_t params);

/* The architecture line(s) and the formula's total, active and MTP. */
void ws_formula_print_summary(FILE *out, const struct ws_arch *a,
			      const struct ws_formula *f);
/* The expectation as text; explain: each role's formula with numbers. */
void ws_formula_print_text(FILE *out, const struct ws_arch *a,
			   const struct ws_formula *f, bool explain);

/*
 * Compare the model's tensors (roles assigned) with m->arch / m->formula
 * and add findings: count-mismatch, shape-mismatch, missing-tensor,
 * layer-gap, unexpected-tensor, tied-embeddings, layer-inconsistent.
 * Returns 0, or -1 on OOM.  Does nothing when m->arch is NULL or unknown.
 */
int ws_model_compare(ws_model *m);

#ifdef __cplusplus
}
#endif
#endif
