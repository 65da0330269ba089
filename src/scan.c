/*
 * scan.c - NaN/Inf/all-zero detection and value statistics (scan).
 *
 * Values are converted a chunk at a time into a float (or double) buffer
 * and folded by branch-free lane loops the compiler can vectorize: BF16
 * becomes F32 by a shift, F16 by bit arithmetic, F8 by a 256-entry table.
 * Each chunk is summarized with two passes (mean, then squared deviations
 * from that mean) and chunks are merged with the pairwise formula of Chan,
 * Golub and LeVeque, so std never comes from sum(x^2) - n*mean^2.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "ws/scan.h"
#include "ws/util.h"

/* The kernels are built twice on x86-64, for AVX2 and for the baseline,
 * and each call takes the one the CPU can run (ws_cpu_avx2): twice the
 * lanes per instruction where the CPU has them, nothing required where it
 * does not.  Not an ifunc: libgcc's resolver runs CPUID at every start. */
#if defined(__x86_64__) && defined(__GNUC__)
#define WS_AVX2_KERNEL 1
#endif
#define WS_INLINE static inline __attribute__((always_inline))

/* Elements per chunk: the float buffer (4 KiB) stays in L1. */
#define CHUNK 1024
/* Independent lanes per accumulator: enough for 8-wide vectors twice. */
#define LANES 16

/* ==== dtype tables ==== */

/* Quantized blocks whose f16 scales scan reads: byte offsets inside one
 * block (ggml's block_* layouts). */
static const struct {
	ws_dtype dt;
	uint8_t n;
	uint16_t off[2];
} quant_scales[] = {
	{WS_DT_Q4_0, 1, {0, 0}},    /* d, qs[16] */
	{WS_DT_Q4_1, 2, {0, 2}},    /* d, m, qs[16] */
	{WS_DT_Q5_0, 1, {0, 0}},    /* d, qh[4], qs[16] */
	{WS_DT_Q5_1, 2, {0, 2}},    /* d, m, qh[4], qs[16] */
	{WS_DT_Q8_0, 1, {0, 0}},    /* d, qs[32] */
	{WS_DT_Q8_1, 2, {0, 2}},    /* d, s, qs[32] */
	{WS_DT_Q2_K, 2, {80, 82}},  /* scales[16], qs[64], d, dmin */
	{WS_DT_Q3_K, 1, {108, 0}},  /* hmask[32], qs[64], scales[12], d */
	{WS_DT_Q4_K, 2, {0, 2}},    /* d, dmin, scales[12], qs[128] */
	{WS_DT_Q5_K, 2, {0, 2}},    /* d, dmin, scales[12], qh[32], qs[128] */
	{WS_DT_Q6_K, 1, {208, 0}},  /* ql[128], qh[64], scales[16], d */
};

/* 8-bit floats: exponent/mantissa split, bias and how NaN/Inf are coded. */
enum f8_kind { F8_IEEE, F8_FN, F8_FNUZ, F8_E8M0 };
static const struct {
	ws_dtype dt;
	uint8_t mbits;
	int bias;
	enum f8_kind kind;
} f8_types[] = {
	{WS_DT_F8_E4M3, 3, 7, F8_FN},        /* S.1111.111 is NaN, no Inf */
	{WS_DT_F8_E5M2, 2, 15, F8_IEEE},     /* IEEE-like: Inf and NaN */
	{WS_DT_F8_E4M3FNUZ, 3, 8, F8_FNUZ},  /* 0x80 is NaN, no -0, no Inf */
	{WS_DT_F8_E5M2FNUZ, 2, 16, F8_FNUZ},
	{WS_DT_F8_E8M0, 0, 127, F8_E8M0},    /* 2^(e-127), 0xFF is NaN */
};

