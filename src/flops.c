/*
 * flops.c - MACs per forward pass (a·N + b·N²), KV cache and memory, read
 * from the tensors' shapes rather than from a hand formula, for any
 * selection of blocks.  See weightscan/flops.h for the convention.
 *
 * Shapes are in PyTorch order ([out, in]) for both formats.  The only
 * architecture facts used are the ones no shape carries: top-k of the
 * experts, which blocks use a sliding window, and the head split of a
 * fused qkv projection.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "catalogue/catalogue.h"
#include "ws/flops.h"
#include "ws/formula.h"
#include "ws/net.h"
#include "ws/json.h"
#include "ws/util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* ==== --layers SPEC ==== */

static const char *
parse_index(const char *p, uint32_t *out)
{
	uint64_t v = 0;
	const char *start = p;
	while (*p >= '0' && *p <= '9') {
		v = v * 10 + (uint64_t)(*p - '0');
		if (v > INT32_MAX)
			return NULL;
		p++;
	}
	if (p == start)
		return NULL;
	*out = (uint32_t)v;
	return p;
}

int
ws_layer_sel_parse(const char *spec, ws_layer_sel *out, char *why, size_t whylen)
{
	memset(out, 0, sizeof *out);
	if (!spec || !*spec) {
		snprintf(why, whylen, "empty layer list");
		return -1;
	}
	/* one range per comma-separated item: count them first */
	size_t items = 1;
	for (const char *p = spec; *p; p++)
		items += *p == ',';
	out->ranges = calloc(items, sizeof *out->ranges);
	if (!out->ranges) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	const char *p = spec;
	for (size_t i = 0; i < items; i++) {
		ws_layer_range r;
		const char *item = p;
		if (!(p = parse_index(p, &r.first)))
			goto bad;
		r.last = r.first;
		if (*p == '-' && !(p = parse_index(p + 1, &r.last)))
			goto bad;
		if (*p != (i + 1 < items ? ',' : '\0'))
			goto bad;
		if (r.last < r.first) {
			snprintf(why, whylen, "'%.*s': a range runs upward (first-last)",
				 (int)(p - item), item);
			goto fail;
		}
		out->blocks += (uint64_t)r.last - r.first + 1;
		if (out->blocks > WS_LAYERS_MAX_RUN) {
			snprintf(why, whylen, "more than %u blocks in one selection",
				 WS_LAYERS_MAX_RUN);
			goto fail;
		}
		out->ranges[out->n++] = r;
		p++;
		continue;
bad:
		snprintf(why, whylen, "'%s' is not a list of blocks like 0-23,27-31 (at '%s')",
			 spec, p && *p ? p : item);
		goto fail;
	}
	return 0;
fail:
	ws_layer_sel_free(out);
	return -1;
}

void
ws_layer_sel_free(ws_layer_sel *s)
{
	if (!s)
		return;
	free(s->ranges);
	memset(s, 0, sizeof *s);
}

char *
ws_layer_sel_format(const ws_layer_sel *s, char *buf, size_t len)
{
	size_t used = 0;
	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < s->n; i++) {
		char item[32];
		const ws_layer_range *r = &s->ranges[i];
		int n = r->first == r->last
			? snprintf(item, sizeof item, "%s%u", i ? "," : "", r->first)
			: snprintf(item, sizeof item, "%s%u-%u", i ? "," : "", r->first, r->last);
		if (used + (size_t)n + 4 > len) {
			snprintf(buf + used, len - used, "...");
			break;
		}
		memcpy(buf + used, item, (size_t)n + 1);
		used += (size_t)n;
	}
	return buf;
}

/* ==== which blocks use a sliding window ==== */

/* The architecture says which layers slide (its config's layer_types or
 * the catalogue's rule for the type). */
static void
mark_sliding(const ws_model *m, ws_flops_model *f)
{
	(void)m;
	const struct ws_arch *a = f->arch;
	f->sliding_window = 0;
	if (!a)
		return;
	for (uint64_t i = 0; i < f->num_layers; i++) {
		f->blocks[i].sliding = ws_arch_layer_sliding(a, i);
		if (f->blocks[i].sliding)
			f->sliding_window = a->sliding_window;
	}
}

/* ==== the model's float dtype (KV cache default) ==== */

static const struct { const char *torch; ws_dtype dt; } torch_dtypes[] = {
	{"bfloat16", WS_DT_BF16}, {"float16", WS_DT_F16}, {"half", WS_DT_F16},
	{"float32", WS_DT_F32}, {"float", WS_DT_F32},
};

/* config torch_dtype (or dtype) first: it is what runs; else the 16/32-bit
 * float type of most matmul weights; else F16 (llama.cpp's cache). */
static ws_dtype
model_float_dtype(const ws_model *m)
{
	for (size_t i = 0; m->arch && i < ARRAY_LEN(torch_dtypes); i++)
		if (!strcmp(m->arch->dtype, torch_dtypes[i].torch))
			return torch_dtypes[i].dt;
	static const ws_dtype floats[] = {WS_DT_BF16, WS_DT_F16, WS_DT_F32};
	uint64_t count[ARRAY_LEN(floats)] = {0};
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if ((unsigned)t->role >= WS_ROLE_COUNT || ws_role_matmul(t->role) == WS_MATMUL_NONE)
			continue;
		for (size_t d = 0; d < ARRAY_LEN(floats); d++)
			if (t->dtype == floats[d])
				count[d] += t->params;
	}
	size_t best = 0;
	for (size_t d = 1; d < ARRAY_LEN(floats); d++)
		if (count[d] > count[best])
			best = d;
	return count[best] ? floats[best] : WS_DT_F16;
}

ws_dtype
ws_flops_parse_dtype(const char *name)
{
	for (int d = 1; name && d < WS_DT_COUNT; d++)
		if (!strcasecmp(name, ws_dtype_name((ws_dtype)d)))
			return (ws_dtype)d;
	return WS_DT_INVALID;
}

/* ==== blocks from shapes ==== */

/* Output and input width of a 2-D weight; the largest dim stands for the
 * output of a fused projection whatever the layout (GPT-2's Conv1D stores
 * [in, out]). */
static uint64_t dim_out(const ws_tensor *t) { return t->ndim >= 1 ? t->shape[0] : 0; }
static uint64_t dim_in(const ws_tensor *t) { return t->ndim >= 2 ? t->shape[t->ndim - 1] : 0; }
static uint64_t dim_max(const ws_tensor *t)
{
	uint64_t v = 0;
	for (uint32_t i = 0; i < t->ndim; i++)
		if (t->shape[i] > v)
			v = t->shape[i];
	return v;
}

