/*
 * safetensors.c - the strict safetensors reader.
 *
 * Layout: u64 little-endian N, N bytes of UTF-8 JSON, then the data buffer
 * that every data_offsets pair indexes.  The header gets its own small
 * scanner instead of cJSON because the rules need what cJSON loses: exact
 * 64-bit integers (cJSON rounds 2^53+1 and accepts 1.0 and 1e0), duplicate
 * keys (cJSON keeps both and finds the first), NUL inside names (cJSON cuts
 * the key there), trailing bytes after the object, and the byte offset of
 * every error.  Rules: research/safetensors.md (a).
 */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <unistd.h>

#include "internal.h"
#include "ws/util.h"

#define ST_MAX_HEADER 100000000ull /* the reference reader's limit */
#define ST_MAX_DEPTH 128           /* serde_json's recursion limit */

/* Texts read before and what they said, the last four in turn, and the
 * one being read (at, len; len 0: none to keep). */
struct st_spelled {
	struct {
		const uint8_t *text;
		size_t len, ndim;
		ws_dtype dtype;
		const uint64_t *shape;
		uint64_t count;
	} e[4];
	unsigned next;
	const uint8_t *at;
	size_t len;
};

/* Keep the text being read as the newest of sp, with what it said. */
static void
spelled_keep(struct st_spelled *sp, size_t ndim, ws_dtype dtype, const uint64_t *shape,
	     uint64_t count)
{
	unsigned c = sp->next++ % (sizeof sp->e / sizeof sp->e[0]);
	sp->e[c].text = sp->at;
	sp->e[c].len = sp->len;
	sp->e[c].ndim = ndim;
	sp->e[c].dtype = dtype;
	sp->e[c].shape = shape;
	sp->e[c].count = count;
}

#define ST_NAME_BATCH 32

typedef struct scan {
	const uint8_t *p;   /* header bytes */
	size_t len, pos;
	uint64_t base;      /* file offset of p[0] (8) */
	const char *file;
	ws_model *m;
	ws_error *err;
	/* the last string scanned: into the header when it has no escape and
	 * no multi-byte character (most names), else into sbuf */
	const char *sv;
	/* growable scratch: decoded strings and shapes */
	char *sbuf;
	size_t scap;
	uint64_t *dims;
	size_t dcap;
	/* the last dtype read, its text and size (elements per block_bytes) */
	char dt_text[16];
	size_t dt_len;
	ws_dtype dt;
	uint32_t dt_block, dt_block_bytes;
	uint64_t dt_word;      /* dt_text in a word (load8), when 8 bytes or less */
	/* the last data_offsets end that fast_value read: its digits in the
	 * header and its value (a writer's next begin is the same text) */
	const uint8_t *end_text;
	size_t end_len;
	uint64_t end_value;
	/* names are copied into a block of the arena, taken a few KB at a
	 * time (bump: the free rest of it) */
	char *bump;
	size_t bump_left;
	/* the last shapes made (shape_of), in turn */
	const uint64_t *shapes[4];
	size_t shape_ndim[4];
	unsigned shape_next;
	/* the shapes fast_value read last, by their text in the header with
	 * the closing ']' (16 bytes at most): a shape spelled the same is the
	 * same, with the same element count */
	struct st_spelled stext;
	/* the same for a value's whole start, '{' to the data_offsets' '['
	 * (16 to 64 bytes): spelled the same, it has the same dtype too (an
	 * expert's matrices take turns in a few) */
	struct st_spelled vtext;
	/* the index in m->tensors of the file's first tensor */
	uint64_t first;
	/* the bytes after the header: the data ranges' bound */
	uint64_t data_len;
	/* a piece of the parallel scan: its tensors go to slots [wbase,
	 * wbase + wcap) of the array every piece shares (wt points at slot
	 * wbase), and its names to the set all pieces share; its entries are
	 * not kept (one in turn, we): the pieces' ranges must make one chain,
	 * else the header is scanned serially */
	ws_tensor *wt;
	uint64_t wbase;
	size_t wn, wcap;
	struct st_names *ns;
	/* names added to ns a batch at a time (pend of them waiting): a
	 * slot prefetched as its member is read has the batch's parse to
	 * arrive, and the locked compare-and-swaps run back to back, not
	 * each after a member's stores (each waits for those to drain) */
	uint64_t pend_i[ST_NAME_BATCH];
	uint32_t pend_h[ST_NAME_BATCH];
	unsigned pend;
	/* the data ranges seen so far, while each begins where the one
	 * before ended (as writers lay them out): the first's begin and the
	 * last's end; t->offset is set as they come */
	uint64_t chain_first, chain_end;
	size_t chain_n;
	bool chain_broken;
	/* Per tensor, what only validation needs: where its data starts (it
	 * ends t->bytes later: scan_tensor checked the pair) and where its
	 * entry starts in the header, for error offsets (a header is under
	 * 2^32 bytes).  A piece's one at a time. */
	struct st_entry {
		uint64_t begin;
		uint32_t at;        /* file offset of the tensor's key */
		uint32_t tensor;    /* index among the file's tensors */
	} we;
} scan;

typedef struct st_entry st_entry;

static int
fail(scan *s, const char *msg)
{
	return ws_err_at(s->err, s->file, s->base + s->pos, "%s", msg);
}

