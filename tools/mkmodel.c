/*
 * mkmodel.c - full-size sparse checkpoints with the real tensor names and
 * shapes of a Hugging Face config.json, for `check` tests at real scale.
 *
 *   mkmodel DIR CONFIG.json [--format safetensors|gguf] [--shards N]
 *           [--dtype BF16|F16|F32] [--tie-head-copy] [--fp8] [--plant DEFECT]
 *           [--mla-split] [--gguf-mtp] [--meta KEY=N]
 *
 * --fp8: block linears in F8_E4M3 with an F32 weight_scale_inv each, as
 * DeepSeek-V3 ships (safetensors only).
 * --gguf-mtp: GGUF with the MTP blocks, as llama.cpp's converter writes
 * DeepSeek-V3.2 and GLM-4.5 (block_count counts them, nextn_predict_layers,
 * blk.N.nextn.*).
 * --mla-split: GGUF MLA blocks as the converter writes them since mid-2025:
 * attn_k_b [H, kv_lora, nope] and attn_v_b [H, v, kv_lora] instead of
 * attn_kv_b, with key_length_mla / value_length_mla.
 * --meta KEY=N: GGUF metadata {arch}.KEY written as N (a wrong
 * expert_count, say) while the tensors keep the config's sizes.
 * Encoders (bert, roberta, xlm-roberta, distilbert, electra, vit; safetensors): the layout of the
 * config's class (body under its base_model_prefix unless the class is
 * the base model; pooler, masked-LM, next-sentence and classifier heads
 * as the class has them), or of --class NAME (a BertForPreTraining file
 * under a BertForMaskedLM config); --legacy-norms writes LayerNorms as
 * TF-era gamma / beta; --position-ids stores the position_ids buffer.
 * Encoder-decoders (t5, mt5, umt5, bart, mbart, marian, whisper; t5 in GGUF too):
 * both stacks from the library's reading of the config, the shared
 * table in the decoder's module; --ignored also stores what the class
 * ignores on load (T5's relative bias in the first cross-attention);
 * missing-tower-layer drops the encoder's block 1; --tied-copies stores
 * each stack's embed_tokens beside the shared table, as older writers did.
 * --st writes a sentence-transformers folder around the model
 * (modules.json, N_Pooling, N_Normalize, config_sentence_transformers.json);
 * each --st-dense OUT[:nobias] adds a Dense module (N_Dense/ with its
 * config.json and an F32 linear.weight [OUT, in] and linear.bias).
 *
 * Headers are real; tensor data are holes (ftruncate), so a 405B model
 * costs a few megabytes of disk.  safetensors output uses Hugging Face
 * names (model.safetensors, or model-0000i-of-0000N.safetensors plus
 * model.safetensors.index.json) and copies CONFIG to DIR/config.json.
 * GGUF output (DIR/model.gguf) uses the layout llama.cpp's converter
 * writes: token_embd / blk.N.* / output_norm / output, ne innermost first,
 * experts stacked as 3-D *_exps tensors (Llama 4's and gpt-oss's fused
 * gate_up split into gate and up stacks), shared experts as *_shexp,
 * {arch}.* metadata, 32-byte aligned data.  Families (table `families`):
 * llama, mistral, qwen2, qwen3, gemma, gpt2 (safetensors only), phi3,
 * mixtral, qwen2_moe and qwen3_moe (shared expert and its gate,
 * decoder_sparse_step, mlp_only_layers), phimoe (LayerNorm, biases),
 * llama4_text (interleave_moe_layer_step, fused 3-D experts
 * [E, in, out], shared expert, intermediate_size_mlp for dense blocks),
 * gpt_oss (sinks, router bias, fused experts with biases, BF16),
 * deepseek_v2, deepseek_v3 and deepseek_v32 (first_k_dense_replace, shared
 * experts, e_score_correction_bias / exp_probs_b, V3.2's lightning indexer;
 * the MTP layer model.layers.<num_hidden_layers>.* in safetensors only).
 * Other model types of the catalogue with RMS norms and a gated or plain
 * MLP are built from the library's reading of the config (switches, q/k
 * norms, biases, MoE, xIELU's scalars and buffers).  Hybrid and
 * state-space stacks (table `stacks`: Mamba, FalconMamba, Mamba-2,
 * Nemotron-H, Jamba, Falcon-H1, Granite-4.0-H, Qwen3-Next, LFM2) get each
 * layer's block kind from the library too; in GGUF as llama.cpp converts
 * them: ssm_* / shortconv.* tensors (convs squeezed, Mamba-2's A and D
 * [heads, 1], its norm per group), {arch}.ssm.* keys, per-layer
 * head_count_kv (and a pattern's feed_forward_length) arrays.
 *
 * Defects (--plant):
 *   mha-k                a k_proj of MHA size at layer 3 (GQA configs)
 *   missing-block        every tensor of layer 5 dropped
 *   missing-expert       expert 2 dropped from the first MoE block after
 *                        block 0 (stacked layouts: its stacks hold one
 *                        expert less)
 *   untied-trained-head  an lm_head stored under a tied config, with
 *                        random bytes different from the embedding's
 *                        (real data: small configs only)
 *   tied-identical-head  an lm_head with the embedding's random bytes
 *   missing-ssm          the mixer input projection of the first
 *                        recurrent layer after block 0 dropped
 * --tie-head-copy stores lm_head under a tied config as a hole, i.e. the
 * same (zero) bytes as the embedding's hole, at any size.
 *
 * --layout new|old: a multimodal wrapper's components as transformers
 * >= 4.52 saves them (model.language_model., model.visual., lm_head. at
 * the top) or as older versions did (visual. beside the text model's
 * model., or language_model.model. with its head language_model.lm_head;
 * a whole parameter such as image_newline nested alike); by default as
 * each part's first prefix in the catalogue says.
 *
 * Everything is a pure function of the arguments.
 */
#include <cjson/cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen.h"
#include "catalogue/catalogue.h"
#include "ws/error.h"
#include "ws/formula.h"
#include "ws/json.h"
#include "ws/net.h"

/* ==== a growable byte buffer ==== */

typedef struct buf {
	uint8_t *p;
	size_t n, cap;
} buf;

static void
put(buf *b, const void *d, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		b->cap = (b->n + n + 1) * 2;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
	b->p[b->n] = 0;
}

static void bprintf(buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
bprintf(buf *b, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp)
		die("bprintf: line too long");
	put(b, tmp, (size_t)n);
}

static void
put_u32(buf *b, uint32_t v)
{
	uint8_t x[4];
	for (int i = 0; i < 4; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, 4);
}

static void
put_u64(buf *b, uint64_t v)
{
	uint8_t x[8];
	for (int i = 0; i < 8; i++)
		x[i] = (uint8_t)(v >> (8 * i));
	put(b, x, 8);
}

static void
put_str(buf *b, const char *s)
{
	put_u64(b, strlen(s));
	put(b, s, strlen(s));
}

/* ==== the tensor list ==== */

struct dtype;

typedef struct tensor {
	char name[96];
	int nd;
	uint64_t shape[5];  /* PyTorch order: outermost first */
	uint32_t fill;      /* 0: a hole; else the seed of random content */
	const struct dtype *dt; /* NULL: the checkpoint's dtype */
} tensor;

#define MAX_MLP_ONLY 256

typedef struct cfg {
	char type[64];
	const struct family *fam;
	uint64_t vocab, hidden, inter, layers, heads, kv_heads, head_dim, positions;
	bool tied, attn_bias, head_bias;
	uint64_t experts, topk, moe_inter, shared_n, shared_inter, first_dense;
	uint64_t moe_step, step_offset, dense_inter;
	uint64_t mlp_only[MAX_MLP_ONLY];
	size_t n_mlp_only;
	uint64_t q_lora, kv_lora, nope, rope, vdim, nextn;
	uint64_t index_heads, index_dim;  /* DeepSeek-V3.2's indexer */
	bool no_head;          /* a base-model class: no head, unprefixed names */
	const char *base;      /* the text model's name prefix: "model.", "" ... */
	const char *head;      /* its head's name: "lm_head.weight" unless the
				* wrapper saves it under its module */
	/* an image encoder's input (ViT) */
	uint64_t v_patch, v_image, v_channels;
	/* the other components of a wrapper (catalogue parts) and their
	 * architectures as the library reads them; towers_only: the main
	 * one is a tower too (a dual encoder, a tower alone) */
	const struct ws_cat_part *parts_of;
	struct ws_arch part_arch[WS_CAT_MAX_PARTS];
	bool towers_only;
	struct ws_arch main_arch;
	ws_switches aflags;    /* the library's switches for this config */
	uint64_t sliding;      /* the window, when some layer slides (GGUF's attention.sliding_window) */
	bool plain_mlp;        /* up and down only (catalogue family) */
	bool fused_mlp;        /* gate and up in one matrix (catalogue family) */
	const char *gguf;      /* general.architecture (catalogue family) */
	/* an encoder (a catalogue entry with classes): the class whose
	 * layout is written and the parts it adds, the body's name prefix */
	const struct encoder *enc;
	char enc_suffix[48];   /* "ForMaskedLM", "Model" ... */
	ws_switches parts;
	uint64_t type_vocab, labels, embed, pooler_out;
	/* a hybrid or state-space stack: each layer's block kind (WS_BK)
	 * as the library reads the config, the mixers' sizes, the names */
	uint8_t *blocks;
	const struct stack_names *sn;
	uint64_t ssm_inner, ssm_state, ssm_conv, ssm_rank, ssm_heads, ssm_groups;
	uint64_t lin_kh, lin_vh, lin_kd, lin_vd;
	uint64_t rel_rows, registers;  /* DeBERTa's relative table, DINOv2's registers */
	uint64_t extra_rows;   /* embedding rows past the vocabulary (Mllama) */
	enum { EB_TABLE, EB_MODERNBERT, EB_NOMIC, EB_GGUF_ONLY } eb; /* the encoder builder */
	bool encdec;           /* an encoder-decoder: parts reading one config */
	const struct ws_cat_part *alone; /* one stack of it saved alone (T5EncoderModel) */
} cfg;

enum plant { P_NONE, P_MHA_K, P_MISSING_BLOCK, P_MISSING_EXPERT, P_UNTIED_TRAINED, P_TIED_IDENTICAL,
	     P_MISSING_TOWER_LAYER, P_PROJECTOR_WIDTH, P_MISSING_SSM };

typedef struct gen {
	tensor *v;
	size_t n, cap;
	bool gguf;
	bool mla_split;        /* GGUF: attn_k_b / attn_v_b instead of attn_kv_b */
	const char *hf_block;  /* "model.layers." or "h." */
	enum plant plant;
	uint64_t drop_layer;   /* missing-expert: the block that loses one */
	bool fp8;              /* DeepSeek-V3's FP8 layout: scales beside */
	bool gguf_mtp;         /* GGUF: the MTP blocks too (--gguf-mtp) */
	bool legacy_norms;     /* LayerNorm gamma / beta (--legacy-norms) */
	bool position_ids;     /* the position_ids buffer (--position-ids) */
	bool ignored;          /* what a part's class ignores on load (--ignored) */
	bool tied_copies;      /* each stack's embed_tokens beside the shared table (--tied-copies) */
	const cfg *c;
} gen;

/* bytes per element, or per block of `block` elements (GGUF quant
 * types, after the float ones); ftype: llama.cpp's general.file_type */
static const struct dtype {
	const char *name;
	unsigned bytes;
	uint32_t ggml;
	unsigned block, ftype;
} dtypes[] = {{"BF16", 2, 30, 0, 32}, {"F16", 2, 1, 0, 1}, {"F32", 4, 0, 0, 0}, {"F8_E4M3", 1, 0, 0, 0},
	      {"I64", 8, 27, 0, 0},
#define DT_QUANT 5
	      {"Q8_0", 34, 8, 32, 7}, {"Q4_0", 18, 2, 32, 2}, {"Q5_0", 22, 6, 32, 8},
	      {"Q4_K", 144, 12, 256, 14}, {"Q5_K", 176, 13, 256, 16}, {"Q6_K", 210, 14, 256, 18}};
#define DT_COUNT (sizeof dtypes / sizeof dtypes[0])

static bool
ends_with(const char *s, const char *tail)
{
	size_t a = strlen(s), b = strlen(tail);
	return a >= b && !strcmp(s + a - b, tail);
}

/* DeepSeek-V3 ships its block linears in F8_E4M3 with an F32
 * weight_scale_inv of 128x128 blocks; embeddings, heads, norms, the
 * router, eh_proj and V3.2's indexer weights_proj stay BF16. */
static bool
is_fp8_linear(const char *name, int nd)
{
	return nd == 2 && !strncmp(name, "model.layers.", 13) && ends_with(name, ".weight") &&
	       !ends_with(name, "mlp.gate.weight") && !ends_with(name, "embed_tokens.weight") &&
	       !ends_with(name, "shared_head.head.weight") && !ends_with(name, "eh_proj.weight") &&
	       !ends_with(name, "indexer.weights_proj.weight");
}

static void push(gen *g, int nd, const uint64_t *shape, uint32_t fill, const char *name);

static void
push_scale(gen *g, const tensor *w)
{
	char name[96];
	snprintf(name, sizeof name, "%.*s.weight_scale_inv", (int)(strlen(w->name) - 7), w->name);
	uint64_t s[2] = {(w->shape[0] + 127) / 128, (w->shape[1] + 127) / 128};
	push(g, 2, s, 0, name);
	g->v[g->n - 1].dt = &dtypes[2];
}

static void
push(gen *g, int nd, const uint64_t *shape, uint32_t fill, const char *name)
{
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 1024;
		g->v = xrealloc(g->v, g->cap * sizeof *g->v);
	}
	tensor *t = &g->v[g->n++];
	memset(t, 0, sizeof *t);
	if (strlen(name) >= sizeof t->name)
		die("tensor name too long: %s", name);
	strcpy(t->name, name);
	t->nd = nd;
	for (int i = 0; i < nd; i++)
		t->shape[i] = shape[i];
	t->fill = fill;
	t->dt = NULL;
	if (g->fp8 && !g->gguf && is_fp8_linear(name, nd)) {
		t->dt = &dtypes[3];
		tensor w = *t;
		push_scale(g, &w);
	}
}

/* A top-level tensor: HF name or GGUF name. */
static void
top(gen *g, const char *hf, const char *gg, uint64_t a, uint64_t b)
{
	uint64_t s[2] = {a, b};
	push(g, b ? 2 : 1, s, 0, g->gguf ? gg : hf);
}

/* A block tensor of layer L, shape s[0..nd-1] (PyTorch order). */
static void
blk_nd(gen *g, uint64_t L, const char *hf, const char *gg, int nd, const uint64_t *s)
{
	if (g->plant == P_MISSING_BLOCK && L == 5)
		return;
	char name[96];
	if (g->gguf)
		snprintf(name, sizeof name, "blk.%" PRIu64 ".%s", L, gg);
	else
		snprintf(name, sizeof name, "%s%" PRIu64 ".%s", g->hf_block, L, hf);
	push(g, nd, s, 0, name);
}

/* A block tensor of layer L; shape [a] or [a, b] (out, in). */
static void
blk(gen *g, uint64_t L, const char *hf, const char *gg, uint64_t a, uint64_t b)
{
	uint64_t s[2] = {a, b};
	blk_nd(g, L, hf, gg, b ? 2 : 1, s);
}

/* Routed experts of layer L: one tensor each in HF (named hf_pre E
 * hf_post), one [E, a, b] stack in GGUF. */
static void
experts(gen *g, uint64_t L, const char *hf_pre, const char *hf_post, const char *gg,
	uint64_t a, uint64_t b)
{
	if (g->plant == P_MISSING_BLOCK && L == 5)
		return;
	uint64_t n = g->c->experts;
	bool drop = g->plant == P_MISSING_EXPERT && L == g->drop_layer;
	char name[96];
	if (g->gguf) {
		uint64_t s[3] = {drop ? n - 1 : n, a, b};
		snprintf(name, sizeof name, "blk.%" PRIu64 ".%s", L, gg);
		push(g, 3, s, 0, name);
		return;
	}
	for (uint64_t e = 0; e < n; e++) {
		if (drop && e == 2)
			continue;
		uint64_t s[2] = {a, b};
		snprintf(name, sizeof name, "%s%" PRIu64 ".%s%" PRIu64 ".%s", g->hf_block, L,
			 hf_pre, e, hf_post);
		push(g, 2, s, 0, name);
	}
}

/* Experts stored as one [E, a, b] (or [E, a] when b is 0) tensor in both
 * formats: Llama 4's and gpt-oss's fused HF layout, GGUF's stacks.  A
 * missing expert is a stack one short. */
static void
stacked(gen *g, uint64_t L, const char *hf, const char *gg, uint64_t a, uint64_t b)
{
	uint64_t n = g->c->experts;
	bool drop = g->plant == P_MISSING_EXPERT && L == g->drop_layer;
	uint64_t s[3] = {drop ? n - 1 : n, a, b};
	blk_nd(g, L, hf, gg, b ? 3 : 2, s);
}

/* ==== encoders ==== */

/* How an encoder type names its tensors: the body's prefix under a head
 * class, its layers and their linears and norms, its masked-LM head (the
 * transform dense and norm, the output bias, the untied decoder) and the
 * dense layer and output of a classifier with one. */
typedef struct encoder {
	const char *type;
	const char *body;      /* base_model_prefix + ".": "bert." */
	const char *layers;    /* "encoder.layer." */
	const char *lin[6];    /* q, k, v, o, MLP up, MLP down */
	const char *norm[2];   /* after attention, after the MLP */
	bool types;            /* a token-type table */
	const char *mlm[4];    /* transform dense, its norm, bias, decoder */
	const char *cls[2];    /* a classifier's dense layer and output */
	const char *rtd[2];    /* ELECTRA's discriminator head (ForPreTraining) */
	bool patches;          /* an image encoder: patch, class token and
				* position parameters, a final LayerNorm (ViT) */
	bool pooler_top;       /* the pooler beside the body, not in it (DeBERTa's
				* ContextPooler) */
} encoder;

#define BERT_LAYER \
	"encoder.layer.", {"attention.self.query", "attention.self.key", "attention.self.value", \
			   "attention.output.dense", "intermediate.dense", "output.dense"}, \
	{"attention.output.LayerNorm", "output.LayerNorm"}, true
#define BERT_MLM {"cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", \
		  "cls.predictions.bias", "cls.predictions.decoder.weight"}
#define ROBERTA_MLM {"lm_head.dense", "lm_head.layer_norm", "lm_head.bias", "lm_head.decoder.weight"}
#define ROBERTA_CLS {"classifier.dense", "classifier.out_proj"}

static const encoder encoders[] = {
	{"bert", "bert.", BERT_LAYER, BERT_MLM, ROBERTA_CLS, {NULL, NULL}, false, false},
	{"roberta", "roberta.", BERT_LAYER, ROBERTA_MLM, ROBERTA_CLS, {NULL, NULL}, false, false},
	{"xlm-roberta", "roberta.", BERT_LAYER, ROBERTA_MLM, ROBERTA_CLS, {NULL, NULL}, false, false},
	{"distilbert", "distilbert.", "transformer.layer.",
	 {"attention.q_lin", "attention.k_lin", "attention.v_lin", "attention.out_lin", "ffn.lin1", "ffn.lin2"},
	 {"sa_layer_norm", "output_layer_norm"}, false,
	 {"vocab_transform", "vocab_layer_norm", "vocab_projector.bias", "vocab_projector.weight"},
	 {"pre_classifier", "classifier"}, {NULL, NULL}, false, false},
	{"electra", "electra.", BERT_LAYER,
	 {"generator_predictions.dense", "generator_predictions.LayerNorm", "generator_lm_head.bias",
	  "generator_lm_head.weight"},
	 ROBERTA_CLS, {"discriminator_predictions.dense", "discriminator_predictions.dense_prediction"}, false, false},
	{"vit", "vit.", "encoder.layer.",
	 {"attention.attention.query", "attention.attention.key", "attention.attention.value",
	  "attention.output.dense", "intermediate.dense", "output.dense"},
	 {"layernorm_before", "layernorm_after"}, false, {NULL, NULL, NULL, NULL}, {NULL, "classifier"},
	 {NULL, NULL}, true, false},
	{"deberta-v2", "deberta.", "encoder.layer.",
	 {"attention.self.query_proj", "attention.self.key_proj", "attention.self.value_proj",
	  "attention.output.dense", "intermediate.dense", "output.dense"},
	 {"attention.output.LayerNorm", "output.LayerNorm"}, true, BERT_MLM, {NULL, "classifier"},
	 {NULL, NULL}, false, true},
	{"dinov2", "dinov2.", "encoder.layer.",
	 {"attention.attention.query", "attention.attention.key", "attention.attention.value",
	  "attention.output.dense", "mlp.fc1", "mlp.fc2"},
	 {"norm1", "norm2"}, false, {NULL, NULL, NULL, NULL}, {NULL, "classifier"}, {NULL, NULL}, true, false},
	{"dinov2_with_registers", "dinov2_with_registers.", "encoder.layer.",
	 {"attention.attention.query", "attention.attention.key", "attention.attention.value",
	  "attention.output.dense", "mlp.fc1", "mlp.fc2"},
	 {"norm1", "norm2"}, false, {NULL, NULL, NULL, NULL}, {NULL, "classifier"}, {NULL, NULL}, true, false},
};

/* A LayerNorm of width d: weight and bias, or TF-era gamma and beta. */
static void
enc_norm(gen *g, const char *pre, uint64_t d)
{
	char n[128];
	snprintf(n, sizeof n, "%s.%s", pre, g->legacy_norms ? "gamma" : "weight");
	top(g, n, n, d, 0);
	snprintf(n, sizeof n, "%s.%s", pre, g->legacy_norms ? "beta" : "bias");
	top(g, n, n, d, 0);
}

/* A linear layer: weight [out, in] and bias [out]. */
static void
enc_linear(gen *g, const char *pre, uint64_t out, uint64_t in)
{
	char n[128];
	snprintf(n, sizeof n, "%s.weight", pre);
	top(g, n, n, out, in);
	snprintf(n, sizeof n, "%s.bias", pre);
	top(g, n, n, out, 0);
}

static bool
has_part(const cfg *c, int part)
{
	return ws_sw_has(&c->parts, part);
}

/* ViT's embeddings: the patch convolution [d, channels, p, p] and its
 * bias, the class token [1, 1, d], positions [1, patches + 1, d]. */
static void
vit_embeddings(gen *g, const char *body)
{
	const cfg *c = g->c;
	uint64_t d = c->hidden, side = c->v_image / c->v_patch;
	char n[160];
	uint64_t conv[4] = {d, c->v_channels, c->v_patch, c->v_patch}, one[1] = {d};
	uint64_t cls[3] = {1, 1, d}, pos[3] = {1, side * side + 1, d};
	snprintf(n, sizeof n, "%sembeddings.patch_embeddings.projection.weight", body);
	push(g, 4, conv, 0, n);
	snprintf(n, sizeof n, "%sembeddings.patch_embeddings.projection.bias", body);
	push(g, 1, one, 0, n);
	snprintf(n, sizeof n, "%sembeddings.cls_token", body);
	push(g, 3, cls, 0, n);
	snprintf(n, sizeof n, "%sembeddings.position_embeddings", body);
	push(g, 3, pos, 0, n);
	if (ws_sw_has(&c->aflags, WS_ARCH_MASK_TOKEN)) {   /* DINOv2: [1, d] */
		snprintf(n, sizeof n, "%sembeddings.mask_token", body);
		top(g, n, NULL, 1, d);
	}
	if (ws_sw_has(&c->aflags, WS_ARCH_REGISTERS)) {    /* [1, registers, d] */
		uint64_t reg[3] = {1, c->registers, d};
		snprintf(n, sizeof n, "%sembeddings.register_tokens", body);
		push(g, 3, reg, 0, n);
	}
}

/* A BERT-style encoder as its class saves it: the body (under its
 * base_model_prefix unless the class is the base model), then the
 * class's parts. */