/* The attention weights of one block. */
struct block_attn {
	const ws_tensor *q, *q_b, *k, *v, *qkv, *o, *kv_a;
};

static void
note_attn(struct block_attn *b, const ws_tensor *t)
{
	const ws_tensor **slot = NULL;
	switch (t->role) {
	case WS_ROLE_ATTN_Q: slot = &b->q; break;
	case WS_ROLE_ATTN_Q_B: slot = &b->q_b; break;
	case WS_ROLE_ATTN_K: slot = &b->k; break;
	case WS_ROLE_ATTN_V: slot = &b->v; break;
	case WS_ROLE_ATTN_QKV: slot = &b->qkv; break;
	case WS_ROLE_ATTN_O: slot = &b->o; break;
	case WS_ROLE_ATTN_KV_A: slot = &b->kv_a; break;
	default: return;
	}
	if (!*slot)
		*slot = t;
}

static void
block_dims(const struct ws_arch *a, const struct block_attn *b, ws_flops_block *out)
{
	/* v per head sums to attn_o's input width */
	out->v_dim = b->o ? dim_in(b->o) : 0;
	if (b->q_b)
		out->qk_dim = dim_out(b->q_b);
	else if (b->q)
		out->qk_dim = dim_out(b->q);
	else if (b->qkv)
		out->qk_dim = a && a->num_heads && a->head_dim ? a->num_heads * a->head_dim
							       : out->v_dim;
	if (b->kv_a)                       /* MLA caches the latent + rope key */
		out->kv_elems = dim_out(b->kv_a);
	else if (b->k || b->v)
		out->kv_elems = (b->k ? dim_out(b->k) : 0) + (b->v ? dim_out(b->v) : 0);
	else if (b->qkv && dim_max(b->qkv) > out->qk_dim)
		out->kv_elems = dim_max(b->qkv) - out->qk_dim;
	/* an output gate (Qwen3-Next) shares q_proj: the scores use half */
	if (a && ws_sw_has(&a->flags, WS_ARCH_ATTN_GATE) && b->q && !b->q_b)
		out->qk_dim /= 2;
}

/* The recurrent state of layer i per sequence, in elements: the last
 * conv_kernel - 1 inputs of its convolution and the state its scan
 * carries (Mamba: inner × state; Mamba-2: heads × head width × state =
 * inner × state; Gated DeltaNet: a key × value matrix per value head).
 * Shapes do not carry the state size: the architecture's values. */
static bool
state_elems(const struct ws_arch *a, uint64_t i, uint64_t *out)
{
	uint64_t k = a->ssm_conv ? a->ssm_conv - 1 : 0, ch = 0, st = 0, x;
	*out = 0;
	switch (WS_BK_MIX(ws_arch_layer_block(a, i))) {
	case WS_MIX_MAMBA:
		ch = a->ssm_inner;
		if (!ws_mul_u64(a->ssm_inner, a->ssm_state, &st))
			return false;
		break;
	case WS_MIX_MAMBA2:
	case WS_MIX_PARALLEL:
		/* x, B and C pass the conv: inner + 2 × groups × state */
		if (!ws_mul_u64(a->ssm_groups, a->ssm_state, &x) || !ws_mul_u64(x, 2, &x) ||
		    !ws_add_u64(a->ssm_inner, x, &ch) || !ws_mul_u64(a->ssm_inner, a->ssm_state, &st))
			return false;
		break;
	case WS_MIX_LINEAR:
		/* q, k and v pass the conv */
		if (!ws_mul_u64(a->lin_k_heads, a->lin_k_dim, &x) || !ws_mul_u64(x, 2, &x) ||
		    !ws_mul_u64(a->lin_v_heads, a->lin_v_dim, &ch) || !ws_add_u64(ch, x, &ch) ||
		    !ws_mul_u64(a->lin_v_heads, a->lin_k_dim, &st) || !ws_mul_u64(st, a->lin_v_dim, &st))
			return false;
		break;
	case WS_MIX_CONV:
		ch = a->hidden_size;
		break;
	default:
		return true;
	}
	return ws_mul_u64(ch, k, &x) && ws_add_u64(x, st, out);
}

/* Is t outside the component f reads? */
static bool
other_component(const ws_flops_model *f, const ws_tensor *t)
{
	return f->comp >= 0 && t->component != (uint64_t)f->comp;
}

/* A cross-attention weight of a block: its widths and what it caches. */
static void
note_cross(ws_flops_block *b, const ws_tensor *t)
{
	if (t->role == WS_ROLE_XATTN_Q)
		b->x_qk_dim = dim_out(t);
	else if (t->role == WS_ROLE_XATTN_O)
		b->x_v_dim = dim_in(t);
	else if (t->role == WS_ROLE_XATTN_K || t->role == WS_ROLE_XATTN_V)
		b->x_kv_elems += dim_out(t);
}

int
ws_flops_model_init(const ws_model *m, ws_flops_model *f, ws_error *err)
{
	/* a wrapper's components each have their own blocks: the main one */
	bool parts = m->n_components > 1 && m->components[0].main;
	for (uint32_t c = 1; parts && c < m->n_components; c++)
		parts = m->components[c].arch != NULL;
	return ws_flops_model_init_component(m, parts ? 0 : -1, f, err);
}

