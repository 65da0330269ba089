/*
 * ws/diff.h - what changed between two checkpoints.
 *
 * Two models of the same format and byte order are compared by tensor
 * name: only in A, only in B, dtype, shape or content changed (content by
 * per-tensor XXH3-128, streamed with pread on a thread pool, so sharding
 * does not matter).  Across formats or byte orders (a Hugging Face
 * checkpoint against its GGUF conversion) the comparison is structural:
 * tensors are matched by (role, layer, expert, kind) and their logical
 * shapes compared; what a converter is known to do (permute q/k rows,
 * fuse or split projections, stack experts, drop or add rotary buffers,
 * change dtypes) is reported as info, not as a difference.
 *
 * Both models must have been through ws_model_analyze() (roles).
 */
#ifndef WS_DIFF_H
#define WS_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "ws/hash.h"
#include "ws/model.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cJSON;

enum ws_diff_kind {
	WS_DIFF_ONLY_A = 0,  /* a: the tensor; b: NULL */
	WS_DIFF_ONLY_B,      /* a: NULL; b: the tensor */
	WS_DIFF_DTYPE,       /* same name, dtype differs (shape may too) */
	WS_DIFF_SHAPE,       /* same name or structural key, shape differs */
	WS_DIFF_CONTENT,     /* same name, dtype and shape; bytes differ */
	WS_DIFF_ELEMENTS,    /* structural: a (role, layer) group whose
	                      * element totals differ (fused/split sides) */
	WS_DIFF_KIND_COUNT
};

/* "only-in-a", "only-in-b", "dtype", "shape", "content", "elements". */
const char *ws_diff_kind_name(int kind);

typedef struct ws_diff_item {
	int kind;                /* enum ws_diff_kind */
	const ws_tensor *a, *b;  /* into the models; either may be NULL */
	/* WS_DIFF_ELEMENTS */
	ws_role role;
	int32_t layer;
	uint64_t a_elements, b_elements;
} ws_diff_item;

/* Per-role totals of both sides (logical parameters; elements for the
 * buffer and quant_aux roles, which hold no parameters). */
typedef struct ws_diff_role {
	uint64_t a_params, b_params;
	uint64_t a_tensors, b_tensors;
	const ws_tensor *a_rep, *b_rep; /* a typical tensor: lowest layer, weight */
} ws_diff_role;

typedef struct ws_diff_info {
	const char *code;        /* static: "permuted-qk", "fused-or-split", ... */
	char *message;           /* escaped, printable */
	uint64_t count;          /* tensors or groups it covers */
} ws_diff_info;

typedef struct ws_diff {
	bool structural;         /* formats or byte orders differ */
	ws_diff_item *items;
	size_t n_items, cap_items;
	ws_diff_role roles[WS_ROLE_COUNT];
	ws_diff_info *info;
	size_t n_info, cap_info;
	uint64_t matched;        /* tensors paired (by name or by key) */
	uint64_t hashed;         /* pairs whose content was compared */
	uint64_t same_file;      /* pairs at one range of one file: equal unread */
	uint64_t bytes_hashed;   /* both sides */
	uint64_t a_params, b_params;
} ws_diff;

typedef struct ws_diff_opts {
	unsigned threads;        /* 0 = online cores */
	ws_progress_fn progress;
	void *progress_ctx;
} ws_diff_opts;

/*
 * Compare a (old) with b (new).  Returns 0 with the result in out (free
 * with ws_diff_free), or -1 with err: a file unreadable or shrunk while
 * hashing (exit 3), out of memory (exit 4).
 */
int ws_diff_models(const ws_model *a, const ws_model *b,
		   const ws_diff_opts *o, ws_diff *out, ws_error *err);
void ws_diff_free(ws_diff *d);

/* Any structural or content difference (the exit-1 condition)? */
static inline bool
ws_diff_differs(const ws_diff *d)
{
	return d->n_items > 0;
}

/* The text report (names escaped). */
void ws_diff_print_text(FILE *f, const ws_model *a, const ws_model *b,
			const ws_diff *d, bool quiet);
/* Add the diff body keys to a JSON object (see the README section);
 * 0 or -1 on OOM. */
int ws_diff_to_json(struct cJSON *obj, const ws_model *a, const ws_model *b,
		    const ws_diff *d);

#ifdef __cplusplus
}
#endif
#endif
