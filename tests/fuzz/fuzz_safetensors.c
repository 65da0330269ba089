/* fuzz_safetensors.c - the safetensors reader (header scanner, offsets,
 * not-a-weight-file diagnoses) and the analysis behind inspect.  Every
 * input is also scanned in tiny parallel pieces, its names copied as they
 * are read, which must agree with the serial scan exactly: the same error
 * at the same offset, or the same tensors and metadata. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "internal.h"

static int
open_with(const char *p, size_t min_piece, size_t pieces, ws_model **m, ws_error *err)
{
	ws_st_parallel.min_piece = min_piece;
	ws_st_parallel.pieces = pieces;
	return ws_model_open(p, NULL, m, err);
}

static void
same_models(const ws_model *a, const ws_model *b)
{
	if (a->n_tensors != b->n_tensors || a->n_meta != b->n_meta)
		__builtin_trap();
	for (uint64_t i = 0; i < a->n_tensors; i++) {
		const ws_tensor *x = &a->tensors[i], *y = &b->tensors[i];
		if (x->name_len != y->name_len || memcmp(x->name, y->name, x->name_len) ||
		    x->dtype != y->dtype || x->ndim != y->ndim || x->offset != y->offset ||
		    x->bytes != y->bytes ||
		    memcmp(x->shape, y->shape, x->ndim * sizeof *x->shape))
			__builtin_trap();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd;
	const char *p = ws_fuzz_memfile(data, size, "x.safetensors", &fd);
	ws_model *m = NULL, *par = NULL;
	ws_error err = {0}, perr = {0};
	/* the reference: serial, names copied one by one; then pieces with
	 * names read, copied and hashed in one go (key_copy) */
	size_t blocks = ws_st_parallel.name_blocks;
	int rc = open_with(p, SIZE_MAX, 0, &m, &err);
	ws_st_parallel.name_blocks = 0;
	int prc = open_with(p, 16, 3, &par, &perr);
	ws_st_parallel.name_blocks = blocks;
	if (rc != prc || (rc && (err.offset != perr.offset || strcmp(err.message, perr.message))))
		__builtin_trap();
	if (rc == 0) {
		same_models(m, par);
		if (ws_model_analyze(m, &err) == 0)
			ws_fuzz_check_model(m);
	} else if (err.code != WS_EXIT_INPUT) {
		__builtin_trap(); /* only input errors are possible here */
	}
	ws_model_free(m);
	ws_model_free(par);
	close(fd);
	return 0;
}
