/*
 * html.c - the picture report: a self-contained HTML page (inline SVG and
 * CSS, nothing fetched) or a bare SVG, showing where the parameters sit.
 *
 * Sections: a treemap (squarified, role groups -> layers -> tensors), a
 * per-layer stacked bar chart, the summary tables, the findings.  All
 * text from files goes through ws_escape_text() and then HTML escaping;
 * coordinates are printed as integer tenths so no locale or libm detail
 * changes a byte.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/formula.h"
#include "ws/html.h"
#include "ws/report.h"
#include "ws/util.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* A rectangle smaller than this (px²) cannot be seen or hovered: tensors
 * of one (layer, role, dtype) whose average is smaller become one. */
#define MIN_AREA 40.0
#define MAX_COLUMNS 2048    /* bars drawn; more blocks than this are noted */
#define MAX_FINDING_ROWS 1000
#define MAX_MARK_LINES 12   /* finding lines in one layer marker's title */
#define GAP_FILL 256        /* missing block indices drawn one by one */

/* ==== categories: which part of a model a role belongs to ==== */

/* The parts are the role table's (enum ws_role_part); their names and
 * colours are this report's. */
enum cat {
	C_ATTN = WS_PART_ATTN, C_MLP = WS_PART_MLP, C_EXPERTS = WS_PART_EXPERTS,
	C_NORMS = WS_PART_NORMS, C_EMBED = WS_PART_EMBED, C_HEAD = WS_PART_HEAD,
	C_MTP = WS_PART_MTP, C_OTHER = WS_PART_OTHER, C_AUX = WS_PART_AUX,
	C_COUNT = WS_PART_COUNT
};

static const struct {
	const char *name;
	const char *colour;
} cats[C_COUNT] = {
	[C_ATTN] = {"attention", "#4e79a7"},
	[C_MLP] = {"MLP", "#59a14f"},
	[C_EXPERTS] = {"experts", "#f28e2b"},
	[C_NORMS] = {"norms", "#d4a72c"},
	[C_EMBED] = {"embedding", "#b07aa1"},
	[C_HEAD] = {"head", "#e15759"},
	[C_MTP] = {"MTP", "#76b7b2"},
	[C_OTHER] = {"other", "#9d9d9d"},
	[C_AUX] = {"not parameters", "#c9c2bd"},
};

/* Fixed colours for the common dtypes, so two reports read alike; the
 * rest take a colour from `spare` by enum value. */
static const char *const dtype_colour[WS_DT_COUNT] = {
	[WS_DT_F64] = "#1b3a5c", [WS_DT_F32] = "#2f6fb0", [WS_DT_F16] = "#3fa34d",
	[WS_DT_BF16] = "#3a9ca6", [WS_DT_F8_E4M3] = "#e07b39", [WS_DT_F8_E5M2] = "#c9581f",
	[WS_DT_F8_E8M0] = "#a34722", [WS_DT_F4] = "#d1495b", [WS_DT_MXFP4] = "#b8336a",
	[WS_DT_I8] = "#8c6bb1", [WS_DT_U8] = "#6a51a3", [WS_DT_I32] = "#807dba",
	[WS_DT_Q8_0] = "#2c7fb8", [WS_DT_Q6_K] = "#41b6c4", [WS_DT_Q5_K] = "#7fcdbb",
	[WS_DT_Q4_K] = "#f0a830", [WS_DT_Q4_0] = "#fdae61", [WS_DT_Q3_K] = "#f46d43",
	[WS_DT_Q2_K] = "#d73027", [WS_DT_IQ4_XS] = "#a6d96a", [WS_DT_IQ4_NL] = "#66bd63",
};
static const char *const spare[] = {
	"#9c755f", "#bab0ac", "#ff9da7", "#76b7b2", "#edc948", "#af7aa1", "#86bcb6", "#8cd17d",
};

static const char *
dt_colour(int d)
{
	if (d >= 0 && d < WS_DT_COUNT && dtype_colour[d])
		return dtype_colour[d];
	return spare[(unsigned)d % ARRAY_LEN(spare)];
}

static unsigned
cat_of(const ws_tensor *t)
{
	return (int)ws_role_part(t->role);
}

static unsigned
dt_of(const ws_tensor *t)
{
	return (unsigned)t->dtype < WS_DT_COUNT ? (unsigned)t->dtype : WS_DT_INVALID;
}

/* Area weight: parameters, or stored elements for buffers and quant aux. */
static uint64_t
weight_of(const ws_tensor *t)
{
	return t->params ? t->params : t->elements;
}

/* ==== output helpers ==== */

typedef struct ctx {
	FILE *f;
	bool oom;
	bool svg;
	double width;
} ctx;

static const char *const html_ent[256] = {
	['&'] = "&amp;", ['<'] = "&lt;", ['>'] = "&gt;", ['"'] = "&quot;", ['\''] = "&#39;",
};

/* Text that is already safe for a terminal (escaped names, our own). */
static void
put_html(ctx *c, const char *s)
{
	for (; *s; s++) {
		const char *e = html_ent[(unsigned char)*s];
		if (e)
			fputs(e, c->f);
		else
			fputc(*s, c->f);
	}
}

/* Untrusted bytes: the text escaping first (control bytes, invalid UTF-8
 * -> \xNN), then HTML escaping. */
static void
put_bytes(ctx *c, const char *s, size_t len)
{
	char *e = ws_escape_text(s, len);
	if (!e) {
		c->oom = true;
		return;
	}
	put_html(c, e);
	free(e);
}

/* A coordinate in integer tenths: locale-free and reproducible. Values
 * that are not finite or far outside any drawing (a hostile count can
 * make a scale degenerate) print as 0 rather than reach the conversion
 * to long, which would be undefined. */
static void
put_num(ctx *c, double v)
{
	if (!isfinite(v) || v > 1e12 || v < -1e12)
		v = 0;
	long t = (long)(v * 10.0 + (v < 0 ? -0.5 : 0.5));
	if (t < 0) {
		fputc('-', c->f);
		t = -t;
	}
	if (t % 10)
		fprintf(c->f, "%ld.%ld", t / 10, t % 10);
	else
		fprintf(c->f, "%ld", t / 10);
}

static void
put_rect(ctx *c, double x, double y, double w, double h)
{
	fputs("x=\"", c->f);
	put_num(c, x);
	fputs("\" y=\"", c->f);
	put_num(c, y);
	fputs("\" width=\"", c->f);
	put_num(c, w < 0 ? 0 : w);
	fputs("\" height=\"", c->f);
	put_num(c, h < 0 ? 0 : h);
	fputc('"', c->f);
}

static const char *
commas(uint64_t v, char *buf)
{
	return ws_fmt_commas(v, buf, 32);
}

/* "12.3%" of part in whole, in integers (tenths of a percent). */
static const char *
percent(uint64_t part, uint64_t whole, char *buf)
{
	if (!whole) {
		snprintf(buf, 32, "-");
		return buf;
	}
	double p = 1000.0 * (double)part / (double)whole;
	if (p >= 1e15) { /* a hostile delta: beyond long, no tenths needed */
		snprintf(buf, 32, "%.0f%%", p / 10);
		return buf;
	}
	long t = (long)(p + 0.5);
	snprintf(buf, 32, "%ld.%ld%%", t / 10, t % 10);
	return buf;
}

/* ==== per-model numbers ==== */

typedef struct column {
	uint32_t comp;              /* its component's rank (comp_rank) */
	int64_t layer;              /* block index (elided: the run's first) */
	bool elided;                /* a long run of missing indices */
	uint64_t by_cat[C_COUNT];
	uint64_t total;
	uint64_t expected;
	bool has_expected;
	size_t f_first, f_n;        /* its findings in stats.fidx */
	int worst;                  /* worst severity, -1 none */
} column;

typedef struct stats {
	const ws_model *m;
	uint64_t elements, bytes, params, non_embedding, buffers, aux;
	uint64_t n_buffers, n_aux;
	uint64_t el_dt[WS_DT_COUNT], by_dt[WS_DT_COUNT], pa_dt[WS_DT_COUNT], n_dt[WS_DT_COUNT];
	uint64_t by_role[WS_ROLE_COUNT];
	/* the main component's alone: what its formula and blocks describe */
	uint64_t main_role[WS_ROLE_COUNT];
	uint64_t by_cat[C_COUNT];
	uint64_t routed;            /* parameters of routed experts */
	column *cols;
	size_t n_cols;
	size_t n_blocks;            /* columns wanted before MAX_COLUMNS */
	size_t *fidx;               /* findings with a layer, sorted by layer */
	size_t n_fidx;
	bool multi;                 /* blocks of several components: named */
} stats;

static bool
routed_role(int r)
{
	return r == WS_ROLE_MOE_GATE || r == WS_ROLE_MOE_UP || r == WS_ROLE_MOE_DOWN ||
	       r == WS_ROLE_MOE_GATE_UP;
}

/* Sort keys carry what they compare: qsort has no context argument and
 * the library keeps no global state. */
typedef struct fkey {
	uint32_t comp;
	int32_t layer;
	size_t i;
} fkey;