int
ws_flops_model_init_component(const ws_model *m, int64_t comp, ws_flops_model *f, ws_error *err)
{
	memset(f, 0, sizeof *f);
	if (m->n_tensors == 0)
		return ws_err(err, WS_EXIT_INPUT, m->path, "no tensors: nothing to compute");
	f->comp = comp < 0 || (uint64_t)comp >= m->n_components ? -1 : comp;
	f->arch = f->comp < 0 || m->components[f->comp].main ? m->arch : m->components[f->comp].arch;
	const struct ws_arch *a = f->arch;
	f->cross = a && a->known && ws_sw_has(&a->flags, WS_ARCH_XATTN);
	/* a denoiser's work is per step over latent pixels, not per token:
	 * said rather than counted as a decoder's */
	if (a && a->net)
		return ws_err(err, WS_EXIT_INPUT, m->path,
			      "flops of a diffusion network (%s) per denoising step are not computed yet",
			      a->net->cls);
	int32_t max_layer = -1;
	bool has_head = false, has_embed = false;
	uint64_t max_expert = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (other_component(f, t))
			continue;
		if (t->role != WS_ROLE_MTP && t->layer > max_layer)
			max_layer = t->layer;
		has_head |= t->role == WS_ROLE_LM_HEAD && t->kind == WS_KIND_WEIGHT;
		has_embed |= t->role == WS_ROLE_EMBED && t->kind == WS_KIND_WEIGHT;
		if ((unsigned)t->role < WS_ROLE_COUNT && ws_role_matmul(t->role) == WS_MATMUL_EXPERT) {
			/* fused experts: [E, out, in]; one per tensor otherwise */
			uint64_t e = t->expert >= 0 ? (uint64_t)t->expert + 1
				   : t->ndim == 3 ? t->shape[0] : 1;
			if (e > max_expert)
				max_expert = e;
		}
	}
	f->num_layers = a && a->num_layers ? a->num_layers : (uint64_t)(max_layer + 1);
	/* every block holds at least one tensor: a larger count is not this
	 * checkpoint, and would size the arrays below from a declaration */
	if (f->num_layers > m->n_tensors)
		return ws_err(err, WS_EXIT_INPUT, m->path,
			      "%llu blocks declared but the checkpoint holds %llu tensors",
			      (unsigned long long)f->num_layers,
			      (unsigned long long)m->n_tensors);
	/* a base-model class (LlamaModel, BertModel) ends at the hidden
	 * states: no head, tied or not */
	f->head_from_embedding = !has_head && has_embed && !(a && a->known && a->no_head);
	f->no_head = !has_head && a && a->known && a->no_head;
	/* an encoder attends both ways over the whole input: b counts every
	 * pair (as for a decoder's prefill), and nothing is cached */
	f->bidirectional = a && a->known && ws_sw_has(&a->flags, WS_ARCH_BIDIRECTIONAL);
	if (max_expert) {
		f->num_experts = a && a->num_experts ? a->num_experts : max_expert;
		f->experts_per_tok = a ? a->experts_per_tok : 0;
		if (f->experts_per_tok == 0 || f->experts_per_tok > f->num_experts) {
			f->experts_per_tok = f->num_experts;
			f->topk_unknown = true;
		}
	}
	f->default_kv_dtype = model_float_dtype(m);
	if (f->num_layers == 0)
		return 0;

	f->blocks = calloc((size_t)f->num_layers, sizeof *f->blocks);
	struct block_attn *attn = calloc((size_t)f->num_layers, sizeof *attn);
	if (!f->blocks || !attn) {
		free(attn);
		ws_flops_model_free(f);
		return ws_err_oom(err, m->path);
	}
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (other_component(f, t) || t->layer < 0 || (uint64_t)t->layer >= f->num_layers ||
		    t->role == WS_ROLE_MTP)
			continue;
		f->blocks[t->layer].present = true;
		if (t->kind == WS_KIND_WEIGHT && t->ndim >= 2) {
			note_attn(&attn[t->layer], t);
			note_cross(&f->blocks[t->layer], t);
		}
	}
	for (uint64_t i = 0; i < f->num_layers; i++) {
		block_dims(a, &attn[i], &f->blocks[i]);
		if (a && a->layer_block && !state_elems(a, i, &f->blocks[i].state_elems)) {
			free(attn);
			ws_flops_model_free(f);
			return ws_err(err, WS_EXIT_INPUT, m->path, "the recurrent state overflows 64 bits");
		}
		if (f->bidirectional)
			f->blocks[i].kv_elems = 0;
	}
	free(attn);
	mark_sliding(m, f);
	return 0;
}

void
ws_flops_model_free(ws_flops_model *f)
{
	if (!f)
		return;
	free(f->blocks);
	memset(f, 0, sizeof *f);
}

/* ==== one selection ==== */

static int
overflow(ws_error *err, const ws_model *m)
{
	return ws_err(err, WS_EXIT_INPUT, m->path, "the counts overflow 64 bits");
}

/* Elements cached per token into bytes of dt: whole blocks of a
 * quantized cache type, rounded up. */
static bool
kv_bytes(ws_dtype dt, uint64_t elems, uint64_t *out)
{
	const ws_dtype_info *di = ws_dtype_get(dt);
	if (!di || !di->block)
		return false;
	uint64_t blocks = elems / di->block + (elems % di->block != 0);
	return ws_mul_u64(blocks, di->block_bytes, out);
}

