/*
 * report.c - the inspect report: totals by dtype, role and layer, the
 * architecture and formula sections, and the findings; text and JSON.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "ws/json.h"
#include "ws/report.h"
#include "ws/util.h"

#include "ws/adapter.h"
#include "ws/formula.h"
#include "ws/kv.h"
#include "ws/quant.h"

static const char *const severity_names[] = {"info", "warning", "error"};

const char *
ws_severity_name(ws_severity s)
{
	return (unsigned)s < 3 ? severity_names[s] : "?";
}

static const ws_finding_code finding_codes[] = {
	{"count-mismatch", "CountMismatch", WS_SEV_ERROR, "A role's parameter total differs from the architecture's formula."},
	{"shape-mismatch", "ShapeMismatch", WS_SEV_ERROR, "A tensor's shape differs from what the architecture implies."},
	{"missing-tensor", "MissingTensor", WS_SEV_ERROR, "A tensor the architecture requires is absent."},
	{"layer-gap", "LayerGap", WS_SEV_ERROR, "A block index is missing from the checkpoint."},
	{"tied-embeddings", "TiedEmbeddings", WS_SEV_ERROR, "The config ties the embeddings but an output head is stored."},
	{"index-mismatch", "IndexMismatch", WS_SEV_ERROR, "The index.json and the shards disagree about tensors or total size."},
	{"metadata-mismatch", "MetadataMismatch", WS_SEV_ERROR, "GGUF metadata contradicts the tensors."},
	{"loader-incompatible", "LoaderIncompatible", WS_SEV_ERROR, "Allowed by the format but refused by llama.cpp or transformers."},
	{"expect-params", "ExpectParams", WS_SEV_ERROR, "The parameter count missed check --expect-params."},
	{"config-mismatch", "ConfigMismatch", WS_SEV_ERROR, "The config contradicts the tensors consistently (widths, layer count, vocabulary)."},
	{"unexpected-tensor", "UnexpectedTensor", WS_SEV_WARNING, "A tensor the architecture does not have."},
	{"layer-inconsistent", "LayerInconsistent", WS_SEV_WARNING, "One block differs from its siblings."},
	{"declared-mismatch", "DeclaredMismatch", WS_SEV_ERROR, "A declared size (total_parameters, size label, name) differs from the count."},
	{"unsupported-architecture", "UnsupportedArchitecture", WS_SEV_WARNING, "No formula for this model type; the count is not checked."},
	{"unknown-role", "UnknownRole", WS_SEV_WARNING, "Tensor names that no role table line recognizes."},
	{"vocab-only", "VocabOnly", WS_SEV_INFO, "A GGUF with metadata and no tensors."},
	{"dtype-mixed", "DtypeMixed", WS_SEV_INFO, "Float types are mixed inside one block."},
	{"unloaded-tensor", "UnloadedTensor", WS_SEV_WARNING, "Stored, but the config's class does not load it; counted apart."},
	{"duplicate-tensor", "DuplicateTensor", WS_SEV_ERROR, "The same tensor name in two files of one checkpoint that are not variants of each other."},
	{"variant", "Variant", WS_SEV_INFO, "The folder holds variants of one checkpoint; which one was read."},
	{"adapter-mismatch", "AdapterMismatch", WS_SEV_ERROR, "An adapter's tensors contradict its config or its base."},
};

const ws_finding_code *
ws_finding_codes(size_t *n)
{
	*n = sizeof finding_codes / sizeof finding_codes[0];
	return finding_codes;
}

const ws_finding_code *
ws_finding_code_find(const char *code)
{
	for (size_t i = 0; code && i < sizeof finding_codes / sizeof finding_codes[0]; i++)
		if (!strcmp(finding_codes[i].code, code))
			return &finding_codes[i];
	return NULL;
}

bool
ws_model_has_errors(const ws_model *m)
{
	for (size_t i = 0; i < m->n_findings; i++)
		if (m->findings[i].severity == WS_SEV_ERROR && !m->findings[i].ignored)
			return true;
	return false;
}

/* Room for params_by_layer[layer] (zeroed); -1 on OOM.  The array grows
 * as blocks appear, so the totals take one pass over the tensors. */
static int
layer_reserve(ws_summary *s, int32_t layer, int64_t *cap)
{
	if (layer < *cap)
		return 0;
	int64_t want = *cap * 2 > (int64_t)layer + 1 ? *cap * 2 : (int64_t)layer + 1;
	uint64_t *p = realloc(s->params_by_layer, (size_t)want * sizeof *p);
	if (!p)
		return -1;
	memset(p + *cap, 0, (size_t)(want - *cap) * sizeof *p);
	s->params_by_layer = p;
	*cap = want;
	return 0;
}

/* Tensors of one dtype in a row, summed in registers. */
typedef struct {
	ws_dtype dt;
	uint64_t el, by, pa, n;
} dtype_run;