static int
cmp_fkey(const void *a, const void *b)
{
	const fkey *x = a, *y = b;
	if (x->comp != y->comp)
		return x->comp < y->comp ? -1 : 1;
	if (x->layer != y->layer)
		return x->layer < y->layer ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Columns are in (component rank, block) order. */
static column *
find_col(stats *s, uint32_t comp, int64_t layer)
{
	size_t lo = 0, hi = s->n_cols;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const column *c = &s->cols[mid];
		if (c->comp == comp && c->layer == layer)
			return &s->cols[mid];
		if (c->comp < comp || (c->comp == comp && c->layer < layer))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/*
 * The bar chart's columns: every expected block, every block present, and
 * the indices missing between them (one elided column for a long run), so
 * a hostile layer index of 999,999,999 costs one column, not a billion.
 */
/* A tensor of the main component, the one the blocks and the formula
 * describe (a tower numbers its blocks from 0 too). */
static bool
in_main(const ws_model *m, const ws_tensor *t)
{
	return !m->n_components || t->component >= m->n_components || m->components[t->component].main;
}

/* Each component numbers its blocks from 0: blocks are told apart by
 * their component's rank, the main one's 0, component k's k + 1. */
static uint32_t
comp_rank(const ws_model *m, const ws_tensor *t)
{
	return in_main(m, t) ? 0 : t->component + 1;
}

/* A finding's rank: the component it names (NULL: the main one). */
static uint32_t
finding_rank(const ws_model *m, const ws_finding *fd)
{
	for (uint32_t k = 0; fd->component && k < m->n_components; k++)
		if (!strcmp(m->components[k].name, fd->component))
			return m->components[k].main ? 0 : k + 1;
	return 0;
}

/* The component of rank r, or NULL for a model of one. */
static const ws_component *
rank_comp(const ws_model *m, uint32_t r)
{
	if (!m->n_components)
		return NULL;
	if (r && r <= m->n_components)
		return &m->components[r - 1];
	for (uint32_t k = 0; k < m->n_components; k++)
		if (m->components[k].main)
			return &m->components[k];
	return NULL;
}

/* Do blocks of more than one component appear (a tower beside the text
 * model)?  Then every block is shown with its component's name. */
static bool
several_stacks(const ws_model *m)
{
	bool seen = false;
	uint32_t first = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (t->layer < 0)
			continue;
		uint32_t r = comp_rank(m, t);
		if (seen && r != first)
			return true;
		seen = true;
		first = r;
	}
	return false;
}

/* "vision_tower 3": a block under its component's escaped name; just
 * "3" when the model has one stack.  false on OOM. */
static bool
block_name(const ws_model *m, bool multi, uint32_t rank, int64_t layer, char *buf, size_t len)
{
	const ws_component *co = multi ? rank_comp(m, rank) : NULL;
	if (!co) {
		snprintf(buf, len, "%lld", (long long)layer);
		return true;
	}
	char *e = ws_escape_text(co->name, strlen(co->name));
	if (!e)
		return false;
	snprintf(buf, len, "%s %lld", e, (long long)layer);
	free(e);
	return true;
}

/* A component's formula per block: the main one's m->formula, another's
 * its own (none: no expectation). */
static const struct ws_formula *
rank_formula(const ws_model *m, uint32_t r)
{
	if (!r)
		return m->formula;
	const ws_component *co = rank_comp(m, r);
	return co ? co->formula_of : NULL;
}

/* One component's columns appended to idx / el / rk (room for them
 * made by the caller): [0, expected) merged with its distinct present
 * indices, long gaps elided. */
static size_t
component_columns(const int64_t *present, size_t nd, uint64_t expected, uint32_t rank, int64_t *idx,
		  bool *el, uint32_t *rk, size_t n)
{
	size_t p = 0;
	int64_t next = 0;   /* the next index to place */
	while (next < (int64_t)expected || p < nd) {
		int64_t want = next < (int64_t)expected ? next : present[p];
		if (p < nd && present[p] < want)
			want = present[p];
		if (want > next) {
			if (want - next <= GAP_FILL) {
				for (int64_t k = next; k < want; k++) {
					rk[n] = rank;
					idx[n++] = k;
				}
			} else {
				el[n] = true;
				rk[n] = rank;
				idx[n++] = next;
			}
		}
		rk[n] = rank;
		idx[n++] = want;
		next = want + 1;
		while (p < nd && present[p] < next)
			p++;
	}
	return n;
}

/* A block present: its component's rank and index. */
typedef struct rkey {
	uint32_t comp;
	int64_t layer;
} rkey;

static int
cmp_rkey(const void *a, const void *b)
{
	const rkey *x = a, *y = b;
	if (x->comp != y->comp)
		return x->comp < y->comp ? -1 : 1;
	return (x->layer > y->layer) - (x->layer < y->layer);
}

static int
build_columns(stats *s)
{
	const ws_model *m = s->m;
	/* ranks: the main component's, then one per other component */
	uint32_t nr = m->n_components > 1 ? m->n_components + 1 : 1;
	size_t np = 0;
	rkey *pk = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *pk);
	int64_t *present = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *present);
	if (!pk || !present) {
		free(pk);
		free(present);
		return -1;
	}
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (m->tensors[i].layer >= 0)
			pk[np++] = (rkey){comp_rank(m, &m->tensors[i]), m->tensors[i].layer};
	qsort(pk, np, sizeof *pk, cmp_rkey);
	size_t nd = 0;
	for (size_t i = 0; i < np; i++)
		if (!nd || cmp_rkey(&pk[nd - 1], &pk[i]))
			pk[nd++] = pk[i];
	/* every expected block of every component, every block present and
	 * the gaps between them */
	uint64_t expected_all = 0;
	for (uint32_t r = 0; r < nr; r++) {
		const struct ws_formula *fo = rank_formula(m, r);
		expected_all += fo ? fo->num_layers : 0;
	}
	size_t cap = nd * (GAP_FILL + 2) + (size_t)expected_all + 2;
	int64_t *idx = malloc(cap * sizeof *idx);
	bool *el = calloc(cap, sizeof *el);
	uint32_t *rk = malloc(cap * sizeof *rk);
	if (!idx || !el || !rk) {
		free(idx);
		free(el);
		free(rk);
		free(pk);
		free(present);
		return -1;
	}
	size_t n = 0;
	for (uint32_t r = 0, p = 0; r < nr; r++) {
		size_t k = 0;
		for (; p < nd && pk[p].comp == r; p++)
			present[k++] = pk[p].layer;
		const struct ws_formula *fo = rank_formula(m, r);
		n = component_columns(present, k, fo ? fo->num_layers : 0, r, idx, el, rk, n);
	}
	free(pk);
	free(present);
	s->n_blocks = n;
	if (n > MAX_COLUMNS)
		n = MAX_COLUMNS;
	s->cols = calloc(n ? n : 1, sizeof *s->cols);
	if (!s->cols) {
		free(idx);
		free(el);
		free(rk);
		return -1;
	}
	s->n_cols = n;
	for (size_t i = 0; i < n; i++) {
		const struct ws_formula *fo = rank_formula(m, rk[i]);
		s->cols[i].comp = rk[i];
		s->cols[i].layer = idx[i];
		s->cols[i].elided = el[i];
		s->cols[i].worst = -1;
		if (!el[i] && fo && (uint64_t)idx[i] < fo->num_layers) {
			s->cols[i].has_expected = true;
			s->cols[i].expected = fo->by_layer[idx[i]];
		}
	}
	free(idx);
	free(el);
	free(rk);
	return 0;
}

static int
stats_compute(const ws_model *m, stats *s)
{
	memset(s, 0, sizeof *s);
	s->m = m;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		unsigned d = dt_of(t);
		s->elements += t->elements;
		s->bytes += t->bytes;
		s->el_dt[d] += t->elements;
		s->by_dt[d] += t->bytes;
		s->n_dt[d]++;
		s->by_cat[cat_of(t)] += weight_of(t);
		if (t->role == WS_ROLE_BUFFER || t->role == WS_ROLE_QUANT_AUX) {
			*(t->role == WS_ROLE_BUFFER ? &s->buffers : &s->aux) += t->elements;
			(*(t->role == WS_ROLE_BUFFER ? &s->n_buffers : &s->n_aux))++;
			continue;
		}
		s->params += t->params;
		s->pa_dt[d] += t->params;
		if ((unsigned)t->role < WS_ROLE_COUNT) {
			s->by_role[t->role] += t->params;
			if (in_main(m, t))
				s->main_role[t->role] += t->params;
		}
		if (t->role != WS_ROLE_EMBED && t->role != WS_ROLE_POS_EMBED &&
		    t->role != WS_ROLE_TYPE_EMBED)
			s->non_embedding += t->params;
		if (routed_role(t->role))
			s->routed += t->params;
	}
	s->multi = several_stacks(m);
	if (build_columns(s))
		return -1;
	/* per-column sums; an elided column has none by construction */
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		column *col = t->layer >= 0 ? find_col(s, comp_rank(m, t), t->layer) : NULL;
		if (!col)
			continue;
		/* bars count parameters: buffers and scales are not */
		col->by_cat[cat_of(t)] += t->params;
		col->total += t->params;
	}
	s->fidx = malloc((m->n_findings ? m->n_findings : 1) * sizeof *s->fidx);
	fkey *fk = malloc((m->n_findings ? m->n_findings : 1) * sizeof *fk);
	if (!s->fidx || !fk) {
		free(fk);
		return -1;
	}
	for (size_t i = 0; i < m->n_findings; i++)
		if (m->findings[i].layer >= 0)
			fk[s->n_fidx++] = (fkey){finding_rank(m, &m->findings[i]), m->findings[i].layer, i};
	qsort(fk, s->n_fidx, sizeof *fk, cmp_fkey);
	for (size_t i = 0; i < s->n_fidx; i++)
		s->fidx[i] = fk[i].i;
	free(fk);
	for (size_t i = 0; i < s->n_fidx; i++) {
		const ws_finding *fd = &m->findings[s->fidx[i]];
		column *col = find_col(s, finding_rank(m, fd), fd->layer);
		if (!col)
			continue;
		if (!col->f_n)
			col->f_first = i;
		col->f_n++;
		if ((int)fd->severity > col->worst)
			col->worst = (int)fd->severity;
	}
	return 0;
}

