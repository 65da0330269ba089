/* fuzz_index.c - a sharded checkpoint's index.json against real shards:
 * the fuzzed bytes are the index; two small valid shards sit beside it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

static char dir[64];

static void
write_shard(const char *name, const char *tensor)
{
	char h[160], path[128];
	int hl = snprintf(h, sizeof h, "{\"%s\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", tensor);
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	uint8_t n8[8] = {(uint8_t)hl};
	fwrite(n8, 1, 8, f);
	fwrite(h, 1, (size_t)hl, f);
	fwrite("\0\0\0\0\0\0\0\0", 1, 8, f);
	fclose(f);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/ws-fuzz-index-XXXXXX");
		if (!mkdtemp(dir))
			abort();
		write_shard("a.safetensors", "x");
		write_shard("b.safetensors", "y");
	}
	char path[128];
	snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
	FILE *f = fopen(path, "wb");
	if (!f)
		return 0;
	fwrite(data, 1, size, f);
	fclose(f);
	ws_model *m = NULL;
	ws_error err = {0};
	if (ws_model_open(path, NULL, &m, &err) == 0)
		ws_fuzz_check_model(m);
	else if (err.code != WS_EXIT_INPUT)
		__builtin_trap();
	ws_model_free(m);
	return 0;
}
