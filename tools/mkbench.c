/*
 * mkbench.c - deterministic inputs for tools/bench that mkfixture and
 * mkgguf do not write.
 *
 *   mkbench moe FILE [LAYERS EXPERTS HIDDEN INTER]
 *       one safetensors file holding only routed-expert tensors
 *       (gate/up/down per expert per layer; default 61 x 256 experts,
 *       hidden 7168, expert width 2048: 46,848 tensors, a ~6 MB header),
 *       data sparse
 *   mkbench dense DIR SHARDS MIB
 *       a SHARDS-file checkpoint of MIB MiB in all, real bytes (for
 *       hashing), 64 MiB BF16 tensors, with its index
 *   mkbench gguf-tensors FILE N
 *       a GGUF v3 llama with N tensors (N/9 small blocks), data sparse
 *   mkbench gguf-vocab FILE N
 *       a vocab-only GGUF v3 with N tokens, scores and token types
 *
 * Everything is a pure function of the arguments: the same bytes every run.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen.h"

/* ==== growable byte buffer ==== */

typedef struct buf {
	char *p;
	size_t len, cap;
} buf;

static void
put(buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 4096;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("out of memory");
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void
putf(buf *b, const char *fmt, ...)
{
	char t[512];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(t, sizeof t, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof t)
		die("format overflow");
	put(b, t, (size_t)n);
}

static void
putle(buf *b, uint64_t v, unsigned n)
{
	uint8_t t[8];
	for (unsigned i = 0; i < n; i++)
		t[i] = (uint8_t)(v >> (8 * i));
	put(b, t, n);
}

/* Header bytes, then `data` bytes of hole: files as large as the real
 * checkpoint that cost no disk. */
static void
write_sparse(const char *path, const buf *head, uint64_t data)
{
	int fd = create_file(path);
	write_all(fd, head->p, head->len, path);
	if (ftruncate(fd, (off_t)(head->len + data)) != 0)
		die("truncate %s: %s", path, strerror(errno));
	close(fd);
}

static uint64_t
arg_u64(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end || end == s)
		die("not a number: %s", s);
	return v;
}

/* ==== safetensors ==== */

/* 8-byte length + JSON header, padded with blanks to a multiple of 8. */
static void
st_frame(buf *out, buf *json)
{
	while (json->len % 8)
		put(json, " ", 1);
	putle(out, json->len, 8);
	put(out, json->p, json->len);
}

static const char *const expert_mats[] = {"gate_proj", "up_proj", "down_proj"};

static int
cmd_moe(const char *file, uint64_t layers, uint64_t experts, uint64_t hidden, uint64_t inter)
{
	buf j = {0}, out = {0};
	uint64_t off = 0, bytes = hidden * inter * 2;
	put(&j, "{\"__metadata__\":{\"format\":\"pt\"}", 31);
	for (uint64_t l = 0; l < layers; l++)
		for (uint64_t e = 0; e < experts; e++)
			for (int m = 0; m < 3; m++) {
				uint64_t rows = m == 2 ? hidden : inter, cols = m == 2 ? inter : hidden;
				putf(&j, ",\"model.layers.%" PRIu64 ".mlp.experts.%" PRIu64 ".%s.weight\":"
				     "{\"dtype\":\"BF16\",\"shape\":[%" PRIu64 ",%" PRIu64 "],"
				     "\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
				     l, e, expert_mats[m], rows, cols, off, off + bytes);
				off += bytes;
			}
	put(&j, "}", 1);
	st_frame(&out, &j);
	write_sparse(file, &out, off);
	free(j.p);
	free(out.p);
	return 0;
}

/* xorshift64 bits shaped as BF16 weights: random signs and mantissas,
 * exponents 2^-7..2^-4, so `scan` meets the values a checkpoint holds
 * (random bit patterns would be a sixth NaN or huge) and hashing sees
 * incompressible-looking bytes all the same. */
static void
fill(uint64_t *p, size_t words, uint64_t *state)
{
	uint64_t x = *state;
	for (size_t i = 0; i < words; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		p[i] = (x & 0x81FF81FF81FF81FFull) | 0x3C003C003C003C00ull;
	}
	*state = x;
}