static void
build_encoder(gen *g)
{
	const cfg *c = g->c;
	const encoder *e = c->enc;
	uint64_t d = c->hidden, f = c->inter, w = c->embed;
	const char *body = strcmp(c->enc_suffix, "Model") ? e->body : "";
	char n[160];
#define ENC_NAME(...) snprintf(n, sizeof n, __VA_ARGS__)
	if (e->patches) {
		vit_embeddings(g, body);
		goto layers;
	}
	ENC_NAME("%sembeddings.word_embeddings.weight", body);
	top(g, n, NULL, c->vocab, w);
	if (ws_sw_has(&c->aflags, WS_ARCH_LEARNED_POS)) {
		ENC_NAME("%sembeddings.position_embeddings.weight", body);
		top(g, n, NULL, c->positions, w);
	}
	if (e->types && ws_sw_has(&c->aflags, WS_ARCH_TYPE_EMBED)) {
		ENC_NAME("%sembeddings.token_type_embeddings.weight", body);
		top(g, n, NULL, c->type_vocab, w);
	}
	ENC_NAME("%sembeddings.LayerNorm", body);
	enc_norm(g, n, w);
	if (w != d) {
		ENC_NAME("%sembeddings_project", body);
		enc_linear(g, n, d, w);
	}
	if (g->position_ids) {
		uint64_t s[2] = {1, c->positions};
		ENC_NAME("%sembeddings.position_ids", body);
		push(g, 2, s, 0, n);
		g->v[g->n - 1].dt = &dtypes[4];
	}
layers:
	for (uint64_t L = 0; L < c->layers; L++) {
		if (g->plant == P_MISSING_BLOCK && L == 5)
			continue;
		for (int i = 0; i < 6; i++) {
			ENC_NAME("%s%s%" PRIu64 ".%s", body, e->layers, L, e->lin[i]);
			enc_linear(g, n, i == 4 ? f : d, i == 5 ? f : d);
			if (i == 3 || i == 5) {
				ENC_NAME("%s%s%" PRIu64 ".%s", body, e->layers, L, e->norm[i == 5]);
				enc_norm(g, n, d);
			}
		}
		uint64_t hq = c->heads * c->head_dim;
		/* DeBERTa's projections of the relative positions, unless the
		 * layer's own q and k serve (share_att_key) */
		bool rel = ws_sw_has(&c->aflags, WS_ARCH_REL_EMBED) && !ws_sw_has(&c->aflags, WS_ARCH_SHARE_ATT_KEY);
		if (rel && ws_sw_has(&c->aflags, WS_ARCH_POS_C2P)) {
			ENC_NAME("%s%s%" PRIu64 ".attention.self.pos_key_proj", body, e->layers, L);
			enc_linear(g, n, hq, d);
		}
		if (rel && ws_sw_has(&c->aflags, WS_ARCH_POS_P2C)) {
			ENC_NAME("%s%s%" PRIu64 ".attention.self.pos_query_proj", body, e->layers, L);
			enc_linear(g, n, hq, d);
		}
		/* BERT relative_key: [2 · positions - 1, head_dim] */
		if (ws_sw_has(&c->aflags, WS_ARCH_REL_DIST)) {
			ENC_NAME("%s%s%" PRIu64 ".attention.self.distance_embedding.weight", body, e->layers, L);
			top(g, n, NULL, 2 * c->positions - 1, c->head_dim);
		}
		if (ws_sw_has(&c->aflags, WS_ARCH_LAYER_SCALE)) {
			ENC_NAME("%s%s%" PRIu64 ".layer_scale1.lambda1", body, e->layers, L);
			top(g, n, NULL, d, 0);
			ENC_NAME("%s%s%" PRIu64 ".layer_scale2.lambda1", body, e->layers, L);
			top(g, n, NULL, d, 0);
		}
	}
	if (ws_sw_has(&c->aflags, WS_ARCH_REL_EMBED)) {
		ENC_NAME("%sencoder.rel_embeddings.weight", body);
		top(g, n, NULL, c->rel_rows, d);
	}
	if (ws_sw_has(&c->aflags, WS_ARCH_REL_EMBED_NORM)) {
		ENC_NAME("%sencoder.LayerNorm", body);
		enc_norm(g, n, d);
	}
	if (e->patches) {
		ENC_NAME("%slayernorm", body);
		enc_norm(g, n, d);
	}
	if (has_part(c, WS_ARCH_POOLER)) {
		ENC_NAME("%spooler.dense", e->pooler_top ? "" : body);
		enc_linear(g, n, c->pooler_out, d);
	}
	if (has_part(c, WS_ARCH_MLM)) {
		enc_linear(g, e->mlm[0], w, d);
		enc_norm(g, e->mlm[1], w);
		top(g, e->mlm[2], NULL, c->vocab, 0);
		if (!c->tied)
			top(g, e->mlm[3], NULL, c->vocab, w);
	}
	if (has_part(c, WS_ARCH_NSP))
		enc_linear(g, "cls.seq_relationship", 2, d);
	/* the output of a classifier with a dense layer before it has the
	 * type's second name, else "classifier" (qa_outputs for QA) */
	bool dense = has_part(c, WS_ARCH_CLS_DENSE);
	const char *const *two = e->rtd[0] && !strcmp(c->enc_suffix, "ForPreTraining") ? e->rtd : e->cls;
	if (dense)
		enc_linear(g, two[0], d, d);
	const char *out = dense ? two[1]
			: strcmp(c->enc_suffix, "ForQuestionAnswering") ? "classifier" : "qa_outputs";
	if (has_part(c, WS_ARCH_CLASSIFIER))
		enc_linear(g, out, c->labels, d);
	if (has_part(c, WS_ARCH_CHOICE))
		enc_linear(g, out, 1, d);
	if (has_part(c, WS_ARCH_CLS_CONCAT))   /* class token and mean patch */
		enc_linear(g, out, c->labels, 2 * d);
#undef ENC_NAME
}

/* A linear layer with a bias only when `bias`. */
static void
enc_linear_b(gen *g, const char *pre, uint64_t out, uint64_t in, bool bias)
{
	char n[128];
	snprintf(n, sizeof n, "%s.weight", pre);
	top(g, n, n, out, in);
	if (bias) {
		snprintf(n, sizeof n, "%s.bias", pre);
		top(g, n, n, out, 0);
	}
}

/* A LayerNorm with a bias only when `bias`. */
static void
enc_norm_b(gen *g, const char *pre, uint64_t d, bool bias)
{
	enc_linear_b(g, pre, d, 0, bias);
}

/* An encoder as llama.cpp's converter writes it (bert, nomic-bert): the
 * body only, a reranker's classifier as cls and cls.output; post-norm
 * blocks (attn_output_norm, layer_output_norm). */
static void
build_encoder_gguf(gen *g)
{
	const cfg *c = g->c;
	uint64_t d = c->hidden, f = c->inter, hq = c->heads * c->head_dim;
	bool qb = ws_sw_has(&c->aflags, WS_ARCH_QKV_BIAS), ob = ws_sw_has(&c->aflags, WS_ARCH_O_BIAS);
	bool mb = ws_sw_has(&c->aflags, WS_ARCH_MLP_BIAS);
	char n[96];
	top(g, NULL, "token_embd.weight", c->vocab, d);
	if (ws_sw_has(&c->aflags, WS_ARCH_LEARNED_POS))
		top(g, NULL, "position_embd.weight", c->positions, d);
	if (ws_sw_has(&c->aflags, WS_ARCH_TYPE_EMBED))
		top(g, NULL, "token_types.weight", c->type_vocab, d);
	enc_norm(g, "token_embd_norm", d);
	for (uint64_t L = 0; L < c->layers; L++) {
		if (g->plant == P_MISSING_BLOCK && L == 5)
			continue;
#define GG_LIN(name, out, in, bias) \
		do { \
			snprintf(n, sizeof n, "blk.%" PRIu64 "." name, L); \
			enc_linear_b(g, n, out, in, bias); \
		} while (0)
		if (ws_sw_has(&c->aflags, WS_ARCH_FUSED_QKV)) {
			GG_LIN("attn_qkv", 3 * hq, d, qb);
		} else {
			GG_LIN("attn_q", hq, d, qb);
			GG_LIN("attn_k", hq, d, qb);
			GG_LIN("attn_v", hq, d, qb);
		}
		GG_LIN("attn_output", d, hq, ob);
		GG_LIN("attn_output_norm", d, 0, true);
		/* a fused gated MLP is one ffn_up of 2 × intermediate rows */
		bool ub = mb && !ws_sw_has(&c->aflags, WS_ARCH_NO_UP_BIAS);
		GG_LIN("ffn_up", c->fused_mlp ? 2 * f : f, d, ub);
		if (!c->plain_mlp && !c->fused_mlp)
			GG_LIN("ffn_gate", f, d, ub);
		GG_LIN("ffn_down", d, f, mb);
		GG_LIN("layer_output_norm", d, 0, true);
#undef GG_LIN
	}
	if (has_part(c, WS_ARCH_CLASSIFIER)) {
		if (has_part(c, WS_ARCH_CLS_DENSE) || has_part(c, WS_ARCH_POOLER))
			enc_linear(g, "cls", d, d);
		enc_linear(g, "cls.output", c->labels, d);
	}
}

/* ModernBERT as its class saves it (the body under model. unless the
 * class is the base model): pre-norm blocks, block 0 without attn_norm,
 * fused Wqkv and Wi (2 × intermediate rows), final_norm; the heads'
 * dense + norm (head.*), the decoder's bias, a classifier. */
static void
build_modernbert(gen *g)
{
	const cfg *c = g->c;
	uint64_t d = c->hidden, f = c->inter, hq = c->heads * c->head_dim;
	const char *body = strcmp(c->enc_suffix, "Model") ? "model." : "";
	bool nb = !ws_sw_has(&c->aflags, WS_ARCH_NO_NORM_BIAS);
	bool ab = ws_sw_has(&c->aflags, WS_ARCH_QKV_BIAS), mb = ws_sw_has(&c->aflags, WS_ARCH_MLP_BIAS);
	char n[160];
	snprintf(n, sizeof n, "%sembeddings.tok_embeddings.weight", body);
	top(g, n, NULL, c->vocab, d);
	snprintf(n, sizeof n, "%sembeddings.norm", body);
	enc_norm_b(g, n, d, nb);
	for (uint64_t L = 0; L < c->layers; L++) {
		if (g->plant == P_MISSING_BLOCK && L == 5)
			continue;
		if (L) {
			snprintf(n, sizeof n, "%slayers.%" PRIu64 ".attn_norm", body, L);
			enc_norm_b(g, n, d, nb);
		}
		snprintf(n, sizeof n, "%slayers.%" PRIu64 ".attn.Wqkv", body, L);
		enc_linear_b(g, n, 3 * hq, d, ab);
		snprintf(n, sizeof n, "%slayers.%" PRIu64 ".attn.Wo", body, L);
		enc_linear_b(g, n, d, hq, ab);
		snprintf(n, sizeof n, "%slayers.%" PRIu64 ".mlp_norm", body, L);
		enc_norm_b(g, n, d, nb);
		snprintf(n, sizeof n, "%slayers.%" PRIu64 ".mlp.Wi", body, L);
		enc_linear_b(g, n, 2 * f, d, mb);
		snprintf(n, sizeof n, "%slayers.%" PRIu64 ".mlp.Wo", body, L);
		enc_linear_b(g, n, d, f, mb);
	}
	snprintf(n, sizeof n, "%sfinal_norm", body);
	enc_norm_b(g, n, d, nb);
	if (has_part(c, WS_ARCH_MLM) || has_part(c, WS_ARCH_HEAD_TRANSFORM)) {
		enc_linear_b(g, "head.dense", d, d, !ws_sw_has(&c->aflags, WS_ARCH_NO_HEAD_DENSE_BIAS));
		enc_norm_b(g, "head.norm", d, nb);
	}
	if (has_part(c, WS_ARCH_MLM)) {
		if (!ws_sw_has(&c->aflags, WS_ARCH_NO_MLM_BIAS))
			top(g, "decoder.bias", NULL, c->vocab, 0);
		if (!c->tied)
			top(g, "decoder.weight", NULL, c->vocab, d);
	}
	if (has_part(c, WS_ARCH_CLASSIFIER))
		enc_linear(g, "classifier", c->labels, d);
}

/* nomic-bert (NomicBertModel, no prefix): token and type embeddings and
 * emb_ln; post-norm blocks of a fused Wqkv, out_proj, SwiGLU fc11 / fc12
 * / fc2, norm1 and norm2; biases as the config says. */
static void
build_nomic(gen *g)
{
	const cfg *c = g->c;
	uint64_t d = c->hidden, f = c->inter, hq = c->heads * c->head_dim;
	bool ab = ws_sw_has(&c->aflags, WS_ARCH_QKV_BIAS), mb = ws_sw_has(&c->aflags, WS_ARCH_MLP_BIAS);
	char n[160];
	top(g, "embeddings.word_embeddings.weight", NULL, c->vocab, d);
	if (ws_sw_has(&c->aflags, WS_ARCH_TYPE_EMBED))
		top(g, "embeddings.token_type_embeddings.weight", NULL, c->type_vocab, d);
	enc_norm(g, "emb_ln", d);
	for (uint64_t L = 0; L < c->layers; L++) {
		if (g->plant == P_MISSING_BLOCK && L == 5)
			continue;
		snprintf(n, sizeof n, "encoder.layers.%" PRIu64 ".attn.Wqkv", L);
		enc_linear_b(g, n, 3 * hq, d, ab);
		snprintf(n, sizeof n, "encoder.layers.%" PRIu64 ".attn.out_proj", L);
		enc_linear_b(g, n, d, hq, ab);
		snprintf(n, sizeof n, "encoder.layers.%" PRIu64 ".mlp.fc11", L);
		enc_linear_b(g, n, f, d, mb);
		snprintf(n, sizeof n, "encoder.layers.%" PRIu64 ".mlp.fc12", L);
		enc_linear_b(g, n, f, d, mb);
		snprintf(n, sizeof n, "encoder.layers.%" PRIu64 ".mlp.fc2", L);
		enc_linear_b(g, n, d, f, mb);
		snprintf(n, sizeof n, "encoder.layers.%" PRIu64 ".norm1", L);
		enc_norm(g, n, d);
		snprintf(n, sizeof n, "encoder.layers.%" PRIu64 ".norm2", L);
		enc_norm(g, n, d);
	}
}

/* ==== families ==== */

static void
gated_mlp(gen *g, uint64_t L, uint64_t inter, const char *pre, const char *suf)
{
	const cfg *c = g->c;
	char hf[3][80], gg[3][40];
	const char *hfn[3] = {"gate_proj", "up_proj", "down_proj"};
	const char *ggn[3] = {"ffn_gate", "ffn_up", "ffn_down"};
	for (int i = 0; i < 3; i++) {
		snprintf(hf[i], sizeof hf[i], "%s%s.weight", pre, hfn[i]);
		snprintf(gg[i], sizeof gg[i], "%s%s.weight", ggn[i], suf);
	}
	blk(g, L, hf[0], gg[0], inter, c->hidden);
	blk(g, L, hf[1], gg[1], inter, c->hidden);
	blk(g, L, hf[2], gg[2], c->hidden, inter);
}

/* What a family's blocks hold beyond the llama skeleton. */
enum {
	F_QKV_BIAS = 1 << 0,   /* q, k, v biases whatever the config says */
	F_BIAS_KEY = 1 << 1,   /* attention_bias: q, k, v and o biases */
	F_BIAS_ON = 1 << 2,    /* ... and it defaults to true */
	F_QK_NORM = 1 << 3,    /* per-head q_norm / k_norm */
	F_NORM_BIAS = 1 << 4,  /* LayerNorm with a bias */
	F_SINKS = 1 << 5,      /* a learned attention sink per head */
	F_TIED = 1 << 6,       /* tie_word_embeddings defaults to true */
	F_FUSED_QKV = 1 << 7,  /* phi3: qkv_proj and gate_up_proj */
	F_INTERNLM2 = 1 << 8,  /* InternLM2's names: tok_embeddings, attention.wqkv / wo,
				* attention_norm, ffn_norm, feed_forward.w1/w3/w2, output */
};

enum block_kind { BK_LLAMA, BK_GPT2, BK_MLA, BK_FALCON };

/* How the MoE blocks store router and experts. */
enum moe_kind {
	MK_MIXTRAL,   /* block_sparse_moe.gate, experts.E.w1/w3/w2 */
	MK_QWEN,      /* mlp.gate, experts.E.*_proj, shared_expert(+ gate) */
	MK_DEEPSEEK,  /* mlp.gate (+ e_score_correction_bias), shared_experts */
	MK_LLAMA4,    /* feed_forward.router, fused 3-D experts, shared_expert */
	MK_GPTOSS,    /* mlp.router with bias, fused 3-D experts with biases */
};

typedef struct family {
	const char *type;
	const char *gguf;     /* general.architecture, NULL: no GGUF layout */
	enum block_kind block;
	enum moe_kind moe;
	unsigned flags;
	const char *ffn;      /* HF prefix of the block's MLP */
} family;

static const family families[] = {
	{"llama", "llama", BK_LLAMA, MK_MIXTRAL, 0, "mlp."},
	{"mistral", "llama", BK_LLAMA, MK_MIXTRAL, 0, "mlp."},
	{"mixtral", "llama", BK_LLAMA, MK_MIXTRAL, 0, "mlp."},
	{"qwen2", "qwen2", BK_LLAMA, MK_QWEN, F_QKV_BIAS, "mlp."},
	{"qwen2_moe", "qwen2moe", BK_LLAMA, MK_QWEN, F_QKV_BIAS, "mlp."},
	{"qwen3", "qwen3", BK_LLAMA, MK_QWEN, F_BIAS_KEY | F_QK_NORM, "mlp."},
	{"qwen3_moe", "qwen3moe", BK_LLAMA, MK_QWEN, F_BIAS_KEY | F_QK_NORM, "mlp."},
	{"gemma", "gemma", BK_LLAMA, MK_MIXTRAL, F_TIED, "mlp."},
	{"phi3", "phi3", BK_LLAMA, MK_MIXTRAL, F_FUSED_QKV, "mlp."},
	{"internlm2", "internlm2", BK_LLAMA, MK_MIXTRAL, F_FUSED_QKV | F_INTERNLM2, "feed_forward."},
	{"phimoe", "phimoe", BK_LLAMA, MK_MIXTRAL, F_BIAS_KEY | F_NORM_BIAS, "mlp."},
	/* llama.cpp splits the fused experts of these two into gate/up stacks */
	{"llama4_text", "llama4", BK_LLAMA, MK_LLAMA4, F_BIAS_KEY, "feed_forward."},
	{"gpt_oss", "gpt-oss", BK_LLAMA, MK_GPTOSS, F_BIAS_KEY | F_BIAS_ON | F_SINKS, "mlp."},
	/* llama.cpp's gpt2 GGUF stores `output` as a copy of token_embd */
	{"gpt2", NULL, BK_GPT2, MK_MIXTRAL, F_TIED, "mlp."},
	{"deepseek_v2", "deepseek2", BK_MLA, MK_DEEPSEEK, 0, "mlp."},
	{"deepseek_v3", "deepseek2", BK_MLA, MK_DEEPSEEK, 0, "mlp."},
	{"deepseek_v32", "deepseek32", BK_MLA, MK_DEEPSEEK, 0, "mlp."},
	/* sizes and switches from the library's reading (n_head_kv, multi_query, ...) */
	{"falcon", NULL, BK_FALCON, MK_MIXTRAL, F_NORM_BIAS, "mlp."},
	{"RefinedWebModel", NULL, BK_FALCON, MK_MIXTRAL, F_NORM_BIAS, "mlp."},
	{"RefinedWeb", NULL, BK_FALCON, MK_MIXTRAL, F_NORM_BIAS, "mlp."},
};

/* A model_type the catalogue knows and this table does not: llama-style
 * blocks whose switches come from the library's reading of the config. */
static const family catalogue_family = {"", NULL, BK_LLAMA, MK_DEEPSEEK, 0, "mlp."};

static const family *
family_of(const char *type)
{
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
		if (!strcmp(families[i].type, type))
			return &families[i];
	return NULL;
}

static bool
has(const cfg *c, unsigned f)
{
	return (c->fam->flags & f) != 0;
}

/* Is block L a MoE block (routed experts) or a dense one?  The rules of
 * the HF modelling code: first_k_dense_replace, then every step-th block
 * (DeepSeek counts from 0, Qwen and Llama 4 from 1), minus mlp_only_layers. */
static bool
is_moe(const cfg *c, uint64_t L)
{
	if (!c->experts || L < c->first_dense || (L + c->step_offset) % c->moe_step)
		return false;
	for (size_t i = 0; i < c->n_mlp_only; i++)
		if (c->mlp_only[i] == L)
			return false;
	return true;
}

static void
attn_qkvo(gen *g, uint64_t L)
{
	const cfg *c = g->c;
	uint64_t q = c->heads * c->head_dim, kv = c->kv_heads * c->head_dim;
	uint64_t k = g->plant == P_MHA_K && L == 3 ? q : kv;
	bool qkv_b = has(c, F_QKV_BIAS) || c->attn_bias, o_b = c->attn_bias;
	blk(g, L, "self_attn.q_proj.weight", "attn_q.weight", q, c->hidden);
	if (qkv_b)
		blk(g, L, "self_attn.q_proj.bias", "attn_q.bias", q, 0);
	blk(g, L, "self_attn.k_proj.weight", "attn_k.weight", k, c->hidden);
	if (qkv_b)
		blk(g, L, "self_attn.k_proj.bias", "attn_k.bias", k, 0);
	blk(g, L, "self_attn.v_proj.weight", "attn_v.weight", kv, c->hidden);
	if (qkv_b)
		blk(g, L, "self_attn.v_proj.bias", "attn_v.bias", kv, 0);
	blk(g, L, "self_attn.o_proj.weight", "attn_output.weight", c->hidden, q);
	if (o_b)
		blk(g, L, "self_attn.o_proj.bias", "attn_output.bias", c->hidden, 0);
	if (has(c, F_QK_NORM)) {
		blk(g, L, "self_attn.q_norm.weight", "attn_q_norm.weight", c->head_dim, 0);
		blk(g, L, "self_attn.k_norm.weight", "attn_k_norm.weight", c->head_dim, 0);
	}
	if (has(c, F_SINKS))
		blk(g, L, "self_attn.sinks", "attn_sinks.weight", c->heads, 0);
}

static void
attn_mla(gen *g, uint64_t L)
{
	const cfg *c = g->c;
	uint64_t qk = c->nope + c->rope;
	if (c->q_lora) {
		blk(g, L, "self_attn.q_a_proj.weight", "attn_q_a.weight", c->q_lora, c->hidden);
		blk(g, L, "self_attn.q_a_layernorm.weight", "attn_q_a_norm.weight", c->q_lora, 0);
		blk(g, L, "self_attn.q_b_proj.weight", "attn_q_b.weight", c->heads * qk, c->q_lora);
	} else {
		blk(g, L, "self_attn.q_proj.weight", "attn_q.weight", c->heads * qk, c->hidden);
	}
	blk(g, L, "self_attn.kv_a_proj_with_mqa.weight", "attn_kv_a_mqa.weight",
	    c->kv_lora + c->rope, c->hidden);
	blk(g, L, "self_attn.kv_a_layernorm.weight", "attn_kv_a_norm.weight", c->kv_lora, 0);
	if (g->gguf && g->mla_split) {
		/* the converter since mid-2025: kv_b split per head into k_b
		 * (transposed) and v_b */
		uint64_t kb[3] = {c->heads, c->kv_lora, c->nope}, vb[3] = {c->heads, c->vdim, c->kv_lora};
		blk_nd(g, L, NULL, "attn_k_b.weight", 3, kb);
		blk_nd(g, L, NULL, "attn_v_b.weight", 3, vb);
	} else {
		blk(g, L, "self_attn.kv_b_proj.weight", "attn_kv_b.weight",
		    c->heads * (c->nope + c->vdim), c->kv_lora);
	}
	blk(g, L, "self_attn.o_proj.weight", "attn_output.weight", c->hidden, c->heads * c->vdim);
	if (c->index_heads) {
		/* the lightning indexer: queries from the low-rank q, one
		 * key head, a LayerNorm, per-head weights */
		blk(g, L, "self_attn.indexer.wq_b.weight", "indexer.attn_q_b.weight",
		    c->index_heads * c->index_dim, c->q_lora);
		blk(g, L, "self_attn.indexer.wk.weight", "indexer.attn_k.weight", c->index_dim, c->hidden);
		blk(g, L, "self_attn.indexer.k_norm.weight", "indexer.k_norm.weight", c->index_dim, 0);
		blk(g, L, "self_attn.indexer.k_norm.bias", "indexer.k_norm.bias", c->index_dim, 0);
		blk(g, L, "self_attn.indexer.weights_proj.weight", "indexer.proj.weight",
		    c->index_heads, c->hidden);
	}
}

/* The MoE part of block L. */
static void
moe(gen *g, uint64_t L)
{
	const cfg *c = g->c;
	uint64_t d = c->hidden, f = c->moe_inter;
	switch (c->fam->moe) {
	case MK_MIXTRAL:
		blk(g, L, "block_sparse_moe.gate.weight", "ffn_gate_inp.weight", c->experts, d);
		experts(g, L, "block_sparse_moe.experts.", "w1.weight", "ffn_gate_exps.weight", f, d);
		experts(g, L, "block_sparse_moe.experts.", "w2.weight", "ffn_down_exps.weight", d, f);
		experts(g, L, "block_sparse_moe.experts.", "w3.weight", "ffn_up_exps.weight", f, d);
		break;
	case MK_QWEN:
	case MK_DEEPSEEK:
		blk(g, L, "mlp.gate.weight", "ffn_gate_inp.weight", c->experts, d);
		if (ws_sw_has(&c->aflags, WS_ARCH_ROUTER_SCORE_BIAS))
			blk(g, L, "mlp.gate.e_score_correction_bias", "exp_probs_b.bias", c->experts, 0);
		experts(g, L, "mlp.experts.", "gate_proj.weight", "ffn_gate_exps.weight", f, d);
		experts(g, L, "mlp.experts.", "up_proj.weight", "ffn_up_exps.weight", f, d);
		experts(g, L, "mlp.experts.", "down_proj.weight", "ffn_down_exps.weight", d, f);
		if (c->fam->moe == MK_DEEPSEEK && c->shared_n)
			gated_mlp(g, L, f * c->shared_n, "mlp.shared_experts.", "_shexp");
		if (c->fam->moe == MK_QWEN && c->shared_inter) {
			gated_mlp(g, L, c->shared_inter, "mlp.shared_expert.", "_shexp");
			/* [1, d]; the converter squeezes it to 1-D */
			blk(g, L, "mlp.shared_expert_gate.weight", "ffn_gate_inp_shexp.weight",
			    g->gguf ? d : 1, g->gguf ? 0 : d);
		}
		break;
	case MK_LLAMA4:
		blk(g, L, "feed_forward.router.weight", "ffn_gate_inp.weight", c->experts, d);
		if (g->gguf) {
			stacked(g, L, NULL, "ffn_gate_exps.weight", f, d);
			stacked(g, L, NULL, "ffn_up_exps.weight", f, d);
			stacked(g, L, NULL, "ffn_down_exps.weight", d, f);
		} else {
			/* [E, in, out]: the experts multiply from the right */
			stacked(g, L, "feed_forward.experts.gate_up_proj", NULL, d, 2 * f);
			stacked(g, L, "feed_forward.experts.down_proj", NULL, f, d);
		}
		gated_mlp(g, L, f, "feed_forward.shared_expert.", "_shexp");
		break;
	case MK_GPTOSS:
		blk(g, L, "mlp.router.weight", "ffn_gate_inp.weight", c->experts, d);
		blk(g, L, "mlp.router.bias", "ffn_gate_inp.bias", c->experts, 0);
		if (g->gguf) {
			stacked(g, L, NULL, "ffn_gate_exps.weight", f, d);
			stacked(g, L, NULL, "ffn_gate_exps.bias", f, 0);
			stacked(g, L, NULL, "ffn_up_exps.weight", f, d);
			stacked(g, L, NULL, "ffn_up_exps.bias", f, 0);
			stacked(g, L, NULL, "ffn_down_exps.weight", d, f);
			stacked(g, L, NULL, "ffn_down_exps.bias", d, 0);
		} else {
			stacked(g, L, "mlp.experts.gate_up_proj", NULL, d, 2 * f);
			stacked(g, L, "mlp.experts.gate_up_proj_bias", NULL, 2 * f, 0);
			stacked(g, L, "mlp.experts.down_proj", NULL, f, d);
			stacked(g, L, "mlp.experts.down_proj_bias", NULL, d, 0);
		}
		break;
	}
}

/* A norm of block L: weight, and bias for LayerNorm families. */
static void
norm(gen *g, uint64_t L, const char *hf, const char *gg)
{
	char h[80], n[40];
	snprintf(h, sizeof h, "%s.weight", hf);
	snprintf(n, sizeof n, "%s.weight", gg);
	blk(g, L, h, n, g->c->hidden, 0);
	if (has(g->c, F_NORM_BIAS)) {
		snprintf(h, sizeof h, "%s.bias", hf);
		snprintf(n, sizeof n, "%s.bias", gg);
		blk(g, L, h, n, g->c->hidden, 0);
	}
}

/* llama, mistral, qwen2/3 (and MoE), gemma, mixtral, phi3, phimoe,
 * llama4, gpt-oss */