static const struct {
	uint32_t flag_or_dt; /* a dtype */
	const char *why;
} skip_reasons[] = {
	{WS_DT_I64, "integer type"}, {WS_DT_I32, "integer type"},
	{WS_DT_I16, "integer type"}, {WS_DT_I8, "integer type"},
	{WS_DT_U64, "integer type"}, {WS_DT_U32, "integer type"},
	{WS_DT_U16, "integer type"}, {WS_DT_U8, "integer type"},
	{WS_DT_BOOL, "boolean type"}, {WS_DT_C64, "complex type"},
	{WS_DT_F6_E2M3, "packed sub-byte floats"},
	{WS_DT_F6_E3M2, "packed sub-byte floats"},
	{WS_DT_F4, "packed sub-byte floats"},
	{WS_DT_MXFP4, "packed sub-byte floats"},
	{WS_DT_NVFP4, "packed sub-byte floats"},
};

static int
quant_index(ws_dtype dt)
{
	for (size_t i = 0; i < sizeof quant_scales / sizeof quant_scales[0]; i++)
		if (quant_scales[i].dt == dt)
			return (int)i;
	return -1;
}

static int
f8_index(ws_dtype dt)
{
	for (size_t i = 0; i < sizeof f8_types / sizeof f8_types[0]; i++)
		if (f8_types[i].dt == dt)
			return (int)i;
	return -1;
}

static bool
plain_float(ws_dtype dt)
{
	return dt == WS_DT_F64 || dt == WS_DT_F32 || dt == WS_DT_F16 ||
	       dt == WS_DT_BF16 || f8_index(dt) >= 0;
}

const char *
ws_scan_skip_reason(ws_dtype dt)
{
	if (plain_float(dt) || quant_index(dt) >= 0)
		return NULL;
	for (size_t i = 0; i < sizeof skip_reasons / sizeof skip_reasons[0]; i++)
		if (skip_reasons[i].flag_or_dt == (uint32_t)dt)
			return skip_reasons[i].why;
	const ws_dtype_info *di = ws_dtype_get(dt);
	if (di && (di->flags & WS_DTF_QUANT))
		return "quantized blocks with no f16 scale scan reads";
	return "not a float type";
}

/* ==== conversions (branch-free per element) ==== */

typedef union fbuf {
	float f[CHUNK];
	uint32_t u[CHUNK];
} fbuf;

static inline uint16_t
bswap16(uint16_t v)
{
	return (uint16_t)((v >> 8) | (v << 8));
}

static inline uint16_t
ld16(const uint8_t *p, bool swap)
{
	uint16_t v;
	memcpy(&v, p, 2);
	return swap ? bswap16(v) : v;
}

/* IEEE half bits -> float bits.  Subnormals go through a float subtract
 * (the classic magic-number trick); Inf/NaN get the full exponent. */
static inline uint32_t
half_to_bits(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t em = (uint32_t)(h & 0x7fffu) << 13;
	uint32_t exp = em & 0x0f800000u;
	union { uint32_t u; float f; } o;
	o.u = em + ((127u - 15u) << 23);
	o.u += exp == 0x0f800000u ? (128u - 16u) << 23 : 0;
	uint32_t sub = o.u + (1u << 23);
	union { uint32_t u; float f; } s = {.u = sub};
	s.f -= 6.103515625e-05f; /* 2^-14 */
	o.u = exp == 0 ? s.u : o.u;
	return o.u | sign;
}

/* BF16 is the top half of an F32: a shift. */
WS_INLINE void
conv_bf16(fbuf *b, const uint8_t *p, size_t n, bool swap)
{
	size_t i, full = n - n % LANES;
	if (swap) {
		for (i = 0; i < n; i++) {
			uint16_t h;
			memcpy(&h, p + 2 * i, 2);
			b->u[i] = (uint32_t)bswap16(h) << 16;
		}
		return;
	}
	for (i = 0; i < full; i += LANES)
		for (int k = 0; k < LANES; k++) {
			uint16_t h;
			memcpy(&h, p + 2 * (i + k), 2);
			b->u[i + k] = (uint32_t)h << 16;
		}
	for (; i < n; i++) {
		uint16_t h;
		memcpy(&h, p + 2 * i, 2);
		b->u[i] = (uint32_t)h << 16;
	}
}