int
ws_flops_select(const ws_model *m, const ws_flops_model *f, const ws_layer_sel *sel,
		ws_dtype kv_dtype, ws_flops_result *r, ws_error *err)
{
	memset(r, 0, sizeof *r);
	r->kv_dtype = kv_dtype != WS_DT_INVALID ? kv_dtype : f->default_kv_dtype;
	for (size_t i = 0; sel && i < sel->n; i++) {
		if (sel->ranges[i].last < f->num_layers)
			continue;
		if (!f->num_layers)
			return ws_err(err, WS_EXIT_USAGE, m->path,
				      "--layers: block %u is out of range (the model has no blocks)",
				      sel->ranges[i].last);
		return ws_err(err, WS_EXIT_USAGE, m->path,
			      "--layers: block %u is out of range (the model has %llu blocks, 0-%llu)",
			      sel->ranges[i].last, (unsigned long long)f->num_layers,
			      (unsigned long long)(f->num_layers - 1));
	}

	/* how many times each block runs */
	uint32_t *runs = f->num_layers ? calloc((size_t)f->num_layers, sizeof *runs) : NULL;
	if (f->num_layers && !runs)
		return ws_err_oom(err, m->path);
	if (sel) {
		for (size_t i = 0; i < sel->n; i++)
			for (uint64_t l = sel->ranges[i].first; l <= sel->ranges[i].last; l++)
				runs[l]++;   /* <= WS_LAYERS_MAX_RUN: the parser bounds it */
	} else {
		for (uint64_t l = 0; l < f->num_layers; l++)
			runs[l] = 1;
	}

	uint64_t expert_sum[WS_ROLE_COUNT] = {0};
	uint64_t kv_elems = 0, kv_elems_sliding = 0, state = 0, x_kv = 0;
	bool ok = true;
	for (uint64_t l = 0; l < f->num_layers; l++) {
		const ws_flops_block *b = &f->blocks[l];
		uint64_t bl, kv;
		if (!runs[l])
			continue;
		r->blocks += runs[l];
		ok = ok && ws_add_u64(b->qk_dim, b->v_dim, &bl) && ws_mul_u64(bl, runs[l], &bl) &&
		     ws_mul_u64(b->kv_elems, runs[l], &kv);
		if (!ok)
			break;
		if (b->sliding)
			ok = ws_add_u64(r->b_sliding, bl, &r->b_sliding) &&
			     ws_add_u64(kv_elems_sliding, kv, &kv_elems_sliding);
		else
			ok = ws_add_u64(r->b, bl, &r->b);
		ok = ok && ws_add_u64(kv_elems, kv, &kv_elems) &&
		     ws_mul_u64(b->state_elems, runs[l], &kv) && ws_add_u64(state, kv, &state);
		if (b->kv_elems)
			r->kv_blocks += runs[l];
		/* cross-attention: every token against every input token */
		ok = ok && ws_add_u64(b->x_qk_dim, b->x_v_dim, &bl) && ws_mul_u64(bl, runs[l], &bl) &&
		     ws_add_u64(r->c, bl, &r->c) && ws_mul_u64(b->x_kv_elems, runs[l], &kv) &&
		     ws_add_u64(x_kv, kv, &x_kv);
	}
	/* llama.cpp keeps the recurrent state in F32 whatever the cache type */
	ok = ok && ws_mul_u64(state, 4, &r->state_bytes);

	const ws_tensor *head = NULL, *embed = NULL;
	for (uint64_t i = 0; ok && i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		uint64_t times = 1, v;
		if (t->role == WS_ROLE_MTP || other_component(f, t))
			continue;      /* not part of this forward pass */
		if (t->layer >= 0) {
			if ((uint64_t)t->layer >= f->num_layers || !runs[t->layer])
				continue;
			times = runs[t->layer];
		}
		if (t->role == WS_ROLE_LM_HEAD && t->kind == WS_KIND_WEIGHT && !head)
			head = t;
		if (t->role == WS_ROLE_EMBED && t->kind == WS_KIND_WEIGHT && !embed)
			embed = t;
		/* stored once however often the block runs */
		ws_dtype dt = (unsigned)t->dtype < WS_DT_COUNT ? t->dtype : WS_DT_INVALID;
		ok = ws_add_u64(r->weight_bytes, t->bytes, &r->weight_bytes) &&
		     ws_add_u64(r->bytes_by_dtype[dt], t->bytes, &r->bytes_by_dtype[dt]);
		if (t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX)
			ok = ok && ws_add_u64(r->params, t->params, &r->params);
		/* a 1-D weight of a matrix role (a head transform's norm) is
		 * no matrix a token is multiplied by */
		if (!ok || t->kind != WS_KIND_WEIGHT || (unsigned)t->role >= WS_ROLE_COUNT || t->ndim < 2)
			continue;
		/* the input's keys and values: once per input token */
		if (t->role == WS_ROLE_XATTN_K || t->role == WS_ROLE_XATTN_V)
			ok = ws_mul_u64(t->params, times, &v) && ws_add_u64(r->a_input, v, &r->a_input);
		switch (ws_role_matmul(t->role)) {
		case WS_MATMUL_NONE:
			break;
		case WS_MATMUL_DENSE:
			ok = ws_mul_u64(t->params, times, &v) &&
			     ws_add_u64(r->a_by_role[t->role], v, &r->a_by_role[t->role]);
			break;
		case WS_MATMUL_EXPERT:
			ok = ws_mul_u64(t->params, times, &v) &&
			     ws_add_u64(expert_sum[t->role], v, &expert_sum[t->role]);
			break;
		}
	}
	/* a head stored beside a tied embedding is a redundant copy: its
	 * parameters are not counted twice (SPEC params) */
	if (ok && head && embed && f->arch && (ws_sw_has(&f->arch->flags, WS_ARCH_TIED)) &&
	    r->params >= head->params)
		r->params -= head->params;
	/* the tied head multiplies by the embedding matrix */
	if (ok && !head && embed && f->head_from_embedding)
		r->a_by_role[WS_ROLE_LM_HEAD] = embed->params;
	/* routed experts: every expert's weights summed, then top-k of E;
	 * dividing once keeps the sum exact */
	for (int role = 0; ok && role < WS_ROLE_COUNT; role++) {
		if (!expert_sum[role])
			continue;
		uint64_t v;
		ok = ws_mul_u64(expert_sum[role], f->experts_per_tok, &v);
		if (ok)
			r->a_by_role[role] = v / f->num_experts;
	}
	for (int role = 0; ok && role < WS_ROLE_COUNT; role++)
		ok = ws_add_u64(r->a, r->a_by_role[role], &r->a);
	ok = ok && kv_bytes(r->kv_dtype, kv_elems, &r->kv_bytes_per_token) &&
	     kv_bytes(r->kv_dtype, kv_elems_sliding, &r->kv_bytes_per_token_sliding) &&
	     kv_bytes(r->kv_dtype, x_kv, &r->cross_kv_bytes_per_input_token);
	free(runs);
	return ok ? 0 : overflow(err, m);
}

bool
ws_flops_eval_at(const ws_flops_model *f, const ws_flops_result *r, uint64_t seq,
		 ws_flops_eval *out)
{
	uint64_t win = f->sliding_window && f->sliding_window < seq ? f->sliding_window : seq;
	uint64_t an, bn, sn, kv_global, kv_g, kv_s;
	memset(out, 0, sizeof *out);
	out->seq = seq;
	kv_global = r->kv_bytes_per_token - r->kv_bytes_per_token_sliding;
	return ws_mul_u64(r->a, seq, &an) &&
	       ws_mul_u64(r->b, seq, &bn) && ws_mul_u64(bn, seq, &bn) &&
	       ws_mul_u64(r->b_sliding, seq, &sn) && ws_mul_u64(sn, win, &sn) &&
	       ws_add_u64(an, bn, &out->macs) && ws_add_u64(out->macs, sn, &out->macs) &&
	       ws_mul_u64(out->macs, 2, &out->flops) &&
	       ws_mul_u64(kv_global, seq, &kv_g) &&
	       ws_mul_u64(r->kv_bytes_per_token_sliding, win, &kv_s) &&
	       ws_add_u64(kv_g, kv_s, &out->kv_cache_bytes) &&
	       ws_add_u64(r->weight_bytes, out->kv_cache_bytes, &out->memory_bytes) &&
	       ws_add_u64(out->memory_bytes, r->state_bytes, &out->memory_bytes);
}

/* ==== JSON ==== */

static cJSON *
ab_object(uint64_t a, uint64_t b, uint64_t b_sliding, uint64_t window, uint64_t mul)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	/* a MAC is two FLOPs; MACs fit, so 2× fits unless near 2^64 */
	uint64_t va, vb, vs;
	if (!ws_mul_u64(a, mul, &va) || !ws_mul_u64(b, mul, &vb) ||
	    !ws_mul_u64(b_sliding, mul, &vs)) {
		cJSON_AddNullToObject(o, "a");
		return o;
	}
	ws_json_add_u64(o, "a", va);
	ws_json_add_u64(o, "b", vb);
	if (window) {
		ws_json_add_u64(o, "b_sliding", vs);
		ws_json_add_u64(o, "sliding_window", window);
	}
	return o;
}

