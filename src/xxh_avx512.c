/* xxh_avx512.c - built with -mavx512f on x86-64: xxHash's AVX-512 loop,
 * as xxh_avx2.c is its AVX2 one (picked in xxh.c). */
#include "xxh.h"

XXH_errorcode ws_xxh3_128_update_avx512(XXH3_state_t *s, const void *p, size_t n);

XXH_errorcode
ws_xxh3_128_update_avx512(XXH3_state_t *s, const void *p, size_t n)
{
	return XXH3_128bits_update(s, p, n);
}