static void
stats_free(stats *s)
{
	free(s->cols);
	free(s->fidx);
}

/* ==== squarified treemap layout ==== */

typedef struct rect {
	double x, y, w, h;
} rect;

/* Worst aspect ratio of a row of areas a[i..j) (sorted descending) laid
 * along a side of length `side`. */
static double
worst_ratio(const double *a, size_t i, size_t j, double sum, double side)
{
	double s2 = side * side, sum2 = sum * sum;
	double big = a[i] * s2 / sum2, small = sum2 / (s2 * a[j - 1]);
	return big > small ? big : small;
}

/*
 * Bruls, Huizing and van Wijk's squarified layout: w[0..n) sorted
 * descending (any scale), out[0..n) the rectangles tiling r.  Rows grow
 * while the worst aspect ratio improves, along the shorter side.
 */
static void
squarify(const uint64_t *w, size_t n, rect r, rect *out, double *a)
{
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += (double)w[i];
	double area = r.w * r.h;
	for (size_t i = 0; i < n; i++)
		a[i] = total > 0 && area > 0 ? (double)w[i] * area / total : 0;
	size_t i = 0;
	while (i < n) {
		double side = r.w < r.h ? r.w : r.h;
		if (a[i] <= 0 || side <= 0) {
			for (; i < n; i++)
				out[i] = (rect){r.x, r.y, 0, 0};
			break;
		}
		size_t j = i + 1;
		double sum = a[i], worst = worst_ratio(a, i, j, sum, side);
		while (j < n && a[j] > 0) {
			double ns = sum + a[j], nw = worst_ratio(a, i, j + 1, ns, side);
			if (nw > worst)
				break;
			sum = ns;
			worst = nw;
			j++;
		}
		if (r.w >= r.h) { /* a column at the left */
			double t = sum / r.h, y = r.y;
			for (size_t k = i; k < j; k++) {
				double h = a[k] / t;
				out[k] = (rect){r.x, y, t, h};
				y += h;
			}
			r.x += t;
			r.w -= t;
		} else {          /* a row at the top */
			double t = sum / r.w, x = r.x;
			for (size_t k = i; k < j; k++) {
				double wk = a[k] / t;
				out[k] = (rect){x, r.y, wk, t};
				x += wk;
			}
			r.y += t;
			r.h -= t;
		}
		i = j;
	}
}

/* ==== treemap: groups -> layers -> leaves ==== */

typedef struct leaf {
	size_t first, count;        /* a run of ord[] */
	uint64_t w;
} leaf;

typedef struct node {
	size_t first, count;        /* children: leaves (layer) or layers (group) */
	uint64_t w;
	int64_t key;                /* layer index or category */
	uint32_t comp;              /* a layer's component rank */
} node;

/* treemap order: part, component, block, role, dtype, largest first,
 * file order */
typedef struct okey {
	uint32_t cat, comp, role, dt;
	int32_t layer;
	uint64_t w, i;
} okey;

static int
cmp_okey(const void *a, const void *b)
{
	const okey *x = a, *y = b;
	if (x->cat != y->cat)
		return x->cat < y->cat ? -1 : 1;
	if (x->comp != y->comp)
		return x->comp < y->comp ? -1 : 1;
	if (x->layer != y->layer)
		return x->layer < y->layer ? -1 : 1;
	if (x->role != y->role)
		return x->role < y->role ? -1 : 1;
	if (x->dt != y->dt)
		return x->dt < y->dt ? -1 : 1;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return (x->i > y->i) - (x->i < y->i);
}

/* children sorted by weight descending, ties by their original order */
static int
cmp_leaf(const void *a, const void *b)
{
	const leaf *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return (x->first > y->first) - (x->first < y->first);
}

static int
cmp_node(const void *a, const void *b)
{
	const node *x = a, *y = b;
	if (x->w != y->w)
		return x->w > y->w ? -1 : 1;
	return (x->key > y->key) - (x->key < y->key);
}

static void
shape_str(const ws_tensor *t, char *buf, size_t len)
{
	size_t o = 0;
	buf[o++] = '[';
	for (uint32_t d = 0; d < t->ndim && o + 24 < len; d++)
		o += (size_t)snprintf(buf + o, len - o, "%s%llu", d ? ", " : "",
				      (unsigned long long)t->shape[d]);
	snprintf(buf + o, len - o, "]");
}

/* " · vision_tower layer 3" (" · layer 3" with one stack) */
static void
layer_of(ctx *c, const ws_model *m, bool multi, const ws_tensor *t)
{
	if (t->layer < 0)
		return;
	const ws_component *co = multi ? rank_comp(m, comp_rank(m, t)) : NULL;
	fputs(" \xc2\xb7 ", c->f);
	if (co) {
		put_bytes(c, co->name, strlen(co->name));
		fputc(' ', c->f);
	}
	fprintf(c->f, "layer %d", t->layer);
}

static void
leaf_title(ctx *c, const ws_model *m, bool multi, const uint64_t *ord, const leaf *lf)
{
	const ws_tensor *t = &m->tensors[ord[lf->first]];
	char a[32], b[32], sh[256];
	fputs("<title>", c->f);
	if (lf->count == 1) {
		put_bytes(c, t->name, t->name_len);
		shape_str(t, sh, sizeof sh);
		fprintf(c->f, "\n%s", ws_role_name(t->role));
		layer_of(c, m, multi, t);
		if (t->expert >= 0)
			fprintf(c->f, " \xc2\xb7 expert %d", t->expert);
		fprintf(c->f, " \xc2\xb7 %s %s\n%s %s \xc2\xb7 %s bytes", ws_dtype_name(t->dtype), sh,
			commas(weight_of(t), a), t->params ? "parameters" : "elements",
			commas(t->bytes, b));
	} else {
		int32_t elo = INT32_MAX, ehi = -1;
		uint64_t bytes = 0;
		for (size_t k = 0; k < lf->count; k++) {
			const ws_tensor *u = &m->tensors[ord[lf->first + k]];
			bytes += u->bytes;
			if (u->expert >= 0 && u->expert < elo)
				elo = u->expert;
			if (u->expert > ehi)
				ehi = u->expert;
		}
		fprintf(c->f, "%zu %s tensors", lf->count, ws_role_name(t->role));
		layer_of(c, m, multi, t);
		if (ehi >= 0)
			fprintf(c->f, " \xc2\xb7 experts %d-%d", elo, ehi);
		fprintf(c->f, " \xc2\xb7 %s\n%s %s \xc2\xb7 %s bytes\nfirst: ", ws_dtype_name(t->dtype),
			commas(lf->w, a), t->params ? "parameters" : "elements", commas(bytes, b));
		put_bytes(c, t->name, t->name_len);
	}
	fputs("</title>", c->f);
}

/* A tile's label: the role, its expert ("moe_up e17") or the experts a
 * merged tile holds ("moe_up e0-127"). */
static void
tile_label(const ws_model *m, const uint64_t *ord, const leaf *lf, char *buf, size_t len)
{
	const ws_tensor *t = &m->tensors[ord[lf->first]];
	int32_t lo = INT32_MAX, hi = -1;
	for (size_t k = 0; k < lf->count; k++) {
		int32_t e = m->tensors[ord[lf->first + k]].expert;
		if (e >= 0 && e < lo)
			lo = e;
		if (e > hi)
			hi = e;
	}
	if (hi < 0)
		snprintf(buf, len, "%s%s", ws_role_name(t->role), lf->count > 1 ? " \xc3\x97" : "");
	else if (lo == hi)
		snprintf(buf, len, "%s e%d", ws_role_name(t->role), (int)lo);
	else
		snprintf(buf, len, "%s e%d-%d", ws_role_name(t->role), (int)lo, (int)hi);
	if (lf->count > 1 && hi < 0)
		snprintf(buf + strlen(buf), len - strlen(buf), "%zu", lf->count);
}

/* Does text fit a box this wide (about 6.2 px per character at 11px)? */
static bool
label_fits(const char *text, double w)
{
	return 6.2 * (double)strlen(text) + 6 <= w;
}

/* A label when the box can hold it. */
static void
label(ctx *c, rect r, const char *text, const char *cls, double pad_y)
{
	if (!label_fits(text, r.w) || r.h < 15)
		return;
	fprintf(c->f, "<text class=\"%s\" x=\"", cls);
	put_num(c, r.x + 3);
	fputs("\" y=\"", c->f);
	put_num(c, r.y + pad_y);
	fputs("\">", c->f);
	put_html(c, text);
	fputs("</text>", c->f);
}

