/*
 * analyze.c - the pipeline behind inspect and check: architecture, roles,
 * formula, comparison, declared counts.  Each step is its own module;
 * this file only orders them.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "catalogue/catalogue.h"
#include "ws/adapter.h"
#include "ws/formula.h"
#include "ws/kv.h"
#include "ws/net.h"
#include "ws/quant.h"
#include "ws/roles.h"
#include "ws/report.h"
#include "ws/util.h"

static bool ws_isdigit(char c) { return c >= '0' && c <= '9'; }
static bool ws_isalnum(char c) { return ws_isdigit(c) || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'); }

/* The first model size in a name ("Llama-2-7b-hf" -> 7e9): digits and a
 * M/B/T suffix standing alone, so "8x7B", "30B-A3B"'s A3B and "4k" are
 * not sizes. */
static bool
size_in(const char *s, size_t n, double *out)
{
	static const struct { char c; double mul; } sfx[] = {
		{'m', 1e6}, {'b', 1e9}, {'t', 1e12},
	};
	for (size_t i = 0; i < n; i++) {
		if (!ws_isdigit(s[i]) || (i && (ws_isalnum(s[i - 1]) || s[i - 1] == '.')))
			continue;
		size_t j = i;
		while (j < n && (ws_isdigit(s[j]) || s[j] == '.'))
			j++;
		for (size_t k = 0; j < n && k < sizeof sfx / sizeof sfx[0]; k++)
			if ((s[j] | 0x20) == sfx[k].c && (j + 1 == n || !ws_isalnum(s[j + 1]))) {
				char num[32];
				snprintf(num, sizeof num, "%.*s", (int)(j - i < 31 ? j - i : 31), s + i);
				*out = strtod(num, NULL) * sfx[k].mul;
				return *out > 0;
			}
	}
	return false;
}

/* The parameter total of ws_summary_compute: every tensor but buffers
 * and quantization side tensors. */
static uint64_t
count_params(const ws_model *m)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX)
			n += t->params;
	}
	return n;
}

/* Declared sizes against the count: index.json total_parameters exactly
 * (error); general.size_label, else the name the files carry
 * (general.name, config.json _name_or_path) within 25% (warning).  Not
 * the PATH: a file, its folder and an hf:// name would disagree. */
static int
check_declared(ws_model *m)
{
	const cJSON *meta = m->index ? cJSON_GetObjectItemCaseSensitive(m->index, "metadata") : NULL;
	const cJSON *tp = cJSON_IsObject(meta) ? cJSON_GetObjectItemCaseSensitive(meta, "total_parameters") : NULL;
	if (m->n_tensors == 0)
		return 0;
	static const char *const keys[] = {"general.size_label", "general.name"};
	const char *str = NULL, *what = NULL;
	size_t len = 0;
	double size = 0;
	for (size_t k = 0; k < sizeof keys / sizeof keys[0] && !what; k++) {
		const ws_kv *kv = ws_model_find_kv(m, keys[k]);
		if (kv && ws_kv_get_str(kv, &str, &len) && size_in(str, len, &size))
			what = keys[k];
	}
	const cJSON *nm = m->config ? cJSON_GetObjectItemCaseSensitive(m->config, "_name_or_path") : NULL;
	if (!what && cJSON_IsString(nm) && size_in(nm->valuestring, strlen(nm->valuestring), &size)) {
		what = "config.json _name_or_path";
		str = nm->valuestring;
		len = strlen(str);
	}
	/* the count takes a pass over the tensors: only when something
	 * declares a size */
	if (!cJSON_IsNumber(tp) && !what)
		return 0;
	uint64_t params = count_params(m);
	if (cJSON_IsNumber(tp) && tp->valuedouble >= 0 && tp->valuedouble < 9.0e15 &&
	    (double)(uint64_t)tp->valuedouble == tp->valuedouble &&
	    (uint64_t)tp->valuedouble != params &&
	    ws_model_add_finding(m, WS_SEV_ERROR, "declared-mismatch", NULL, -1, -1, true,
				 (uint64_t)tp->valuedouble, params,
				 "index.json total_parameters says %llu, the tensors hold %llu",
				 (unsigned long long)tp->valuedouble, (unsigned long long)params) < 0)
		return -1;
	char h[32], c[32];
	if (what && size < 1e18 && (params > size * 1.25 || params < size * 0.75))
		return ws_model_add_finding(m, WS_SEV_WARNING, "declared-mismatch", NULL, -1, -1, true,
					    (uint64_t)size, params,
					    "%s '%.*s' declares %s parameters; the tensors hold %s (off by more than 25%%)",
					    what, (int)(len < 200 ? len : 200), str,
					    ws_fmt_human((uint64_t)size, h, sizeof h),
					    ws_fmt_commas(params, c, sizeof c));
	return 0;
}

