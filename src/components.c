/*
 * components.c - which component each tensor belongs to, and keeping one.
 *
 * The catalogue names the module prefixes of the components a checkpoint
 * may hold beside its text decoder (a vision tower, a projector, an audio
 * tower); every other tensor is the main component's.  The list is built
 * in the order components first appear, the main one first.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "catalogue/catalogue.h"
#include "ws/formula.h"
#include "ws/roles.h"
#include "ws/util.h"

static int
find_or_add(ws_model *m, const char *name, const char *kind, bool is_main, uint32_t *cap)
{
	for (uint32_t i = 0; i < m->n_components; i++)
		if (strcmp(m->components[i].name, name) == 0)
			return (int)i;
	if (m->n_components == *cap) {
		/* the catalogue's table bounds the count: a handful */
		uint32_t ncap = *cap ? *cap * 2 : 4;
		ws_component *c = ws_model_alloc(m, ncap * sizeof *c);
		if (!c)
			return -1;
		if (m->n_components)
			memcpy(c, m->components, m->n_components * sizeof *c);
		m->components = c;
		*cap = ncap;
	}
	m->components[m->n_components] = (ws_component){.name = name, .kind = kind, .main = is_main};
	return (int)m->n_components++;
}

/* The sentence-transformers module whose folder held t ("2_Dense."
 * before its own name), or NULL. */
static const ws_st_module *
st_module_of(const ws_model *m, const ws_tensor *t)
{
	for (uint32_t i = 0; i < m->n_st_modules; i++) {
		const ws_st_module *md = &m->st_modules[i];
		size_t n = strlen(md->path);
		if (md->weights && t->name_len > n + 1 && !memcmp(t->name, md->path, n) && t->name[n] == '.')
			return md;
	}
	return NULL;
}

/* A module's tensor: a Dense module's linear layer is role projector;
 * what other modules hold is not named yet. */
static void
st_role(const ws_st_module *md, ws_tensor *t)
{
	const char *rest = t->name + strlen(md->path) + 1;
	t->layer = -1;
	t->expert = -1;
	if (md->dense && (!strcmp(rest, "linear.weight") || !strcmp(rest, "linear.bias"))) {
		t->role = WS_ROLE_PROJECTOR;
		t->kind = !strcmp(rest, "linear.bias") ? WS_KIND_BIAS : WS_KIND_WEIGHT;
	} else if (t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX) {
		t->role = WS_ROLE_OTHER;
	}
	t->params = t->role == WS_ROLE_BUFFER || t->role == WS_ROLE_QUANT_AUX ? 0 : t->elements;
}

/* The pass below runs on two threads for a large checkpoint: each worker
 * takes runs of tensors and lists, per run, the components its tensors
 * name (as codes: 0 the main one, 1 + k the catalogue's k-th, 1 + ncat +
 * j the j-th sentence-transformers module) in the order they first
 * appear, with their counts; the runs' lists merged in run order add the
 * components in the order their first tensors come, as one pass would. */
#define COMP_RUN 2048

typedef struct {
	uint32_t code;
	uint64_t tensors, params;
} comp_seen;

typedef struct {
	ws_model *m;
	const struct ws_cat_component *cat;
	uint32_t ncat;
	uint32_t cap;     /* list entries a run may hold */
	comp_seen *seen;  /* cap a run */
	uint32_t *nseen;  /* a run */
	uint64_t *logit;  /* a run: text encoders' logit scales unloaded */
	uint64_t runs;
	_Atomic uint64_t next;
} comp_pass;

/* Whether a catalogue component's tensor t is OpenCLIP's contrastive
 * scale beside a diffusion model's text encoder: the text-encoder
 * classes have no place for it. */
static bool
logit_unloaded(const struct ws_cat_component *c, const ws_tensor *t)
{
	return t->role == WS_ROLE_LOGIT_SCALE && !strcmp(c->kind, "text_encoder");
}

/* a[0, n) == b[0, n) for names of len_a, len_b >= n bytes: two words
 * when both names have 16 bytes to load (no call for the usual short
 * prefix), else memcmp. */