static bool
is_blank(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void
skip_ws(scan *s)
{
	/* most calls find a token: one compare says it is no blank */
	while (s->pos < s->len && s->p[s->pos] <= ' ' && is_blank(s->p[s->pos]))
		s->pos++;
}

static int
expect_slow(scan *s, char c)
{
	skip_ws(s);
	if (s->pos >= s->len || s->p[s->pos] != (uint8_t)c) {
		return ws_err_at(s->err, s->file, s->base + s->pos,
				 "invalid JSON in header: expected '%c'", c);
	}
	s->pos++;
	return 0;
}

/* A writer's header has no blanks: the byte is there, or look further. */
static inline int
expect(scan *s, char c)
{
	if (s->pos < s->len && s->p[s->pos] == (uint8_t)c) {
		s->pos++;
		return 0;
	}
	return expect_slow(s, c);
}

static int
sbuf_put(scan *s, size_t *n, const void *b, size_t k)
{
	if (*n + k + 1 > s->scap) {
		size_t cap = s->scap ? s->scap * 2 : 256;
		while (cap < *n + k + 1)
			cap *= 2;
		char *nb = realloc(s->sbuf, cap);
		if (!nb)
			return ws_err_oom(s->err, s->file);
		s->sbuf = nb;
		s->scap = cap;
	}
	memcpy(s->sbuf + *n, b, k);
	*n += k;
	return 0;
}

static int
hex4(scan *s, unsigned *out)
{
	unsigned v = 0;
	if (s->len - s->pos < 4)
		return fail(s, "invalid JSON in header: truncated \\u escape");
	for (int i = 0; i < 4; i++) {
		uint8_t c = s->p[s->pos++];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a') + 10u
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A') + 10u : 16u;
		if (d == 16) {
			s->pos--;
			return fail(s, "invalid JSON in header: bad \\u escape");
		}
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* The bytes of p[0..n) before the first '"', '\\', control byte (< 0x20)
 * or non-ASCII byte (>= 0x80): 16 at a time where SSE2 is (every x86-64),
 * else 8; the last few the caller looks at one by one. */
static size_t
plain_run(const uint8_t *p, size_t n)
{
	size_t i = 0;
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
		      space = _mm_set1_epi8(0x20);
	for (; n - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		/* signed: < 0x20 holds the bytes >= 0x80 too */
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
							_mm_cmpeq_epi8(v, bslash)),
					   _mm_cmplt_epi8(v, space));
		unsigned mask = (unsigned)_mm_movemask_epi8(hit);
		if (mask)
			return i + (size_t)__builtin_ctz(mask);
	}
#endif
	for (; n - i >= 8; i += 8) {
		uint64_t w;
		memcpy(&w, p + i, 8);
		const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
		uint64_t q = w ^ (ones * '"'), b = w ^ (ones * '\\');
		uint64_t special = ((q - ones) & ~q) | ((b - ones) & ~b) | (w - ones * 0x20) | w;
		if (special & highs)
			break; /* somewhere in these eight: one by one */
	}
	return i;
}

/*
 * Scan a JSON string at s->pos into s->sbuf (decoded, NUL-terminated, with
 * its length in *out_len).  Validates UTF-8 and escapes; *had_nul tells
 * whether a \u0000 was decoded.
 */
static int
scan_string(scan *s, size_t *out_len, bool *had_nul)
{
	size_t n = 0;
	*had_nul = false;
	skip_ws(s);
	if (s->pos >= s->len || s->p[s->pos] != '"')
		return fail(s, "invalid JSON in header: expected a string");
	s->pos++;
	/* the common case, plain ASCII up to the closing quote, needs no copy */
	size_t start = s->pos;
	s->pos += plain_run(s->p + s->pos, s->len - s->pos);
	while (s->pos < s->len) {
		uint8_t c = s->p[s->pos];
		if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
			break;
		s->pos++;
	}
	if (s->pos < s->len && s->p[s->pos] == '"') {
		s->sv = (const char *)s->p + start;
		*out_len = s->pos - start;
		s->pos++;
		return 0;
	}
	s->pos = start;
	for (;;) {
		size_t run = s->pos;
		while (s->pos < s->len) {
			uint8_t c = s->p[s->pos];
			if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
				break;
			s->pos++;
		}
		if (sbuf_put(s, &n, s->p + run, s->pos - run))
			return -1;
		if (s->pos >= s->len)
			return fail(s, "invalid JSON in header: unterminated string");
		uint8_t c = s->p[s->pos];
		if (c == '"') {
			s->pos++;
			break;
		}
		if (c < 0x20)
			return fail(s, "invalid JSON in header: control character in string");
		if (c >= 0x80) {
			size_t k = 2;
			while (k <= 4 && !(s->pos + k <= s->len &&
					   ws_utf8_valid((const char *)s->p + s->pos, k)))
				k++;
			if (k > 4)
				return fail(s, "invalid UTF-8 in header");
			if (sbuf_put(s, &n, s->p + s->pos, k))
				return -1;
			s->pos += k;
			continue;
		}
		/* backslash escape */
		s->pos++;
		if (s->pos >= s->len)
			return fail(s, "invalid JSON in header: unterminated escape");
		c = s->p[s->pos++];
		static const char plain[] = "\"\\/bfnrt";
		static const char value[] = "\"\\/\b\f\n\r\t";
		const char *hit = c ? strchr(plain, c) : NULL;
		if (hit) {
			if (sbuf_put(s, &n, &value[hit - plain], 1))
				return -1;
			continue;
		}
		if (c != 'u') {
			s->pos--;
			return fail(s, "invalid JSON in header: bad escape");
		}
		unsigned cp;
		if (hex4(s, &cp))
			return -1;
		if (cp >= 0xDC00 && cp <= 0xDFFF)
			return fail(s, "invalid JSON in header: lone surrogate");
		if (cp >= 0xD800 && cp <= 0xDBFF) {
			unsigned lo;
			if (s->len - s->pos < 2 || s->p[s->pos] != '\\' ||
			    s->p[s->pos + 1] != 'u')
				return fail(s, "invalid JSON in header: lone surrogate");
			s->pos += 2;
			if (hex4(s, &lo))
				return -1;
			if (lo < 0xDC00 || lo > 0xDFFF)
				return fail(s, "invalid JSON in header: lone surrogate");
			cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
		}
		if (cp == 0)
			*had_nul = true;
		uint8_t u[4];
		size_t k;
		if (cp < 0x80) {
			u[0] = (uint8_t)cp;
			k = 1;
		} else if (cp < 0x800) {
			u[0] = (uint8_t)(0xC0 | cp >> 6);
			u[1] = (uint8_t)(0x80 | (cp & 0x3F));
			k = 2;
		} else if (cp < 0x10000) {
			u[0] = (uint8_t)(0xE0 | cp >> 12);
			u[1] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
			u[2] = (uint8_t)(0x80 | (cp & 0x3F));
			k = 3;
		} else {
			u[0] = (uint8_t)(0xF0 | cp >> 18);
			u[1] = (uint8_t)(0x80 | (cp >> 12 & 0x3F));
			u[2] = (uint8_t)(0x80 | (cp >> 6 & 0x3F));
			u[3] = (uint8_t)(0x80 | (cp & 0x3F));
			k = 4;
		}
		if (sbuf_put(s, &n, u, k))
			return -1;
	}
	if (sbuf_put(s, &n, "", 0))
		return -1;
	s->sbuf[n] = '\0';
	s->sv = s->sbuf;
	*out_len = n;
	return 0;
}

/* Eight bytes at p, the first in the low byte. */
static uint64_t
load8(const uint8_t *p)
{
	uint64_t w;
	memcpy(&w, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* How many of the eight bytes of w, from the first, are ASCII digits. */
static unsigned
digit_run(uint64_t w)
{
	/* a digit is 0..9 after the xor, and stays below 0x80 plus 0x76; a
	 * carry out of a byte only reaches bytes after a non-digit */
	uint64_t x = w ^ 0x3030303030303030ull;
	uint64_t stop = ((x + 0x7676767676767676ull) | x) & 0x8080808080808080ull;
	return stop ? (unsigned)__builtin_ctzll(stop) >> 3 : 8;
}

/* The number of eight ASCII digits, the first in the low byte. */
static uint64_t
value8(uint64_t w)
{
	w -= 0x3030303030303030ull;
	w = w * 10 + (w >> 8); /* pairs of digits, in every other byte */
	return ((w & 0x000000FF000000FFull) * (100 + (1000000ull << 32)) +
		((w >> 16) & 0x000000FF000000FFull) * (1 + (10000ull << 32))) >> 32;
}

/* The number of the first n (1..8) digits of w: shifted to the top and
 * led by '0's. */
static uint64_t
value_n(uint64_t w, unsigned n)
{
	if (n == 8)
		return value8(w);
	return value8(w << (8 * (8 - n)) | 0x3030303030303030ull >> (8 * n));
}

static const uint64_t pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000,
				  100000000};

/* A JSON integer that must be a non-negative u64: no sign, fraction or
 * exponent (the reference rejects 1.0 and 1e0). */
static int
scan_u64_slow(scan *s, const char *what, uint64_t *out)
{
	skip_ws(s);
	size_t start = s->pos;
	if (s->pos < s->len && s->p[s->pos] == '-')
		return ws_err_at(s->err, s->file, s->base + start,
				 "%s must not be negative", what);
	uint64_t v = 0;
	/* 19 digits always fit; only the 20th needs checking */
	const uint8_t *d = s->p;
	size_t i = s->pos, fast_end = s->len - i > 19 ? i + 19 : s->len;
	unsigned digit;
	/* up to 16 digits a word at a time, with 16 bytes in hand */
	if (s->len - i >= 16) {
		uint64_t w = load8(d + i);
		unsigned n = digit_run(w);
		if (n)
			v = value_n(w, n);
		i += n;
		if (n == 8) {
			w = load8(d + i);
			n = digit_run(w);
			if (n)
				v = v * pow10[n] + value_n(w, n);
			i += n;
		}
	}
	while (i < fast_end && (digit = (unsigned)d[i] - '0') < 10) {
		v = v * 10 + digit;
		i++;
	}
	s->pos = i;
	while (s->pos < s->len && (unsigned)(s->p[s->pos] - '0') < 10) {
		if (!ws_mul_u64(v, 10, &v) || !ws_add_u64(v, s->p[s->pos] - '0', &v))
			return ws_err_at(s->err, s->file, s->base + start,
					 "%s does not fit in 64 bits", what);
		s->pos++;
	}
	if (s->pos == start)
		return ws_err_at(s->err, s->file, s->base + start,
				 "%s must be a non-negative integer", what);
	if (s->pos - start > 1 && s->p[start] == '0')
		return ws_err_at(s->err, s->file, s->base + start,
				 "invalid JSON in header: %s has a leading zero", what);
	if (s->pos < s->len && (s->p[s->pos] == '.' || s->p[s->pos] == 'e' ||
				s->p[s->pos] == 'E'))
		return ws_err_at(s->err, s->file, s->base + start,
				 "%s must be an integer (no fraction or exponent)", what);
	*out = v;
	return 0;
}

/* The common number: 1 to 15 digits at p[*pos], no leading zero, with 16
 * more bytes in hand; false for anything else.  What follows is the
 * caller's to check (no '.', 'e' or 'E'). */
static inline bool
fast_u64(const uint8_t *p, size_t len, size_t *pos, uint64_t *out)
{
	size_t i = *pos;
	if (len - i < 17)
		return false;
	uint64_t w = load8(p + i), v;
	unsigned n = digit_run(w), k = n;
	if (n == 8) {
		uint64_t w2 = load8(p + i + 8);
		k = digit_run(w2);
		v = value8(w) * pow10[k] + (k ? value_n(w2, k) : 0);
		k += 8;
	} else {
		v = n ? value_n(w, n) : 0;
	}
	if (!n || k >= 16 || (k > 1 && (w & 0xFF) == '0'))
		return false;
	*pos = i + k;
	*out = v;
	return true;
}

/* The common number first, and after it no '.', 'e' or 'E'; anything
 * else the whole way. */
static inline int
scan_u64(scan *s, const char *what, uint64_t *out)
{
	size_t i = s->pos;
	uint64_t v;
	if (fast_u64(s->p, s->len, &i, &v) && s->p[i] != '.' && s->p[i] != 'e' && s->p[i] != 'E') {
		s->pos = i;
		*out = v;
		return 0;
	}
	return scan_u64_slow(s, what, out);
}

/* Skip any JSON value (unknown fields); depth: the nesting level of the
 * array or object holding it (the header's own object is level 1).  A
 * container at level ST_MAX_DEPTH is refused, as serde_json refuses it. */
static int
skip_value(scan *s, int depth)
{
	skip_ws(s);
	if (s->pos >= s->len)
		return fail(s, "invalid JSON in header: unexpected end");
	uint8_t c = s->p[s->pos];
	size_t n;
	bool nul;
	if (c == '"')
		return scan_string(s, &n, &nul);
	if (c == '{' || c == '[') {
		if (depth + 1 >= ST_MAX_DEPTH)
			return ws_err_at(s->err, s->file, s->base + s->pos,
					 "invalid JSON in header: arrays and objects nested %d levels deep "
					 "(serde_json refuses %d)", depth + 1, ST_MAX_DEPTH);
		char close = c == '{' ? '}' : ']';
		s->pos++;
		skip_ws(s);
		if (s->pos < s->len && s->p[s->pos] == (uint8_t)close) {
			s->pos++;
			return 0;
		}
		for (;;) {
			if (c == '{') {
				if (scan_string(s, &n, &nul) || expect(s, ':'))
					return -1;
			}
			if (skip_value(s, depth + 1))
				return -1;
			skip_ws(s);
			if (s->pos < s->len && s->p[s->pos] == ',') {
				s->pos++;
				continue;
			}
			return expect(s, close);
		}
	}
	static const char *const lits[] = {"true", "false", "null"};
	for (size_t i = 0; i < 3; i++) {
		size_t k = strlen(lits[i]);
		if (s->len - s->pos >= k && memcmp(s->p + s->pos, lits[i], k) == 0) {
			s->pos += k;
			return 0;
		}
	}
	/* a JSON number: -?int frac? exp? */
	size_t st = s->pos;
	if (s->p[s->pos] == '-')
		s->pos++;
	size_t digits = s->pos;
	while (s->pos < s->len && s->p[s->pos] >= '0' && s->p[s->pos] <= '9')
		s->pos++;
	if (s->pos == digits) {
		s->pos = st;
		return fail(s, "invalid JSON in header: unexpected character");
	}
	if (s->pos < s->len && s->p[s->pos] == '.') {
		s->pos++;
		size_t f = s->pos;
		while (s->pos < s->len && s->p[s->pos] >= '0' && s->p[s->pos] <= '9')
			s->pos++;
		if (f == s->pos)
			return fail(s, "invalid JSON in header: bad number");
	}
	if (s->pos < s->len && (s->p[s->pos] == 'e' || s->p[s->pos] == 'E')) {
		s->pos++;
		if (s->pos < s->len && (s->p[s->pos] == '+' || s->p[s->pos] == '-'))
			s->pos++;
		size_t e = s->pos;
		while (s->pos < s->len && s->p[s->pos] >= '0' && s->p[s->pos] <= '9')
			s->pos++;
		if (e == s->pos)
			return fail(s, "invalid JSON in header: bad number");
	}
	return 0;
}

/* Is the next non-blank byte c?  Consumes it when it is. */
static bool
accept(scan *s, char c)
{
	skip_ws(s);
	if (s->pos < s->len && s->p[s->pos] == (uint8_t)c) {
		s->pos++;
		return true;
	}
	return false;
}

/* data_offsets is not [begin, end]: where the header stops short, the end
 * is what is wrong; else the pair, at its '['. */
static int
offsets_pair_error(scan *s, uint64_t at, const char *name)
{
	if (s->pos >= s->len)
		return fail(s, "invalid JSON in header: unexpected end");
	return ws_err_at(s->err, s->file, at, "tensor '%s': data_offsets must hold 2 integers",
			 name);
}

static int
scan_metadata(scan *s, uint32_t file_idx)
{
	skip_ws(s);
	if (s->len - s->pos >= 4 && memcmp(s->p + s->pos, "null", 4) == 0) {
		s->pos += 4;
		return 0;
	}
	if (expect(s, '{'))
		return -1;
	if (accept(s, '}'))
		return 0;
	ws_strset keys = {0};
	int rc = -1;
	do {
		size_t kl, vl;
		bool nul;
		uint64_t at = s->base + s->pos;
		if (scan_string(s, &kl, &nul))
			goto out;
		char *key = ws_model_strndup(s->m, s->sv, kl);
		if (!key) {
			ws_err_oom(s->err, s->file);
			goto out;
		}
		int added = ws_strset_add(&keys, key, kl);
		if (added < 0) {
			ws_err_oom(s->err, s->file);
			goto out;
		}
		if (added == 0) {
			ws_err_at(s->err, s->file, at, "duplicate __metadata__ key");
			goto out;
		}
		if (expect(s, ':'))
			goto out;
		skip_ws(s);
		if (s->pos >= s->len || s->p[s->pos] != '"') {
			fail(s, "__metadata__ values must be strings");
			goto out;
		}
		if (scan_string(s, &vl, &nul))
			goto out;
		char *val = ws_model_strndup(s->m, s->sv, vl);
		ws_kv *kv = ws_model_push_kv(s->m);
		if (!val || !kv) {
			ws_err_oom(s->err, s->file);
			goto out;
		}
		kv->key = key;
		kv->key_len = (uint32_t)kl;
		kv->type = WS_V_STRING;
		kv->data = (const uint8_t *)val;
		kv->data_len = vl;
		kv->file = file_idx;
	} while (accept(s, ','));
	if (expect(s, '}'))
		goto out;
	rc = 0;
out:
	ws_strset_free(&keys);
	return rc;
}

/* Field bits of a tensor entry, for "missing" and "duplicate" checks. */
enum { F_DTYPE = 1, F_SHAPE = 2, F_OFFSETS = 4 };

static const char *msg_name(const char *name, size_t len, char *buf, size_t cap);

/* The keys of a tensor entry, as writers spell them: '"dtype":' ... */
static const struct {
	const char *text;
	unsigned len, bit;
} tensor_keys[] = {
	{"\"dtype\":", 8, F_DTYPE},
	{"\"shape\":", 8, F_SHAPE},
	{"\"data_offsets\":", 15, F_OFFSETS},
};

/* A key in that spelling, matched whole and consumed: the common case
 * needs no string scan. 0 = none of them so spelled. */
static unsigned
known_key(scan *s)
{
	for (size_t i = 0; i < sizeof tensor_keys / sizeof tensor_keys[0]; i++)
		if (s->len - s->pos >= tensor_keys[i].len &&
		    !memcmp(s->p + s->pos, tensor_keys[i].text, tensor_keys[i].len)) {
			s->pos += tensor_keys[i].len;
			return tensor_keys[i].bit;
		}
	return 0;
}

/* The bit of a key read the general way (escapes decoded), or 0. */
static unsigned
key_bit(const char *key, size_t len)
{
	for (size_t i = 0; i < sizeof tensor_keys / sizeof tensor_keys[0]; i++)
		if (len == tensor_keys[i].len - 3 && !memcmp(key, tensor_keys[i].text + 1, len))
			return tensor_keys[i].bit;
	return 0;
}

/* The dtype of the dtype string p[0, n): the last one looked up again,
 * as a header names a few dtypes many times over. */
static ws_dtype
dtype_of(scan *s, const char *p, size_t n)
{
	if (n == s->dt_len) {
		size_t i = 0;
		while (i < n && p[i] == s->dt_text[i])
			i++;
		if (i == n)
			return s->dt;
	}
	ws_dtype dt = ws_dtype_from_safetensors(p, n);
	if (n <= sizeof s->dt_text && dt != WS_DT_INVALID) {
		memcpy(s->dt_text, p, n);
		s->dt_len = n;
		s->dt = dt;
		s->dt_block = ws_dtype_get(dt)->block;
		s->dt_block_bytes = ws_dtype_get(dt)->block_bytes;
		uint8_t w[8] = {0};
		memcpy(w, p, n <= 8 ? n : 0);
		s->dt_word = load8(w);
	}
	return dt;
}

/* The first n (0..8) bytes of the word w (load8 order). */
static uint64_t
low_bytes(uint64_t w, size_t n)
{
	return n >= 8 ? w : w & ((1ull << (8 * n)) - 1);
}

/* ws_dtype_bytes, without its division for the last dtype when that
 * stores whole elements. */
static bool
bytes_of(const scan *s, ws_dtype dt, uint64_t count, uint64_t *bytes)
{
	if (dt == s->dt && s->dt_block == 1)
		return ws_mul_u64(count, s->dt_block_bytes, bytes);
	return ws_dtype_bytes(dt, count, bytes);
}

/* a[0, l) == b[0, l), 16 <= l: 16 bytes a compare, the last one ending
 * at l. */
static inline bool
same_text(const uint8_t *a, const uint8_t *b, size_t l)
{
#ifdef __SSE2__
	size_t i = 0;
	for (; i + 16 < l; i += 16)
		if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + i)),
						     _mm_loadu_si128((const __m128i *)(const void *)(b + i)))) != 0xFFFF)
			return false;
	return _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(a + l - 16)),
						_mm_loadu_si128((const __m128i *)(const void *)(b + l - 16)))) == 0xFFFF;