/* The run added to s; the next is of dtype dt. */
static inline void
dtype_run_end(ws_summary *s, dtype_run *r, ws_dtype dt)
{
	s->elements_by_dtype[r->dt] += r->el;
	s->bytes_by_dtype[r->dt] += r->by;
	s->params_by_dtype[r->dt] += r->pa;
	s->tensors_by_dtype[r->dt] += r->n;
	s->elements += r->el;
	s->bytes += r->by;
	s->params += r->pa;
	*r = (dtype_run){.dt = dt};
}

/* Tensors [from, to) added to s, whose by_layer array has *cap entries
 * for blocks up to *max_layer; -1 on OOM.  A run of tensors of one dtype
 * (a file mostly holds one or two), and of one block, is summed in
 * registers and added to the tables when it ends: a table entry updated
 * for every tensor made the loop several times slower than its loads. */
static int
sum_range(const ws_model *m, uint64_t from, uint64_t to, ws_summary *s, int32_t *max_layer_io,
	  int64_t *cap)
{
	int32_t max_layer = *max_layer_io;
	uint64_t buffers = 0, n_buffers = 0, quant_aux = 0, n_quant_aux = 0;
	uint64_t unloaded = 0, n_unloaded = 0, non_embedding = 0;
	uint64_t by_role[WS_ROLE_COUNT] = {0};
	dtype_run run = {.dt = WS_DT_INVALID};
	int32_t l_run = -1;
	uint64_t l_pa = 0;
	for (uint64_t i = from; i < to; i++) {
		const ws_tensor *t = &m->tensors[i];
		ws_dtype dt = (unsigned)t->dtype < WS_DT_COUNT ? t->dtype : WS_DT_INVALID;
		uint64_t el = t->elements, pa = t->params;
		ws_role role = t->role;
		int32_t layer = t->layer;
		if (dt != run.dt)
			dtype_run_end(s, &run, dt);
		/* sums of validated sizes cannot overflow: each file's bytes
		 * fit in its size, and elements are bounded likewise per byte */
		run.el += el;
		run.by += t->bytes;
		run.n++;
		/* the blocks of the main component: a tower numbers its own */
		bool main = !m->n_components || m->components[t->component].main;
		if (layer > max_layer && main) {
			max_layer = layer;
			if (layer_reserve(s, max_layer, cap) < 0)
				return -1;
		}
		if (role == WS_ROLE_BUFFER) {
			buffers += el;
			n_buffers++;
			continue;
		}
		if (role == WS_ROLE_QUANT_AUX) {
			quant_aux += el;
			n_quant_aux++;
			continue;
		}
		if (t->unloaded) {
			unloaded += el;
			n_unloaded++;
			continue;
		}
		run.pa += pa;
		if ((unsigned)role < WS_ROLE_COUNT)
			by_role[role] += pa;
		/* by_layer is the main component's (a tower numbers its
		 * blocks from 0 too) */
		if (layer >= 0 && main) {
			if (layer != l_run) {
				if (l_run >= 0)
					s->params_by_layer[l_run] += l_pa;
				l_run = layer;
				l_pa = 0;
			}
			l_pa += pa;
		}
		if (role != WS_ROLE_EMBED && role != WS_ROLE_POS_EMBED &&
		    role != WS_ROLE_TYPE_EMBED)
			non_embedding += pa;
	}
	dtype_run_end(s, &run, WS_DT_INVALID);
	if (l_run >= 0)
		s->params_by_layer[l_run] += l_pa;
	for (size_t r = 0; r < WS_ROLE_COUNT; r++)
		s->params_by_role[r] += by_role[r];
	*max_layer_io = max_layer;
	s->buffers += buffers;
	s->n_buffers += n_buffers;
	s->quant_aux += quant_aux;
	s->n_quant_aux += n_quant_aux;
	s->unloaded += unloaded;
	s->n_unloaded += n_unloaded;
	s->non_embedding += non_embedding;
	return 0;
}

/* A large model's totals in runs taken from a counter by the caller and
 * a helper (one that comes late takes fewer): each sums into its own,
 * and sums do not depend on the order they were added in. */
#define SUM_RUN 4096

typedef struct sum_worker {
	ws_summary s;
	int32_t max_layer;
	int64_t cap;
	bool oom;
} sum_worker;

typedef struct sum_team {
	const ws_model *m;
	_Atomic uint64_t next;
	sum_worker w[2];
} sum_team;

static void
sum_work(void *arg, unsigned worker)
{
	sum_team *t = arg;
	sum_worker *w = &t->w[worker];
	uint64_t n = t->m->n_tensors;
	for (;;) {
		uint64_t from = atomic_fetch_add_explicit(&t->next, SUM_RUN, memory_order_relaxed);
		if (from >= n)
			break;
		uint64_t to = n - from < SUM_RUN ? n : from + SUM_RUN;
		if (sum_range(t->m, from, to, &w->s, &w->max_layer, &w->cap)) {
			w->oom = true;
			break;
		}
	}
}