static inline bool
same_start(const char *a, size_t len_a, const char *b, size_t len_b, size_t n)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n <= 16 && len_a >= 16 && len_b >= 16) {
		uint64_t a0, a1, b0, b1;
		memcpy(&a0, a, 8);
		memcpy(&a1, a + 8, 8);
		memcpy(&b0, b, 8);
		memcpy(&b1, b + 8, 8);
		/* only the first n bytes count (the low ones of each word) */
		uint64_t m0 = n >= 8 ? ~0ull : (1ull << (8 * n)) - 1;
		uint64_t m1 = n >= 16 ? ~0ull : n <= 8 ? 0 : (1ull << (8 * (n - 8))) - 1;
		return !((a0 ^ b0) & m0) && !((a1 ^ b1) & m1);
	}
#endif
	return !memcmp(a, b, n);
}

static void
comp_run(comp_pass *p, uint64_t r)
{
	ws_model *m = p->m;
	uint64_t lo = r * COMP_RUN, hi = m->n_tensors - lo < COMP_RUN ? m->n_tensors : lo + COMP_RUN;
	comp_seen *s = p->seen + r * p->cap;
	uint32_t ns = 0, last = 0;
	/* names in a row share their start: one that agrees with the name
	 * before on the longest prefix is in that one's component (a name's
	 * answer is its own: the same however the runs fall) */
	const ws_tensor *prev = NULL;
	const struct ws_cat_component *prev_c = NULL;
	size_t decided = SIZE_MAX; /* of prev's answer */
	for (uint64_t i = lo; i < hi; i++) {
		ws_tensor *t = &m->tensors[i];
		const struct ws_cat_component *c;
		if (prev && t->name_len >= decided &&
		    same_start(t->name, t->name_len, prev->name, prev->name_len, decided)) {
			c = prev_c;
		} else {
			c = ws_cat_component_decide(t->name, t->name_len, &decided);
			prev = t;
		}
		prev_c = c;
		const ws_st_module *md = st_module_of(m, t);
		uint32_t code;
		if (md) {
			code = 1 + p->ncat + (uint32_t)(md - m->st_modules);
			st_role(md, t);
		} else if (!c) {
			code = 0;
		} else {
			code = 1 + (uint32_t)(c - p->cat);
			/* the decoder's role patterns describe none of its
			 * tensors: no role, no block, until the catalogue has
			 * the component's own templates */
			if (logit_unloaded(c, t)) {
				/* its finding is added after the pass, in order */
				t->unloaded = true;
				t->params = 0;
				t->layer = t->expert = -1;
				p->logit[r]++;
			} else if (t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX) {
				t->role = WS_ROLE_OTHER;
				t->layer = -1;
				t->expert = -1;
			}
		}
		t->component = code;
		if (!ns || s[last].code != code) {
			for (last = 0; last < ns && s[last].code != code; last++)
				;
			if (last == ns)
				s[ns++] = (comp_seen){.code = code};
		}
		s[last].tensors++;
		if (t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX &&
		    !ws_add_u64(s[last].params, t->params, &s[last].params))
			s[last].params = UINT64_MAX;
	}
	p->nseen[r] = ns;
}

static void
comp_worker(void *arg, unsigned worker)
{
	comp_pass *p = arg;
	(void)worker;
	for (uint64_t r; (r = atomic_fetch_add(&p->next, 1)) < p->runs;)
		comp_run(p, r);
}

/* The runs' lists into the model's components, in order; map[code] its
 * index.  -1: out of memory. */