#else
	return !memcmp(a, b, l);
#endif
}

/* A tensor's value as writers write it - {"dtype":"BF16","shape":[2048,
 * 7168],"data_offsets":[0,29360128]}: no blanks or escapes, the keys in
 * that order, plain numbers - read in one go into t (dtype), s->dims,
 * e->begin and *end.  false, s->pos unchanged, for anything else: the
 * general path reads that, and says what is wrong with it. */
static bool
fast_value(scan *s, ws_tensor *t, st_entry *e, uint64_t *end, size_t *ndim,
	   const uint64_t **shape, uint64_t *count)
{
	static const char k_dtype[] = "{\"dtype\":\"", k_shape[] = "\",\"shape\":[",
			  k_offsets[] = ",\"data_offsets\":[";
	const uint8_t *p = s->p;
	size_t len = s->len, i = s->pos, n = 0, value_at = i;
	for (size_t c = 0; c < sizeof s->vtext.e / sizeof s->vtext.e[0]; c++) {
		size_t l = s->vtext.e[c].len;
		if (l && len - i >= l + 17 && same_text(p + i, s->vtext.e[c].text, l)) {
			t->dtype = s->vtext.e[c].dtype;
			*shape = s->vtext.e[c].shape;
			*count = s->vtext.e[c].count;
			n = s->vtext.e[c].ndim;
			i += l;
			goto offsets;
		}
	}
	if (len - i < sizeof k_dtype - 1 + 16 || memcmp(p + i, k_dtype, sizeof k_dtype - 1))
		return false;
	i += sizeof k_dtype - 1;
	/* the dtype: plain bytes up to '"', most often the last one's */
	n = plain_run(p + i, 16);
	if (n == 16 || p[i + n] != '"')
		return false;
	if (n && n <= 8 && n == s->dt_len && low_bytes(load8(p + i), n) == s->dt_word)
		t->dtype = s->dt;
	else if ((t->dtype = dtype_of(s, (const char *)p + i, n)) == WS_DT_INVALID)
		return false;
	i += n;
	if (len - i < sizeof k_shape - 1 || memcmp(p + i, k_shape, sizeof k_shape - 1))
		return false;
	i += sizeof k_shape - 1;
	n = 0;
	size_t shape_at = i;
	for (size_t c = 0; c < sizeof s->stext.e / sizeof s->stext.e[0] && len - i >= 16; c++) {
		size_t l = s->stext.e[c].len;
		if (l && low_bytes(load8(p + i), l) == low_bytes(load8(s->stext.e[c].text), l) &&
		    (l <= 8 || low_bytes(load8(p + i + 8), l - 8) ==
				       low_bytes(load8(s->stext.e[c].text + 8), l - 8))) {
			*shape = s->stext.e[c].shape;
			*count = s->stext.e[c].count;
			n = s->stext.e[c].ndim;
			i += l;
			break;
		}
	}
	if (*shape) {
		/* spelled as one read before */
	} else if (i < len && p[i] == ']') {
		i++;
	} else {
		for (;;) {
			if (n == s->dcap || !fast_u64(p, len, &i, &s->dims[n++]))
				return false;
			if (p[i] == ']')
				break;
			if (p[i++] != ',')
				return false;
		}
		i++;
	}
	if (!*shape && i - shape_at <= 16) {
		s->stext.at = p + shape_at;
		s->stext.len = i - shape_at;
	}
	if (len - i < sizeof k_offsets - 1 || memcmp(p + i, k_offsets, sizeof k_offsets - 1))
		return false;
	i += sizeof k_offsets - 1;
	if (i - value_at >= 16 && i - value_at <= 64) {
		s->vtext.at = p + value_at;
		s->vtext.len = i - value_at;
	}
offsets:;
	/* a begin spelled as the last end, digit for digit, is that number */
	size_t k = s->end_len;
	if (k && len - i >= 17 && p[i + k] == ',' &&
	    low_bytes(load8(p + i), k) == low_bytes(load8(s->end_text), k) &&
	    (k <= 8 || low_bytes(load8(p + i + 8), k - 8) == low_bytes(load8(s->end_text + 8), k - 8))) {
		e->begin = s->end_value;
		i += k;
	} else if (!fast_u64(p, len, &i, &e->begin)) {
		return false;
	}
	size_t at = ++i;
	if (p[i - 1] != ',' || !fast_u64(p, len, &i, end) || p[i] != ']' || p[i + 1] != '}')
		return false;
	s->end_text = p + at;
	s->end_len = i - at;
	s->end_value = *end;
	s->pos = i + 2;
	*ndim = n;
	return true;
}

