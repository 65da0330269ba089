/*
 * mktensors.c - a sparse safetensors or GGUF file from a list of tensors,
 * for adapter tests at full size (the data are holes: a 7B adapter costs
 * a few kilobytes of disk).
 *
 *   mktensors OUT.safetensors|OUT.gguf < SPEC
 *
 * SPEC lines:  t NAME DTYPE D0 D1 ...   a tensor (PyTorch order; F32, F16, BF16)
 *              m KEY VALUE              a string (__metadata__ / GGUF string)
 *              u KEY N                  a GGUF u32
 *              f KEY X                  a GGUF f32
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"

typedef struct tens {
	char name[256], dtype[8];
	uint64_t dim[5];       /* a 3-D convolution has five */
	int nd;
	uint64_t off, bytes;
} tens;

typedef struct kvs {
	char type, key[128], val[256];
} kvs;

static tens *T;
static size_t nT, capT;
static kvs *K;
static size_t nK, capK;

static unsigned
dsize(const char *d)
{
	return !strcmp(d, "F32") ? 4 : 2;
}

static void
put(char **b, size_t *n, size_t *cap, const void *p, size_t len)
{
	if (*n + len > *cap) {
		*cap = (*n + len) * 2 + 4096;
		*b = xrealloc(*b, *cap);
	}
	memcpy(*b + *n, p, len);
	*n += len;
}

static void
put_u32(char **b, size_t *n, size_t *c, uint32_t v)
{
	put(b, n, c, &v, 4);
}

static void
put_u64(char **b, size_t *n, size_t *c, uint64_t v)
{
	put(b, n, c, &v, 8);
}

static void
put_str(char **b, size_t *n, size_t *c, const char *s)
{
	put_u64(b, n, c, strlen(s));
	put(b, n, c, s, strlen(s));
}

static void
write_st(const char *path)
{
	char *h = NULL, line[768];
	size_t n = 0, cap = 0;
	put(&h, &n, &cap, "{", 1);
	if (nK) {
		put(&h, &n, &cap, "\"__metadata__\":{", 16);
		for (size_t i = 0; i < nK; i++) {
			int l = snprintf(line, sizeof line, "%s\"%s\":\"%s\"", i ? "," : "", K[i].key, K[i].val);
			put(&h, &n, &cap, line, (size_t)l);
		}
		put(&h, &n, &cap, "}", 1);
	}
	uint64_t off = 0;
	for (size_t i = 0; i < nT; i++) {
		int l = snprintf(line, sizeof line, "%s\"%s\":{\"dtype\":\"%s\",\"shape\":[", i || nK ? "," : "",
				 T[i].name, T[i].dtype);
		put(&h, &n, &cap, line, (size_t)l);
		for (int d = 0; d < T[i].nd; d++) {
			l = snprintf(line, sizeof line, "%s%" PRIu64, d ? "," : "", T[i].dim[d]);
			put(&h, &n, &cap, line, (size_t)l);
		}
		l = snprintf(line, sizeof line, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", off,
			     off + T[i].bytes);
		put(&h, &n, &cap, line, (size_t)l);
		off += T[i].bytes;
	}
	put(&h, &n, &cap, "}", 1);
	while (n % 8)
		put(&h, &n, &cap, " ", 1);
	int fd = create_file(path);
	uint64_t hl = n;
	write_all(fd, &hl, 8, path);
	write_all(fd, h, n, path);
	if (ftruncate(fd, (off_t)(8 + n + off)))
		die("%s: ftruncate", path);
	close(fd);
	free(h);
}

static void
write_gguf(const char *path)
{
	char *b = NULL;
	size_t n = 0, cap = 0;
	put(&b, &n, &cap, "GGUF", 4);
	put_u32(&b, &n, &cap, 3);
	put_u64(&b, &n, &cap, nT);
	put_u64(&b, &n, &cap, nK);
	for (size_t i = 0; i < nK; i++) {
		put_str(&b, &n, &cap, K[i].key);
		if (K[i].type == 'm') {
			put_u32(&b, &n, &cap, 8);
			put_str(&b, &n, &cap, K[i].val);
		} else if (K[i].type == 'u') {
			put_u32(&b, &n, &cap, 4);
			put_u32(&b, &n, &cap, (uint32_t)strtoul(K[i].val, NULL, 10));
		} else {
			float f = strtof(K[i].val, NULL);
			put_u32(&b, &n, &cap, 6);
			put(&b, &n, &cap, &f, 4);
		}
	}
	uint64_t off = 0;
	for (size_t i = 0; i < nT; i++) {
		put_str(&b, &n, &cap, T[i].name);
		put_u32(&b, &n, &cap, (uint32_t)T[i].nd);
		for (int d = T[i].nd; d-- > 0;)
			put_u64(&b, &n, &cap, T[i].dim[d]);
		put_u32(&b, &n, &cap, !strcmp(T[i].dtype, "F32") ? 0 : !strcmp(T[i].dtype, "F16") ? 1 : 30);
		put_u64(&b, &n, &cap, off);
		off += (T[i].bytes + 31) / 32 * 32;
	}
	while (n % 32)
		put(&b, &n, &cap, "", 1);
	int fd = create_file(path);
	write_all(fd, b, n, path);
	if (ftruncate(fd, (off_t)(n + off)))
		die("%s: ftruncate", path);
	close(fd);
	free(b);
}

int
main(int argc, char **argv)
{
	char line[1024];
	if (argc != 2)
		die("usage: mktensors OUT.safetensors|OUT.gguf < SPEC");
	while (fgets(line, sizeof line, stdin)) {
		char *tok = strtok(line, " \t\n");
		if (!tok)
			continue;
		if (!strcmp(tok, "t")) {
			/* doubling: growing by one copied the list per line
			 * (minutes for 74,112 tensors under ASan) */
			if (nT == capT) {
				capT = capT ? 2 * capT : 256;
				T = xrealloc(T, capT * sizeof *T);
			}
			tens *t = &T[nT++];
			memset(t, 0, sizeof *t);
			char *nm = strtok(NULL, " \t\n"), *dt = strtok(NULL, " \t\n");
			if (!nm || !dt || strlen(nm) >= sizeof t->name || strlen(dt) >= sizeof t->dtype)
				die("bad tensor line");
			strcpy(t->name, nm);
			strcpy(t->dtype, dt);
			uint64_t el = 1;
			for (char *d; t->nd < 5 && (d = strtok(NULL, " \t\n"));)
				el *= (t->dim[t->nd++] = strtoull(d, NULL, 10));
			t->bytes = el * dsize(dt);
		} else {
			if (nK == capK) {
				capK = capK ? 2 * capK : 16;
				K = xrealloc(K, capK * sizeof *K);
			}
			kvs *k = &K[nK++];
			char *key = strtok(NULL, " \t\n"), *val = strtok(NULL, "\n");
			if (!key || !val || strlen(key) >= sizeof k->key || strlen(val) >= sizeof k->val)
				die("bad key line");
			k->type = tok[0];
			strcpy(k->key, key);
			strcpy(k->val, val);
		}
	}
	size_t l = strlen(argv[1]);
	if (l > 5 && !strcmp(argv[1] + l - 5, ".gguf"))
		write_gguf(argv[1]);
	else
		write_st(argv[1]);
	return 0;
}
