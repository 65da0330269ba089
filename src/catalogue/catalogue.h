/*
 * catalogue.h - what each architecture is, as data (internal).
 *
 * One entry per model_type: the names it goes by (model_type aliases, the
 * class-name prefix of `architectures`, GGUF general.architecture), its
 * norm and MLP kind, its switches, the config booleans that turn switches
 * on or off, and the class defaults transformers applies when a key is
 * absent.  The head a class adds follows from the class-name suffix.
 * Nothing here reads files: arch.c reads a config through these entries.
 */
#ifndef WS_CATALOGUE_H
#define WS_CATALOGUE_H

#include <stdbool.h>
#include <stdint.h>

#include "ws/formula.h"

/* A config reading that plain keys, defaults and switches cannot say. */
enum ws_cat_fixup {
	WS_FIX_NONE,
	WS_FIX_FALCON,     /* multi_query / n_head_kv / new_decoder layouts */
	WS_FIX_DEEPSEEK,   /* topk_method noaux_tc: router score bias */
	WS_FIX_LLAMA4,     /* intermediate_size_mlp, one shared expert */
	WS_FIX_MLLAMA,     /* 8 embedding rows past the vocabulary; tiles, aspect ratios */
	WS_FIX_FF_ADJUST,  /* LFM2's block_auto_adjust_ff_dim: 2/3, a multiplier, rounded up */
};

struct ws_cat_opt {
	const char *key;   /* a config boolean: true sets, false clears */
	ws_switches flags;
	bool off;          /* the other way round: true clears, false sets
			    * (norm_bias false: WS_ARCH_NO_NORM_BIAS) */
};

/* A config string naming parts ("p2c|c2p", or a list of strings): the
 * switches are set when one of its items is `token`. */
struct ws_cat_sopt {
	const char *key;
	const char *token;
	ws_switches flags;
	bool off;          /* the other way round: `token` clears them
			    * (InternViT's norm_type layer_norm: norms with a
			    * bias, rms_norm its class default) */
};

/* WS_CAT_LAYERS: a list of layer indexes below 64, bit i of num for
 * index i (Qwen2.5-VL's fullatt_block_indexes) */
enum ws_cat_vkind { WS_CAT_END, WS_CAT_NUM, WS_CAT_TRUE, WS_CAT_FALSE, WS_CAT_LAYERS };

/* A class default: the value transformers' config class gives `key`
 * when config.json leaves it out. */
struct ws_cat_default {
	const char *key;
	enum ws_cat_vkind kind;
	uint64_t num;
};

/* Which layers of a stack attend through a sliding window when the
 * config has no layer_types list (a config's list always wins). */
enum ws_cat_slide {
	WS_SLIDE_ALL = 0,   /* every layer, when sliding_window is set */
	WS_SLIDE_EVEN,      /* layers 0, 2, 4 ... */
	WS_SLIDE_PATTERN,   /* all but every period-th (sliding_window_pattern) */
	WS_SLIDE_FROM,      /* with use_sliding_window, from max_window_layers on */
	WS_SLIDE_STRING,    /* a pattern string, "LLLG": set by the config, not a type */
};

/* What a class adds on top of the base model. */
enum ws_cat_head {
	WS_HEAD_LM,        /* an LM head unless tied */
	WS_HEAD_NONE,      /* the base model: no head */
	WS_HEAD_OTHER,     /* a head the formula does not know yet */
};

/* A class by the suffix after the entry's prefix ("ForMaskedLM"): its LM
 * head and, for an encoder, the parts it adds on top of the body (a
 * pooler, a masked-LM head, a classifier: WS_ARCH_POOLER ...). */
struct ws_cat_class {
	const char *suffix;
	enum ws_cat_head head;
	ws_switches parts;
};

#define WS_CAT_MAX_NAMES 3
#define WS_CAT_MAX_DEFAULTS 20
#define WS_CAT_MAX_ALIASES 4

/* A config class's own spelling of a value (its attribute_map):
 * DistilBertConfig's `dim` for the hidden size. */
struct ws_cat_alias {
	enum ws_arch_key field;
	const char *key;
};

