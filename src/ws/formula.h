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

/* Switches of an architecture, by index into a ws_switches set; named in
 * JSON by ws_arch_to_json(). */
enum ws_arch_flag {
	WS_ARCH_TIED,              /* lm_head shares the embedding */
	WS_ARCH_QKV_BIAS,          /* q, k, v (or fused qkv) bias */
	WS_ARCH_O_BIAS,            /* attention output bias */
	WS_ARCH_MLP_BIAS,          /* dense MLP biases */
	WS_ARCH_LM_HEAD_BIAS,
	WS_ARCH_FUSED_QKV,         /* one qkv projection */
	WS_ARCH_LEARNED_POS,       /* a position embedding table */
	WS_ARCH_PARALLEL,          /* one norm per block (attn ‖ mlp) */
	WS_ARCH_NO_PRE_NORM,       /* OLMo 2: post norms only */
	WS_ARCH_POST_NORMS,        /* Gemma 2/3, OLMo 2 post norms */
	WS_ARCH_QK_NORM_HEAD,     /* q/k norm over head_dim */
	WS_ARCH_QK_NORM_FULL,     /* q/k norm over heads × head_dim */
	WS_ARCH_QK_NORM_BIAS,     /* that norm has a bias */
	WS_ARCH_EMBED_NORM,       /* BLOOM embedding LayerNorm */
	WS_ARCH_SINKS,            /* gpt-oss attention sinks */
	WS_ARCH_MLA,              /* DeepSeek multi-head latent attn */
	WS_ARCH_MOE_FUSED,        /* experts' gate_up fused */
	WS_ARCH_MOE_BIAS,         /* experts have biases (gpt-oss) */
	WS_ARCH_ROUTER_BIAS,      /* router Linear has a bias */
	WS_ARCH_ROUTER_SCORE_BIAS, /* e_score_correction_bias */
	WS_ARCH_SHARED_GATE,      /* qwen2_moe shared_expert_gate */
	WS_ARCH_NEW_DECODER,      /* falcon new_decoder_architecture */
	WS_ARCH_MULTI_QUERY,      /* falcon multi_query */
	WS_ARCH_XIELU,            /* xIELU: two learnable scalars per MLP */
	WS_ARCH_NO_FINAL_NORM,    /* no norm after the last block (BERT) */
	WS_ARCH_TYPE_EMBED,       /* a token-type table (BERT) */
	/* the parts an encoder's class adds (catalogue class lines) */
	WS_ARCH_POOLER,           /* pooler dense over the first token */
	WS_ARCH_MLM,              /* masked-LM transform, decoder, bias */
	WS_ARCH_NSP,              /* next-sentence head, 2 outputs */
	WS_ARCH_CLASSIFIER,       /* a num_labels output layer */
	WS_ARCH_CLS_DENSE,        /* a dense layer before it (RoBERTa) */
	WS_ARCH_CHOICE,           /* a one-output layer (multiple choice) */
	WS_ARCH_EMBED_SIZE,       /* embeddings of their own width (ELECTRA) */
	WS_ARCH_PATCHES,          /* an image encoder: patches, not tokens (ViT) */
	/* towers of a multimodal or dual-encoder model */
	WS_ARCH_PATCH_BIAS,       /* the patch convolution has a bias */
	WS_ARCH_CLS_TOKEN,        /* a class token before the patches */
	WS_ARCH_TEXT_PROJ,        /* text_projection into the joint space (CLIP) */
	WS_ARCH_VISUAL_PROJ,      /* visual_projection into the joint space */
	WS_ARCH_TOWER_HEAD,       /* a text tower's own head (SigLIP), with bias */
	WS_ARCH_LOGIT_SCALE,      /* learnable logit scale, one element */
	WS_ARCH_LOGIT_BIAS,       /* learnable logit bias, one element */
	WS_ARCH_ATTN_POOL,        /* SigLIP's attention-pooling (MAP) head */
	WS_ARCH_BARE,             /* layers alone: no token table, final norm or head */
	/* projectors (the layers between a tower and the text width) */
	WS_ARCH_PROJ_MLP2,        /* two linear layers with biases (LLaVA) */
	WS_ARCH_PROJ_LINEAR,      /* one linear layer without bias (Gemma 3) */
	WS_ARCH_PROJ_IN_NORM,     /* a norm over the tower's width before it */
	/* state-space and linear-attention mixers (block kinds below) */
	WS_ARCH_SSM_BIAS,         /* Mamba in_proj / out_proj biases (use_bias) */
	WS_ARCH_SSM_CONV_BIAS,    /* the mixer's conv1d bias (use_conv_bias) */
	WS_ARCH_SSM_DT_NORMS,     /* Jamba's dt / B / C RMSNorms */
	WS_ARCH_ATTN_GATE,        /* an output gate: q_proj twice as wide (Qwen3-Next) */
	WS_ARCH_MTP_FC,           /* an MTP block of fc + norms (Qwen3-Next), no own embedding */
	WS_ARCH_BIDIRECTIONAL,    /* an encoder: attends both ways, caches no keys */
	WS_ARCH_REL_EMBED,        /* one relative-position table for all layers (DeBERTa) */
	WS_ARCH_REL_EMBED_NORM,   /* its LayerNorm (norm_rel_ebd layer_norm) */
	WS_ARCH_POS_C2P,          /* content-to-position attention: keys of positions */
	WS_ARCH_POS_P2C,          /* position-to-content attention: queries of positions */
	WS_ARCH_SHARE_ATT_KEY,    /* positions through the layer's own q and k */
	WS_ARCH_REL_DIST,         /* a distance table per layer (BERT relative_key) */
	WS_ARCH_FIRST_NO_NORM,    /* block 0 has no norm before attention (ModernBERT) */
	WS_ARCH_NO_NORM_BIAS,     /* LayerNorms without a bias (config norm_bias false) */
	WS_ARCH_HEAD_TRANSFORM,   /* a dense + norm head before the output (ModernBERT) */
	WS_ARCH_NO_HEAD_DENSE_BIAS, /* that dense layer without a bias */
	WS_ARCH_NO_MLM_BIAS,      /* a masked-LM decoder without its bias */
	WS_ARCH_LAYER_SCALE,      /* a learned scale after attention and MLP (DINOv2) */
	WS_ARCH_MASK_TOKEN,       /* a learned mask token (DINOv2) */
	WS_ARCH_REGISTERS,        /* register tokens (num_register_tokens) */
	WS_ARCH_CLS_CONCAT,       /* a classifier over the class token and the mean patch */
	WS_ARCH_NO_UP_BIAS,       /* the MLP's input side without a bias (JinaBERT's gated_layers) */
	/* multimodal towers and projectors */
	WS_ARCH_NO_PATCH_POS,     /* patches without a position table (rotary: Qwen-VL) */
	WS_ARCH_PIXEL_SHUFFLE_MLP, /* a tower's own adapter after a pixel shuffle (Llama 4) */
	WS_ARCH_PROJ_MERGE_MLP,   /* a merger: m x m patches' widths through two biased linears */
	WS_ARCH_IMAGE_NEWLINE,    /* a learned text-width row after each image row (LLaVA-NeXT) */
	WS_ARCH_PROJ_DEEPSTACK,   /* a list of mergers normed after the merge, one a "block" (Qwen3-VL) */
	WS_ARCH_TILES,            /* Mllama's tile and aspect-ratio position tables, gated */
	WS_ARCH_GATED_LAYERS,     /* a gate after attention and after the MLP (Mllama's global layers) */
	WS_ARCH_PROJ_BIAS,        /* the projector's linears have biases (Mllama's one, LLaVA's two) */
	WS_ARCH_SSM_NO_NORM,      /* a Mamba-2 mixer without its gated RMSNorm (Falcon-H1's mamba_rms_norm false) */
	WS_ARCH_SSM_IN_BIAS,      /* a Mamba-2 in_proj bias alone (Falcon-H1's mamba_proj_bias) */
	WS_ARCH_SSM_OUT_BIAS,     /* ... an out_proj bias alone (its projectors_bias) */
	WS_ARCH_SHARED_MLP,       /* a shared MLP beside the experts (Granite-4.0-H shared_mlp) */
	WS_ARCH_LIN_SPLIT,        /* Gated DeltaNet's qkv and z apart (llama.cpp's attn_qkv, attn_gate) */
	/* encoder-decoder stacks (catalogue parts reading one config) */
	WS_ARCH_XATTN,            /* a cross-attention over the encoder in every block */
	WS_ARCH_REL_BIAS,         /* T5's relative-position bias, one per stack */
	WS_ARCH_REL_BIAS_LAYERS,  /* ... one per block's self-attention (UMT5) */
	WS_ARCH_NO_TOKENS,        /* no token table of its own (shared, or a conv stem) */
	WS_ARCH_POS_OFFSET,       /* learned positions with 2 extra rows (BART) */
	WS_ARCH_CONV_STEM,        /* two 1-D convolutions over audio features (Whisper) */
	WS_ARCH_NO_K_BIAS,        /* the key projections without a bias (Whisper) */
	WS_ARCH_GATED_MLP,        /* a gated MLP the config asks for (T5 gated-gelu) */
	WS_ARCH_PROJ_SHUFFLE_MLP, /* a norm over m x m merged patches, two biased linears (InternVL's mlp1) */
	WS_ARCH_RMS_NORMS,        /* its norms RMS norms, not the type's LayerNorms (InternViT's norm_type rms_norm) */
	WS_ARCH_SWITCH_COUNT
};