static void
llama_block(gen *g, uint64_t L)
{
	const cfg *c = g->c;
	bool fused = has(c, F_FUSED_QKV);
	if (has(c, F_INTERNLM2)) {
		/* its fused wqkv: the kv groups' q, k, v side by side (the
		 * count is q + 2 kv rows); biases as its `bias` says */
		uint64_t q = c->heads * c->head_dim, kv = c->kv_heads * c->head_dim;
		norm(g, L, "attention_norm", "attn_norm");
		blk(g, L, "attention.wqkv.weight", "attn_qkv.weight", q + 2 * kv, c->hidden);
		if (c->attn_bias)
			blk(g, L, "attention.wqkv.bias", "attn_qkv.bias", q + 2 * kv, 0);
		blk(g, L, "attention.wo.weight", "attn_output.weight", c->hidden, q);
		if (c->attn_bias)
			blk(g, L, "attention.wo.bias", "attn_output.bias", c->hidden, 0);
		norm(g, L, "ffn_norm", "ffn_norm");
		blk(g, L, "feed_forward.w1.weight", "ffn_gate.weight", c->inter, c->hidden);
		blk(g, L, "feed_forward.w3.weight", "ffn_up.weight", c->inter, c->hidden);
		blk(g, L, "feed_forward.w2.weight", "ffn_down.weight", c->hidden, c->inter);
		return;
	}
	norm(g, L, "input_layernorm", "attn_norm");
	if (fused) {
		uint64_t q = c->heads * c->head_dim, kv = c->kv_heads * c->head_dim;
		blk(g, L, "self_attn.qkv_proj.weight", "attn_qkv.weight", q + 2 * kv, c->hidden);
		blk(g, L, "self_attn.o_proj.weight", "attn_output.weight", c->hidden, q);
	} else {
		attn_qkvo(g, L);
	}
	/* llama.cpp names gpt-oss's second norm post_attention_norm */
	norm(g, L, "post_attention_layernorm",
	     c->fam->moe == MK_GPTOSS ? "post_attention_norm" : "ffn_norm");
	if (fused) {
		blk(g, L, "mlp.gate_up_proj.weight", "ffn_up.weight", 2 * c->inter, c->hidden);
		blk(g, L, "mlp.down_proj.weight", "ffn_down.weight", c->hidden, c->inter);
	} else if (is_moe(c, L)) {
		moe(g, L);
	} else {
		gated_mlp(g, L, c->dense_inter, c->fam->ffn, "");
	}
}

/* The pre-attention and pre-MLP norms' names where a type renames them. */
static const struct {
	const char *type, *attn, *ffn;
} norm_names[] = {
	{"apertus", "attention_layernorm", "feedforward_layernorm"},
};

/* A block of a catalogue family: norms, attention, q/k norms, biases and
 * MLP as the library's switches for this config say. */
static void
catalogue_block(gen *g, uint64_t L)
{
	const cfg *c = g->c;
	const ws_switches *f = &c->aflags;
	uint64_t q = c->heads * c->head_dim, kv = c->kv_heads * c->head_dim;
	const char *attn_norm = "input_layernorm", *ffn_norm = "post_attention_layernorm";
	for (size_t i = 0; i < sizeof norm_names / sizeof norm_names[0]; i++)
		if (!strcmp(norm_names[i].type, c->type)) {
			attn_norm = norm_names[i].attn;
			ffn_norm = norm_names[i].ffn;
		}
	if (!ws_sw_has(f, WS_ARCH_NO_PRE_NORM))
		norm(g, L, attn_norm, "attn_norm");
	blk(g, L, "self_attn.q_proj.weight", "attn_q.weight", q, c->hidden);
	blk(g, L, "self_attn.k_proj.weight", "attn_k.weight", kv, c->hidden);
	blk(g, L, "self_attn.v_proj.weight", "attn_v.weight", kv, c->hidden);
	blk(g, L, "self_attn.o_proj.weight", "attn_output.weight", c->hidden, q);
	if (ws_sw_has(f, WS_ARCH_QKV_BIAS)) {
		blk(g, L, "self_attn.q_proj.bias", "attn_q.bias", q, 0);
		blk(g, L, "self_attn.k_proj.bias", "attn_k.bias", kv, 0);
		blk(g, L, "self_attn.v_proj.bias", "attn_v.bias", kv, 0);
	}
	if (ws_sw_has(f, WS_ARCH_O_BIAS))
		blk(g, L, "self_attn.o_proj.bias", "attn_output.bias", c->hidden, 0);
	if ((ws_sw_has(f, WS_ARCH_QK_NORM_HEAD) || ws_sw_has(f, WS_ARCH_QK_NORM_FULL))) {
		bool full = ws_sw_has(f, WS_ARCH_QK_NORM_FULL);
		blk(g, L, "self_attn.q_norm.weight", "attn_q_norm.weight", full ? q : c->head_dim, 0);
		blk(g, L, "self_attn.k_norm.weight", "attn_k_norm.weight", full ? kv : c->head_dim, 0);
	}
	norm(g, L, ffn_norm, "ffn_norm");
	if ((ws_sw_has(f, WS_ARCH_POST_NORMS)) && !ws_sw_has(f, WS_ARCH_NO_PRE_NORM))
		norm(g, L, "pre_feedforward_layernorm", "post_attention_norm");
	if (ws_sw_has(f, WS_ARCH_POST_NORMS))
		norm(g, L, "post_feedforward_layernorm", "post_ffw_norm");
	if (is_moe(c, L)) {
		uint64_t d = c->hidden, e = c->moe_inter;
		blk(g, L, "mlp.gate.weight", "ffn_gate_inp.weight", c->experts, d);
		if (ws_sw_has(f, WS_ARCH_ROUTER_SCORE_BIAS))
			blk(g, L, "mlp.gate.e_score_correction_bias", "exp_probs_b.bias", c->experts, 0);
		if (ws_sw_has(f, WS_ARCH_MOE_FUSED) && !g->gguf) {
			/* fused 3-D [E, in, out] (Qwen3-VL-MoE's); llama.cpp
			 * splits them into gate and up stacks */
			stacked(g, L, "mlp.experts.gate_up_proj", NULL, d, 2 * e);
			stacked(g, L, "mlp.experts.down_proj", NULL, e, d);
		} else {
			experts(g, L, "mlp.experts.", "gate_proj.weight", "ffn_gate_exps.weight", e, d);
			experts(g, L, "mlp.experts.", "up_proj.weight", "ffn_up_exps.weight", e, d);
			experts(g, L, "mlp.experts.", "down_proj.weight", "ffn_down_exps.weight", d, e);
		}
		if (c->shared_n)
			gated_mlp(g, L, c->shared_inter * c->shared_n, "mlp.shared_experts.", "_shexp");
		return;
	}
	if (c->plain_mlp) {
		blk(g, L, "mlp.up_proj.weight", "ffn_up.weight", c->dense_inter, c->hidden);
		blk(g, L, "mlp.down_proj.weight", "ffn_down.weight", c->hidden, c->dense_inter);
	} else {
		gated_mlp(g, L, c->dense_inter, "mlp.", "");
	}
	if (ws_sw_has(f, WS_ARCH_MLP_BIAS)) {
		if (!c->plain_mlp)
			blk(g, L, "mlp.gate_proj.bias", "ffn_gate.bias", c->dense_inter, 0);
		blk(g, L, "mlp.up_proj.bias", "ffn_up.bias", c->dense_inter, 0);
		blk(g, L, "mlp.down_proj.bias", "ffn_down.bias", c->hidden, 0);
	}
	if ((ws_sw_has(f, WS_ARCH_XIELU)) && !g->gguf) {
		/* two learnable [1] scalars and two 0-d buffers; llama.cpp
		 * moves all four to xielu.* metadata arrays */
		blk(g, L, "mlp.act_fn.alpha_p", NULL, 1, 0);
		blk(g, L, "mlp.act_fn.alpha_n", NULL, 1, 0);
		blk_nd(g, L, "mlp.act_fn.beta", NULL, 0, NULL);
		blk_nd(g, L, "mlp.act_fn.eps", NULL, 0, NULL);
	}
}

/* Falcon (and the original RW code): fused grouped qkv, LayerNorms,
 * one norm per block (parallel), two (new decoder: ln_attn, ln_mlp) or
 * two in sequence. */
static void
falcon_block(gen *g, uint64_t L)
{
	const cfg *c = g->c;
	const ws_switches *f = &c->aflags;
	uint64_t d = c->hidden, rows = (c->heads + 2 * c->kv_heads) * c->head_dim;
	if (ws_sw_has(f, WS_ARCH_NEW_DECODER)) {
		norm(g, L, "ln_attn", "attn_norm");
		norm(g, L, "ln_mlp", "ffn_norm");
	} else {
		norm(g, L, "input_layernorm", "attn_norm");
	}
	blk(g, L, "self_attention.query_key_value.weight", "attn_qkv.weight", rows, d);
	if (ws_sw_has(f, WS_ARCH_QKV_BIAS))
		blk(g, L, "self_attention.query_key_value.bias", "attn_qkv.bias", rows, 0);
	blk(g, L, "self_attention.dense.weight", "attn_output.weight", d, c->heads * c->head_dim);
	if (ws_sw_has(f, WS_ARCH_O_BIAS))
		blk(g, L, "self_attention.dense.bias", "attn_output.bias", d, 0);
	if (!((ws_sw_has(f, WS_ARCH_NEW_DECODER) || ws_sw_has(f, WS_ARCH_PARALLEL))))
		norm(g, L, "post_attention_layernorm", "ffn_norm");
	blk(g, L, "mlp.dense_h_to_4h.weight", "ffn_up.weight", c->inter, d);
	if (ws_sw_has(f, WS_ARCH_MLP_BIAS))
		blk(g, L, "mlp.dense_h_to_4h.bias", "ffn_up.bias", c->inter, 0);
	blk(g, L, "mlp.dense_4h_to_h.weight", "ffn_down.weight", d, c->inter);
	if (ws_sw_has(f, WS_ARCH_MLP_BIAS))
		blk(g, L, "mlp.dense_4h_to_h.bias", "ffn_down.bias", d, 0);
}

static void
deepseek_block(gen *g, uint64_t L)
{
	const cfg *c = g->c;
	blk(g, L, "input_layernorm.weight", "attn_norm.weight", c->hidden, 0);
	attn_mla(g, L);
	blk(g, L, "post_attention_layernorm.weight", "ffn_norm.weight", c->hidden, 0);
	if (is_moe(c, L))
		moe(g, L);
	else
		gated_mlp(g, L, c->inter, "mlp.", "");
}

static void
gpt2_block(gen *g, uint64_t L)
{
	const cfg *c = g->c;
	uint64_t d = c->hidden;
	/* Conv1D stores [in, out]; attn.bias is the causal-mask buffer */
	blk(g, L, "ln_1.weight", NULL, d, 0);
	blk(g, L, "ln_1.bias", NULL, d, 0);
	uint64_t m[4] = {1, 1, c->positions, c->positions};
	char name[96];
	snprintf(name, sizeof name, "h.%" PRIu64 ".attn.bias", L);
	if (!(g->plant == P_MISSING_BLOCK && L == 5))
		push(g, 4, m, 0, name);
	blk(g, L, "attn.c_attn.weight", NULL, d, 3 * d);
	blk(g, L, "attn.c_attn.bias", NULL, 3 * d, 0);
	blk(g, L, "attn.c_proj.weight", NULL, d, d);
	blk(g, L, "attn.c_proj.bias", NULL, d, 0);
	blk(g, L, "ln_2.weight", NULL, d, 0);
	blk(g, L, "ln_2.bias", NULL, d, 0);
	blk(g, L, "mlp.c_fc.weight", NULL, d, c->inter);
	blk(g, L, "mlp.c_fc.bias", NULL, c->inter, 0);
	blk(g, L, "mlp.c_proj.weight", NULL, c->inter, d);
	blk(g, L, "mlp.c_proj.bias", NULL, d, 0);
}

/* DeepSeek-V3's multi-token-prediction block after the last layer. */
static void
mtp_block(gen *g, uint64_t L)
{
	const cfg *c = g->c;
	blk(g, L, "embed_tokens.weight", "nextn.embed_tokens.weight", c->vocab, c->hidden);
	blk(g, L, "enorm.weight", "nextn.enorm.weight", c->hidden, 0);
	blk(g, L, "hnorm.weight", "nextn.hnorm.weight", c->hidden, 0);
	blk(g, L, "eh_proj.weight", "nextn.eh_proj.weight", c->hidden, 2 * c->hidden);
	if (c->fam == &catalogue_family)
		catalogue_block(g, L);
	else
		deepseek_block(g, L);
	blk(g, L, "shared_head.norm.weight", "nextn.shared_head_norm.weight", c->hidden, 0);
	blk(g, L, "shared_head.head.weight", "nextn.shared_head_head.weight", c->vocab, c->hidden);
}

/* A tensor outside the blocks, of any rank. */
static void
top_nd(gen *g, const char *name, int nd, uint64_t a, uint64_t b, uint64_t c3, uint64_t d4)
{
	uint64_t s[4] = {a, b, c3, d4};
	push(g, nd, s, 0, name);
}

/* A CLIP / SigLIP tower under prefix `pre` (its embeddings, encoder
 * layers and final norm), as transformers saves it, from the library's
 * reading of its config: the switches say which tensors it has. */
static void
tower(gen *g, const char *pre, const struct ws_arch *a)
{
	uint64_t d = a->hidden_size, f = a->intermediate_size;
	char n[160];
#define T(nd, x, y, z, w, ...) (snprintf(n, sizeof n, __VA_ARGS__), top_nd(g, n, nd, x, y, z, w))
	if (ws_sw_has(&a->flags, WS_ARCH_PATCHES)) {
		T(4, d, a->num_channels, a->patch_size, a->patch_size, "%sembeddings.patch_embedding.weight", pre);
		if (ws_sw_has(&a->flags, WS_ARCH_PATCH_BIAS))
			T(1, d, 0, 0, 0, "%sembeddings.patch_embedding.bias", pre);
		bool cls = ws_sw_has(&a->flags, WS_ARCH_CLS_TOKEN);
		if (cls)
			T(1, d, 0, 0, 0, "%sembeddings.class_embedding", pre);
		T(2, a->num_patches + cls, d, 0, 0, "%sembeddings.position_embedding.weight", pre);
		if (ws_sw_has(&a->flags, WS_ARCH_EMBED_NORM)) {
			T(1, d, 0, 0, 0, "%spre_layrnorm.weight", pre);
			T(1, d, 0, 0, 0, "%spre_layrnorm.bias", pre);
		}
	} else {
		T(2, a->vocab_size, d, 0, 0, "%sembeddings.token_embedding.weight", pre);
		T(2, a->max_position_embeddings, d, 0, 0, "%sembeddings.position_embedding.weight", pre);
	}
	if (g->position_ids) {
		/* older transformers saved the position ids buffer too */
		bool img = ws_sw_has(&a->flags, WS_ARCH_PATCHES);
		T(2, 1, img ? a->num_patches + ws_sw_has(&a->flags, WS_ARCH_CLS_TOKEN) : a->max_position_embeddings,
		  0, 0, "%sembeddings.position_ids", pre);
		g->v[g->n - 1].dt = &dtypes[4];
	}
	static const char *const lin[] = {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
					  "self_attn.out_proj", "mlp.fc1", "mlp.fc2"};
	for (uint64_t L = 0; L < a->num_layers; L++) {
		if (g->plant == P_MISSING_TOWER_LAYER && L == 1 && ws_sw_has(&a->flags, WS_ARCH_PATCHES))
			continue;
		for (size_t i = 0; i < sizeof lin / sizeof lin[0]; i++) {
			uint64_t out = i == 4 ? f : d, in = i == 5 ? f : d;
			T(2, out, in, 0, 0, "%sencoder.layers.%" PRIu64 ".%s.weight", pre, L, lin[i]);
			T(1, out, 0, 0, 0, "%sencoder.layers.%" PRIu64 ".%s.bias", pre, L, lin[i]);
		}
		for (int k = 1; k <= 2; k++) {
			T(1, d, 0, 0, 0, "%sencoder.layers.%" PRIu64 ".layer_norm%d.weight", pre, L, k);
			T(1, d, 0, 0, 0, "%sencoder.layers.%" PRIu64 ".layer_norm%d.bias", pre, L, k);
		}
	}
	const char *fin = ws_sw_has(&a->flags, WS_ARCH_PATCHES) ? "post_layernorm" : "final_layer_norm";
	T(1, d, 0, 0, 0, "%s%s.weight", pre, fin);
	T(1, d, 0, 0, 0, "%s%s.bias", pre, fin);
	if (ws_sw_has(&a->flags, WS_ARCH_ATTN_POOL)) {
		T(3, 1, 1, d, 0, "%shead.probe", pre);
		T(2, 3 * d, d, 0, 0, "%shead.attention.in_proj_weight", pre);
		T(1, 3 * d, 0, 0, 0, "%shead.attention.in_proj_bias", pre);
		T(2, d, d, 0, 0, "%shead.attention.out_proj.weight", pre);
		T(1, d, 0, 0, 0, "%shead.attention.out_proj.bias", pre);
		T(1, d, 0, 0, 0, "%shead.layernorm.weight", pre);
		T(1, d, 0, 0, 0, "%shead.layernorm.bias", pre);
		T(2, f, d, 0, 0, "%shead.mlp.fc1.weight", pre);
		T(1, f, 0, 0, 0, "%shead.mlp.fc1.bias", pre);
		T(2, d, f, 0, 0, "%shead.mlp.fc2.weight", pre);
		T(1, d, 0, 0, 0, "%shead.mlp.fc2.bias", pre);
	}
	uint64_t pj = a->projection_dim ? a->projection_dim : d;
	if (ws_sw_has(&a->flags, WS_ARCH_TOWER_HEAD)) {
		T(2, pj, d, 0, 0, "%shead.weight", pre);
		T(1, pj, 0, 0, 0, "%shead.bias", pre);
	}
	/* a dual encoder's joint-space projections and scalars sit at the top */
	if (ws_sw_has(&a->flags, WS_ARCH_TEXT_PROJ))
		T(2, pj, d, 0, 0, "text_projection.weight");
	if (ws_sw_has(&a->flags, WS_ARCH_VISUAL_PROJ))
		T(2, pj, d, 0, 0, "visual_projection.weight");
	if (ws_sw_has(&a->flags, WS_ARCH_LOGIT_SCALE))
		T(0, 0, 0, 0, 0, "logit_scale");
	if (ws_sw_has(&a->flags, WS_ARCH_LOGIT_BIAS))
		T(1, 1, 0, 0, 0, "logit_bias");
#undef T
}

/* --layout: which of its part's module prefixes a component is written
 * under.  transformers >= 4.52 saves a wrapper's components inside its
 * model (model.visual., model.language_model.), older versions beside
 * it (visual., the text model under model. or language_model.model.);
 * the catalogue lists both for each part.  Default: the part's first. */
enum layout { LAYOUT_FIRST, LAYOUT_NEW, LAYOUT_OLD };
static enum layout layout = LAYOUT_FIRST;

static bool
nested_prefix(const char *s)
{
	return s && !strncmp(s, "model.", 6);
}

static const char *
part_prefix(const struct ws_cat_part *p)
{
	for (size_t i = 0; layout != LAYOUT_FIRST && i < WS_CAT_MAX_PREFIXES && p->prefixes[i]; i++)
		if (nested_prefix(p->prefixes[i]) == (layout == LAYOUT_NEW))
			return p->prefixes[i];
	return p->prefixes[0];
}

/* A Qwen-VL tower under `pre` (visual.): the patch convolution over
 * frames (5-D), blocks.N with norm1 / norm2, a fused qkv, proj and the
 * MLP (gated or plain, by the library's reading), no final norm. */
static void
qwen_tower(gen *g, const char *pre, const struct ws_arch *a)
{
	uint64_t d = a->hidden_size, f = a->intermediate_size, ps = a->patch_size;
	uint64_t tp = a->temporal_patch ? a->temporal_patch : 1;
	bool ln = a->norm == WS_NORM_LAYER, gated = a->mlp == WS_MLP_GATED;
	char n[160];
	snprintf(n, sizeof n, "%spatch_embed.proj.weight", pre);
	uint64_t conv[5] = {d, a->num_channels, tp, ps, ps};
	push(g, 5, conv, 0, n);
	/* Qwen3-VL's: a biased convolution, a position table, MLP names */
	bool v3 = !strcmp(a->architecture, "qwen3_vl_vision");
#define T(nd, x, y, ...) (snprintf(n, sizeof n, __VA_ARGS__), top_nd(g, n, nd, x, y, 0, 0))
	if (ws_sw_has(&a->flags, WS_ARCH_PATCH_BIAS))
		T(1, d, 0, "%spatch_embed.proj.bias", pre);
	if (!ws_sw_has(&a->flags, WS_ARCH_NO_PATCH_POS))
		T(2, a->num_patches, d, "%spos_embed.weight", pre);
	for (uint64_t L = 0; L < a->num_layers; L++) {
		if (g->plant == P_MISSING_TOWER_LAYER && L == 1)
			continue;
		for (int k = 1; k <= 2; k++) {
			T(1, d, 0, "%sblocks.%" PRIu64 ".norm%d.weight", pre, L, k);
			if (ln)
				T(1, d, 0, "%sblocks.%" PRIu64 ".norm%d.bias", pre, L, k);
		}
		T(2, 3 * d, d, "%sblocks.%" PRIu64 ".attn.qkv.weight", pre, L);
		T(1, 3 * d, 0, "%sblocks.%" PRIu64 ".attn.qkv.bias", pre, L);
		T(2, d, d, "%sblocks.%" PRIu64 ".attn.proj.weight", pre, L);
		T(1, d, 0, "%sblocks.%" PRIu64 ".attn.proj.bias", pre, L);
		static const char *const gmlp[] = {"gate_proj", "up_proj", "down_proj"};
		static const char *const pmlp[] = {"fc1", "fc2"}, *const pmlp3[] = {"linear_fc1", "linear_fc2"};
		size_t nm = gated ? 3 : 2;
		for (size_t i = 0; i < nm; i++) {
			const char *nm_i = gated ? gmlp[i] : v3 ? pmlp3[i] : pmlp[i];
			bool down = i + 1 == nm;
			T(2, down ? d : f, down ? f : d, "%sblocks.%" PRIu64 ".mlp.%s.weight", pre, L, nm_i);
			T(1, down ? d : f, 0, "%sblocks.%" PRIu64 ".mlp.%s.bias", pre, L, nm_i);
		}
	}
#undef T
}

/* Llama 4's vision model under `pre`: patches through a linear, the
 * class token and its positions, norms around model.layers.N, and its
 * vision_adapter. */
static void
llama4_tower(gen *g, const char *pre, const struct ws_arch *a)
{
	uint64_t d = a->hidden_size, f = a->intermediate_size, ps = a->patch_size;
	char n[160];
#define T(nd, x, y, ...) (snprintf(n, sizeof n, __VA_ARGS__), top_nd(g, n, nd, x, y, 0, 0))
	T(2, d, a->num_channels * ps * ps, "%spatch_embedding.linear.weight", pre);
	T(1, d, 0, "%sclass_embedding", pre);
	T(2, a->num_patches + 1, d, "%spositional_embedding_vlm", pre);
	T(1, d, 0, "%slayernorm_pre.weight", pre);
	T(1, d, 0, "%slayernorm_pre.bias", pre);
	T(1, d, 0, "%slayernorm_post.weight", pre);
	T(1, d, 0, "%slayernorm_post.bias", pre);
	static const char *const lin[] = {"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj",
					  "self_attn.o_proj", "mlp.fc1", "mlp.fc2"};
	for (uint64_t L = 0; L < a->num_layers; L++) {
		if (g->plant == P_MISSING_TOWER_LAYER && L == 1)
			continue;
		for (size_t i = 0; i < sizeof lin / sizeof lin[0]; i++) {
			uint64_t out = i == 4 ? f : d, in = i == 5 ? f : d;
			T(2, out, in, "%smodel.layers.%" PRIu64 ".%s.weight", pre, L, lin[i]);
			T(1, out, 0, "%smodel.layers.%" PRIu64 ".%s.bias", pre, L, lin[i]);
		}
		static const char *const norms[] = {"input_layernorm", "post_attention_layernorm"};
		for (int k = 0; k < 2; k++) {
			T(1, d, 0, "%smodel.layers.%" PRIu64 ".%s.weight", pre, L, norms[k]);
			T(1, d, 0, "%smodel.layers.%" PRIu64 ".%s.bias", pre, L, norms[k]);
		}
	}
	T(2, a->projection_dim, f, "%svision_adapter.mlp.fc1.weight", pre);
	T(2, a->out_width, a->out_width, "%svision_adapter.mlp.fc2.weight", pre);
#undef T
}

/* Mllama's tower layers under pre (transformer. or the global
 * stack's own prefix): bias-free attention, a biased MLP, LayerNorms,
 * the global ones' gates. */
static void
mllama_layers(gen *g, const char *pre, const struct ws_arch *a)
{
	uint64_t d = a->hidden_size, f = a->intermediate_size;
	bool gated = ws_sw_has(&a->flags, WS_ARCH_GATED_LAYERS);
	char n[160];
#define T(nd, x, y, ...) (snprintf(n, sizeof n, __VA_ARGS__), top_nd(g, n, nd, x, y, 0, 0))
	static const char *const proj[] = {"q_proj", "k_proj", "v_proj", "o_proj"};
	for (uint64_t L = 0; L < a->num_layers; L++) {
		if (g->plant == P_MISSING_TOWER_LAYER && L == 1 && !gated)
			continue;
		for (int i = 0; i < 4; i++)
			T(2, d, d, "%slayers.%" PRIu64 ".self_attn.%s.weight", pre, L, proj[i]);
		T(2, f, d, "%slayers.%" PRIu64 ".mlp.fc1.weight", pre, L);
		T(1, f, 0, "%slayers.%" PRIu64 ".mlp.fc1.bias", pre, L);
		T(2, d, f, "%slayers.%" PRIu64 ".mlp.fc2.weight", pre, L);
		T(1, d, 0, "%slayers.%" PRIu64 ".mlp.fc2.bias", pre, L);
		static const char *const norms[] = {"input_layernorm", "post_attention_layernorm"};
		for (int k = 0; k < 2; k++) {
			T(1, d, 0, "%slayers.%" PRIu64 ".%s.weight", pre, L, norms[k]);
			T(1, d, 0, "%slayers.%" PRIu64 ".%s.bias", pre, L, norms[k]);
		}
		if (gated) {
			T(1, 1, 0, "%slayers.%" PRIu64 ".gate_attn", pre, L);
			T(1, 1, 0, "%slayers.%" PRIu64 ".gate_ffn", pre, L);
		}
	}
#undef T
}