static int
treemap(ctx *c, const ws_model *m, double x0, double y0, double W, double H)
{
	size_t n = 0;
	uint64_t total = 0;
	uint64_t *ord = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *ord);
	leaf *leaves = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *leaves);
	node *layers = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *layers);
	node groups[C_COUNT];
	rect *rl = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *rl);
	double *scratch = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *scratch);
	uint64_t *wv = calloc(m->n_tensors ? m->n_tensors : 1, sizeof *wv);
	int rc = -1;

	if (!ord || !leaves || !layers || !rl || !scratch || !wv)
		goto out;
	/* a tower's blocks apart from the text model's, named */
	bool multi = several_stacks(m);
	okey *keys = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *keys);
	if (!keys)
		goto out;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (!weight_of(t))
			continue;
		keys[n++] = (okey){cat_of(t), comp_rank(m, t), (uint32_t)t->role, dt_of(t), t->layer, weight_of(t), i};
		total += weight_of(t);
	}
	qsort(keys, n, sizeof *keys, cmp_okey);
	for (size_t i = 0; i < n; i++)
		ord[i] = keys[i].i;
	free(keys);
	/* the dtype most parameters have: others are drawn lighter */
	uint64_t by_dt[WS_DT_COUNT] = {0};
	unsigned main_dt = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned d = dt_of(&m->tensors[ord[i]]);
		if (d < WS_DT_COUNT && (by_dt[d] += weight_of(&m->tensors[ord[i]])) > by_dt[main_dt])
			main_dt = d;
	}

	/* leaves: runs of (cat, layer, role, dtype), merged when too small */
	double px = total ? W * H / (double)total : 0; /* px² per unit */
	size_t nl = 0, nlay = 0, ng = 0;
	for (size_t i = 0; i < n;) {
		const ws_tensor *t = &m->tensors[ord[i]];
		size_t j = i;
		uint64_t sum = 0;
		while (j < n) {
			const ws_tensor *u = &m->tensors[ord[j]];
			if (cat_of(u) != cat_of(t) || u->layer != t->layer || u->role != t->role ||
			    dt_of(u) != dt_of(t) || comp_rank(m, u) != comp_rank(m, t))
				break;
			sum += weight_of(u);
			j++;
		}
		if (j - i > 1 && (double)sum * px / (double)(j - i) < MIN_AREA) {
			leaves[nl++] = (leaf){i, j - i, sum};
		} else {
			for (size_t k = i; k < j; k++)
				leaves[nl++] = (leaf){k, 1, weight_of(&m->tensors[ord[k]])};
		}
		i = j;
	}
	/* layer nodes: runs of (cat, component, layer) over the leaves */
	for (size_t i = 0; i < nl;) {
		const ws_tensor *t = &m->tensors[ord[leaves[i].first]];
		size_t j = i;
		uint64_t sum = 0;
		while (j < nl) {
			const ws_tensor *u = &m->tensors[ord[leaves[j].first]];
			if (cat_of(u) != cat_of(t) || u->layer != t->layer || comp_rank(m, u) != comp_rank(m, t))
				break;
			sum += leaves[j].w;
			j++;
		}
		qsort(leaves + i, j - i, sizeof *leaves, cmp_leaf);
		layers[nlay++] = (node){i, j - i, sum, t->layer, comp_rank(m, t)};
		i = j;
	}
	for (size_t i = 0; i < nlay;) {
		unsigned cat = cat_of(&m->tensors[ord[leaves[layers[i].first].first]]);
		size_t j = i;
		uint64_t sum = 0;
		while (j < nlay && cat_of(&m->tensors[ord[leaves[layers[j].first].first]]) == cat) {
			sum += layers[j].w;
			j++;
		}
		/* blocks stay in layer order (the sort above made it) */
		groups[ng++] = (node){i, j - i, sum, cat, 0};
		i = j;
	}
	qsort(groups, ng, sizeof *groups, cmp_node);

	fputs("<svg class=\"tm\" ", c->f);
	put_rect(c, x0, y0, W, H);
	fputs(" viewBox=\"0 0 ", c->f);
	put_num(c, W);
	fputc(' ', c->f);
	put_num(c, H);
	fputs("\" role=\"img\" aria-label=\"treemap of parameters\">", c->f);
	if (!n)
		fputs("<text x=\"8\" y=\"20\">no tensors</text>", c->f);

	rect gr[C_COUNT];
	for (size_t g = 0; g < ng; g++)
		wv[g] = groups[g].w;
	squarify(wv, ng, (rect){0, 0, W, H}, gr, scratch);
	for (size_t g = 0; g < ng; g++) {
		node *gn = &groups[g];
		rect in = {gr[g].x + 2, gr[g].y + 2, gr[g].w - 4, gr[g].h - 4};
		bool band = in.w > 90 && in.h > 60;
		if (band) { /* room for the group's name above its layers */
			in.y += 16;
			in.h -= 16;
		}
		if (in.w < 0)
			in.w = 0;
		if (in.h < 0)
			in.h = 0;
		fprintf(c->f, "<g class=\"o%lld\">", (long long)gn->key);
		rect *lr = malloc(gn->count * sizeof *lr);
		if (!lr)
			goto out;
		for (size_t k = 0; k < gn->count; k++)
			wv[k] = layers[gn->first + k].w;
		squarify(wv, gn->count, in, lr, scratch);
		for (size_t k = 0; k < gn->count; k++) {
			node *ln = &layers[gn->first + k];
			rect li = lr[k];
			if (ln->key >= 0 && li.w > 6 && li.h > 6)
				li = (rect){li.x + 1, li.y + 1, li.w - 2, li.h - 2};
			for (size_t q = 0; q < ln->count; q++)
				wv[q] = leaves[ln->first + q].w;
			squarify(wv, ln->count, li, rl, scratch);
			for (size_t q = 0; q < ln->count; q++) {
				const leaf *lf = &leaves[ln->first + q];
				/* the bar chart's colour for the part; a lighter
				 * shade where the dtype differs from the part's main */
				fprintf(c->f, "<rect class=\"c%u%s\" ", (unsigned)gn->key,
					dt_of(&m->tensors[ord[lf->first]]) == main_dt ? "" : " alt");
				put_rect(c, rl[q].x, rl[q].y, rl[q].w, rl[q].h);
				fputc('>', c->f);
				leaf_title(c, m, multi, ord, lf);
				fputs("</rect>", c->f);
			}
			/* labels of big tensors, then the layer's outline */
			for (size_t q = 0; q < ln->count; q++) {
				const leaf *lf = &leaves[ln->first + q];
				char tl[64];
				tile_label(m, ord, lf, tl, sizeof tl);
				label(c, rl[q], tl, "tl", 13);
			}
			if (ln->key >= 0) {
				fputs("<rect class=\"L\" ", c->f);
				put_rect(c, lr[k].x, lr[k].y, lr[k].w, lr[k].h);
				fputs("/>", c->f);
				char lb[96];
				if (!block_name(m, multi, ln->comp, ln->key, lb, sizeof lb))
					goto out;
				if (lr[k].w > 60 && lr[k].h > 40)
					label(c, (rect){lr[k].x + 1, lr[k].y + lr[k].h - 16, lr[k].w, 16},
					      lb, "ll", 12);
			}
		}
		free(lr);
		fputs("</g>", c->f);
		char gl[96], h[16], p[32];
		snprintf(gl, sizeof gl, "%s \xc2\xb7 %s \xc2\xb7 %s", cats[gn->key].name,
			 ws_fmt_human(gn->w, h, sizeof h), percent(gn->w, total, p));
		fputs("<rect class=\"G\" ", c->f);
		put_rect(c, gr[g].x + 1, gr[g].y + 1, gr[g].w - 2, gr[g].h - 2);
		fputs("/>", c->f);
		if (band && !label_fits(gl, gr[g].w))
			snprintf(gl, sizeof gl, "%s", cats[gn->key].name);
		if (band)
			label(c, (rect){gr[g].x + 1, gr[g].y + 1, gr[g].w - 2, 18}, gl, "gl", 14);
	}
	fputs("</svg>", c->f);
	rc = 0;
out:
	free(ord);
	free(leaves);
	free(layers);
	free(rl);
	free(scratch);
	free(wv);
	if (rc)
		c->oom = true;
	return rc;
}

/* ==== legends ==== */

typedef struct legend_item {
	const char *cls;            /* swatch class */
	char text[96];
} legend_item;

/* One row of swatches and labels starting at (x, y); returns the x after. */
static double
legend_row(ctx *c, double x, double y, const legend_item *it, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		fprintf(c->f, "<rect class=\"%s\" ", it[i].cls);
		put_rect(c, x, y - 9, 11, 11);
		fputs("/><text class=\"lg\" x=\"", c->f);
		put_num(c, x + 15);
		fputs("\" y=\"", c->f);
		put_num(c, y);
		fputs("\">", c->f);
		put_html(c, it[i].text);
		fputs("</text>", c->f);
		x += 15 + 6.2 * (double)strlen(it[i].text) + 16;
	}
	return x;
}

static void
dtype_legend(ctx *c, const stats *s, double y)
{
	legend_item it[WS_DT_COUNT];
	char cls[WS_DT_COUNT][8];
	size_t n = 0;
	for (int d = 0; d < WS_DT_COUNT; d++) {
		uint64_t w = s->pa_dt[d];
		if (!s->n_dt[d])
			continue;
		char h[16];
		snprintf(cls[d], sizeof cls[d], "d%d", d);
		it[n].cls = cls[d];
		if (w)
			snprintf(it[n].text, sizeof it[n].text, "%s \xc2\xb7 %s parameters",
				 ws_dtype_name((ws_dtype)d), ws_fmt_human(w, h, sizeof h));
		else
			snprintf(it[n].text, sizeof it[n].text, "%s \xc2\xb7 %s elements",
				 ws_dtype_name((ws_dtype)d), ws_fmt_human(s->el_dt[d], h, sizeof h));
		n++;
	}
	fputs("<text class=\"lg\" x=\"0\" y=\"", c->f);
	put_num(c, y);
	static const char lead[] = "dtypes:";
	fprintf(c->f, "\">%s</text>", lead);
	legend_row(c, 6.2 * (double)(sizeof lead - 1) + 12, y, it, n);
}

