/*
 * ws/net.h - diffusion networks (UNet, VAE, DiT) as catalogue data.
 *
 * A diffusers config names its network by `_class_name`, not by
 * model_type.  The catalogue (src/catalogue/net.c) describes each class as
 * units (a resnet, a transformer block, a sampler: lines of tensor names,
 * roles and symbolic shapes) placed by a layout: global units, repeated
 * blocks, and level stacks whose widths come from block_out_channels.
 * Reading a config makes the list of every tensor the class holds; the
 * formula is its sum and the comparison is by name.
 */
#ifndef WS_NET_H
#define WS_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "ws/formula.h"

struct cJSON;

/* The key of a pipeline's config (model_index.json with each component's
 * config.json under its name) naming the main component. */
#define WS_PIPELINE_MAIN "_weightscan_main"
/* ... and that component's config.json, for errors */
#define WS_PIPELINE_MAIN_PATH "_weightscan_main_path"

struct ws_net_tensor {
	char *name;            /* as the class names it (no component prefix) */
	ws_role role;
	ws_kind kind;
	bool buffer;           /* stored, not a parameter (SD3's pos_embed) */
	uint8_t ndim;
	uint64_t dim[5];       /* a 3-D convolution has five */
	uint64_t elements;
	/* where it runs in a step (flops): the tokens it multiplies (WS_NET_TOK_*),
	 * the level whose positions those are (0: the network's input grid,
	 * each level halves it), the attention its projection starts
	 * (WS_NET_ATT_*) of inner width att_dim; part of a VAE's encode pass */
	uint8_t tok, att, level;
	bool encode;
	uint64_t att_dim;
};

enum { WS_NET_TOK_IMG = 0, WS_NET_TOK_ONE, WS_NET_TOK_TXT, WS_NET_TOK_ALL };
enum { WS_NET_ATT_NONE = 0, WS_NET_ATT_SELF, WS_NET_ATT_TXT, WS_NET_ATT_JOINT };

struct ws_net {
	const char *cls;       /* the class (static) */
	const char *kind;      /* SPEC component kind: unet, transformer, vae */
	struct ws_net_tensor *t; /* sorted by name */
	size_t n;
	uint64_t total;        /* parameters (buffers apart) */
	uint64_t by_role[WS_ROLE_COUNT];
	uint64_t sample_size, in_channels, latent_channels, scale_factor;
	/* flops: the levels (a VAE's scale factor is 2^(levels-1)); the
	 * latent positions a token covers per side (a DiT's patch, FLUX's
	 * pipeline packing); the text tokens it attends to per prompt, and
	 * those of an encoder without a position table (T5); whether
	 * sample_size came from the config */
	uint64_t levels, patch, text_tokens, long_text_tokens;
	bool sample_from_config;
	char layout[256];      /* inferred: the levels read from the shapes, or "" */
};

/* MACs of one pass of a net over a grid of h x w positions at level 0
 * (a UNet's latent, a DiT's tokens, a VAE's pixels) and txt text tokens:
 * every weight matrix times the positions or tokens it runs over (a
 * convolution's weight per output position), and each attention's scores
 * and weighted values (2 x queries x keys x inner width).  VAE: the
 * decode pass, encode_macs apart. */
struct ws_net_macs {
	uint64_t macs, attention, encode_macs, encode_attention;
	uint64_t by_role[WS_ROLE_COUNT];
	uint64_t image_tokens;  /* positions at level 0 */
};
/* false: a value overflows 64 bits. */
bool ws_net_macs(const struct ws_net *n, uint64_t h, uint64_t w, uint64_t txt, struct ws_net_macs *out);

/* Is config a diffusion network's (a `_class_name` the catalogue has)? */
bool ws_net_config(const struct cJSON *config);
/* The kind a class gives its component (unet, transformer, vae), or NULL. */
const char *ws_net_kind_of(const char *cls);
/* Read config as its class: out->net made, out->known; a class the
 * catalogue has with a key it cannot read (a list where it reads a
 * number, an option it has no layout for) leaves out->known false with
 * the reason.  Values that are not counts are input errors naming the key. */
int ws_net_arch_from_config(const struct cJSON *config, const char *path, struct ws_arch *out,
			    ws_error *err);
void ws_net_free(struct ws_net *n);
/* A layout a file without a config tells by its names (FLUX as Black
 * Forest Labs names it): its quantities read from the shapes, out->net
 * made, source "inferred".  1: found (out->net, or out->unsupported saying
 * why it has none); 0: no layout's names; -1: error. */
int ws_net_infer(const ws_model *m, struct ws_arch *out, ws_error *err);
/* A GGUF of a diffusion network as ComfyUI-GGUF writes it: is arch one
 * of the families its loader takes (general.architecture flux, sd3,
 * sdxl, ...)?  Then read it as a single file's names and shapes
 * (ws_net_infer); a family the names do not match, or names of no
 * layout, leave out->known false saying so.  0, or -1 with err set. */
bool ws_net_gguf_family(const char *arch);
int ws_net_infer_gguf(const ws_model *m, const char *family, struct ws_arch *out, ws_error *err);
/* The general.architecture of a class's GGUF layout (for mkmodel), or NULL. */
const char *ws_net_gguf_arch(const char *cls);
/* The same for the tensors under prefix (a single file's module), of
 * class cls (NULL: any the names tell). */
int ws_net_infer_part(const ws_model *m, const char *prefix, const char *cls, struct ws_arch *out,
		      ws_error *err);
/* The single-file layout of a diffusers class (for mkmodel), or NULL. */
const char *ws_net_single_file_class(const char *cls);
/* The expected tensor named name[0..len), or NULL. */
const struct ws_net_tensor *ws_net_find(const struct ws_net *n, const char *name, size_t len);
/* The formula of a net: total and by_role (no layers). */
void ws_net_formula(const struct ws_net *n, struct ws_formula *f);
/* Roles of component comp's tensors from the net (after the name prefix
 * of the component's part), then its comparison: missing-tensor, shape-mismatch,
 * unexpected-tensor, count-mismatch.  Returns 0, or -1 on OOM. */
void ws_net_roles(ws_model *m, uint32_t comp, const struct ws_net *n);
int ws_net_compare(ws_model *m, uint32_t comp, const struct ws_net *n);

#endif