static int
comp_merge(comp_pass *p, uint32_t *map, int *main_ix)
{
	ws_model *m = p->m;
	uint32_t cap = 0;
	for (uint64_t r = 0; r < p->runs; r++)
		for (uint32_t k = 0; k < p->nseen[r]; k++) {
			const comp_seen *e = &p->seen[r * p->cap + k];
			if (map[e->code] == UINT32_MAX) {
				int ix;
				if (e->code == 0) {
					ix = find_or_add(m, WS_MAIN_COMPONENT, "text", true, &cap);
					*main_ix = ix;
				} else if (e->code <= p->ncat) {
					const struct ws_cat_component *c = &p->cat[e->code - 1];
					ix = find_or_add(m, c->name, c->kind, false, &cap);
				} else {
					/* kind: it maps the pooled embedding to another width */
					ix = find_or_add(m, m->st_modules[e->code - 1 - p->ncat].path, "projector",
							 false, &cap);
				}
				if (ix < 0)
					return -1;
				map[e->code] = (uint32_t)ix;
			}
			ws_component *co = &m->components[map[e->code]];
			co->tensors += e->tensors;
			if (!ws_add_u64(co->params, e->params, &co->params))
				co->params = UINT64_MAX;
		}
	/* the logit scales' findings, in the tensors' order */
	for (uint64_t r = 0; r < p->runs; r++) {
		uint64_t lo = r * COMP_RUN, hi = m->n_tensors - lo < COMP_RUN ? m->n_tensors : lo + COMP_RUN;
		for (uint64_t i = lo; p->logit[r] && i < hi; i++) {
			ws_tensor *t = &m->tensors[i];
			if (t->component == 0 || t->component > p->ncat || !logit_unloaded(&p->cat[t->component - 1], t))
				continue;
			char *esc = ws_escape_text(t->name, t->name_len);
			if (!esc || ws_model_add_finding(m, WS_SEV_WARNING, "unloaded-tensor", esc, t->role, -1,
							 false, 0, t->elements,
							 "'%s' (%llu elements) is stored, but a text encoder "
							 "class has no place for it: not counted", esc,
							 (unsigned long long)t->elements) < 0) {
				free(esc);
				return -1;
			}
			free(esc);
		}
	}
	return 0;
}

int
ws_components_assign(ws_model *m)
{
	m->components = NULL;
	m->n_components = 0;
	size_t ncat;
	comp_pass p = {.m = m, .cat = ws_cat_components(&ncat)};
	/* codes are a tensor's component index until the merge maps them */
	if (ncat > UINT32_MAX / 2 || m->n_st_modules > UINT32_MAX / 2)
		return -1;
	p.ncat = (uint32_t)ncat;
	uint32_t ncodes = 1 + p.ncat + m->n_st_modules;
	p.cap = ncodes < COMP_RUN ? ncodes : COMP_RUN;
	p.runs = m->n_tensors / COMP_RUN + (m->n_tensors % COMP_RUN != 0);
	/* a run's list holds at most its tensors: all lists together are
	 * bounded by the tensor count (plus a run) */
	p.seen = malloc((p.runs ? p.runs : 1) * p.cap * sizeof *p.seen);
	p.nseen = calloc(p.runs ? p.runs : 1, sizeof *p.nseen);
	p.logit = calloc(p.runs ? p.runs : 1, sizeof *p.logit);
	uint32_t *map = malloc((size_t)ncodes * sizeof *map);
	int rc = -1, main_ix = -1;
	if (!p.seen || !p.nseen || !p.logit || !map)
		goto out;
	for (uint32_t k = 0; k < ncodes; k++)
		map[k] = UINT32_MAX;
	atomic_init(&p.next, 0);
	ws_team_run(ws_team_helpers_for(m->n_tensors), comp_worker, &p);
	if (comp_merge(&p, map, &main_ix))
		goto out;
	/* the main component first: components[0] is what arch describes */
	if (main_ix > 0) {
		ws_component mc = m->components[main_ix];
		memmove(m->components + 1, m->components, (size_t)main_ix * sizeof mc);
		m->components[0] = mc;
		for (uint32_t k = 0; k < ncodes; k++)
			if (map[k] != UINT32_MAX)
				map[k] = map[k] == (uint32_t)main_ix ? 0 : map[k] < (uint32_t)main_ix ? map[k] + 1 : map[k];
	}
	/* codes to indices: mostly the same numbers (one component, the
	 * main one: code 0 is index 0), then no pass */
	bool same = true;
	for (uint32_t k = 0; k < ncodes && same; k++)
		same = map[k] == UINT32_MAX || map[k] == k;
	for (uint64_t i = 0; !same && i < m->n_tensors; i++)
		m->tensors[i].component = map[m->tensors[i].component];
	rc = 0;
out:
	free(p.seen);
	free(p.nseen);
	free(p.logit);
	free(map);
	return rc;
}