WS_INLINE void
conv_f16(fbuf *b, const uint8_t *p, size_t n, bool swap)
{
	for (size_t i = 0; i < n; i++) {
		uint16_t h;
		memcpy(&h, p + 2 * i, 2);
		b->u[i] = half_to_bits(swap ? bswap16(h) : h);
	}
}

WS_INLINE void
conv_f32(fbuf *b, const uint8_t *p, size_t n, bool swap)
{
	memcpy(b->u, p, n * 4);
	if (swap)
		for (size_t i = 0; i < n; i++)
			b->u[i] = __builtin_bswap32(b->u[i]);
}

/* 2^e, exactly, for -149 <= e <= 127; a small integer times it is exact
 * too, which is all an 8-bit float needs (and no libm). */
static float
pow2f(int e)
{
	uint32_t bits = e >= -126 ? (uint32_t)(e + 127) << 23 : 1u << (e + 149);
	float f;
	memcpy(&f, &bits, sizeof f);
	return f;
}

static float
f8_value(int ti, unsigned byte)
{
	unsigned mb = f8_types[ti].mbits, eb = 7 - mb;
	int bias = f8_types[ti].bias;
	if (f8_types[ti].kind == F8_E8M0)
		return byte == 0xff ? NAN : pow2f((int)byte - 127);
	if (f8_types[ti].kind == F8_FNUZ && byte == 0x80)
		return NAN;
	float sign = byte & 0x80 ? -1.0f : 1.0f;
	unsigned e = (byte >> mb) & ((1u << eb) - 1), m = byte & ((1u << mb) - 1);
	if (f8_types[ti].kind == F8_IEEE && e == (1u << eb) - 1)
		return m ? NAN : sign * INFINITY;
	if (f8_types[ti].kind == F8_FN && e == (1u << eb) - 1 && m == (1u << mb) - 1)
		return NAN;
	if (e == 0)
		return sign * (float)m * pow2f(1 - bias - (int)mb);
	return sign * (float)(m | (1u << mb)) * pow2f((int)e - bias - (int)mb);
}

/* ==== the folding kernels ==== */

void
ws_scan_acc_init(ws_scan_acc *a)
{
	memset(a, 0, sizeof *a);
	a->min = INFINITY;
	a->max = -INFINITY;
}

/* Merge a chunk summary (count, mean, m2, min, max) into a.  F64 values
 * near DBL_MAX must not overflow an intermediate: the weights are applied
 * before the products, a first chunk is copied (inf * 0 would be NaN),
 * and means of opposite huge signs are averaged without their difference.
 * m2 itself saturates to +inf only when the true sum of squared
 * deviations is beyond double range (std above ~1e154). */
static void
merge(ws_scan_acc *a, uint64_t n, double mean, double m2, double mn, double mx)
{
	if (!n)
		return;
	double na = (double)a->finite, nb = (double)n, nt = na + nb;
	double d = mean - a->mean;
	if (!a->finite) {
		a->mean = mean;
		a->m2 = m2;
	} else if (isfinite(d)) {
		a->mean += d * (nb / nt);
		a->m2 += m2 + d * (na * nb / nt) * d;
	} else {
		a->mean = a->mean * (na / nt) + mean * (nb / nt);
		a->m2 = INFINITY;
	}
	a->finite += n;
	a->min = mn < a->min ? mn : a->min;
	a->max = mx > a->max ? mx : a->max;
}

static void
note_bad(ws_scan_acc *a, uint64_t idx)
{
	if (!a->have_bad) {
		a->have_bad = true;
		a->first_bad = idx;
	}
}

/* Finite values only: sum, zeros, min, max, then squared deviations from
 * the chunk mean.  Every lane loop is straight-line float arithmetic
 * (selects, no branches, no int/float mixing), so it vectorizes. */
