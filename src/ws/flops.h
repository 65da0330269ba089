/*
 * ws/flops.h - compute per forward pass from the real tensor
 * shapes: MACs = a·N + b·N² over N tokens (FLOPs = 2 × MACs), the KV cache
 * per token and the memory a context needs, for a selection of blocks.
 *
 *   a  every matmul weight element a token passes through: attention
 *      projections (MLA included), MLP, router and shared experts, the
 *      routed experts at top-k of num_experts, and the head (the embedding
 *      when the head is tied).  Embedding lookups, norms and biases are
 *      not matmuls and are left out.
 *   b  for each block run, heads × (qk_head_dim + v_head_dim): the score
 *      matrix Q·Kᵀ plus the weighted sum of V, per pair of tokens.  Blocks
 *      with a sliding window are summed apart (b_sliding): they cost
 *      b_sliding · N · min(N, window).
 *
 * A selection lists blocks in the order they run; a block may repeat
 * (depth expansion) and then counts every time it runs, in a, b and the KV
 * cache; parameters and weight bytes count each stored block once.
 */
#ifndef WS_FLOPS_H
#define WS_FLOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

/* Blocks one selection may run, repeats included: far beyond any real
 * depth-expansion experiment, and it bounds the arithmetic. */
#define WS_LAYERS_MAX_RUN (1u << 24)

typedef struct ws_layer_range {
	uint32_t first, last;      /* inclusive, first <= last */
} ws_layer_range;

/* A parsed --layers SPEC: ranges in running order. */
typedef struct ws_layer_sel {
	ws_layer_range *ranges;    /* malloc'd */
	size_t n;
	uint64_t blocks;           /* blocks run (sum of range lengths) */
} ws_layer_sel;

/*
 * Parse "0-23,27-31" / "5" / "0-15,8-15,16-31": comma-separated block
 * indices or inclusive ranges, in running order.  No spaces, no empty
 * items, first <= last.  Returns 0, or -1 with why[] set (a usage error);
 * on -1 nothing is left to free.
 */
int ws_layer_sel_parse(const char *spec, ws_layer_sel *out, char *why,
		       size_t whylen);
void ws_layer_sel_free(ws_layer_sel *s);
/* "0-23,27-31" into buf (truncated with "..." when too long). */
char *ws_layer_sel_format(const ws_layer_sel *s, char *buf, size_t len);

/* What one block holds, read from its tensors' shapes. */
typedef struct ws_flops_block {
	bool present;              /* the checkpoint has tensors for it */
	bool sliding;              /* attention over a sliding window */
	uint64_t qk_dim;           /* heads × qk_head_dim */
	uint64_t v_dim;            /* heads × v_head_dim */
	uint64_t kv_elems;         /* cached per token: K + V, or the MLA latent */
	uint64_t state_elems;      /* a recurrent mixer's state per sequence:
				    * its conv window and its SSM or linear-
				    * attention state, constant in N */
	/* cross-attention over an encoder's output (an encoder-decoder's
	 * decoder): scores and weighted values per (token, input token), K
	 * and V cached per input token */
	uint64_t x_qk_dim, x_v_dim, x_kv_elems;
} ws_flops_block;

/* The per-model part: blocks and what the whole model shares. */
typedef struct ws_flops_model {
	uint64_t num_layers;
	ws_flops_block *blocks;    /* num_layers entries (malloc'd) */
	uint64_t sliding_window;   /* 0: no sliding-window blocks */
	uint64_t num_experts, experts_per_tok; /* 0, 0 when dense */
	bool topk_unknown;         /* MoE tensors but no top-k: all counted */
	bool head_from_embedding;  /* no head stored: the tied embedding */
	bool no_head;              /* a base-model class: it ends at the hidden states */
	bool bidirectional;        /* an encoder: every pair attended, no KV cache */
	ws_dtype default_kv_dtype; /* the model's float dtype */
	/* the component read (its tensors only), or -1: every tensor; its
	 * architecture (the model's, or the component's own) */
	int64_t comp;
	const struct ws_arch *arch;
	bool cross;                /* blocks attend to an encoder's output */
} ws_flops_model;

