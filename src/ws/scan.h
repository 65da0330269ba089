/*
 * ws/scan.h - are the values sane?  NaN, Inf, all-zero tensors and
 * min/max/mean/std of every float tensor.
 *
 * Data is read with pread into bounded per-thread buffers (never through
 * the mapping), so a file that shrinks under us is an error value.
 * Threads work over tensors.  What is read:
 *   F64 F32 F16 BF16                     every element
 *   F8_E4M3 F8_E5M2 (+ FNUZ) F8_E8M0     every element (by a 256-entry table)
 *   GGUF Q4_0 Q4_1 Q5_0 Q5_1 Q8_0 Q8_1   the f16 scales of each block only
 *   Q2_K Q3_K Q4_K Q5_K Q6_K             (d, and dmin/m where the block has one)
 * A big-endian GGUF is swapped on the fly.  Everything else (integers,
 * packed sub-byte floats, other quant blocks) is skipped with a reason.
 */
#ifndef WS_SCAN_H
#define WS_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ws/hash.h"
#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Per-thread read buffer: bounded memory whatever the tensor size. */
#define WS_SCAN_BUF (256u * 1024u)

enum ws_scan_state {
	WS_SCAN_DONE = 0,   /* values read */
	WS_SCAN_SKIPPED,    /* not a type scan reads: see skip_reason */
	WS_SCAN_ERROR,      /* read error or the file shrank: see err */
};

typedef struct ws_scan_tensor {
	uint64_t tensor;         /* index into the model's tensors */
	int state;               /* enum ws_scan_state */
	const char *skip_reason; /* static text when skipped */
	bool scales_only;        /* quant blocks: values are block scales */
	uint64_t values;         /* values examined (elements, or scales) */
	uint64_t nan, inf, zero; /* counts among them */
	uint64_t first_bad;      /* value index of the first NaN/Inf */
	double min, max;         /* over finite values (0 when none) */
	double mean, std;        /* population std over finite values */
} ws_scan_tensor;

typedef struct ws_scan {
	ws_scan_tensor *t;       /* one per model tensor, model order */
	size_t n;
	uint64_t scanned, skipped, all_zero, with_nan, with_inf;
	uint64_t bytes_read;
	ws_error err;            /* the first read error, when any */
	bool failed;             /* some tensor is WS_SCAN_ERROR */
} ws_scan;

typedef struct ws_scan_opts {
	unsigned threads;        /* 0 = online cores */
	ws_progress_fn progress; /* every ~100 ms from the calling thread */
	void *progress_ctx;
} ws_scan_opts;

/*
 * Scan every tensor of m.  Returns 0 (per-tensor states in out; a read
 * error sets out->failed and out->err and the scan goes on), or -1 with
 * err on OOM or when no thread could run.  Free with ws_scan_free().
 */
int ws_scan_model(const ws_model *m, const ws_scan_opts *o, ws_scan *out,
		  ws_error *err);
void ws_scan_free(ws_scan *s);

/*
 * The kernels, exposed for tests and benchmarks: fold n values into st
 * (values, nan, inf, zero, first_bad relative to `base`, min/max/mean/std
 * accumulated; call ws_scan_finish once at the end).  `swap`: the values
 * are byte-swapped (big-endian GGUF).
 */
typedef struct ws_scan_acc {
	uint64_t n, nan, inf, zero, first_bad, finite;
	bool have_bad;
	double min, max, mean, m2; /* Chan et al. pairwise combination */
} ws_scan_acc;

void ws_scan_acc_init(ws_scan_acc *a);
/* Fold raw values of dtype dt (a plain float dtype) into a; base is the
 * flat index of the first value. */
void ws_scan_values(ws_scan_acc *a, ws_dtype dt, const void *data, size_t n,
		    bool swap, uint64_t base);
void ws_scan_finish(const ws_scan_acc *a, ws_scan_tensor *out);

/* Why scan skips dtype dt, or NULL when it reads it (full or scales). */
const char *ws_scan_skip_reason(ws_dtype dt);

#ifdef __cplusplus
}
#endif
#endif