/* Mllama's vision model under pre: the patch convolution, the class
 * token, gated positions and tile tables, the norms, its local layers
 * (the global ones are a part of their own). */
static void
mllama_tower(gen *g, const char *pre, const struct ws_arch *a)
{
	uint64_t d = a->hidden_size, ps = a->patch_size, np1 = a->num_patches + 1;
	char n[160], sub[128];
#define T(nd, x, y, ...) (snprintf(n, sizeof n, __VA_ARGS__), top_nd(g, n, nd, x, y, 0, 0))
	snprintf(n, sizeof n, "%spatch_embedding.weight", pre);
	top_nd(g, n, 4, d, a->num_channels, ps, ps);
	T(1, d, 0, "%sclass_embedding", pre);
	T(2, np1, d, "%sgated_positional_embedding.embedding", pre);
	T(1, 1, 0, "%sgated_positional_embedding.gate", pre);
	T(2, a->aspect_ids, a->max_tiles * np1 * d, "%sgated_positional_embedding.tile_embedding.weight", pre);
	static const char *const tiles[] = {"pre_tile_positional_embedding", "post_tile_positional_embedding"};
	for (int k = 0; k < 2; k++) {
		T(2, a->aspect_ids, a->max_tiles * d, "%s%s.embedding.weight", pre, tiles[k]);
		T(1, 1, 0, "%s%s.gate", pre, tiles[k]);
	}
	T(1, d, 0, "%slayernorm_pre.weight", pre);
	T(1, d, 0, "%slayernorm_pre.bias", pre);
	T(1, d, 0, "%slayernorm_post.weight", pre);
	T(1, d, 0, "%slayernorm_post.bias", pre);
#undef T
	snprintf(sub, sizeof sub, "%stransformer.", pre);
	mllama_layers(g, sub, a);
}

/* An InternViT tower under `pre` (vision_model.): a class token and
 * positions [1, patches + 1, d], the patch convolution, layers of a
 * fused qkv, proj, q / k norms, norm1 / norm2, layer scales ls1 / ls2
 * and an MLP; no final norm. */
static void
intern_tower(gen *g, const char *pre, const struct ws_arch *a)
{
	uint64_t d = a->hidden_size, f = a->intermediate_size;
	bool nb = a->norm == WS_NORM_LAYER && !ws_sw_has(&a->flags, WS_ARCH_NO_NORM_BIAS);
	char n[160];
#define T(nd, x, y, z, w, ...) (snprintf(n, sizeof n, __VA_ARGS__), top_nd(g, n, nd, x, y, z, w))
	T(3, 1, 1, d, 0, "%sembeddings.class_embedding", pre);
	T(4, d, a->num_channels, a->patch_size, a->patch_size, "%sembeddings.patch_embedding.weight", pre);
	T(1, d, 0, 0, 0, "%sembeddings.patch_embedding.bias", pre);
	T(3, 1, a->num_patches + 1, d, 0, "%sembeddings.position_embedding", pre);
	for (uint64_t L = 0; L < a->num_layers; L++) {
		if (g->plant == P_MISSING_TOWER_LAYER && L == 1)
			continue;
		const char *b = "encoder.layers";
		T(2, 3 * d, d, 0, 0, "%s%s.%" PRIu64 ".attn.qkv.weight", pre, b, L);
		if (ws_sw_has(&a->flags, WS_ARCH_QKV_BIAS))
			T(1, 3 * d, 0, 0, 0, "%s%s.%" PRIu64 ".attn.qkv.bias", pre, b, L);
		if (ws_sw_has(&a->flags, WS_ARCH_QK_NORM_FULL)) {
			T(1, d, 0, 0, 0, "%s%s.%" PRIu64 ".attn.q_norm.weight", pre, b, L);
			T(1, d, 0, 0, 0, "%s%s.%" PRIu64 ".attn.k_norm.weight", pre, b, L);
		}
		T(2, d, d, 0, 0, "%s%s.%" PRIu64 ".attn.proj.weight", pre, b, L);
		T(1, d, 0, 0, 0, "%s%s.%" PRIu64 ".attn.proj.bias", pre, b, L);
		T(2, f, d, 0, 0, "%s%s.%" PRIu64 ".mlp.fc1.weight", pre, b, L);
		T(1, f, 0, 0, 0, "%s%s.%" PRIu64 ".mlp.fc1.bias", pre, b, L);
		T(2, d, f, 0, 0, "%s%s.%" PRIu64 ".mlp.fc2.weight", pre, b, L);
		T(1, d, 0, 0, 0, "%s%s.%" PRIu64 ".mlp.fc2.bias", pre, b, L);
		for (int k = 1; k <= 2; k++) {
			T(1, d, 0, 0, 0, "%s%s.%" PRIu64 ".norm%d.weight", pre, b, L, k);
			if (nb)
				T(1, d, 0, 0, 0, "%s%s.%" PRIu64 ".norm%d.bias", pre, b, L, k);
			T(1, d, 0, 0, 0, "%s%s.%" PRIu64 ".ls%d", pre, b, L, k);
		}
	}
#undef T
}

/* The same tower as transformers converts it (InternVLVisionModel):
 * cls_token, patch_embeddings.projection, position_embeddings, layers
 * encoder.layer.N with q / k / v apart, projection_layer, lambda_1 /
 * lambda_2, layernorm_before / layernorm_after; a final layernorm only
 * without mean pooling. */
static void
hf_intern_tower(gen *g, const char *pre, const struct ws_arch *a)
{
	uint64_t d = a->hidden_size, f = a->intermediate_size;
	bool nb = a->norm == WS_NORM_LAYER && !ws_sw_has(&a->flags, WS_ARCH_NO_NORM_BIAS);
	char n[160];
#define T(nd, x, y, z, w, ...) (snprintf(n, sizeof n, __VA_ARGS__), top_nd(g, n, nd, x, y, z, w))
	T(3, 1, 1, d, 0, "%sembeddings.cls_token", pre);
	T(4, d, a->num_channels, a->patch_size, a->patch_size, "%sembeddings.patch_embeddings.projection.weight", pre);
	T(1, d, 0, 0, 0, "%sembeddings.patch_embeddings.projection.bias", pre);
	T(3, 1, a->num_patches + 1, d, 0, "%sembeddings.position_embeddings", pre);
	static const char *const qkvo[] = {"q_proj", "k_proj", "v_proj", "projection_layer"};
	for (uint64_t L = 0; L < a->num_layers; L++) {
		if (g->plant == P_MISSING_TOWER_LAYER && L == 1)
			continue;
		for (int i = 0; i < 4; i++) {
			T(2, d, d, 0, 0, "%sencoder.layer.%" PRIu64 ".attention.%s.weight", pre, L, qkvo[i]);
			if (i == 3 || ws_sw_has(&a->flags, WS_ARCH_QKV_BIAS))
				T(1, d, 0, 0, 0, "%sencoder.layer.%" PRIu64 ".attention.%s.bias", pre, L, qkvo[i]);
		}
		if (ws_sw_has(&a->flags, WS_ARCH_QK_NORM_FULL)) {
			T(1, d, 0, 0, 0, "%sencoder.layer.%" PRIu64 ".attention.q_norm.weight", pre, L);
			T(1, d, 0, 0, 0, "%sencoder.layer.%" PRIu64 ".attention.k_norm.weight", pre, L);
		}
		T(2, f, d, 0, 0, "%sencoder.layer.%" PRIu64 ".mlp.fc1.weight", pre, L);
		T(1, f, 0, 0, 0, "%sencoder.layer.%" PRIu64 ".mlp.fc1.bias", pre, L);
		T(2, d, f, 0, 0, "%sencoder.layer.%" PRIu64 ".mlp.fc2.weight", pre, L);
		T(1, d, 0, 0, 0, "%sencoder.layer.%" PRIu64 ".mlp.fc2.bias", pre, L);
		static const char *const norms[] = {"layernorm_before", "layernorm_after"};
		for (int k = 0; k < 2; k++) {
			T(1, d, 0, 0, 0, "%sencoder.layer.%" PRIu64 ".%s.weight", pre, L, norms[k]);
			if (nb)
				T(1, d, 0, 0, 0, "%sencoder.layer.%" PRIu64 ".%s.bias", pre, L, norms[k]);
			T(1, d, 0, 0, 0, "%sencoder.layer.%" PRIu64 ".lambda_%d", pre, L, k + 1);
		}
	}
	if (!ws_sw_has(&a->flags, WS_ARCH_NO_FINAL_NORM)) {
		T(1, d, 0, 0, 0, "%slayernorm.weight", pre);
		if (nb)
			T(1, d, 0, 0, 0, "%slayernorm.bias", pre);
	}
#undef T
}

/* A tower's module under its part's prefix: a wrapper saves the
 * tower's class (CLIPVisionModel) whose body is vision_model. */
static void encdec_stack(gen *g, const char *pre, const struct ws_arch *a, bool decoder, const char *shared,
			 const char *head);

static void
part_tower(gen *g, const struct ws_cat_part *p, const struct ws_arch *a)
{
	/* an audio tower: Whisper's encoder stack (its conv stem) */
	if (ws_sw_has(&a->flags, WS_ARCH_CONV_STEM)) {
		encdec_stack(g, part_prefix(p), a, false, NULL, NULL);
		return;
	}
	/* towers of their own layout, told by the library's switches */
	if (ws_sw_has(&a->flags, WS_ARCH_NO_PATCH_POS) || !strcmp(a->architecture, "qwen3_vl_vision")) {
		qwen_tower(g, part_prefix(p), a);
		return;
	}
	if (ws_sw_has(&a->flags, WS_ARCH_PIXEL_SHUFFLE_MLP)) {
		llama4_tower(g, part_prefix(p), a);
		return;
	}
	if (ws_sw_has(&a->flags, WS_ARCH_TILES)) {
		mllama_tower(g, part_prefix(p), a);
		return;
	}
	if (ws_sw_has(&a->flags, WS_ARCH_GATED_LAYERS)) {
		mllama_layers(g, part_prefix(p), a);
		return;
	}
	if (ws_sw_has(&a->flags, WS_ARCH_LAYER_SCALE) && ws_sw_has(&a->flags, WS_ARCH_FUSED_QKV)) {
		intern_tower(g, p->prefixes[0], a);
		return;
	}
	if (ws_sw_has(&a->flags, WS_ARCH_LAYER_SCALE) && ws_sw_has(&a->flags, WS_ARCH_CLS_TOKEN)) {
		hf_intern_tower(g, p->prefixes[0], a);
		return;
	}
	char pre[96];
	const char *pp = part_prefix(p) ? part_prefix(p) : "";
	size_t n = strlen(pp);
	bool body = n >= 11 && (!strcmp(pp + n - 11, "text_model.") || (n >= 13 && !strcmp(pp + n - 13, "vision_model.")));
	snprintf(pre, sizeof pre, "%s%s", pp,
		 body ? "" : ws_sw_has(&a->flags, WS_ARCH_PATCHES) ? "vision_model." : "text_model.");
	tower(g, pre, a);
}

/* A projector by its layout's names (LLaVA's two linear layers, Gemma
 * 3's norm and bare matrix stored [in, out]). */
static void
projector(gen *g, const struct ws_cat_part *p, const struct ws_arch *a)
{
	char n[160];
	const char *pre = part_prefix(p);
	uint64_t in = a->embedding_size, out = a->hidden_size + (g->plant == P_PROJECTOR_WIDTH ? 64 : 0);
	if (ws_sw_has(&a->flags, WS_ARCH_PROJ_MLP2)) {
		/* LLaVA's biased, Voxtral's bias-free */
		bool pb = ws_sw_has(&a->flags, WS_ARCH_PROJ_BIAS);
		snprintf(n, sizeof n, "%slinear_1.weight", pre);
		top_nd(g, n, 2, out, in, 0, 0);
		snprintf(n, sizeof n, "%slinear_1.bias", pre);
		if (pb)
			top_nd(g, n, 1, out, 0, 0, 0);
		snprintf(n, sizeof n, "%slinear_2.weight", pre);
		top_nd(g, n, 2, out, out, 0, 0);
		snprintf(n, sizeof n, "%slinear_2.bias", pre);
		if (pb)
			top_nd(g, n, 1, out, 0, 0, 0);
	}
	uint64_t m = a->merge_size ? a->merge_size : 1, wide = in * m * m;
	if (ws_sw_has(&a->flags, WS_ARCH_IMAGE_NEWLINE)) {
		/* a whole parameter: the part's prefix without a trailing dot,
		 * nested as the layout asks */
		const char *nl = "image_newline";
		bool found = false;
		for (size_t i = 0; i < WS_CAT_MAX_PREFIXES && p->prefixes[i]; i++) {
			size_t k = strlen(p->prefixes[i]);
			if (!found && k && p->prefixes[i][k - 1] != '.' &&
			    (layout == LAYOUT_FIRST || nested_prefix(p->prefixes[i]) == (layout == LAYOUT_NEW))) {
				nl = p->prefixes[i];
				found = true;
			}
		}
		top_nd(g, nl, 1, out, 0, 0, 0);
	}
	/* the layouts' own names (the library counts them by role) */
	if (ws_sw_has(&a->flags, WS_ARCH_PROJ_LINEAR) && !strcmp(p->type, "norm_linear")) {
		snprintf(n, sizeof n, "%smm_input_projection_weight", pre);
		top_nd(g, n, 2, in, out, 0, 0);
	} else if (ws_sw_has(&a->flags, WS_ARCH_PROJ_LINEAR) && ws_sw_has(&a->flags, WS_ARCH_PROJ_BIAS)) {
		/* Mllama's: the module is the linear; PaliGemma's: its
		 * submodule linear. */
		bool sub = !strcmp(p->type, "sub_linear_bias");
		snprintf(n, sizeof n, "%s%sweight", pre, sub ? "linear." : "");
		top_nd(g, n, 2, out, wide, 0, 0);
		snprintf(n, sizeof n, "%s%sbias", pre, sub ? "linear." : "");
		top_nd(g, n, 1, out, 0, 0, 0);
	} else if (ws_sw_has(&a->flags, WS_ARCH_PROJ_LINEAR)) {
		snprintf(n, sizeof n, "%s%s", pre,
			 !strcmp(p->type, "shuffle_linear") ? "modality_projection.proj.weight" : "linear_1.weight");
		top_nd(g, n, 2, out, wide, 0, 0);
	}
	if (ws_sw_has(&a->flags, WS_ARCH_PROJ_SHUFFLE_MLP)) {
		/* InternVL's mlp1: Sequential(LayerNorm, Linear, GELU, Linear);
		 * transformers' names its modules (a prefix of its own) */
		size_t pl = strlen(pre);
		bool seq = pl >= 5 && !strcmp(pre + pl - 5, "mlp1.");
		const char *nm[3] = {seq ? "0" : "layer_norm", seq ? "1" : "linear_1", seq ? "3" : "linear_2"};
		snprintf(n, sizeof n, "%s%s.weight", pre, nm[0]);
		top_nd(g, n, 1, wide, 0, 0, 0);
		if (a->norm == WS_NORM_LAYER) {
			snprintf(n, sizeof n, "%s%s.bias", pre, nm[0]);
			top_nd(g, n, 1, wide, 0, 0, 0);
		}
		snprintf(n, sizeof n, "%s%s.weight", pre, nm[1]);
		top_nd(g, n, 2, out, wide, 0, 0);
		snprintf(n, sizeof n, "%s%s.bias", pre, nm[1]);
		top_nd(g, n, 1, out, 0, 0, 0);
		snprintf(n, sizeof n, "%s%s.weight", pre, nm[2]);
		top_nd(g, n, 2, out, out, 0, 0);
		snprintf(n, sizeof n, "%s%s.bias", pre, nm[2]);
		top_nd(g, n, 1, out, 0, 0, 0);
	}
	if (ws_sw_has(&a->flags, WS_ARCH_PROJ_DEEPSTACK)) {
		for (uint64_t L = 0; L < a->num_layers; L++) {
			snprintf(n, sizeof n, "%s%" PRIu64 ".norm.weight", pre, L);
			top_nd(g, n, 1, wide, 0, 0, 0);
			snprintf(n, sizeof n, "%s%" PRIu64 ".norm.bias", pre, L);
			top_nd(g, n, 1, wide, 0, 0, 0);
			snprintf(n, sizeof n, "%s%" PRIu64 ".linear_fc1.weight", pre, L);
			top_nd(g, n, 2, wide, wide, 0, 0);
			snprintf(n, sizeof n, "%s%" PRIu64 ".linear_fc1.bias", pre, L);
			top_nd(g, n, 1, wide, 0, 0, 0);
			snprintf(n, sizeof n, "%s%" PRIu64 ".linear_fc2.weight", pre, L);
			top_nd(g, n, 2, out, wide, 0, 0);
			snprintf(n, sizeof n, "%s%" PRIu64 ".linear_fc2.bias", pre, L);
			top_nd(g, n, 1, out, 0, 0, 0);
		}
	}
	if (ws_sw_has(&a->flags, WS_ARCH_PROJ_MERGE_MLP) && !strcmp(p->type, "merger_v3")) {
		static const char *const nm[] = {"norm.weight", "norm.bias", "linear_fc1.weight", "linear_fc1.bias",
						 "linear_fc2.weight", "linear_fc2.bias"};
		const uint64_t sh[][2] = {{in, 0}, {in, 0}, {wide, wide}, {wide, 0}, {out, wide}, {out, 0}};
		for (size_t i = 0; i < 6; i++) {
			snprintf(n, sizeof n, "%s%s", pre, nm[i]);
			top_nd(g, n, sh[i][1] ? 2 : 1, sh[i][0], sh[i][1], 0, 0);
		}
	} else if (ws_sw_has(&a->flags, WS_ARCH_PROJ_MERGE_MLP)) {
		snprintf(n, sizeof n, "%sln_q.weight", pre);
		top_nd(g, n, 1, in, 0, 0, 0);
		if (a->norm == WS_NORM_LAYER) {
			snprintf(n, sizeof n, "%sln_q.bias", pre);
			top_nd(g, n, 1, in, 0, 0, 0);
		}
		snprintf(n, sizeof n, "%smlp.0.weight", pre);
		top_nd(g, n, 2, wide, wide, 0, 0);
		snprintf(n, sizeof n, "%smlp.0.bias", pre);
		top_nd(g, n, 1, wide, 0, 0, 0);
		snprintf(n, sizeof n, "%smlp.2.weight", pre);
		top_nd(g, n, 2, out, wide, 0, 0);
		snprintf(n, sizeof n, "%smlp.2.bias", pre);
		top_nd(g, n, 1, out, 0, 0, 0);
	} else if (ws_sw_has(&a->flags, WS_ARCH_PROJ_IN_NORM)) {
		snprintf(n, sizeof n, "%smm_soft_emb_norm.weight", pre);
		top_nd(g, n, 1, in, 0, 0, 0);
	}
}

/* Every component but the main one. */
static void
parts(gen *g)
{
	const cfg *c = g->c;
	for (size_t i = 1; c->parts_of && i < WS_CAT_MAX_PARTS && c->parts_of[i].kind; i++) {
		if (!c->part_arch[i].known)
			die("component %s has no formula to write it from", c->parts_of[i].name);
		if (c->parts_of[i].config)
			part_tower(g, &c->parts_of[i], &c->part_arch[i]);
		else
			projector(g, &c->parts_of[i], &c->part_arch[i]);
	}
}

/* ==== encoder-decoders ==== */

/* One stack of an encoder-decoder under `pre` as transformers saves it,
 * from the library's reading of the config: T5's names when the stack
 * has a relative bias (block.N.layer.K), else BART's and Whisper's
 * (layers.N.self_attn ...); `shared` names the token table the stacks
 * share (the decoder holds it), NULL when the stack has its own. */
static void
encdec_stack(gen *g, const char *pre, const struct ws_arch *a, bool decoder, const char *shared,
	     const char *head)
{
	uint64_t d = a->hidden_size, f = a->intermediate_size, hq = a->num_heads * a->head_dim;
	uint64_t hk = a->num_kv_heads * a->head_dim;
	bool t5 = ws_sw_has(&a->flags, WS_ARCH_REL_BIAS), gated = a->mlp == WS_MLP_GATED;
	bool bias = ws_sw_has(&a->flags, WS_ARCH_QKV_BIAS), kbias = bias && !ws_sw_has(&a->flags, WS_ARCH_NO_K_BIAS);
	bool nb = a->norm == WS_NORM_LAYER;
	char n[192];
#define T(nd, x, y, z, ...) (snprintf(n, sizeof n, __VA_ARGS__), top_nd(g, n, nd, x, y, z, 0))
	if (shared)
		T(2, a->vocab_size, d, 0, "%s", shared);
	else if (!ws_sw_has(&a->flags, WS_ARCH_NO_TOKENS))
		T(2, a->vocab_size, d, 0, "%sembed_tokens.weight", pre);
	if (ws_sw_has(&a->flags, WS_ARCH_CONV_STEM)) {
		T(3, d, a->num_channels, 3, "%sconv1.weight", pre);
		T(1, d, 0, 0, "%sconv1.bias", pre);
		T(3, d, d, 3, "%sconv2.weight", pre);
		T(1, d, 0, 0, "%sconv2.bias", pre);
	}
	if (ws_sw_has(&a->flags, WS_ARCH_POS_OFFSET))
		T(2, a->max_position_embeddings + 2, d, 0, "%sembed_positions.weight", pre);
	if (ws_sw_has(&a->flags, WS_ARCH_LEARNED_POS))
		T(2, a->max_position_embeddings, d, 0, "%sembed_positions.weight", pre);
	if (ws_sw_has(&a->flags, WS_ARCH_EMBED_NORM)) {
		T(1, d, 0, 0, "%slayernorm_embedding.weight", pre);
		T(1, d, 0, 0, "%slayernorm_embedding.bias", pre);
	}
	for (uint64_t L = 0; L < a->num_layers; L++) {
		if (g->plant == P_MISSING_TOWER_LAYER && L == 1 && !decoder)
			continue;
		if (t5 && g->gguf) {
			/* llama.cpp's names: enc.blk.N / dec.blk.N */
			static const char *const q4[] = {"q", "k", "v", "o"};
			const char *sp = decoder ? "dec." : "enc.";
			if (L == 0 || ws_sw_has(&a->flags, WS_ARCH_REL_BIAS_LAYERS))
				T(2, a->rel_rows, a->num_heads, 0, "%sblk.%" PRIu64 ".attn_rel_b.weight", sp, L);
			T(1, d, 0, 0, "%sblk.%" PRIu64 ".attn_norm.weight", sp, L);
			for (int i = 0; i < 4; i++)
				T(2, i == 3 ? d : i ? hk : hq, i == 3 ? hq : d, 0, "%sblk.%" PRIu64 ".attn_%s.weight", sp, L, q4[i]);
			if (decoder) {
				T(1, d, 0, 0, "%sblk.%" PRIu64 ".cross_attn_norm.weight", sp, L);
				for (int i = 0; i < 4; i++)
					T(2, i == 3 ? d : i ? hk : hq, i == 3 ? hq : d, 0, "%sblk.%" PRIu64 ".cross_attn_%s.weight",
					  sp, L, q4[i]);
				if (L == 0 && g->ignored)
					T(2, a->rel_rows, a->num_heads, 0, "%sblk.0.cross_attn_rel_b.weight", sp);
			}
			T(1, d, 0, 0, "%sblk.%" PRIu64 ".ffn_norm.weight", sp, L);
			if (gated)
				T(2, f, d, 0, "%sblk.%" PRIu64 ".ffn_gate.weight", sp, L);
			T(2, f, d, 0, "%sblk.%" PRIu64 ".ffn_up.weight", sp, L);
			T(2, d, f, 0, "%sblk.%" PRIu64 ".ffn_down.weight", sp, L);
			continue;
		}
		if (t5) {
			static const char *const qkvo[] = {"q", "k", "v", "o"};
			char b[96];
			snprintf(b, sizeof b, "%sblock.%" PRIu64 ".layer.", pre, L);
			if (L == 0 || ws_sw_has(&a->flags, WS_ARCH_REL_BIAS_LAYERS))
				T(2, a->rel_rows, a->num_heads, 0, "%s0.SelfAttention.relative_attention_bias.weight", b);
			for (int i = 0; i < 4; i++)
				T(2, i == 3 ? d : i ? hk : hq, i == 3 ? hq : d, 0, "%s0.SelfAttention.%s.weight", b, qkvo[i]);
			T(1, d, 0, 0, "%s0.layer_norm.weight", b);
			if (decoder) {
				for (int i = 0; i < 4; i++)
					T(2, i == 3 ? d : i ? hk : hq, i == 3 ? hq : d, 0, "%s1.EncDecAttention.%s.weight", b,
					  qkvo[i]);
				if (L == 0 && g->ignored)
					T(2, a->rel_rows, a->num_heads, 0, "%s1.EncDecAttention.relative_attention_bias.weight", b);
				T(1, d, 0, 0, "%s1.layer_norm.weight", b);
			}
			int k = decoder ? 2 : 1;
			if (gated) {
				T(2, f, d, 0, "%s%d.DenseReluDense.wi_0.weight", b, k);
				T(2, f, d, 0, "%s%d.DenseReluDense.wi_1.weight", b, k);
			} else {
				T(2, f, d, 0, "%s%d.DenseReluDense.wi.weight", b, k);
			}
			T(2, d, f, 0, "%s%d.DenseReluDense.wo.weight", b, k);
			T(1, d, 0, 0, "%s%d.layer_norm.weight", b, k);
			continue;
		}
		static const char *const att[] = {"self_attn", "encoder_attn"};
		static const char *const proj[] = {"q_proj", "k_proj", "v_proj", "out_proj"};
		for (int x = 0; x < 1 + decoder; x++) {
			for (int i = 0; i < 4; i++) {
				T(2, i == 3 ? d : i ? hk : hq, i == 3 ? hq : d, 0, "%slayers.%" PRIu64 ".%s.%s.weight", pre, L,
				  att[x], proj[i]);
				if (i == 1 ? kbias : bias)
					T(1, i == 3 ? d : i ? hk : hq, 0, 0, "%slayers.%" PRIu64 ".%s.%s.bias", pre, L, att[x],
					  proj[i]);
			}
			T(1, d, 0, 0, "%slayers.%" PRIu64 ".%s_layer_norm.weight", pre, L, att[x]);
			if (nb)
				T(1, d, 0, 0, "%slayers.%" PRIu64 ".%s_layer_norm.bias", pre, L, att[x]);
		}
		T(2, f, d, 0, "%slayers.%" PRIu64 ".fc1.weight", pre, L);
		T(1, f, 0, 0, "%slayers.%" PRIu64 ".fc1.bias", pre, L);
		T(2, d, f, 0, "%slayers.%" PRIu64 ".fc2.weight", pre, L);
		T(1, d, 0, 0, "%slayers.%" PRIu64 ".fc2.bias", pre, L);
		T(1, d, 0, 0, "%slayers.%" PRIu64 ".final_layer_norm.weight", pre, L);
		if (nb)
			T(1, d, 0, 0, "%slayers.%" PRIu64 ".final_layer_norm.bias", pre, L);
	}
	if (t5 && g->gguf) {
		T(1, d, 0, 0, "%soutput_norm.weight", decoder ? "dec." : "enc.");
		if (decoder && !a->no_head && !ws_sw_has(&a->flags, WS_ARCH_TIED))
			T(2, a->vocab_size, d, 0, "output.weight");
		return;
	}
	if (!ws_sw_has(&a->flags, WS_ARCH_NO_FINAL_NORM)) {
		T(1, d, 0, 0, "%s%s.weight", pre, t5 ? "final_layer_norm" : "layer_norm");
		if (nb)
			T(1, d, 0, 0, "%s%s.bias", pre, t5 ? "final_layer_norm" : "layer_norm");
	}
	if (decoder && !a->no_head && !ws_sw_has(&a->flags, WS_ARCH_TIED))
		T(2, a->vocab_size, d, 0, "%s", head);
	/* BART's, mBART's and Marian's ForConditionalGeneration keep a bias
	 * over the vocabulary as a buffer (Whisper's, keys without bias, not) */
	if (decoder && !a->no_head && !t5 && !ws_sw_has(&a->flags, WS_ARCH_NO_K_BIAS))
		T(2, 1, a->vocab_size, 0, "final_logits_bias");
#undef T
}

