/* xxh.c - the XXH3-128 update, AVX-512 or AVX2 where the CPU has it (see
 * xxh.h). */
#include "internal.h"
#include "xxh.h"

XXH_errorcode ws_xxh3_128_update_avx2(XXH3_state_t *s, const void *p, size_t n);
XXH_errorcode ws_xxh3_128_update_avx512(XXH3_state_t *s, const void *p, size_t n);

XXH_errorcode
ws_xxh3_128_update(XXH3_state_t *s, const void *p, size_t n)
{
#ifdef WS_XXH_AVX2
	if (ws_cpu_avx512f())
		return ws_xxh3_128_update_avx512(s, p, n);
	if (ws_cpu_avx2())
		return ws_xxh3_128_update_avx2(s, p, n);
#endif
	return XXH3_128bits_update(s, p, n);
}