/* The parts present, in the colours both charts use. */
static void
part_legend(ctx *c, const stats *s, double y)
{
	legend_item it[C_COUNT];
	char cls[C_COUNT][8];
	size_t n = 0;
	for (int k = 0; k < C_COUNT; k++) {
		if (!s->by_cat[k])
			continue;
		char h[16];
		snprintf(cls[k], sizeof cls[k], "c%d", k);
		it[n].cls = cls[k];
		snprintf(it[n].text, sizeof it[n].text, "%s \xc2\xb7 %s", cats[k].name,
			 ws_fmt_human(s->by_cat[k], h, sizeof h));
		n++;
	}
	fputs("<text class=\"lg\" x=\"0\" y=\"", c->f);
	put_num(c, y);
	static const char lead[] = "colour = part:";
	fprintf(c->f, "\">%s</text>", lead);
	legend_row(c, 6.2 * (double)(sizeof lead - 1) + 12, y, it, n);
}

/* ==== per-layer bar chart ==== */

/* Stacking order, bottom up. */
static const unsigned bar_order[] = {
	C_ATTN, C_MLP, C_EXPERTS, C_NORMS, C_MTP, C_OTHER, C_EMBED, C_HEAD, C_AUX,
};

static uint64_t
nice_step(uint64_t max)
{
	uint64_t step = 1;
	for (;;) {
		static const uint64_t mult[] = {1, 2, 5};
		for (size_t i = 0; i < ARRAY_LEN(mult); i++) {
			uint64_t st;
			if (!ws_mul_u64(step, mult[i], &st))
				return step;
			if (max / st <= 5)
				return st;
		}
		if (!ws_mul_u64(step, 10, &step))
			return UINT64_MAX / 4;
	}
}

static void
column_title(ctx *c, const stats *s, const column *col)
{
	const ws_model *m = s->m;
	char a[32], b[32], p[32];
	fputs("<title>", c->f);
	/* a block of several components' under its component's name */
	const ws_component *co = s->multi ? rank_comp(m, col->comp) : NULL;
	if (co) {
		put_bytes(c, co->name, strlen(co->name));
		fputc(' ', c->f);
	}
	fprintf(c->f, "block %lld", (long long)col->layer);
	/* a hybrid stack's block: its mixer and feed-forward (block kinds) */
	const struct ws_arch *ar = col->comp ? NULL : m->arch;
	if (ar && ar->layer_block && col->layer >= 0 && (uint64_t)col->layer < ar->n_layer_block) {
		int k = ws_arch_layer_block(ar, (uint64_t)col->layer);
		fprintf(c->f, " (%s%s)", WS_BK_MIX(k) == WS_MIX_ATTN && WS_BK_FFN(k) != WS_FFN_NONE ? "attention " : "",
			ws_block_kind_name(k));
	}
	fprintf(c->f, ": %s parameters", commas(col->total, a));
	if (col->has_expected)
		fprintf(c->f, " (formula: %s)", commas(col->expected, b));
	for (size_t k = 0; k < ARRAY_LEN(bar_order); k++) {
		unsigned ct = bar_order[k];
		if (col->by_cat[ct])
			fprintf(c->f, "\n  %s %s (%s)", cats[ct].name, commas(col->by_cat[ct], a),
				percent(col->by_cat[ct], col->total, p));
	}
	for (size_t k = 0; k < col->f_n; k++) {
		if (k == MAX_MARK_LINES) {
			fprintf(c->f, "\n... and %zu more findings", col->f_n - k);
			break;
		}
		const ws_finding *fd = &m->findings[s->fidx[col->f_first + k]];
		fprintf(c->f, "\n%s %s: ", ws_severity_name(fd->severity), fd->code);
		put_html(c, fd->message);
	}
	fputs("</title>", c->f);
}

static void
bars(ctx *c, const stats *s, double x0, double y0, double W, double H)
{
	const double L = 78, R = 8, T = 22, B = 58;
	double pw = W - L - R, ph = H - T - B;
	uint64_t ymax = 0;
	char a[32];

	fputs("<svg class=\"bc\" ", c->f);
	put_rect(c, x0, y0, W, H);
	fputs(" role=\"img\" aria-label=\"parameters per block\">", c->f);
	for (size_t i = 0; i < s->n_cols; i++) {
		if (s->cols[i].total > ymax)
			ymax = s->cols[i].total;
		if (s->cols[i].has_expected && s->cols[i].expected > ymax)
			ymax = s->cols[i].expected;
	}
	if (!s->n_cols || !ymax) {
		fputs("<text x=\"8\" y=\"20\">no blocks</text></svg>", c->f);
		return;
	}
	uint64_t step = nice_step(ymax);
	/* ymax rounded up to a whole step; near 2^64 (a hostile config's
	 * per-block count) the rounding would wrap, so clamp to ymax */
	uint64_t top = ymax, up;
	if (ws_add_u64(ymax, step - 1, &up))
		top = up / step * step; /* <= up: cannot wrap */
	/* grid and y axis labels */
	fputs("<path class=\"gr\" d=\"", c->f);
	for (uint64_t v = 0; v <= top && step; v += step) {
		double y = T + ph - ph * (double)v / (double)top;
		fputs("M", c->f);
		put_num(c, L);
		fputc(' ', c->f);
		put_num(c, y);
		fputs("H", c->f);
		put_num(c, L + pw);
		if (v > UINT64_MAX - step)
			break;
	}
	fputs("\"/>", c->f);
	for (uint64_t v = 0; v <= top && step; v += step) {
		double y = T + ph - ph * (double)v / (double)top;
		char h[16];
		fputs("<text class=\"yl\" x=\"", c->f);
		put_num(c, L - 6);
		fputs("\" y=\"", c->f);
		put_num(c, y + 4);
		/* "5B", not "5.00B": trailing zeros of a round tick say nothing */
		ws_fmt_human(v, h, sizeof h);
		char *dot = strchr(h, '.');
		if (dot) {
			char *e = dot + 1;
			while (*e == '0')
				e++;
			if (*e < '0' || *e > '9')
				memmove(dot, e, strlen(e) + 1);
		}
		fprintf(c->f, "\">%s</text>", h);
		if (v > UINT64_MAX - step)
			break;
	}
	double bw = pw / (double)s->n_cols;
	double gap = bw >= 5 ? bw * 0.18 : 0;
	uint64_t every = 1;
	while ((double)every * bw < 30)
		every = every < 2 ? 2 : every < 5 ? 5 : every * 2;

	for (size_t i = 0; i < s->n_cols; i++) {
		const column *col = &s->cols[i];
		double x = L + bw * (double)i + gap / 2, w = bw - gap;
		if (col->elided) { /* a long run of missing indices */
			fputs("<text class=\"xl\" x=\"", c->f);
			put_num(c, x + w / 2);
			fputs("\" y=\"", c->f);
			put_num(c, T + ph / 2);
			fputs("\">\xe2\x80\xa6</text>", c->f);
			continue;
		}
		if (!col->total) { /* a gap: nothing stored for this block */
			fputs("<rect class=\"miss\" ", c->f);
			put_rect(c, x, T, w, ph);
			fputs("/>", c->f);
		}
		double y = T + ph;
		for (size_t k = 0; k < ARRAY_LEN(bar_order); k++) {
			unsigned ct = bar_order[k];
			if (!col->by_cat[ct])
				continue;
			double h = ph * (double)col->by_cat[ct] / (double)top;
			y -= h;
			fprintf(c->f, "<rect class=\"c%u\" ", ct);
			put_rect(c, x, y, w, h);
			fputs("/>", c->f);
		}
		if (col->worst >= 0) {
			static const char *const mk[] = {"fi", "fw", "fe"};
			fprintf(c->f, "<path class=\"%s\" d=\"M", mk[col->worst]);
			double cx = x + w / 2, hw = bw < 12 ? bw / 2 : 6;
			put_num(c, cx - hw);
			fputc(' ', c->f);
			put_num(c, T - 13);
			fputs("H", c->f);
			put_num(c, cx + hw);
			fputs("L", c->f);
			put_num(c, cx);
			fputc(' ', c->f);
			put_num(c, T - 2);
			fputs("Z\"/>", c->f);
		}
		/* one hover target per block: totals, shares and findings */
		fputs("<rect class=\"hit\" ", c->f);
		put_rect(c, L + bw * (double)i, T - 14, bw, ph + 14);
		fputc('>', c->f);
		column_title(c, s, col);
		fputs("</rect>", c->f);
		if ((uint64_t)col->layer % every == 0) {
			fputs("<text class=\"xl\" x=\"", c->f);
			put_num(c, x + w / 2);
			fputs("\" y=\"", c->f);
			put_num(c, T + ph + 14);
			fprintf(c->f, "\">%lld</text>", (long long)col->layer);
		}
		/* each component's blocks under its name, a rule before them */
		const ws_component *co = s->multi && (!i || s->cols[i - 1].comp != col->comp)
			? rank_comp(s->m, col->comp) : NULL;
		if (co) {
			if (i) {
				fputs("<path class=\"cs\" d=\"M", c->f);
				put_num(c, L + bw * (double)i);
				fputc(' ', c->f);
				put_num(c, T - 14);
				fputs("V", c->f);
				put_num(c, T + ph + 28);
				fputs("\"/>", c->f);
			}
			/* kept inside the chart when its blocks are few */
			char *e = ws_escape_text(co->name, strlen(co->name));
			double tx = L + bw * (double)i + 2, room = W - 2 - 7.0 * (double)(e ? strlen(e) : 0);  /* bold: wider */
			free(e);
			fputs("<text class=\"cn\" x=\"", c->f);
			put_num(c, tx < room || room < L ? tx : room);
			fputs("\" y=\"", c->f);
			put_num(c, T + ph + 27);
			fputs("\">", c->f);
			put_bytes(c, co->name, strlen(co->name));
			fputs("</text>", c->f);
		}
	}
	/* the formula's expectation: a dashed cap on every expected block */
	bool any_exp = false;
	fputs("<path class=\"ex\" d=\"", c->f);
	for (size_t i = 0; i < s->n_cols; i++) {
		const column *col = &s->cols[i];
		if (!col->has_expected)
			continue;
		any_exp = true;
		double y = T + ph - ph * (double)col->expected / (double)top;
		fputs("M", c->f);
		put_num(c, L + bw * (double)i + gap / 2);
		fputc(' ', c->f);
		put_num(c, y);
		fputs("h", c->f);
		put_num(c, bw - gap);
	}
	fputs("\"/>", c->f);

	/* legend: categories present, then the marks */
	legend_item it[C_COUNT + 4];
	char cls[C_COUNT][8];
	size_t n = 0;
	for (size_t k = 0; k < ARRAY_LEN(bar_order); k++) {
		unsigned ct = bar_order[k];
		bool present = false;
		for (size_t i = 0; i < s->n_cols && !present; i++)
			present = s->cols[i].by_cat[ct] != 0;
		if (!present)
			continue;
		snprintf(cls[ct], sizeof cls[ct], "c%u", ct);
		it[n].cls = cls[ct];
		snprintf(it[n++].text, sizeof it[0].text, "%s", cats[ct].name);
	}
	bool any_miss = false, any_mark = false;
	for (size_t i = 0; i < s->n_cols; i++) {
		any_miss |= !s->cols[i].elided && !s->cols[i].total;
		any_mark |= s->cols[i].worst >= 0;
	}
	if (any_miss) {
		it[n].cls = "miss";
		snprintf(it[n++].text, sizeof it[0].text, "missing block");
	}
	if (any_mark) {
		it[n].cls = "fe";
		snprintf(it[n++].text, sizeof it[0].text, "finding on this block (hover)");
	}
	double lx = legend_row(c, L, T + ph + 40, it, n);
	if (any_exp) {
		fputs("<path class=\"ex\" d=\"M", c->f);
		put_num(c, lx);
		fputc(' ', c->f);
		put_num(c, T + ph + 36);
		fputs("h16\"/><text class=\"lg\" x=\"", c->f);
		put_num(c, lx + 20);
		fputs("\" y=\"", c->f);
		put_num(c, T + ph + 40);
		fputs("\">formula</text>", c->f);
	}
	fputs("<text class=\"lg\" x=\"0\" y=\"", c->f);
	put_num(c, T + ph + 14);
	fputs("\">block</text>", c->f);
	if (s->n_blocks > s->n_cols) {
		fputs("<text class=\"lg\" x=\"", c->f);
		put_num(c, L);
		fprintf(c->f, "\" y=\"12\">first %zu of %s columns shown</text>", s->n_cols,
			commas(s->n_blocks, a));
	}
	fputs("</svg>", c->f);
}