cJSON *
ws_flops_result_to_json(const ws_flops_model *f, const ws_flops_result *r,
			const char *layers, const ws_flops_eval *ev)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "layers", layers ? layers : "");
	ws_json_add_u64(o, "blocks", r->blocks);
	cJSON *macs = ab_object(r->a, r->b, r->b_sliding, f->sliding_window, 1);
	cJSON_AddItemToObject(o, "macs", macs);
	cJSON *by_role = macs ? cJSON_AddObjectToObject(macs, "a_by_role") : NULL;
	for (int role = 0; by_role && role < WS_ROLE_COUNT; role++)
		if (r->a_by_role[role])
			ws_json_add_u64(by_role, ws_role_name((ws_role)role), r->a_by_role[role]);
	cJSON_AddItemToObject(o, "flops", ab_object(r->a, r->b, r->b_sliding, f->sliding_window, 2));
	if (f->cross) {
		/* + c·N·N_input, and a_input·N_input once per input */
		cJSON *x = cJSON_AddObjectToObject(o, "cross_attention");
		uint64_t c2, ai2;
		if (x && ws_mul_u64(r->c, 2, &c2) && ws_mul_u64(r->a_input, 2, &ai2)) {
			ws_json_add_u64(x, "macs_c", r->c);
			ws_json_add_u64(x, "flops_c", c2);
			ws_json_add_u64(x, "macs_a_per_input_token", r->a_input);
			ws_json_add_u64(x, "flops_a_per_input_token", ai2);
			ws_json_add_u64(x, "kv_cache_bytes_per_input_token", r->cross_kv_bytes_per_input_token);
		}
	}
	if (f->num_experts) {
		cJSON *moe = cJSON_AddObjectToObject(o, "experts");
		if (moe) {
			ws_json_add_u64(moe, "num_experts", f->num_experts);
			ws_json_add_u64(moe, "experts_per_tok", f->experts_per_tok);
			cJSON_AddBoolToObject(moe, "top_k_known", !f->topk_unknown);
		}
	}
	if (ev) {
		cJSON *at = cJSON_AddObjectToObject(o, "at_seq");
		if (at) {
			ws_json_add_u64(at, "seq", ev->seq);
			ws_json_add_u64(at, "macs", ev->macs);
			ws_json_add_u64(at, "flops", ev->flops);
			ws_json_add_u64(at, "kv_cache_bytes", ev->kv_cache_bytes);
			ws_json_add_u64(at, "memory_bytes", ev->memory_bytes);
		}
	}
	ws_json_add_u64(o, "params", r->params);
	ws_json_add_u64(o, "kv_cache_bytes_per_token", r->kv_bytes_per_token);
	if (f->sliding_window)
		ws_json_add_u64(o, "kv_cache_bytes_per_token_sliding",
				r->kv_bytes_per_token_sliding);
	cJSON_AddStringToObject(o, "kv_dtype", ws_dtype_name(r->kv_dtype));
	if (r->state_bytes) {
		/* recurrent layers: no KV cache, a state per sequence */
		ws_json_add_u64(o, "kv_blocks", r->kv_blocks);
		ws_json_add_u64(o, "recurrent_state_bytes_per_sequence", r->state_bytes);
	}
	cJSON *w = cJSON_AddObjectToObject(o, "weights");
	if (w) {
		ws_json_add_u64(w, "bytes", r->weight_bytes);
		cJSON *bd = cJSON_AddObjectToObject(w, "by_dtype");
		for (int d = 0; bd && d < WS_DT_COUNT; d++)
			if (r->bytes_by_dtype[d])
				ws_json_add_u64(bd, d ? ws_dtype_name((ws_dtype)d) : "INVALID",
						r->bytes_by_dtype[d]);
	}
	return o;
}

/* ==== the other components, per image ==== */

/* One side of an image for a tower of any size: px rounded to the
 * nearest whole number of merged patches (cell = patch x merge pixels,
 * half to even, at least one), as the image processor resizes it; the
 * patches along it and the side used.  false on overflow. */
static bool
image_side(uint64_t px, uint64_t patch, uint64_t merge, uint64_t *patches, uint64_t *side)
{
	uint64_t cell;
	if (!ws_mul_u64(patch, merge, &cell) || !cell)
		return false;
	uint64_t units = px / cell, rem = px % cell;
	if (rem > cell - rem || (rem == cell - rem && units % 2))
		units++;
	if (!units)
		units = 1;
	return ws_mul_u64(units, merge, patches) && ws_mul_u64(units, cell, side);
}

/* Σ over the windows along one side of its length²: g merged patches in
 * windows of w, the last one short. */
static bool
window_squares(uint64_t g, uint64_t w, uint64_t *out)
{
	uint64_t full, r = g % w, rr;
	return ws_mul_u64(g / w, w, &full) && ws_mul_u64(full, w, &full) && ws_mul_u64(r, r, &rr) &&
	       ws_add_u64(full, rr, out);
}

/* A tower of any image size: the image's tokens (one temporal patch per
 * image: an image is its frames repeated), and its window attention's
 * pairs; q->b and q->b_window per pair, by which blocks attend how. */
static bool
any_size_tower(const struct ws_arch *a, uint64_t height, uint64_t width, ws_flops_part *q)
{
	uint64_t mg = a->merge_size ? a->merge_size : 1, gh, gw, hd, nf = a->num_layers;
	q->size_default = !height;
	if (!height)
		height = WS_FLOPS_TOWER_IMAGE;
	if (!width)
		width = height;
	if (!image_side(height, a->patch_size, mg, &gh, &q->height) ||
	    !image_side(width, a->patch_size, mg, &gw, &q->width) || !ws_mul_u64(gh, gw, &q->tokens))
		return false;
	if (a->vision_window) {
		/* windows of whole merged patches; every pair within one */
		uint64_t w = a->vision_window / (a->patch_size * mg), sh, sw, m4;  /* image_side checked it */
		q->window = a->vision_window;
		nf = a->n_full_attn_blocks;
		if (!w || !window_squares(gh / mg, w, &sh) || !window_squares(gw / mg, w, &sw) ||
		    !ws_mul_u64(mg, mg, &m4) || !ws_mul_u64(m4, m4, &m4) || !ws_mul_u64(sh, sw, &q->window_pairs) ||
		    !ws_mul_u64(q->window_pairs, m4, &q->window_pairs))
			return false;
	}
	return ws_add_u64(a->head_dim, a->v_head_dim, &hd) && ws_mul_u64(hd, a->num_heads, &hd) &&
	       ws_mul_u64(hd, nf, &q->b) && ws_mul_u64(hd, a->num_layers - nf, &q->b_window);
}