/* The same, the general way: any order, blanks, escapes, unknown keys. */
static int
scan_value(scan *s, ws_tensor *t, st_entry *e, uint64_t *end_out, size_t *ndim_out)
{
	char nb[160]; /* the escaped name, made only for an error message */
#define name msg_name(t->name, t->name_len, nb, sizeof nb)
	unsigned seen = 0;
	uint64_t entry_at = e->at; /* the tensor's key */
	uint64_t end = 0;
	size_t ndim = 0;

	if (expect(s, '{'))
		return -1;
	if (!accept(s, '}')) {
		do {
			size_t kl;
			bool nul;
			skip_ws(s);
			uint64_t key_at = s->base + s->pos;
			unsigned bit = known_key(s);
			if (!bit) {
				if (scan_string(s, &kl, &nul) || expect(s, ':'))
					return -1;
				bit = key_bit(s->sv, kl);
			}
			if (bit & seen)
				return ws_err_at(s->err, s->file, key_at,
						 "tensor '%s': duplicate key", name);
			seen |= bit;
			if (bit == F_DTYPE) {
				size_t vl;
				uint64_t at = s->base + s->pos;
				skip_ws(s);
				if (s->pos >= s->len || s->p[s->pos] != '"')
					return fail(s, "dtype must be a string");
				if (scan_string(s, &vl, &nul))
					return -1;
				/* a header names a few dtypes many times over */
				t->dtype = dtype_of(s, s->sv, vl);
				if (t->dtype == WS_DT_INVALID) {
					char *esc = ws_escape_text(s->sv, vl);
					ws_err_at(s->err, s->file, at,
						  "tensor '%s': unknown dtype \"%s\"", name,
						  esc ? esc : "?");
					free(esc);
					return -1;
				}
			} else if (bit == F_SHAPE) {
				if (expect(s, '['))
					return -1;
				if (!accept(s, ']')) {
					do {
						if (ndim == s->dcap) {
							size_t cap = s->dcap ? s->dcap * 2 : 8;
							uint64_t *nd = realloc(s->dims, cap * sizeof *nd);
							if (!nd)
								return ws_err_oom(s->err, s->file);
							s->dims = nd;
							s->dcap = cap;
						}
						if (scan_u64(s, "a shape dimension", &s->dims[ndim]))
							return -1;
						ndim++;
					} while (accept(s, ','));
					if (expect(s, ']'))
						return -1;
				}
			} else if (bit == F_OFFSETS) {
				uint64_t at = s->base + s->pos;
				if (expect(s, '[') || scan_u64(s, "a data offset", &e->begin))
					return -1;
				if (!accept(s, ','))
					return offsets_pair_error(s, at, name);
				if (scan_u64(s, "a data offset", &end))
					return -1;
				if (!accept(s, ']'))
					return offsets_pair_error(s, at, name);
			} else if (skip_value(s, 2)) {
				return -1;
			}
		} while (accept(s, ','));
		if (expect(s, '}'))
			return -1;
	}
	static const struct { unsigned bit; const char *key; } need[] = {
		{F_DTYPE, "dtype"}, {F_SHAPE, "shape"}, {F_OFFSETS, "data_offsets"},
	};
	for (size_t i = 0; i < 3; i++)
		if (!(seen & need[i].bit))
			return ws_err_at(s->err, s->file, entry_at,
					 "tensor '%s': missing \"%s\"", name, need[i].key);
	*end_out = end;
	*ndim_out = ndim;
	return 0;
}
#undef name

/* s->dims[0, ndim) as a shape in the model: the one the last tensors had
 * when it is the same (an expert's matrices take turns in a few shapes),
 * else a new copy.  Shapes are never written after they are made. */
static const uint64_t *
shape_of(scan *s, size_t ndim)
{
	for (size_t k = 0; k < sizeof s->shapes / sizeof s->shapes[0]; k++) {
		const uint64_t *c = s->shapes[k];
		size_t i = 0;
		if (!c || s->shape_ndim[k] != ndim)
			continue;
		while (i < ndim && c[i] == s->dims[i])
			i++;
		if (i == ndim)
			return c;
	}
	uint64_t *shape = ws_model_alloc(s->m, ndim ? ndim * sizeof *shape : 1);
	if (!shape)
		return NULL;
	if (ndim)
		memcpy(shape, s->dims, ndim * sizeof *shape);
	size_t k = s->shape_next++ % (sizeof s->shapes / sizeof s->shapes[0]);
	s->shapes[k] = shape;
	s->shape_ndim[k] = ndim;
	return shape;
}

static int
scan_tensor(scan *s, ws_tensor *t, st_entry *e)
{
	char nb[160]; /* the escaped name, made only for an error message */
#define name msg_name(t->name, t->name_len, nb, sizeof nb)
	uint64_t entry_at = e->at; /* the tensor's key */
	uint64_t end = 0;
	size_t ndim = 0;

	const uint64_t *shape = NULL;
	uint64_t count = 1;
	s->stext.len = s->vtext.len = 0;
	if (!fast_value(s, t, e, &end, &ndim, &shape, &count)) {
		shape = NULL;
		count = 1;
		s->stext.len = s->vtext.len = 0;
		if (scan_value(s, t, e, &end, &ndim))
			return -1;
	}
	if (!shape) {
		if (!(shape = shape_of(s, ndim)))
			return ws_err_oom(s->err, s->file);
		for (size_t i = 0; i < ndim; i++) {
			/* left to right, as the reference does */
			if (!ws_mul_u64(count, shape[i], &count))
				return ws_err_at(s->err, s->file, entry_at,
						 "tensor '%s': element count overflows", name);
		}
		if (s->stext.len)
			spelled_keep(&s->stext, ndim, t->dtype, shape, count);
	}
	if (s->vtext.len)
		spelled_keep(&s->vtext, ndim, t->dtype, shape, count);
	t->ndim = (uint32_t)ndim;
	t->shape = shape;
	t->elements = count;
	t->params = count;
	if (!bytes_of(s, t->dtype, count, &t->bytes))
		return ws_err_at(s->err, s->file, entry_at,
				 "tensor '%s': %llu elements of %s are not a whole number of bytes",
				 name, (unsigned long long)count, ws_dtype_name(t->dtype));
	if (end < e->begin)
		return ws_err_at(s->err, s->file, entry_at,
				 "tensor '%s': data_offsets end %llu is before begin %llu", name,
				 (unsigned long long)end, (unsigned long long)e->begin);
	if (end - e->begin != t->bytes)
		return ws_err_at(s->err, s->file, entry_at,
				 "tensor '%s': %s %s needs %llu bytes but data_offsets span %llu",
				 name, ws_dtype_name(t->dtype), "shape",
				 (unsigned long long)t->bytes,
				 (unsigned long long)(end - e->begin));
	return 0;
}
#undef name

/* An entry with its data range, to sort by. */
typedef struct st_key {
	uint64_t begin, end;
	st_entry e;
} st_key;

static int
cmp_key(const void *a, const void *b)
{
	const st_key *x = a, *y = b;
	if (x->begin != y->begin)
		return x->begin < y->begin ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	return 0;
}

/* By data offset, then end; a shard's handful by insertion, without
 * qsort's calls.  Writers store them in order, so this is rare. */
static int
sort_entries(const ws_tensor *t, st_entry *v, size_t n)
{
	st_key *k = malloc(n * sizeof *k);
	if (!k)
		return -1;
	for (size_t i = 0; i < n; i++)
		k[i] = (st_key){v[i].begin, v[i].begin + t[v[i].tensor].bytes, v[i]};
	if (n > 16) {
		qsort(k, n, sizeof *k, cmp_key);
	} else {
		for (size_t i = 1; i < n; i++) {
			st_key e = k[i];
			size_t j = i;
			for (; j > 0 && cmp_key(&k[j - 1], &e) > 0; j--)
				k[j] = k[j - 1];
			k[j] = e;
		}
	}
	for (size_t i = 0; i < n; i++)
		v[i] = k[i].e;
	free(k);
	return 0;
}

/* The tensor name for messages: escaped, short. */
static const char *
msg_name(const char *name, size_t len, char *buf, size_t cap)
{
	/* Printable ASCII escapes to itself: skip the allocation, since this
	 * runs once per tensor (a third of a 46,848-tensor header's time). */
	size_t i = 0;
	while (i < len && i + 1 < cap && name[i] >= 0x20 && name[i] < 0x7F && name[i] != '\\')
		i++;
	if (i == len) {
		memcpy(buf, name, len);
		buf[len] = '\0';
		return buf;
	}
	char *e = ws_escape_text(name, len);
	snprintf(buf, cap, "%s", e ? e : "?");
	free(e);
	return buf;
}

/* Entries in header order (the serial scan's; the parallel scan keeps
 * only their count, n). */
typedef struct st_vec {
	st_entry *v;
	size_t n, cap;
} st_vec;

static void
vec_free(st_vec *ev)
{
	ws_big_free(ev->v, ev->cap * sizeof *ev->v);
	*ev = (st_vec){0};
}

static st_entry *
vec_push(st_vec *ev)
{
	if (ev->n == ev->cap) {
		size_t cap = ev->cap ? ev->cap * 2 : 64;
		st_entry *nv = ws_big_realloc(ev->v, ev->cap * sizeof *nv, cap * sizeof *nv);
		if (!nv)
			return NULL;
		ev->v = nv;
		ev->cap = cap;
	}
	return &ev->v[ev->n++];
}

/* Room for the entries of len header bytes: a tensor entry with a real
 * name takes ~100 bytes or more, so this spares most regrowth and stays
 * within the bytes in hand. */
static int
reserve_for(scan *s, st_vec *ev, ws_strset *names, size_t len)
{
	size_t estimate = len / 100 + 1;
	st_entry *v = ws_big_realloc(NULL, 0, estimate * sizeof *v);
	if (!v || (names && ws_strset_reserve(names, estimate)) ||
	    ws_model_reserve_tensors(s->m, estimate)) {
		ws_big_free(v, estimate * sizeof *v);
		return ws_err_oom(s->err, s->file);
	}
	ev->v = v;
	ev->cap = estimate;
	return 0;
}

/* The names of a header scanned in pieces, in one open-addressing table
 * that the pieces fill at once, so a name meets its twin from any piece
 * as it is added.  A slot is 0 or, in 32 bits, the tensor's slot number
 * in the shared arrays + 1 (the bits of mask: the set has more slots
 * than tensors) and the rest of its name's hash (the bits above), claimed
 * by compare-and-swap after the tensor's name is written.  Four bytes a
 * slot keep the set and the entries in one huge page on a 46,848-tensor
 * header. */