void
ws_component_release(ws_component *c)
{
	if (c->arch) {
		ws_arch_free(c->arch);
		free(c->arch);
	}
	if (c->formula_of) {
		ws_formula_free(c->formula_of);
		free(c->formula_of);
	}
	c->arch = NULL;
	c->formula_of = NULL;
}

static int
component_index(const ws_model *m, const char *name)
{
	for (uint32_t i = 0; i < m->n_components; i++)
		if (!strcmp(m->components[i].name, name))
			return (int)i;
	for (uint32_t i = 0; i < m->n_components; i++)
		if (!strcmp(m->components[i].kind, name))
			return (int)i;
	return -1;
}

int
ws_model_select_component(ws_model *m, const char *name, ws_error *err)
{
	int ix = component_index(m, name);
	if (ix < 0) {
		char list[256] = "";
		size_t len = 0;
		for (uint32_t i = 0; i < m->n_components && len < sizeof list; i++) {
			int w = snprintf(list + len, sizeof list - len, "%s%s (%s)", i ? ", " : "",
					 m->components[i].name, m->components[i].kind);
			if (w < 0)
				break;
			len += (size_t)w;
		}
		char *esc = ws_escape_text(name, strlen(name));
		ws_err(err, WS_EXIT_USAGE, m->path, "--component: no component '%s' (components: %s)",
		       esc ? esc : "?", m->n_components ? list : "none");
		free(esc);
		return -1;
	}
	const ws_component *c = &m->components[ix];
	uint64_t k = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (m->tensors[i].component == (uint32_t)ix) {
			m->tensors[k] = m->tensors[i];
			m->tensors[k++].component = 0;
		}
	m->n_tensors = k;
	size_t f = 0;
	for (size_t i = 0; i < m->n_findings; i++) {
		ws_finding *x = &m->findings[i];
		bool keep = x->component ? !strcmp(x->component, c->name)
					 : c->main && !x->other_components;
		if (keep) {
			m->findings[f++] = *x;
		} else {
			free(x->message);
			free(x->tensor);
		}
	}
	m->n_findings = f;
	if (!c->main) {
		/* the warning that named every component without a formula
		 * went with the main component's findings (a component with
		 * its own count keeps its findings about it) */
		char *cn = c->has_formula ? NULL : ws_escape_text(c->name, strlen(c->name));
		if (!c->has_formula &&
		    (!cn || ws_model_add_finding(m, WS_SEV_WARNING, "unsupported-architecture", NULL, -1, -1,
						 false, 0, 0, "no formula for component %s (%s) yet: counted "
						 "in the parameters, not compared", cn, c->kind) < 0)) {
			free(cn);
			return ws_err_oom(err, m->path);
		}
		free(cn);
		if (!c->has_formula)
			m->findings[m->n_findings - 1].component = c->name;
		ws_arch_free(m->arch);
		free(m->arch);
		ws_formula_free(m->formula);
		free(m->formula);
		/* the component's own architecture and formula, when it has
		 * them, are the model's now */
		m->arch = c->arch;
		m->formula = c->formula_of;
	}
	/* the others' are freed with their component records */
	for (uint32_t i = 0; i < m->n_components; i++) {
		ws_component *o = &m->components[i];
		if (o != c)
			ws_component_release(o);
	}
	m->components[0] = *c;
	m->components[0].arch = NULL;
	m->components[0].formula_of = NULL;
	m->components[0].main = true;
	m->n_components = 1;
	return 0;
}

/* ==== the components a wrapper's config describes ==== */

