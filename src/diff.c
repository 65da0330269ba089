/*
 * diff.c - compare two checkpoints (diff): by name and content when they
 * share format and byte order, structurally (role, layer, expert, kind)
 * when they do not.  See ws/diff.h for the contract.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "ws/diff.h"
#include "ws/formula.h"
#include "ws/json.h"
#include "ws/util.h"

static const char *const kind_names[WS_DIFF_KIND_COUNT] = {
	[WS_DIFF_ONLY_A] = "only-in-a",
	[WS_DIFF_ONLY_B] = "only-in-b",
	[WS_DIFF_DTYPE] = "dtype",
	[WS_DIFF_SHAPE] = "shape",
	[WS_DIFF_CONTENT] = "content",
	[WS_DIFF_ELEMENTS] = "elements",
};

const char *
ws_diff_kind_name(int kind)
{
	return kind >= 0 && kind < WS_DIFF_KIND_COUNT ? kind_names[kind] : "?";
}

/* Roles a converter may fuse into one tensor or split apart: leftovers of
 * one family in one layer are compared by their element total. */
static const struct {
	ws_role role, family;
} families[] = {
	{WS_ROLE_ATTN_Q, WS_ROLE_ATTN_QKV},
	{WS_ROLE_ATTN_K, WS_ROLE_ATTN_QKV},
	{WS_ROLE_ATTN_V, WS_ROLE_ATTN_QKV},
	{WS_ROLE_FFN_GATE, WS_ROLE_FFN_GATE_UP},
	{WS_ROLE_FFN_UP, WS_ROLE_FFN_GATE_UP},
	{WS_ROLE_MOE_GATE, WS_ROLE_MOE_GATE_UP},
	{WS_ROLE_MOE_UP, WS_ROLE_MOE_GATE_UP},
};

static ws_role
family_of(ws_role r)
{
	for (size_t i = 0; i < sizeof families / sizeof families[0]; i++)
		if (families[i].role == r)
			return families[i].family;
	return r;
}

/* ==== small helpers ==== */