/*
 * Read the blocks of an analyzed model (ws_model_analyze: roles, and
 * m->arch when there is one).  Block count: the architecture's, else the
 * highest block index + 1.  -1 with err set when there are no tensors, a
 * count no checkpoint of this size can hold, or out of memory.
 */
int ws_flops_model_init(const ws_model *m, ws_flops_model *out, ws_error *err);
/* The same for one component's tensors (comp < 0: every tensor), with its
 * own architecture.  ws_flops_model_init reads the main component alone
 * when the others have architectures of their own (a wrapper's parts),
 * else every tensor. */
int ws_flops_model_init_component(const ws_model *m, int64_t comp, ws_flops_model *out, ws_error *err);
void ws_flops_model_free(ws_flops_model *f);

/* The costs of one selection. */
typedef struct ws_flops_result {
	uint64_t blocks;           /* blocks run */
	uint64_t a;                /* MACs per token through weights */
	uint64_t a_by_role[WS_ROLE_COUNT];
	uint64_t b;                /* global-attention blocks */
	uint64_t b_sliding;        /* sliding-window blocks */
	uint64_t params;           /* parameters stored for the selection */
	uint64_t weight_bytes;     /* bytes stored for the selection */
	uint64_t bytes_by_dtype[WS_DT_COUNT];
	ws_dtype kv_dtype;
	uint64_t kv_bytes_per_token;          /* every block run */
	uint64_t kv_bytes_per_token_sliding;  /* of which sliding blocks */
	uint64_t kv_blocks;        /* blocks run that keep a KV cache */
	/* cross-attention: c of c·N·N_input, the K / V projections of the
	 * input (MACs per input token, once per input), their cache per
	 * input token */
	uint64_t c, a_input, cross_kv_bytes_per_input_token;
	uint64_t state_bytes;      /* recurrent state per sequence (F32, as
				    * llama.cpp keeps it), constant in N */
} ws_flops_result;

/*
 * Sum a selection (NULL: every block once, in order).  kv_dtype
 * WS_DT_INVALID means the model's float dtype.  A block index >= the
 * block count is a usage error (err->code WS_EXIT_USAGE); an overflow is
 * an input error.  Returns 0 or -1.
 */
int ws_flops_select(const ws_model *m, const ws_flops_model *f,
		    const ws_layer_sel *sel, ws_dtype kv_dtype,
		    ws_flops_result *out, ws_error *err);

/* The formula evaluated at N tokens. */
typedef struct ws_flops_eval {
	uint64_t seq;
	uint64_t macs, flops;
	uint64_t kv_cache_bytes;   /* sliding blocks keep min(N, window) */
	uint64_t memory_bytes;     /* weights + KV cache + recurrent state */
} ws_flops_eval;

/* false when a value does not fit in 64 bits. */
bool ws_flops_eval_at(const ws_flops_model *f, const ws_flops_result *r,
		      uint64_t seq, ws_flops_eval *out);

/*
 * The SPEC selection object {layers, blocks, macs {a, b, ...}, flops,
 * at_seq?, params, kv_cache_bytes_per_token, ...}; layers is the spec
 * text.  ev may be NULL.  NULL on OOM.
 */
struct cJSON *ws_flops_result_to_json(const ws_flops_model *f,
				      const ws_flops_result *r,
				      const char *layers,
				      const ws_flops_eval *ev);

/* A component other than the main one (a vision tower, a projector),
 * costed per image at its config's image size: a·T + b·T² for the T
 * tokens an image makes (a tower's patches and class token, times its
 * tiles; a projector's, merged m x m or pixel-shuffled).  Every stored block is counted, also those
 * a config reads past (vision_feature_layer). */
typedef struct ws_flops_part {
	const char *name, *kind;   /* borrowed from the model */
	uint64_t image_size;       /* a tower's image side (0: none in its config) */
	uint64_t tokens;           /* per image (0: unknown without an image size) */
	uint64_t a, b;             /* MACs per token; per pair of tokens */
	uint64_t macs;             /* per image: a·T + b·T² (+ b_window ×
				    * window_pairs), and a tower's own
				    * adapter over its pixel-shuffled tokens */
	/* a tower of any image size (Qwen-VL's: rotary or interpolated
	 * positions, no image size in its config): the image it was
	 * costed at, the caller's or WS_FLOPS_TOWER_IMAGE, its sides
	 * rounded to whole merged patches as the image processor does */
	uint64_t height, width;
	bool size_default;         /* neither the config nor the caller gave one */
	/* window attention (Qwen2.5-VL): b is then the blocks over the
	 * whole image only; the windowed blocks' b_window runs over
	 * window_pairs pairs, Σ over windows of their tokens² */
	uint64_t b_window, window_pairs, window;  /* window: its side in pixels */
	bool audio;                /* per audio input (an audio tower, its
				    * projector), not per image */
} ws_flops_part;

