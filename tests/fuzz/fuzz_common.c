/* fuzz_common.c - invariants every successful parse must satisfy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "fuzz_common.h"
#include "ws/report.h"

#define CHECK(c)                                                                  \
	do {                                                                      \
		if (!(c)) {                                                       \
			fprintf(stderr, "invariant failed: %s (%s:%d)\n", #c, __FILE__, __LINE__); \
			abort();                                                  \
		}                                                                 \
	} while (0)

const char *
ws_fuzz_memfile(const uint8_t *data, size_t size, const char *name, int *fd)
{
	static char path[64];
	*fd = memfd_create(name, 0);
	CHECK(*fd >= 0);
	size_t off = 0;
	while (off < size) {
		ssize_t n = write(*fd, data + off, size - off);
		CHECK(n > 0);
		off += (size_t)n;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", *fd);
	return path;
}

void
ws_fuzz_check_model(ws_model *m)
{
	uint64_t per_file_tensors = 0;
	for (uint32_t i = 0; i < m->n_files; i++) {
		const ws_file *f = &m->files[i];
		CHECK(f->header_bytes <= f->size || (f->size == 0 && f->header_bytes == 0));
		per_file_tensors += f->tensor_count;
	}
	CHECK(per_file_tensors == m->n_tensors);
	uint64_t *bytes_in = calloc(m->n_files ? m->n_files : 1, sizeof *bytes_in);
	CHECK(bytes_in);
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		CHECK(t->file < m->n_files);
		const ws_file *f = &m->files[t->file];
		CHECK(t->offset >= f->data_start || t->bytes == 0);
		CHECK(t->offset <= f->size && t->bytes <= f->size - t->offset);
		uint64_t el = 1, by;
		int overflow = 0;
		for (uint32_t d = 0; d < t->ndim; d++)
			overflow |= !ws_mul_u64(el, t->shape[d], &el);
		CHECK(overflow || el == t->elements);
		CHECK(ws_dtype_bytes(t->dtype, t->elements, &by) && by == t->bytes);
		CHECK(strlen(t->name) <= t->name_len);
		bytes_in[t->file] += t->bytes;
		CHECK(bytes_in[t->file] <= f->size);
	}
	free(bytes_in);
	for (uint64_t i = 0; i < m->n_meta; i++) {
		const ws_kv *kv = &m->meta[i];
		CHECK(kv->type < WS_V_COUNT);
	}
	cJSON *o = cJSON_CreateObject();
	CHECK(o);
	CHECK(ws_report_inspect_json(m, o) == 0);
	char *s = cJSON_PrintUnformatted(o);
	CHECK(s);
	CHECK(ws_utf8_valid(s, strlen(s)));
	cJSON *back = cJSON_Parse(s);
	CHECK(back);
	cJSON_Delete(back);
	free(s);
	cJSON_Delete(o);
	FILE *null = fopen("/dev/null", "w");
	CHECK(null);
	ws_report_inspect_text(null, m, false);
	fclose(null);
}