/*
 * A component a model type's checkpoint holds (SPEC components[]): a
 * multimodal model's text decoder, vision tower and projector, a dual
 * encoder's two towers.  Each has its own architecture: read from its
 * sub-config (as a model of its own type), or, for a projector, from the
 * widths of the towers it joins.  Its tensors are the ones under its
 * module prefixes; the main one (the text decoder) has none and holds
 * every other tensor.
 */
#define WS_CAT_MAX_PARTS 4
#define WS_CAT_MAX_PREFIXES 4
struct ws_cat_part {
	const char *kind;      /* SPEC kind: text, vision, projector */
	const char *name;      /* the component's name: its module's; NULL: the main one */
	const char *config;    /* its sub-config; NULL: a projector; "": the
				* wrapper's own config, read as `type` (an
				* encoder-decoder's two stacks) */
	const char *type;      /* model_type where the sub-config names none;
				* a projector's layout (ws_cat_projector) */
	ws_switches adds;      /* what the wrapper class adds to it */
	const char *prefixes[WS_CAT_MAX_PREFIXES]; /* the main one: none, or
				* the prefixes of its own stack (its
				* tensors' roles are read after them) */
	/* a name (after the prefix) the class ignores on load
	 * (transformers' keys to ignore when unexpected): stored, counted
	 * apart (unloaded-tensor), its role kept */
	const char *ignored[2];  /* its Hugging Face and GGUF names */
	bool whole;            /* its sub-config is a whole config.json (a
				* diffusers pipeline's component): read as one */
	const char *path;      /* that file, for errors (NULL: the model's) */
	/* read as `type` whatever model_type its sub-config names: a second
	 * stack of one tower's config (Mllama's global layers) */
	bool own_type;
	/* no config (a single file's module): its architecture read from its
	 * tensors' names and shapes, `type` the layout they are named by (a
	 * network class, or a text encoder's names: ws_cat_text_names) */
	bool inferred;
	/* an audio tower's outputs averaged this many to one before the
	 * projector (Qwen2-Audio's avg_pooler), a vision tower's this many
	 * per side (Gemma 3's 4 x 4 average pool, when no config says
	 * mm_tokens_per_image); 0: none */
	uint8_t pool;
	/* the wrapper's own defaults for its sub-config, read before the
	 * type's (VoxtralConfig's for its text_config), ended by
	 * WS_CAT_END; NULL: none */
	const struct ws_cat_default *defs;
};

/* The modules of an original Stable Diffusion single file (LDM / SGM
 * names), each a component whose architecture is inferred; *n rows. */
const struct ws_cat_part *ws_cat_single_file_parts(size_t *n);

/* A text encoder's names when it has no config: the keys of the config
 * its class would have, each read from a tensor's dim (a name ending in
 * '.': the count of numbered blocks under it), and the class with and
 * without the projection tensor. */
#define WS_CAT_TEXT_KEYS 8
struct ws_cat_text_names {
	const char *names;       /* a part's type */
	const char *model_type, *cls, *cls_proj, *proj;
	struct {
		const char *key, *tensor;
		unsigned dim;
	} keys[WS_CAT_TEXT_KEYS];
	/* the heads are not in any shape: width / head_dim (64 in every
	 * released CLIP and OpenCLIP text tower; the count does not
	 * depend on it) */
	uint64_t head_dim;
};
const struct ws_cat_text_names *ws_cat_text_names(const char *names);

/* A projector layout: its norm and switches (WS_ARCH_PROJ_*). */
struct ws_cat_projector {
	const char *name;
	enum ws_norm_kind norm;
	ws_switches flags;
	/* the wrapper config's key of the patches merged per side before
	 * it (Idefics3's scale_factor); NULL: the tower's own merge size */
	const char *merge;
	uint64_t merge_default; /* its config class's default */
	/* a config list whose length is its count of blocks (Qwen3-VL's
	 * deepstack_visual_indexes: one merger each), looked up at the
	 * top level, then in the sub-configs; NULL: no blocks */
	const char *count;
	uint64_t count_default; /* its class default's length */
	/* `merge` is the fraction of patches kept per side, its inverse
	 * the patches merged (InternVL's downsample_ratio 0.5: 2) */
	bool merge_ratio;
};
const struct ws_cat_projector *ws_cat_projector(const char *name);