/* A set of switches: the architecture's (enum ws_arch_flag) and those the
 * tensor templates derive from it (catalogue/templates.h), any number of
 * them up to 64 per word. */
#define WS_SWITCH_WORDS 2
typedef struct ws_switches {
	uint64_t w[WS_SWITCH_WORDS];
} ws_switches;

static inline bool
ws_sw_has(const ws_switches *s, int i)
{
	return (s->w[(unsigned)i / 64] >> ((unsigned)i % 64)) & 1;
}

static inline void
ws_sw_put(ws_switches *s, int i, bool on)
{
	uint64_t bit = 1ull << ((unsigned)i % 64);
	s->w[(unsigned)i / 64] = on ? s->w[(unsigned)i / 64] | bit : s->w[(unsigned)i / 64] & ~bit;
}

static inline void
ws_sw_set(ws_switches *s, int i)
{
	ws_sw_put(s, i, true);
}

static inline void
ws_sw_clear(ws_switches *s, int i)
{
	ws_sw_put(s, i, false);
}

/* s |= t */
static inline void
ws_sw_or(ws_switches *s, const ws_switches *t)
{
	for (int i = 0; i < WS_SWITCH_WORDS; i++)
		s->w[i] |= t->w[i];
}

/* s &= ~t */
static inline void
ws_sw_andnot(ws_switches *s, const ws_switches *t)
{
	for (int i = 0; i < WS_SWITCH_WORDS; i++)
		s->w[i] &= ~t->w[i];
}

