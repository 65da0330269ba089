/* xxh.c - the XXH3-128 update, AVX-512 or AVX2 where the CPU has it (see
 * xxh.h). */
#include <stdatomic.h>

#include "xxh.h"

#if defined(WS_XXH_AVX2) && defined(__GLIBC__) && defined(__has_include)
#if __has_include(<sys/platform/x86.h>)
#include <sys/platform/x86.h>
#define WS_XXH_PICK 1
#endif
#endif

typedef XXH_errorcode update_fn(XXH3_state_t *, const void *, size_t);
XXH_errorcode ws_xxh3_128_update_avx2(XXH3_state_t *s, const void *p, size_t n);
XXH_errorcode ws_xxh3_128_update_avx512(XXH3_state_t *s, const void *p, size_t n);

static XXH_errorcode
update_base(XXH3_state_t *s, const void *p, size_t n)
{
	return XXH3_128bits_update(s, p, n);
}

XXH_errorcode
ws_xxh3_128_update(XXH3_state_t *s, const void *p, size_t n)
{
	static update_fn *_Atomic picked;
	update_fn *fn = atomic_load_explicit(&picked, memory_order_relaxed);
	if (!fn) {
		fn = update_base;
#ifdef WS_XXH_PICK
		/* glibc's record of the CPU: no CPUID of our own */
		if (CPU_FEATURE_ACTIVE(AVX512F))
			fn = ws_xxh3_128_update_avx512;
		else if (CPU_FEATURE_ACTIVE(AVX2))
			fn = ws_xxh3_128_update_avx2;
#endif
		atomic_store_explicit(&picked, fn, memory_order_relaxed);
	}
	return fn(s, p, n);
}