/* llama.cpp's vision GGUF (mmproj, general.architecture "clip"): its
 * clip.projector_type names the tower's type and the projector's
 * layout; the file is those two components. */
struct ws_cat_mmproj {
	const char *projector_type; /* clip.projector_type */
	const struct ws_cat_part *parts; /* the tower (main), the projector */
	/* joined to the text model GGUF beside it: the text model (main),
	 * the tower read from the keys under its config ("clip.vision"),
	 * the projector */
	const struct ws_cat_part *joined;
	/* the clip.vision key of the patches merged per side before the
	 * projector (InternVL's projector.scale_factor), or NULL */
	const char *merge_key;
	/* an audio file's: its tower's key prefix (clip.audio.; NULL:
	 * clip.vision.), and the key of the frames stacked side by side
	 * before the projector (its input that many tower widths), or NULL */
	const char *keys;
	const char *stack_key;
};
const struct ws_cat_mmproj *ws_cat_mmproj(const char *projector_type);
/* The row whose projector has layout `layout` (a writer's question). */
const struct ws_cat_mmproj *ws_cat_mmproj_by_layout(const char *layout);

/* A letter of a layer pattern string and the block it spells. */
struct ws_cat_letter {
	char c;
	uint8_t mixer;    /* enum ws_mixer */
	uint8_t ffn;      /* enum ws_ffn_kind */
};

/* A GGUF key of a stack's mixer sizes ("ssm.state_size") and the field
 * it fills; a list ends with a NULL suffix. */
struct ws_cat_gkey {
	const char *suffix;
	uint8_t field;    /* enum ws_arch_key */
};

/*
 * A stack that is not all attention: each layer's mixer and whether it
 * has a feed-forward, from what the config says (a layer_types list
 * first, then a pattern string, then a period or an interval), and the
 * keys of the mixers' sizes.  Data, read by arch.c.
 */
struct ws_cat_stack {
	uint8_t mixer;          /* a layer's mixer when no rule places another */
	uint8_t ffn;            /* WS_FFN_NONE: no feed-forward; else by the MoE rules */
	uint8_t ssm;            /* what a layer_types "mamba" is (MAMBA or MAMBA2) */
	uint8_t placed;         /* the mixer the period or interval places */
	const char *period, *offset; /* placed where i % period == offset */
	const char *interval;   /* placed where (i + 1) % interval == 0 */
	const char *pattern;    /* a letter per layer (letters below) */
	struct ws_cat_letter letters[4];
	const char *expert_period, *expert_offset; /* MoE where i % period == offset */
	const char *inner;      /* the SSM inner width's own key, else expand × hidden */
	/* this type's own keys of the Mamba-2 heads and head width (read
	 * before the common spellings); with a head width the inner width
	 * is heads × head width */
	const char *ssm_heads, *ssm_head_dim;
	/* a config list of layer indices that hold `placed` (Mllama's
	 * cross_attention_layers), and its class default (ended by -1) when
	 * the config has none */
	const char *listed;
	const int32_t *listed_default;
	/* a list of the layers `placed` is in (LFM2's full_attn_idxs), the
	 * others `other` */
	const char *indices;
	uint8_t other;
	/* a config key whose positive value adds tensors the templates do
	 * not describe, and what to say of it */
	const char *unmodelled, *unmodelled_why;
	/* the GGUF keys of its mixers' sizes (NULL: Mamba's, where
	 * ssm.time_step_rank is the dt rank) */
	const struct ws_cat_gkey *gguf_keys;
	/* the final norm's GGUF name when llama.cpp's converter gives it
	 * another's (LFM2's embedding_norm: token_embd_norm) */
	const char *gguf_final_norm;
};

