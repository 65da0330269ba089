/* json.c - exact integers and always-valid UTF-8 for JSON output. */
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <string.h>

#include "ws/json.h"
#include "ws/util.h"

cJSON *
ws_json_u64(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
	return cJSON_CreateRaw(buf);
}

cJSON *
ws_json_i64(int64_t v)
{
	char buf[24];
	snprintf(buf, sizeof buf, "%lld", (long long)v);
	return cJSON_CreateRaw(buf);
}

cJSON *
ws_json_add_u64(cJSON *obj, const char *key, uint64_t v)
{
	cJSON *n = ws_json_u64(v);
	if (n && !cJSON_AddItemToObject(obj, key, n)) {
		cJSON_Delete(n);
		return NULL;
	}
	return n;
}

cJSON *
ws_json_add_i64(cJSON *obj, const char *key, int64_t v)
{
	cJSON *n = ws_json_i64(v);
	if (n && !cJSON_AddItemToObject(obj, key, n)) {
		cJSON_Delete(n);
		return NULL;
	}
	return n;
}

/*
 * cJSON strings are NUL-terminated, so a NUL byte is written as the
 * escape \u0000 by building the string node ourselves as a raw value.
 */
static char *
json_quote(const char *s, size_t len, bool *lossy)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t cap = len * 6 + 3, o = 0;
	char *out = malloc(cap);

	if (!out)
		return NULL;
	*lossy = false;
	out[o++] = '"';
	for (size_t i = 0; i < len;) {
		unsigned c = p[i];
		if (c == '"' || c == '\\') {
			out[o++] = '\\';
			out[o++] = (char)c;
			i++;
		} else if (c < 0x20 || c == 0x7F) {
			o += (size_t)snprintf(out + o, cap - o, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			out[o++] = (char)c;
			i++;
		} else {
			/* find the longest valid UTF-8 sequence here */
			size_t n = 0;
			for (size_t k = 2; k <= 4 && i + k <= len; k++)
				if (ws_utf8_valid(s + i, k)) {
					n = k;
					break;
				}
			/* C1 controls and bidi overrides are valid UTF-8 but
			 * escaped, so no viewer of the JSON is misled */
			unsigned cp = 0;
			if (n == 2)
				cp = (p[i] & 0x1Fu) << 6 | (p[i + 1] & 0x3Fu);
			else if (n == 3)
				cp = (p[i] & 0x0Fu) << 12 | (p[i + 1] & 0x3Fu) << 6 | (p[i + 2] & 0x3Fu);
			if (n && ((cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) ||
				  (cp >= 0x2066 && cp <= 0x2069))) {
				o += (size_t)snprintf(out + o, cap - o, "\\u%04x", cp);
				i += n;
			} else if (n) {
				memcpy(out + o, s + i, n);
				o += n;
				i += n;
			} else {
				memcpy(out + o, "\xEF\xBF\xBD", 3); /* U+FFFD */
				o += 3;
				*lossy = true;
				i++;
			}
		}
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}

cJSON *
ws_json_bytes(const char *s, size_t len)
{
	bool lossy;
	char *q = json_quote(s, len, &lossy);
	if (!q)
		return NULL;
	cJSON *n = cJSON_CreateRaw(q);
	free(q);
	return n;
}

cJSON *
ws_json_add_bytes(cJSON *obj, const char *key, const char *s, size_t len)
{
	bool lossy;
	char *q = json_quote(s, len, &lossy);
	if (!q)
		return NULL;
	cJSON *n = cJSON_CreateRaw(q);
	free(q);
	if (!n || !cJSON_AddItemToObject(obj, key, n)) {
		cJSON_Delete(n);
		return NULL;
	}
	if (lossy) {
		size_t kl = strlen(key);
		char *hk = malloc(kl + 5);
		char *hex = malloc(len * 2 + 1);
		if (!hk || !hex) {
			free(hk);
			free(hex);
			return NULL;
		}
		memcpy(hk, key, kl);
		memcpy(hk + kl, "_hex", 5);
		for (size_t i = 0; i < len; i++)
			snprintf(hex + 2 * i, 3, "%02x", (unsigned char)s[i]);
		cJSON_AddStringToObject(obj, hk, hex);
		free(hk);
		free(hex);
	}
	return n;
}

int
ws_json_print_line(FILE *f, const cJSON *obj)
{
	char *s = cJSON_PrintUnformatted(obj);
	if (!s)
		return -1;
	int rc = (fputs(s, f) < 0 || fputc('\n', f) == EOF) ? -1 : 0;
	cJSON_free(s);
	return rc;
}

/* ==== JSON as Python writes it ====
 *
 * Python's json module writes float('inf') and float('nan') as the bare
 * tokens Infinity, -Infinity and NaN, and configs on the Hub hold them;
 * cJSON refuses them.  One pass finds them outside strings, standing where
 * a number can (whitespace or [ , : before, whitespace or ] , } or the end
 * after: Infinityx stays an error) and notes which number of the document
 * each is.  A copy with each overwritten by "0" and spaces (same length:
 * an error offset is still the file's) is parsed, and the tree's numbers,
 * met in document order, take the noted values. */

typedef struct {
	const char *text;
	size_t len;
	double value;
	int valueint;  /* what cJSON would store: clamped, 0 for NaN */
} py_literal;

static const py_literal py_literals[] = {
	{"Infinity", 8, INFINITY, INT_MAX},
	{"-Infinity", 9, -INFINITY, INT_MIN},
	{"NaN", 3, NAN, 0},
};

typedef struct {
	size_t at;              /* byte offset in the text */
	size_t ord;             /* the document's ord-th number (from 0) */
	const py_literal *lit;
} py_found;

static bool
json_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool
number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E';
}