/* The length of the part prefix name starts with, or 0. */
static size_t
part_prefix(const struct ws_cat_part *p, const char *name, size_t len)
{
	for (size_t i = 0; i < WS_CAT_MAX_PREFIXES && p->prefixes[i]; i++) {
		size_t n = strlen(p->prefixes[i]);
		/* a module ends in '.' (a folder in '/'); a prefix without
		 * either is a parameter's whole name (LLaVA-NeXT's image_newline) */
		bool whole = n && p->prefixes[i][n - 1] != '.' && p->prefixes[i][n - 1] != '/';
		if ((whole ? len == n : len > n) && memcmp(name, p->prefixes[i], n) == 0)
			return n;
	}
	return 0;
}

/* A tower's tensor: its role as its own type names it, read after the
 * module prefix; every tensor of a projector is role projector (its
 * norms included, SPEC), buffers and quantization side tensors apart. */
static void
part_role(const ws_model *m, const struct ws_arch *a, const ws_component *co, ws_tensor *t, size_t skip)
{
	ws_role role;
	int32_t layer, expert;
	ws_kind kind;
	const char *type = a ? a->architecture : "";
	/* after the prefix (a tower's body), else whole (a projection the
	 * prefix names itself: visual_projection.weight) */
	if (!ws_role_classify(m->format, type, t->name + skip, t->name_len - skip, &role, &layer, &expert, &kind))
		ws_role_classify(m->format, type, t->name, t->name_len, &role, &layer, &expert, &kind);
	if (!strcmp(co->kind, "projector") && role != WS_ROLE_BUFFER && role != WS_ROLE_QUANT_AUX) {
		role = WS_ROLE_PROJECTOR;
		/* a list of mergers keeps each one's index as its block */
		if (!co->arch || !co->arch->num_layers)
			layer = -1;
		expert = -1;
	}
	t->role = role;
	t->kind = kind;
	t->layer = layer;
	t->expert = expert;
	t->unloaded = false;
	t->params = role == WS_ROLE_BUFFER || role == WS_ROLE_QUANT_AUX ? 0 : t->elements;
}

/* Each part's architecture: a tower's from its sub-config, a projector's
 * from the text model and the tower before it. */
static int
part_archs(ws_model *m, ws_error *err)
{
	/* the main component is the tower itself in a vision or audio file
	 * (mmproj) */
	const struct ws_arch *tower = m->arch && (ws_sw_has(&m->arch->flags, WS_ARCH_PATCHES) ||
						  ws_sw_has(&m->arch->flags, WS_ARCH_CONV_STEM)) ? m->arch : NULL;
	for (uint32_t i = 1; i < m->n_components; i++) {
		ws_component *co = &m->components[i];
		struct ws_arch *a = calloc(1, sizeof *a);
		if (!a)
			return ws_err_oom(err, m->path);
		/* a GGUF's stacks (t5) are read from its metadata as their types */
		int r = co->part->inferred ? ws_arch_infer_part(m, co->part, a, err)
			: co->part->config && m->config
			? ws_arch_from_part(m->config, m->config_path, co->part, a, err)
			: co->part->config && !co->part->config[0] && m->format == WS_FORMAT_GGUF
			? ws_arch_from_gguf_part(m, co->part, a, err)
			: co->part->config && m->format == WS_FORMAT_GGUF ? ws_arch_vision_gguf(m, a, err)
			: co->part->config ? -2
			: tower && m->arch ? ws_arch_projector(co->part, m->arch, tower, m->config, a, err) : -2;
		if (r == -1) {
			ws_arch_free(a);
			free(a);
			return -1;
		}
		if (r == -2) {
			free(a);
			continue;
		}
		co->arch = a;
		if (co->part->config)
			tower = a;
		if (!a->known)
			continue;
		struct ws_formula *f = calloc(1, sizeof *f);
		if (!f)
			return ws_err_oom(err, m->path);
		if (ws_formula_compute(a, f, err)) {
			free(f);
			return -1;
		}
		co->formula_of = f;
		co->has_formula = true;
		co->formula = f->total;
	}
	return 0;
}

/* What a part's class ignores on load (its `ignored` name): one
 * unloaded-tensor warning per component naming them. */