/* Is every switch of `need` in s? */
static inline bool
ws_sw_all(const ws_switches *s, const ws_switches *need)
{
	for (int i = 0; i < WS_SWITCH_WORDS; i++)
		if ((s->w[i] & need->w[i]) != need->w[i])
			return false;
	return true;
}

/* A constant set of up to 12 switches, for static tables:
 * `WS_SWITCHES(WS_ARCH_TIED, WS_ARCH_MLA)`; WS_SWITCHES(-1) is none. */
#define WS_SW_BIT_(i, w) ((i) >= 0 && (i) / 64 == (w) ? 1ull << ((unsigned)(i) % 64) : 0ull)
#define WS_SW_WORD_(w, a, b, c, d, e, f, g, h, i, j, k, l, ...) \
	(WS_SW_BIT_(a, w) | WS_SW_BIT_(b, w) | WS_SW_BIT_(c, w) | WS_SW_BIT_(d, w) | \
	 WS_SW_BIT_(e, w) | WS_SW_BIT_(f, w) | WS_SW_BIT_(g, w) | WS_SW_BIT_(h, w) | \
	 WS_SW_BIT_(i, w) | WS_SW_BIT_(j, w) | WS_SW_BIT_(k, w) | WS_SW_BIT_(l, w))
#define WS_SWITCHES(...) \
	{{WS_SW_WORD_(0, __VA_ARGS__, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1), \
	  WS_SW_WORD_(1, __VA_ARGS__, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1)}}
