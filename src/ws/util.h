/*
 * ws/util.h - overflow-checked arithmetic, output escaping,
 * number formatting.  Small helpers every module shares.
 */
#ifndef WS_UTIL_H
#define WS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* true on success; false when the result would overflow. */
static inline bool ws_add_u64(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_add_overflow(a, b, r);
}
static inline bool ws_mul_u64(uint64_t a, uint64_t b, uint64_t *r)
{
	return !__builtin_mul_overflow(a, b, r);
}
/* v == floor(v), without libm: NaN is not whole, infinities are. */
static inline bool ws_is_whole(double v)
{
	if (!(__builtin_fabs(v) < 0x1p52))
		return v == v; /* every double this large is whole */
	return (double)(int64_t)v == v;
}

/* "8,030,261,248" into buf (at least 27 bytes). */
char *ws_fmt_commas(uint64_t v, char *buf, size_t len);
/* "8.03B" (3 significant digits; K M B T) into buf (at least 16 bytes). */
char *ws_fmt_human(uint64_t v, char *buf, size_t len);
/* "1.50 GiB" style byte size. */
char *ws_fmt_bytes(uint64_t v, char *buf, size_t len);
/* A progress line's time left at the rate so far ("12 s left", "3 min
 * left", "1.5 h left"); "" until done > 0 and once done >= total. */
void ws_fmt_eta(uint64_t done, uint64_t total, double secs, char *buf, size_t len);

/*
 * A count with an optional suffix, as people write them: decimal for
 * parameters ("8.03B" = 8,030,000,000; K M B T), binary for token counts
 * when binary is set ("8k" = 8,192; k m g).  A fraction must come out
 * whole.  *half_ulp, when not NULL, is half a unit of the last digit given
 * (the rounding "8.03B" stands for: 5,000,000), 0 for a plain integer.
 * false on anything else, or on overflow.
 */
bool ws_parse_count(const char *s, bool binary, uint64_t *value, uint64_t *half_ulp);

/* Is s[0..len) valid UTF-8 with no NUL and no surrogates/overlongs? */
bool ws_utf8_valid(const char *s, size_t len);

/*
 * Text output of untrusted bytes: control characters, DEL, ESC and
 * invalid UTF-8 become \xNN; a backslash becomes \\.  Valid UTF-8 passes.
 */
void ws_fput_escaped(FILE *f, const char *s, size_t len);
/* The same into a malloc'd NUL-terminated string (NULL on OOM). */
char *ws_escape_text(const char *s, size_t len);
/* Like ws_escape_text but a backslash passes as it is: safe to apply to
 * text that may already hold escaped names (finding messages). */
char *ws_sanitize_text(const char *s, size_t len);

#ifdef __cplusplus
}
#endif
#endif