int
ws_summary_compute(const ws_model *m, ws_summary *s)
{
	sum_team *t = calloc(1, sizeof *t);
	memset(s, 0, sizeof *s);
	if (!t)
		return -1;
	t->m = m;
	for (int k = 0; k < 2; k++)
		t->w[k].max_layer = -1;
	ws_team_run(ws_team_helpers_for(m->n_tensors), sum_work, t);
	sum_worker *a = &t->w[0], *b = &t->w[1];
	if (a->oom || b->oom || (b->max_layer > a->max_layer &&
				 layer_reserve(&a->s, b->max_layer, &a->cap) < 0)) {
		ws_summary_free(&a->s);
		ws_summary_free(&b->s);
		free(t);
		return -1;
	}
	/* b's into a's */
	a->s.elements += b->s.elements;
	a->s.bytes += b->s.bytes;
	a->s.buffers += b->s.buffers;
	a->s.n_buffers += b->s.n_buffers;
	a->s.quant_aux += b->s.quant_aux;
	a->s.n_quant_aux += b->s.n_quant_aux;
	a->s.unloaded += b->s.unloaded;
	a->s.n_unloaded += b->s.n_unloaded;
	a->s.params += b->s.params;
	a->s.non_embedding += b->s.non_embedding;
	for (size_t i = 0; i < WS_DT_COUNT; i++) {
		a->s.elements_by_dtype[i] += b->s.elements_by_dtype[i];
		a->s.bytes_by_dtype[i] += b->s.bytes_by_dtype[i];
		a->s.params_by_dtype[i] += b->s.params_by_dtype[i];
		a->s.tensors_by_dtype[i] += b->s.tensors_by_dtype[i];
	}
	for (size_t i = 0; i < WS_ROLE_COUNT; i++)
		a->s.params_by_role[i] += b->s.params_by_role[i];
	for (int32_t l = 0; l <= b->max_layer; l++)
		a->s.params_by_layer[l] += b->s.params_by_layer[l];
	ws_summary_free(&b->s);
	int32_t max_layer = a->max_layer > b->max_layer ? a->max_layer : b->max_layer;
	*s = a->s;
	free(t);
	s->n_layers = max_layer + 1;
	/* Active parameters of a MoE: everything but the routed experts and
	 * the MTP layer, plus top-k / num_experts of the routed experts. */
	if (m->arch && m->arch->known && m->arch->num_experts && m->arch->experts_per_tok &&
	    m->arch->experts_per_tok <= m->arch->num_experts) {
		uint64_t routed = 0, mtp = s->params_by_role[WS_ROLE_MTP];
		static const ws_role experts[] = {WS_ROLE_MOE_GATE, WS_ROLE_MOE_UP,
						  WS_ROLE_MOE_DOWN, WS_ROLE_MOE_GATE_UP};
		for (size_t i = 0; i < sizeof experts / sizeof experts[0]; i++)
			routed += s->params_by_role[experts[i]];
		uint64_t e = m->arch->num_experts, k = m->arch->experts_per_tok;
		/* routed * k / e without overflow: k <= e, both small */
		uint64_t part = routed / e * k + routed % e * k / e;
		s->active = s->params - mtp - routed + part;
		s->has_active = true;
	}
	return 0;
}

void
ws_summary_free(ws_summary *s)
{
	free(s->params_by_layer);
	s->params_by_layer = NULL;
}

/* ==== JSON ==== */

static cJSON *
dtype_map(const uint64_t *v, const uint64_t *present)
{
	cJSON *o = cJSON_CreateObject();
	for (int d = 0; o && d < WS_DT_COUNT; d++)
		if (present[d])
			ws_json_add_u64(o, ws_dtype_name((ws_dtype)d), v[d]);
	return o;
}