/* ==== CSS ==== */

static const char css[] =
	"body{font:14px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;"
	"margin:24px auto;max-width:1320px;padding:0 16px;color:#1d232a;background:#f7f7f5}"
	"h1{font-size:21px;margin:0 0 2px;word-break:break-all}"
	"h2{font-size:16px;margin:30px 0 10px;padding-bottom:4px;border-bottom:1px solid #d8d8d2}"
	"h3{font-size:14px;margin:16px 0 6px}"
	".sub{color:#5b6470;margin:0 0 8px}.note{color:#5b6470;font-size:12.5px;margin:4px 0}"
	"table{border-collapse:collapse;background:#fff;font-variant-numeric:tabular-nums;"
	"box-shadow:0 1px 2px rgba(0,0,0,.08)}"
	"table{font-size:13px}th,td{padding:3px 9px;border-bottom:1px solid #ecece8;text-align:left;vertical-align:top}"
	"th{background:#efefea;font-weight:600}"
	".n{text-align:right;white-space:nowrap}"
	".grid{display:flex;flex-wrap:wrap;gap:28px;align-items:flex-start}"
	".sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;"
	"vertical-align:-1px}"
	".bad{color:#b3261e;font-weight:600}.good{color:#2e7d32}"
	".sev{display:inline-block;min-width:58px;padding:0 6px;border-radius:3px;color:#fff;"
	"font-size:12px;text-align:center}"
	".s2{background:#c62828}.s1{background:#e08e0b}.s0{background:#1e88e5}"
	".card{background:#fff;padding:10px;box-shadow:0 1px 2px rgba(0,0,0,.08);overflow-x:auto}"
	"svg text{font:11px system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;fill:#1d232a}"
	"svg rect{shape-rendering:crispEdges}"
	"svg.fit{width:100%;height:auto;display:block}"
	".tm rect{stroke:#fff;stroke-width:.4}.tm .alt{fill-opacity:.55}"
	".tm .L{fill:none;stroke:#fff;stroke-width:1.6}"
	".tm .G{fill:none;stroke:#1d232a;stroke-width:1.5}"
	".tl,.ll,.gl{paint-order:stroke;stroke:#fff;stroke-width:3px;stroke-linejoin:round}"
	".gl{font-weight:700;font-size:12.5px}.ll{fill:#39424d;font-size:10px}"
	".gr{stroke:#e3e3de;stroke-width:1}.yl{text-anchor:end;fill:#5b6470}"
	".xl{text-anchor:middle;fill:#5b6470}.lg{fill:#39424d}"
	".cn{font-weight:600;fill:#39424d}.cs{stroke:#8a8f96;stroke-width:1}"
	".hit{fill:#000;fill-opacity:0}.hit:hover{fill-opacity:.06}"
	".ex{fill:none;stroke:#1d232a;stroke-width:1.5;stroke-dasharray:3 2}"
	".miss{fill:#fde7e7;stroke:#c62828;stroke-width:1;stroke-dasharray:4 3}"
	".fe{fill:#c62828}.fw{fill:#e08e0b}.fi{fill:#1e88e5}";

/* Colour rules for the dtypes and categories, as fills and swatches. */
static void
colour_rules(ctx *c)
{
	for (int d = 0; d < WS_DT_COUNT; d++)
		fprintf(c->f, ".d%d{fill:%s}.k%d{background:%s}", d, dt_colour(d), d, dt_colour(d));
	for (int k = 0; k < C_COUNT; k++)
		fprintf(c->f, ".c%d{fill:%s}.q%d{background:%s}", k, cats[k].colour, k, cats[k].colour);
}

/* ==== tables (HTML only) ==== */

static void
kv_row(ctx *c, const char *k, const char *v)
{
	fprintf(c->f, "<tr><th>%s</th><td>", k);
	put_html(c, v);
	fputs("</td></tr>", c->f);
}

static void
params_row(ctx *c, const char *k, uint64_t v)
{
	char a[32], h[16], buf[64];
	snprintf(buf, sizeof buf, "%s (%s)", commas(v, a), ws_fmt_human(v, h, sizeof h));
	kv_row(c, k, buf);
}

/* KV cache bytes per token at 16 bits: K and V per layer (MLA: the
 * compressed latent plus the rope key, one copy).  0 when unknown. */
static uint64_t
kv_cache_per_token(const struct ws_arch *a)
{
	uint64_t per = 0, r = 0;
	if (!a || !a->num_layers)
		return 0;
	if (ws_sw_has(&a->flags, WS_ARCH_MLA)) {
		if (!ws_add_u64(a->kv_lora_rank, a->qk_rope_head_dim, &per))
			return 0;
	} else if (!ws_mul_u64(a->num_kv_heads ? a->num_kv_heads : a->num_heads,
			       a->head_dim, &per) ||
		   !ws_mul_u64(per, 2, &per)) {
		return 0;
	}
	if (!ws_mul_u64(per, a->num_layers, &r) || !ws_mul_u64(r, 2, &r))
		return 0;
	return r;
}