static int
cmd_dense(const char *dir, uint64_t shards, uint64_t mib)
{
	const uint64_t tensor_bytes = 64u << 20; /* 8192 x 4096 BF16 */
	uint64_t tensors = mib / 64;
	if (!shards || tensors < shards)
		die("dense: need at least 64 MiB per shard");
	uint64_t *data = malloc(tensor_bytes);
	if (!data)
		die("out of memory");
	uint64_t state = 0x9E3779B97F4A7C15u, t = 0;
	buf idx = {0};
	put(&idx, "{\"metadata\":{\"total_size\":", 26);
	putf(&idx, "%" PRIu64 "},\"weight_map\":{", tensors * tensor_bytes);
	for (uint64_t s = 0; s < shards; s++) {
		uint64_t a = tensors * s / shards, b = tensors * (s + 1) / shards;
		char name[64], path[4096];
		snprintf(name, sizeof name, "model-%05" PRIu64 "-of-%05" PRIu64 ".safetensors",
			 s + 1, shards);
		snprintf(path, sizeof path, "%s/%s", dir, name);
		buf j = {0}, out = {0};
		put(&j, "{\"__metadata__\":{\"format\":\"pt\"}", 31);
		for (uint64_t i = a; i < b; i++) {
			putf(&j, ",\"model.layers.%" PRIu64 ".mlp.up_proj.weight\":{\"dtype\":\"BF16\","
			     "\"shape\":[8192,4096],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}",
			     i, (i - a) * tensor_bytes, (i - a + 1) * tensor_bytes);
			putf(&idx, "%s\"model.layers.%" PRIu64 ".mlp.up_proj.weight\":\"%s\"",
			     t++ ? "," : "", i, name);
		}
		put(&j, "}", 1);
		st_frame(&out, &j);
		int fd = create_file(path);
		write_all(fd, out.p, out.len, path);
		for (uint64_t i = a; i < b; i++) {
			fill(data, tensor_bytes / 8, &state);
			write_all(fd, data, tensor_bytes, path);
		}
		close(fd);
		free(j.p);
		free(out.p);
	}
	put(&idx, "}}\n", 3);
	char path[4096];
	snprintf(path, sizeof path, "%s/model.safetensors.index.json", dir);
	int fd = create_file(path);
	write_all(fd, idx.p, idx.len, path);
	close(fd);
	free(idx.p);
	free(data);
	return 0;
}

/* ==== GGUF v3, little-endian ==== */

enum { T_U32 = 4, T_I32 = 5, T_F32 = 6, T_STRING = 8, T_ARRAY = 9 };

static void
gstr(buf *b, const char *s)
{
	putle(b, strlen(s), 8);
	put(b, s, strlen(s));
}

static void
kv_u32(buf *b, const char *key, uint32_t v)
{
	gstr(b, key);
	putle(b, T_U32, 4);
	putle(b, v, 4);
}

static void
kv_str(buf *b, const char *key, const char *v)
{
	gstr(b, key);
	putle(b, T_STRING, 4);
	gstr(b, v);
}

static void
gguf_start(buf *b, uint64_t tensors, uint64_t kvs)
{
	put(b, "GGUF", 4);
	putle(b, 3, 4);
	putle(b, tensors, 8);
	putle(b, kvs, 8);
}

static void
pad32(buf *b)
{
	while (b->len % 32)
		put(b, "", 1);
}

/* Per block: the nine llama tensors, F32, a 64-wide model. */
static const struct {
	const char *name;
	uint64_t ne0, ne1; /* GGUF order: innermost first; ne1 0 = 1-D */
} block[] = {
	{"attn_norm", 64, 0},
	{"attn_q", 64, 64},
	{"attn_k", 64, 64},
	{"attn_v", 64, 64},
	{"attn_output", 64, 64},
	{"ffn_norm", 64, 0},
	{"ffn_gate", 64, 128},
	{"ffn_up", 64, 128},
	{"ffn_down", 128, 64},
};
#define N_BLOCK (sizeof block / sizeof block[0])

static void
tinfo(buf *b, uint64_t *off, const char *name, uint64_t ne0, uint64_t ne1)
{
	gstr(b, name);
	putle(b, ne1 ? 2 : 1, 4);
	putle(b, ne0, 8);
	if (ne1)
		putle(b, ne1, 8);
	putle(b, 0, 4); /* F32 */
	putle(b, *off, 8);
	uint64_t bytes = ne0 * (ne1 ? ne1 : 1) * 4;
	*off += (bytes + 31) / 32 * 32;
}

