/*
 * mkgguf.c - deterministic GGUF fixtures.
 *
 *   mkgguf valid DIR   tiny valid files: a llama with F32/F16/Q8_0/Q4_K
 *                      tensors (little-endian, big-endian, v2), a 3-part
 *                      split set, a vocab-only file, a MoE with 3-D
 *                      *_exps tensors
 *   mkgguf bad DIR     one broken file per structural rule (exit 3 in
 *                      weightscan; the specification's limits too: a bool
 *                      of 2, a 65-byte name, alignment 12 or 4), the
 *                      loader-incompatible files (li-*),
 *                      broken split sets, and DIR/expect.tsv: for each
 *                      broken file, the byte offset of the offending field
 *
 * Each broken file is the valid tiny llama with one mutation, listed in the
 * table `bads` below.  Prints nothing on success.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ==== byte buffer ==== */

typedef struct buf {
	uint8_t *p;
	size_t len, cap;
	bool be;
} buf;

static void
put(buf *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		if (!b->p) {
			perror("mkgguf");
			exit(4);
		}
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

/* n-byte integer in the buffer's byte order. */
static void
putn(buf *b, uint64_t v, unsigned n)
{
	uint8_t t[8];
	for (unsigned i = 0; i < n; i++)
		t[b->be ? n - 1 - i : i] = (uint8_t)(v >> (8 * i));
	put(b, t, n);
}

static void u32(buf *b, uint64_t v) { putn(b, v, 4); }
static void u64(buf *b, uint64_t v) { putn(b, v, 8); }

static void
str(buf *b, const char *s)
{
	u64(b, strlen(s));
	put(b, s, strlen(s));
}

/* ==== mutations ==== */

enum bad {
	OK = 0, BAD_MAGIC, VERSION_0, VERSION_1, VERSION_4, TENSORS_LIE,
	KV_LIE, STRING_PAST_END, STRING_TOO_LONG, ARRAY_PAST_END, ARRAY_TOO_LONG,
	EMPTY_KEY, DUP_KEY, BAD_VALUE_TYPE, DUP_TENSOR, NDIMS_PAST_END, NEGATIVE_DIM,
	ELEMENTS_OVERFLOW, TYPE_UNKNOWN, TYPE_REMOVED, BLOCK_MISMATCH,
	ALIGN_TYPE, ALIGN_ZERO, OFFSET_MISALIGNED, OFFSET_GAP, OFFSET_OVERLAP,
	OFFSET_ORDER, TRUNCATED_DATA, DATA_START_PAST_EOF, TRUNCATED_HEADER,
	LI_NESTED, LI_LONG_NAME, LI_ALIGN_48, BOOL_2, BOOL_ARRAY_3, NAME_65,
	ALIGN_12, ALIGN_4, LI_NDIMS_5,
};

static const struct {
	const char *name;
	enum bad bad;
} bads[] = {
	{"bad-magic", BAD_MAGIC},
	{"version-0", VERSION_0},
	{"version-1", VERSION_1},
	{"version-4", VERSION_4},
	{"tensors-count-lie", TENSORS_LIE},
	{"kv-count-lie", KV_LIE},
	{"string-past-end", STRING_PAST_END},
	{"string-too-long", STRING_TOO_LONG},
	{"array-past-end", ARRAY_PAST_END},
	{"array-too-long", ARRAY_TOO_LONG},
	{"empty-key", EMPTY_KEY},
	{"dup-key", DUP_KEY},
	{"bad-value-type", BAD_VALUE_TYPE},
	{"dup-tensor", DUP_TENSOR},
	{"ndims-past-end", NDIMS_PAST_END},
	{"negative-dim", NEGATIVE_DIM},
	{"elements-overflow", ELEMENTS_OVERFLOW},
	{"type-unknown", TYPE_UNKNOWN},
	{"type-removed", TYPE_REMOVED},
	{"block-mismatch", BLOCK_MISMATCH},
	{"align-type", ALIGN_TYPE},
	{"align-zero", ALIGN_ZERO},
	{"offset-misaligned", OFFSET_MISALIGNED},
	{"offset-gap", OFFSET_GAP},
	{"offset-overlap", OFFSET_OVERLAP},
	{"offset-order", OFFSET_ORDER},
	{"truncated-data", TRUNCATED_DATA},
	{"data-start-past-eof", DATA_START_PAST_EOF},
	{"truncated-header", TRUNCATED_HEADER},
	{"li-nested-array", LI_NESTED},
	{"li-long-name", LI_LONG_NAME},
	{"li-align-48", LI_ALIGN_48},
	{"li-ndims-5", LI_NDIMS_5},
	/* the specification's limits, which ggml does not enforce */
	{"bool-2", BOOL_2},
	{"bool-array-3", BOOL_ARRAY_3},
	{"name-65", NAME_65},
	{"align-12", ALIGN_12},
	{"align-4", ALIGN_4},
};

/* ==== tensors ==== */

enum { F32 = 0, F16 = 1, Q8_0 = 8, Q4_K = 12 };

typedef struct tspec {
	const char *name;
	uint32_t nd;
	uint64_t ne[5]; /* GGUF order: innermost first */
	uint32_t type;
} tspec;

static const tspec llama[] = {
	{"token_embd.weight", 2, {256, 32}, F16},
	{"blk.0.attn_norm.weight", 1, {256}, F32},
	{"blk.0.attn_q.weight", 2, {256, 256}, Q8_0},
	{"blk.0.attn_k.weight", 2, {256, 64}, Q8_0},
	{"blk.0.attn_v.weight", 2, {256, 64}, Q8_0},
	{"blk.0.attn_output.weight", 2, {256, 256}, Q8_0},
	{"blk.0.ffn_norm.weight", 1, {256}, F32},
	{"blk.0.ffn_gate.weight", 2, {256, 512}, Q4_K},
	{"blk.0.ffn_up.weight", 2, {256, 512}, Q4_K},
	{"blk.0.ffn_down.weight", 2, {512, 256}, Q4_K},
	{"output_norm.weight", 1, {256}, F32},
	{"output.weight", 2, {256, 32}, Q8_0},
};
#define N_LLAMA (sizeof llama / sizeof llama[0])

static const tspec moe[] = {
	{"token_embd.weight", 2, {32, 16}, F32},
	{"blk.0.attn_norm.weight", 1, {32}, F32},
	{"blk.0.attn_q.weight", 2, {32, 32}, F16},
	{"blk.0.attn_k.weight", 2, {32, 16}, F16},
	{"blk.0.attn_v.weight", 2, {32, 16}, F16},
	{"blk.0.attn_output.weight", 2, {32, 32}, F16},
	{"blk.0.ffn_norm.weight", 1, {32}, F32},
	{"blk.0.ffn_gate_inp.weight", 2, {32, 4}, F32},
	{"blk.0.ffn_gate_exps.weight", 3, {32, 64, 4}, F16},
	{"blk.0.ffn_up_exps.weight", 3, {32, 64, 4}, F16},
	{"blk.0.ffn_down_exps.weight", 3, {64, 32, 4}, F16},
	{"output_norm.weight", 1, {32}, F32},
};
#define N_MOE (sizeof moe / sizeof moe[0])

static uint64_t
tensor_bytes(const tspec *t)
{
	static const struct { uint32_t type, block, bytes; } sizes[] = {
		{F32, 1, 4}, {F16, 1, 2}, {Q8_0, 32, 34}, {Q4_K, 256, 144},
	};
	uint64_t n = 1;
	for (uint32_t i = 0; i < t->nd && i < 5; i++) {
		if (t->ne[i] > 1u << 20)
			return 0; /* a mutated (negative, huge) dim: write no data */
		n *= t->ne[i];
	}
	for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
		if (sizes[i].type == t->type)
			return n / sizes[i].block * sizes[i].bytes;
	return 0;
}

static uint64_t
pad(uint64_t v, uint64_t a)
{
	return a ? (v + a - 1) / a * a : v;
}

/* Small exactly-representable values as f16 bits: (k - 6) / 8. */
static uint16_t
half_of(int k)
{
	static const uint16_t h[13] = {
		0xBA00, 0xB900, 0xB800, 0xB600, 0xB400, 0xB000, 0x0000,
		0x3000, 0x3400, 0x3600, 0x3800, 0x3900, 0x3A00,
	};
	return h[k % 13];
}

/* ==== the writer ==== */

typedef struct fspec {
	const tspec *t;
	size_t nt;
	bool be;
	uint32_t version;
	uint32_t align;       /* written as general.alignment when != 32 or always */
	bool meta;            /* full llama metadata (else only split keys) */
	bool vocab;           /* tokenizer arrays */
	uint32_t n_tokens;
	int split_no, split_count, split_total; /* -1 = no split keys */
	const char *arch;
} fspec;

/* KVs go to their own buffer so their count is known for the header. */
typedef struct kvw {
	buf b;
	uint64_t n;
	enum bad bad;
	uint64_t *mark;       /* offset within b of the mutated field */
} kvw;

static void
key(kvw *k, const char *name, uint32_t type)
{
	k->n++;
	str(&k->b, name);
	u32(&k->b, type);
}

static void kv_u32(kvw *k, const char *n, uint32_t v) { key(k, n, 4); u32(&k->b, v); }
static void kv_str(kvw *k, const char *n, const char *v) { key(k, n, 8); str(&k->b, v); }

static void
kv_num(kvw *k, const char *n, uint32_t type, uint64_t bits, unsigned size)
{
	key(k, n, type);
	putn(&k->b, bits, size);
}

static void
write_kvs(kvw *k, const fspec *fs)
{
	buf *b = &k->b;

	if (fs->meta) {
		if (k->bad == EMPTY_KEY) {
			*k->mark = b->len;
			kv_str(k, "", "empty");
		}
		kv_str(k, "general.architecture", fs->arch);
		if (k->bad == DUP_KEY) {
			*k->mark = b->len;
			kv_str(k, "general.architecture", "again");
		}
		kv_str(k, "general.name", "mkgguf tiny");
		if (k->bad == ALIGN_TYPE) {
			key(k, "general.alignment", 5);
			*k->mark = b->len - 4;
			u32(b, 32);
		} else if (k->bad == ALIGN_ZERO || k->bad == ALIGN_12 || k->bad == ALIGN_4) {
			key(k, "general.alignment", 4);
			*k->mark = b->len;
			u32(b, k->bad == ALIGN_12 ? 12 : k->bad == ALIGN_4 ? 4 : 0);
		} else {
			kv_u32(k, "general.alignment", fs->align);
		}
		kv_u32(k, "llama.block_count", 1);
		kv_u32(k, "llama.embedding_length", (uint32_t)fs->t[0].ne[0]);
		kv_u32(k, "llama.context_length", 128);
		kv_u32(k, "llama.attention.head_count", 4);
		kv_u32(k, "llama.attention.head_count_kv", 1);
		if (fs->t == moe) {
			kv_u32(k, "llama.expert_count", 4);
			kv_u32(k, "llama.expert_used_count", 2);
			kv_u32(k, "llama.expert_feed_forward_length", 64);
		}
		kv_num(k, "llama.attention.layer_norm_rms_epsilon", 6, 0x3727C5ACu, 4);
		/* One key of every scalar type, signed ones negative. */
		kv_num(k, "test.u8", 0, 200, 1);
		kv_num(k, "test.i8", 1, (uint8_t)-5, 1);
		kv_num(k, "test.u16", 2, 60000, 2);
		kv_num(k, "test.i16", 3, (uint16_t)-300, 2);
		kv_num(k, "test.u32", 4, 4000000000u, 4);
		kv_num(k, "test.i32", 5, (uint32_t)-70000, 4);
		kv_num(k, "test.f32", 6, 0x3FC00000u, 4);          /* 1.5 */
		if (k->bad == BOOL_2)
			*k->mark = b->len + 8 + strlen("test.bool") + 4;
		kv_num(k, "test.bool", 7, k->bad == BOOL_2 ? 2 : 1, 1);
		if (k->bad == BOOL_ARRAY_3) {
			key(k, "test.arr_bool", 9);
			u32(b, 7);
			u64(b, 3);
			putn(b, 1, 1);
			putn(b, 0, 1);
			*k->mark = b->len;
			putn(b, 3, 1);
		}
		kv_num(k, "test.u64", 10, (1ull << 63) + 5, 8);
		kv_num(k, "test.i64", 11, (uint64_t)-5000000000000ll, 8);
		kv_num(k, "test.f64", 12, 0x3FB999999999999Aull, 8); /* 0.1 */
		key(k, "test.arr_i16", 9);
		u32(b, 3);
		u64(b, 3);
		putn(b, (uint16_t)-1, 2);
		putn(b, 2, 2);
		putn(b, (uint16_t)-300, 2);
		key(k, "test.arr_u64", 9);
		u32(b, 10);
		u64(b, 2);
		u64(b, 1);
		u64(b, UINT64_MAX);
		if (k->bad == STRING_PAST_END) {
			key(k, "test.cut_string", 8);
			*k->mark = b->len;
			u64(b, 100000000);
			put(b, "abc", 3);
		}
		if (k->bad == STRING_TOO_LONG) {
			key(k, "test.huge_string", 8);
			*k->mark = b->len;
			u64(b, 1ull << 31);
			put(b, "abc", 3);
		}
		if (k->bad == ARRAY_PAST_END || k->bad == ARRAY_TOO_LONG) {
			key(k, "test.bad_array", 9);
			*k->mark = b->len;
			u32(b, 4);
			u64(b, k->bad == ARRAY_TOO_LONG ? (1ull << 30) + 1 : 1000000);
			u32(b, 7);
		}
		if (k->bad == BAD_VALUE_TYPE) {
			k->n++;
			str(b, "test.bad_type");
			*k->mark = b->len;
			u32(b, 13);
			u32(b, 0);
		}
		if (k->bad == LI_NESTED) {
			key(k, "test.nested", 9);
			u32(b, 9);
			u64(b, 2);
			for (int i = 0; i < 2; i++) {
				u32(b, 4);
				u64(b, 2);
				u32(b, (uint32_t)i);
				u32(b, (uint32_t)i + 10);
			}
		}
	}
	if (fs->vocab) {
		char tok[32];
		kv_str(k, "tokenizer.ggml.model", "llama");
		key(k, "tokenizer.ggml.tokens", 9);
		u32(b, 8);
		u64(b, fs->n_tokens);
		for (uint32_t i = 0; i < fs->n_tokens; i++) {
			snprintf(tok, sizeof tok, i < 3 ? (i == 0 ? "<unk>" : i == 1 ? "<s>" : "</s>") : "tok%u", i);
			str(b, tok);
		}
		key(k, "tokenizer.ggml.scores", 9);
		u32(b, 6);
		u64(b, fs->n_tokens);
		for (uint32_t i = 0; i < fs->n_tokens; i++) {
			float f = -(float)i;
			uint32_t bits;
			memcpy(&bits, &f, 4);
			u32(b, bits);
		}
		key(k, "tokenizer.ggml.token_type", 9);
		u32(b, 5);
		u64(b, fs->n_tokens);
		for (uint32_t i = 0; i < fs->n_tokens; i++)
			u32(b, i < 3 ? 3 : 1);
	}
	if (fs->split_no >= 0) {
		kv_num(k, "split.no", 2, (uint64_t)fs->split_no, 2);
		kv_num(k, "split.count", 2, (uint64_t)fs->split_count, 2);
		kv_num(k, "split.tensors.count", 5, (uint64_t)fs->split_total, 4);
	}
}

/* Write a whole file into out; *mark gets the offending field's offset. */
static void
build(buf *out, const fspec *fs, enum bad bad, uint64_t *mark)
{
	kvw k = {.b = {.be = fs->be}, .bad = bad, .mark = mark};
	uint64_t align = bad == LI_ALIGN_48 ? 48 : fs->align;
	fspec f = *fs;
	tspec t[32];
	size_t nt = fs->nt;

	f.align = (uint32_t)align;
	memcpy(t, fs->t, nt * sizeof *t);
	switch (bad) {
	case DUP_TENSOR: t[3].name = t[2].name; break;
	/* n_dims 5 (the specification's "currently at most 4"; ggml's limit),
	 * the same 256 elements */
	case LI_NDIMS_5: t[1].nd = 5; t[1].ne[1] = t[1].ne[2] = t[1].ne[3] = t[1].ne[4] = 1; break;
	case NEGATIVE_DIM: t[2].ne[1] = (uint64_t)-1; break;
	case ELEMENTS_OVERFLOW: t[1].nd = 2; t[1].ne[0] = 1ull << 32; t[1].ne[1] = 1ull << 32; break;
	case TYPE_UNKNOWN: t[1].type = 99; break;
	case TYPE_REMOVED: t[1].type = 4; break;
	case BLOCK_MISMATCH: t[2].ne[0] = 48; break;
	case LI_LONG_NAME: t[1].name = "blk.0.attn_norm.weight.padded_to_be_exactly_sixty_four_byte_long"; break;
	case NAME_65: t[1].name = "blk.0.attn_norm.weight.padded_to_be_exactly_sixty_five_bytes_long"; break;
	default: break;
	}
	write_kvs(&k, &f);

	out->be = fs->be;
	put(out, bad == BAD_MAGIC ? "GGUX" : "GGUF", 4);
	u32(out, bad == VERSION_0 ? 0 : bad == VERSION_1 ? 1 : bad == VERSION_4 ? 4 : fs->version);
	u64(out, bad == TENSORS_LIE ? 1ull << 40 : nt);
	u64(out, bad == KV_LIE ? 1ull << 40 : k.n);
	uint64_t kv_at = out->len;
	if (*mark != UINT64_MAX)
		*mark += kv_at;
	put(out, k.b.p, k.b.len);
	free(k.b.p);

	/* Tensor infos, offsets the running padded sum (then mutated). */
	uint64_t off = 0, offs[32];
	for (size_t i = 0; i < nt; i++) {
		offs[i] = off;
		off += pad(tensor_bytes(&t[i]), align);
	}
	if (bad == OFFSET_MISALIGNED) offs[2] += 4;
	if (bad == OFFSET_GAP) offs[2] += 256;
	if (bad == OFFSET_OVERLAP) offs[2] = offs[1];
	if (bad == OFFSET_ORDER) {
		uint64_t tmp = offs[0];
		offs[0] = pad(tensor_bytes(&t[1]), align);
		offs[1] = tmp;
	}
	for (size_t i = 0; i < nt; i++) {
		if ((bad == DUP_TENSOR && i == 3) || ((bad == LI_LONG_NAME || bad == NAME_65) && i == 1))
			*mark = out->len;
		str(out, t[i].name);
		if ((bad == NDIMS_PAST_END && i == 1) || (bad == TRUNCATED_HEADER && i == 0))
			*mark = out->len;
		/* more dimensions than the rest of the file holds (its own kept) */
		u32(out, bad == NDIMS_PAST_END && i == 1 ? UINT32_MAX : t[i].nd);
		for (uint32_t j = 0; j < t[i].nd; j++) {
			if ((bad == NEGATIVE_DIM && i == 2 && j == 1) ||
			    (bad == ELEMENTS_OVERFLOW && i == 1 && j == 1) ||
			    (bad == BLOCK_MISMATCH && i == 2 && j == 0))
				*mark = out->len;
			u64(out, t[i].ne[j]);
		}
		if ((bad == TYPE_UNKNOWN || bad == TYPE_REMOVED) && i == 1)
			*mark = out->len;
		u32(out, t[i].type);
		if ((bad == OFFSET_MISALIGNED || bad == OFFSET_GAP || bad == OFFSET_OVERLAP) && i == 2)
			*mark = out->len;
		if (bad == OFFSET_ORDER && i == 0)
			*mark = out->len;
		u64(out, offs[i]);
	}
	if (bad == DATA_START_PAST_EOF)
		*mark = out->len;
	if (nt == 0)
		return; /* vocab-only: no data section, no padding */

	/* Data: F32/F16 hold small exact values, quantized blocks are zero. */
	uint64_t start = pad(out->len, align);
	while (out->len < start)
		put(out, "", 1);
	for (size_t i = 0; i < nt; i++) {
		uint64_t n = tensor_bytes(&t[i]), end = start + offs[i];
		while (out->len < end)
			put(out, "", 1);
		if (bad == TRUNCATED_DATA && i == nt - 1)
			*mark = out->len;
		for (uint64_t e = 0; t[i].type == F32 && e < n / 4; e++) {
			float v = (float)((int)(e % 13) - 6) / 8.0f;
			uint32_t bits;
			memcpy(&bits, &v, 4);
			u32(out, bits);
		}
		for (uint64_t e = 0; t[i].type == F16 && e < n / 2; e++)
			putn(out, half_of((int)(e % 13)), 2);
		if (t[i].type != F32 && t[i].type != F16)
			for (uint64_t e = 0; e < n; e++)
				put(out, "", 1);
	}
	while (out->len < start + off)
		put(out, "", 1);
}

/* ==== files ==== */

static const char *dir;

static void
save(const char *name, const buf *b, size_t len)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b->p, 1, len, f) != len || fclose(f) != 0) {
		perror(path);
		exit(1);
	}
}