typedef struct st_names {
	_Atomic uint32_t *slots;
	uint32_t mask;
	const ws_tensor *t;   /* slot number 0 of the shared tensor array */
} st_names;

/* Add slot number i's name (hash h); false if the set has it already.
 * Pieces add at most 3/4 of the slots: a free one is always found. */
static bool
names_add(st_names *ns, uint64_t i, uint32_t h)
{
	const ws_tensor *t = &ns->t[i];
	uint32_t tag = h & ~ns->mask, v = tag | (uint32_t)(i + 1);
	for (size_t j = h & ns->mask;; j = (j + 1) & ns->mask) {
		uint32_t cur = atomic_load_explicit(&ns->slots[j], memory_order_acquire);
		if (!cur && atomic_compare_exchange_strong_explicit(&ns->slots[j], &cur, v,
								    memory_order_acq_rel,
								    memory_order_acquire))
			return true;
		/* taken (cur: by whom, if it was just now) */
		if ((cur & ~ns->mask) == tag) {
			const ws_tensor *o = &ns->t[(cur & ns->mask) - 1];
			if (o->name_len == t->name_len && !memcmp(o->name, t->name, t->name_len))
				return false;
		}
	}
}

/* The names waiting in s added; false if one was there already. */
static bool
names_flush(scan *s)
{
	unsigned n = s->pend;
	s->pend = 0;
	for (unsigned k = 0; k < n; k++)
		if (!names_add(s->ns, s->pend_i[k], s->pend_h[k]))
			return false;
	return true;
}

/* A NUL-terminated copy of the name p[0, n) in the model.  A large
 * header's names go to blocks of 64 KB of the arena, with no call per
 * name; a shard's few, one by one (a block would mostly be left over). */
#define NAME_BLOCK (64u << 10)
static char *
name_copy(scan *s, const char *p, size_t n)
{
	if (n >= s->bump_left) {
		if (s->len < ws_st_parallel.name_blocks || n >= NAME_BLOCK / 4)
			return ws_model_strndup(s->m, p, n);
		if (!(s->bump = ws_model_alloc(s->m, NAME_BLOCK))) {
			s->bump_left = 0;
			return NULL;
		}
		s->bump_left = NAME_BLOCK;
	}
	char *d = s->bump;
	memcpy(d, p, n);
	d[n] = '\0';
	s->bump += n + 1;
	s->bump_left -= n + 1;
	return d;
}

/* The hash a name has in the duplicate sets: 16 bytes a step, each step
 * one 64 x 64 -> 128-bit multiply folded (the last step zero-padded),
 * then the length.  Cheaper than XXH3 on names of a few dozen bytes, and
 * key_copy computes it on the copy it has just made. */
#ifdef __SIZEOF_INT128__
__extension__ typedef unsigned __int128 u128;
static inline uint64_t
mix128(uint64_t a, uint64_t b)
{
	u128 r = (u128)a * b;
	return (uint64_t)r ^ (uint64_t)(r >> 64);
}
#else
static inline uint64_t
mix128(uint64_t a, uint64_t b)
{
	uint64_t r = a * (b | 1);
	return r ^ (r >> 29) ^ (a >> 31) * 0x9E3779B97F4A7C15ull;
}
#endif

#define HASH_K0 0xA0761D6478BD642Full
#define HASH_K1 0xE7037ED1A0B428DBull
static inline uint64_t
hash_step(uint64_t h, uint64_t a, uint64_t b)
{
	return mix128(a ^ h ^ HASH_K0, b ^ HASH_K1);
}

static inline uint32_t
hash_end(uint64_t h, size_t n)
{
	h = mix128(h ^ 0x8EBC6AF09C88C6E3ull, n ^ 0x589965CC75374CC3ull);
	return (uint32_t)(h ^ (h >> 32));
}

static uint32_t
name_hash(const char *p, size_t n)
{
	uint64_t h = 0x9E3779B97F4A7C15ull;
	size_t i = 0;
	for (; n - i >= 16; i += 16)
		h = hash_step(h, load8((const uint8_t *)p + i), load8((const uint8_t *)p + i + 8));
	if (i < n) {
		uint64_t w[2] = {0, 0};
		for (size_t k = 0; k < n - i; k++)
			w[k / 8] |= (uint64_t)(uint8_t)p[i + k] << (8 * (k % 8));
		h = hash_step(h, w[0], w[1]);
	}
	return hash_end(h, n);
}

/* The common key, plain bytes up to the quote, read, copied to the arena
 * and hashed in one go: 16 bytes a step, stored whole (the arena block
 * keeps room for the last step's overrun).  Not committed: the caller
 * moves the arena on (key_commit) once the key is a tensor's.  NULL: not
 * a plain key of at most KEY_FAST bytes here; the caller reads it the
 * general way. */
#define KEY_FAST 256
static char *
key_copy(scan *s, size_t q, size_t *kl, uint32_t *hash)
{
#ifdef __SSE2__
	if (s->bump_left < KEY_FAST + 16 + 1) {
		if (s->len < ws_st_parallel.name_blocks ||
		    !(s->bump = ws_model_alloc(s->m, NAME_BLOCK))) {
			s->bump_left = 0;
			return NULL; /* a shard's few names; or out of memory, which name_copy says */
		}
		s->bump_left = NAME_BLOCK;
	}
	const uint8_t *p = s->p + q;
	size_t room = s->len - q;
	char *d = s->bump;
	const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'),
		      space = _mm_set1_epi8(0x20);
	uint64_t h = 0x9E3779B97F4A7C15ull;
	for (size_t i = 0; i < KEY_FAST && room - i >= 16; i += 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + i));
		_mm_storeu_si128((__m128i *)(void *)(d + i), v);
		__m128i hit = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote),
							_mm_cmpeq_epi8(v, bslash)),
					   _mm_cmplt_epi8(v, space));
		unsigned mask = (unsigned)_mm_movemask_epi8(hit);
		uint64_t a = load8(p + i), b = load8(p + i + 8);
		if (mask) {
			size_t r = (size_t)__builtin_ctz(mask), n = i + r;
			if (p[n] != '"' || !n)
				return NULL;
			if (r)  /* name_hash's zero-padded last step */
				h = hash_step(h, low_bytes(a, r), r > 8 ? low_bytes(b, r - 8) : 0);
			d[n] = '\0';
			*kl = n;
			*hash = hash_end(h, n);
			return d;
		}
		h = hash_step(h, a, b);
	}
#else
	(void)s;
	(void)q;
	(void)kl;
	(void)hash;
#endif
	return NULL;
}

static void
key_commit(scan *s, size_t kl)
{
	s->bump += kl + 1;
	s->bump_left -= kl + 1;
}

/* A member of the top-level object at s->pos: __metadata__ (when
 * allow_meta) or a tensor. names: the duplicate check as we go (the
 * serial scan), or NULL for a piece of the parallel one (s->ns). */
static int
scan_member(scan *s, uint32_t file_idx, st_vec *ev, ws_strset *names, bool *seen_meta,
	    bool allow_meta)
{
	size_t kl;
	bool nul = false;
	uint64_t key_at = s->base + s->pos;
	uint32_t hash = 0;
	/* a key as writers write it, plain bytes up to the quote, is taken
	 * here (copied as it is read when the arena has a block); anything
	 * else by scan_string */
	size_t q = s->pos + 1, run = 0;
	char *name = NULL;
	if (q < s->len && s->p[q - 1] == '"' && (name = key_copy(s, q, &kl, &hash))) {
		s->sv = (const char *)s->p + q;
		s->pos = q + kl + 1;
	} else {
		if (q < s->len && s->p[q - 1] == '"')
			run = plain_run(s->p + q, s->len - q);
		if (run && q + run < s->len && s->p[q + run] == '"') {
			s->sv = (const char *)s->p + q;
			kl = run;
			s->pos = q + run + 1;
		} else if (scan_string(s, &kl, &nul)) {
			return -1;
		}
	}
	if (kl == 12 && !memcmp(s->sv, "__metadata__", 12)) {
		if (!allow_meta)
			return -1;
		if (*seen_meta)
			return ws_err_at(s->err, s->file, key_at, "duplicate __metadata__");
		*seen_meta = true;
		return expect(s, ':') || scan_metadata(s, file_idx) ? -1 : 0;
	}
	char nbuf[160];
	(void)nul; /* a NUL in a name is allowed (the reference reads it); printed escaped */
	/* the set's slot is a cache miss on a large header: start it now,
	 * look it up after the value is parsed */
	if (name) {
		key_commit(s, kl);
	} else {
		hash = name_hash(s->sv, kl);
		name = name_copy(s, s->sv, kl);
	}
	if (names)
		ws_strset_prefetch(names, hash);
	else if (s->ns)
		__builtin_prefetch(&s->ns->slots[hash & s->ns->mask]);
	ws_tensor *t;
	st_entry *e;
	uint64_t ti;
	if (s->wt) {
		/* cannot be full when the piece is valid (see braces_in) */
		if (s->wn == s->wcap)
			return fail(s, "more tensors than the piece has room for");
		t = &s->wt[s->wn];
		e = &s->we;
		ti = s->wbase + s->wn++;
		ws_tensor_init(t);
	} else {
		t = ws_model_push_tensor(s->m);
		e = vec_push(ev);
		ti = s->m->n_tensors - 1;
	}
	if (!name || !t || !e)
		return ws_err_oom(s->err, s->file);
	t->name = name;
	t->name_len = (uint32_t)kl;
	t->file = file_idx;
	e->at = (uint32_t)key_at;
	e->tensor = (uint32_t)(ti - s->first);
	if (expect(s, ':') || scan_tensor(s, t, e))
		return -1;
	if (!s->chain_n++)
		s->chain_first = e->begin;
	else if (e->begin != s->chain_end)
		s->chain_broken = true;
	s->chain_end = e->begin + t->bytes; /* no overflow: scan_tensor */
	/* the header's end is the data's start; parse_file sets it again
	 * when the ranges are not one chain from 0 within the file */
	t->offset = s->base + s->len + e->begin;
	if (!names) {
		if (!s->ns)
			return 0;
		s->pend_i[s->pend] = ti - s->first;
		s->pend_h[s->pend] = hash;
		return ++s->pend == ST_NAME_BATCH && !names_flush(s) ? fail(s, "duplicate tensor name") : 0;
	}
	int added = ws_strset_add_hashed(names, name, kl, hash);
	if (added < 0)
		return ws_err_oom(s->err, s->file);
	if (added == 0)
		return ws_err_at(s->err, s->file, key_at, "duplicate tensor name '%s'",
				 msg_name(name, kl, nbuf, sizeof nbuf));
	return 0;
}

