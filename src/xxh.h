/*
 * xxh.h - xxHash, from Debian's libxxhash-dev header, built inline
 * (XXH_INLINE_ALL): no shared library to load at every start (about 2% of
 * a 191-shard count), and the short keys of a hash set hashed without a
 * call.  The bulk XXH3-128 update is built three times on x86-64, for
 * AVX-512 (xxh_avx512.c), AVX2 (xxh_avx2.c) and the baseline, and each call
 * takes the best the CPU runs, as libxxhash's own dispatch would.
 */
#ifndef WS_XXH_H
#define WS_XXH_H

#define XXH_INLINE_ALL
#include <xxhash.h>

XXH_errorcode ws_xxh3_128_update(XXH3_state_t *s, const void *p, size_t n);

#endif