/* The literal at buf[i] standing as a whole value, or NULL. */
static const py_literal *
py_literal_at(const char *buf, size_t len, size_t i)
{
	char p = i ? buf[i - 1] : ' ';
	if (!json_ws(p) && p != '[' && p != ',' && p != ':')
		return NULL;
	for (size_t k = 0; k < sizeof py_literals / sizeof *py_literals; k++) {
		const py_literal *l = &py_literals[k];
		if (len - i < l->len || memcmp(buf + i, l->text, l->len))
			continue;
		char n = len - i > l->len ? buf[i + l->len] : ' ';
		if (json_ws(n) || n == ']' || n == ',' || n == '}')
			return l;
	}
	return NULL;
}

/* The first '"' or '\\' in buf[i, len), or len: 16 bytes a step where
 * SSE2 is (a string's bytes are most of an index.json's). */
static size_t
string_stop(const char *buf, size_t len, size_t i)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
	for (; len - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(buf + i));
		unsigned mask = (unsigned)_mm_movemask_epi8(
			_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)));
		if (mask)
			return i + (size_t)__builtin_ctz(mask);
	}
#endif
	while (i < len && buf[i] != '"' && buf[i] != '\\')
		i++;
	return i;
}

/* The literals outside strings, in order, into *out (malloc'd; NULL when
 * there are none); their count, or SIZE_MAX on OOM.  In text cJSON parses
 * a number starts at each [-0-9] not after a number's own characters, so
 * the ordinals are those of cJSON's number nodes in document order. */
static size_t
py_scan(const char *buf, size_t len, py_found **out)
{
	size_t n = 0, cap = 0, ord = 0;
	py_found *f = NULL;
	bool in_str = false;
	*out = NULL;
	for (size_t i = 0; i < len; i++) {
		if (in_str && (i = string_stop(buf, len, i)) == len)
			break;
		char c = buf[i];
		if (in_str) {
			if (c == '\\')
				i++; /* the escaped character, a quote included */
			else if (c == '"')
				in_str = false;
			continue;
		}
		if (c == '"') {
			in_str = true;
			continue;
		}
		const py_literal *l = (c == 'I' || c == 'N' || c == '-') ? py_literal_at(buf, len, i) : NULL;
		if (l) {
			if (n == cap) {
				/* at most len / 3 entries: cap * 2 * size cannot overflow */
				size_t nc = cap ? cap * 2 : 8;
				py_found *g = realloc(f, nc * sizeof *g);
				if (!g) {
					free(f);
					return SIZE_MAX;
				}
				f = g;
				cap = nc;
			}
			f[n++] = (py_found){i, ord++, l};
			i += l->len - 1;
		} else if ((c == '-' || (c >= '0' && c <= '9')) && !(i && number_char(buf[i - 1]))) {
			ord++;
		}
	}
	*out = f;
	return n;
}

/* Give the numbers of a parsed tree (n and its siblings after it,
 * depth-first: document order) the found values; *ord counts the numbers
 * met, *k the found entries used. */
static void
py_assign(cJSON *n, const py_found *f, size_t nf, size_t *ord, size_t *k)
{
	for (; n && *k < nf; n = n->next) {
		if (cJSON_IsNumber(n)) {
			if (*ord == f[*k].ord) {
				n->valuedouble = f[*k].lit->value;
				n->valueint = f[*k].lit->valueint;
				(*k)++;
			}
			(*ord)++;
		} else if (n->child) {
			py_assign(n->child, f, nf, ord, k);
		}
	}
}

cJSON *
ws_json_parse_py(const char *buf, size_t len, const char **end)
{
	py_found *f;
	size_t nf = py_scan(buf, len, &f);
	if (nf == 0)
		return cJSON_ParseWithLengthOpts(buf, len, end, false);
	char *copy = nf == SIZE_MAX ? NULL : malloc(len + 1);
	if (!copy) {
		free(f);
		if (end)
			*end = NULL;
		return NULL;
	}
	memcpy(copy, buf, len);
	copy[len] = '\0';
	for (size_t k = 0; k < nf; k++) {
		memset(copy + f[k].at, ' ', f[k].lit->len);
		copy[f[k].at] = '0';
	}
	const char *cend = NULL;
	cJSON *j = cJSON_ParseWithLengthOpts(copy, len, &cend, false);
	if (end) {
		size_t e = cend ? (size_t)(cend - copy) : 0;
		/* a document that is a literal ends after it, not after its "0" */
		for (size_t k = 0; k < nf; k++)
			if (f[k].at < e && e < f[k].at + f[k].lit->len)
				e = f[k].at + f[k].lit->len;
		*end = cend ? buf + e : NULL;
	}
	size_t ord = 0, k = 0;
	if (j)
		py_assign(j, f, nf, &ord, &k);
	free(copy);
	free(f);
	return j;
}