/* The decoder (the main part) and the encoder, each under its first
 * prefix; the table is the decoder's `shared` when the wrapper takes the
 * encoder's own away, and the head sits at the top (lm_head, Whisper's
 * proj_out). */
static void
encdec(gen *g)
{
	const cfg *c = g->c;
	if (c->alone) {
		/* its own table at the top (shared), its stack under its prefix */
		bool dec = ws_sw_has(&c->main_arch.flags, WS_ARCH_XATTN);
		encdec_stack(g, c->alone->prefixes[0], &c->main_arch, dec, g->gguf ? "token_embd.weight" : "shared.weight",
			     "lm_head.weight");
		return;
	}
	const struct ws_cat_part *dp = &c->parts_of[0], *ep = &c->parts_of[1];
	const struct ws_arch *enc = &c->part_arch[1];
	char shared[128], base[96];
	/* a base-model class (BartModel) saves its modules without the
	 * wrapper's model.: its second prefix when it has one */
	int k0 = c->main_arch.no_head && !g->gguf && dp->prefixes[1] && ep->prefixes[1] &&
		 !strncmp(dp->prefixes[0], "model.", 6) ? 1 : 0;
	const char *dpre = dp->prefixes[k0] ? dp->prefixes[k0] : "";
	const char *epre = ep->prefixes[k0];
	size_t n = strlen(dpre), k = strlen("decoder.");
	/* model.decoder. -> model. */
	snprintf(base, sizeof base, "%.*s", (int)(n >= k ? n - k : 0), dpre);
	snprintf(shared, sizeof shared, "%s%s", base, g->gguf ? "token_embd.weight" : "shared.weight");
	bool share = ws_sw_has(&ep->adds, WS_ARCH_NO_TOKENS);
	const char *head = ws_sw_has(&enc->flags, WS_ARCH_CONV_STEM) ? "proj_out.weight" : "lm_head.weight";
	encdec_stack(g, epre, enc, false, NULL, NULL);
	encdec_stack(g, dpre, &c->main_arch, true, share ? shared : NULL, head);
	/* the copies older writers store of the tied table, one per stack */
	for (int i = 0; share && g->tied_copies && i < 2; i++) {
		char n2[160];
		snprintf(n2, sizeof n2, "%sembed_tokens.weight", i ? dpre : epre);
		top_nd(g, n2, 2, c->main_arch.vocab_size, c->main_arch.hidden_size, 0, 0);
	}
}

/* ==== hybrid and state-space stacks ==== */

/* Where a stack type keeps its tensors (Hugging Face names); NULL: the
 * type has no such part. */
typedef struct stack_names {
	const char *type;
	const char *body;        /* the body's prefix: "backbone.", "model." */
	const char *embed, *final_norm;
	const char *norm, *ffn_norm;  /* a block's norms */
	const char *ssm;         /* the Mamba mixer's prefix */
	const char *attn, *lin;  /* attention's, Gated DeltaNet's */
	const char *ffn, *router;
	const char *mtp;         /* the MTP block's prefix (Qwen3-Next) */
	/* Granite's fused layout: the shared MLP's prefix (input_linear
	 * holds gate and up), the MoE's (router.layer, stacked experts) */
	const char *shared_fused, *moe_fused;
	const char *conv;        /* the short convolution's prefix (LFM2) */
	/* names other than llama's: attention's q, k, v, o and its q / k
	 * norms; the MLP's gate, up and down (NULL: llama's) */
	const char *const *attn_names, *const *ffn_names;
} stack_names;

static const char *const lfm2_attn[] = {"q_proj", "k_proj", "v_proj", "out_proj", "q_layernorm", "k_layernorm"};
static const char *const lfm2_ffn[] = {"w1", "w3", "w2"};