struct ws_cat_entry {
	const char *names[WS_CAT_MAX_NAMES]; /* model_type, then aliases */
	const char *gguf;      /* general.architecture, or NULL */
	enum ws_norm_kind norm;
	enum ws_mlp_kind mlp;
	ws_switches flags;     /* set, and no config key clears them */
	ws_switches defaults;     /* set unless a config key says otherwise */
	struct ws_cat_opt opt[6];
	bool ffn_4d;           /* intermediate defaults to 4 × hidden */
	enum ws_cat_fixup fixup;
	const char *cls;       /* class-name prefix: "Llama" of LlamaForCausalLM;
				* never NULL for a type with classes */
	struct ws_cat_default defs[WS_CAT_MAX_DEFAULTS];
	enum ws_cat_slide slide;
	uint32_t slide_period; /* WS_SLIDE_PATTERN's class default */
	/* the entry's own classes, ended by a NULL suffix, the first the
	 * one a config without `architectures` is read as (AutoModel's);
	 * NULL: the decoders' (ForCausalLM, Model, ...) */
	const struct ws_cat_class *classes;
	/* keys this type's config class spells its own way, read before
	 * the common spellings of each value */
	struct ws_cat_alias aliases[WS_CAT_MAX_ALIASES];
	struct ws_cat_sopt sopt[3];
	const struct ws_cat_stack *stack; /* NULL: every layer attention */
	/* a wrapper of several components (ws_cat_part), the main one
	 * first; NULL: the type is one component */
	const struct ws_cat_part *parts;
	/* the general.architecture llama.cpp's converter writes for this
	 * type with experts, when another (nemotron_h_moe), or NULL */
	const char *gguf_moe;
};


const struct ws_cat_entry *ws_cat_by_model_type(const char *name);
const struct ws_cat_entry *ws_cat_by_gguf(const char *name);
/* The entry with a model_type or GGUF name that folds to `folded` (lower
 * case, no '_' or '-': how the role table holds architecture names). */
const struct ws_cat_entry *ws_cat_by_folded(const char *folded);
/* The entry whose class prefix `cls` starts with, and its class line
 * (*klass); NULL when no entry's prefix plus a known suffix is cls. */
const struct ws_cat_entry *ws_cat_by_class(const char *cls, const struct ws_cat_class **klass);
/* The class a config of entry e without a known class is read as: the
 * first of its own, or NULL for the decoders'. */
const struct ws_cat_class *ws_cat_default_class(const struct ws_cat_entry *e);
/* The default of key in e, or NULL. */
const struct ws_cat_default *ws_cat_default(const struct ws_cat_entry *e, const char *key);

/*
 * Layer kinds: what one layer of a stack is, by the SPEC names
 * (by_layer[].layer_kind).  A config's layer_types strings are these
 * names ("full_attention" is attention).
 */
enum ws_layer_kind {
	WS_LK_ATTENTION = 0, WS_LK_SLIDING, WS_LK_MAMBA, WS_LK_MAMBA2,
	WS_LK_LINEAR, WS_LK_CONV, WS_LK_MOE, WS_LK_DENSE, WS_LK_MTP,
	WS_LK_XATTN,
	WS_LK_HYBRID, /* attention and Mamba-2 side by side (Falcon-H1) */
	WS_LK_COUNT
};
const char *ws_layer_kind_name(enum ws_layer_kind k);
/* A layer_types string -> kind; -1 when it names none. */
int ws_layer_kind_from_config(const char *s);

/* A component other than the text decoder, told by its name prefix. */
struct ws_cat_component {
	const char *prefix;    /* "vision_tower.", "model.multi_modal_projector." */
	const char *name;      /* the checkpoint's own name: "vision_tower" */
	const char *kind;      /* SPEC components[].kind: vision, projector, audio */
};

/* The component tensor `name` belongs to, or NULL (the text decoder). */
const struct ws_cat_component *ws_cat_component_of(const char *name, size_t len);
/* The same, and in *decided how many of the name's first bytes decided
 * it: a name of at least that many bytes, the same ones, has the same
 * answer (names in a row mostly do). */
const struct ws_cat_component *ws_cat_component_decide(const char *name, size_t len,
							size_t *decided);
/* The whole table (what ws_cat_component_of answers is one of its n
 * entries). */
const struct ws_cat_component *ws_cat_components(size_t *n);
/* The longest prefix: two names longer than it that agree on that many
 * bytes belong to the same component. */
size_t ws_cat_component_prefix_max(void);

#endif