static void
emit(const char *name, const fspec *fs, enum bad bad, FILE *expect)
{
	buf b = {0};
	uint64_t mark = UINT64_MAX;
	build(&b, fs, bad, &mark);
	size_t len = b.len;
	if (bad == TRUNCATED_HEADER)
		len = (size_t)mark + 2;
	if (bad == TRUNCATED_DATA)
		len -= 10;
	if (bad == DATA_START_PAST_EOF)
		len = (size_t)mark;
	char fname[256];
	snprintf(fname, sizeof fname, "%s.gguf", name);
	save(fname, &b, len);
	if (expect && mark != UINT64_MAX)
		fprintf(expect, "%s\t%llu\n", fname, (unsigned long long)mark);
	free(b.p);
}

static const fspec tiny = {
	.t = llama, .nt = N_LLAMA, .version = 3, .align = 32, .meta = true,
	.vocab = true, .n_tokens = 32, .split_no = -1, .arch = "llama",
};

/* Part p (0-based) of an n-part split of the tiny llama. */
static void
emit_split(const char *prefix, int n, int total_delta, int skip, int dup)
{
	for (int p = 0; p < n; p++) {
		char name[256];
		tspec t[N_LLAMA];
		size_t per = (N_LLAMA + (size_t)n - 1) / (size_t)n;
		size_t lo = (size_t)p * per, hi = lo + per > N_LLAMA ? N_LLAMA : lo + per;
		fspec fs = tiny;
		memcpy(t, llama, sizeof t);
		if (dup && p == n - 1)
			t[lo] = llama[0]; /* the first part's first tensor again */
		fs.t = t + lo;
		fs.nt = hi - lo;
		fs.meta = fs.vocab = p == 0;
		fs.split_no = p;
		fs.split_count = n;
		fs.split_total = (int)N_LLAMA + total_delta;
		if (p == skip)
			continue;
		snprintf(name, sizeof name, "%s-%05d-of-%05d", prefix, p + 1, n);
		emit(name, &fs, OK, NULL);
	}
}