bool
ws_flops_per_image(const ws_component *co)
{
	/* an image's or audio input's components only (an encoder-decoder's
	 * stacks are per token or per input sequence) */
	return !co->main && co->arch && co->arch->known &&
	       (!strcmp(co->kind, "vision") || !strcmp(co->kind, "projector") || !strcmp(co->kind, "audio"));
}

/* An audio tower's convolution, its MACs per position after the stem:
 * the one over the mel channels runs at stride 1 over two frames a
 * position (the next's stride is 2), the other once. */
static uint64_t
audio_conv_macs(const ws_tensor *t, const struct ws_arch *a)
{
	if (t->kind != WS_KIND_WEIGHT)
		return 0;
	bool mel = t->ndim == 3 && t->shape[1] == a->num_channels && a->num_channels != a->hidden_size;
	return mel && t->params <= UINT64_MAX / 2 ? 2 * t->params : t->params;
}

int
ws_flops_parts(const ws_model *m, uint64_t height, uint64_t width, ws_flops_part **out, size_t *n,
	       ws_error *err)
{
	*out = NULL;
	*n = 0;
	if (m->n_components < 2)
		return 0;
	ws_flops_part *p = calloc(m->n_components, sizeof *p);
	if (!p)
		return ws_err_oom(err, m->path);
	uint64_t tower_tokens = 0, tower_width = 0;  /* width: an audio tower's */
	bool ok = true;
	/* an audio file's tower is its main component: its projector sees
	 * the tower's positions, pooled as its part says */
	const struct ws_cat_part *mp0 = m->components[0].part;
	if (m->arch && m->arch->known && ws_sw_has(&m->arch->flags, WS_ARCH_CONV_STEM)) {
		tower_tokens = m->arch->max_position_embeddings / (mp0 && mp0->pool ? mp0->pool : 1);
		tower_width = m->arch->hidden_size;
	}
	for (uint32_t c = 0; ok && c < m->n_components; c++) {
		const ws_component *co = &m->components[c];
		const struct ws_arch *a = co->arch;
		/* an image's or an audio input's components only (an
		 * encoder-decoder's stacks are per token or per input
		 * sequence) */
		bool audio = !strcmp(co->kind, "audio");
		if (!ws_flops_per_image(co))
			continue;
		ws_flops_part *q = &p[(*n)++];
		q->name = co->name;
		q->kind = co->kind;
		bool proj = !strcmp(co->kind, "projector");
		uint64_t adapter = 0;
		/* every matrix a token passes through: the blocks', the patch
		 * convolution's (once per patch), a projector's; a tower's own
		 * adapter (Llama 4's) apart, over its shuffled tokens */
		for (uint64_t i = 0; ok && i < m->n_tensors; i++) {
			const ws_tensor *t = &m->tensors[i];
			if (t->component != c || t->kind != WS_KIND_WEIGHT || t->ndim < 2 ||
			    (unsigned)t->role >= WS_ROLE_COUNT)
				continue;
			if (audio && t->role == WS_ROLE_CONV)
				ok = ws_add_u64(q->a, audio_conv_macs(t, a), &q->a);
			else if (ws_role_matmul(t->role) == WS_MATMUL_DENSE || t->role == WS_ROLE_PATCH_EMBED ||
				 (proj && t->role == WS_ROLE_PROJECTOR))
				ok = ws_add_u64(q->a, t->params, &q->a);
			else if (t->role == WS_ROLE_PROJECTOR)
				ok = ws_add_u64(adapter, t->params, &adapter);
		}
		if (audio) {
			/* the positions after the conv stem: every input
			 * padded to max_source_positions (Whisper's 30 s,
			 * 3,000 mel frames, 1,500 positions); the projector
			 * sees them pooled as the wrapper's part says */
			uint64_t hd, pool = co->part && co->part->pool ? co->part->pool : 1;
			q->tokens = a->max_position_embeddings;
			q->audio = true;
			tower_tokens = q->tokens / pool;
			tower_width = a->hidden_size;
			ok = ok && ws_add_u64(a->head_dim, a->v_head_dim, &hd) && ws_mul_u64(hd, a->num_heads, &hd) &&
			     ws_mul_u64(hd, a->num_layers, &q->b);
		} else if (proj) {
			/* the tokens per image the config says the text model
			 * gets (Gemma 3 pools the tower's), else the tower's,
			 * merged m x m before it */
			const cJSON *mt = m->config ? cJSON_GetObjectItemCaseSensitive(m->config, "mm_tokens_per_image") : NULL;
			uint64_t mg = a->merge_size ? a->merge_size : 1;
			q->tokens = tower_tokens / (mg * mg);
			/* after an audio tower: its frames side by side in
			 * rows of the projector's input width (Voxtral's 4) */
			q->audio = tower_width > 0;
			if (q->audio && a->embedding_size > tower_width)
				q->tokens = tower_tokens / (a->embedding_size / tower_width);
			if (cJSON_IsNumber(mt) && mt->valuedouble >= 1 && mt->valuedouble < (double)tower_tokens)
				q->tokens = (uint64_t)mt->valuedouble;
		} else if (!a->image_size && a->patch_size && a->num_layers >= a->n_full_attn_blocks &&
			   (ws_sw_has(&a->flags, WS_ARCH_NO_PATCH_POS) || a->keys[WS_AK_PATCHES])) {
			/* rotary or interpolated positions: any image size */
			ok = ok && any_size_tower(a, height, width, q) && ws_mul_u64(adapter, q->tokens, &adapter);
			tower_tokens = q->tokens;
			tower_width = 0;
		} else {
			uint64_t hd;
			q->image_size = a->image_size;
			q->tokens = a->num_patches ? a->num_patches + ws_sw_has(&a->flags, WS_ARCH_CLS_TOKEN) : 0;
			/* an image of several tiles: their tokens side by side */
			if (a->max_tiles)
				ok = ok && ws_mul_u64(q->tokens, a->max_tiles, &q->tokens);
			tower_tokens = q->tokens;
			tower_width = 0;
			/* pooled per side before the projector, as the part says */
			if (co->part && co->part->pool > 1)
				tower_tokens = a->num_patches / ((uint64_t)co->part->pool * co->part->pool);
			/* a pixel shuffle before the projector (Llama 4's
			 * pixel_shuffle_ratio, in the tower's sub-config): the
			 * patches, r x r of them to a token, its adapter over those */
			const cJSON *sub = m->config && co->part && co->part->config
				? cJSON_GetObjectItemCaseSensitive(m->config, co->part->config) : NULL;
			const cJSON *ps = sub ? cJSON_GetObjectItemCaseSensitive(sub, "pixel_shuffle_ratio") : NULL;
			if (cJSON_IsNumber(ps) && ps->valuedouble > 0 && ps->valuedouble <= 1) {
				tower_tokens = (uint64_t)((double)a->num_patches * ps->valuedouble * ps->valuedouble);
				ok = ok && ws_mul_u64(adapter, tower_tokens, &adapter);
			} else {
				ok = ok && ws_mul_u64(adapter, q->tokens, &adapter);
			}
			/* every pair of the image's tokens, in every block */
			ok = ok && ws_add_u64(a->head_dim, a->v_head_dim, &hd) && ws_mul_u64(hd, a->num_heads, &hd) &&
			     ws_mul_u64(hd, a->num_layers, &q->b);
		}
		uint64_t x, y, z;
		ok = ok && ws_mul_u64(q->a, q->tokens, &x) && ws_mul_u64(q->tokens, q->tokens, &y) &&
		     ws_mul_u64(q->b, y, &y) && ws_add_u64(x, y, &q->macs) && ws_add_u64(q->macs, adapter, &q->macs) &&
		     ws_mul_u64(q->b_window, q->window_pairs, &z) && ws_add_u64(q->macs, z, &q->macs);
	}
	/* a tower's stack of layers alone (Mllama's global layers) runs
	 * over the same image's tokens as its sibling */
	for (size_t i = 0; ok && i < *n; i++) {
		if (p[i].tokens || !strcmp(p[i].kind, "projector"))
			continue;
		for (size_t k = 0; k < *n && !p[i].tokens; k++)
			if (p[k].tokens && !strcmp(p[k].kind, p[i].kind))
				p[i].tokens = p[k].tokens;
		uint64_t x, y;
		ok = ws_mul_u64(p[i].a, p[i].tokens, &x) && ws_mul_u64(p[i].tokens, p[i].tokens, &y) &&
		     ws_mul_u64(p[i].b, y, &y) && ws_add_u64(x, y, &p[i].macs);
	}
	if (!ok) {
		free(p);
		*n = 0;
		return overflow(err, m);
	}
	*out = p;
	return 0;
}