static int
scan_end(scan *s)
{
	skip_ws(s);
	return s->pos == s->len ? 0
	       : fail(s, "invalid JSON in header: trailing characters after the object");
}

/* The header, in order, checking every rule; the reference for the
 * parallel scan below, which must agree with it on every valid header. */
static int
scan_header_serial(scan *s, uint32_t file_idx, st_vec *ev)
{
	ws_strset names = {0};
	bool seen_meta = false;
	int rc = -1;

	if (reserve_for(s, ev, &names, s->len) || expect(s, '{'))
		goto out;
	if (!accept(s, '}')) {
		do {
			if (scan_member(s, file_idx, ev, &names, &seen_meta, true))
				goto out;
		} while (accept(s, ','));
		if (expect(s, '}'))
			goto out;
	}
	rc = scan_end(s);
out:
	ws_strset_free(&names);
	return rc;
}

/* ==== the parallel scan of a large header ====
 *
 * A 6 MB header of 46,848 expert tensors is cut into pieces at guessed
 * member boundaries ('}' ',' '"', blanks allowed), one thread a piece.
 * A piece is right only if the piece before it, parsing from the start,
 * lands exactly on its first key.  The pieces write their tensors and
 * entries into slots of shared arrays and add their names to one shared
 * set, which finds a duplicate whichever pieces hold the two.  Anything
 * else - a guess inside a string, __metadata__ past the first piece, any
 * error or duplicate, a piece with more tensors than its slots - and the
 * header is parsed again by scan_header_serial, so messages and offsets
 * are always the serial ones. */
#define PAR_MAX_PIECES 4

struct ws_st_parallel ws_st_parallel = {.min_piece = 256u << 10, .pieces = 0,
				       .listing_index = 32u << 10, .name_blocks = 4 * NAME_BLOCK};

typedef struct piece {
	/* a cache line of its own: the threads write their scans' fields as
	 * they go, and read the name set's pointers at every name */
	_Alignas(64) scan s;
	struct st_names ns;
	uint32_t file_idx;
	size_t stop;       /* the next piece's first key; 0 = the end */
	bool first;
	ws_error err;
	int rc;
} piece;

/* Where a member starts after `from`: the '"' of its key. */
static size_t
find_cut(const uint8_t *p, size_t len, size_t from)
{
	for (size_t i = from; i < len; i++) {
		if (p[i] != '}')
			continue;
		size_t j = i + 1;
		while (j < len && is_blank(p[j]))
			j++;
		if (j >= len || p[j] != ',')
			continue;
		j++;
		while (j < len && is_blank(p[j]))
			j++;
		if (j < len && p[j] == '"')
			return j;
	}
	return 0;
}

static void *
run_piece(void *arg)
{
	piece *pc = arg;
	scan *s = &pc->s;
	bool seen_meta = false;

	pc->rc = -1;
	if (pc->first) {
		if (expect(s, '{'))
			return NULL;
		if (accept(s, '}')) {
			pc->rc = pc->stop ? -1 : scan_end(s);
			return NULL;
		}
	}
	for (;;) {
		if (scan_member(s, pc->file_idx, NULL, NULL, &seen_meta, pc->first))
			return NULL;
		if (!accept(s, ','))
			break;
		if (pc->stop) {
			skip_ws(s);
			if (s->pos >= pc->stop) {
				pc->rc = s->pos == pc->stop ? 0 : -1;
				goto flush;
			}
		}
	}
	if (!pc->stop && !expect(s, '}'))
		pc->rc = scan_end(s);
flush:
	/* the last name, which no later member added */
	if (!pc->rc && !names_flush(s))
		pc->rc = -1;
	return NULL;
}

/* Items [lo, hi) of *span (hi << 32 | lo) taken one at a time from both
 * ends: the caller from the front, helpers from the back.  The two then
 * work far apart until they meet, not on neighbouring pages, whose faults
 * would wait on one page-table lock. */
static bool
ends_take(_Atomic uint64_t *span, bool front, size_t *item)
{
	uint64_t v = atomic_load_explicit(span, memory_order_relaxed);
	for (;;) {
		uint32_t lo = (uint32_t)v, hi = (uint32_t)(v >> 32);
		if (lo >= hi)
			return false;
		uint64_t nv = front ? v + 1 : v - ((uint64_t)1 << 32);
		if (atomic_compare_exchange_weak_explicit(span, &v, nv, memory_order_relaxed,
							  memory_order_relaxed)) {
			*item = front ? lo : hi - 1;
			return true;
		}
	}
}

/* The pieces, taken one at a time by whichever thread comes for one:
 * the caller, every piece a late helper has not taken.  The caller runs
 * piece 0 first, whose __metadata__ goes to the model; a piece's names
 * and shapes go to its thread's arena (wm[worker]; wm[0] is the model),
 * so however the pieces fall the arenas touched are as many as the
 * threads that ran. */
typedef struct piece_run {
	piece *pcs;
	_Atomic uint64_t left; /* the pieces not taken (ends_take) */
	ws_model *wm[PAR_MAX_PIECES];
} piece_run;

static void
piece_worker(void *arg, unsigned worker)
{
	piece_run *r = arg;
	size_t k = 0;
	/* piece 0 is the caller's, left out of r->left: its __metadata__
	 * goes to the model, wm[0] */
	for (bool got = !worker; got || ends_take(&r->left, !worker, &k); got = false) {
		r->pcs[k].s.m = r->wm[worker];
		run_piece(&r->pcs[k]);
	}
}

static size_t
cpus(void)
{
	cpu_set_t set;
	if (sched_getaffinity(0, sizeof set, &set) == 0)
		return (size_t)CPU_COUNT(&set);
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (size_t)n : 1;
}

/* The '{' in p[from, to).  A piece can hold no more tensors than that,
 * since each tensor's value is one object, nor than its shortest entries
 * allow (WS_ST_MAX_TENSORS).  A piece gets exactly that many slots of the
 * shared arrays: the next piece's start is known before the pieces are
 * parsed, and the join moves each piece down over the few slots left
 * between them. */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* The '{' in p[*from, to) that whole 128-byte rounds cover, *from moved
 * past them: 32 bytes a compare where the CPU has AVX2 (the count runs
 * before the pieces are parsed, over all but the last). */
__attribute__((target("avx2"))) static size_t
braces_avx2(const uint8_t *p, size_t *from, size_t to)
{
	size_t n = 0, i = *from;
	const __m256i brace = _mm256_set1_epi8('{'), zero = _mm256_setzero_si256();
#define WS_BRACES32(k) _mm256_cmpeq_epi8(_mm256_loadu_si256((const __m256i *)(const void *)(p + i + 32 * (k))), brace)
	while (to - i >= 128) {
		__m256i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
		for (unsigned r = 0; r < 255 && to - i >= 128; r++, i += 128) {
			a0 = _mm256_sub_epi8(a0, WS_BRACES32(0));
			a1 = _mm256_sub_epi8(a1, WS_BRACES32(1));
			a2 = _mm256_sub_epi8(a2, WS_BRACES32(2));
			a3 = _mm256_sub_epi8(a3, WS_BRACES32(3));
		}
		__m256i sum = _mm256_add_epi64(_mm256_add_epi64(_mm256_sad_epu8(a0, zero), _mm256_sad_epu8(a1, zero)),
					       _mm256_add_epi64(_mm256_sad_epu8(a2, zero), _mm256_sad_epu8(a3, zero)));
		n += (size_t)_mm256_extract_epi64(sum, 0) + (size_t)_mm256_extract_epi64(sum, 1) +
		     (size_t)_mm256_extract_epi64(sum, 2) + (size_t)_mm256_extract_epi64(sum, 3);
	}
#undef WS_BRACES32
	*from = i;
	return n;
}
#endif

static size_t
braces_in(const uint8_t *p, size_t from, size_t to)
{
	size_t n = 0, i = from;
#if defined(__x86_64__) && defined(__GNUC__)
	if (ws_cpu_avx2())
		n += braces_avx2(p, &i, to);
#endif
#ifdef __SSE2__
	/* 64 bytes a round into four sets of byte counters, added up every
	 * 255 rounds before they wrap: this runs before the pieces are parsed */
	const __m128i brace = _mm_set1_epi8('{'), zero = _mm_setzero_si128();
#define WS_BRACES(k) _mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)(p + i + 16 * (k))), brace)
	while (to - i >= 64) {
		__m128i a0 = zero, a1 = zero, a2 = zero, a3 = zero;
		for (unsigned r = 0; r < 255 && to - i >= 64; r++, i += 64) {
			a0 = _mm_sub_epi8(a0, WS_BRACES(0));
			a1 = _mm_sub_epi8(a1, WS_BRACES(1));
			a2 = _mm_sub_epi8(a2, WS_BRACES(2));
			a3 = _mm_sub_epi8(a3, WS_BRACES(3));
		}
		__m128i sum = _mm_add_epi64(_mm_add_epi64(_mm_sad_epu8(a0, zero), _mm_sad_epu8(a1, zero)),
					    _mm_add_epi64(_mm_sad_epu8(a2, zero), _mm_sad_epu8(a3, zero)));
		n += (size_t)_mm_cvtsi128_si32(sum) + (size_t)_mm_extract_epi16(sum, 4);
	}
#undef WS_BRACES
#endif
	for (; i < to; i++)
		n += p[i] == '{';
	return n;
}

/* The '{' of every piece but the last, counted by the threads that will
 * parse them, each piece in COUNT_SPLIT ranges so that neither thread
 * waits long for the other; the last piece's pages are only read in
 * (where the kernel has no MADV_POPULATE_READ, the parse faults them).
 * This is the first read of a large header's mapping, made without
 * MAP_POPULATE: the threads fault their ranges in at once. */
#define COUNT_SPLIT 4
typedef struct count_run {
	const uint8_t *p;
	const size_t *cut;   /* the pieces' starts; n of them */
	size_t n, len;
	_Atomic uint64_t left; /* the ranges not taken, piece * COUNT_SPLIT + j */
	size_t braces[PAR_MAX_PIECES * COUNT_SPLIT];
} count_run;