WS_INLINE void
fold_finite(ws_scan_acc *a, const float *x, size_t n)
{
	float s[LANES] = {0}, z[LANES] = {0}, q[LANES] = {0}, mn[LANES], mx[LANES];
	size_t i, full = n - n % LANES;

	if (!n)
		return;
	for (int k = 0; k < LANES; k++)
		mn[k] = mx[k] = x[0];
	for (i = 0; i < full; i += LANES)
		for (int k = 0; k < LANES; k++) {
			float v = x[i + k];
			s[k] += v;
			z[k] += v == 0.0f ? 1.0f : 0.0f;
			mn[k] = v < mn[k] ? v : mn[k];
			mx[k] = v > mx[k] ? v : mx[k];
		}
	for (; i < n; i++) {
		s[0] += x[i];
		z[0] += x[i] == 0.0f ? 1.0f : 0.0f;
		mn[0] = x[i] < mn[0] ? x[i] : mn[0];
		mx[0] = x[i] > mx[0] ? x[i] : mx[0];
	}
	double sum = 0, zeros = 0, lo = mn[0], hi = mx[0];
	for (int k = 0; k < LANES; k++) {
		sum += s[k];
		zeros += z[k];
		lo = mn[k] < lo ? mn[k] : lo;
		hi = mx[k] > hi ? mx[k] : hi;
	}
	float mean = (float)(sum / (double)n);
	for (i = 0; i < full; i += LANES)
		for (int k = 0; k < LANES; k++) {
			float d = x[i + k] - mean;
			q[k] += d * d;
		}
	for (; i < n; i++) {
		float d = x[i] - mean;
		q[0] += d * d;
	}
	double m2 = 0;
	for (int k = 0; k < LANES; k++)
		m2 += q[k];
	/* m2 is about the float-rounded mean; move it to the exact one */
	double dm = sum / (double)n - (double)mean;
	m2 -= (double)n * dm * dm;
	if (!isfinite(sum) || !isfinite(m2)) {
		/* beyond float range (|x| or x^2 near 3.4e38): redo in double */
		double ds = 0;
		for (i = 0; i < n; i++)
			ds += x[i];
		double dmean = ds / (double)n;
		m2 = 0;
		for (i = 0; i < n; i++)
			m2 += ((double)x[i] - dmean) * ((double)x[i] - dmean);
		sum = ds;
	}
	a->zero += (uint64_t)zeros;
	merge(a, n, sum / (double)n, m2 < 0 ? 0 : m2, lo, hi);
}

/* One chunk of floats (bits in b->u).  NaN and Inf are rare: count them
 * with an integer lane loop, and only a chunk that has some takes the
 * scalar path that counts, locates and drops them. */
WS_INLINE uint32_t
count_special(const fbuf *b, size_t n)
{
	uint32_t sp[LANES] = {0}, special = 0;
	size_t i, full = n - n % LANES;
	for (i = 0; i < full; i += LANES)
		for (int k = 0; k < LANES; k++)
			sp[k] += (b->u[i + k] & 0x7f800000u) == 0x7f800000u;
	for (; i < n; i++)
		sp[0] += (b->u[i] & 0x7f800000u) == 0x7f800000u;
	for (int k = 0; k < LANES; k++)
		special += sp[k];
	return special;
}

WS_INLINE void
fold_f32(ws_scan_acc *a, fbuf *b, size_t n, uint64_t base, uint32_t special)
{
	size_t i;

	a->n += n;
	if (special) {
		size_t j = 0;
		for (i = 0; i < n; i++) {
			uint32_t u = b->u[i];
			if ((u & 0x7f800000u) != 0x7f800000u) {
				b->u[j++] = u;
				continue;
			}
			if (u & 0x007fffffu)
				a->nan++;
			else
				a->inf++;
			note_bad(a, base + i);
		}
		n = j;
	}
	fold_finite(a, b->f, n);
}