/* Is co costed per image (or per audio input) by ws_flops_parts (a
 * tower or a projector of a wrapper, with its own architecture)? */
bool ws_flops_per_image(const ws_component *co);

/* The image side a tower of any size is costed at when neither its
 * config nor the caller names one: a multiple of the 28 and 32 pixels
 * Qwen-VL's towers merge (14 or 16 a patch, 2 x 2 patches a token). */
#define WS_FLOPS_TOWER_IMAGE 448

/* The model's other components (*out malloc'd, *n entries; none for a
 * model of one), an image of height x width pixels for a tower of any
 * size (0: WS_FLOPS_TOWER_IMAGE; a tower of a fixed size is costed at
 * its own).  -1 on OOM or overflow. */
int ws_flops_parts(const ws_model *m, uint64_t height, uint64_t width, ws_flops_part **out, size_t *n,
		   ws_error *err);

/* A diffusion pipeline's components (or a network alone), each costed
 * for what it runs once for: a UNet / DiT per denoising step, a VAE per
 * decode (its encode apart), a text encoder per prompt. */
typedef struct ws_flops_stage {
	const char *name, *kind;   /* borrowed from the model */
	const char *per;           /* "denoising_step", "decode", "prompt" */
	bool known;                /* false: no architecture to cost it by */
	uint64_t height, width;    /* pixels (0: a text encoder) */
	uint64_t grid_h, grid_w;   /* the network's input grid: a UNet's
				    * latent, a DiT's tokens, a VAE's pixels */
	uint64_t image_tokens;     /* grid_h x grid_w */
	uint64_t text_tokens;      /* the prompt's tokens it reads (0: none) */
	uint64_t macs, attention;  /* attention: scores and weighted values,
				    * part of macs */
	uint64_t encode_macs, encode_attention; /* a VAE's encode */
	uint64_t params;
	uint64_t by_role[WS_ROLE_COUNT];
} ws_flops_stage;

typedef struct ws_flops_diffusion {
	ws_flops_stage *stages;    /* malloc'd; the denoiser first */
	size_t n;
	uint64_t height, width;    /* pixels */
	bool size_given;           /* else the native size (sample_size) */
	const char *size_from;     /* "--size", "sample_size" (the config's),
				    * "pipeline default" (the class's) */
	uint64_t vae_scale;        /* latent = pixels / vae_scale */
	bool vae_scale_assumed;    /* no VAE read: 8 (every SD / SDXL / SD3 /
				    * FLUX VAE's) */
} ws_flops_diffusion;

/* Is m a diffusion network or pipeline (a component read as a net)? */
bool ws_flops_is_diffusion(const ws_model *m);
/* Cost m's components at h x w pixels (h 0: the native size, the
 * denoiser's sample_size x the VAE's scale factor, a VAE alone its own
 * sample_size), text tokens per prompt txt (0: each pipeline's).  A size
 * no network takes (not a multiple of its downsampling) is a usage error
 * saying which multiple.  -1 with err set. */
int ws_flops_diffusion_run(const ws_model *m, uint64_t h, uint64_t w, uint64_t txt, ws_flops_diffusion *out,
			   ws_error *err);
void ws_flops_diffusion_free(ws_flops_diffusion *d);
/* A stage's JSON object: {name, kind, per, layers, height?, width?, grid?,
 * image_tokens?, text_tokens?, macs {total, attention, by_role}, flops
 * {total, attention}, encode?, params}; NULL on OOM. */
struct cJSON *ws_flops_stage_to_json(const ws_flops_stage *s);

/* A dtype by name, case-insensitive ("bf16", "Q8_0"); INVALID when
 * unknown. */
ws_dtype ws_flops_parse_dtype(const char *name);

#ifdef __cplusplus
}
#endif
#endif