static int
cmd_gguf_tensors(const char *file, uint64_t n)
{
	uint64_t layers = n / N_BLOCK;
	if (!layers)
		die("gguf-tensors: need at least %zu tensors", N_BLOCK);
	buf b = {0};
	uint64_t off = 0, total = layers * N_BLOCK + 3;
	gguf_start(&b, total, 8);
	kv_str(&b, "general.architecture", "llama");
	kv_u32(&b, "llama.block_count", (uint32_t)layers);
	kv_u32(&b, "llama.embedding_length", 64);
	kv_u32(&b, "llama.feed_forward_length", 128);
	kv_u32(&b, "llama.attention.head_count", 4);
	kv_u32(&b, "llama.attention.head_count_kv", 4);
	kv_u32(&b, "llama.context_length", 256);
	kv_u32(&b, "llama.vocab_size", 256);
	tinfo(&b, &off, "token_embd.weight", 64, 256);
	char name[96];
	for (uint64_t l = 0; l < layers; l++)
		for (size_t i = 0; i < N_BLOCK; i++) {
			snprintf(name, sizeof name, "blk.%" PRIu64 ".%s.weight", l, block[i].name);
			tinfo(&b, &off, name, block[i].ne0, block[i].ne1);
		}
	tinfo(&b, &off, "output_norm.weight", 64, 0);
	tinfo(&b, &off, "output.weight", 64, 256);
	pad32(&b);
	write_sparse(file, &b, off);
	free(b.p);
	return 0;
}

static int
cmd_gguf_vocab(const char *file, uint64_t n)
{
	buf b = {0};
	gguf_start(&b, 0, 10);
	kv_str(&b, "general.architecture", "llama");
	kv_u32(&b, "llama.block_count", 30);
	kv_u32(&b, "llama.embedding_length", 4096);
	kv_u32(&b, "llama.feed_forward_length", 11008);
	kv_u32(&b, "llama.attention.head_count", 32);
	kv_str(&b, "general.name", "bench-vocab");
	kv_str(&b, "tokenizer.ggml.model", "gpt2");
	gstr(&b, "tokenizer.ggml.tokens");
	putle(&b, T_ARRAY, 4);
	putle(&b, T_STRING, 4);
	putle(&b, n, 8);
	char tok[64];
	for (uint64_t i = 0; i < n; i++) {
		/* varied lengths, like a BPE vocabulary */
		int len = snprintf(tok, sizeof tok, "tok%" PRIu64 "%.*s", i, (int)(i % 7),
				   "abcdefg");
		putle(&b, (uint64_t)len, 8);
		put(&b, tok, (size_t)len);
	}
	gstr(&b, "tokenizer.ggml.scores");
	putle(&b, T_ARRAY, 4);
	putle(&b, T_F32, 4);
	putle(&b, n, 8);
	for (uint64_t i = 0; i < n; i++) {
		float f = -(float)i;
		uint32_t u;
		memcpy(&u, &f, 4);
		putle(&b, u, 4);
	}
	gstr(&b, "tokenizer.ggml.token_type");
	putle(&b, T_ARRAY, 4);
	putle(&b, T_I32, 4);
	putle(&b, n, 8);
	for (uint64_t i = 0; i < n; i++)
		putle(&b, i < 3 ? 3 : 1, 4);
	pad32(&b);
	write_sparse(file, &b, 0);
	free(b.p);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "moe")) {
		if (argc == 7)
			return cmd_moe(argv[2], arg_u64(argv[3]), arg_u64(argv[4]),
				       arg_u64(argv[5]), arg_u64(argv[6]));
		return cmd_moe(argv[2], 61, 256, 7168, 2048);
	}
	if (argc == 5 && !strcmp(argv[1], "dense"))
		return cmd_dense(argv[2], arg_u64(argv[3]), arg_u64(argv[4]));
	if (argc == 4 && !strcmp(argv[1], "gguf-tensors"))
		return cmd_gguf_tensors(argv[2], arg_u64(argv[3]));
	if (argc == 4 && !strcmp(argv[1], "gguf-vocab"))
		return cmd_gguf_vocab(argv[2], arg_u64(argv[3]));
	fputs("usage: mkbench moe FILE [LAYERS EXPERTS HIDDEN INTER]\n"
	      "       mkbench dense DIR SHARDS MIB\n"
	      "       mkbench gguf-tensors FILE N\n"
	      "       mkbench gguf-vocab FILE N\n", stderr);
	return 2;
}