/* ==== diffusion: per denoising step, per decode, per prompt ==== */

/* The latent scale a denoiser's pixels are taken at when no VAE is read:
 * the released latent-diffusion VAEs have four levels, halving three
 * times. */
#define VAE_SCALE_DEFAULT 8
/* a side no image generator comes near; it bounds the products */
#define SIDE_MAX (1u << 20)

static const struct ws_arch *
arch_of(const ws_model *m, uint32_t c)
{
	if (c >= m->n_components)
		return m->arch;
	return m->components[c].main ? m->arch : m->components[c].arch;
}

bool
ws_flops_is_diffusion(const ws_model *m)
{
	if (m->arch && m->arch->net)
		return true;
	for (uint32_t c = 0; c < m->n_components; c++)
		if (arch_of(m, c) && arch_of(m, c)->net)
			return true;
	return false;
}

void
ws_flops_diffusion_free(ws_flops_diffusion *d)
{
	if (!d)
		return;
	free(d->stages);
	memset(d, 0, sizeof *d);
}

/* A network's pass at h x w pixels into s. */
static int
net_stage(const ws_model *m, const struct ws_net *net, const ws_flops_diffusion *d, uint64_t txt,
	  ws_flops_stage *s, ws_error *err)
{
	bool vae = !strcmp(net->kind, "vae");
	uint64_t down = net->levels > 0 && net->levels <= 16 ? 1ull << (net->levels - 1) : 1;
	uint64_t px = vae ? 1 : d->vae_scale * (net->patch ? net->patch : 1), mult;
	if (!ws_mul_u64(px, down, &mult) || mult > SIDE_MAX)
		return ws_err(err, WS_EXIT_INPUT, m->path, "%s: its downsampling overflows", s->name);
	if (d->height % mult || d->width % mult)
		return ws_err(err, WS_EXIT_USAGE, m->path,
			      "--size %llux%llu: %s (%s) takes sides that are multiples of %llu pixels",
			      (unsigned long long)d->height, (unsigned long long)d->width, s->name, net->cls,
			      (unsigned long long)mult);
	s->per = vae ? "decode" : "denoising_step";
	s->known = true;
	s->height = d->height;
	s->width = d->width;
	s->grid_h = d->height / px;
	s->grid_w = d->width / px;
	/* --seq: the long prompt's length (T5's max_sequence_length), in
	 * the context beside CLIP's padded 77 where the pipeline joins them */
	s->text_tokens = vae ? 0 : txt && net->long_text_tokens && net->long_text_tokens <= net->text_tokens
		? net->text_tokens - net->long_text_tokens + txt : net->text_tokens;
	struct ws_net_macs nm;
	if (!ws_net_macs(net, s->grid_h, s->grid_w, s->text_tokens, &nm))
		return ws_err(err, WS_EXIT_USAGE, m->path, "--size %llux%llu: %s's MACs overflow 64 bits",
			      (unsigned long long)d->height, (unsigned long long)d->width, s->name);
	s->image_tokens = nm.image_tokens;
	s->macs = nm.macs;
	s->attention = nm.attention;
	s->encode_macs = nm.encode_macs;
	s->encode_attention = nm.encode_attention;
	memcpy(s->by_role, nm.by_role, sizeof s->by_role);
	return 0;
}