static const stack_names stacks[] = {
	{"mamba", "backbone.", "embeddings", "norm_f", "norm", NULL, "mixer.", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
	{"falcon_mamba", "backbone.", "embeddings", "norm_f", "norm", NULL, "mixer.", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
	{"mamba2", "backbone.", "embeddings", "norm_f", "norm", NULL, "mixer.", NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL},
	{"nemotron_h", "backbone.", "embeddings", "norm_f", "norm", NULL, "mixer.", "mixer.", NULL, "mixer.", "gate", NULL, NULL, NULL, NULL, NULL, NULL},
	{"jamba", "model.", "embed_tokens", "final_layernorm", "input_layernorm", "pre_ff_layernorm", "mamba.",
	 "self_attn.", NULL, "feed_forward.", "router", NULL, NULL, NULL, NULL, NULL, NULL},
	{"falcon_h1", "model.", "embed_tokens", "final_layernorm", "input_layernorm", "pre_ff_layernorm", "mamba.",
	 "self_attn.", NULL, "feed_forward.", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
	{"granitemoehybrid", "model.", "embed_tokens", "norm", "input_layernorm", "post_attention_layernorm", "mamba.",
	 "self_attn.", NULL, NULL, NULL, NULL, "shared_mlp.", "block_sparse_moe.", NULL, NULL, NULL},
	{"qwen3_next", "model.", "embed_tokens", "norm", "input_layernorm", "post_attention_layernorm", NULL,
	 "self_attn.", "linear_attn.", "mlp.", "gate", "mtp.", NULL, NULL, NULL, NULL, NULL},
	{"lfm2", "model.", "embed_tokens", "embedding_norm", "operator_norm", "ffn_norm", NULL,
	 "self_attn.", NULL, "feed_forward.", NULL, NULL, NULL, NULL, "conv.", lfm2_attn, lfm2_ffn},
	{"mllama_text_model", "language_model.model.", "embed_tokens", "norm", "input_layernorm",
	 "post_attention_layernorm", NULL, "self_attn.", NULL, "mlp.", NULL, NULL, NULL, NULL, NULL, NULL, NULL},
};

/* A tensor of block L: named pre + name in Hugging Face's layout, gg
 * (llama.cpp's name) in GGUF's; of rank nd, or gnd in GGUF, where the
 * converter squeezes or reshapes it (shape gs) */
static void
sblk(gen *g, uint64_t L, const char *pre, const char *name, const char *gg, int nd, uint64_t a, uint64_t b,
     uint64_t c3)
{
	char hf[96];
	uint64_t s[3] = {a, b, c3};
	snprintf(hf, sizeof hf, "%s%s", pre ? pre : "", name);
	blk_nd(g, L, hf, gg, nd, s);
}

static void
sblk_g(gen *g, uint64_t L, const char *pre, const char *name, const char *gg, int nd, uint64_t a, uint64_t b,
       uint64_t c3, int gnd, uint64_t ga, uint64_t gb)
{
	if (g->gguf)
		sblk(g, L, pre, name, gg, gnd, ga, gb, 0);
	else
		sblk(g, L, pre, name, gg, nd, a, b, c3);
}

/* Is layer L the one the missing-ssm defect takes a tensor from (the
 * first recurrent layer after layer 0)? */
static bool
ssm_dropped(const gen *g, uint64_t L)
{
	if (g->plant != P_MISSING_SSM)
		return false;
	for (uint64_t i = 1; i < g->c->layers; i++) {
		enum ws_mixer m = WS_BK_MIX(g->c->blocks[i]);
		if (m == WS_MIX_MAMBA || m == WS_MIX_MAMBA2 || m == WS_MIX_LINEAR || m == WS_MIX_PARALLEL || m == WS_MIX_CONV)
			return i == L;
	}
	return false;
}

/* Mamba: in_proj to x and z, conv, x_proj to dt, B, C, dt_proj; the
 * converter squeezes the conv to [inner, kernel] and writes A as A */
static void
mamba_mixer(gen *g, uint64_t L, const char *p)
{
	const cfg *c = g->c;
	const ws_switches *f = &c->aflags;
	uint64_t i = c->ssm_inner, n = c->ssm_state, r = c->ssm_rank, d = c->hidden;
	if (!ssm_dropped(g, L))
		sblk(g, L, p, "in_proj.weight", "ssm_in.weight", 2, 2 * i, d, 0);
	if (ws_sw_has(f, WS_ARCH_SSM_BIAS))
		sblk(g, L, p, "in_proj.bias", "ssm_in.bias", 1, 2 * i, 0, 0);
	sblk_g(g, L, p, "conv1d.weight", "ssm_conv1d.weight", 3, i, 1, c->ssm_conv, 2, i, c->ssm_conv);
	if (ws_sw_has(f, WS_ARCH_SSM_CONV_BIAS))
		sblk(g, L, p, "conv1d.bias", "ssm_conv1d.bias", 1, i, 0, 0);
	sblk(g, L, p, "x_proj.weight", "ssm_x.weight", 2, r + 2 * n, i, 0);
	sblk(g, L, p, "dt_proj.weight", "ssm_dt.weight", 2, i, r, 0);
	sblk(g, L, p, "dt_proj.bias", "ssm_dt.bias", 1, i, 0, 0);
	sblk(g, L, p, "A_log", "ssm_a", 2, i, n, 0);
	sblk(g, L, p, "D", "ssm_d", 1, i, 0, 0);
	if (ws_sw_has(f, WS_ARCH_SSM_DT_NORMS)) {
		sblk(g, L, p, "dt_layernorm.weight", "ssm_dt_norm.weight", 1, r, 0, 0);
		sblk(g, L, p, "b_layernorm.weight", "ssm_b_norm.weight", 1, n, 0, 0);
		sblk(g, L, p, "c_layernorm.weight", "ssm_c_norm.weight", 1, n, 0, 0);
	}
	sblk(g, L, p, "out_proj.weight", "ssm_out.weight", 2, d, i, 0);
	if (ws_sw_has(f, WS_ARCH_SSM_BIAS))
		sblk(g, L, p, "out_proj.bias", "ssm_out.bias", 1, d, 0, 0);
}

/* Mamba-2: in_proj to z, x, B, C and dt; conv over x, B, C; a gated
 * norm (the converter: A and D as [heads, 1], the norm per group) */
static void
mamba2_mixer(gen *g, uint64_t L, const char *p)
{
	const cfg *c = g->c;
	const ws_switches *f = &c->aflags;
	uint64_t i = c->ssm_inner, h = c->ssm_heads, d = c->hidden, gr = c->ssm_groups ? c->ssm_groups : 1;
	uint64_t conv = i + 2 * c->ssm_groups * c->ssm_state;
	if (!ssm_dropped(g, L))
		sblk(g, L, p, "in_proj.weight", "ssm_in.weight", 2, i + conv + h, d, 0);
	if (ws_sw_has(f, WS_ARCH_SSM_BIAS) || ws_sw_has(f, WS_ARCH_SSM_IN_BIAS))
		sblk(g, L, p, "in_proj.bias", "ssm_in.bias", 1, i + conv + h, 0, 0);
	sblk_g(g, L, p, "conv1d.weight", "ssm_conv1d.weight", 3, conv, 1, c->ssm_conv, 2, conv, c->ssm_conv);
	if (ws_sw_has(f, WS_ARCH_SSM_CONV_BIAS))
		sblk(g, L, p, "conv1d.bias", "ssm_conv1d.bias", 1, conv, 0, 0);
	sblk(g, L, p, "dt_bias", "ssm_dt.bias", 1, h, 0, 0);
	sblk_g(g, L, p, "A_log", "ssm_a", 1, h, 0, 0, 2, h, 1);
	sblk_g(g, L, p, "D", "ssm_d", 1, h, 0, 0, 2, h, 1);
	if (!ws_sw_has(f, WS_ARCH_SSM_NO_NORM))
		sblk_g(g, L, p, "norm.weight", "ssm_norm.weight", 1, i, 0, 0, 2, gr, i / gr);
	sblk(g, L, p, "out_proj.weight", "ssm_out.weight", 2, d, i, 0);
	if (ws_sw_has(f, WS_ARCH_SSM_BIAS) || ws_sw_has(f, WS_ARCH_SSM_OUT_BIAS))
		sblk(g, L, p, "out_proj.bias", "ssm_out.bias", 1, d, 0, 0);
}

/* Gated DeltaNet: q, k, v, z; beta and a; conv over q, k, v (the
 * converter: qkv and z apart, as attn_qkv and attn_gate) */
static void
gdn_mixer(gen *g, uint64_t L, const char *p)
{
	const cfg *c = g->c;
	uint64_t k = c->lin_kh * c->lin_kd, v = c->lin_vh * c->lin_vd, d = c->hidden;
	if (g->gguf) {
		if (!ssm_dropped(g, L))
			sblk(g, L, NULL, "", "attn_qkv.weight", 2, 2 * k + v, d, 0);
		sblk(g, L, NULL, "", "attn_gate.weight", 2, v, d, 0);
	} else if (!ssm_dropped(g, L)) {
		sblk(g, L, p, "in_proj_qkvz.weight", NULL, 2, 2 * k + 2 * v, d, 0);
	}
	sblk(g, L, p, "in_proj_ba.weight", "ssm_ba.weight", 2, 2 * c->lin_vh, d, 0);
	sblk_g(g, L, p, "conv1d.weight", "ssm_conv1d.weight", 3, 2 * k + v, 1, c->ssm_conv, 2, 2 * k + v, c->ssm_conv);
	sblk(g, L, p, "dt_bias", "ssm_dt.bias", 1, c->lin_vh, 0, 0);
	sblk(g, L, p, "A_log", "ssm_a", 1, c->lin_vh, 0, 0);
	sblk(g, L, p, "norm.weight", "ssm_norm.weight", 1, c->lin_vd, 0, 0);
	sblk(g, L, p, "out_proj.weight", "ssm_out.weight", 2, d, v, 0);
}

/* LFM2's gated short convolution: in_proj to B, C, x; a depthwise conv */
static void
sconv_mixer(gen *g, uint64_t L, const char *p)
{
	const cfg *c = g->c;
	bool bias = ws_sw_has(&c->aflags, WS_ARCH_SSM_BIAS);
	uint64_t d = c->hidden;
	if (!ssm_dropped(g, L))
		sblk(g, L, p, "in_proj.weight", "shortconv.in_proj.weight", 2, 3 * d, d, 0);
	if (bias)
		sblk(g, L, p, "in_proj.bias", "shortconv.in_proj.bias", 1, 3 * d, 0, 0);
	sblk_g(g, L, p, "conv.weight", "shortconv.conv.weight", 3, d, 1, c->ssm_conv, 2, d, c->ssm_conv);
	if (ws_sw_has(&c->aflags, WS_ARCH_SSM_CONV_BIAS))
		sblk(g, L, p, "conv.bias", "shortconv.conv.bias", 1, d, 0, 0);
	sblk(g, L, p, "out_proj.weight", "shortconv.out_proj.weight", 2, d, d, 0);
	if (bias)
		sblk(g, L, p, "out_proj.bias", "shortconv.out_proj.bias", 1, d, 0, 0);
}

static void
stack_attention(gen *g, uint64_t L, const char *p)
{
	const cfg *c = g->c;
	const ws_switches *f = &c->aflags;
	uint64_t q = c->heads * c->head_dim, kv = c->kv_heads * c->head_dim, d = c->hidden;
	static const char *const llama[] = {"q_proj", "k_proj", "v_proj", "o_proj", "q_norm", "k_norm"};
	static const char *const gg[] = {"attn_q.weight", "attn_k.weight", "attn_v.weight", "attn_output.weight",
					 "attn_q_norm.weight", "attn_k_norm.weight"};
	const char *const *nm = c->sn->attn_names ? c->sn->attn_names : llama;
	char n[6][40];
	for (int i = 0; i < 6; i++)
		snprintf(n[i], sizeof n[i], "%s.weight", nm[i]);
	/* an output gate doubles q_proj */
	sblk(g, L, p, n[0], gg[0], 2, ws_sw_has(f, WS_ARCH_ATTN_GATE) ? 2 * q : q, d, 0);
	sblk(g, L, p, n[1], gg[1], 2, kv, d, 0);
	sblk(g, L, p, n[2], gg[2], 2, kv, d, 0);
	sblk(g, L, p, n[3], gg[3], 2, d, q, 0);
	if (ws_sw_has(f, WS_ARCH_QK_NORM_HEAD)) {
		sblk(g, L, p, n[4], gg[4], 1, c->head_dim, 0, 0);
		sblk(g, L, p, n[5], gg[5], 1, c->head_dim, 0, 0);
	}
}

static void
stack_ffn(gen *g, uint64_t L, enum ws_ffn_kind k)
{
	const cfg *c = g->c;
	const stack_names *sn = c->sn;
	uint64_t d = c->hidden, f = c->dense_inter;
	char pre[64], post[64];
	if (sn->shared_fused && !g->gguf) {
		/* the shared MLP in every block, fused experts beside it */
		snprintf(pre, sizeof pre, "%sinput_linear.weight", sn->shared_fused);
		blk(g, L, pre, NULL, 2 * f, d);
		snprintf(pre, sizeof pre, "%soutput_linear.weight", sn->shared_fused);
		blk(g, L, pre, NULL, d, f);
		if (k != WS_FFN_MOE)
			return;
		snprintf(pre, sizeof pre, "%srouter.layer.weight", sn->moe_fused);
		blk(g, L, pre, NULL, c->experts, d);
		snprintf(pre, sizeof pre, "%sinput_linear.weight", sn->moe_fused);
		stacked(g, L, pre, NULL, 2 * c->moe_inter, d);
		snprintf(pre, sizeof pre, "%soutput_linear.weight", sn->moe_fused);
		stacked(g, L, pre, NULL, d, c->moe_inter);
		return;
	}
	if (sn->shared_fused && k == WS_FFN_MOE) {
		/* the converter: the shared MLP as shared experts, gate and up apart */
		blk(g, L, NULL, "ffn_gate_shexp.weight", f, d);
		blk(g, L, NULL, "ffn_up_shexp.weight", f, d);
		blk(g, L, NULL, "ffn_down_shexp.weight", d, f);
		blk(g, L, NULL, "ffn_gate_inp.weight", c->experts, d);
		stacked(g, L, NULL, "ffn_gate_exps.weight", c->moe_inter, d);
		stacked(g, L, NULL, "ffn_up_exps.weight", c->moe_inter, d);
		stacked(g, L, NULL, "ffn_down_exps.weight", d, c->moe_inter);
		return;
	}
	if (k == WS_FFN_DENSE && c->plain_mlp) {
		snprintf(pre, sizeof pre, "%sup_proj.weight", sn->ffn);
		blk(g, L, pre, "ffn_up.weight", f, d);
		snprintf(pre, sizeof pre, "%sdown_proj.weight", sn->ffn);
		blk(g, L, pre, "ffn_down.weight", d, f);
		return;
	}
	if (k == WS_FFN_DENSE && sn->ffn_names) {
		static const char *const gg[] = {"ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"};
		for (int i = 0; i < 3; i++) {
			snprintf(pre, sizeof pre, "%s%s.weight", sn->ffn, sn->ffn_names[i]);
			blk(g, L, pre, gg[i], i < 2 ? f : d, i < 2 ? d : f);
		}
		return;
	}
	if (k == WS_FFN_DENSE) {
		gated_mlp(g, L, f, sn->ffn ? sn->ffn : "", "");
		return;
	}
	snprintf(pre, sizeof pre, "%s%s.weight", sn->ffn, sn->router);
	blk(g, L, pre, "ffn_gate_inp.weight", c->experts, d);
	if (ws_sw_has(&c->aflags, WS_ARCH_ROUTER_SCORE_BIAS)) {
		snprintf(pre, sizeof pre, "%s%s.e_score_correction_bias", sn->ffn, sn->router);
		blk(g, L, pre, "exp_probs_b.bias", c->experts, 0);
	}
	snprintf(pre, sizeof pre, "%sexperts.", sn->ffn);
	if (!c->plain_mlp)
		experts(g, L, pre, "gate_proj.weight", "ffn_gate_exps.weight", c->moe_inter, d);
	experts(g, L, pre, "up_proj.weight", "ffn_up_exps.weight", c->moe_inter, d);
	experts(g, L, pre, "down_proj.weight", "ffn_down_exps.weight", d, c->moe_inter);
	if (c->shared_n && c->plain_mlp) {
		/* squared-ReLU shared experts (Nemotron-H): up and down */
		snprintf(post, sizeof post, "%sshared_experts.up_proj.weight", sn->ffn);
		blk(g, L, post, "ffn_up_shexp.weight", c->shared_inter * c->shared_n, d);
		snprintf(post, sizeof post, "%sshared_experts.down_proj.weight", sn->ffn);
		blk(g, L, post, "ffn_down_shexp.weight", d, c->shared_inter * c->shared_n);
	} else if (c->shared_n) {
		snprintf(post, sizeof post, "%sshared_expert.", sn->ffn);
		gated_mlp(g, L, c->shared_inter * c->shared_n, post, "_shexp");
		if (ws_sw_has(&c->aflags, WS_ARCH_SHARED_GATE)) {
			snprintf(post, sizeof post, "%sshared_expert_gate.weight", sn->ffn);
			blk(g, L, post, "ffn_gate_inp_shexp.weight", 1, d);
		}
	}
}

static void
stack_block(gen *g, uint64_t L, int kind)
{
	const cfg *c = g->c;
	const stack_names *sn = c->sn;
	char n[80];
	snprintf(n, sizeof n, "%s.weight", sn->norm);
	blk(g, L, n, "attn_norm.weight", c->hidden, 0);
	switch (WS_BK_MIX(kind)) {
	case WS_MIX_ATTN: stack_attention(g, L, sn->attn); break;
	case WS_MIX_MAMBA: mamba_mixer(g, L, sn->ssm); break;
	case WS_MIX_MAMBA2: mamba2_mixer(g, L, sn->ssm); break;
	case WS_MIX_PARALLEL:
		stack_attention(g, L, sn->attn);
		mamba2_mixer(g, L, sn->ssm);
		break;
	case WS_MIX_LINEAR: gdn_mixer(g, L, sn->lin); break;
	case WS_MIX_CONV: sconv_mixer(g, L, sn->conv); break;
	case WS_MIX_NONE: break;
	case WS_MIX_XATTN:
		/* Mllama's: cross_attn.* and a gate on attention and the MLP */
		stack_attention(g, L, "cross_attn.");
		sblk(g, L, "cross_attn.", "q_norm.weight", NULL, 1, c->head_dim, 0, 0);
		sblk(g, L, "cross_attn.", "k_norm.weight", NULL, 1, c->head_dim, 0, 0);
		blk(g, L, "cross_attn_attn_gate", NULL, 1, 0);
		blk(g, L, "cross_attn_mlp_gate", NULL, 1, 0);
		break;
	default: die("layer %" PRIu64 ": a mixer mkmodel does not write", L);
	}
	if (WS_BK_FFN(kind) == WS_FFN_NONE)
		return;
	if (sn->ffn_norm) {  /* else one norm per layer (Nemotron-H) */
		snprintf(n, sizeof n, "%s.weight", sn->ffn_norm);
		blk(g, L, n, "ffn_norm.weight", c->hidden, 0);
	}
	stack_ffn(g, L, WS_BK_FFN(kind));
}

static void
build_stack(gen *g)
{
	const cfg *c = g->c;
	const stack_names *sn = c->sn;
	static char blocks[64];  /* g->hf_block outlives this call */
	char name[96];
	snprintf(blocks, sizeof blocks, "%slayers.", sn->body);
	g->hf_block = blocks;
	snprintf(name, sizeof name, "%s%s.weight", sn->body, sn->embed);
	top(g, name, "token_embd.weight", c->vocab + c->extra_rows, c->hidden);
	for (uint64_t L = 0; L < c->layers; L++)
		stack_block(g, L, c->blocks[L]);
	snprintf(name, sizeof name, "%s%s.weight", sn->body, sn->final_norm);
	/* LFM2's final norm: token_embd_norm in llama.cpp's names */
	top(g, name, sn->conv ? "token_embd_norm.weight" : "output_norm.weight", c->hidden, 0);
	if (sn->mtp && c->nextn && !g->gguf) {
		/* the embedding and the hidden state normed and joined, one
		 * attention block, a norm (the converter drops them) */
		snprintf(name, sizeof name, "%sfc.weight", sn->mtp);
		top(g, name, NULL, c->hidden, 2 * c->hidden);
		snprintf(name, sizeof name, "%spre_fc_norm_embedding.weight", sn->mtp);
		top(g, name, NULL, c->hidden, 0);
		snprintf(name, sizeof name, "%spre_fc_norm_hidden.weight", sn->mtp);
		top(g, name, NULL, c->hidden, 0);
		snprintf(blocks, sizeof blocks, "%slayers.", sn->mtp);
		for (uint64_t k = 0; k < c->nextn; k++)
			stack_block(g, k, WS_BK(WS_MIX_ATTN, c->experts ? WS_FFN_MOE : WS_FFN_DENSE));
		snprintf(name, sizeof name, "%snorm.weight", sn->mtp);
		top(g, name, NULL, c->hidden, 0);
	}
	if (!c->tied && !c->no_head)
		top(g, c->head, "output.weight", c->vocab, c->hidden);
	parts(g);
}

static void
build(gen *g)
{
	const cfg *c = g->c;
	if (c->encdec) {
		encdec(g);
		return;
	}
	if (c->towers_only) {
		/* a dual encoder's text tower, or a tower alone */
		tower(g, ws_sw_has(&c->main_arch.flags, WS_ARCH_PATCHES) ? "vision_model." : "text_model.",
		      &c->main_arch);
		parts(g);
		return;
	}
	if (c->enc) {
		if (g->gguf)
			build_encoder_gguf(g);
		else if (c->eb == EB_MODERNBERT)
			build_modernbert(g);
		else if (c->eb == EB_NOMIC)
			build_nomic(g);
		else
			build_encoder(g);
		return;
	}
	if (c->sn) {
		build_stack(g);
		return;
	}
	bool gpt2 = c->fam->block == BK_GPT2;
	bool ds = c->fam->block == BK_MLA, cat = c->fam == &catalogue_family;
	bool falcon = c->fam->block == BK_FALCON;
	/* a base-model class saves its own names, without the "model." of
	 * the head classes */
	char base_block[64], emb[80], fnorm[80];
	snprintf(base_block, sizeof base_block, "%slayers.", c->base);
	snprintf(emb, sizeof emb, "%s%s.weight", c->base, has(c, F_INTERNLM2) ? "tok_embeddings" : "embed_tokens");
	snprintf(fnorm, sizeof fnorm, "%snorm.weight", c->base);
	g->hf_block = gpt2 ? "h." : falcon ? "transformer.h." : base_block;
	if (falcon) {
		top(g, "transformer.word_embeddings.weight", "token_embd.weight", c->vocab, c->hidden);
	} else if (gpt2) {
		top(g, "wte.weight", NULL, c->vocab, c->hidden);
		top(g, "wpe.weight", NULL, c->positions, c->hidden);
	} else {
		top(g, emb, "token_embd.weight", c->vocab, c->hidden);
	}
	size_t embed = g->n - (gpt2 ? 2 : 1);
	for (uint64_t L = 0; L < c->layers; L++) {
		if (gpt2)
			gpt2_block(g, L);
		else if (ds)
			deepseek_block(g, L);
		else if (cat)
			catalogue_block(g, L);
		else if (falcon)
			falcon_block(g, L);
		else
			llama_block(g, L);
	}
	if ((ds || cat) && (!g->gguf || g->gguf_mtp))
		for (uint64_t k = 0; k < c->nextn; k++)
			mtp_block(g, c->layers + k);
	if (falcon) {
		top(g, "transformer.ln_f.weight", "output_norm.weight", c->hidden, 0);
		top(g, "transformer.ln_f.bias", "output_norm.bias", c->hidden, 0);
	} else if (gpt2) {
		top(g, "ln_f.weight", NULL, c->hidden, 0);
		top(g, "ln_f.bias", NULL, c->hidden, 0);
	} else {
		top(g, fnorm, "output_norm.weight", c->hidden, 0);
		if (has(c, F_NORM_BIAS))
			top(g, "model.norm.bias", "output_norm.bias", c->hidden, 0);
	}
	if (!g->gguf)
		parts(g);
	bool head = (!c->tied && !c->no_head) || g->plant == P_UNTIED_TRAINED ||
		    g->plant == P_TIED_IDENTICAL;
	if (head)
		top(g, c->head, "output.weight", c->vocab, c->hidden);
	if (head && c->head_bias)
		top(g, strncmp(c->head, "language_model.", 15) ? "lm_head.bias" : "language_model.lm_head.bias",
		    "output.bias", c->vocab, 0);
	if (g->plant == P_UNTIED_TRAINED || g->plant == P_TIED_IDENTICAL) {
		g->v[embed].fill = 1;
		g->v[g->n - 1].fill = g->plant == P_UNTIED_TRAINED ? 2 : 1;
	}
}

/* ==== config.json ==== */

static uint64_t
num(const cJSON *j, const char *key, uint64_t dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	/* below 2^53: Infinity (Python's json writes it) is no count */
	bool ok = cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 0x1p53;
	return ok ? (uint64_t)v->valuedouble : dflt;
}

static bool
boolean(const cJSON *j, const char *key, bool dflt)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(j, key);
	return cJSON_IsBool(v) ? cJSON_IsTrue(v) : dflt;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		die("open %s: %s", path, strerror(errno));
	buf b = {0};
	char tmp[65536];
	size_t n;
	while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
		put(&b, tmp, n);
	fclose(f);
	*len = b.n;
	if (!b.p)
		put(&b, "", 0);
	return (char *)b.p;
}

/* MoE block spacing: the key and the offset its modelling code adds. */
static const struct {
	const char *key;
	uint64_t offset;
} step_keys[] = {
	{"moe_layer_freq", 0}, {"decoder_sparse_step", 1}, {"interleave_moe_layer_step", 1},
};

/* The sizes of a catalogue family, as the library read them. */
static void
from_catalogue(cfg *c, const struct ws_arch *a)
{
	c->fam = &catalogue_family;
	c->aflags = a->flags;
	c->vocab = a->vocab_size;
	c->hidden = a->hidden_size;
	c->layers = a->num_layers;
	c->heads = a->num_heads;
	c->kv_heads = a->num_kv_heads;
	c->head_dim = a->head_dim;
	c->inter = c->dense_inter = a->intermediate_size;
	c->tied = ws_sw_has(&a->flags, WS_ARCH_TIED);
	c->experts = a->num_experts;
	c->topk = a->experts_per_tok;
	c->moe_inter = a->moe_intermediate_size;
	c->shared_n = a->shared_experts;
	c->shared_inter = a->shared_intermediate_size;
	c->first_dense = a->first_k_dense;
	c->plain_mlp = a->mlp == WS_MLP_PLAIN;
	c->fused_mlp = a->mlp == WS_MLP_GATED_FUSED;
	const struct ws_cat_entry *e = ws_cat_by_model_type(c->type);
	c->gguf = e ? (a->num_experts && e->gguf_moe ? e->gguf_moe : e->gguf) : NULL;
	c->moe_step = a->moe_step ? a->moe_step : 1;
	c->step_offset = a->moe_step_offset;
	c->nextn = a->num_nextn_predict_layers;
	for (uint32_t i = 0; i < a->n_mlp_only_layers && c->n_mlp_only < MAX_MLP_ONLY; i++)
		c->mlp_only[c->n_mlp_only++] = a->mlp_only_layers[i];
}

/* --class NAME: the layout of another class of the config's type */
static const char *class_override;

/* An encoder's sizes as the library read them, and the class whose
 * layout is written. */
static void
from_encoder(cfg *c, const struct ws_arch *a, const struct ws_cat_entry *e)
{
	static const encoder own = {"", "", "", {NULL}, {NULL}, false, {NULL}, {NULL}, {NULL}, false, false};
	c->enc = NULL;
	c->eb = !strcmp(a->architecture, "modernbert") ? EB_MODERNBERT
	      : !strcmp(a->architecture, "nomic_bert") ? EB_NOMIC : EB_TABLE;
	for (size_t i = 0; i < sizeof encoders / sizeof encoders[0]; i++)
		if (!strcmp(encoders[i].type, a->architecture))
			c->enc = &encoders[i];
	if (!c->enc && c->eb == EB_TABLE && e->gguf)
		c->eb = EB_GGUF_ONLY;  /* a type llama.cpp names (jina-bert-v2) */
	if (c->eb != EB_TABLE)
		c->enc = &own;   /* a builder of its own */
	if (!c->enc)
		die("model_type '%s': no encoder layout", a->architecture);
	from_catalogue(c, a);
	c->positions = a->max_position_embeddings;
	c->type_vocab = a->type_vocab_size;
	c->labels = a->num_labels ? a->num_labels : 2;
	c->embed = a->embedding_size ? a->embedding_size : a->hidden_size;
	c->v_channels = a->num_channels;
	c->pooler_out = a->pooler_output_size ? a->pooler_output_size : a->hidden_size;
	c->v_image = a->image_size;
	c->v_patch = a->patch_size;
	c->rel_rows = a->rel_rows;
	c->registers = a->num_registers;
	const char *name = class_override ? class_override : a->cls;
	const struct ws_cat_class *k = NULL;
	if (ws_cat_by_class(name, &k) != e)
		die("class '%s' is not one of model_type '%s'", name, a->architecture);
	snprintf(c->enc_suffix, sizeof c->enc_suffix, "%s", k->suffix);
	c->parts = k->parts;
}

static void
read_cfg(const char *path, cfg *c, const char **raw, size_t *raw_len)
{
	char *s = slurp(path, raw_len);
	*raw = s;
	cJSON *j = ws_json_parse_py(s, *raw_len, NULL); /* as Python writes it */
	if (!j)
		die("%s: invalid JSON", path);
	/* the text model's sub-config: its wrapper's (InternVL's
	 * llm_config), else text_config */
	const struct ws_cat_part *mp = ws_arch_config_parts(j);
	const char *tkey = mp && mp[0].config && mp[0].config[0] ? mp[0].config : "text_config";
	const cJSON *tc = cJSON_GetObjectItemCaseSensitive(j, tkey);
	const cJSON *r = cJSON_IsObject(tc) ? tc : j;
	/* The library reads the config as the report will: class defaults,
	 * the class's head, model_type from architectures. */
	struct ws_arch a;
	ws_error err = {0};
	if (ws_arch_from_config(j, path, &a, &err) < 0)
		die("%s", err.message);
	snprintf(c->type, sizeof c->type, "%s", a.architecture);
	c->no_head = a.no_head;
	/* a multimodal wrapper keeps the text model under language_model.
	 * (Idefics3 under model.text_model.) */
	const cJSON *wmt = cJSON_GetObjectItemCaseSensitive(j, "model_type");
	bool idefics = cJSON_IsString(wmt) && !strcmp(wmt->valuestring, "idefics3");
	/* a wrapper's other components, read by the library's rules */
	c->parts_of = ws_arch_config_parts(j);
	/* the text model nested as its towers are (transformers >= 4.52:
	 * model.language_model.; a wrapper that only ever saved that layout
	 * has its tower's first prefix under model.), else beside them:
	 * under model. when the config is the text model's own (no
	 * text_config), language_model. (its own class's model.) when it
	 * has one */
	bool wrapper = c->parts_of && c->parts_of[0].kind && c->parts_of[1].kind && c->parts_of[1].config &&
		     c->parts_of[1].config[0];
	bool nested = wrapper && (layout == LAYOUT_FIRST ? nested_prefix(c->parts_of[1].prefixes[0])
						     : layout == LAYOUT_NEW);
	c->base = a.no_head ? "" : idefics ? "model.text_model." : nested ? "model.language_model."
		: r != j ? "language_model.model." : "model.";
	c->head = "lm_head.weight";
	/* a text model of another sub-config (InternVL's llm_config): its
	 * whole CausalLM under language_model., the head too */
	if (r != j && strcmp(tkey, "text_config")) {
		c->base = "language_model.model.";
		c->head = "language_model.lm_head.weight";
	}
	/* an audio wrapper (Qwen2-Audio, Voxtral) keeps its whole CausalLM
	 * under language_model., the head too */
	for (size_t i = 1; r != j && layout != LAYOUT_NEW && c->parts_of && i < WS_CAT_MAX_PARTS && c->parts_of[i].kind;
	     i++)
		if (!strcmp(c->parts_of[i].kind, "audio")) {
			c->base = "language_model.model.";
			c->head = "language_model.lm_head.weight";
		}
	/* --layout old: the head in the language model's own class too (a
	 * wrapper that only ever saved the newer layout is nested above) */
	if (layout == LAYOUT_OLD && !strncmp(c->base, "language_model.", 15))
		c->head = "language_model.lm_head.weight";
	size_t tower = 0;  /* the last tower: what a projector joins */
	for (size_t i = 1; c->parts_of && i < WS_CAT_MAX_PARTS && c->parts_of[i].kind; i++) {
		const struct ws_cat_part *p = &c->parts_of[i];
		if ((p->config ? ws_arch_from_part(j, path, p, &c->part_arch[i], &err)
			       : ws_arch_projector(p, &a, &c->part_arch[tower], j, &c->part_arch[i], &err)) < 0)
			die("%s", err.message);
		if (p->config)
			tower = i;
	}
	/* one stack of an encoder-decoder alone: the config's model_type
	 * names the wrapper, its class the stack's type */
	const cJSON *mt0 = cJSON_GetObjectItemCaseSensitive(j, "model_type");
	const struct ws_cat_entry *w0 = cJSON_IsString(mt0) ? ws_cat_by_model_type(mt0->valuestring) : NULL;
	for (size_t i = 0; a.known && w0 && w0->parts && i < WS_CAT_MAX_PARTS && w0->parts[i].kind; i++)
		if (w0->parts[i].config && !w0->parts[i].config[0] && !strcmp(w0->parts[i].type, a.architecture) &&
		    c->parts_of == &w0->parts[i] && !c->parts_of[1].kind)
			c->alone = &w0->parts[i];
	if (c->alone) {
		const struct ws_cat_entry *se = ws_cat_by_model_type(a.architecture);
		c->encdec = true;
		c->main_arch = a;
		c->fam = &catalogue_family;
		c->layers = a.num_layers;
		c->gguf = se ? se->gguf : NULL;
		c->hidden = a.hidden_size;
		c->dense_inter = a.intermediate_size;
		c->heads = a.num_heads;
		c->kv_heads = a.num_kv_heads;
		c->head_dim = a.head_dim;
		c->vocab = a.vocab_size;
		c->positions = a.max_position_embeddings;
		c->rel_rows = a.rel_rows;
		cJSON_Delete(j);
		return;
	}
	/* an encoder-decoder: its stacks read the wrapper's own config */
	if (a.known && c->parts_of && c->parts_of[0].config && !c->parts_of[0].config[0] &&
	    c->parts_of[1].kind) {
		if (!c->part_arch[1].known)
			die("%s: the encoder has no formula to write it from", path);
		c->encdec = true;
		c->main_arch = a;
		c->fam = &catalogue_family;
		c->layers = a.num_layers;
		/* GGUF: the wrapper's general.architecture and the sizes */
		const cJSON *mt = cJSON_GetObjectItemCaseSensitive(j, "model_type");
		const struct ws_cat_entry *w = cJSON_IsString(mt) ? ws_cat_by_model_type(mt->valuestring) : NULL;
		c->gguf = w ? w->gguf : NULL;
		c->hidden = a.hidden_size;
		c->dense_inter = a.intermediate_size;
		c->heads = a.num_heads;
		c->kv_heads = a.num_kv_heads;
		c->head_dim = a.head_dim;
		c->vocab = a.vocab_size;
		c->positions = a.max_position_embeddings;
		c->rel_rows = a.rel_rows;
		cJSON_Delete(j);
		return;
	}
	/* a tower type (transformers names their sub-configs *_model) is
	 * written whole by the tower writer */
	size_t tl = strlen(c->type);
	const struct ws_cat_entry *te = ws_cat_by_model_type(c->type);
	/* (Mllama's text model is no tower: a decoder, no classes of its own) */
	if (a.known && tl > 6 && !strcmp(c->type + tl - 6, "_model") && te && te->classes) {
		c->towers_only = true;
		c->main_arch = a;
		c->fam = &catalogue_family;
		c->layers = a.num_layers;
		cJSON_Delete(j);
		return;
	}
	const struct ws_cat_entry *ent = ws_cat_by_model_type(c->type);
	if (ent && ent->classes && a.known) {
		from_encoder(c, &a, ent);
		ws_arch_free(&a);
		cJSON_Delete(j);
		return;
	}
	for (size_t i = 0; a.known && a.layer_block && i < sizeof stacks / sizeof stacks[0]; i++) {
		if (strcmp(stacks[i].type, c->type))
			continue;
		from_catalogue(c, &a);
		c->sn = &stacks[i];
		c->blocks = xrealloc(NULL, a.num_layers ? a.num_layers : 1);
		memcpy(c->blocks, a.layer_block, a.num_layers);
		c->ssm_inner = a.ssm_inner;
		c->ssm_state = a.ssm_state;
		c->ssm_conv = a.ssm_conv;
		c->ssm_rank = a.ssm_rank;
		c->ssm_heads = a.ssm_heads;
		c->ssm_groups = a.ssm_groups;
		c->lin_kh = a.lin_k_heads;
		c->lin_vh = a.lin_v_heads;
		c->lin_kd = a.lin_k_dim;
		c->lin_vd = a.lin_v_dim;
		c->extra_rows = a.extra_rows;
		ws_arch_free(&a);
		cJSON_Delete(j);
		return;
	}
	c->fam = family_of(c->type);
	c->aflags = a.flags;
	for (uint64_t i = 0; a.known && i < a.num_layers && !c->sliding; i++)
		if (ws_arch_layer_sliding(&a, i))
			c->sliding = a.sliding_window;
	c->index_heads = a.index_heads;
	c->index_dim = a.index_head_dim;
	if (!c->fam && a.known && a.norm == WS_NORM_RMS &&
	    (a.mlp == WS_MLP_GATED || a.mlp == WS_MLP_PLAIN) &&
	    !(ws_sw_has(&a.flags, WS_ARCH_MLA) || ws_sw_has(&a.flags, WS_ARCH_FUSED_QKV) ||
	      (ws_sw_has(&a.flags, WS_ARCH_MOE_FUSED) && ws_sw_has(&a.flags, WS_ARCH_MOE_BIAS)) ||
	      ws_sw_has(&a.flags, WS_ARCH_PARALLEL))) {
		from_catalogue(c, &a);
		ws_arch_free(&a);
		cJSON_Delete(j);
		return;
	}
	if (c->fam && c->fam->block == BK_FALCON) {
		const family *fam = c->fam;
		from_catalogue(c, &a);
		c->fam = fam;
		ws_arch_free(&a);
		cJSON_Delete(j);
		return;
	}
	ws_arch_free(&a);
	if (!c->fam)
		die("%s: model_type '%s' is not modelled", path, c->type);
	bool gpt2 = c->fam->block == BK_GPT2;
	/* a key the file leaves out: the class default the library read */
	c->vocab = num(r, "vocab_size", a.vocab_size);
	c->hidden = num(r, gpt2 ? "n_embd" : "hidden_size", a.hidden_size);
	c->layers = num(r, gpt2 ? "n_layer" : "num_hidden_layers", a.num_layers);
	c->heads = num(r, gpt2 ? "n_head" : "num_attention_heads", a.num_heads);
	c->kv_heads = num(r, "num_key_value_heads", c->heads);
	c->positions = num(r, gpt2 ? "n_positions" : "max_position_embeddings", a.max_position_embeddings);
	c->inter = num(r, gpt2 ? "n_inner" : "intermediate_size", gpt2 ? 4 * c->hidden : a.intermediate_size);
	if (!c->heads || !c->hidden || !c->layers || !c->vocab)
		die("%s: hidden, layers, heads and vocab are required", path);
	c->head_dim = num(r, "head_dim", c->hidden / c->heads);
	/* a wrapper's own key when its text_config has none (Qwen-VL's) */
	c->tied = boolean(r, "tie_word_embeddings", r != j ? boolean(j, "tie_word_embeddings", has(c, F_TIED))
							    : has(c, F_TIED));
	c->attn_bias = has(c, F_BIAS_KEY) && boolean(r, "attention_bias", has(c, F_BIAS_ON));
	if (has(c, F_INTERNLM2)) {
		/* InternLM2Config's bias (default true); its head is output */
		c->attn_bias = boolean(r, "bias", true);
		c->head = !strncmp(c->base, "language_model.", 15) ? "language_model.output.weight" : "output.weight";
	}
	c->head_bias = boolean(r, "lm_head_bias", false);
	c->experts = num(r, "num_local_experts", num(r, "num_experts", num(r, "n_routed_experts", 0)));
	c->topk = num(r, "num_experts_per_tok", num(r, "experts_per_token", 0));
	c->moe_inter = num(r, "moe_intermediate_size", c->inter);
	c->shared_n = num(r, "n_shared_experts", 0);
	c->shared_inter = num(r, "shared_expert_intermediate_size", 0);
	c->first_dense = num(r, "first_k_dense_replace", 0);
	c->dense_inter = c->inter;
	if (c->fam->moe == MK_LLAMA4)  /* intermediate_size is the experts' */
		c->dense_inter = num(r, "intermediate_size_mlp", c->inter);
	c->moe_step = 1;
	for (size_t i = 0; i < sizeof step_keys / sizeof step_keys[0]; i++) {
		uint64_t v = num(r, step_keys[i].key, 0);
		if (v) {
			c->moe_step = v;
			c->step_offset = step_keys[i].offset;
			break;
		}
	}
	const cJSON *mo = cJSON_GetObjectItemCaseSensitive(r, "mlp_only_layers"), *it;
	cJSON_ArrayForEach(it, mo) {
		if (c->n_mlp_only == MAX_MLP_ONLY || !cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble < 0x1p53))
			die("%s: mlp_only_layers: at most %d layer indices", path, MAX_MLP_ONLY);
		c->mlp_only[c->n_mlp_only++] = (uint64_t)it->valuedouble;
	}
	c->q_lora = num(r, "q_lora_rank", 0);
	c->kv_lora = num(r, "kv_lora_rank", 0);
	c->nope = num(r, "qk_nope_head_dim", 0);
	c->rope = num(r, "qk_rope_head_dim", 0);
	c->vdim = num(r, "v_head_dim", 0);
	c->nextn = num(r, "num_nextn_predict_layers", 0);
	cJSON_Delete(j);
}

/* ==== safetensors ==== */

static uint64_t
elements(const tensor *t)
{
	uint64_t n = 1;
	for (int i = 0; i < t->nd; i++)
		n *= t->shape[i];
	return n;
}

/* Deterministic BF16/F16-looking bytes: small magnitudes, never zero. */
static void
fill_random(uint8_t *p, uint64_t n, uint32_t seed)
{
	uint32_t x = seed * 2654435761u + 7;
	for (uint64_t i = 0; i + 1 < n; i += 2) {
		x = x * 1664525u + 1013904223u;
		uint16_t v = (uint16_t)(((x >> 31) << 15) | (0x3C00u + (x >> 20 & 0x1FF)));
		p[i] = (uint8_t)v;
		p[i + 1] = (uint8_t)(v >> 8);
	}
}

static void
write_data(int fd, const char *file, uint64_t off, uint64_t n, uint32_t seed)
{
	const uint64_t chunk = 1u << 20;
	uint8_t *b = xrealloc(NULL, chunk);
	for (uint64_t done = 0; done < n; done += chunk) {
		uint64_t k = n - done < chunk ? n - done : chunk;
		fill_random(b, k, seed + (uint32_t)(done / chunk) * 7919u);
		if (pwrite(fd, b, k, (off_t)(off + done)) != (ssize_t)k)
			die("write %s: %s", file, strerror(errno));
	}
	free(b);
}

static uint64_t
write_shard(const char *file, const tensor *v, size_t a, size_t b, const struct dtype *dt)
{
	buf h = {0};
	bprintf(&h, "{\"__metadata__\":{\"format\":\"pt\"}");
	uint64_t off = 0;
	for (size_t i = a; i < b; i++) {
		const tensor *t = &v[i];
		const struct dtype *d = t->dt ? t->dt : dt;
		uint64_t n = elements(t) * d->bytes;
		bprintf(&h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", t->name, d->name);
		for (int k = 0; k < t->nd; k++) {
			bprintf(&h, "%s%" PRIu64, k ? "," : "", t->shape[k]);
		}
		bprintf(&h, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", off, off + n);
		off += n;
	}
	put(&h, "}", 1);
	while (h.n % 8)
		put(&h, " ", 1);
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s: %s", file, strerror(errno));
	uint8_t n8[8];
	for (int i = 0; i < 8; i++)
		n8[i] = (uint8_t)((uint64_t)h.n >> (8 * i));
	if (write(fd, n8, 8) != 8 || write(fd, h.p, h.n) != (ssize_t)h.n)
		die("write %s: %s", file, strerror(errno));
	uint64_t base = 8 + h.n, pos = 0;
	for (size_t i = a; i < b; i++) {
		uint64_t n = elements(&v[i]) * (v[i].dt ? v[i].dt : dt)->bytes;
		if (v[i].fill)
			write_data(fd, file, base + pos, n, v[i].fill);
		pos += n;
	}
	if (ftruncate(fd, (off_t)(base + off)) != 0)
		die("truncate %s: %s", file, strerror(errno));
	close(fd);
	free(h.p);
	return off;
}

static char *
join(const char *dir, const char *name)
{
	char *p;
	if (asprintf(&p, "%s/%s", dir, name) < 0)
		die("out of memory");
	return p;
}

/* the checkpoint's file stem: transformers' model, diffusers'
 * diffusion_pytorch_model */
static const char *st_stem = "model";
static void write_safetensors(const char *dir, const gen *g, uint64_t shards, const struct dtype *dt);
static void net_gguf(const char *dir, const char *config, gen *g, const char *arch, const struct dtype *dt);

/* A diffusers network (a config naming its class): every tensor of the
 * library's reading, as the class names it; buffers it stores too. */
static void
net_model(const char *dir, const char *config, const char *raw, size_t raw_len, uint64_t shards,
	  const struct dtype *dt, bool single, bool gguf)
{
	/* GGUF as ComfyUI-GGUF's converter writes a network: the single
	 * file's (original) names */
	single = single || gguf;
	cJSON *j = ws_json_parse_py(raw, raw_len, NULL);
	struct ws_arch a;
	ws_error err = {0};
	/* --single-file: the class's single-file layout (FLUX as Black Forest
	 * Labs names it), model.safetensors without a config */
	const cJSON *cn = j ? cJSON_GetObjectItemCaseSensitive(j, "_class_name") : NULL;
	const char *twin = single && cJSON_IsString(cn) ? ws_net_single_file_class(cn->valuestring) : NULL;
	if (single && !twin)
		die("%s: no single-file layout for this class", config);
	if (twin)
		cJSON_ReplaceItemInObjectCaseSensitive(j, "_class_name", cJSON_CreateString(twin));
	if (!j || ws_arch_from_config(j, config, &a, &err) || !a.net)
		die("%s: not a network the catalogue has (%s)", config, err.message);
	gen g = {0};
	for (size_t i = 0; i < a.net->n; i++)
		push(&g, a.net->t[i].ndim, a.net->t[i].dim, 0, a.net->t[i].name);
	st_stem = single ? "model" : "diffusion_pytorch_model";
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		die("mkdir %s: %s", dir, strerror(errno));
	if (gguf)
		net_gguf(dir, config, &g, ws_net_gguf_arch(a.net->cls), dt);
	else if (dt->block)
		die("%s: %s is a GGUF type (--format gguf)", config, dt->name);
	else
		write_safetensors(dir, &g, shards, dt);
	if (single) {
		free(g.v);
		ws_arch_free(&a);
		cJSON_Delete(j);
		return;
	}
	char *p = join(dir, "config.json");
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(raw, 1, raw_len, f) != raw_len || fclose(f))
		die("write %s", p);
	free(p);
	free(g.v);
	ws_arch_free(&a);
	cJSON_Delete(j);
}

static void
write_safetensors(const char *dir, const gen *g, uint64_t shards, const struct dtype *dt)
{
	char one[96];
	snprintf(one, sizeof one, "%s.safetensors", st_stem);
	if (shards <= 1) {
		char *p = join(dir, one);
		write_shard(p, g->v, 0, g->n, dt);
		free(p);
		return;
	}
	/* split by bytes, like save_pretrained's max_shard_size; never an
	 * empty shard (the file names use the count actually written) */
	uint64_t total = 0;
	for (size_t i = 0; i < g->n; i++)
		total += elements(&g->v[i]) * (g->v[i].dt ? g->v[i].dt : dt)->bytes;
	size_t *start = xrealloc(NULL, (shards + 1) * sizeof *start);
	uint64_t ns = 0, acc = 0;
	for (size_t i = 0; i < g->n; i++) {
		uint64_t want = total ? (uint64_t)((long double)acc * shards / total) : 0;
		if (ns == 0 || (want >= ns && ns < shards))
			start[ns++] = i;
		acc += elements(&g->v[i]) * (g->v[i].dt ? g->v[i].dt : dt)->bytes;
	}
	start[ns] = g->n;
	buf idx = {0};
	bprintf(&idx, "{\n  \"metadata\": {\n    \"total_size\": %" PRIu64 "\n  },\n  \"weight_map\": {", total);
	for (uint64_t s = 0; s < ns; s++) {
		char name[64];
		snprintf(name, sizeof name, "%s-%05" PRIu64 "-of-%05" PRIu64 ".safetensors", st_stem, s + 1, ns);
		char *p = join(dir, name);
		write_shard(p, g->v, start[s], start[s + 1], dt);
		free(p);
		for (size_t i = start[s]; i < start[s + 1]; i++)
			bprintf(&idx, "%s\n    \"%s\": \"%s\"", i ? "," : "", g->v[i].name, name);
	}
	bprintf(&idx, "\n  }\n}\n");
	snprintf(one, sizeof one, "%s.safetensors.index.json", st_stem);
	char *p = join(dir, one);
	FILE *f = fopen(p, "wb");
	if (!f || fwrite(idx.p, 1, idx.n, f) != idx.n || fclose(f))
		die("write %s", p);
	free(p);
	free(idx.p);
	free(start);
}

/* ==== an original Stable Diffusion single file ==== */

/* OpenCLIP's names for a CLIP text tower as transformers names it: q, k
 * and v one in_proj (its rows three times q's), k and v then dropped,
 * the projection a bare matrix [width, embed]. */
static const struct {
	const char *hf, *oc;
	int rows;        /* the rows' multiple; 0: dropped */
	bool transpose;
} oc_names[] = {
	{"text_model.embeddings.token_embedding.weight", "token_embedding.weight", 1, false},
	{"text_model.embeddings.position_embedding.weight", "positional_embedding", 1, false},
	{"text_model.embeddings.position_ids", NULL, 0, false},
	{"text_model.final_layer_norm.weight", "ln_final.weight", 1, false},
	{"text_model.final_layer_norm.bias", "ln_final.bias", 1, false},
	{"text_projection.weight", "text_projection", 1, true},
	/* after text_model.encoder.layers.N. / transformer.resblocks.N. */
	{"layer_norm1.weight", "ln_1.weight", 1, false},
	{"layer_norm1.bias", "ln_1.bias", 1, false},
	{"self_attn.q_proj.weight", "attn.in_proj_weight", 3, false},
	{"self_attn.q_proj.bias", "attn.in_proj_bias", 3, false},
	{"self_attn.k_proj.weight", NULL, 0, false},
	{"self_attn.k_proj.bias", NULL, 0, false},
	{"self_attn.v_proj.weight", NULL, 0, false},
	{"self_attn.v_proj.bias", NULL, 0, false},
	{"self_attn.out_proj.weight", "attn.out_proj.weight", 1, false},
	{"self_attn.out_proj.bias", "attn.out_proj.bias", 1, false},
	{"layer_norm2.weight", "ln_2.weight", 1, false},
	{"layer_norm2.bias", "ln_2.bias", 1, false},
	{"mlp.fc1.weight", "mlp.c_fc.weight", 1, false},
	{"mlp.fc1.bias", "mlp.c_fc.bias", 1, false},
	{"mlp.fc2.weight", "mlp.c_proj.weight", 1, false},
	{"mlp.fc2.bias", "mlp.c_proj.bias", 1, false},
};

static void free_cfg(cfg *c);

/* t pushed under prefix, renamed to OpenCLIP's names when oc. */
static void
push_prefixed(gen *g, const char *prefix, const tensor *t, bool oc)
{
	char name[160];
	uint64_t shape[5];
	memcpy(shape, t->shape, sizeof shape);
	if (!oc) {
		snprintf(name, sizeof name, "%s%s", prefix, t->name);
		push(g, t->nd, shape, t->fill, name);
		return;
	}
	static const char layers[] = "text_model.encoder.layers.";
	const char *rest = t->name;
	unsigned layer = 0;
	bool in_layer = !strncmp(t->name, layers, sizeof layers - 1);
	if (in_layer) {
		char *end;
		layer = (unsigned)strtoul(t->name + sizeof layers - 1, &end, 10);
		rest = end + 1;
	}
	for (size_t i = 0; i < sizeof oc_names / sizeof oc_names[0]; i++) {
		if (strcmp(oc_names[i].hf, rest))
			continue;
		if (!oc_names[i].rows)
			return;
		if (in_layer)
			snprintf(name, sizeof name, "%stransformer.resblocks.%u.%s", prefix, layer, oc_names[i].oc);
		else
			snprintf(name, sizeof name, "%s%s", prefix, oc_names[i].oc);
		shape[0] *= (uint64_t)oc_names[i].rows;
		if (oc_names[i].transpose && t->nd == 2) {
			shape[0] = t->shape[1];
			shape[1] = t->shape[0];
		}
		push(g, t->nd, shape, t->fill, name);
		return;
	}
	die("no OpenCLIP name for %s", t->name);
}

/* --single-file on a diffusers folder (model_index.json, each component's
 * config.json): one file of the original code's names, each component
 * under its module as the library's single-file table lists them (the
 * text encoders under conditioner.embedders.N when there are two, as
 * SDXL's; under cond_stage_model. as SD 1.x's when one).  --plant
 * missing-block drops one transformer block of the denoiser. */
static void
single_file_pipeline(const char *dir, const char *folder, const struct dtype *dt, enum plant plant)
{
	size_t n;
	const struct ws_cat_part *rows = ws_cat_single_file_parts(&n);
	char *te2 = join(folder, "text_encoder_2/config.json");
	struct stat st;
	bool two = stat(te2, &st) == 0;
	free(te2);
	gen g = {0};
	const char *done[8] = {0};
	size_t nd = 0;
	for (size_t k = 0; k < n; k++) {
		const struct ws_cat_part *p = &rows[k];
		bool seen = false;
		for (size_t i = 0; i < nd; i++)
			seen |= !strcmp(done[i], p->name);
		if (seen || nd == 8)
			continue;
		if (!strcmp(p->kind, "text_encoder") && two != !strncmp(p->prefixes[0], "conditioner.", 12))
			continue;
		char sub[512];
		snprintf(sub, sizeof sub, "%s/config.json", p->name);
		char *cp = join(folder, sub);
		if (stat(cp, &st) != 0) {
			free(cp);
			continue;
		}
		done[nd++] = p->name;
		size_t len;
		char *raw = slurp(cp, &len);
		cJSON *j = ws_json_parse_py(raw, len, NULL);
		if (!j)
			die("%s: invalid JSON", cp);
		gen sg = {0};
		cfg c = {0};
		const char *craw = NULL;
		if (ws_net_config(j)) {
			/* the network as the original code names it */
			cJSON_ReplaceItemInObjectCaseSensitive(j, "_class_name", cJSON_CreateString(p->type));
			struct ws_arch a;
			ws_error err = {0};
			if (ws_arch_from_config(j, cp, &a, &err) || !a.net)
				die("%s: no single-file layout (%s)", cp, err.message);
			for (size_t i = 0; i < a.net->n; i++)
				push(&sg, a.net->t[i].ndim, a.net->t[i].dim, 0, a.net->t[i].name);
			ws_arch_free(&a);
		} else {
			size_t cl;
			read_cfg(cp, &c, &craw, &cl);
			sg.c = &c;
			build(&sg);
		}
		bool oc = p->ignored[0] != NULL; /* OpenCLIP's names (its logit_scale) */
		const char *drop = NULL;
		char dropbuf[96];
		for (size_t i = 0; i < sg.n; i++) {
			const char *b = strstr(sg.v[i].name, "transformer_blocks.1.");
			if (plant == P_MISSING_BLOCK && !drop && b && !strcmp(p->kind, "unet")) {
				snprintf(dropbuf, sizeof dropbuf, "%.*s", (int)(b - sg.v[i].name) + 21, sg.v[i].name);
				drop = dropbuf;
			}
			if (drop && !strncmp(sg.v[i].name, drop, strlen(drop)))
				continue;
			push_prefixed(&g, p->prefixes[0], &sg.v[i], oc);
		}
		if (oc) {
			char name[160];
			snprintf(name, sizeof name, "%s%s", p->prefixes[0], p->ignored[0]);
			push(&g, 0, NULL, 0, name);
		}
		free(sg.v);
		if (craw) {
			free_cfg(&c);
			free((void *)craw);
		}
		cJSON_Delete(j);
		free(raw);
		free(cp);
	}
	if (!nd)
		die("%s: no component folder with a config.json", folder);
	if (!two) {
		/* SD 1.x's files hold the training code's noise schedule
		 * (1,000 steps) and EMA counters beside the modules */
		static const char *const sched[] = {
			"betas", "alphas_cumprod", "alphas_cumprod_prev", "sqrt_alphas_cumprod",
			"sqrt_one_minus_alphas_cumprod", "log_one_minus_alphas_cumprod", "sqrt_recip_alphas_cumprod",
			"sqrt_recipm1_alphas_cumprod", "posterior_variance", "posterior_log_variance_clipped",
			"posterior_mean_coef1", "posterior_mean_coef2",
		};
		uint64_t steps = 1000;
		for (size_t i = 0; i < sizeof sched / sizeof sched[0]; i++) {
			push(&g, 1, &steps, 0, sched[i]);
			g.v[g.n - 1].dt = &dtypes[2];
		}
		push(&g, 0, NULL, 0, "model_ema.decay");
		push(&g, 0, NULL, 0, "model_ema.num_updates");
	}
	st_stem = "model";
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		die("mkdir %s: %s", dir, strerror(errno));
	write_safetensors(dir, &g, 1, dt);
	free(g.v);
}

/* ==== GGUF ==== */

enum { GV_U32 = 4, GV_F32 = 6, GV_STRING = 8, GV_ARRAY = 9 };

/* --meta KEY=N: a {arch}.KEY value written instead of the true one */
static const char *meta_key;
static uint64_t meta_val;

static void
kv_u32(buf *b, uint64_t *n, const char *arch, const char *key, uint64_t v)
{
	char k[128];
	snprintf(k, sizeof k, "%s.%s", arch, key);
	if (meta_key && !strcmp(meta_key, key))
		v = meta_val;
	put_str(b, k);
	put_u32(b, GV_U32);
	put_u32(b, (uint32_t)v);
	(*n)++;
}

static void
kv_str(buf *b, uint64_t *n, const char *key, const char *v)
{
	put_str(b, key);
	put_u32(b, GV_STRING);
	put_str(b, v);
	(*n)++;
}

/* A float per block under a key without the {arch}. prefix (xielu.*). */
static void
kv_f32_blocks(buf *b, uint64_t *n, const char *key, uint64_t blocks, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof bits);
	put_str(b, key);
	put_u32(b, GV_ARRAY);
	put_u32(b, GV_F32);
	put_u64(b, blocks);
	for (uint64_t i = 0; i < blocks; i++)
		put_u32(b, bits);
	(*n)++;
}

/* A u32 per block under {arch}.key (llama.cpp's per-layer head_count_kv
 * and feed_forward_length of a hybrid stack) */
static void
kv_u32_blocks(buf *b, uint64_t *n, const char *arch, const char *key, const uint64_t *v, uint64_t blocks)
{
	char k[128];
	snprintf(k, sizeof k, "%s.%s", arch, key);
	put_str(b, k);
	put_u32(b, GV_ARRAY);
	put_u32(b, GV_U32);
	put_u64(b, blocks);
	for (uint64_t i = 0; i < blocks; i++)
		put_u32(b, (uint32_t)v[i]);
	(*n)++;
}

/* Does a stack write head_count_kv per layer (some layers attend, some
 * do not, and no interval says which)? */
static bool
stack_kv_array(const cfg *c)
{
	bool attn = false, other = false, gdn = false;
	for (uint64_t L = 0; c->sn && L < c->layers; L++) {
		enum ws_mixer m = WS_BK_MIX(c->blocks[L]);
		attn |= m == WS_MIX_ATTN || m == WS_MIX_PARALLEL;
		other |= m != WS_MIX_ATTN && m != WS_MIX_PARALLEL;
		gdn |= m == WS_MIX_LINEAR;
	}
	return attn && other && !gdn;
}

/* The {arch}.ssm.* / shortconv keys and per-layer arrays of a hybrid or
 * state-space stack, as llama.cpp's converter writes them: the layers'
 * kinds are only in head_count_kv (0: no attention), feed_forward_length
 * (a pattern stack's MLP layers) and full_attention_interval. */
static void
gguf_stack_keys(buf *kv, uint64_t *nkv, const cfg *c, const char *arch)
{
	const struct ws_cat_entry *e = ws_cat_by_model_type(c->type);
	const struct ws_cat_stack *st = e ? e->stack : NULL;
	bool mamba1 = false, mamba2 = false, gdn = false, sconv = false;
	for (uint64_t L = 0; L < c->layers; L++) {
		enum ws_mixer m = WS_BK_MIX(c->blocks[L]);
		mamba1 |= m == WS_MIX_MAMBA;
		mamba2 |= m == WS_MIX_MAMBA2 || m == WS_MIX_PARALLEL;
		gdn |= m == WS_MIX_LINEAR;
		sconv |= m == WS_MIX_CONV;
	}
	if (mamba1 || mamba2) {
		kv_u32(kv, nkv, arch, "ssm.conv_kernel", c->ssm_conv);
		kv_u32(kv, nkv, arch, "ssm.inner_size", c->ssm_inner);
		kv_u32(kv, nkv, arch, "ssm.state_size", c->ssm_state);
		kv_u32(kv, nkv, arch, "ssm.time_step_rank", mamba1 ? c->ssm_rank : c->ssm_heads);
		if (mamba2)
			kv_u32(kv, nkv, arch, "ssm.group_count", c->ssm_groups);
	}
	if (gdn) {
		kv_u32(kv, nkv, arch, "ssm.conv_kernel", c->ssm_conv);
		kv_u32(kv, nkv, arch, "ssm.inner_size", c->lin_vd * c->lin_vh);
		kv_u32(kv, nkv, arch, "ssm.state_size", c->lin_kd);
		kv_u32(kv, nkv, arch, "ssm.group_count", c->lin_kh);
		kv_u32(kv, nkv, arch, "ssm.time_step_rank", c->lin_vh);
		for (uint64_t L = 0; L < c->layers; L++)
			if (WS_BK_MIX(c->blocks[L]) == WS_MIX_ATTN) {
				kv_u32(kv, nkv, arch, "full_attention_interval", L + 1);
				break;
			}
	}
	if (sconv)
		kv_u32(kv, nkv, arch, "shortconv.l_cache", c->ssm_conv);
	bool ff_array = false;
	if (stack_kv_array(c)) {
		uint64_t *v = xrealloc(NULL, (c->layers ? c->layers : 1) * sizeof *v);
		for (uint64_t L = 0; L < c->layers; L++) {
			enum ws_mixer m = WS_BK_MIX(c->blocks[L]);
			v[L] = m == WS_MIX_ATTN || m == WS_MIX_PARALLEL ? c->kv_heads : 0;
		}
		kv_u32_blocks(kv, nkv, arch, "attention.head_count_kv", v, c->layers);
		if (st && st->pattern) {
			for (uint64_t L = 0; L < c->layers; L++)
				v[L] = WS_BK_MIX(c->blocks[L]) == WS_MIX_NONE ? (c->experts ? c->moe_inter : c->dense_inter) : 0;
			kv_u32_blocks(kv, nkv, arch, "feed_forward_length", v, c->layers);
			ff_array = true;
		}
		free(v);
	}
	if (!ff_array)
		kv_u32(kv, nkv, arch, "feed_forward_length", c->dense_inter);
}

static const char *
gguf_arch(const cfg *c)
{
	const char *a = c->fam == &catalogue_family ? c->gguf : c->fam->gguf;
	if (!a)
		die("no GGUF layout for model_type '%s'", c->type);
	return a;
}

static bool gguf_own_types, gguf_shape_fix, gguf_prefix;

/* The header (key/values kv, nkv of them, then g's tensor infos) and
 * the sparse data section: DIR/FILE. */
static void
gguf_emit(const char *dir, const char *file, const gen *g, const struct dtype *dt, buf kv, uint64_t nkv)
{
	buf h = {0};
	put(&h, "GGUF", 4);
	put_u32(&h, 3);
	put_u64(&h, g->n);
	put_u64(&h, nkv);
	put(&h, kv.p, kv.n);
	uint64_t off = 0;
	for (size_t i = 0; i < g->n; i++) {
		const tensor *t = &g->v[i];
		/* the converter keeps 1-D tensors (norms, biases) in F32; a
		 * network's tensors carry their own types */
		const struct dtype *d = t->nd == 1 ? &dtypes[2] : gguf_own_types && t->dt ? t->dt : dt;
		put_str(&h, t->name);
		put_u32(&h, (uint32_t)t->nd);
		for (int k = t->nd - 1; k >= 0; k--)
			put_u64(&h, t->shape[k]);
		put_u32(&h, d->ggml);
		put_u64(&h, off);
		uint64_t n = d->block ? elements(t) / d->block * d->bytes : elements(t) * d->bytes;
		off += (n + 31) / 32 * 32;
	}
	while (h.n % 32)
		put(&h, "", 1);
	char *p = join(dir, file);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s: %s", p, strerror(errno));
	if (write(fd, h.p, h.n) != (ssize_t)h.n || ftruncate(fd, (off_t)(h.n + off)) != 0)
		die("write %s: %s", p, strerror(errno));
	close(fd);
	free(p);
	free(h.p);
	free(kv.p);
}

/* A network as ComfyUI-GGUF writes it: general.architecture its family,
 * the quantization version and file type, no sizes; the converter keeps
 * 1-D and small tensors (up to 1,024 elements) in F32, and the quantizer
 * (its llama.cpp patch) falls back to F16 for rows its blocks do not
 * divide. */
static void
net_gguf(const char *dir, const char *config, gen *g, const char *arch, const struct dtype *dt)
{
	if (!arch)
		die("%s: no GGUF layout for this network", config);
	buf kv = {0};
	uint64_t nkv = 0;
	kv_str(&kv, &nkv, "general.architecture", arch);
	/* --gguf-prefix: the names under the single-file denoiser's module
	 * (model.diffusion_model.), as an older converter kept them */
	size_t nparts;
	const char *pre = gguf_prefix ? ws_cat_single_file_parts(&nparts)[0].prefixes[0] : "";
	for (size_t i = 0; gguf_prefix && i < g->n; i++) {
		tensor *t = &g->v[i];
		char name[sizeof t->name];
		if ((size_t)snprintf(name, sizeof name, "%s%s", pre, t->name) >= sizeof name)
			die("%s: name too long under %s", t->name, pre);
		strcpy(t->name, name);
	}
	/* --gguf-shape-fix: the converter's reshape of sd1 / sdxl tensors
	 * (2-D and up, at least 512 elements, a multiple of 256, the last
	 * dim not) to rows of 256, the shape kept in comfy.gguf.orig_shape.* */
	for (size_t i = 0; gguf_shape_fix && i < g->n; i++) {
		tensor *t = &g->v[i];
		uint64_t n = elements(t);
		if (t->nd < 2 || n < 512 || n % 256 || t->shape[t->nd - 1] % 256 == 0)
			continue;
		char key[160];
		snprintf(key, sizeof key, "comfy.gguf.orig_shape.%s", t->name);
		put_str(&kv, key);
		put_u32(&kv, GV_ARRAY);
		put_u32(&kv, 5);  /* INT32 */
		put_u64(&kv, (uint64_t)t->nd);
		for (int k = 0; k < t->nd; k++)
			put_u32(&kv, (uint32_t)t->shape[k]);
		nkv++;
		t->nd = 2;
		t->shape[0] = n / 256;
		t->shape[1] = 256;
	}
	for (size_t i = 0; i < g->n; i++) {
		tensor *t = &g->v[i];
		/* more than ggml's 4 dims (Wan's 3-D convolution): the converter
		 * sets them aside, tools/fix_5d_tensors.py adds them back in F32
		 * after their bias */
		if (t->nd > 4) {
			t->dt = &dtypes[2];
			char bias[96];
			size_t len = strlen(t->name);
			if (len < 7 || strcmp(t->name + len - 7, ".weight"))
				continue;
			snprintf(bias, sizeof bias, "%.*s.bias", (int)(len - 7), t->name);
			for (size_t k = i + 1; k < g->n; k++)
				if (!strcmp(g->v[k].name, bias)) {
					tensor w = *t;
					memmove(t, t + 1, (k - i) * sizeof *t);
					g->v[k] = w;
					i--;  /* the tensor now at i is not typed yet */
					break;
				}
			continue;
		}
		if (t->nd == 1 || elements(t) <= 1024)
			t->dt = &dtypes[2];
		else if (dt->block && (t->nd != 2 || t->shape[t->nd - 1] % dt->block))
			t->dt = &dtypes[1];  /* matrices alone are quantized */
		else
			t->dt = dt;
	}
	put_str(&kv, "general.quantization_version");
	put_u32(&kv, GV_U32);
	put_u32(&kv, 2);
	put_str(&kv, "general.file_type");
	put_u32(&kv, GV_U32);
	put_u32(&kv, dt->ftype);
	nkv += 2;
	gguf_own_types = true;
	gguf_emit(dir, "model.gguf", g, dt, kv, nkv);
}

static void
write_gguf(const char *dir, const gen *g, const struct dtype *dt)
{
	const cfg *c = g->c;
	const char *arch = gguf_arch(c);
	bool mla = c->fam->block == BK_MLA;
	buf kv = {0};
	uint64_t nkv = 0;
	kv_str(&kv, &nkv, "general.architecture", arch);
	kv_str(&kv, &nkv, "general.name", c->type);
	/* the converter counts the MTP blocks in block_count */
	uint64_t mtp = g->gguf_mtp ? c->nextn : 0;
	kv_u32(&kv, &nkv, arch, "block_count", c->layers + mtp);
	if (mtp)
		kv_u32(&kv, &nkv, arch, "nextn_predict_layers", mtp);
	kv_u32(&kv, &nkv, arch, "context_length", c->positions);
	kv_u32(&kv, &nkv, arch, "embedding_length", c->hidden);
	if (!c->sn)
		kv_u32(&kv, &nkv, arch, "feed_forward_length", c->dense_inter);
	else
		gguf_stack_keys(&kv, &nkv, c, arch);
	kv_u32(&kv, &nkv, arch, "attention.head_count", c->heads);
	kv_u32(&kv, &nkv, arch, "vocab_size", c->vocab);
	if (c->sliding)
		kv_u32(&kv, &nkv, arch, "attention.sliding_window", c->sliding);
	if (mla && g->mla_split) {
		/* the split layout describes the latent as one kv head of
		 * kv_lora + rope; the per-head sizes move to *_mla */
		kv_u32(&kv, &nkv, arch, "attention.head_count_kv", 1);
		kv_u32(&kv, &nkv, arch, "attention.key_length", c->kv_lora + c->rope);
		kv_u32(&kv, &nkv, arch, "attention.value_length", c->kv_lora);
		kv_u32(&kv, &nkv, arch, "attention.key_length_mla", c->nope + c->rope);
		kv_u32(&kv, &nkv, arch, "attention.value_length_mla", c->vdim);
	} else if (mla) {
		kv_u32(&kv, &nkv, arch, "attention.head_count_kv", c->heads);
		kv_u32(&kv, &nkv, arch, "attention.key_length", c->nope + c->rope);
		kv_u32(&kv, &nkv, arch, "attention.value_length", c->vdim);
	} else {
		if (!stack_kv_array(c))
			kv_u32(&kv, &nkv, arch, "attention.head_count_kv", c->kv_heads);
	}
	if (mla) {
		kv_u32(&kv, &nkv, arch, "rope.dimension_count", c->rope);
		if (c->q_lora)
			kv_u32(&kv, &nkv, arch, "attention.q_lora_rank", c->q_lora);
		kv_u32(&kv, &nkv, arch, "attention.kv_lora_rank", c->kv_lora);
		kv_u32(&kv, &nkv, arch, "leading_dense_block_count", c->first_dense);
		kv_u32(&kv, &nkv, arch, "expert_shared_count", c->shared_n);
		if (c->index_heads) {
			kv_u32(&kv, &nkv, arch, "attention.indexer.head_count", c->index_heads);
			kv_u32(&kv, &nkv, arch, "attention.indexer.key_length", c->index_dim);
		}
	} else {
		kv_u32(&kv, &nkv, arch, "rope.dimension_count", c->head_dim);
		if (c->head_dim * c->heads != c->hidden) {
			kv_u32(&kv, &nkv, arch, "attention.key_length", c->head_dim);
			kv_u32(&kv, &nkv, arch, "attention.value_length", c->head_dim);
		}
	}
	if (c->encdec)
		kv_u32(&kv, &nkv, arch, "attention.relative_buckets_count", c->rel_rows);
	if (ws_sw_has(&c->aflags, WS_ARCH_XIELU)) {
		/* the converter's per-layer scalars: values, not tensors */
		static const struct { const char *key; float v; } xielu[] = {
			{"xielu.alpha_p", 0.8f}, {"xielu.alpha_n", 0.8f},
			{"xielu.beta", 0.5f}, {"xielu.eps", -1e-6f},
		};
		for (size_t i = 0; i < sizeof xielu / sizeof xielu[0]; i++)
			kv_f32_blocks(&kv, &nkv, xielu[i].key, c->layers, xielu[i].v);
	}
	if (c->experts) {
		kv_u32(&kv, &nkv, arch, "expert_count", c->experts);
		kv_u32(&kv, &nkv, arch, "expert_used_count", c->topk);
		/* mixtral's llama layout has no separate expert width */
		if (strcmp(arch, "llama"))
			kv_u32(&kv, &nkv, arch, "expert_feed_forward_length", c->moe_inter);
		if (c->shared_inter)
			kv_u32(&kv, &nkv, arch, "expert_shared_feed_forward_length", c->shared_inter);
		if (c->moe_step > 1)
			kv_u32(&kv, &nkv, arch, "interleave_moe_layer_step", c->moe_step);
	}

	gguf_emit(dir, "model.gguf", g, dt, kv, nkv);
}

/* ==== llama.cpp's vision file (mmproj) ==== */

/* An audio tower and its projector as llama.cpp's converter writes
 * them (clip.has_audio_encoder, clip.audio.* sizes): the tower under a.
 * (its conv biases unsqueezed to [d, 1]), the projector under mm.a.
 * (one biased fc, or mlp.1 / mlp.2 without biases); `drop` trailing
 * blocks left out. */
static void
write_mmproj_audio(const char *dir, const cfg *c, const struct dtype *dt, uint64_t drop,
		   const struct ws_cat_mmproj *mp, const struct ws_arch *a, const struct ws_arch *pj)
{
	if (!mp->keys || strcmp(mp->parts[0].kind, "audio"))
		die("no audio file layout for this config");
	gen g0 = {.c = c}, *g = &g0;
	uint64_t d = a->hidden_size, f = a->intermediate_size, L = a->num_layers - drop;
	char n[96];
	top_nd(g, "a.conv1d.1.weight", 3, d, a->num_channels, 3, 0);
	top_nd(g, "a.conv1d.1.bias", 2, d, 1, 0, 0);
	top_nd(g, "a.conv1d.2.weight", 3, d, d, 3, 0);
	top_nd(g, "a.conv1d.2.bias", 2, d, 1, 0, 0);
	top_nd(g, "a.position_embd.weight", 2, a->max_position_embeddings, d, 0, 0);
	static const char *const lin[] = {"attn_q", "attn_k", "attn_v", "attn_out", "ffn_up", "ffn_down"};
	for (uint64_t l = 0; l < L; l++) {
		if (g->plant == P_MISSING_TOWER_LAYER && l == 1)
			continue;
		for (size_t i = 0; i < sizeof lin / sizeof lin[0]; i++) {
			uint64_t out = i == 4 ? f : d, in = i == 5 ? f : d;
			snprintf(n, sizeof n, "a.blk.%" PRIu64 ".%s.weight", l, lin[i]);
			top_nd(g, n, 2, out, in, 0, 0);
			if (i != 1) {  /* Whisper's keys have no bias */
				snprintf(n, sizeof n, "a.blk.%" PRIu64 ".%s.bias", l, lin[i]);
				top_nd(g, n, 1, out, 0, 0, 0);
			}
		}
		for (int k = 1; k <= 2; k++) {
			snprintf(n, sizeof n, "a.blk.%" PRIu64 ".ln%d.weight", l, k);
			top_nd(g, n, 1, d, 0, 0, 0);
			snprintf(n, sizeof n, "a.blk.%" PRIu64 ".ln%d.bias", l, k);
			top_nd(g, n, 1, d, 0, 0, 0);
		}
	}
	top_nd(g, "a.post_ln.weight", 1, d, 0, 0, 0);
	top_nd(g, "a.post_ln.bias", 1, d, 0, 0, 0);
	uint64_t in = pj->embedding_size, out = pj->hidden_size + (g->plant == P_PROJECTOR_WIDTH ? 64 : 0);
	if (ws_sw_has(&pj->flags, WS_ARCH_PROJ_MLP2)) {
		top_nd(g, "mm.a.mlp.1.weight", 2, out, in, 0, 0);
		top_nd(g, "mm.a.mlp.2.weight", 2, out, out, 0, 0);
	} else {
		top_nd(g, "mm.a.fc.weight", 2, out, in, 0, 0);
		top_nd(g, "mm.a.fc.bias", 1, out, 0, 0, 0);
	}
	buf kv = {0};
	uint64_t nkv = 0;
	kv_str(&kv, &nkv, "general.architecture", "clip");
	put_str(&kv, "clip.has_audio_encoder");
	put_u32(&kv, 7);  /* bool */
	put(&kv, "\1", 1);
	nkv++;
	kv_str(&kv, &nkv, "clip.projector_type", mp->projector_type);
	kv_u32(&kv, &nkv, "clip.audio", "embedding_length", d);
	kv_u32(&kv, &nkv, "clip.audio", "feed_forward_length", f);
	kv_u32(&kv, &nkv, "clip.audio", "block_count", L);
	kv_u32(&kv, &nkv, "clip.audio", "attention.head_count", a->num_heads);
	kv_u32(&kv, &nkv, "clip.audio", "projection_dim", pj->hidden_size);
	kv_u32(&kv, &nkv, "clip.audio", "num_mel_bins", a->num_channels);
	if (mp->stack_key)
		kv_u32(&kv, &nkv, "clip.audio", mp->stack_key, in / d);
	gguf_emit(dir, "mmproj.gguf", g, dt, kv, nkv);
	free(g->v);
}

/* A wrapper's vision tower and projector as llama.cpp's converter writes
 * them: general.architecture clip, clip.vision.* sizes, the tower's
 * tensors under v., the projector's under mm.; `drop` trailing blocks
 * left out (a converter drops the layers a model never runs, and says
 * so in block_count). */
static void
write_mmproj(const char *dir, const cfg *c, const struct dtype *dt, uint64_t drop)
{
	const struct ws_cat_mmproj *mp = NULL;
	const struct ws_arch *a = NULL, *pj = NULL;
	for (size_t i = 1; c->parts_of && i < WS_CAT_MAX_PARTS && c->parts_of[i].kind; i++) {
		if (c->parts_of[i].config)
			a = &c->part_arch[i];
		else if ((mp = ws_cat_mmproj_by_layout(c->parts_of[i].type)))
			pj = &c->part_arch[i];
	}
	if (!a || !pj || !mp || !a->known || drop >= a->num_layers)
		die("no vision file layout for this config");
	if (ws_sw_has(&a->flags, WS_ARCH_CONV_STEM)) {
		write_mmproj_audio(dir, c, dt, drop, mp, a, pj);
		return;
	}
	if (strcmp(mp->parts[0].kind, "vision"))
		die("no vision file layout for this config");
	gen g0 = {.c = c}, *g = &g0;
	uint64_t d = a->hidden_size, f = a->intermediate_size, L = a->num_layers - drop;
	bool cls = ws_sw_has(&a->flags, WS_ARCH_CLS_TOKEN);
	/* InternViT keeps its [1, 1, d] class token and [1, n, d]
	 * positions as they are, and its layer scales */
	bool ls = ws_sw_has(&a->flags, WS_ARCH_LAYER_SCALE);
	char n[96];
	top_nd(g, "v.patch_embd.weight", 4, d, a->num_channels, a->patch_size, a->patch_size);
	if (ws_sw_has(&a->flags, WS_ARCH_PATCH_BIAS))
		top_nd(g, "v.patch_embd.bias", 1, d, 0, 0, 0);
	if (cls && ls)
		top_nd(g, "v.class_embd", 3, 1, 1, d, 0);
	else if (cls)
		top_nd(g, "v.class_embd", 1, d, 0, 0, 0);
	if (ls)
		top_nd(g, "v.position_embd.weight", 3, 1, a->num_patches + cls, d, 0);
	else
		top_nd(g, "v.position_embd.weight", 2, a->num_patches + cls, d, 0, 0);
	if (ws_sw_has(&a->flags, WS_ARCH_EMBED_NORM)) {
		top_nd(g, "v.pre_ln.weight", 1, d, 0, 0, 0);
		top_nd(g, "v.pre_ln.bias", 1, d, 0, 0, 0);
	}
	static const char *const lin[] = {"attn_q", "attn_k", "attn_v", "attn_out", "ffn_up", "ffn_down"};
	bool qkv_b = ws_sw_has(&a->flags, WS_ARCH_QKV_BIAS);
	bool ln_b = a->norm == WS_NORM_LAYER && !ws_sw_has(&a->flags, WS_ARCH_NO_NORM_BIAS);
	for (uint64_t l = 0; l < L; l++) {
		for (size_t i = 0; i < sizeof lin / sizeof lin[0]; i++) {
			uint64_t out = i == 4 ? f : d, in = i == 5 ? f : d;
			snprintf(n, sizeof n, "v.blk.%" PRIu64 ".%s.weight", l, lin[i]);
			top_nd(g, n, 2, out, in, 0, 0);
			if (i >= 3 || qkv_b) {
				snprintf(n, sizeof n, "v.blk.%" PRIu64 ".%s.bias", l, lin[i]);
				top_nd(g, n, 1, out, 0, 0, 0);
			}
		}
		if (ws_sw_has(&a->flags, WS_ARCH_QK_NORM_FULL)) {
			snprintf(n, sizeof n, "v.blk.%" PRIu64 ".attn_q_norm.weight", l);
			top_nd(g, n, 1, d, 0, 0, 0);
			snprintf(n, sizeof n, "v.blk.%" PRIu64 ".attn_k_norm.weight", l);
			top_nd(g, n, 1, d, 0, 0, 0);
		}
		for (int k = 1; k <= 2; k++) {
			snprintf(n, sizeof n, "v.blk.%" PRIu64 ".ln%d.weight", l, k);
			top_nd(g, n, 1, d, 0, 0, 0);
			if (ln_b) {
				snprintf(n, sizeof n, "v.blk.%" PRIu64 ".ln%d.bias", l, k);
				top_nd(g, n, 1, d, 0, 0, 0);
			}
			if (ls) {
				snprintf(n, sizeof n, "v.blk.%" PRIu64 ".ls%d.weight", l, k);
				top_nd(g, n, 1, d, 0, 0, 0);
			}
		}
	}
	if (!ws_sw_has(&a->flags, WS_ARCH_NO_FINAL_NORM)) {
		top_nd(g, "v.post_ln.weight", 1, d, 0, 0, 0);
		top_nd(g, "v.post_ln.bias", 1, d, 0, 0, 0);
	}
	uint64_t in = pj->embedding_size, out = pj->hidden_size;
	if (ws_sw_has(&pj->flags, WS_ARCH_PROJ_MLP2)) {
		bool pb = ws_sw_has(&pj->flags, WS_ARCH_PROJ_BIAS);
		top_nd(g, "mm.0.weight", 2, out, in, 0, 0);
		if (pb)
			top_nd(g, "mm.0.bias", 1, out, 0, 0, 0);
		top_nd(g, "mm.2.weight", 2, out, out, 0, 0);
		if (pb)
			top_nd(g, "mm.2.bias", 1, out, 0, 0, 0);
	}
	if (ws_sw_has(&pj->flags, WS_ARCH_PROJ_LINEAR))
		top_nd(g, "mm.input_projection.weight", 2, in, out, 0, 0);
	if (ws_sw_has(&pj->flags, WS_ARCH_PROJ_IN_NORM))
		top_nd(g, "mm.soft_emb_norm.weight", 1, in, 0, 0, 0);
	uint64_t m = pj->merge_size ? pj->merge_size : 1, wide = in * m * m;
	if (ws_sw_has(&pj->flags, WS_ARCH_PROJ_SHUFFLE_MLP)) {
		/* InternVL's mlp1 */
		top_nd(g, "mm.model.mlp.0.weight", 1, wide, 0, 0, 0);
		top_nd(g, "mm.model.mlp.0.bias", 1, wide, 0, 0, 0);
		top_nd(g, "mm.model.mlp.1.weight", 2, out, wide, 0, 0);
		top_nd(g, "mm.model.mlp.1.bias", 1, out, 0, 0, 0);
		top_nd(g, "mm.model.mlp.3.weight", 2, out, out, 0, 0);
		top_nd(g, "mm.model.mlp.3.bias", 1, out, 0, 0, 0);
	}

	buf kv = {0};
	uint64_t nkv = 0;
	kv_str(&kv, &nkv, "general.architecture", "clip");
	put_str(&kv, "clip.has_vision_encoder");
	put_u32(&kv, 7);  /* bool */
	put(&kv, "\1", 1);
	nkv++;
	kv_str(&kv, &nkv, "clip.projector_type", mp->projector_type);
	kv_u32(&kv, &nkv, "clip.vision", "embedding_length", d);
	kv_u32(&kv, &nkv, "clip.vision", "feed_forward_length", f);
	kv_u32(&kv, &nkv, "clip.vision", "block_count", L);
	kv_u32(&kv, &nkv, "clip.vision", "attention.head_count", a->num_heads);
	kv_u32(&kv, &nkv, "clip.vision", "image_size", a->image_size);
	kv_u32(&kv, &nkv, "clip.vision", "patch_size", a->patch_size);
	kv_u32(&kv, &nkv, "clip.vision", "projection_dim", out);
	if (mp->merge_key)
		kv_u32(&kv, &nkv, "clip.vision", mp->merge_key, m);
	gguf_emit(dir, "mmproj.gguf", g, dt, kv, nkv);
	free(g->v);
}

/* ==== sentence-transformers folders ==== */

#define MAX_ST_DENSE 4

/* --st-dense OUT[:nobias], in order */
static struct { uint64_t out; bool bias; } st_dense[MAX_ST_DENSE];
static size_t n_st_dense;

static void
write_text(const char *dir, const char *name, const char *text)
{
	char *p = join(dir, name);
	FILE *f = fopen(p, "wb");
	if (!f || fputs(text, f) < 0 || fclose(f))
		die("write %s", p);
	free(p);
}

static char *
make_dir(const char *dir, const char *name)
{
	char *p = join(dir, name);
	if (mkdir(p, 0755) != 0 && errno != EEXIST)
		die("mkdir %s: %s", p, strerror(errno));
	return p;
}

/* The folder sentence-transformers saves around a Transformer at the
 * root: modules.json, mean pooling, the Dense modules (a linear layer
 * each, F32, in their own folders), normalization last. */
static void
write_sentence_transformers(const char *dir, const cfg *c)
{
	buf mods = {0};
	char line[256], name[32];
	size_t idx = 0;
	bprintf(&mods, "[\n  {\"idx\": 0, \"name\": \"0\", \"path\": \"\", "
		"\"type\": \"sentence_transformers.models.Transformer\"},\n");
	snprintf(name, sizeof name, "%zu_Pooling", ++idx);
	char *pool = make_dir(dir, name);
	snprintf(line, sizeof line, "{\"word_embedding_dimension\": %" PRIu64 ", \"pooling_mode_cls_token\": "
		 "false, \"pooling_mode_mean_tokens\": true}\n", c->hidden);
	write_text(pool, "config.json", line);
	free(pool);
	bprintf(&mods, "  {\"idx\": %zu, \"name\": \"%zu\", \"path\": \"%s\", "
		"\"type\": \"sentence_transformers.models.Pooling\"},\n", idx, idx, name);
	uint64_t width = c->hidden;
	for (size_t i = 0; i < n_st_dense; i++) {
		snprintf(name, sizeof name, "%zu_Dense", ++idx);
		char *d = make_dir(dir, name);
		snprintf(line, sizeof line, "{\"in_features\": %" PRIu64 ", \"out_features\": %" PRIu64
			 ", \"bias\": %s, \"activation_function\": \"torch.nn.modules.activation.Tanh\"}\n",
			 width, st_dense[i].out, st_dense[i].bias ? "true" : "false");
		write_text(d, "config.json", line);
		tensor lin[2] = {{.name = "linear.weight", .nd = 2, .shape = {st_dense[i].out, width}},
				 {.name = "linear.bias", .nd = 1, .shape = {st_dense[i].out}}};
		char *p = join(d, "model.safetensors");
		write_shard(p, lin, 0, st_dense[i].bias ? 2 : 1, &dtypes[2]);
		free(p);
		free(d);
		bprintf(&mods, "  {\"idx\": %zu, \"name\": \"%zu\", \"path\": \"%s\", "
			"\"type\": \"sentence_transformers.models.Dense\"},\n", idx, idx, name);
		width = st_dense[i].out;
	}
	snprintf(name, sizeof name, "%zu_Normalize", ++idx);
	free(make_dir(dir, name));
	bprintf(&mods, "  {\"idx\": %zu, \"name\": \"%zu\", \"path\": \"%s\", "
		"\"type\": \"sentence_transformers.models.Normalize\"}\n]\n", idx, idx, name);
	write_text(dir, "modules.json", (const char *)mods.p);
	write_text(dir, "sentence_bert_config.json", "{\"max_seq_length\": 256, \"do_lower_case\": false}\n");
	write_text(dir, "config_sentence_transformers.json",
		   "{\"__version__\": {\"sentence_transformers\": \"2.0.0\"}, \"prompts\": {}}\n");
	free(mods.p);
}

/* ==== main ==== */

static const struct {
	const char *name;
	enum plant p;
} plants[] = {
	{"mha-k", P_MHA_K},
	{"missing-block", P_MISSING_BLOCK},
	{"missing-expert", P_MISSING_EXPERT},
	{"untied-trained-head", P_UNTIED_TRAINED},
	{"tied-identical-head", P_TIED_IDENTICAL},
	{"missing-tower-layer", P_MISSING_TOWER_LAYER},
	{"projector-width", P_PROJECTOR_WIDTH},
	{"missing-ssm", P_MISSING_SSM},
};

/* What read_cfg allocated. */
static void
free_cfg(cfg *c)
{
	free(c->blocks);
	for (size_t i = 0; i < WS_CAT_MAX_PARTS; i++)
		ws_arch_free(&c->part_arch[i]);
	if (c->towers_only || c->encdec)
		ws_arch_free(&c->main_arch);
}

static void
usage(void)
{
	fputs("usage: mkmodel DIR CONFIG.json [--format safetensors|gguf|mmproj] [--shards N]\n"
	      "               [--mmproj-drop N]\n"
	      "               [--dtype BF16|F16|F32|Q8_0|Q4_0|Q5_0|Q4_K|Q5_K|Q6_K (GGUF)] [--tie-head-copy]\n"
	      "               [--fp8] [--plant DEFECT]\n"
	      "               [--mla-split] [--gguf-mtp] [--meta KEY=N]\n"
	      "               [--class NAME] [--legacy-norms] [--position-ids]\n"
	      "               [--st] [--st-dense OUT[:nobias]]... [--ignored] [--tied-copies]\n"
	      "               [--single-file] [--gguf-shape-fix] [--gguf-prefix]  (--single-file: CONFIG a diffusers\n"
	      "               folder: one original SD file; --gguf-prefix: a network's GGUF names under\n"
	      "               model.diffusion_model.) [--layout new|old]\n"
	      "defects: mha-k missing-block missing-expert untied-trained-head tied-identical-head\n"
	      "         missing-tower-layer projector-width missing-ssm\n",
	      stderr);
	exit(2);
}

int
main(int argc, char **argv)
{
	if (argc < 3)
		usage();
	const char *dir = argv[1], *config = argv[2];
	bool gguf = false, head_copy = false, fp8 = false, mla_split = false, gguf_mtp = false;
	bool legacy_norms = false, position_ids = false, st = false, ignored = false, tied_copies = false;
	bool mmproj = false, single_file = false;
	uint64_t mmproj_drop = 0;
	uint64_t shards = 1;
	const struct dtype *dt = &dtypes[0];
	enum plant plant = P_NONE;
	for (int i = 3; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!strcmp(a, "--single-file")) {
			single_file = true;
			continue;
		}
		if (!strcmp(a, "--gguf-shape-fix")) {
			gguf_shape_fix = true;
			continue;
		}
		if (!strcmp(a, "--gguf-prefix")) {
			gguf_prefix = true;
			continue;
		}
		if (!strcmp(a, "--tie-head-copy") || !strcmp(a, "--fp8") || !strcmp(a, "--mla-split") ||
		    !strcmp(a, "--gguf-mtp") || !strcmp(a, "--legacy-norms") || !strcmp(a, "--position-ids") ||
		    !strcmp(a, "--st") || !strcmp(a, "--ignored") || !strcmp(a, "--tied-copies")) {
			tied_copies = tied_copies || !strcmp(a, "--tied-copies");
			st = st || !strcmp(a, "--st");
			ignored = ignored || !strcmp(a, "--ignored");
			head_copy = head_copy || !strcmp(a, "--tie-head-copy");
			fp8 = fp8 || !strcmp(a, "--fp8");
			mla_split = mla_split || !strcmp(a, "--mla-split");
			gguf_mtp = gguf_mtp || !strcmp(a, "--gguf-mtp");
			legacy_norms = legacy_norms || !strcmp(a, "--legacy-norms");
			position_ids = position_ids || !strcmp(a, "--position-ids");
			continue;
		}
		if (!v)
			usage();
		i++;
		if (!strcmp(a, "--layout")) {
			if (strcmp(v, "new") && strcmp(v, "old"))
				usage();
			layout = !strcmp(v, "new") ? LAYOUT_NEW : LAYOUT_OLD;
		} else if (!strcmp(a, "--format")) {
			if (strcmp(v, "gguf") && strcmp(v, "safetensors") && strcmp(v, "mmproj"))
				usage();
			gguf = !strcmp(v, "gguf");
			mmproj = !strcmp(v, "mmproj");
		} else if (!strcmp(a, "--mmproj-drop")) {
			mmproj_drop = strtoull(v, NULL, 10);
		} else if (!strcmp(a, "--shards")) {
			shards = strtoull(v, NULL, 10);
			if (!shards || shards > 100000)
				usage();
		} else if (!strcmp(a, "--dtype")) {
			dt = NULL;
			for (size_t k = 0; k < DT_COUNT; k++)
				if ((k < 3 || k >= DT_QUANT) && !strcmp(dtypes[k].name, v))
					dt = &dtypes[k];
			if (!dt)
				usage();
		} else if (!strcmp(a, "--meta")) {
			/* KEY=N, KEY without the {arch}. prefix */
			const char *eq = strchr(v, '=');
			if (!eq || eq == v || !eq[1])
				usage();
			meta_key = strndup(v, (size_t)(eq - v));
			meta_val = strtoull(eq + 1, NULL, 10);
		} else if (!strcmp(a, "--class")) {
			class_override = v;
		} else if (!strcmp(a, "--st-dense")) {
			char *end;
			uint64_t out = strtoull(v, &end, 10);
			if (n_st_dense == MAX_ST_DENSE || !out || (*end && strcmp(end, ":nobias")))
				usage();
			st_dense[n_st_dense].out = out;
			st_dense[n_st_dense++].bias = !*end;
		} else if (!strcmp(a, "--plant")) {
			bool found = false;
			for (size_t k = 0; k < sizeof plants / sizeof plants[0]; k++)
				if (!strcmp(plants[k].name, v)) {
					plant = plants[k].p;
					found = true;
				}
			if (!found)
				usage();
		} else {
			usage();
		}
	}
	if ((gguf || mmproj) && dt == &dtypes[0])
		dt = &dtypes[1];  /* the converter's default for float weights */

	struct stat cst;
	if (single_file && stat(config, &cst) == 0 && S_ISDIR(cst.st_mode)) {
		single_file_pipeline(dir, config, dt, plant);
		return 0;
	}
	cfg c = {0};
	const char *raw;
	size_t raw_len;
	{
		/* a diffusers network names its class, not a model_type */
		char *s = slurp(config, &raw_len);
		cJSON *j = ws_json_parse_py(s, raw_len, NULL);
		bool net = j && ws_net_config(j);
		cJSON_Delete(j);
		if (net) {
			net_model(dir, config, s, raw_len, shards, dt, single_file, gguf);
			free(s);
			return 0;
		}
		free(s);
	}
	read_cfg(config, &c, &raw, &raw_len);
	/* an encoder in GGUF: the types llama.cpp converts (bert, nomic-bert) */
	if (c.enc && ((gguf && !c.gguf) || (!gguf && c.eb == EB_GGUF_ONLY) || (plant != P_NONE && plant != P_MISSING_BLOCK) || fp8 || head_copy))
		die("%s: an encoder without --fp8, --tie-head-copy or that defect, in GGUF only as llama.cpp converts it",
		    config);
	if (!c.enc && (class_override || legacy_norms || (position_ids && !c.towers_only)))
		die("--class and --legacy-norms are for encoders, --position-ids for encoders and towers");
	if (c.fam->block == BK_MLA && !c.nope)
		die("%s: MLA sizes missing", config);
	if (c.experts && (!c.moe_inter || !c.topk))
		die("%s: a MoE config needs the expert width and top-k", config);
	if ((mla_split || gguf_mtp) && !gguf)
		die("--mla-split and --gguf-mtp are GGUF only");
	if (meta_key && !gguf && !mmproj)
		die("--meta is for GGUF and vision files");
	if (gguf && c.n_mlp_only)
		die("%s: GGUF has no mlp_only_layers", config);
	if (plant == P_MISSING_EXPERT && c.experts < 3)
		die("missing-expert needs a MoE config with at least 3 experts");
	if ((plant == P_UNTIED_TRAINED || plant == P_TIED_IDENTICAL) && gguf)
		die("tied-head defects are safetensors only (GGUF has no tied switch)");
	if (mkdir(dir, 0755) != 0 && errno != EEXIST)
		die("mkdir %s: %s", dir, strerror(errno));

	if (mmproj) {
		write_mmproj(dir, &c, dt, mmproj_drop);
		free_cfg(&c);
		free((void *)raw);
		return 0;
	}
	if (c.encdec && (fp8 || head_copy || (plant != P_NONE && plant != P_MISSING_TOWER_LAYER)))
		die("%s: an encoder-decoder without --fp8, --tie-head-copy or that defect", config);
	if (c.encdec && gguf && !ws_sw_has(&c.main_arch.flags, WS_ARCH_REL_BIAS))
		die("%s: an encoder-decoder in GGUF only as llama.cpp converts T5", config);
	if (gguf)
		(void)gguf_arch(&c);  /* dies when there is no GGUF layout */
	gen g = {.gguf = gguf, .mla_split = mla_split, .plant = plant, .fp8 = fp8,
		 .gguf_mtp = gguf_mtp, .legacy_norms = legacy_norms, .position_ids = position_ids, .ignored = ignored,
		 .tied_copies = tied_copies,
		 .c = &c};
	for (g.drop_layer = 1; g.drop_layer < c.layers && !is_moe(&c, g.drop_layer); g.drop_layer++)
		;
	if (plant == P_MISSING_EXPERT && g.drop_layer == c.layers)
		die("missing-expert needs a MoE block after block 0");
	build(&g);
	if (head_copy && c.tied && !gguf && plant == P_NONE) {
		uint64_t s[2] = {c.vocab, c.hidden};
		push(&g, 2, s, 0, "lm_head.weight");
	}
	if (gguf) {
		write_gguf(dir, &g, dt);
	} else {
		write_safetensors(dir, &g, shards, dt);
		char *p = join(dir, "config.json");
		FILE *f = fopen(p, "wb");
		if (!f || fwrite(raw, 1, raw_len, f) != raw_len || fclose(f))
			die("write %s", p);
		free(p);
		if (st || n_st_dense)
			write_sentence_transformers(dir, &c);
	}
	free(g.v);
	free_cfg(&c);
	free((void *)raw);
	free((void *)meta_key);
	return 0;
}