enum ws_json_count
ws_json_count(const cJSON *it, uint64_t *out)
{
	if (!cJSON_IsNumber(it))
		return WS_JSON_COUNT_NOT_NUMBER;
	double v = it->valuedouble;
	if (ws_json_nonfinite_name(v))
		return WS_JSON_COUNT_NONFINITE;
	if (v < 0)
		return WS_JSON_COUNT_NEGATIVE;
	if (v >= 0x1p53)
		return WS_JSON_COUNT_TOO_LARGE;
	if (!ws_is_whole(v))
		return WS_JSON_COUNT_FRACTION;
	*out = (uint64_t)v;
	return WS_JSON_COUNT_OK;
}

const char *
ws_json_nonfinite_name(double v)
{
	if (isnan(v))
		return "NaN";
	if (isinf(v))
		return v > 0 ? "Infinity" : "-Infinity";
	return NULL;
}

int
ws_json_nonfinite_spelled(cJSON *n, bool raw)
{
	const char *name = n && cJSON_IsNumber(n) ? ws_json_nonfinite_name(n->valuedouble) : NULL;
	if (name) {
		/* in place, the key and the siblings untouched; cJSON_Delete
		 * frees the new value string */
		size_t l = strlen(name) + 1;
		char *s = cJSON_malloc(l);
		if (!s)
			return -1;
		memcpy(s, name, l);
		n->type = raw ? cJSON_Raw : cJSON_String;
		n->valuestring = s;
		return 0;
	}
	for (cJSON *c = n ? n->child : NULL; c; c = c->next)
		if (ws_json_nonfinite_spelled(c, raw))
			return -1;
	return 0;
}

/* ==== an arena for cJSON ====
 *
 * A checkpoint's index.json is thousands of small nodes and strings, parsed
 * once and freed with the model; JSON output is built and freed the same
 * way.  Through malloc and free that was a fifth of the instructions of a
 * 191-shard count.  Here an allocation bumps a pointer, a free counts down,
 * and the chunks are reused when nothing is left alive. */

typedef struct arena_chunk {
	struct arena_chunk *next;
	size_t cap, used;
	max_align_t data[];
} arena_chunk;

#define ARENA_FIRST (64u << 10)
#define ARENA_MAX (8u << 20)
/* cJSON allocates its items (pointers, an int, a double) and strings:
 * their alignment, not malloc's 16, packs a key or a value 8 bytes
 * tighter (a 191-shard index: 4 pages fewer to fault) */
#define ARENA_ALIGN (_Alignof(double) > _Alignof(void *) ? _Alignof(double) : _Alignof(void *))

static struct {
	arena_chunk *head;     /* being filled; the ones before follow */
	size_t live;           /* allocations not yet freed */
	pthread_t owner;
} arena;

static void
arena_wrong_thread(void)
{
	fputs("weightscan: cJSON used from a second thread with the arena installed\n", stderr);
	abort();
}

static void *
arena_malloc(size_t n)
{
	if (!pthread_equal(pthread_self(), arena.owner))
		arena_wrong_thread();
	if (n > SIZE_MAX / 2)
		return NULL;
	n = (n + ARENA_ALIGN - 1) & ~(ARENA_ALIGN - 1);
	arena_chunk *h = arena.head;
	if (!h || h->cap - h->used < n) {
		size_t cap = h ? h->cap * 2 : ARENA_FIRST;
		if (cap > ARENA_MAX)
			cap = ARENA_MAX;
		if (cap < n)
			cap = n;
		arena_chunk *c = malloc(sizeof *c + cap);
		if (!c)
			return NULL;
		c->cap = cap;
		c->used = 0;
		/* a chunk made for one large block goes behind the one being filled */
		if (h && cap == n && h->cap - h->used >= ARENA_FIRST / 4) {
			c->next = h->next;
			h->next = c;
			c->used = n;
			arena.live++;
			return c->data;
		}
		c->next = h;
		arena.head = h = c;
	}
	void *p = (char *)h->data + h->used;
	h->used += n;
	arena.live++;
	return p;
}

static void
arena_free(void *p)
{
	if (!p)
		return;
	if (!pthread_equal(pthread_self(), arena.owner))
		arena_wrong_thread();
	if (--arena.live)
		return;
	/* nothing alive: keep the chunk being filled, empty */
	for (arena_chunk *c = arena.head->next, *n; c; c = n) {
		n = c->next;
		free(c);
	}
	arena.head->next = NULL;
	arena.head->used = 0;
}

void
ws_json_use_arena(void)
{
	arena.owner = pthread_self();
	cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = arena_malloc, .free_fn = arena_free});
}
