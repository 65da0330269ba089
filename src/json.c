/* json.c - exact integers and always-valid UTF-8 for JSON output. */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
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