#define WS_NO_SWITCHES {{0, 0}}

#define WS_ARCH_MAX_DEFAULTED 24
#define WS_ARCH_MAX_LAYERS (1u << 16) /* a bigger count is not a model (and every
				       * layer is a JSON object of its own) */

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
	WS_AK_INDEX_HEADS, WS_AK_INDEX_HEAD_DIM,
	WS_AK_TYPE_VOCAB, WS_AK_LABELS, WS_AK_EMBED_SIZE,
	WS_AK_CHANNELS, WS_AK_IMAGE, WS_AK_PATCH, WS_AK_PATCHES, WS_AK_POOLER_OUT,
	WS_AK_PROJ,
	/* state-space mixers: inner width, state, conv kernel, dt rank,
	 * Mamba-2 heads and groups; Gated DeltaNet's heads and head widths */
	WS_AK_SSM_INNER, WS_AK_SSM_STATE, WS_AK_SSM_CONV, WS_AK_SSM_RANK,
	WS_AK_SSM_HEADS, WS_AK_SSM_GROUPS,
	WS_AK_LIN_K_HEADS, WS_AK_LIN_V_HEADS, WS_AK_LIN_K_DIM, WS_AK_LIN_V_DIM,
	WS_AK_REL_ROWS, WS_AK_REGISTERS,
	/* towers: frames a patch spans, patches merged per side, an
	 * adapter's output width */
	WS_AK_TEMPORAL, WS_AK_MERGE, WS_AK_OUT,
	/* embedding rows beyond the vocabulary (Mllama's 8); image tiles
	 * and aspect-ratio ids (Mllama's tower) */
	WS_AK_EXTRA_ROWS, WS_AK_TILES, WS_AK_ASPECTS,
	WS_AK_COUNT
};

/*
 * Block kinds: what one layer of a stack holds, its token mixer and its
 * feed-forward.  A template says which blocks have its tensor
 * (ws_template_in_block); the formula counts each kind once and
 * multiplies.  Kind = mixer × WS_FFN_COUNT + feed-forward, so a plain
 * decoder's dense and MoE blocks stay 0 and 1.
 */