static bool
dims_eq(const uint64_t *a, uint32_t na, const uint64_t *b, uint32_t nb)
{
	if (na != nb)
		return false;
	for (uint32_t i = 0; i < na; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* The stored shapes (by name: the bytes compared are theirs). */
static bool
shape_eq(const ws_tensor *a, const ws_tensor *b)
{
	return dims_eq(a->shape, a->ndim, b->shape, b->ndim);
}

/* The shapes the tensors are read at (structurally, SPEC: the logical
 * shape; a ComfyUI-GGUF reshape undone, a packed weight unpacked). */
static bool
logical_eq(const ws_tensor *a, const ws_tensor *b)
{
	uint32_t na, nb;
	const uint64_t *x = ws_tensor_logical(a, &na), *y = ws_tensor_logical(b, &nb);
	return dims_eq(x, na, y, nb);
}

static size_t
fmt_dims(const uint64_t *d, uint32_t n, char *buf, size_t len)
{
	size_t o = (size_t)snprintf(buf, len, "[");
	for (uint32_t i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s%" PRIu64, i ? ", " : "", d[i]);
	if (o < len)
		o += (size_t)snprintf(buf + o, len - o, "]");
	return o;
}

/* The shape a tensor is read at. */
static char *
fmt_shape(const ws_tensor *t, char *buf, size_t len)
{
	uint32_t n;
	const uint64_t *d = ws_tensor_logical(t, &n);
	fmt_dims(d, n, buf, len);
	return buf;
}

/* ... and the stored one beside it when they differ. */
static char *
fmt_shape_stored(const ws_tensor *t, char *buf, size_t len)
{
	uint32_t n;
	const uint64_t *d = ws_tensor_logical(t, &n);
	size_t o = fmt_dims(d, n, buf, len);
	if (t->logical && o < len) {
		o += (size_t)snprintf(buf + o, len - o, " (stored ");
		if (o < len)
			o += fmt_dims(t->shape, t->ndim, buf + o, len - o);
		if (o < len)
			snprintf(buf + o, len - o, ")");
	}
	return buf;
}

static int
name_cmp(const ws_tensor *x, const ws_tensor *y)
{
	size_t n = x->name_len < y->name_len ? x->name_len : y->name_len;
	int c = memcmp(x->name, y->name, n);
	if (c)
		return c;
	return x->name_len < y->name_len ? -1 : x->name_len > y->name_len;
}

static bool
big_endian(const ws_model *m)
{
	return m->n_files && m->files[0].big_endian;
}

static const char *
format_name(const ws_model *m)
{
	return m->format == WS_FORMAT_GGUF ? "gguf" : "safetensors";
}

static int
push_item(ws_diff *d, int kind, const ws_tensor *a, const ws_tensor *b)
{
	if (d->n_items == d->cap_items) {
		size_t nc = d->cap_items ? d->cap_items * 2 : 32;
		ws_diff_item *ni = realloc(d->items, nc * sizeof *ni);
		if (!ni)
			return -1;
		d->items = ni;
		d->cap_items = nc;
	}
	ws_diff_item *it = &d->items[d->n_items++];
	memset(it, 0, sizeof *it);
	it->kind = kind;
	it->a = a;
	it->b = b;
	it->layer = -1;
	return 0;
}

static int
push_info(ws_diff *d, const char *code, uint64_t count, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
push_info(ws_diff *d, const char *code, uint64_t count, const char *fmt, ...)
{
	if (d->n_info == d->cap_info) {
		size_t nc = d->cap_info ? d->cap_info * 2 : 8;
		ws_diff_info *ni = realloc(d->info, nc * sizeof *ni);
		if (!ni)
			return -1;
		d->info = ni;
		d->cap_info = nc;
	}
	va_list ap;
	char *msg;
	va_start(ap, fmt);
	int r = vasprintf(&msg, fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	d->info[d->n_info++] = (ws_diff_info){code, msg, count};
	return 0;
}

/* An escaped copy of a tensor name for messages (caller frees). */
static char *
esc_name(const ws_tensor *t)
{
	return ws_escape_text(t->name, t->name_len);
}

/* ==== per-role totals ==== */

static bool
better_rep(const ws_tensor *t, const ws_tensor *cur)
{
	if (!cur)
		return true;
	if (t->kind != cur->kind)
		return t->kind == WS_KIND_WEIGHT;
	if (t->layer != cur->layer)
		return (uint32_t)t->layer < (uint32_t)cur->layer; /* -1 last */
	return (uint32_t)t->expert < (uint32_t)cur->expert;
}

static void
role_totals(ws_diff *d, const ws_model *m, int side)
{
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		ws_diff_role *r = &d->roles[t->role < WS_ROLE_COUNT ? t->role : WS_ROLE_OTHER];
		bool noparam = t->role == WS_ROLE_BUFFER || t->role == WS_ROLE_QUANT_AUX;
		uint64_t v = noparam ? t->elements : t->params;
		if (side == 0) {
			ws_add_u64(r->a_params, v, &r->a_params);
			r->a_tensors++;
			ws_add_u64(d->a_params, t->params, &d->a_params);
			if (better_rep(t, r->a_rep))
				r->a_rep = t;
		} else {
			ws_add_u64(r->b_params, v, &r->b_params);
			r->b_tensors++;
			ws_add_u64(d->b_params, t->params, &d->b_params);
			if (better_rep(t, r->b_rep))
				r->b_rep = t;
		}
	}
}

/* ==== content hashing ==== */

typedef struct pair {
	const ws_tensor *t[2];
	uint8_t h[2][WS_XXH128_LEN];
} pair;

typedef struct href {
	const ws_tensor *t;
	size_t pair;
} href;

/* Bytes between two wanted tensors that a job may read through rather
 * than start a new job (one pread buffer's worth or so). */
#define GAP_MAX (1u << 20)

static int
href_cmp(const void *x, const void *y)
{
	const href *a = x, *b = y;
	if (a->t->file != b->t->file)
		return a->t->file < b->t->file ? -1 : 1;
	if (a->t->offset != b->t->offset)
		return a->t->offset < b->t->offset ? -1 : 1;
	return a->pair < b->pair ? -1 : a->pair > b->pair;
}

/*
 * XXH3-128 of both tensors of every pair.  Per side, the tensors are
 * sorted by (file, offset) and cut into jobs of about total/(4 threads)
 * bytes each, so one big file still keeps every thread busy; every tensor
 * is a sub of its job, so each byte is read once.
 */
static int
hash_pairs(const ws_model *m[2], pair *pairs, size_t np, const ws_diff_opts *o,
	   ws_diff *d, ws_error *err)
{
	href *refs[2] = {NULL, NULL};
	ws_hash_sub *subs[2] = {NULL, NULL};
	ws_hash_job *jobs = calloc(2 * np + 1, sizeof *jobs);
	size_t nj = 0;
	int rc = -1;
	unsigned threads = o->threads ? o->threads : ws_hash_default_threads();
	uint64_t total = 0;

	if (!jobs)
		return ws_err_oom(err, m[0]->path);
	for (size_t i = 0; i < np; i++)
		ws_add_u64(total, pairs[i].t[0]->bytes, &total);
	uint64_t target = total / ((uint64_t)threads * 4 + 1);
	if (target < (8u << 20))
		target = 8u << 20;

	for (int s = 0; s < 2; s++) {
		refs[s] = calloc(np + 1, sizeof *refs[s]);
		subs[s] = calloc(np + 1, sizeof *subs[s]);
		if (!refs[s] || !subs[s]) {
			ws_err_oom(err, m[s]->path);
			goto out;
		}
		for (size_t i = 0; i < np; i++)
			refs[s][i] = (href){pairs[i].t[s], i};
		qsort(refs[s], np, sizeof *refs[s], href_cmp);
		for (size_t i = 0; i < np;) {
			const ws_tensor *t0 = refs[s][i].t;
			const ws_file *f = &m[s]->files[t0->file];
			uint64_t start = t0->offset, end = start;
			size_t k = i;
			for (; k < np && refs[s][k].t->file == t0->file &&
			       end - start < target; k++) {
				const ws_tensor *t = refs[s][k].t;
				/* a gap of tensors we need not read ends the job */
				if (k > i && t->offset > end && t->offset - end > GAP_MAX)
					break;
				subs[s][k].offset = t->offset;
				subs[s][k].length = t->bytes;
				if (t->offset + t->bytes > end)
					end = t->offset + t->bytes;
			}
			ws_hash_job *j = &jobs[nj++];
			j->path = f->path;
			j->fd = f->fd;
			j->offset = start;
			j->length = end - start;
			j->algos = 0; /* the subs only */
			j->subs = &subs[s][i];
			j->n_subs = k - i;
			i = k;
		}
	}
	if (ws_hash_run(jobs, nj, threads, o->progress, o->progress_ctx, err) != 0)
		goto out;
	for (size_t i = 0; i < nj; i++) {
		if (jobs[i].status != WS_JOB_OK) {
			*err = jobs[i].err;
			if (!err->code)
				err->code = WS_EXIT_INPUT;
			goto out;
		}
		ws_add_u64(d->bytes_hashed, jobs[i].size, &d->bytes_hashed);
	}
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < np; i++)
			memcpy(pairs[refs[s][i].pair].h[s], subs[s][i].xxh128, WS_XXH128_LEN);
	rc = 0;
out:
	for (int s = 0; s < 2; s++) {
		free(refs[s]);
		free(subs[s]);
	}
	free(jobs);
	return rc;
}

/* ==== by name ==== */

/* The very same bytes: one file (device and inode) and one range.  A
 * checkpoint compared with itself needs no reading. */
static bool
same_bytes(const ws_model *a, const ws_tensor *ta, const ws_model *b, const ws_tensor *tb)
{
	struct stat sa, sb;
	if (ta->offset != tb->offset || ta->bytes != tb->bytes ||
	    fstat(a->files[ta->file].fd, &sa) || fstat(b->files[tb->file].fd, &sb))
		return false;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino && sa.st_size == sb.st_size;
}

static const ws_tensor *sort_base;

static int
idx_name_cmp(const void *x, const void *y)
{
	return name_cmp(&sort_base[*(const uint64_t *)x], &sort_base[*(const uint64_t *)y]);
}

static int
diff_by_name(const ws_model *a, const ws_model *b, const ws_diff_opts *o,
	     ws_diff *d, ws_error *err)
{
	static pthread_mutex_t sort_lock = PTHREAD_MUTEX_INITIALIZER;
	uint64_t *ib = malloc((b->n_tensors + 1) * sizeof *ib);
	bool *seen = calloc(b->n_tensors + 1, sizeof *seen);
	pair *pairs = calloc(a->n_tensors + 1, sizeof *pairs);
	size_t np = 0;
	int rc = -1;

	if (!ib || !seen || !pairs) {
		ws_err_oom(err, a->path);
		goto out;
	}
	for (uint64_t i = 0; i < b->n_tensors; i++)
		ib[i] = i;
	pthread_mutex_lock(&sort_lock);
	sort_base = b->tensors;
	qsort(ib, b->n_tensors, sizeof *ib, idx_name_cmp);
	pthread_mutex_unlock(&sort_lock);

	for (uint64_t i = 0; i < a->n_tensors; i++) {
		const ws_tensor *ta = &a->tensors[i], *tb = NULL;
		size_t lo = 0, hi = b->n_tensors;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = name_cmp(ta, &b->tensors[ib[mid]]);
			if (c == 0) {
				tb = &b->tensors[ib[mid]];
				break;
			}
			if (c < 0)
				hi = mid;
			else
				lo = mid + 1;
		}
		if (!tb) {
			if (push_item(d, WS_DIFF_ONLY_A, ta, NULL))
				goto oom;
			continue;
		}
		seen[tb - b->tensors] = true;
		d->matched++;
		if (ta->dtype != tb->dtype) {
			if (push_item(d, WS_DIFF_DTYPE, ta, tb))
				goto oom;
		} else if (!shape_eq(ta, tb) || ta->bytes != tb->bytes) {
			if (push_item(d, WS_DIFF_SHAPE, ta, tb))
				goto oom;
		} else if (same_bytes(a, ta, b, tb)) {
			d->same_file++;
		} else {
			pairs[np].t[0] = ta;
			pairs[np].t[1] = tb;
			np++;
		}
	}
	for (uint64_t i = 0; i < b->n_tensors; i++)
		if (!seen[i] && push_item(d, WS_DIFF_ONLY_B, NULL, &b->tensors[i]))
			goto oom;
	const ws_model *m[2] = {a, b};
	if (np && hash_pairs(m, pairs, np, o, d, err))
		goto out;
	d->hashed = np;
	for (size_t i = 0; i < np; i++)
		if (memcmp(pairs[i].h[0], pairs[i].h[1], WS_XXH128_LEN) &&
		    push_item(d, WS_DIFF_CONTENT, pairs[i].t[0], pairs[i].t[1]))
			goto oom;
	rc = 0;
	goto out;
oom:
	ws_err_oom(err, a->path);
out:
	free(ib);
	free(seen);
	free(pairs);
	return rc;
}

/* ==== structural ==== */

typedef struct sent {
	int side;
	ws_role role;      /* the role, or its family for leftovers */
	int32_t layer, expert;
	ws_kind kind;
	const ws_tensor *t;
} sent;

static int
sent_cmp(const void *x, const void *y)
{
	const sent *a = x, *b = y;
	if (a->role != b->role)
		return a->role < b->role ? -1 : 1;
	if (a->layer != b->layer)
		return a->layer < b->layer ? -1 : 1;
	if (a->expert != b->expert)
		return a->expert < b->expert ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	return a->t < b->t ? -1 : a->t > b->t;
}

static bool
same_key(const sent *a, const sent *b, bool with_expert)
{
	return a->role == b->role && a->layer == b->layer && a->kind == b->kind &&
	       (!with_expert || a->expert == b->expert);
}

static bool
tied(const ws_model *m)
{
	return m->arch && (ws_sw_has(&m->arch->flags, WS_ARCH_TIED));
}

/* Names of the distinct roles of one side of a group: "attn_q+attn_k". */
static void
group_roles(const sent *g, size_t n, int side, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		if (g[i].side != side)
			continue;
		const char *rn = ws_role_name(g[i].t->role);
		if (strstr(buf, rn))
			continue;
		int w = snprintf(buf + o, len - o, "%s%s", o ? "+" : "", rn);
		if (w < 0 || (size_t)w >= len - o)
			break;
		o += (size_t)w;
	}
}

static int
side_info(ws_diff *d, const ws_model *m[2], ws_role role, const char *code,
	  const char *what)
{
	uint64_t n[2] = {0, 0};
	const ws_tensor *ex[2] = {NULL, NULL};
	for (int s = 0; s < 2; s++)
		for (uint64_t i = 0; i < m[s]->n_tensors; i++)
			if (m[s]->tensors[i].role == role) {
				if (!n[s]++)
					ex[s] = &m[s]->tensors[i];
			}
	if (!n[0] && !n[1])
		return 0;
	char *e0 = ex[0] ? esc_name(ex[0]) : NULL, *e1 = ex[1] ? esc_name(ex[1]) : NULL;
	int r = push_info(d, code, n[0] + n[1],
			  "%s: A holds %" PRIu64 "%s%s%s, B holds %" PRIu64 "%s%s%s; not compared",
			  what, n[0], e0 ? " (e.g. " : "", e0 ? e0 : "", e0 ? ")" : "",
			  n[1], e1 ? " (e.g. " : "", e1 ? e1 : "", e1 ? ")" : "");
	free(e0);
	free(e1);
	return r;
}

static int
diff_structural(const ws_model *a, const ws_model *b, ws_diff *d, ws_error *err)
{
	const ws_model *m[2] = {a, b};
	uint64_t n = a->n_tensors + b->n_tensors;
	sent *v = calloc(n + 1, sizeof *v), *left = calloc(n + 1, sizeof *left);
	size_t nv = 0, nl = 0;
	uint64_t n_dtype = 0, n_qk = 0, n_fused = 0, n_tied = 0;
	const ws_tensor *dt_ex[2] = {NULL, NULL};
	char fused_ex[320] = "";
	int rc = -1;

	if (!v || !left) {
		ws_err_oom(err, a->path);
		goto out;
	}
	for (int s = 0; s < 2; s++)
		for (uint64_t i = 0; i < m[s]->n_tensors; i++) {
			const ws_tensor *t = &m[s]->tensors[i];
			if (t->role == WS_ROLE_BUFFER || t->role == WS_ROLE_QUANT_AUX)
				continue; /* not parameters: reported as info below */
			v[nv++] = (sent){s, t->role, t->layer, t->expert, t->kind, t};
		}
	qsort(v, nv, sizeof *v, sent_cmp);

	/* 1:1 keys pair up; anything else is left for the family pass */
	for (size_t i = 0; i < nv;) {
		size_t j = i, na = 0;
		while (j < nv && same_key(&v[i], &v[j], true)) {
			na += v[j].side == 0;
			j++;
		}
		if (na == 1 && j - i == 2) {
			const ws_tensor *ta = v[i].t, *tb = v[i + 1].t;
			d->matched += 2;
			if (!logical_eq(ta, tb)) {
				if (push_item(d, WS_DIFF_SHAPE, ta, tb))
					goto oom;
			} else {
				if (ta->dtype != tb->dtype && !n_dtype++) {
					dt_ex[0] = ta;
					dt_ex[1] = tb;
				}
				n_qk += ta->role == WS_ROLE_ATTN_Q || ta->role == WS_ROLE_ATTN_K;
			}
		} else {
			for (size_t k = i; k < j; k++) {
				left[nl] = v[k];
				left[nl].role = family_of(v[k].role);
				left[nl].expert = -1;
				nl++;
			}
		}
		i = j;
	}

	/* leftovers: fused, split or stacked when a (family, layer, kind)
	 * group holds the same number of elements on both sides */
	qsort(left, nl, sizeof *left, sent_cmp);
	for (size_t i = 0; i < nl;) {
		size_t j = i;
		uint64_t el[2] = {0, 0}, cnt[2] = {0, 0};
		while (j < nl && same_key(&left[i], &left[j], false)) {
			ws_add_u64(el[left[j].side], left[j].t->elements, &el[left[j].side]);
			cnt[left[j].side]++;
			j++;
		}
		if (cnt[0] && cnt[1] && el[0] == el[1]) {
			d->matched += cnt[0] + cnt[1];
			if (!n_fused++) {
				char ra[96], rb[96];
				group_roles(left + i, j - i, 0, ra, sizeof ra);
				group_roles(left + i, j - i, 1, rb, sizeof rb);
				snprintf(fused_ex, sizeof fused_ex,
					 "e.g. layer %d: %s (%" PRIu64 " tensors) in A, %s (%" PRIu64
					 " tensors) in B", (int)left[i].layer, ra, cnt[0], rb, cnt[1]);
			}
		} else if (cnt[0] && cnt[1]) {
			if (push_item(d, WS_DIFF_ELEMENTS, NULL, NULL))
				goto oom;
			ws_diff_item *it = &d->items[d->n_items - 1];
			it->role = left[i].role;
			it->layer = left[i].layer;
			it->a_elements = el[0];
			it->b_elements = el[1];
		} else {
			for (size_t k = i; k < j; k++) {
				int s = left[k].side;
				/* a head left out under a tied config is the tie, not a loss */
				if (left[k].t->role == WS_ROLE_LM_HEAD && tied(m[1 - s])) {
					n_tied++;
					continue;
				}
				if (push_item(d, s ? WS_DIFF_ONLY_B : WS_DIFF_ONLY_A,
					      s ? NULL : left[k].t, s ? left[k].t : NULL))
					goto oom;
			}
		}
		i = j;
	}

	if (a->format != b->format && n_qk &&
	    push_info(d, "permuted-qk", n_qk,
		      "%" PRIu64 " attn_q/attn_k tensors: llama.cpp's converter permutes their rows "
		      "for its rotary layout; shapes match, values are not compared", n_qk))
		goto oom;
	if (a->format == b->format && big_endian(a) != big_endian(b) &&
	    push_info(d, "byte-order", 0, "A is %s-endian, B is %s-endian: compared structurally",
		      big_endian(a) ? "big" : "little", big_endian(b) ? "big" : "little"))
		goto oom;
	if (n_fused && push_info(d, "fused-or-split", n_fused,
				 "%" PRIu64 " groups fused, split or stacked differently with "
				 "equal element counts (%s)", n_fused, fused_ex))
		goto oom;
	if (n_dtype) {
		char *e = esc_name(dt_ex[0]);
		int r = push_info(d, "dtype-changed", n_dtype,
				  "%" PRIu64 " matched tensors changed dtype (e.g. %s: %s -> %s)",
				  n_dtype, e ? e : "?", ws_dtype_name(dt_ex[0]->dtype),
				  ws_dtype_name(dt_ex[1]->dtype));
		free(e);
		if (r)
			goto oom;
	}
	if (n_tied && push_info(d, "tied-head", n_tied,
				"the output head is stored on one side only and the other side's "
				"config ties it to the embedding"))
		goto oom;
	if (side_info(d, m, WS_ROLE_BUFFER, "buffers", "buffers (rotary inv_freq, rope_freqs ...)") ||
	    side_info(d, m, WS_ROLE_QUANT_AUX, "quant-aux", "quantization side tensors"))
		goto oom;
	rc = 0;
	goto out;
oom:
	ws_err_oom(err, a->path);
out:
	free(v);
	free(left);
	return rc;
}

/* ==== entry points ==== */

int
ws_diff_models(const ws_model *a, const ws_model *b, const ws_diff_opts *o,
	       ws_diff *out, ws_error *err)
{
	ws_diff_opts none = {0};
	memset(out, 0, sizeof *out);
	if (!o)
		o = &none;
	role_totals(out, a, 0);
	role_totals(out, b, 1);
	out->structural = a->format != b->format || big_endian(a) != big_endian(b);
	int r = out->structural ? diff_structural(a, b, out, err)
				: diff_by_name(a, b, o, out, err);
	if (r)
		ws_diff_free(out);
	return r;
}

void
ws_diff_free(ws_diff *d)
{
	if (!d)
		return;
	for (size_t i = 0; i < d->n_info; i++)
		free(d->info[i].message);
	free(d->info);
	free(d->items);
	memset(d, 0, sizeof *d);
}

/* ==== text ==== */

static void
put_tensor(FILE *f, const ws_tensor *t)
{
	char sh[256];
	ws_fput_escaped(f, t->name, t->name_len);
	fprintf(f, "  %s %s", ws_dtype_name(t->dtype), fmt_shape_stored(t, sh, sizeof sh));
}

static void
put_side(FILE *f, const char *label, const ws_model *m, uint64_t params)
{
	char c[32], h[16];
	fprintf(f, "%s: ", label);
	ws_fput_escaped(f, m->path, strlen(m->path));
	fprintf(f, " (%s%s, %" PRIu64 " tensors, %s params (%s))\n", format_name(m),
		big_endian(m) ? " big-endian" : "", m->n_tensors,
		ws_fmt_commas(params, c, sizeof c), ws_fmt_human(params, h, sizeof h));
}

static bool
role_changed(const ws_diff_role *r)
{
	char x[256], y[256];
	if (r->a_params != r->b_params || r->a_tensors != r->b_tensors)
		return true;
	if (!r->a_rep || !r->b_rep)
		return false;
	return strcmp(fmt_shape(r->a_rep, x, sizeof x), fmt_shape(r->b_rep, y, sizeof y)) != 0;
}

static void
signed_commas(uint64_t a, uint64_t b, char *buf, size_t len)
{
	char c[32];
	bool neg = b < a;
	ws_fmt_commas(neg ? a - b : b - a, c, sizeof c);
	snprintf(buf, len, "%s%s", a == b ? "" : neg ? "-" : "+", c);
}

void
ws_diff_print_text(FILE *f, const ws_model *a, const ws_model *b,
		   const ws_diff *d, bool quiet)
{
	static const char *const labels[WS_DIFF_KIND_COUNT] = {
		[WS_DIFF_ONLY_A] = "only in A", [WS_DIFF_ONLY_B] = "only in B",
		[WS_DIFF_DTYPE] = "dtype", [WS_DIFF_SHAPE] = "shape",
		[WS_DIFF_CONTENT] = "content", [WS_DIFF_ELEMENTS] = "elements",
	};
	char c1[32], c2[32], dl[40], s1[256], s2[256];

	if (!quiet) {
		put_side(f, "A", a, d->a_params);
		put_side(f, "B", b, d->b_params);
		if (d->structural)
			fprintf(f, "compared structurally (role, layer, expert, kind, shape): "
				"%" PRIu64 " tensors matched\n", d->matched);
		else
			fprintf(f, "compared by name: %" PRIu64 " tensors in both, %" PRIu64
				" content-hashed (XXH3-128), %" PRIu64 " the same bytes of the same file\n",
				d->matched, d->hashed, d->same_file);
	}
	if (d->n_items)
		fprintf(f, "\ndifferences (%zu):\n", d->n_items);
	for (size_t i = 0; i < d->n_items; i++) {
		const ws_diff_item *it = &d->items[i];
		fprintf(f, "  %-9s ", labels[it->kind]);
		if (it->kind == WS_DIFF_ELEMENTS) {
			fprintf(f, "layer %d %s: %s -> %s elements\n", (int)it->layer,
				ws_role_name(it->role), ws_fmt_commas(it->a_elements, c1, sizeof c1),
				ws_fmt_commas(it->b_elements, c2, sizeof c2));
			continue;
		}
		const ws_tensor *t = it->a ? it->a : it->b;
		put_tensor(f, t);
		if (it->a && it->b && (it->kind == WS_DIFF_DTYPE || it->kind == WS_DIFF_SHAPE)) {
			fputs(" -> ", f);
			if (d->structural) {
				put_tensor(f, it->b);
			} else {
				fprintf(f, "%s %s", ws_dtype_name(it->b->dtype),
					fmt_shape_stored(it->b, s2, sizeof s2));
			}
		}
		fputc('\n', f);
	}
	if (!quiet) {
		bool head = false;
		for (int r = 0; r < WS_ROLE_COUNT; r++) {
			const ws_diff_role *x = &d->roles[r];
			if (!role_changed(x))
				continue;
			if (!head) {
				fprintf(f, "\n%-16s %-22s %-22s %16s %16s %16s\n", "role", "A shape",
					"B shape", "A params", "B params", "delta");
				head = true;
			}
			signed_commas(x->a_params, x->b_params, dl, sizeof dl);
			fprintf(f, "%-16s %-22s %-22s %16s %16s %16s\n", ws_role_name((ws_role)r),
				x->a_rep ? fmt_shape(x->a_rep, s1, sizeof s1) : "-",
				x->b_rep ? fmt_shape(x->b_rep, s2, sizeof s2) : "-",
				ws_fmt_commas(x->a_params, c1, sizeof c1),
				ws_fmt_commas(x->b_params, c2, sizeof c2), dl);
		}
		if (head) {
			signed_commas(d->a_params, d->b_params, dl, sizeof dl);
			fprintf(f, "%-16s %-22s %-22s %16s %16s %16s\n", "total", "", "",
				ws_fmt_commas(d->a_params, c1, sizeof c1),
				ws_fmt_commas(d->b_params, c2, sizeof c2), dl);
		}
		if (d->n_info)
			fputs("\ninfo:\n", f);
		for (size_t i = 0; i < d->n_info; i++)
			fprintf(f, "  %s: %s\n", d->info[i].code, d->info[i].message);
	}
	if (d->n_items)
		fprintf(f, "\nresult: %zu difference%s\n", d->n_items, d->n_items == 1 ? "" : "s");
	else
		fprintf(f, "%sresult: %s\n", quiet ? "" : "\n",
			d->structural ? "structurally equal" : "identical");
}

/* ==== JSON ==== */

static cJSON *
shape_json(const ws_tensor *t)
{
	cJSON *arr = cJSON_CreateArray();
	for (uint32_t i = 0; arr && i < t->ndim; i++)
		cJSON_AddItemToArray(arr, ws_json_u64(t->shape[i]));
	return arr;
}

static cJSON *
logical_json(const ws_tensor *t)
{
	uint32_t n;
	const uint64_t *d = ws_tensor_logical(t, &n);
	cJSON *arr = cJSON_CreateArray();
	for (uint32_t i = 0; arr && i < n; i++)
		cJSON_AddItemToArray(arr, ws_json_u64(d[i]));
	return arr;
}

static cJSON *
tensor_json(const ws_tensor *t)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	ws_json_add_bytes(o, "name", t->name, t->name_len);
	cJSON_AddStringToObject(o, "dtype", ws_dtype_name(t->dtype));
	cJSON_AddItemToObject(o, "shape", shape_json(t));
	/* as ls --json: "shape" the stored one, the one read at beside */
	if (t->logical)
		cJSON_AddItemToObject(o, "logical_shape", logical_json(t));
	cJSON_AddStringToObject(o, "role", ws_role_name(t->role));
	if (t->layer >= 0)
		ws_json_add_i64(o, "layer", t->layer);
	if (t->expert >= 0)
		ws_json_add_i64(o, "expert", t->expert);
	return o;
}