static void
count_worker(void *arg, unsigned worker)
{
	count_run *r = arg;
	size_t i;
	while (ends_take(&r->left, !worker, &i)) {
		size_t k = i / COUNT_SPLIT, j = i % COUNT_SPLIT;
		size_t from = r->cut[k], to = k + 1 < r->n ? r->cut[k + 1] : r->len;
		size_t step = (to - from) / COUNT_SPLIT;
		size_t a = from + j * step, b = j + 1 == COUNT_SPLIT ? to : a + step;
		ws_populate_read(r->p + a, b - a);
		if (k + 1 < r->n)
			r->braces[i] = braces_in(r->p, a, b);
	}
}

/* The pieces a header of len bytes is scanned in (< 2: serially) and the
 * helpers that scan them beside the caller. */
static size_t
split_pieces(size_t len, size_t *helpers)
{
	size_t n = len / (ws_st_parallel.min_piece ? ws_st_parallel.min_piece : 1);
	*helpers = 0;
	if (n < 2)
		return 0; /* every small shard: no system call to count CPUs */
	/* two pieces a thread: a helper the scheduler runs late leaves the
	 * caller at most a piece to wait for, not half the header */
	size_t threads = cpus(), c = ws_st_parallel.pieces ? ws_st_parallel.pieces : 2 * threads;
	if (threads < 2 && !ws_st_parallel.pieces)
		return 0;
	if (n > c)
		n = c;
	if (n > PAR_MAX_PIECES)
		n = PAR_MAX_PIECES;
	if (n < 2)
		return 0;
	*helpers = (n < threads ? n : threads) - 1;
	return n;
}

/* Whether the data ranges read so far make one chain from 0 within the
 * file, as writers lay them out: then every offset is set and nothing is
 * left to sort or check against another. */
static bool
one_chain(const scan *s)
{
	return !s->chain_broken && (!s->chain_n || (!s->chain_first && s->chain_end <= s->data_len));
}

/* 0: parsed, the tensor count in ev->n (the entries are not kept: the
 * ranges are one chain); 1: not done (too small, a bad guess, an error,
 * ranges that are no chain): parse serially; -1: out of memory. */
static int
scan_header_parallel(scan *s0, uint32_t file_idx, st_vec *ev)
{
	ws_model *m = s0->m;
	size_t helpers, n = split_pieces(s0->len, &helpers);
	if (n < 2)
		return 1;

	piece pcs[PAR_MAX_PIECES];
	memset(pcs, 0, sizeof pcs);
	piece_run pr = {.pcs = pcs, .left = (uint64_t)n << 32 | 1, .wm = {m}};
	size_t cut[PAR_MAX_PIECES + 1] = {0};
	for (size_t k = 1; k < n; k++) {
		cut[k] = find_cut(s0->p, s0->len, k * (s0->len / n));
		if (!cut[k] || cut[k] <= cut[k - 1])
			return 1;
	}
	uint64_t first_tensor = m->n_tensors, first_meta = m->n_meta;
	int rc = 1;
	/* Slots: each piece but the last as many as its '{'.  The name set
	 * is sized for twice those and a guess at the last piece's (100
	 * bytes a tensor), and the last piece gets what keeps the set at most
	 * 3/4 full (or its bytes' bound, if less): its count needs no pass. */
	size_t room[PAR_MAX_PIECES], total = 0, last_len = s0->len - cut[n - 1];
	count_run cr = {.p = s0->p, .cut = cut, .n = n, .len = s0->len,
			.left = (uint64_t)(n * COUNT_SPLIT) << 32};
	ws_team_run((unsigned)helpers, count_worker, &cr);
	for (size_t k = 0; k + 1 < n; k++) {
		room[k] = 0;
		for (size_t j = 0; j < COUNT_SPLIT; j++)
			room[k] += cr.braces[k * COUNT_SPLIT + j];
		size_t most = WS_ST_MAX_TENSORS(cut[k + 1] - cut[k]);
		if (room[k] > most)
			room[k] = most;
	}
	/* The first piece's '{' count holds the header's own and, when it
	 * comes first as writers put it, __metadata__'s: without them the
	 * second piece starts right where the first ends and the join moves
	 * nothing.  (A count too small sends the header to the serial scan,
	 * never to a wrong result.) */
	static const char meta[] = "\"__metadata__\":{";
	size_t o = 0;
	while (o < s0->len && is_blank(s0->p[o]))
		o++;
	if (room[0] && o < s0->len && s0->p[o] == '{') {
		room[0]--;
		for (o++; o < s0->len && is_blank(s0->p[o]); o++)
			;
		if (room[0] && s0->len - o >= sizeof meta - 1 && !memcmp(s0->p + o, meta, sizeof meta - 1))
			room[0]--;
	}
	for (size_t k = 0; k + 1 < n; k++)
		total += room[k];
	size_t set_cap = 1024;
	while (set_cap / 2 < total + last_len / 100 + 1)
		set_cap *= 2;
	if (set_cap > (size_t)1 << 31)
		return 1; /* slot numbers in 32-bit slots (no header under the limit comes near) */
	room[n - 1] = set_cap / 4 * 3 - total;
	if (room[n - 1] > WS_ST_MAX_TENSORS(last_len))
		room[n - 1] = WS_ST_MAX_TENSORS(last_len);
	total += room[n - 1];
	for (size_t k = 0; k < n; k++) {
		piece *pc = &pcs[k];
		pc->s = (scan){.p = s0->p, .len = s0->len, .pos = cut[k], .base = s0->base,
			       .file = s0->file, .m = m, .err = &pc->err, .first = first_tensor,
			       .data_len = s0->data_len};
		pc->file_idx = file_idx;
		pc->stop = k + 1 < n ? cut[k + 1] : 0;
		pc->first = k == 0;
	}
	for (size_t w = 1; w <= helpers; w++)
		if (!(pr.wm[w] = ws_model_new(NULL))) {
			rc = -1;
			goto out;
		}
	/* all memory before the threads start: a mapping made while another
	 * thread takes page faults stalls both (mmap_lock).  Any thread may
	 * run all but piece 0: each arena is reserved for the whole header
	 * (address space; only what is written is memory).  The name set is
	 * the first thing in the caller's arena: with piece 0's names after
	 * it, one huge page on this header. */
	st_names ns = {.mask = (uint32_t)(set_cap - 1)};
	size_t set_bytes = set_cap * sizeof *ns.slots;
	for (size_t w = 0; w <= helpers; w++)
		if (ws_model_reserve_arena(pr.wm[w], (w ? s0->len - cut[1] : s0->len) / 4 * 3 +
							 (w ? 0 : set_bytes))) {
			rc = -1;
			goto out;
		}
	if (ws_model_reserve_tensors(m, total) || !(ns.slots = ws_model_alloc_zero(m, set_bytes))) {
		rc = -1;
		goto out;
	}
	ns.t = m->tensors + first_tensor;
	for (size_t k = 0, w = 0; k < n; w += room[k++]) {
		piece *pc = &pcs[k];
		pc->s.wt = m->tensors + first_tensor + w;
		pc->s.wbase = first_tensor + w;
		pc->s.wcap = room[k];
		pc->ns = ns;
		pc->s.ns = &pc->ns;
		pc->s.dcap = 16;
		if (!(pc->s.dims = malloc(pc->s.dcap * sizeof *pc->s.dims))) {
			rc = -1;
			goto out;
		}
	}
	ws_team_run((unsigned)helpers, piece_worker, &pr);
	for (size_t k = 0; k < n; k++)
		if (pcs[k].rc)
			goto out;

	/* join the pieces: each moves down to follow the one before (piece
	 * 0 is in place), and the arenas their names live in go to m */
	uint64_t at = first_tensor;
	for (size_t k = 0; k < n; k++) {
		const scan *s = &pcs[k].s;
		if (s->chain_n) {
			if (s->chain_broken || (s0->chain_n++ && s->chain_first != s0->chain_end))
				s0->chain_broken = true;
			if (s0->chain_n == 1)
				s0->chain_first = s->chain_first;
			s0->chain_end = s->chain_end;
		}
		if (s->wbase != at)
			memmove(m->tensors + at, s->wt, s->wn * sizeof *s->wt);
		at += s->wn;
	}
	/* ranges that are not one chain from 0 within the file need every
	 * entry sorted and checked: the serial scan keeps them */
	if (!one_chain(s0))
		goto out;
	for (size_t w = 1; w <= helpers; w++)
		ws_model_take_arena(m, pr.wm[w]);
	m->n_tensors = at;
	ev->n = at - first_tensor;
	rc = 0;
	s0->pos = s0->len;
	ws_st_parallel.done++;
out:
	for (size_t k = 0; k < n; k++) {
		free(pcs[k].s.sbuf);
		free(pcs[k].s.dims);
	}
	for (size_t w = 1; w <= helpers; w++)
		ws_model_free(pr.wm[w]);
	if (rc) {
		/* back to the state before: the serial scan starts over */
		vec_free(ev);
		m->n_tensors = first_tensor;
		m->n_meta = first_meta;
		s0->chain_n = 0;
		s0->chain_broken = false;
	}
	if (rc < 0)
		return ws_err_oom(s0->err, s0->file);
	return rc;
}

static int
scan_header(scan *s, uint32_t file_idx, st_vec *ev, bool may_split)
{
	int rc = may_split ? scan_header_parallel(s, file_idx, ev) : 1;
	return rc > 0 ? scan_header_serial(s, file_idx, ev) : rc;
}

static int parse_file(ws_model *m, ws_file *f, uint32_t idx, bool may_split, ws_error *err);

/* Enough of a file that is no safetensors to say what it is instead. */
#define SNIFF_BYTES 4096
/* The first read: the length and, for the small headers of a many-shard
 * checkpoint, the whole header in one syscall. */
#define FIRST_READ WS_ST_FIRST_READ

int
ws_safetensors_load(ws_model *m, const char *path, ws_error *err)
{
	return ws_safetensors_load_at(m, AT_FDCWD, path, path, err);
}

/* The length in the first bytes says how much of the file to keep (read
 * or, if large, mapped); a length that cannot be keeps enough to sniff. */
static uint64_t
header_want(const uint8_t *head, size_t got, uint64_t size)
{
	uint64_t want = size < SNIFF_BYTES ? size : SNIFF_BYTES;
	if (got >= 8) {
		uint64_t n = 0;
		for (int i = 7; i >= 0; i--)
			n = n << 8 | head[i];
		if (n <= ST_MAX_HEADER && 8 + n <= size)
			want = 8 + n;
	}
	return want;
}

/* File idx's header parsed from the got bytes read into head, which do
 * not outlive the call: a header that is all there is parsed in place and
 * not kept (the model copies names and metadata), a longer one is read or
 * mapped in full and kept as the file's. */