enum ws_mixer {
	WS_MIX_ATTN = 0,      /* attention (full or sliding) */
	WS_MIX_MAMBA,         /* Mamba (selective scan, x_proj / dt_proj) */
	WS_MIX_MAMBA2,        /* Mamba-2 (heads, groups, gated norm) */
	WS_MIX_LINEAR,        /* Gated DeltaNet linear attention */
	WS_MIX_CONV,          /* a short convolution block (LFM2) */
	WS_MIX_PARALLEL,      /* attention and Mamba-2 side by side (Falcon-H1) */
	WS_MIX_NONE,          /* no mixer: a feed-forward-only layer */
	WS_MIX_XATTN,         /* cross-attention to an image's tokens (Mllama) */
	WS_MIX_COUNT
};
enum ws_ffn_kind { WS_FFN_DENSE = 0, WS_FFN_MOE, WS_FFN_NONE, WS_FFN_COUNT };
#define WS_BK_COUNT (WS_MIX_COUNT * WS_FFN_COUNT)
#define WS_BK(mix, ffn) ((mix) * WS_FFN_COUNT + (ffn))
#define WS_BK_MIX(k) ((enum ws_mixer)((k) / WS_FFN_COUNT))
#define WS_BK_FFN(k) ((enum ws_ffn_kind)((k) % WS_FFN_COUNT))

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
	ws_switches flags;          /* enum ws_arch_flag */

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

	/* DeepSeek sparse attention's lightning indexer (0: none) */
	uint64_t index_heads, index_head_dim;

	/* encoders: the token-type table's rows, a classifier's outputs */
	uint64_t type_vocab_size, num_labels;
	uint64_t embedding_size;    /* 0: the hidden size */
	/* an image encoder: its input channels, image side and patch side,
	 * and the patches an image makes, (image / patch)² (derived) */
	uint64_t num_channels, image_size, patch_size, num_patches;
	uint64_t pooler_output_size; /* the pooler's outputs; 0: the hidden size */
	uint64_t projection_dim;    /* a dual encoder's joint width (CLIP); an
				     * mmproj's projector output */
	/* the components the file describes beside this, the main one
	 * (catalogue parts: a wrapper's config, an mmproj GGUF), or NULL */
	const struct ws_cat_part *parts;
	/* state-space / linear-attention mixers (0: none) */
	uint64_t ssm_inner, ssm_state, ssm_conv, ssm_rank, ssm_heads, ssm_groups;
	uint64_t lin_k_heads, lin_v_heads, lin_k_dim, lin_v_dim;
	/* each layer's block kind (WS_BK), malloc'd, when the stack is not
	 * all attention; NULL: attention, dense or MoE by the rules above */
	uint8_t *layer_block;
	uint64_t n_layer_block;
	/* rows of a relative-position table: DeBERTa's shared one (2 ×
	 * buckets or span), BERT relative_key's per layer (2 × positions - 1) */
	uint64_t rel_rows;
	uint64_t num_registers;     /* register tokens (DINOv2 with registers) */
	/* a video-capable patch: frames it spans (0: an image's 2-D patch);
	 * patches merged per side before a projector (0: none); a tower
	 * adapter's output width, the projector's input (0: the hidden size) */
	uint64_t temporal_patch, merge_size, out_width;
	/* a tower's window attention (Qwen2.5-VL): the window's side in
	 * pixels (0: every block attends over the whole image) and the
	 * blocks that still do (fullatt_block_indexes; malloc'd, sorted,
	 * each below num_layers) */
	uint64_t vision_window;
	uint32_t *full_attn_blocks;
	uint32_t n_full_attn_blocks;
	uint64_t extra_rows;        /* embedding rows past vocab_size */
	uint64_t max_tiles, aspect_ids; /* tiles an image is cut into; aspect-ratio ids (+1) */
	char cls[64];               /* the config's class (architectures[0]), or "" */

	/* Which layers slide (see ws_arch_layer_sliding): the config's
	 * layer_types (malloc'd kinds, enum ws_layer_kind of the catalogue),
	 * else the catalogue's rule for the type with these values. */
	uint8_t *layer_types;
	uint64_t n_layer_types;
	int slide_rule;             /* enum ws_cat_slide */
	uint64_t slide_period;      /* sliding_window_pattern, a number */
	char slide_pattern[64];     /* sliding_window_pattern, a string: "LLLG"
				     * (L slides, the last layer never) */
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
	/* a diffusion network (UNet, VAE, DiT): its expected tensors by
	 * name, made from the catalogue's units (ws/net.h); owned */
	struct ws_net *net;
	/* inferred: what no shape tells, and the rule taken (static) */
	const char *assumed;
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

struct ws_cat_part;
/*
 * A wrapper's other components (catalogue parts): a tower from its
 * sub-config (absent: its type's class defaults), read as a model of its
 * own type; a projector from the widths of the text model and the tower
 * it joins (unknown, with a reason, when either is).  Same contract as
 * ws_arch_from_config.
 */
int ws_arch_from_part(const struct cJSON *config, const char *config_path,
		      const struct ws_cat_part *p, struct ws_arch *out, ws_error *err);