int
main(int argc, char **argv)
{
	if (argc != 3 || (strcmp(argv[1], "valid") && strcmp(argv[1], "bad"))) {
		fprintf(stderr, "usage: mkgguf valid|bad DIR\n");
		return 2;
	}
	dir = argv[2];
	if (!strcmp(argv[1], "valid")) {
		fspec fs = tiny;
		emit("tiny-llama", &fs, OK, NULL);
		fs.be = true;
		emit("tiny-llama-be", &fs, OK, NULL);
		fs = tiny;
		fs.version = 2;
		emit("tiny-llama-v2", &fs, OK, NULL);
		fs = tiny;
		fs.t = moe;
		fs.nt = N_MOE;
		emit("tiny-moe", &fs, OK, NULL);
		fs = tiny;
		fs.nt = 0;
		fs.n_tokens = 1000;
		emit("vocab-only", &fs, OK, NULL);
		emit_split("tiny-split", 3, 0, -1, 0);
		return 0;
	}
	char path[4096];
	snprintf(path, sizeof path, "%s/expect.tsv", dir);
	FILE *expect = fopen(path, "w");
	if (!expect) {
		perror(path);
		return 1;
	}
	for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++)
		emit(bads[i].name, &tiny, bads[i].bad, expect);
	emit_split("split-missing", 3, 0, 1, 0);
	emit_split("split-dup", 2, 0, -1, 1);
	emit_split("split-total", 2, 5, -1, 0);
	if (fclose(expect) != 0) {
		perror(path);
		return 1;
	}
	return 0;
}