/* Components other than the main one have no formula yet (a vision
 * tower, a projector): counted in the parameters, never dropped, and
 * named together in one warning. */
static int
report_components(ws_model *m)
{
	char msg[512], num[32];
	size_t len = 0, n = 0;
	for (uint32_t i = 0; i < m->n_components && len < sizeof msg; i++) {
		const ws_component *c = &m->components[i];
		if (c->main || c->has_formula)
			continue;
		/* a sentence-transformers module's name is its folder's */
		char *name = ws_escape_text(c->name, strlen(c->name));
		if (!name)
			return -1;
		int w = snprintf(msg + len, sizeof msg - len, "%s%s (%s, %llu tensors, %s parameters)",
				 n++ ? ", " : "", name, c->kind, (unsigned long long)c->tensors,
				 ws_fmt_commas(c->params, num, sizeof num));
		free(name);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	if (!n)
		return 0;
	if (ws_model_add_finding(m, WS_SEV_WARNING, "unsupported-architecture", NULL, -1, -1,
				 false, 0, 0,
				 "component%s without a formula yet: %s; counted in the parameters, not compared",
				 n == 1 ? "" : "s", msg) < 0)
		return -1;
	m->findings[m->n_findings - 1].other_components = true;
	return 0;
}

/* A sentence-transformers Dense module is a linear layer of its
 * config's in_features × out_features (and a bias unless it says not):
 * its component's count, compared with its tensors. */
static int
dense_components(ws_model *m)
{
	char e[32], g[32];
	for (uint32_t i = 0; i < m->n_components; i++) {
		ws_component *c = &m->components[i];
		const ws_st_module *md = NULL;
		for (uint32_t k = 0; !c->main && k < m->n_st_modules; k++)
			if (m->st_modules[k].dense && !strcmp(m->st_modules[k].path, c->name))
				md = &m->st_modules[k];
		uint64_t f;
		if (!md || !ws_mul_u64(md->in_features, md->out_features, &f) ||
		    !ws_add_u64(f, md->bias ? md->out_features : 0, &f))
			continue;
		c->has_formula = true;
		c->formula = f;
		if (c->params == f)
			continue;
		char *name = ws_escape_text(c->name, strlen(c->name));
		int r = !name ? -1
			: ws_model_add_finding(m, WS_SEV_ERROR, "count-mismatch", NULL, WS_ROLE_PROJECTOR, -1,
					       true, f, c->params,
					       "%s (Dense, %llu to %llu%s) holds %s parameters; its config implies %s",
					       name, (unsigned long long)md->in_features,
					       (unsigned long long)md->out_features, md->bias ? ", with bias" : "",
					       ws_fmt_commas(c->params, g, sizeof g), ws_fmt_commas(f, e, sizeof e));
		free(name);
		if (r < 0)
			return -1;
		m->findings[m->n_findings - 1].component = c->name;
	}
	return 0;
}

/* Each component with its own formula (a wrapper's tower, projector)
 * against its tensors; its findings name it. */
static int
compare_parts(ws_model *m)
{
	for (uint32_t i = 0; i < m->n_components; i++) {
		ws_component *co = &m->components[i];
		if (co->main || !co->formula_of)
			continue;
		size_t first = m->n_findings;
		if (ws_model_compare_component(m, i, co->arch, co->formula_of))
			return -1;
		for (size_t k = first; k < m->n_findings; k++) {
			m->findings[k].component = co->name;
			if (strcmp(co->kind, "projector") || strcmp(m->findings[k].code, "shape-mismatch"))
				continue;
			/* a projector's shapes are the widths of the components it
			 * joins: say which (the tower before it, the main one) */
			const char *tower = "its tower", *text = m->components[0].name;
			for (uint32_t t = i; t-- > 1;)
				if (strcmp(m->components[t].kind, "projector")) {
					tower = m->components[t].name;
					break;
				}
			char in[32], out[32];
			ws_fmt_commas(co->arch->embedding_size, in, sizeof in);
			ws_fmt_commas(co->arch->hidden_size, out, sizeof out);
			char *old = m->findings[k].message;
			size_t n = strlen(old) + strlen(tower) + strlen(text) + 128;
			char *msg = malloc(n);
			if (!msg)
				return -1;
			snprintf(msg, n, "%s (it maps %s's width %s into %s's hidden size %s)", old, tower, in, text, out);
			free(old);
			m->findings[k].message = msg;
		}
	}
	return 0;
}

/* check_roles_and_dtypes' pass, on two threads for a large checkpoint:
 * the tensors in two halves, each with its own blocks' types, merged in
 * order (whichever worker takes a half). */

typedef struct {
	uint8_t *seen;        /* 3 bytes a block, or NULL */
	uint64_t lo, hi;
	uint64_t unknown, first_unknown;
	int64_t top;          /* the last block seen, -1 none */
} crd_half;

typedef struct {
	const ws_model *m;
	uint64_t nl;          /* blocks at most: the tensor count */
	uint64_t rows;        /* blocks seen has room for (<= nl) */
	bool is_float[256];
	crd_half h[2];
	_Atomic uint64_t next;
	_Atomic bool over;    /* a block at rows or past it: run again */
} crd_pass;

static void
crd_worker(void *arg, unsigned worker)
{
	crd_pass *p = arg;
	const ws_model *m = p->m;
	(void)worker;
	for (uint64_t r; (r = atomic_fetch_add(&p->next, 1)) < 2;) {
		crd_half *h = &p->h[r];
		h->top = -1;
		for (uint64_t i = h->lo; i < h->hi; i++) {
			const ws_tensor *t = &m->tensors[i];
			const ws_component *co = &m->components[t->component];
			if (!co->main && !co->formula_of)
				continue;
			if (t->role == WS_ROLE_OTHER && !h->unknown++)
				h->first_unknown = i;
			if (!h->seen || !co->main)
				continue;  /* blocks are numbered per component */
			if (t->layer < 0 || (uint64_t)t->layer >= p->nl || t->ndim < 2 || !p->is_float[t->dtype] ||
			    t->role == WS_ROLE_QUANT_AUX || t->role == WS_ROLE_BUFFER)
				continue;
			if ((uint64_t)t->layer >= p->rows) {
				atomic_store_explicit(&p->over, true, memory_order_relaxed);
				continue;
			}
			uint8_t *b = &h->seen[3 * (uint64_t)t->layer];
			if (t->layer > h->top)
				h->top = t->layer;
			if (!b[0]) {
				b[0] = (uint8_t)(t->dtype + 1);
			} else if (b[0] != t->dtype + 1 && !b[1]) {
				b[1] = 1;
				b[2] = (uint8_t)(t->dtype + 1);
			}
		}
	}
}

/* Two checks in one pass over the tensors.  Tensor names no role line
 * recognizes: one warning with the count.  Matrices of different float
 * types inside one block (norm vectors kept in F32 are common and not
 * counted; a quantized checkpoint mixes by design): one info finding. */
static int
check_roles_and_dtypes(ws_model *m)
{
	uint64_t nl = m->n_tensors, blocks = 0, unknown = 0;
	const ws_tensor *first_unknown = NULL;
	int32_t first = -1;
	ws_dtype fa = WS_DT_INVALID, fb = WS_DT_INVALID;
	/* per half, per block: a float type + 1, mixed flag, the first other
	 * float type + 1; no mixing check when quantized (out of memory is
	 * exit 4, never a finding skipped) */
	crd_pass p = {.m = m, .nl = nl};
	/* which dtypes are float, looked up once, not a call a tensor */
	for (unsigned d = 0; d < 256; d++) {
		const ws_dtype_info *di = ws_dtype_get((ws_dtype)d);
		p.is_float[d] = di && (di->flags & WS_DTF_FLOAT);
	}
	/* room for a few thousand blocks first (a small allocation, not
	 * fresh pages to fault and give back); a checkpoint with more is
	 * run again with room for as many as it has tensors */
	uint8_t *seen = NULL;
	for (p.rows = nl < 4096 ? nl : 4096;; p.rows = nl) {
		seen = m->quant ? NULL : calloc(p.rows ? p.rows : 1, 2 * 3);
		if (!m->quant && !seen)
			return -1;
		for (int h = 0; h < 2; h++) {
			p.h[h] = (crd_half){.seen = seen ? seen + (size_t)h * 3 * p.rows : NULL,
					    .lo = h ? nl / 2 : 0, .hi = h ? nl : nl / 2,
					    .first_unknown = UINT64_MAX};
		}
		atomic_init(&p.next, 0);
		atomic_init(&p.over, false);
		ws_team_run(ws_team_helpers_for(nl), crd_worker, &p);
		if (!atomic_load(&p.over) || p.rows == nl)
			break;
		free(seen);
	}
	for (int h = 0; h < 2; h++) {
		unknown += p.h[h].unknown;
		if (!first_unknown && p.h[h].unknown)
			first_unknown = &m->tensors[p.h[h].first_unknown];
	}
	/* the halves' blocks in order: the first half's first type, then
	 * the first tensor of another (the second half's first, or the
	 * first other after it) */
	int64_t top = p.h[0].top > p.h[1].top ? p.h[0].top : p.h[1].top;
	for (int64_t l = 0; seen && l <= top; l++) {
		const uint8_t *x = &p.h[0].seen[3 * l], *y = &p.h[1].seen[3 * l];
		uint8_t d0 = x[0] ? x[0] : y[0], other = 0;
		if (x[1])
			other = x[2];
		else if (x[0] && y[0] && y[0] != x[0])
			other = y[0];
		else if (y[1])
			other = y[2];
		if (!other)
			continue;
		if (!blocks++) {
			first = (int32_t)l;
			fa = (ws_dtype)(d0 - 1);
			fb = (ws_dtype)(other - 1);
		}
	}
	free(seen);
	if (report_components(m))
		return -1;
	if (unknown &&
	    ws_model_add_finding(m, WS_SEV_WARNING, "unknown-role", first_unknown->name, -1, -1, false, 0, 0,
				 "%llu tensor%s no role table line recognizes (listed as 'other'), first '%s'",
				 (unsigned long long)unknown, unknown == 1 ? "" : "s", first_unknown->name) < 0)
		return -1;
	if (blocks)
		return ws_model_add_finding(m, WS_SEV_INFO, "dtype-mixed", NULL, -1, first, false, 0, 0,
					    "float types mixed inside %llu block%s (block %d: %s and %s matrices)",
					    (unsigned long long)blocks, blocks == 1 ? "" : "s", (int)first,
					    ws_dtype_name(fa), ws_dtype_name(fb));
	return 0;
}

/* GGUF metadata is the architecture: shapes or counts that contradict it
 * are also one metadata-mismatch naming the keys read. */
static int
check_gguf_metadata(ws_model *m)
{
	static const char *const codes[] = {"shape-mismatch", "count-mismatch", "layer-gap"};
	const struct ws_arch *a = m->arch;
	size_t n = 0;
	if (!a || !a->source || strcmp(a->source, "gguf"))
		return 0;
	for (size_t i = 0; i < m->n_findings; i++)
		for (size_t c = 0; c < sizeof codes / sizeof codes[0]; c++)
			n += !strcmp(m->findings[i].code, codes[c]);
	if (!n)
		return 0;
	return ws_model_add_finding(m, WS_SEV_ERROR, "metadata-mismatch", NULL, -1, -1, false, 0, 0,
				    "the %s.* metadata (block_count %llu, embedding_length %llu, head_count %llu, "
				    "head_count_kv %llu, feed_forward_length %llu, vocab %llu) contradicts the "
				    "tensors: %zu shape, count or layer finding%s",
				    a->architecture, (unsigned long long)a->num_layers,
				    (unsigned long long)a->hidden_size, (unsigned long long)a->num_heads,
				    (unsigned long long)a->num_kv_heads, (unsigned long long)a->intermediate_size,
				    (unsigned long long)a->vocab_size, n, n == 1 ? "" : "s");
}

/* A diffusion network's tensors take their roles from its expected
 * names (catalogue/net.c), not from the decoders' role table; its
 * component is of the network's kind. */
static void
net_roles(ws_model *m)
{
	for (uint32_t i = 0; i < m->n_components; i++) {
		ws_component *co = &m->components[i];
		const struct ws_arch *a = co->main ? m->arch : co->arch;
		if (!a || !a->net)
			continue;
		/* a network alone (its folder): named by its kind */
		if (co->main && !strcmp(co->name, WS_MAIN_COMPONENT))
			co->name = a->net->kind;
		/* a single file's denoiser: named by the network its names tell
		 * (FLUX's under model.diffusion_model. is a transformer) */
		if (co->main && co->part && co->part->inferred)
			co->name = a->net->kind;
		if (co->main)
			co->kind = a->net->kind;
		ws_net_roles(m, i, a->net);
	}
}

/* single_file_parts' pass over the names, on two threads for a large
 * file: each worker takes runs of tensors and notes which parts' first
 * prefixes start a name (a set: the same however the runs fall). */
#define SFP_RUN 2048

typedef struct {
	const ws_model *m;
	const struct ws_cat_part *all;
	const uint64_t *by_first, *head;
	const size_t *pl;
	uint64_t todo, runs;
	uint64_t found[2];  /* a worker */
	_Atomic uint64_t next;
} sfp_pass;

static void
sfp_worker(void *arg, unsigned worker)
{
	sfp_pass *p = arg;
	const ws_model *m = p->m;
	uint64_t found = 0, todo = p->todo;
	/* the first eight bytes of the last name that every part turned
	 * away on them alone: the next names mostly start alike, and one
	 * that does is turned away too (a prefix of 8 or more bytes by its
	 * head, a shorter one by the same bytes; a length that fails is no
	 * answer, so it does not count) */
	uint64_t away = 0;
	bool have_away = false;
	for (uint64_t r; todo && (r = atomic_fetch_add(&p->next, 1)) < p->runs;) {
		uint64_t hi = m->n_tensors - r * SFP_RUN < SFP_RUN ? m->n_tensors : (r + 1) * SFP_RUN;
		for (uint64_t i = r * SFP_RUN; i < hi && todo; i++) {
			const ws_tensor *t = &m->tensors[i];
			if (!t->name_len)
				continue;
			uint64_t h8 = 0;
			bool by8 = t->name_len >= 8;
			if (by8) {
				memcpy(&h8, t->name, 8);
				if (have_away && h8 == away)
					continue;
			}
			for (uint64_t b = p->by_first[(unsigned char)t->name[0]] & todo; b; b &= b - 1) {
				size_t k = (size_t)__builtin_ctzll(b);
				if (t->name_len <= p->pl[k]) {
					by8 = false;
					continue;
				}
				/* its first eight bytes as a word before a call (a
				 * name longer than the prefix has them) */
				if (p->pl[k] >= 8 && h8 != p->head[k])
					continue;
				if (!memcmp(t->name, p->all[k].prefixes[0], p->pl[k])) {
					found |= 1ull << k;
					todo &= ~(1ull << k);
					by8 = false;
				} else if (p->pl[k] >= 8) {
					by8 = false; /* turned away past its head */
				}
			}
			if (by8) {
				away = h8;
				have_away = true;
			}
		}
	}
	p->found[worker < 2 ? worker : 1] |= found;
}

/* An original Stable Diffusion single file (no config): the modules of
 * the catalogue's it holds are its components, the denoiser first, each
 * architecture inferred from its tensors.  -1: OOM. */
static int
single_file_parts(ws_model *m)
{
	size_t n, np = 0;
	const struct ws_cat_part *all = ws_cat_single_file_parts(&n);
	struct ws_cat_part *parts = NULL;
	/* one pass over the tensors: a name is tried only against the
	 * parts whose prefix starts with its first byte (mostly none), not
	 * against every part (each tensor of a large file was asked 7 times) */
	enum { MAXP = 64 };
	uint64_t by_first[256] = {0}, todo = 0, head[MAXP];
	size_t pl[MAXP];
	for (size_t k = 0; k < n && k < MAXP; k++) {
		pl[k] = strlen(all[k].prefixes[0]);
		head[k] = 0;
		if (pl[k] >= 8)
			memcpy(&head[k], all[k].prefixes[0], 8);
		if (pl[k]) {
			by_first[(unsigned char)all[k].prefixes[0][0]] |= 1ull << k;
			todo |= 1ull << k;
		}
	}
	sfp_pass p = {.m = m, .all = all, .by_first = by_first, .head = head, .pl = pl, .todo = todo,
		      .runs = m->n_tensors / SFP_RUN + (m->n_tensors % SFP_RUN != 0)};
	atomic_init(&p.next, 0);
	ws_team_run(ws_team_helpers_for(m->n_tensors), sfp_worker, &p);
	uint64_t found = p.found[0] | p.found[1];
	for (size_t k = 0; k < n; k++) {
		const char *pre = all[k].prefixes[0];
		bool has = k < MAXP && (found >> k & 1);
		if (k >= MAXP || !pl[k]) {
			/* an empty prefix (any name but an empty one), or past the
			 * table: by a pass of its own */
			size_t l = strlen(pre);
			for (uint64_t i = 0; i < m->n_tensors && !has; i++)
				has = m->tensors[i].name_len > l && !memcmp(m->tensors[i].name, pre, l);
		}
		if (!has)
			continue;
		if (!parts && !(parts = ws_model_alloc(m, (n + 1) * sizeof *parts)))
			return -1;
		parts[np++] = all[k];
	}
	if (parts) {
		memset(&parts[np], 0, (n + 1 - np) * sizeof *parts);
		m->parts = parts;
	}
	return 0;
}

static int
analyze(ws_model *m, ws_error *err)
{
	struct ws_arch *a = calloc(1, sizeof *a);
	if (!a)
		return ws_err_oom(err, m->path);
	int have = 0;
	char arch_note[512] = "";
	/* an adapter has no architecture of its own: its base has.  When
	 * its names decide, nothing the roles depend on is read (no
	 * config.json, not GGUF: no arch, layers -1 below), and the roles
	 * count the factors' names as they go, a shape of name at a time */
	int quick = ws_adapter_detect_quick(m);
	bool adapter = quick > 0, roles_done = false;
	if (quick < 0) {
		uint64_t factors = 0;
		if (ws_roles_assign_counting(m, -1, &factors)) {
			free(a);
			return ws_err_oom(err, m->path);
		}
		adapter = factors * 2 >= m->n_tensors;
		roles_done = true;
	}
	if (adapter) {
	} else if (m->config) {
		if (ws_arch_from_config(m->config, m->config_path, a, err)) {
			free(a);
			return -1;
		}
		have = 1;
	} else if (m->format == WS_FORMAT_GGUF && ws_model_find_kv(m, "general.architecture")) {
		/* a diffusion network's GGUF whose names kept a single file's
		 * module (an older ComfyUI-GGUF converter): that module is its
		 * component, as in the single file */
		const ws_kv *ak = ws_model_find_kv(m, "general.architecture");
		char fam[64];
		if (!m->parts && ak->type == WS_V_STRING && ak->data_len < sizeof fam) {
			memcpy(fam, ak->data, (size_t)ak->data_len);
			fam[ak->data_len] = '\0';
			if (ws_net_gguf_family(fam) && single_file_parts(m)) {
				free(a);
				return ws_err_oom(err, m->path);
			}
			/* roles read before without the parts: again */
			if (m->parts)
				roles_done = false;
		}
		/* Missing or contradictory {arch}.* keys break no GGUF rule, but
		 * llama.cpp refuses such a file: a finding, not exit 3. */
		ws_error aerr = {0};
		if (ws_arch_from_gguf(m, a, &aerr) == 0) {
			have = 1;
		} else {
			ws_arch_free(a);
			if (aerr.code == WS_EXIT_INTERNAL) {
				free(a);
				*err = aerr;
				return -1;
			}
			/* with no tensors there is nothing to contradict: the
			 * vocab-only finding says it instead */
			char *msg = ws_escape_text(aerr.message, strlen(aerr.message));
			int fr = !msg ? -1 : !m->n_tensors ? 0
				: ws_model_add_finding(m, WS_SEV_ERROR, "metadata-mismatch", NULL, -1,
						       -1, false, 0, 0,
						       "architecture metadata unusable: %s", msg);
			if (msg && !m->n_tensors)
				snprintf(arch_note, sizeof arch_note,
					 "; architecture metadata unusable: %s", msg);
			free(msg);
			if (fr < 0) {
				free(a);
				return ws_err_oom(err, m->path);
			}
		}
	}
	if (have)
		m->arch = a;
	else
		free(a);

	/* Blocks past the last are the MTP layer only where the architecture
	 * has one; elsewhere they stay blocks, for compare to call extra. */
	int32_t layers = m->arch && m->arch->num_nextn_predict_layers &&
				 m->arch->num_layers <= INT32_MAX
			 ? (int32_t)m->arch->num_layers : -1;
	if (!adapter && !m->parts && !m->config && m->format == WS_FORMAT_SAFETENSORS) {
		if (single_file_parts(m))
			return ws_err_oom(err, m->path);
		/* the main one's architecture before its tensors' roles: they
		 * are read as its type (OpenCLIP's names as a CLIP text tower) */
		if (m->parts && !m->arch) {
			struct ws_arch *ia = calloc(1, sizeof *ia);
			if (!ia)
				return ws_err_oom(err, m->path);
			if (ws_arch_infer_part(m, &m->parts[0], ia, err)) {
				ws_arch_free(ia);
				free(ia);
				return -1;
			}
			m->arch = ia;
		}
		/* roles assigned before (to count adapter factors) were read
		 * without the parts' types: read them again */
		if (m->parts)
			roles_done = false;
	}
	const struct ws_cat_part *parts = m->parts ? m->parts : m->arch && m->arch->known ? m->arch->parts : NULL;
	if ((!roles_done && ws_roles_assign(m, layers)) || ws_model_mark_unloaded(m))
		return ws_err_oom(err, m->path);
	if (parts ? ws_components_from_parts(m, parts, err) : ws_components_assign(m) ? ws_err_oom(err, m->path) : 0)
		return -1;
	if (dense_components(m))
		return ws_err_oom(err, m->path);
	net_roles(m);
	if (ws_quant_apply(m, err))
		return -1;
	if (adapter) {
		if (ws_adapter_analyze(m, m->base_path, err))
			return -1;
		if (check_roles_and_dtypes(m))
			return ws_err_oom(err, m->path);
		return 0;
	}
	/* No config.json: the architecture is read back from the tensors
	 * (of the main component: an original Stable Diffusion checkpoint's
	 * denoiser, its other components' with their parts) */
	if (!m->arch && !m->config && m->format == WS_FORMAT_SAFETENSORS && m->n_tensors &&
	    (!m->n_components || m->components[0].main)) {
		if (!(m->arch = ws_arch_infer_new(m, err)))
			return -1;
		net_roles(m);
	}

	if (m->format == WS_FORMAT_GGUF && m->n_tensors == 0) {
		if (ws_model_add_finding(m, WS_SEV_INFO, "vocab-only", NULL, -1, -1, false, 0, 0,
					 "GGUF with metadata and no tensors (vocab-only): no parameters to count, "
					 "no formula comparison, no shape, data or FLOPs checks%s", arch_note) < 0)
			return ws_err_oom(err, m->path);
		return 0;
	}
	if (m->arch && !m->arch->known) {
		if (ws_model_add_finding(m, WS_SEV_WARNING, "unsupported-architecture", NULL, -1, -1,
					 false, 0, 0, "no formula for architecture '%s'%s%s",
					 m->arch->architecture, m->arch->unsupported ? ": " : "",
					 m->arch->unsupported ? m->arch->unsupported : "") < 0)
			return ws_err_oom(err, m->path);
	} else if (m->arch) {
		struct ws_formula *f = calloc(1, sizeof *f);
		if (!f)
			return ws_err_oom(err, m->path);
		if (ws_formula_compute(m->arch, f, err)) {
			free(f);
			return -1;
		}
		m->formula = f;
		size_t first = m->n_findings;
		if (ws_model_compare(m))
			return ws_err_oom(err, m->path);
		if (ws_root_cause(m, first, err))
			return -1;
		if (check_gguf_metadata(m))
			return ws_err_oom(err, m->path);
	}
	if (compare_parts(m))
		return ws_err_oom(err, m->path);
	if (check_roles_and_dtypes(m) || check_declared(m))
		return ws_err_oom(err, m->path);
	return 0;
}

int
ws_model_analyze(ws_model *m, ws_error *err)
{
	/* a finding lost anywhere on the way (a step that does not pass
	 * the -1 up) fails the whole analysis */
	if (analyze(m, err))
		return -1;
	ws_model_release_headers(m);
	return ws_model_findings_ok(m, err);
}