/* The tower of an mmproj GGUF joined to a text model's (its clip.*
 * keys, its v.* tensors); same contract. */
int ws_arch_vision_gguf(const ws_model *m, struct ws_arch *out, ws_error *err);
int ws_arch_projector(const struct ws_cat_part *p, const struct ws_arch *text,
		      const struct ws_arch *tower, const struct cJSON *config,
		      struct ws_arch *out, ws_error *err);

/*
 * Read the architecture from GGUF metadata ({arch}.block_count, ...);
 * switches the metadata does not carry (biases, tied output, norm kind)
 * are taken from the tensors present when there are tensors.
 */
int ws_arch_from_gguf(const ws_model *m, struct ws_arch *out, ws_error *err);
/* One stack of a GGUF wrapper (general.architecture t5: its encoder and
 * decoder, catalogue parts reading one config, ws_arch.parts of the
 * main one's), read from the same metadata as its type. */
int ws_arch_from_gguf_part(const ws_model *m, const struct ws_cat_part *p, struct ws_arch *out, ws_error *err);

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
/* A single file's module (a part without a config): its architecture
 * from the names and shapes under its prefix, source "inferred". */
struct ws_cat_part;
int ws_arch_infer_part(const ws_model *m, const struct ws_cat_part *p, struct ws_arch *out, ws_error *err);

/* Is layer i a MoE layer? */
bool ws_arch_layer_is_moe(const struct ws_arch *a, uint64_t i);
/* Layer i's block kind (WS_BK); an MTP layer past the last is attention. */
int ws_arch_layer_block(const struct ws_arch *a, uint64_t i);
/* Does layer i hold attention (a KV cache)? */
bool ws_arch_layer_attends(const struct ws_arch *a, uint64_t i);
/* The block kind's name for messages: "dense", "MoE", "mamba", ... */
const char *ws_block_kind_name(int k);
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
	/* per-role counts of one layer of each block kind (WS_BK) */
	uint64_t layer_role[WS_BK_COUNT][WS_ROLE_COUNT];
	uint64_t per_expert;        /* parameters of one routed expert */
	uint64_t first_less;        /* block 0 holds this many fewer (ModernBERT) */
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
 * Tensors the config's class does not load (a BertForPreTraining file's
 * pooler and next-sentence head under a BertForMaskedLM config): the
 * parts of another class of the type, outside the blocks.  Each is marked
 * unloaded with params 0 (role kept), and one unloaded-tensor warning
 * names them.  After ws_roles_assign, before components and the
 * comparison.  Returns 0, or -1 on OOM.  Does nothing without an
 * encoder class (m->arch->cls).
 */
int ws_model_mark_unloaded(ws_model *m);

/*
 * Compare the model's tensors (roles assigned) with m->arch / m->formula
 * and add findings: count-mismatch, shape-mismatch, missing-tensor,
 * layer-gap, unexpected-tensor, tied-embeddings, layer-inconsistent.
 * Returns 0, or -1 on OOM.  Does nothing when m->arch is NULL or unknown.
 */
int ws_model_compare(ws_model *m);
/* The same for component `comp`'s tensors against its own a and f. */
int ws_model_compare_component(ws_model *m, uint32_t comp, const struct ws_arch *a,
			       const struct ws_formula *f);
/* The whole model's formula (SPEC formula{}): the main component's with
 * every other component's added (by_component, by_layer, by_role,
 * total); NULL without a formula or on OOM. */
struct cJSON *ws_model_formula_json(const ws_model *m);
/* The formula in text, the main component's and each other's, then the
 * total over them: detail 0 the summaries, 1 with roles, 2 explained. */
void ws_model_formula_print(FILE *out, const ws_model *m, int detail);
/* The components a config's wrapper type describes (catalogue parts, the
 * main one first), or NULL when it is one model. */
const struct ws_cat_part *ws_arch_config_parts(const struct cJSON *config);

#ifdef __cplusplus
}
#endif
#endif