static void
overview(ctx *c, const stats *s)
{
	const ws_model *m = s->m;
	const struct ws_arch *a = m->arch;
	const struct ws_formula *fo = m->formula;
	char b1[32], b2[32], buf[256];

	fputs("<table><tbody>", c->f);
	snprintf(buf, sizeof buf, "%s, %u file%s, %llu tensors",
		 m->format == WS_FORMAT_GGUF ? "GGUF" : "safetensors", m->n_files,
		 m->n_files == 1 ? "" : "s", (unsigned long long)m->n_tensors);
	kv_row(c, "format", buf);
	params_row(c, "parameters", s->params);
	params_row(c, "non-embedding", s->non_embedding);
	/* a model of several components: each with its count and formula
	 * (the pictures below draw each one's blocks under its name) */
	uint64_t whole = fo ? fo->total : 0;
	bool all = fo != NULL;
	for (uint32_t i = 0; m->n_components > 1 && i < m->n_components; i++) {
		const ws_component *co = &m->components[i];
		bool has = co->main ? fo != NULL : co->has_formula;
		uint64_t f = co->main ? (fo ? fo->total : 0) : co->formula;
		if (!co->main)
			all = all && has && ws_add_u64(whole, f, &whole);
		char *name = ws_escape_text(co->name, strlen(co->name));
		snprintf(buf, sizeof buf, "%s (%s): %s parameters%s%s%s", name ? name : "?", co->kind,
			 commas(co->params, b1), has ? ", formula " : ", no formula",
			 has ? commas(f, b2) : "", co->main ? " (the main one)" : "");
		free(name);
		kv_row(c, i ? "" : "components", buf);
	}
	if (fo && all && m->n_components > 1)
		params_row(c, "formula, all components", whole);
	if (fo) {
		params_row(c, m->n_components > 1 ? "formula (main component)" : "formula", fo->total);
		if (fo->mtp)
			params_row(c, "formula MTP", fo->mtp);
		if (a && a->num_experts) {
			params_row(c, "active (formula)", fo->active);
			/* from the tensors: everything but the routed experts,
			 * plus top-k of num_experts of them */
			uint64_t act = s->params - s->routed - s->by_role[WS_ROLE_MTP], part = 0;
			if (ws_mul_u64(s->routed / a->num_experts, a->experts_per_tok, &part))
				params_row(c, "active (tensors)", act + part);
		}
	}
	snprintf(buf, sizeof buf, "%s (%s)", commas(s->bytes, b1),
		 ws_fmt_bytes(s->bytes, b2, sizeof b2));
	kv_row(c, "stored bytes", buf);
	if (s->buffers) {
		snprintf(buf, sizeof buf, "%s elements in %llu tensors", commas(s->buffers, b1),
			 (unsigned long long)s->n_buffers);
		kv_row(c, "buffers", buf);
	}
	if (s->aux) {
		snprintf(buf, sizeof buf, "%s elements in %llu tensors", commas(s->aux, b1),
			 (unsigned long long)s->n_aux);
		kv_row(c, "quant aux", buf);
	}
	if (a) {
		fputs("<tr><th>architecture</th><td>", c->f);
		put_bytes(c, a->architecture, strnlen(a->architecture, sizeof a->architecture));
		fprintf(c->f, " (%s)", a->source ? a->source : "?");
		fprintf(c->f, "<br>hidden %s, %llu layers, %llu heads (kv %llu), head_dim %llu",
			commas(a->hidden_size, b1), (unsigned long long)a->num_layers,
			(unsigned long long)a->num_heads, (unsigned long long)a->num_kv_heads,
			(unsigned long long)a->head_dim);
		if (a->num_experts)
			fprintf(c->f, "<br>%llu experts, top-%llu", (unsigned long long)a->num_experts,
				(unsigned long long)a->experts_per_tok);
		fputs("</td></tr>", c->f);
		uint64_t kv = kv_cache_per_token(a);
		if (kv) {
			snprintf(buf, sizeof buf, "%s bytes (%s) at 16 bits%s", commas(kv, b1),
				 ws_fmt_bytes(kv, b2, sizeof b2),
				 (ws_sw_has(&a->flags, WS_ARCH_MLA)) ? ", MLA latent" : "");
			kv_row(c, "KV cache / token", buf);
		}
	}
	fputs("</tbody></table>", c->f);
}

static void
dtype_table(ctx *c, const stats *s)
{
	char a[32], b[32], d3[32], p[32];
	fputs("<table><thead><tr><th>dtype</th><th class=\"n\">tensors</th>"
	      "<th class=\"n\">parameters</th><th class=\"n\">elements</th>"
	      "<th class=\"n\">bytes</th><th class=\"n\">bits/weight</th>"
	      "<th class=\"n\">share</th></tr></thead><tbody>", c->f);
	for (int d = 0; d < WS_DT_COUNT; d++) {
		if (!s->n_dt[d])
			continue;
		double bpw = s->el_dt[d] ? 8.0 * (double)s->by_dt[d] / (double)s->el_dt[d] : 0;
		long t = (long)(bpw * 1000 + 0.5);
		fprintf(c->f, "<tr><td><span class=\"sw k%d\"></span>%s</td><td class=\"n\">%llu</td>"
			"<td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%ld.%03ld</td><td class=\"n\">%s</td></tr>",
			d, ws_dtype_name((ws_dtype)d), (unsigned long long)s->n_dt[d],
			commas(s->pa_dt[d], a), commas(s->el_dt[d], b), commas(s->by_dt[d], d3),
			t / 1000, t % 1000, percent(s->pa_dt[d], s->params, p));
	}
	fprintf(c->f, "<tr><th>total</th><th class=\"n\">%llu</th><th class=\"n\">%s</th>"
		"<th class=\"n\">%s</th><th class=\"n\">%s</th><th></th><th></th></tr>",
		(unsigned long long)s->m->n_tensors, commas(s->params, a), commas(s->elements, b),
		commas(s->bytes, d3));
	fputs("</tbody></table>", c->f);
}

static void
role_table(ctx *c, const stats *s)
{
	const struct ws_formula *fo = s->m->formula;
	/* the formula is the main component's: so are the counts beside it */
	const uint64_t *have = s->m->n_components > 1 ? s->main_role : s->by_role;
	char a[32], b[32], d[40];
	fprintf(c->f, "<table><thead><tr><th>role</th><th class=\"n\">parameters</th>%s</tr>"
		"</thead><tbody>",
		fo ? "<th class=\"n\">formula</th><th class=\"n\">difference</th>" : "");
	for (int r = 0; r < WS_ROLE_COUNT; r++) {
		/* the formula keeps the MTP layers apart from its total */
		uint64_t exp = !fo ? 0 : r == WS_ROLE_MTP ? fo->mtp : fo->by_role[r];
		if (!have[r] && !exp)
			continue;
		fprintf(c->f, "<tr><td><span class=\"sw q%u\"></span>%s</td><td class=\"n\">%s</td>",
			(int)ws_role_part((ws_role)r), ws_role_name((ws_role)r), commas(have[r], a));
		if (fo) {
			uint64_t act = have[r];
			if (act == exp)
				snprintf(d, sizeof d, "0");
			else if (act > exp)
				snprintf(d, sizeof d, "+%s", commas(act - exp, b));
			else
				snprintf(d, sizeof d, "-%s", commas(exp - act, b));
			fprintf(c->f, "<td class=\"n\">%s</td><td class=\"n%s\">%s</td>",
				commas(exp, b), act == exp ? " good" : " bad", d);
		}
		fputs("</tr>", c->f);
	}
	fputs("</tbody></table>", c->f);
}

static void
findings_table(ctx *c, const ws_model *m)
{
	if (!m->n_findings) {
		fputs("<p class=\"good\">No findings.</p>", c->f);
		return;
	}
	size_t cnt[3] = {0};
	for (size_t i = 0; i < m->n_findings; i++)
		if ((unsigned)m->findings[i].severity < 3)
			cnt[m->findings[i].severity]++;
	fprintf(c->f, "<p class=\"sub\">%zu error%s, %zu warning%s, %zu info</p>", cnt[2],
		cnt[2] == 1 ? "" : "s", cnt[1], cnt[1] == 1 ? "" : "s", cnt[0]);
	fputs("<table><thead><tr><th>severity</th><th>code</th><th class=\"n\">block</th>"
	      "<th>message</th></tr></thead><tbody>", c->f);
	for (size_t i = 0; i < m->n_findings && i < MAX_FINDING_ROWS; i++) {
		const ws_finding *fd = &m->findings[i];
		unsigned sv = (unsigned)fd->severity < 3 ? (unsigned)fd->severity : 0;
		fprintf(c->f, "<tr><td><span class=\"sev s%u\">%s</span></td><td>", sv,
			ws_severity_name(fd->severity));
		put_html(c, fd->code);
		fputs("</td><td class=\"n\">", c->f);
		if (fd->layer >= 0)
			fprintf(c->f, "%d", fd->layer);
		fputs("</td><td>", c->f);
		put_html(c, fd->message);
		fputs("</td></tr>", c->f);
	}
	fputs("</tbody></table>", c->f);
	if (m->n_findings > MAX_FINDING_ROWS)
		fprintf(c->f, "<p class=\"note\">... and %zu more (see <code>inspect --json</code>)</p>",
			m->n_findings - MAX_FINDING_ROWS);
}

static void
files_table(ctx *c, const ws_model *m)
{
	char a[32], b[32];
	fprintf(c->f, "<details><summary>%u file%s</summary><table><thead><tr><th>file</th>"
		"<th class=\"n\">size</th><th class=\"n\">tensors</th></tr></thead><tbody>",
		m->n_files, m->n_files == 1 ? "" : "s");
	for (uint32_t i = 0; i < m->n_files; i++) {
		const ws_file *f = &m->files[i];
		fputs("<tr><td>", c->f);
		put_bytes(c, f->path, strlen(f->path));
		fprintf(c->f, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td></tr>",
			commas(f->size, a), commas(f->tensor_count, b));
	}
	fputs("</tbody></table></details>", c->f);
}

/* ==== comparison: per-role deltas of A and B side by side ==== */

static void
delta_cell(ctx *c, uint64_t a, uint64_t b)
{
	char x[32], p[32];
	if (a == b) {
		fputs("<td class=\"n\">0</td><td class=\"n\"></td>", c->f);
		return;
	}
	uint64_t d = a < b ? b - a : a - b;
	fprintf(c->f, "<td class=\"n bad\">%c%s</td><td class=\"n\">", a < b ? '+' : '-',
		commas(d, x));
	if (a)
		fprintf(c->f, "%c%s", a < b ? '+' : '-', percent(d, a, p));
	fputs("</td>", c->f);
}

