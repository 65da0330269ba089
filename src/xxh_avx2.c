/* xxh_avx2.c - built with -mavx2 on x86-64: xxHash's AVX2 loop. Called only
 * where the CPU has AVX2 (xxh.c); the state is the same as the baseline's. */
#include "xxh.h"

XXH_errorcode ws_xxh3_128_update_avx2(XXH3_state_t *s, const void *p, size_t n);

XXH_errorcode
ws_xxh3_128_update_avx2(XXH3_state_t *s, const void *p, size_t n)
{
	return XXH3_128bits_update(s, p, n);
}