/* A text encoder per prompt: a·N + b·N² over its N tokens. */
static int
prompt_stage(const ws_model *m, uint32_t c, const struct ws_net *den, uint64_t txt, ws_flops_stage *s,
	     ws_error *err)
{
	const struct ws_arch *a = arch_of(m, c);
	/* CLIP pads the prompt to its position table's rows; T5 (relative
	 * positions, no table) to the pipeline's max_sequence_length */
	uint64_t n, rows = 0;
	for (uint64_t i = 0; i < m->n_tensors && !rows; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (t->component == c && t->role == WS_ROLE_POS_EMBED && t->kind == WS_KIND_WEIGHT && t->ndim == 2)
			rows = t->shape[0];
	}
	n = rows ? rows : txt ? txt : den && den->long_text_tokens ? den->long_text_tokens
		: den ? den->text_tokens : a->max_position_embeddings;
	if (!n)
		return 0;
	ws_flops_model f;
	ws_flops_result r;
	ws_flops_eval ev;
	if (ws_flops_model_init_component(m, c, &f, err))
		return -1;
	int rc = ws_flops_select(m, &f, NULL, WS_DT_INVALID, &r, err);
	bool ok = !rc && ws_flops_eval_at(&f, &r, n, &ev);
	ws_flops_model_free(&f);
	if (rc)
		return -1;
	uint64_t nn;
	if (!ok || !ws_mul_u64(n, n, &nn) || !ws_mul_u64(r.b, nn, &s->attention))
		return overflow(err, m);
	for (int role = 0; role < WS_ROLE_COUNT; role++)
		if (!ws_mul_u64(r.a_by_role[role], n, &s->by_role[role]))
			return overflow(err, m);
	s->per = "prompt";
	s->known = true;
	s->text_tokens = n;
	s->macs = ev.macs;
	return 0;
}

int
ws_flops_diffusion_run(const ws_model *m, uint64_t h, uint64_t w, uint64_t txt, ws_flops_diffusion *d,
		       ws_error *err)
{
	memset(d, 0, sizeof *d);
	uint32_t nc = m->n_components ? m->n_components : 1;
	const struct ws_net *den = NULL, *vae = NULL;
	const struct ws_arch *first = NULL;
	for (uint32_t c = 0; c < nc; c++) {
		const struct ws_arch *a = arch_of(m, c);
		if (!a || !a->net)
			continue;
		if (!strcmp(a->net->kind, "vae")) {
			vae = vae ? vae : a->net;
		} else if (!den) {
			den = a->net;
			first = a;
		}
		first = first ? first : a;
	}
	d->vae_scale = VAE_SCALE_DEFAULT;
	d->vae_scale_assumed = true;
	if (vae && vae->levels >= 1 && vae->levels <= 16) {
		d->vae_scale = 1ull << (vae->levels - 1);
		d->vae_scale_assumed = false;
	}
	d->size_given = h != 0;
	if (!h) {
		/* the native size: a denoiser's latent sample_size, a VAE's pixels */
		uint64_t side = 0;
		if (den && !ws_mul_u64(den->sample_size, d->vae_scale, &side))
			side = 0;
		else if (!den && vae)
			side = vae->sample_size;
		bool inferred = first && first->source && !strcmp(first->source, "inferred");
		if (!side || side > SIDE_MAX)
			return ws_err(err, WS_EXIT_USAGE, m->path,
				      "%s: no sample_size to take the native size from (%s): give --size H[xW]",
				      den ? den->cls : vae ? vae->cls : "the network",
				      inferred ? "no config, the network read from its tensors" : "its config has none");
		h = w = side;
		d->size_from = (den ? den : vae)->sample_from_config ? "sample_size" : "pipeline default";
	} else {
		d->size_from = "--size";
	}
	d->height = h;
	d->width = w;
	if (!(d->stages = calloc(nc, sizeof *d->stages)))
		return ws_err_oom(err, m->path);
	for (uint32_t c = 0; c < nc; c++) {
		const struct ws_arch *a = arch_of(m, c);
		ws_flops_stage *s = &d->stages[d->n++];
		if (c < m->n_components) {
			s->name = m->components[c].name;
			s->kind = m->components[c].kind;
			s->params = m->components[c].params;
		} else {
			s->name = s->kind = a->net->kind;
			for (uint64_t i = 0; i < m->n_tensors; i++)
				s->params += m->tensors[i].params;
		}
		int rc = 0;
		if (a && a->net)
			rc = net_stage(m, a->net, d, txt, s, err);
		else if (a && a->known && !strcmp(s->kind, "text_encoder"))
			rc = prompt_stage(m, c, den, txt, s, err);
		if (rc) {
			ws_flops_diffusion_free(d);
			return -1;
		}
	}
	return 0;
}

cJSON *
ws_flops_stage_to_json(const ws_flops_stage *s)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	uint64_t f2, a2;
	bool ok = cJSON_AddStringToObject(o, "name", s->name) && cJSON_AddStringToObject(o, "kind", s->kind) &&
		  cJSON_AddStringToObject(o, "layers", "all");
	if (ok && !s->known) {
		ok = cJSON_AddStringToObject(o, "skipped", "no architecture to cost this component by") != NULL;
		ws_json_add_u64(o, "params", s->params);
		return ok ? o : (cJSON_Delete(o), NULL);
	}
	ok = ok && cJSON_AddStringToObject(o, "per", s->per);
	if (ok && s->height) {
		ws_json_add_u64(o, "height", s->height);
		ws_json_add_u64(o, "width", s->width);
		cJSON *g = cJSON_AddObjectToObject(o, "grid");
		ok = g != NULL;
		if (g) {
			ws_json_add_u64(g, "height", s->grid_h);
			ws_json_add_u64(g, "width", s->grid_w);
		}
		ws_json_add_u64(o, "image_tokens", s->image_tokens);
	}
	if (s->text_tokens)
		ws_json_add_u64(o, "text_tokens", s->text_tokens);
	cJSON *mc = ok ? cJSON_AddObjectToObject(o, "macs") : NULL;
	cJSON *fl = mc ? cJSON_AddObjectToObject(o, "flops") : NULL;
	cJSON *br = fl ? cJSON_AddObjectToObject(mc, "by_role") : NULL;
	if (!br) {
		cJSON_Delete(o);
		return NULL;
	}
	ws_json_add_u64(mc, "total", s->macs);
	ws_json_add_u64(mc, "attention", s->attention);
	for (int role = 0; role < WS_ROLE_COUNT; role++)
		if (s->by_role[role])
			ws_json_add_u64(br, ws_role_name((ws_role)role), s->by_role[role]);
	/* FLOPs = 2 x MACs, null when that does not fit */
	if (ws_mul_u64(s->macs, 2, &f2) && ws_mul_u64(s->attention, 2, &a2)) {
		ws_json_add_u64(fl, "total", f2);
		ws_json_add_u64(fl, "attention", a2);
	} else {
		cJSON_AddNullToObject(fl, "total");
	}
	if (s->encode_macs) {
		cJSON *e = cJSON_AddObjectToObject(o, "encode");
		if (e) {
			ws_json_add_u64(e, "macs", s->encode_macs);
			ws_json_add_u64(e, "attention_macs", s->encode_attention);
			if (ws_mul_u64(s->encode_macs, 2, &f2))
				ws_json_add_u64(e, "flops", f2);
		}
	}
	ws_json_add_u64(o, "params", s->params);
	return o;
}