static cJSON *
side_json(const ws_model *m, uint64_t params)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	ws_json_add_bytes(o, "path", m->path, strlen(m->path));
	cJSON_AddStringToObject(o, "format", format_name(m));
	cJSON_AddStringToObject(o, "byte_order", big_endian(m) ? "big" : "little");
	ws_json_add_u64(o, "tensors", m->n_tensors);
	ws_json_add_u64(o, "params", params);
	return o;
}

int
ws_diff_to_json(cJSON *obj, const ws_model *a, const ws_model *b, const ws_diff *d)
{
	cJSON_AddItemToObject(obj, "a", side_json(a, d->a_params));
	cJSON_AddItemToObject(obj, "b", side_json(b, d->b_params));
	cJSON_AddStringToObject(obj, "mode", d->structural ? "structural" : "name");
	ws_json_add_u64(obj, "matched", d->matched);
	ws_json_add_u64(obj, "hashed", d->hashed);
	ws_json_add_u64(obj, "same_file", d->same_file);
	ws_json_add_u64(obj, "bytes_hashed", d->bytes_hashed);

	cJSON *diffs = cJSON_AddArrayToObject(obj, "differences");
	for (size_t i = 0; diffs && i < d->n_items; i++) {
		const ws_diff_item *it = &d->items[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			return -1;
		cJSON_AddItemToArray(diffs, o);
		cJSON_AddStringToObject(o, "kind", ws_diff_kind_name(it->kind));
		if (it->kind == WS_DIFF_ELEMENTS) {
			cJSON_AddStringToObject(o, "role", ws_role_name(it->role));
			ws_json_add_i64(o, "layer", it->layer);
			ws_json_add_u64(o, "a_elements", it->a_elements);
			ws_json_add_u64(o, "b_elements", it->b_elements);
			continue;
		}
		const ws_tensor *t = it->a ? it->a : it->b;
		ws_json_add_bytes(o, "name", t->name, t->name_len);
		if (it->a)
			cJSON_AddItemToObject(o, "a", tensor_json(it->a));
		if (it->b)
			cJSON_AddItemToObject(o, "b", tensor_json(it->b));
	}

	cJSON *roles = cJSON_AddObjectToObject(obj, "roles");
	for (int r = 0; roles && r < WS_ROLE_COUNT; r++) {
		const ws_diff_role *x = &d->roles[r];
		if (!x->a_tensors && !x->b_tensors)
			continue;
		cJSON *o = cJSON_AddObjectToObject(roles, ws_role_name((ws_role)r));
		if (!o)
			return -1;
		ws_json_add_u64(o, "a_params", x->a_params);
		ws_json_add_u64(o, "b_params", x->b_params);
		ws_json_add_i64(o, "delta", (int64_t)(x->b_params - x->a_params));
		ws_json_add_u64(o, "a_tensors", x->a_tensors);
		ws_json_add_u64(o, "b_tensors", x->b_tensors);
		if (x->a_rep)
			cJSON_AddItemToObject(o, "a_shape", shape_json(x->a_rep));
		if (x->b_rep)
			cJSON_AddItemToObject(o, "b_shape", shape_json(x->b_rep));
		if (x->a_rep && x->a_rep->logical)
			cJSON_AddItemToObject(o, "a_logical_shape", logical_json(x->a_rep));
		if (x->b_rep && x->b_rep->logical)
			cJSON_AddItemToObject(o, "b_logical_shape", logical_json(x->b_rep));
		cJSON_AddBoolToObject(o, "changed", role_changed(x));
	}
	cJSON *p = cJSON_AddObjectToObject(obj, "params");
	if (p) {
		ws_json_add_u64(p, "a", d->a_params);
		ws_json_add_u64(p, "b", d->b_params);
		ws_json_add_i64(p, "delta", (int64_t)(d->b_params - d->a_params));
	}
	cJSON *info = cJSON_AddArrayToObject(obj, "info");
	for (size_t i = 0; info && i < d->n_info; i++) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			return -1;
		cJSON_AddItemToArray(info, o);
		cJSON_AddStringToObject(o, "code", d->info[i].code);
		ws_json_add_bytes(o, "message", d->info[i].message, strlen(d->info[i].message));
		ws_json_add_u64(o, "count", d->info[i].count);
	}
	cJSON_AddBoolToObject(obj, "ok", !ws_diff_differs(d));
	return diffs && roles && p && info ? 0 : -1;
}