/* F64: the same in double, chunk by chunk. */
WS_INLINE void
fold_f64(ws_scan_acc *a, const uint8_t *p, size_t n, bool swap, uint64_t base)
{
	for (size_t off = 0; off < n; off += CHUNK / 2) {
		size_t m = n - off < CHUNK / 2 ? n - off : CHUNK / 2;
		uint64_t u[CHUNK / 2];
		double x[CHUNK / 2];
		memcpy(u, p + off * 8, m * 8);
		for (size_t i = 0; i < m; i++) {
			u[i] = swap ? __builtin_bswap64(u[i]) : u[i];
			memcpy(&x[i], &u[i], 8);
		}
		uint64_t fin = 0;
		double sum = 0, lo = INFINITY, hi = -INFINITY;
		for (size_t i = 0; i < m; i++) {
			bool special = (u[i] & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
			bool mant = (u[i] & 0x000fffffffffffffull) != 0;
			a->nan += special && mant;
			a->inf += special && !mant;
			a->zero += x[i] == 0.0;
			if (special) {
				note_bad(a, base + off + i);
				continue;
			}
			fin++;
			sum += x[i];
			lo = x[i] < lo ? x[i] : lo;
			hi = x[i] > hi ? x[i] : hi;
		}
		a->n += m;
		if (!fin)
			continue;
		double mean = sum / (double)fin, m2 = 0;
		if (!isfinite(sum)) {
			/* finite values near DBL_MAX: sum them scaled by a
			 * power of two (exact), which 512 of them cannot
			 * overflow, and scale the mean back */
			double ss = 0;
			for (size_t i = 0; i < m; i++) {
				bool special = (u[i] & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
				ss += special ? 0.0 : x[i] * 0x1p-16;
			}
			mean = ss / (double)fin * 0x1p16;
			/* rounding at DBL_MAX may step past the range */
			mean = mean < lo ? lo : mean > hi ? hi : mean;
		}
		for (size_t i = 0; i < m; i++) {
			bool special = (u[i] & 0x7ff0000000000000ull) == 0x7ff0000000000000ull;
			double d = special ? 0.0 : x[i] - mean;
			m2 += d * d;
		}
		merge(a, fin, mean, m2, lo, hi);
	}
}

WS_INLINE void
scan_values(ws_scan_acc *a, ws_dtype dt, const void *data, size_t n, bool swap, uint64_t base)
{
	const uint8_t *p = data;
	fbuf b;
	float lut[256];
	int f8 = f8_index(dt);

	if (dt == WS_DT_F64) {
		fold_f64(a, p, n, swap, base);
		return;
	}
	if (f8 >= 0)
		for (unsigned v = 0; v < 256; v++)
			lut[v] = f8_value(f8, v);
	for (size_t off = 0; off < n; off += CHUNK) {
		size_t m = n - off < CHUNK ? n - off : CHUNK;
		if (dt == WS_DT_BF16)
			conv_bf16(&b, p + off * 2, m, swap);
		else if (dt == WS_DT_F16)
			conv_f16(&b, p + off * 2, m, swap);
		else if (dt == WS_DT_F32)
			conv_f32(&b, p + off * 4, m, swap);
		else if (f8 >= 0)
			for (size_t i = 0; i < m; i++)
				b.f[i] = lut[p[off + i]];
		else
			return; /* not a plain float type: nothing to fold */
		fold_f32(a, &b, m, base + off, count_special(&b, m));
	}
}

#ifdef WS_AVX2_KERNEL
__attribute__((target("avx2"))) static void
scan_values_avx2(ws_scan_acc *a, ws_dtype dt, const void *data, size_t n, bool swap,
		 uint64_t base)
{
	scan_values(a, dt, data, n, swap, base);
}
#endif

void
ws_scan_values(ws_scan_acc *a, ws_dtype dt, const void *data, size_t n,
	       bool swap, uint64_t base)
{
#ifdef WS_AVX2_KERNEL
	if (ws_cpu_avx2()) {
		scan_values_avx2(a, dt, data, n, swap, base);
		return;
	}
#endif
	scan_values(a, dt, data, n, swap, base);
}

void
ws_scan_finish(const ws_scan_acc *a, ws_scan_tensor *out)
{
	out->values = a->n;
	out->nan = a->nan;
	out->inf = a->inf;
	out->zero = a->zero;
	out->first_bad = a->first_bad;
	if (a->finite) {
		out->min = a->min;
		out->max = a->max;
		out->mean = a->mean;
		out->std = __builtin_sqrt(a->m2 / (double)a->finite); /* inline: -fno-math-errno */
	} else {
		out->min = out->max = out->mean = out->std = 0;
	}
}

/* ==== the model scan: threads over tensors ==== */

typedef struct pool {
	const ws_model *m;
	ws_scan *s;
	uint64_t *order;
	size_t n;
	atomic_size_t next;
	atomic_uint running;
	atomic_uint_fast64_t done;
	pthread_mutex_t lock;
} pool;

static void
set_error(pool *p, ws_scan_tensor *st, const ws_error *e)
{
	st->state = WS_SCAN_ERROR;
	pthread_mutex_lock(&p->lock);
	if (!p->s->failed) {
		p->s->failed = true;
		p->s->err = *e;
	}
	pthread_mutex_unlock(&p->lock);
}

static void
scan_tensor(pool *p, uint64_t ti, uint8_t *buf)
{
	const ws_tensor *t = &p->m->tensors[ti];
	const ws_file *f = &p->m->files[t->file];
	ws_scan_tensor *st = &p->s->t[ti];
	bool swap = f->big_endian;
	const ws_dtype_info *di = ws_dtype_get(t->dtype);
	int qi = quant_index(t->dtype);
	ws_scan_acc a;
	ws_error e = {0};

	st->tensor = ti;
	if (!di || (st->skip_reason = ws_scan_skip_reason(t->dtype)) != NULL) {
		st->state = WS_SCAN_SKIPPED;
		if (!st->skip_reason)
			st->skip_reason = "unknown type";
		return;
	}
	st->scales_only = qi >= 0;
	ws_scan_acc_init(&a);
	/* whole elements (or blocks) per read */
	uint64_t unit = di->block_bytes, step = WS_SCAN_BUF / unit * unit;
	for (uint64_t pos = 0; pos < t->bytes; pos += step) {
		size_t len = (size_t)(t->bytes - pos < step ? t->bytes - pos : step);
		if (ws_file_pread(f, buf, len, t->offset + pos, &e)) {
			set_error(p, st, &e);
			return;
		}
		atomic_fetch_add(&p->done, len);
		if (qi < 0) {
			ws_scan_values(&a, t->dtype, buf, len / unit, swap, pos / unit);
			continue;
		}
		/* block scales: gather the f16s, fold them as F16 values */
		uint64_t nb = len / unit, first_block = pos / unit;
		uint16_t sc[2 * CHUNK / 2];
		for (uint64_t b0 = 0; b0 < nb; b0 += CHUNK / 2) {
			uint64_t k = nb - b0 < CHUNK / 2 ? nb - b0 : CHUNK / 2, n = 0;
			for (uint64_t j = 0; j < k; j++)
				for (unsigned s = 0; s < quant_scales[qi].n; s++)
					sc[n++] = ld16(buf + (b0 + j) * unit + quant_scales[qi].off[s], swap);
			ws_scan_acc before = a;
			ws_scan_values(&a, WS_DT_F16, sc, (size_t)n, false, 0);
			if (a.have_bad && !before.have_bad) {
				/* a scale index -> the flat index of its block's first element */
				uint64_t blk = first_block + b0 + a.first_bad / quant_scales[qi].n;
				a.first_bad = blk * di->block;
			}
		}
	}
	ws_scan_finish(&a, st);
	st->state = WS_SCAN_DONE;
}

static void *
worker(void *arg)
{
	pool *p = arg;
	uint8_t *buf = aligned_alloc(64, WS_SCAN_BUF);
	for (;;) {
		size_t i = atomic_fetch_add(&p->next, 1);
		if (i >= p->n)
			break;
		uint64_t ti = p->order[i];
		if (!buf) {
			ws_error e = {0};
			ws_err_oom(&e, p->m->files[p->m->tensors[ti].file].path);
			set_error(p, &p->s->t[ti], &e);
			continue;
		}
		scan_tensor(p, ti, buf);
	}
	free(buf);
	atomic_fetch_sub(&p->running, 1);
	return NULL;
}

/* Largest tensor first; ctx is the tensor array (qsort_r: no shared
 * state between concurrent scans). */
static int
by_size_desc(const void *x, const void *y, void *ctx)
{
	const ws_tensor *sort_t = ctx;
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
	if (sort_t[a].bytes != sort_t[b].bytes)
		return sort_t[a].bytes > sort_t[b].bytes ? -1 : 1;
	return a < b ? -1 : 1;
}

int
ws_scan_model(const ws_model *m, const ws_scan_opts *o, ws_scan *out, ws_error *err)
{
	ws_scan_opts none = {0};
	pool p = {.m = m, .s = out, .n = (size_t)m->n_tensors};
	pthread_t tid[256];
	unsigned threads, started = 0;
	uint64_t total = 0;

	if (!o)
		o = &none;
	memset(out, 0, sizeof *out);
	out->n = (size_t)m->n_tensors;
	out->t = calloc(out->n ? out->n : 1, sizeof *out->t);
	p.order = malloc((out->n ? out->n : 1) * sizeof *p.order);
	if (!out->t || !p.order) {
		free(p.order);
		ws_scan_free(out);
		return ws_err_oom(err, m->path);
	}
	for (size_t i = 0; i < out->n; i++) {
		p.order[i] = i;
		if (!ws_scan_skip_reason(m->tensors[i].dtype))
			ws_add_u64(total, m->tensors[i].bytes, &total);
	}
	/* biggest first: the last thread to finish has the smallest tail */
	qsort_r(p.order, out->n, sizeof *p.order, by_size_desc, (void *)m->tensors);
	pthread_mutex_init(&p.lock, NULL);

	threads = o->threads ? o->threads : ws_hash_default_threads();
	if (threads > 256)
		threads = 256;
	if (threads > out->n)
		threads = out->n ? (unsigned)out->n : 1;
	atomic_store(&p.running, threads);
	for (unsigned t = 0; t < threads; t++) {
		if (pthread_create(&tid[t], NULL, worker, &p) != 0)
			break;
		started++;
	}
	if (started < threads)
		atomic_fetch_sub(&p.running, threads - started);
	if (!started) {
		atomic_store(&p.running, 1);
		worker(&p);
	}
	if (o->progress) {
		struct timespec ts = {0, 100 * 1000 * 1000};
		while (atomic_load(&p.running) > 0) {
			o->progress(o->progress_ctx, atomic_load(&p.done), total);
			nanosleep(&ts, NULL);
		}
		o->progress(o->progress_ctx, atomic_load(&p.done), total);
	}
	for (unsigned t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	pthread_mutex_destroy(&p.lock);
	free(p.order);

	out->bytes_read = atomic_load(&p.done);
	for (size_t i = 0; i < out->n; i++) {
		const ws_scan_tensor *st = &out->t[i];
		out->scanned += st->state == WS_SCAN_DONE;
		out->skipped += st->state == WS_SCAN_SKIPPED;
		out->with_nan += st->state == WS_SCAN_DONE && st->nan;
		out->with_inf += st->state == WS_SCAN_DONE && st->inf;
		out->all_zero += st->state == WS_SCAN_DONE && st->values && st->zero == st->values;
	}
	return 0;
}

void
ws_scan_free(ws_scan *s)
{
	if (!s)
		return;
	free(s->t);
	s->t = NULL;
	s->n = 0;
}