static int
parts_unloaded(ws_model *m)
{
	for (uint32_t c = 0; c < m->n_components; c++) {
		uint64_t n = 0, elements = 0;
		const ws_tensor *first = NULL;
		for (uint64_t i = 0; i < m->n_tensors; i++) {
			const ws_tensor *t = &m->tensors[i];
			if (t->component != c || !t->unloaded)
				continue;
			if (!n++)
				first = t;
			if (!ws_add_u64(elements, t->elements, &elements))
				elements = UINT64_MAX;
		}
		if (!n)
			continue;
		char num[32], *name = ws_escape_text(first->name, first->name_len);
		if (!name)
			return -1;
		int rc = ws_model_add_finding(m, WS_SEV_WARNING, "unloaded-tensor", name, -1, -1, false, 0, 0,
					      "%llu tensor%s stored but not loaded by the %s's class (it ignores "
					      "them on load): '%s'%s; %s elements, counted apart, not in the parameters",
					      (unsigned long long)n, n == 1 ? "" : "s", m->components[c].name, name,
					      n > 1 ? " ..." : "", ws_fmt_commas(elements, num, sizeof num));
		free(name);
		if (rc < 0)
			return -1;
		m->findings[m->n_findings - 1].component = m->components[c].name;
	}
	return 0;
}

int
ws_components_from_parts(ws_model *m, const struct ws_cat_part *parts, ws_error *err)
{
	uint32_t cap = 0;
	m->components = NULL;
	m->n_components = 0;
	/* every part is a component, tensors or not (a bare config's
	 * formula names them all) */
	for (size_t i = 0; i < WS_CAT_MAX_PARTS && parts[i].kind; i++) {
		/* the main one is named by its kind: text, or an mmproj's vision */
		int ix = find_or_add(m, parts[i].name ? parts[i].name : parts[i].kind, parts[i].kind,
				     i == 0, &cap);
		if (ix < 0)
			return ws_err_oom(err, m->path);
		m->components[ix].part = &parts[i];
	}
	if (part_archs(m, err))
		return -1;
	/* a table outside every stack (T5's shared, BART's model.shared):
	 * the stacks' embed_tokens of its size are copies transformers ties
	 * to it, one parameter set */
	uint64_t shared = 0;
	for (uint64_t i = 0; i < m->n_tensors && !shared; i++) {
		const ws_tensor *t = &m->tensors[i];
		bool inside = false;
		for (uint32_t c = 0; c < m->n_components && !inside; c++)
			inside = m->components[c].part && part_prefix(m->components[c].part, t->name, t->name_len);
		if (!inside && t->role == WS_ROLE_EMBED && t->kind == WS_KIND_WEIGHT && t->layer < 0)
			shared = t->elements;
	}
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		ws_tensor *t = &m->tensors[i];
		uint32_t ix = 0;
		size_t skip = 0;
		/* the longest prefix: a merger inside the tower's module
		 * (visual.merger. in visual.) is a component of its own */
		for (uint32_t c = 1; c < m->n_components; c++) {
			size_t n = part_prefix(m->components[c].part, t->name, t->name_len);
			if (n > skip) {
				skip = n;
				ix = c;
			}
		}
		/* the main one's own stack (an encoder-decoder's decoder) */
		if (!ix && m->n_components && m->components[0].part)
			skip = part_prefix(m->components[0].part, t->name, t->name_len);
		ws_component *co = &m->components[ix];
		if (ix || skip)
			part_role(m, ix ? co->arch : m->arch, co, t, skip);
		for (int k = 0; skip && co->part && k < 2; k++) {
			const char *ign = co->part->ignored[k];
			if (ign && t->name_len - skip == strlen(ign) && !memcmp(t->name + skip, ign, strlen(ign))) {
				t->unloaded = true;
				t->params = 0;
			}
		}
		if (skip && shared && t->role == WS_ROLE_EMBED && t->kind == WS_KIND_WEIGHT &&
		    t->elements == shared) {
			t->tied_copy = true;
			t->params = 0;
		}
		t->component = ix;
		co->tensors++;
		if (t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX &&
		    !ws_add_u64(co->params, t->params, &co->params))
			co->params = UINT64_MAX;
	}
	return parts_unloaded(m) < 0 ? ws_err_oom(err, m->path) : 0;
}