static cJSON *
findings_json(const ws_model *m)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && i < m->n_findings; i++) {
		const ws_finding *f = &m->findings[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "severity", ws_severity_name(f->severity));
		cJSON_AddStringToObject(o, "code", f->code);
		ws_json_add_bytes(o, "message", f->message, strlen(f->message));
		if (f->component)
			cJSON_AddStringToObject(o, "component", f->component);
		if (f->tensor)
			ws_json_add_bytes(o, "tensor", f->tensor, strlen(f->tensor));
		if (f->role >= 0)
			cJSON_AddStringToObject(o, "role", ws_role_name((ws_role)f->role));
		if (f->layer >= 0)
			ws_json_add_i64(o, "layer", f->layer);
		if (f->has_expected) {
			ws_json_add_u64(o, "expected", f->expected);
			ws_json_add_u64(o, "actual", f->actual);
		}
		if (f->ignored) {
			cJSON_AddTrueToObject(o, "ignored");
			if (f->ignored_why)
				ws_json_add_bytes(o, "ignored_why", f->ignored_why, strlen(f->ignored_why));
		}
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

/* Component c's parameters per block and role, in one pass over the
 * tensors (blocks are numbered per component): nl rows of
 * WS_ROLE_COUNT + 1 (the last the block's total), malloc'd; NULL when
 * it has no blocks or on OOM. */
static uint64_t *
layer_rows(const ws_model *m, uint32_t c, size_t *nl)
{
	size_t n = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (m->tensors[i].component == c && m->tensors[i].layer >= 0 &&
		    (size_t)m->tensors[i].layer >= n)
			n = (size_t)m->tensors[i].layer + 1;
	uint64_t *lr = n ? calloc(n * (WS_ROLE_COUNT + 1), sizeof *lr) : NULL;
	for (uint64_t i = 0; lr && i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (t->layer >= 0 && t->component == c && (unsigned)t->role < WS_ROLE_COUNT &&
		    t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX && !t->unloaded) {
			lr[(size_t)t->layer * (WS_ROLE_COUNT + 1) + t->role] += t->params;
			lr[(size_t)t->layer * (WS_ROLE_COUNT + 1) + WS_ROLE_COUNT] += t->params;
		}
	}
	*nl = lr ? n : 0;
	return lr;
}

/* SPEC components[]: {name, kind, arch, params, formula?, active?,
 * layers[]}; a layer carries its roles (the per-component by_role). */
static cJSON *
components_json(const ws_model *m, const ws_summary *s)
{
	cJSON *a = cJSON_CreateArray();
	for (uint32_t c = 0; a && c < m->n_components; c++) {
		const ws_component *co = &m->components[c];
		cJSON *o = cJSON_CreateObject();
		if (!o || !cJSON_AddItemToArray(a, o)) {
			cJSON_Delete(o);
			break;
		}
		cJSON_AddStringToObject(o, "name", co->name);
		cJSON_AddStringToObject(o, "kind", co->kind);
		const struct ws_arch *ar = co->main ? m->arch : co->arch;
		if (ar)
			cJSON_AddItemToObject(o, "arch", ws_arch_to_json(ar));
		else
			cJSON_AddNullToObject(o, "arch");
		ws_json_add_u64(o, "params", co->params);
		if (co->main && m->formula)
			ws_json_add_u64(o, "formula", m->formula->total);
		else if (co->has_formula)
			ws_json_add_u64(o, "formula", co->formula);
		if (co->main && s->has_active) {
			/* the model's active count holds every other component
			 * whole (a tower has no experts): the text's is the rest */
			uint64_t others = 0;
			for (uint32_t k = 0; k < m->n_components; k++)
				if (!m->components[k].main && !ws_add_u64(others, m->components[k].params, &others))
					others = 0;
			ws_json_add_u64(o, "active", s->active >= others ? s->active - others : s->active);
		}
		cJSON *ls = cJSON_AddArrayToObject(o, "layers");
		if ((!co->main && !ar) || !ls)
			continue;
		const struct ws_arch *kn = ar && ar->known ? ar : NULL;
		const struct ws_formula *fo = co->main ? m->formula : co->formula_of;
		size_t nl;
		uint64_t *lr = layer_rows(m, c, &nl);
		for (size_t l = 0; lr && l < nl; l++) {
			const uint64_t *row = &lr[l * (WS_ROLE_COUNT + 1)];
			cJSON *e = ws_layer_json(co->name, l, kn ? ws_arch_layer_kind(kn, l) : NULL,
						 co->main && l < (size_t)s->n_layers ? s->params_by_layer[l]
										    : row[WS_ROLE_COUNT]);
			if (!e || !cJSON_AddItemToArray(ls, e)) {
				cJSON_Delete(e);
				break;
			}
			if (fo && l < fo->num_layers)
				ws_json_add_u64(e, "formula", fo->by_layer[l]);
			cJSON *br = cJSON_AddObjectToObject(e, "by_role");
			for (int r = 0; br && r < WS_ROLE_COUNT; r++)
				if (row[r])
					ws_json_add_u64(br, ws_role_name((ws_role)r), row[r]);
		}
		free(lr);
	}
	return a;
}

/* ==== what a GGUF file says of itself ==== */

typedef struct gguf_facts {
	const char *name, *tok_model;
	size_t name_len, tok_model_len;
	bool has_file_type, has_ctx, has_vocab, chat_template;
	uint64_t file_type, ctx, vocab;
} gguf_facts;

static gguf_facts
facts_of(const ws_model *m)
{
	gguf_facts g = {0};
	const ws_kv *kv;
	const char *arch;
	size_t al;
	if ((kv = ws_model_find_kv(m, "general.name")))
		ws_kv_get_str(kv, &g.name, &g.name_len);
	if ((kv = ws_model_find_kv(m, "general.file_type")))
		g.has_file_type = ws_kv_get_u64(kv, &g.file_type);
	if ((kv = ws_model_find_kv(m, "general.architecture")) && ws_kv_get_str(kv, &arch, &al) &&
	    al < 64) {
		char key[96];
		snprintf(key, sizeof key, "%.*s.context_length", (int)al, arch);
		if ((kv = ws_model_find_kv(m, key)))
			g.has_ctx = ws_kv_get_u64(kv, &g.ctx);
	}
	if ((kv = ws_model_find_kv(m, "tokenizer.ggml.model")))
		ws_kv_get_str(kv, &g.tok_model, &g.tok_model_len);
	if ((kv = ws_model_find_kv(m, "tokenizer.ggml.tokens")) && kv->type == WS_V_ARRAY) {
		g.has_vocab = true;
		g.vocab = kv->arr_count;
	}
	g.chat_template = ws_model_find_kv(m, "tokenizer.chat_template") != NULL;
	return g;
}

static void
gguf_facts_text(FILE *f, const ws_model *m)
{
	gguf_facts g = facts_of(m);
	char c1[32];
	if (g.name) {
		fputs("name           ", f);
		ws_fput_escaped(f, g.name, g.name_len);
		fputc('\n', f);
	}
	if (g.has_file_type) {
		const char *q = ws_gguf_file_type_name(g.file_type);
		fprintf(f, "file type      %s (general.file_type %llu)\n", q ? q : "unknown",
			(unsigned long long)g.file_type);
	}
	if (g.has_ctx)
		fprintf(f, "context        %s tokens\n", ws_fmt_commas(g.ctx, c1, sizeof c1));
	if (g.tok_model || g.has_vocab) {
		fputs("tokenizer      ", f);
		if (g.tok_model)
			ws_fput_escaped(f, g.tok_model, g.tok_model_len);
		if (g.has_vocab)
			fprintf(f, "%s%s tokens", g.tok_model ? ", " : "",
				ws_fmt_commas(g.vocab, c1, sizeof c1));
		fprintf(f, ", chat template %s\n", g.chat_template ? "present" : "absent");
	}
}

static void
gguf_facts_json(cJSON *obj, const ws_model *m)
{
	gguf_facts g = facts_of(m);
	cJSON *o = cJSON_AddObjectToObject(obj, "gguf");
	if (!o)
		return;
	if (g.name)
		ws_json_add_bytes(o, "name", g.name, g.name_len);
	if (g.has_file_type) {
		const char *q = ws_gguf_file_type_name(g.file_type);
		ws_json_add_u64(o, "file_type", g.file_type);
		if (q)
			cJSON_AddStringToObject(o, "quantization", q);
	}
	if (g.has_ctx)
		ws_json_add_u64(o, "context_length", g.ctx);
	if (g.tok_model)
		ws_json_add_bytes(o, "tokenizer_model", g.tok_model, g.tok_model_len);
	if (g.has_vocab)
		ws_json_add_u64(o, "vocab_size", g.vocab);
	cJSON_AddBoolToObject(o, "chat_template", g.chat_template);
}

int
ws_report_inspect_json(const ws_model *m, cJSON *obj)
{
	ws_summary s;
	if (ws_summary_compute(m, &s))
		return -1;
	cJSON_AddStringToObject(obj, "format",
				m->format == WS_FORMAT_GGUF ? "gguf" : "safetensors");
	if (m->format == WS_FORMAT_GGUF)
		gguf_facts_json(obj, m);
	cJSON *files = cJSON_AddArrayToObject(obj, "files");
	for (uint32_t i = 0; files && i < m->n_files; i++) {
		const ws_file *f = &m->files[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		ws_json_add_bytes(o, "path", f->path, strlen(f->path));
		ws_json_add_u64(o, "size", f->size);
		ws_json_add_u64(o, "header_bytes", f->header_bytes);
		ws_json_add_u64(o, "tensor_count", f->tensor_count);
		cJSON_AddItemToArray(files, o);
	}
	ws_json_add_u64(obj, "tensor_count", m->n_tensors);
	if (m->adapter)
		cJSON_AddItemToObject(obj, "adapter", ws_adapter_to_json(m->adapter));
	if (m->n_st_modules) {
		/* a sentence-transformers folder's pipeline (modules.json) */
		cJSON *mods = cJSON_AddArrayToObject(obj, "modules");
		for (uint32_t i = 0; mods && i < m->n_st_modules; i++) {
			const ws_st_module *md = &m->st_modules[i];
			cJSON *o = cJSON_CreateObject();
			if (!o || !cJSON_AddItemToArray(mods, o)) {
				cJSON_Delete(o);
				break;
			}
			ws_json_add_bytes(o, "name", md->name, strlen(md->name));
			ws_json_add_bytes(o, "path", md->path, strlen(md->path));
			ws_json_add_bytes(o, "type", md->type, strlen(md->type));
			if (md->dense) {
				ws_json_add_u64(o, "in_features", md->in_features);
				ws_json_add_u64(o, "out_features", md->out_features);
				cJSON_AddBoolToObject(o, "bias", md->bias);
			}
		}
	}

	cJSON *el = cJSON_AddObjectToObject(obj, "elements");
	ws_json_add_u64(el, "total", s.elements);
	cJSON_AddItemToObject(el, "by_dtype", dtype_map(s.elements_by_dtype, s.tensors_by_dtype));
	cJSON *by = cJSON_AddObjectToObject(obj, "bytes");
	ws_json_add_u64(by, "total", s.bytes);
	cJSON_AddItemToObject(by, "by_dtype", dtype_map(s.bytes_by_dtype, s.tensors_by_dtype));

	cJSON *pa = cJSON_AddObjectToObject(obj, "params");
	ws_json_add_u64(pa, "total", s.params);
	ws_json_add_u64(pa, "non_embedding", s.non_embedding);
	if (s.has_active)
		ws_json_add_u64(pa, "active", s.active);
	cJSON_AddItemToObject(pa, "by_dtype", dtype_map(s.params_by_dtype, s.params_by_dtype));
	cJSON *br = cJSON_AddObjectToObject(pa, "by_role");
	for (int r = 0; br && r < WS_ROLE_COUNT; r++)
		if (s.params_by_role[r])
			ws_json_add_u64(br, ws_role_name((ws_role)r), s.params_by_role[r]);
	cJSON *bl = cJSON_AddArrayToObject(pa, "by_layer");
	const char *main_name = m->n_components && m->components[0].main ? m->components[0].name : WS_MAIN_COMPONENT;
	const struct ws_arch *ar = m->arch && m->arch->known ? m->arch : NULL;
	for (int32_t l = 0; bl && l < s.n_layers; l++)
		cJSON_AddItemToArray(bl, ws_layer_json(main_name, (uint64_t)l,
							ar ? ws_arch_layer_kind(ar, (uint64_t)l) : NULL,
							s.params_by_layer[l]));
	/* then every other component's blocks (a tower's layer 3 is not
	 * the text model's) */
	for (uint32_t c = 0; bl && c < m->n_components; c++) {
		const ws_component *co = &m->components[c];
		if (co->main || !co->arch)
			continue;
		size_t nl;
		uint64_t *lr = layer_rows(m, c, &nl);
		const struct ws_arch *ka = co->arch->known ? co->arch : NULL;
		for (size_t l = 0; l < nl; l++)
			cJSON_AddItemToArray(bl, ws_layer_json(co->name, l, ka ? ws_arch_layer_kind(ka, l) : NULL,
							       lr[l * (WS_ROLE_COUNT + 1) + WS_ROLE_COUNT]));
		free(lr);
	}
	cJSON *bc = cJSON_AddObjectToObject(pa, "by_component");
	for (uint32_t c = 0; bc && c < m->n_components; c++)
		ws_json_add_u64(bc, m->components[c].name, m->components[c].params);

	cJSON *bu = cJSON_AddObjectToObject(obj, "buffers");
	ws_json_add_u64(bu, "total", s.buffers);
	cJSON *bt = cJSON_AddArrayToObject(bu, "tensors");
	for (uint64_t i = 0; bt && i < m->n_tensors; i++)
		if (m->tensors[i].role == WS_ROLE_BUFFER)
			cJSON_AddItemToArray(bt, ws_json_bytes(m->tensors[i].name,
							       m->tensors[i].name_len));
	/* stored but not loaded by the config's class (MTP layers are
	 * parameters, never here) */
	cJSON *un = cJSON_AddObjectToObject(obj, "unloaded");
	ws_json_add_u64(un, "total", s.unloaded);
	cJSON *ut = cJSON_AddArrayToObject(un, "tensors");
	for (uint64_t i = 0; ut && i < m->n_tensors; i++)
		if (m->tensors[i].unloaded)
			cJSON_AddItemToArray(ut, ws_json_bytes(m->tensors[i].name, m->tensors[i].name_len));
	cJSON *qa = cJSON_AddObjectToObject(obj, "quant_aux");
	ws_json_add_u64(qa, "total", s.quant_aux);
	ws_json_add_u64(qa, "tensors", s.n_quant_aux);
	if (ws_quant_report_json(m, obj) < 0) {
		ws_summary_free(&s);
		return -1;
	}

	if (m->arch)
		cJSON_AddItemToObject(obj, "arch", ws_arch_to_json(m->arch));
	else
		cJSON_AddNullToObject(obj, "arch");
	if (m->formula)
		cJSON_AddItemToObject(obj, "formula", ws_model_formula_json(m));
	else
		cJSON_AddNullToObject(obj, "formula");
	cJSON_AddItemToObject(obj, "components", components_json(m, &s));
	cJSON_AddItemToObject(obj, "findings", findings_json(m));
	cJSON_AddBoolToObject(obj, "ok", !ws_model_has_errors(m));
	ws_summary_free(&s);
	return 0;
}

/* ==== text ==== */

static void
param_line(FILE *f, const char *label, uint64_t v)
{
	char c[32], h[16];
	fprintf(f, "%-14s %s (%s)\n", label, ws_fmt_commas(v, c, sizeof c),
		ws_fmt_human(v, h, sizeof h));
}

#define LAYER_BAR_COL 42    /* bars start here, whatever the line */
#define LAYER_BAR_CELLS 24  /* the largest layer's bar */

/* One per-layer line and its bar: the layer's share of the largest layer
 * in eighth-of-a-cell Unicode blocks (U+2588 full .. U+258F one eighth),
 * so layers of different sizes and an empty block stand out. */
static void
layer_bar_at(FILE *f, const char *line, uint64_t v, uint64_t max, size_t col)
{
	fputs(line, f);
	if (v && max) {
		uint64_t n8 = (uint64_t)((double)v * (LAYER_BAR_CELLS * 8) / (double)max + 0.5);
		if (n8 == 0)
			n8 = 1;
		fprintf(f, "%*s", (int)(strlen(line) < col ? col - strlen(line) : 1), "");
		for (uint64_t i = 0; i < n8 / 8; i++)
			fputs("\xe2\x96\x88", f);
		if (n8 % 8)
			fprintf(f, "\xe2\x96%c", (int)(0x90 - n8 % 8));
	}
	fputc('\n', f);
}

/* A layer's block kind in a stack that is not all attention ("mamba2",
 * "attention MoE" ...), or NULL: every layer is attention. */
static const char *
layer_block_name(const struct ws_arch *a, int32_t i)
{
	if (!a || !a->layer_block || i < 0 || (uint64_t)i >= a->n_layer_block)
		return NULL;
	int k = ws_arch_layer_block(a, (uint64_t)i);
	/* a plain decoder's two names say nothing of the mixer here */
	if (WS_BK_MIX(k) == WS_MIX_ATTN)
		return WS_BK_FFN(k) == WS_FFN_MOE ? "attention MoE"
		     : WS_BK_FFN(k) == WS_FFN_DENSE ? "attention dense" : "attention";
	return ws_block_kind_name(k);
}

/* A compact per-layer view: runs of identical layers share one line;
 * in a hybrid stack (a != NULL) runs of one block kind, named. */
static void
layers_text(FILE *f, const ws_summary *s, const struct ws_arch *a)
{
	bool kinds = layer_block_name(a, 0) != NULL;
	uint64_t max = 0;
	for (int32_t i = 0; i < s->n_layers; i++)
		if (s->params_by_layer[i] > max)
			max = s->params_by_layer[i];
	int32_t l = 0;
	while (l < s->n_layers) {
		int32_t e = l;
		const char *kind = kinds ? layer_block_name(a, l) : NULL;
		while (e + 1 < s->n_layers && s->params_by_layer[e + 1] == s->params_by_layer[l] &&
		       (!kinds || layer_block_name(a, e + 1) == kind))
			e++;
		char c[32], line[128];
		int n;
		if (e == l)
			n = snprintf(line, sizeof line, "  layer %-11d %s", l,
				     ws_fmt_commas(s->params_by_layer[l], c, sizeof c));
		else
			n = snprintf(line, sizeof line, "  layers %d-%-*d %s each", l,
				     9 - (l > 9) - (l > 99), e,
				     ws_fmt_commas(s->params_by_layer[l], c, sizeof c));
		if (kind && n > 0 && (size_t)n < sizeof line)
			snprintf(line + n, sizeof line - (size_t)n, "%*s%s",
				 n < 42 ? 42 - n : 2, "", kind);
		layer_bar_at(f, line, s->params_by_layer[l], max, kinds ? 68 : LAYER_BAR_COL);
		l = e + 1;
	}
}

void
ws_report_inspect_text(FILE *f, const ws_model *m, bool color)
{
	ws_summary s;
	char c1[32], c2[32], c3[32];

	if (ws_summary_compute(m, &s))
		return;
	fputs("path           ", f);
	ws_fput_escaped(f, m->path, strlen(m->path));
	fprintf(f, "\nformat         %s, %u file%s, %llu tensors\n",
		m->format == WS_FORMAT_GGUF ? "gguf" : "safetensors", m->n_files,
		m->n_files == 1 ? "" : "s", (unsigned long long)m->n_tensors);
	if (m->format == WS_FORMAT_GGUF)
		gguf_facts_text(f, m);
	for (uint32_t i = 0; i < m->n_st_modules; i++) {
		/* a sentence-transformers pipeline, in order */
		const ws_st_module *md = &m->st_modules[i];
		const char *dot = strrchr(md->type, '.');
		fputs(i ? ", " : "modules        ", f);
		ws_fput_escaped(f, dot ? dot + 1 : md->type, strlen(dot ? dot + 1 : md->type));
		fputs(" (", f);
		ws_fput_escaped(f, *md->path ? md->path : ".", strlen(*md->path ? md->path : "."));
		if (md->dense)
			fprintf(f, ", %llu to %llu", (unsigned long long)md->in_features,
				(unsigned long long)md->out_features);
		fputc(')', f);
		if (i + 1 == m->n_st_modules)
			fputc('\n', f);
	}
	param_line(f, "parameters", s.params);
	if (s.has_active)
		param_line(f, "active", s.active);
	if (m->adapter)
		ws_adapter_print_text(f, m->adapter);
	if (s.buffers)
		fprintf(f, "%-14s %s elements in %llu tensors (not parameters)\n", "buffers",
			ws_fmt_commas(s.buffers, c1, sizeof c1), (unsigned long long)s.n_buffers);
	if (s.unloaded)
		fprintf(f, "%-14s %s elements in %llu tensors (not loaded by the class)\n", "unloaded",
			ws_fmt_commas(s.unloaded, c1, sizeof c1), (unsigned long long)s.n_unloaded);
	if (s.quant_aux)
		fprintf(f, "%-14s %s elements in %llu tensors (not parameters)\n", "quant aux",
			ws_fmt_commas(s.quant_aux, c1, sizeof c1), (unsigned long long)s.n_quant_aux);
	fprintf(f, "stored bytes   %s (%s)\n", ws_fmt_commas(s.bytes, c1, sizeof c1),
		ws_fmt_bytes(s.bytes, c2, sizeof c2));
	ws_quant_report_text(f, m);

	fputs("\nby dtype       tensors        elements           bytes  bits/weight\n", f);
	for (int d = 0; d < WS_DT_COUNT; d++) {
		if (!s.tensors_by_dtype[d])
			continue;
		double bpw = s.elements_by_dtype[d]
				     ? 8.0 * (double)s.bytes_by_dtype[d] / (double)s.elements_by_dtype[d]
				     : 0.0;
		fprintf(f, "  %-12s %7llu %15s %15s  %11.3f\n", ws_dtype_name((ws_dtype)d),
			(unsigned long long)s.tensors_by_dtype[d],
			ws_fmt_commas(s.elements_by_dtype[d], c1, sizeof c1),
			ws_fmt_commas(s.bytes_by_dtype[d], c2, sizeof c2), bpw);
	}
	/* several components: each with its count and formula; the role
	 * table is then the main one's, the one the formula describes */
	const struct ws_formula *fo = m->formula;
	const uint64_t *roles = s.params_by_role;
	uint64_t main_roles[WS_ROLE_COUNT] = {0};
	if (m->n_components > 1) {
		fprintf(f, "\nby component             kind             parameters%s\n",
			fo ? "        expected" : "");
		for (uint32_t c = 0; c < m->n_components; c++) {
			const ws_component *co = &m->components[c];
			/* a sentence-transformers module is named by its folder */
			char *name = ws_escape_text(co->name, strlen(co->name));
			fprintf(f, "  %-22s %-10s %15s", name ? name : "?", co->kind,
				ws_fmt_commas(co->params, c1, sizeof c1));
			free(name);
			if (fo)
				fprintf(f, " %15s", co->main ? ws_fmt_commas(fo->total, c2, sizeof c2)
						    : co->has_formula ? ws_fmt_commas(co->formula, c2, sizeof c2)
						    : "no formula yet");
			fputc('\n', f);
		}
		for (uint64_t i = 0; i < m->n_tensors; i++) {
			const ws_tensor *t = &m->tensors[i];
			if (m->components[t->component].main && (unsigned)t->role < WS_ROLE_COUNT &&
			    t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX)
				main_roles[t->role] += t->params;
		}
		roles = main_roles;
	}
	/* one table: what the tensors hold beside what the formula expects */
	/* the main component's name: static (the catalogue's, or "text") */
	char lab[40] = "";
	if (m->n_components > 1)
		snprintf(lab, sizeof lab, " (%.24s)", m->components[0].main ? m->components[0].name : WS_MAIN_COMPONENT);
	fprintf(f, "\nby role%-12s parameters%s\n", lab, fo ? "        expected" : "");
	for (int r = 0; r < WS_ROLE_COUNT; r++) {
		/* the MTP layers are expected apart (formula.mtp), when stored */
		uint64_t exp = !fo ? 0 : r != WS_ROLE_MTP ? fo->by_role[r] : roles[r] ? fo->mtp : 0;
		if (!roles[r] && !exp)
			continue;
		fprintf(f, "  %-17s %15s", ws_role_name((ws_role)r),
			ws_fmt_commas(roles[r], c1, sizeof c1));
		if (fo)
			fprintf(f, " %15s%s", ws_fmt_commas(exp, c2, sizeof c2),
				exp != roles[r] ? "  <- differs" : "");
		fputc('\n', f);
	}
	/* a diffusion network has levels and blocks, not numbered layers */
	if (s.n_layers && !(m->arch && m->arch->net)) {
		fputs("\nper layer           parameters\n", f);
		layers_text(f, &s, m->arch);
	}
	if (m->arch) {
		fputc('\n', f);
		ws_model_formula_print(f, m, 0);
	}
	fputs("\nfindings       ", f);
	size_t shown = 0;
	for (size_t i = 0; i < m->n_findings; i++)
		shown += !m->findings[i].ignored;
	if (!shown)
		fputs("none\n", f);
	else
		fprintf(f, "%zu\n", shown);
	for (size_t i = 0; i < m->n_findings; i++) {
		const ws_finding *fd = &m->findings[i];
		if (fd->ignored)
			continue; /* counted by check after the list */
		const char *col = !color ? "" : fd->severity == WS_SEV_ERROR ? "\033[31m"
					     : fd->severity == WS_SEV_WARNING ? "\033[33m" : "\033[36m";
		fprintf(f, "  %s%-7s%s %s: ", col, ws_severity_name(fd->severity),
			color ? "\033[0m" : "", fd->code);
		/* messages are built from escaped names: safe to print */
		fputs(fd->message, f);
		fputc('\n', f);
	}
	(void)c3;
	ws_summary_free(&s);
}