static int
parse_from(ws_model *m, uint32_t idx, const uint8_t *head, size_t got, ws_error *err)
{
	ws_file *f = &m->files[idx];
	uint64_t want = header_want(head, got, f->size);
	if (want > got) {
		/* a header to be scanned in pieces: its helpers start now,
		 * while it is mapped and cut */
		size_t helpers;
		if (want - 8 <= SIZE_MAX && split_pieces((size_t)(want - 8), &helpers) >= 2)
			ws_team_warm((unsigned)helpers);
		return ws_file_load_prefix(f, want, head, got, err) ? -1
		       : ws_safetensors_parse(m, idx, err);
	}
	f->map = head;
	f->map_len = want;
	int rc = ws_safetensors_parse(m, idx, err);
	f->map = NULL;
	f->map_len = 0;
	return rc;
}

int
ws_safetensors_load_at(ws_model *m, int dirfd, const char *name, const char *path,
		       ws_error *err)
{
	int idx = ws_model_open_file_at(m, dirfd, name, path, err);
	if (idx < 0)
		return -1;
	ws_file *f = &m->files[idx];
	uint8_t head[FIRST_READ];
	size_t got = f->size < FIRST_READ ? (size_t)f->size : FIRST_READ;
	if (ws_file_pread(f, head, got, 0, err))
		return -1;
	return parse_from(m, (uint32_t)idx, head, got, err);
}

bool
ws_safetensors_read_ahead(ws_st_ahead *a)
{
	ws_file f = {.fd = a->fd, .size = a->size, .path = ""};
	ws_error e;
	size_t got = a->size < FIRST_READ ? (size_t)a->size : FIRST_READ;
	if (ws_file_pread(&f, a->head, got, 0, &e))
		return false;
	a->len = got;
	uint64_t want = header_want(a->head, got, a->size);
	if (want <= got || want > WS_HEADER_READ_MAX)
		return true;
	if (ws_file_load_prefix(&f, want, a->head, got, &e))
		return false;
	a->more = (uint8_t *)f.map;
	a->len = (size_t)want;
	return true;
}

int
ws_safetensors_load_ahead(ws_model *m, ws_st_ahead *a, const char *path, ws_error *err)
{
	int idx = ws_model_adopt_fd(m, a->fd, a->size, path, err);
	a->fd = -1;
	if (idx < 0)
		return -1;
	ws_st_parallel.ahead++;
	ws_file *f = &m->files[idx];
	if (!a->parsed)
		return parse_from(m, (uint32_t)idx, a->more, a->len, err);
	/* parsed on the reading thread: its tensors and metadata, as this file's */
	ws_st_parallel.parsed++;
	m->format = WS_FORMAT_SAFETENSORS;
	f->header_bytes = f->data_start = a->header_bytes;
	f->tensor_count = a->nt;
	if (ws_model_reserve_tensors(m, a->nt))
		return ws_err_oom(err, path);
	ws_tensor *t = m->tensors + m->n_tensors;
	if (a->nt)
		memcpy(t, a->t, a->nt * sizeof *t);
	for (uint64_t i = 0; i < a->nt; i++)
		t[i].file = (uint32_t)idx;
	m->n_tensors += a->nt;
	for (uint64_t i = 0; i < a->nkv; i++) {
		ws_kv *kv = ws_model_push_kv(m);
		if (!kv)
			return ws_err_oom(err, path);
		*kv = a->kv[i];
		kv->file = (uint32_t)idx;
	}
	return 0;
}

bool
ws_safetensors_parse_ahead(ws_model *pm, ws_st_ahead *a)
{
	/* a header that did not fit is left whole to the loading thread */
	if (a->more || header_want(a->head, a->len, a->size) > a->len)
		return false;
	/* the tensors stay where they are parsed, for the loading thread to
	 * copy while this one goes on: the array must not move */
	uint64_t first = pm->n_tensors;
	if (ws_model_tensor_room(pm) < WS_ST_MAX_TENSORS(a->len))
		return false;
	const ws_tensor *before = pm->tensors;
	ws_file f = {.fd = -1, .size = a->size, .path = "", .map = a->head, .map_len = a->len};
	ws_error e;
	pm->n_meta = 0; /* the metadata is copied out: scratch */
	if (parse_file(pm, &f, 0, false, &e)) {
		pm->n_tensors = first;
		return false;
	}
	if (pm->tensors != before)
		abort(); /* cannot be: the room was there */
	ws_kv *kv = pm->n_meta ? ws_model_alloc(pm, pm->n_meta * sizeof *kv) : NULL;
	if (pm->n_meta && !kv) {
		pm->n_tensors = first;
		return false;
	}
	if (kv)
		memcpy(kv, pm->meta, pm->n_meta * sizeof *kv);
	a->t = pm->tensors + first;
	a->nt = pm->n_tensors - first;
	a->kv = kv;
	a->nkv = pm->n_meta;
	a->header_bytes = f.header_bytes;
	a->parsed = true;
	return true;
}

/* The header is parsed from map[0..map_len); a remote file's map is only
 * its fetched prefix, so data ranges are checked against size. */
int
ws_safetensors_parse(ws_model *m, uint32_t idx, ws_error *err)
{
	return parse_file(m, &m->files[idx], idx, true, err);
}

/* f is m's file idx, or (parsing ahead) a stand-in for it. */
static int
parse_file(ws_model *m, ws_file *f, uint32_t idx, bool may_split, ws_error *err)
{
	const char *path = f->path;
	uint64_t size = f->size;
	const uint8_t *p = f->map;

	m->format = WS_FORMAT_SAFETENSORS;
	uint64_t n = 0;
	for (int i = 7; i >= 0 && size >= 8 && f->map_len >= 8; i--)
		n = n << 8 | p[i];
	/* Only a file that cannot be safetensors gets a diagnosis: a pickle's
	 * first bytes are also a plausible small header length. */
	if ((size < 8 || n > ST_MAX_HEADER || 8 + n > size) &&
	    ws_sniff(path, p, f->map_len, size, err))
		return -1;
	if (size < 8)
		return ws_err_at(err, path, 0,
				 "file is %llu bytes, too small for the 8-byte header length",
				 (unsigned long long)size);
	if (n > ST_MAX_HEADER)
		return ws_err_at(err, path, 0,
				 "header length %llu exceeds the 100,000,000-byte limit "
				 "(not a safetensors file?)", (unsigned long long)n);
	if (8 + n > size)
		return ws_err_kind(ws_err_at(err, path, 0,
					     "header length %llu runs past the end of the %llu-byte file "
					     "(truncated)", (unsigned long long)n, (unsigned long long)size),
				   err, WS_ERRK_TRUNCATED);
	if (f->map_len < 8 || 8 + n > f->map_len) {
		ws_err_at(err, path, f->map_len,
			  "header of %llu bytes, only %llu fetched",
			  (unsigned long long)(8 + n), (unsigned long long)f->map_len);
		return WS_NEED_MORE;
	}
	f->header_bytes = 8 + n;
	f->data_start = 8 + n;

	uint64_t first_tensor = m->n_tensors;
	scan s = {.p = p + 8, .len = (size_t)n, .base = 8, .file = path, .m = m, .err = err,
		  .first = first_tensor, .data_len = size - (8 + n)};
	st_vec ev = {0};
	int rc = scan_header(&s, (uint32_t)idx, &ev, may_split);
	free(s.sbuf);
	free(s.dims);
	st_entry *entries = ev.v;
	size_t count = ev.n;
	if (rc) {
		vec_free(&ev);
		return -1;
	}
	f->tensor_count = count;
	uint64_t data_len = size - (8 + n), running = 0;
	/* As writers lay the data out, one range after the other from 0 and
	 * within the file: every offset is set, nothing to sort or report. */
	if (one_chain(&s)) {
		vec_free(&ev);
		running = count ? s.chain_end : 0;
		if (!ws_add_u64(8 + n, running, &f->expected_size))
			return ws_err_at(err, path, 8, "data offsets overflow");
		if (running != data_len)
			return ws_err_at(err, path, 8 + n + running,
					 "%llu trailing bytes after the last tensor's data",
					 (unsigned long long)(data_len - running));
		return 0;
	}

	/* Readers must sort by offsets (then ends): header order carries no
	 * meaning.  An entry ends t->bytes after its begin. */
	ws_tensor *ft = m->tensors + first_tensor;
	bool sorted = true; /* writers store them in order: skip the sort */
	for (size_t i = 1; i < count && sorted; i++) {
		const st_entry *a = &entries[i - 1], *b = &entries[i];
		sorted = a->begin < b->begin ||
			 (a->begin == b->begin && ft[a->tensor].bytes <= ft[b->tensor].bytes);
	}
	if (!sorted && sort_entries(ft, entries, count)) {
		vec_free(&ev);
		return ws_err_oom(err, path);
	}
	for (size_t i = 0; i < count; i++) {
		st_entry *e = &entries[i];
		ws_tensor *t = &ft[e->tensor];
		uint64_t end = e->begin + t->bytes; /* no overflow: scan_tensor */
		char nbuf[160];
		if (e->begin != running) {
			msg_name(t->name, t->name_len, nbuf, sizeof nbuf);
			rc = ws_err_at(err, path, e->at, e->begin < running
				       ? "tensor '%s': data [%llu, %llu) overlaps the previous tensor (which ends at %llu)"
				       : "tensor '%s': data [%llu, %llu) leaves a gap after byte %llu",
				       nbuf, (unsigned long long)e->begin,
				       (unsigned long long)end, (unsigned long long)running);
			break;
		}
		running = end;
		if (running > data_len && !m->keep_truncated) {
			msg_name(t->name, t->name_len, nbuf, sizeof nbuf);
			rc = ws_err_at(err, path, size,
				       "tensor '%s': data ends at byte %llu of the data section, "
				       "but the file holds only %llu data bytes (truncated)",
				       nbuf, (unsigned long long)running,
				       (unsigned long long)data_len);
			err->kind = WS_ERRK_TRUNCATED;
			break;
		}
		t->offset = 8 + n + e->begin;
	}
	vec_free(&ev);
	if (rc)
		return -1;
	if (!ws_add_u64(8 + n, running, &f->expected_size))
		return ws_err_at(err, path, 8, "data offsets overflow");
	if (running > data_len) {
		f->truncated_at = size;
		return 0; /* truncated, kept: ws_model_truncated says so */
	}
	if (running != data_len)
		return ws_err_at(err, path, 8 + n + running,
				 "%llu trailing bytes after the last tensor's data",
				 (unsigned long long)(data_len - running));
	return 0;
}
