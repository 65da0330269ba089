/*
 * strset.c - an exact-key hash set over (pointer, length) byte strings.
 *
 * Used to find duplicate keys and tensor names in O(n); below it, the
 * model's tensors by name (an index over ws_model.tensors).  The set does not
 * copy keys: they must outlive it (they point into a mapping or an arena).
 * The first WS_STRSET_FEW keys are kept in the set itself and compared one
 * by one; past them, open addressing with linear probing, the table
 * doubling at 50% load.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "xxh.h"

/* A slot (internal.h) is 16 bytes: half the cache misses of a (pointer,
 * size_t, u64) slot on a 100k-name header.  Keys are shorter than 4 GiB: a
 * GGUF string is capped at 1 GiB and a safetensors header at 100 MB. */

static uint32_t
hash32(const char *key, size_t len)
{
	uint64_t h = XXH3_64bits(key, len);
	return (uint32_t)(h ^ (h >> 32));
}

static size_t
find_slot(const struct ws_strset_slot *slots, size_t cap, const char *key,
	  size_t len, uint32_t h, bool *found)
{
	size_t i = (size_t)h & (cap - 1);

	for (;;) {
		const struct ws_strset_slot *s = &slots[i];
		if (!s->key) {
			*found = false;
			return i;
		}
		if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0) {
			*found = true;
			return i;
		}
		i = (i + 1) & (cap - 1);
	}
}

/* The key among the few kept in the set itself (no table yet)? */
static bool
in_few(const ws_strset *s, const char *key, size_t len, uint32_t h)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->few[i].hash == h && s->few[i].len == len && memcmp(s->few[i].key, key, len) == 0)
			return true;
	return false;
}

/* Into a table of nc slots: from the table, or from few[] the first time. */
static bool
rehash_to(ws_strset *s, size_t nc)
{
	if (nc > SIZE_MAX / 2 / sizeof *s->slots)
		return false;
	struct ws_strset_slot *ns = ws_big_calloc(nc * sizeof *ns);
	if (!ns)
		return false;
	const struct ws_strset_slot *from = s->slots ? s->slots : s->few;
	size_t n_from = s->slots ? s->cap : s->n;
	for (size_t i = 0; i < n_from; i++) {
		const struct ws_strset_slot *o = &from[i];
		bool found;
		if (o->key)
			ns[find_slot(ns, nc, o->key, o->len, o->hash, &found)] = *o;
	}
	ws_big_free(s->slots, s->cap * sizeof *s->slots);
	s->slots = ns;
	s->cap = nc;
	return true;
}

int
ws_strset_reserve(ws_strset *s, size_t n)
{
	if (!s->slots && n <= WS_STRSET_FEW)
		return 0;
	size_t cap = s->cap ? s->cap : 16;
	while (cap / 2 < n && cap <= SIZE_MAX / 4)
		cap *= 2;
	return cap > s->cap && !rehash_to(s, cap) ? -1 : 0;
}

uint32_t
ws_strset_hash(const char *key, size_t len)
{
	return hash32(key ? key : "", len);
}

void
ws_strset_prefetch(const ws_strset *s, uint32_t hash)
{
	if (s->cap)
		__builtin_prefetch(&s->slots[(size_t)hash & (s->cap - 1)]);
}

int
ws_strset_add_hashed(ws_strset *s, const char *key, size_t len, uint32_t h)
{
	/* An empty key still needs a non-NULL pointer to mark the slot used. */
	static const char empty[1] = "";
	if (!key)
		key = empty;
	if (len > UINT32_MAX)
		return -1;
	if (!s->slots) {
		if (in_few(s, key, len, h))
			return 0;
		if (s->n < WS_STRSET_FEW) {
			s->few[s->n++] = (struct ws_strset_slot){key, (uint32_t)len, h};
			return 1;
		}
	}
	if ((s->n + 1) * 2 > s->cap && (ws_strset_reserve(s, s->n + 1) || (s->n + 1) * 2 > s->cap))
		return -1;
	bool found;
	size_t i = find_slot(s->slots, s->cap, key, len, h, &found);
	if (found)
		return 0;
	s->slots[i] = (struct ws_strset_slot){key, (uint32_t)len, h};
	s->n++;
	return 1;
}

int
ws_strset_add(ws_strset *s, const char *key, size_t len)
{
	return ws_strset_add_hashed(s, key, len, ws_strset_hash(key, len));
}

bool
ws_strset_has_hashed(const ws_strset *s, const char *key, size_t len, uint32_t hash)
{
	bool found;
	if (len > UINT32_MAX)
		return false;
	if (!s->slots)
		return in_few(s, key ? key : "", len, hash);
	find_slot(s->slots, s->cap, key ? key : "", len, hash, &found);
	return found;
}

bool
ws_strset_has(const ws_strset *s, const char *key, size_t len)
{
	return ws_strset_has_hashed(s, key, len, ws_strset_hash(key, len));
}

void
ws_strset_free(ws_strset *s)
{
	ws_big_free(s->slots, s->cap * sizeof *s->slots);
	s->slots = NULL;
	s->cap = s->n = 0;
}

/* ==== tensors by name ==== */

/* A slot: tensor index + 1 in the high half (0 = empty), the name's hash in
 * the low half; names are compared in the model, not copied. */
#define SLOT_TENSOR(v) ((v) >> 32)

static bool
slot_is(const ws_model *m, uint64_t v, const char *name, size_t len, uint32_t h)
{
	const ws_tensor *t = &m->tensors[SLOT_TENSOR(v) - 1];
	return (uint32_t)v == h && t->name_len == len && memcmp(t->name, name, len) == 0;
}

/* The slot holding name, or the empty one where it would go. */
static size_t
probe(const ws_model *m, const ws_name_index *ix, const char *name, size_t len, uint32_t h)
{
	size_t j = (size_t)h & (ix->cap - 1);
	while (ix->slots[j] && !slot_is(m, ix->slots[j], name, len, h))
		j = (j + 1) & (ix->cap - 1);
	return j;
}

int
ws_name_index_build(const ws_model *m, ws_name_index *ix, int64_t dup[2])
{
	size_t cap = 64;
	dup[0] = dup[1] = -1;
	ix->slots = NULL;
	ix->cap = 0;
	if (m->n_tensors >= UINT32_MAX)
		return -1;
	while (cap / 2 < m->n_tensors)
		cap *= 2;
	if (!(ix->slots = ws_big_calloc(cap * sizeof *ix->slots)))
		return -1;
	ix->cap = cap;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		uint32_t h = hash32(t->name, t->name_len);
		size_t j = probe(m, ix, t->name, t->name_len, h);
		if (ix->slots[j]) {
			if (dup[0] < 0) {
				dup[0] = (int64_t)SLOT_TENSOR(ix->slots[j]) - 1;
				dup[1] = (int64_t)i;
			}
			continue;
		}
		ix->slots[j] = (i + 1) << 32 | h;
	}
	return 0;
}

int64_t
ws_name_index_find(const ws_model *m, const ws_name_index *ix, const char *name, size_t len)
{
	if (!ix->cap || len > UINT32_MAX)
		return -1;
	uint64_t v = ix->slots[probe(m, ix, name, len, hash32(name, len))];
	return v ? (int64_t)SLOT_TENSOR(v) - 1 : -1;
}

void
ws_name_index_free(ws_name_index *ix)
{
	ws_big_free(ix->slots, ix->cap * sizeof *ix->slots);
	ix->slots = NULL;
	ix->cap = 0;
}