static void
compare_table(ctx *c, const stats *sa, const stats *sb)
{
	char x[32], y[32];
	fputs("<table><thead><tr><th></th><th class=\"n\">A</th><th class=\"n\">B</th>"
	      "<th class=\"n\">B - A</th><th class=\"n\">change</th></tr></thead><tbody>", c->f);
	static const struct { const char *name; size_t off; } totals[] = {
		{"parameters", offsetof(stats, params)},
		{"stored bytes", offsetof(stats, bytes)},
		{"elements", offsetof(stats, elements)},
	};
	for (size_t i = 0; i < ARRAY_LEN(totals); i++) {
		uint64_t a = *(const uint64_t *)((const char *)sa + totals[i].off);
		uint64_t b = *(const uint64_t *)((const char *)sb + totals[i].off);
		fprintf(c->f, "<tr><th>%s</th><td class=\"n\">%s</td><td class=\"n\">%s</td>",
			totals[i].name, commas(a, x), commas(b, y));
		delta_cell(c, a, b);
		fputs("</tr>", c->f);
	}
	for (int r = 0; r < WS_ROLE_COUNT; r++) {
		uint64_t a = sa->by_role[r], b = sb->by_role[r];
		if (!a && !b)
			continue;
		fprintf(c->f, "<tr><td><span class=\"sw q%u\"></span>%s</td><td class=\"n\">%s</td>"
			"<td class=\"n\">%s</td>", (int)ws_role_part((ws_role)r), ws_role_name((ws_role)r),
			commas(a, x), commas(b, y));
		delta_cell(c, a, b);
		fputs("</tr>", c->f);
	}
	fputs("</tbody></table>", c->f);
}

/* ==== documents ==== */

#define TM_H_RATIO 0.56     /* treemap height / width */
#define BARS_H 300.0

static void
model_heading(ctx *c, const ws_model *m, const stats *s, const char *tag)
{
	char a[32], h[16];
	fputs("<h1>", c->f);
	if (tag)
		fprintf(c->f, "%s: ", tag);
	put_bytes(c, m->path, strlen(m->path));
	fprintf(c->f, "</h1><p class=\"sub\">%s \xc2\xb7 %llu tensors \xc2\xb7 %s parameters (%s)",
		m->format == WS_FORMAT_GGUF ? "GGUF" : "safetensors",
		(unsigned long long)m->n_tensors, commas(s->params, a),
		ws_fmt_human(s->params, h, sizeof h));
	if (m->arch) {
		fputs(" \xc2\xb7 ", c->f);
		put_bytes(c, m->arch->architecture, strnlen(m->arch->architecture,
							    sizeof m->arch->architecture));
	}
	fprintf(c->f, " \xc2\xb7 %zu finding%s</p>", m->n_findings, m->n_findings == 1 ? "" : "s");
}

static int
html_model(ctx *c, const stats *s, const char *tag)
{
	const ws_model *m = s->m;
	double W = c->width, TH = W * TM_H_RATIO;
	fputs("<section>", c->f);
	model_heading(c, m, s, tag);
	fputs("<h2>Where the parameters sit</h2><p class=\"note\">Area = parameters "
	      "(stored elements for buffers and quantization side tensors), grouped by part "
	      "then by block in block order; colour = part, as in the bars below (lighter: a "
	      "dtype other than the model's main one). Hover for exact counts. Tensors too "
	      "small to see are merged per block, role and dtype (\xc3\x97N).</p>"
	      "<div class=\"card\">", c->f);
	/* drawn in a W-wide system, shown as wide as the window */
	fputs("<svg class=\"fit\" viewBox=\"0 0 ", c->f);
	put_num(c, W);
	fputc(' ', c->f);
	put_num(c, TH + 44);
	fputs("\" role=\"img\" aria-label=\"treemap\">", c->f);
	part_legend(c, s, 14);
	dtype_legend(c, s, 32);
	if (treemap(c, m, 0, 44, W, TH))
		return -1;
	fputs("</svg></div><h2>Per block</h2><p class=\"note\">Parameters per block, stacked "
	      "by part; the dashed cap is the formula's expectation, a red dashed box a block "
	      "with no tensors, a triangle a finding on that block. Hover a bar for details.", c->f);
	if (s->multi)
		fputs(" Each component numbers its blocks from 0: its blocks stand under its name, "
		      "with its own formula.", c->f);
	fputs("</p><div class=\"card\">", c->f);
	fputs("<svg class=\"fit\" viewBox=\"0 0 ", c->f);
	put_num(c, W);
	fputc(' ', c->f);
	put_num(c, BARS_H);
	fputs("\">", c->f);
	bars(c, s, 0, 0, W, BARS_H);
	fputs("</svg>", c->f);
	fputs("</div><h2>Summary</h2><div class=\"grid\"><div>", c->f);
	overview(c, s);
	fputs("</div><div>", c->f);
	dtype_table(c, s);
	fputs("</div></div>", c->f);
	files_table(c, m);
	fputs(s->m->n_components > 1 ? "<h3>By role (main component)</h3>" : "<h3>By role</h3>", c->f);
	role_table(c, s);
	fputs("<h2>Findings</h2>", c->f);
	findings_table(c, m);
	fputs("</section>", c->f);
	return 0;
}

static int
html_doc(ctx *c, const stats *st, size_t n)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">"
	      "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
	      "<meta name=\"generator\" content=\"weightscan " WS_VERSION "\"><title>", c->f);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputs(" vs ", c->f);
		put_bytes(c, st[i].m->path, strlen(st[i].m->path));
	}
	fputs(" \xe2\x80\x94 weightscan report</title><style>", c->f);
	fputs(css, c->f);
	colour_rules(c);
	fputs("</style></head><body>\n", c->f);
	if (n == 2) {
		fputs("<section><h1>Comparison</h1><p class=\"sub\">A = ", c->f);
		put_bytes(c, st[0].m->path, strlen(st[0].m->path));
		fputs(" \xc2\xb7 B = ", c->f);
		put_bytes(c, st[1].m->path, strlen(st[1].m->path));
		fputs("</p><h2>Per-role parameters</h2>", c->f);
		compare_table(c, &st[0], &st[1]);
		fputs("</section>\n", c->f);
	}
	for (size_t i = 0; i < n; i++) {
		if (html_model(c, &st[i], n == 2 ? (i ? "B" : "A") : NULL))
			return -1;
		fputc('\n', c->f);
	}
	fputs("<p class=\"note\">weightscan " WS_VERSION " \xc2\xb7 self-contained: nothing "
	      "here is fetched from anywhere.</p></body></html>\n", c->f);
	return 0;
}

static int
svg_doc(ctx *c, const stats *st, size_t n)
{
	double W = c->width, TH = W * TM_H_RATIO;
	double per = 40 + 44 + TH + 16 + BARS_H;
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" ",
	      c->f);
	put_rect(c, 0, 0, W, per * (double)n);
	fputs(" viewBox=\"0 0 ", c->f);
	put_num(c, W);
	fputc(' ', c->f);
	put_num(c, per * (double)n);
	fputs("\"><style>", c->f);
	fputs(css, c->f);
	colour_rules(c);
	fputs("svg{background:#fff}.t{font-size:15px;font-weight:700}</style>\n", c->f);
	for (size_t i = 0; i < n; i++) {
		double y = per * (double)i;
		char a[32], h[16];
		fputs("<text class=\"t\" x=\"0\" y=\"", c->f);
		put_num(c, y + 18);
		fputs("\">", c->f);
		if (n == 2)
			fputs(i ? "B: " : "A: ", c->f);
		put_bytes(c, st[i].m->path, strlen(st[i].m->path));
		fputs("</text><text class=\"lg\" x=\"0\" y=\"", c->f);
		put_num(c, y + 34);
		fprintf(c->f, "\">%llu tensors \xc2\xb7 %s parameters (%s) \xc2\xb7 %zu findings</text>",
			(unsigned long long)st[i].m->n_tensors, commas(st[i].params, a),
			ws_fmt_human(st[i].params, h, sizeof h), st[i].m->n_findings);
		fputs("<svg ", c->f);
		put_rect(c, 0, y + 40, W, TH + 44);
		fputc('>', c->f);
		part_legend(c, &st[i], 14);
		dtype_legend(c, &st[i], 32);
		if (treemap(c, st[i].m, 0, 44, W, TH))
			return -1;
		fputs("</svg>\n", c->f);
		bars(c, &st[i], 0, y + 40 + 44 + TH + 16, W, BARS_H);
		fputc('\n', c->f);
	}
	fputs("</svg>\n", c->f);
	return 0;
}

int
ws_report_html(FILE *f, const ws_model *const *models, size_t n, const ws_html_opts *opts)
{
	/* the drawing's own width; an HTML page scales it to the window */
	ctx c = {.f = f, .svg = opts && opts->svg, .width = 1000};
	stats st[2];
	size_t ok = 0;
	int rc = -1;

	if (n < 1 || n > 2)
		return -1;
	if (opts && opts->width)
		c.width = opts->width < 480 ? 480 : opts->width > 4096 ? 4096 : opts->width;
	for (; ok < n; ok++)
		if (stats_compute(models[ok], &st[ok])) {
			stats_free(&st[ok]);
			goto out;
		}
	rc = c.svg ? svg_doc(&c, st, n) : html_doc(&c, st, n);
out:
	for (size_t i = 0; i < ok; i++)
		stats_free(&st[i]);
	if (c.oom || ferror(f))
		rc = -1;
	return rc;
}
