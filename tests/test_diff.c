/* test_diff.c - diff: identical checkpoints, one changed tensor, a HF
 * checkpoint against a converter-layout GGUF, Llama-2-7B -> Llama-3-8B. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/diff.h"
#include "testutil.h"

/* ==== helpers ==== */

static void
copy_file(const char *from, const char *dir, const char *name)
{
	FILE *f = fopen(from, "rb");
	cr_assert(f, "cannot read %s", from);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	cr_assert(buf && fread(buf, 1, (size_t)n, f) == (size_t)n);
	fclose(f);
	free(ws_write_file(dir, name, buf, (size_t)n));
	free(buf);
}

/* A copy of testdata/tiny-llama in a fresh folder. */
static char *
tiny_copy(void)
{
	char *dir = ws_tmpdir();
	char *st = ws_testdata_path("tiny-llama/model.safetensors");
	char *cfg = ws_testdata_path("tiny-llama/config.json");
	copy_file(st, dir, "model.safetensors");
	copy_file(cfg, dir, "config.json");
	free(st);
	free(cfg);
	return dir;
}

static cJSON *
json_run(int want, const char *a, const char *b)
{
	ws_run r = ws_run_cli("--json", "diff", a, b, NULL);
	cr_assert_eq(r.status, want, "exit %d\n%s\n%s", r.status, r.out, r.err);
	cJSON *o = cJSON_Parse(r.out);
	cr_assert(o, "not JSON: %s", r.out);
	ws_run_free(&r);
	return o;
}

static bool
has_info(const cJSON *o, const char *code)
{
	const cJSON *it;
	cJSON_ArrayForEach(it, cJSON_GetObjectItem(o, "info"))
		if (!strcmp(cJSON_GetObjectItem(it, "code")->valuestring, code))
			return true;
	return false;
}

/* shape[i] of roles.ROLE.{a,b}_shape */
static long long
role_dim(const cJSON *o, const char *role, const char *side, int i)
{
	const cJSON *r = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "roles"), role);
	cr_assert(r, "no role %s", role);
	const cJSON *s = cJSON_GetObjectItem(r, side);
	cr_assert(s, "no %s for %s", side, role);
	return (long long)cJSON_GetArrayItem(s, i)->valuedouble;
}

/* ==== a GGUF in the converter's layout ==== */

typedef struct gt {
	char name[96];
	uint32_t nd;
	uint64_t ne[4];  /* GGUF order: innermost first */
	uint32_t type;   /* 0 F32, 1 F16 */
} gt;

static void
put(FILE *f, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		fputc((int)((v >> (8 * i)) & 0xff), f);
}

static void
put_str(FILE *f, const char *s)
{
	put(f, strlen(s), 8);
	fwrite(s, 1, strlen(s), f);
}

/* GGUF v3, no metadata, zero data (content is not compared across
 * formats, only the structure). */
static char *
write_gguf(const char *dir, const char *name, const gt *t, size_t n)
{
	char *p = ws_join(dir, name);
	FILE *f = fopen(p, "wb");
	cr_assert(f);
	fwrite("GGUF", 1, 4, f);
	put(f, 3, 4);
	put(f, n, 8);
	put(f, 0, 8);
	uint64_t off = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t el = 1;
		put_str(f, t[i].name);
		put(f, t[i].nd, 4);
		for (uint32_t d = 0; d < t[i].nd; d++) {
			put(f, t[i].ne[d], 8);
			el *= t[i].ne[d];
		}
		put(f, t[i].type, 4);
		put(f, off, 8);
		off += (el * (t[i].type ? 2 : 4) + 31) / 32 * 32;
	}
	long pos = ftell(f);
	while (pos % 32) {
		fputc(0, f);
		pos++;
	}
	for (uint64_t i = 0; i < off; i++)
		fputc(0, f);
	cr_assert_eq(fclose(f), 0);
	return p;
}

/* HF llama name -> GGUF name (the converter's table, for the tiny model). */
static const struct { const char *hf, *gg; } names[] = {
	{"input_layernorm", "attn_norm"}, {"self_attn.q_proj", "attn_q"},
	{"self_attn.k_proj", "attn_k"}, {"self_attn.v_proj", "attn_v"},
	{"self_attn.o_proj", "attn_output"}, {"post_attention_layernorm", "ffn_norm"},
	{"mlp.gate_proj", "ffn_gate"}, {"mlp.up_proj", "ffn_up"}, {"mlp.down_proj", "ffn_down"},
};

enum variant { PLAIN, FUSED_QKV, WRONG_FFN };

/* The GGUF a converter would write for testdata/tiny-llama: reversed dims,
 * F16 matrices, F32 norms, rope_freqs added; variants fuse q/k/v into
 * attn_qkv or break one shape. */
static char *
converted(const char *dir, enum variant v)
{
	char *src = ws_testdata_path("tiny-llama");
	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(src, NULL, &m, &err), 0, "%s", err.message);
	gt t[64];
	size_t n = 0;
	uint64_t qkv_rows[8] = {0}, hidden = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *x = &m->tensors[i];
		gt *g = &t[n];
		memset(g, 0, sizeof *g);
		int layer = -1;
		char rest[96] = "";
		if (sscanf(x->name, "model.layers.%d.%95s", &layer, rest) == 2) {
			char *w = strstr(rest, ".weight");
			cr_assert(w);
			*w = '\0';
			const char *gg = NULL;
			for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
				if (!strcmp(rest, names[k].hf))
					gg = names[k].gg;
			cr_assert(gg, "%s", x->name);
			bool qkv = !strcmp(gg, "attn_q") || !strcmp(gg, "attn_k") || !strcmp(gg, "attn_v");
			if (v == FUSED_QKV && qkv) {
				qkv_rows[layer] += x->shape[0];
				hidden = x->shape[1];
				continue;
			}
			snprintf(g->name, sizeof g->name, "blk.%d.%s.weight", layer, gg);
		} else if (!strcmp(x->name, "model.embed_tokens.weight")) {
			snprintf(g->name, sizeof g->name, "token_embd.weight");
		} else if (!strcmp(x->name, "model.norm.weight")) {
			snprintf(g->name, sizeof g->name, "output_norm.weight");
		} else if (!strcmp(x->name, "lm_head.weight")) {
			snprintf(g->name, sizeof g->name, "output.weight");
		} else {
			cr_assert_fail("unexpected %s", x->name);
		}
		g->nd = x->ndim;
		for (uint32_t d = 0; d < x->ndim; d++)
			g->ne[d] = x->shape[x->ndim - 1 - d];
		g->type = x->ndim == 1 ? 0 : 1;
		if (v == WRONG_FFN && strstr(g->name, "blk.1.ffn_up"))
			g->ne[1] += 8;
		n++;
	}
	for (int l = 0; v == FUSED_QKV && l < 8; l++)
		if (qkv_rows[l]) {
			t[n] = (gt){.nd = 2, .ne = {hidden, qkv_rows[l]}, .type = 1};
			snprintf(t[n].name, sizeof t[n].name, "blk.%d.attn_qkv.weight", l);
			n++;
		}
	t[n] = (gt){.name = "rope_freqs.weight", .nd = 1, .ne = {4}, .type = 0};
	n++;
	ws_model_free(m);
	free(src);
	return write_gguf(dir, v == PLAIN ? "conv.gguf" : v == FUSED_QKV ? "fused.gguf" : "wrong.gguf",
			  t, n);
}

/* ==== same format: by name and content ==== */

Test(diff, tiny_with_itself_is_identical)
{
	char *p = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("diff", p, p, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, "result: identical"), "%s", r.out);
	ws_run_free(&r);
	/* a copy (another inode) is hashed, and still identical */
	char *dir = tiny_copy();
	cJSON *o = json_run(0, p, dir);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(o, "ok")));
	cr_assert_str_eq(cJSON_GetObjectItem(o, "mode")->valuestring, "name");
	cr_assert_eq(cJSON_GetObjectItem(o, "hashed")->valueint, 21);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "differences")), 0);
	cJSON_Delete(o);
	ws_rmtree(dir);
	free(dir);
	free(p);
}

Test(diff, one_changed_tensor_is_named)
{
	char *orig = ws_testdata_path("tiny-llama");
	char *dir = tiny_copy();
	char *st = ws_join(dir, "model.safetensors");
	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(st, NULL, &m, &err), 0);
	uint64_t off = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (!strcmp(m->tensors[i].name, "model.layers.1.mlp.up_proj.weight"))
			off = m->tensors[i].offset + 100;
	ws_model_free(m);
	cr_assert(off);
	int fd = open(st, O_RDWR);
	unsigned char c;
	cr_assert(pread(fd, &c, 1, (off_t)off) == 1);
	c ^= 0x5a;
	cr_assert(pwrite(fd, &c, 1, (off_t)off) == 1);
	close(fd);

	ws_run r = ws_run_cli("diff", orig, dir, NULL);
	cr_assert_eq(r.status, 1, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, "content   model.layers.1.mlp.up_proj.weight"), "%s", r.out);
	cr_assert(ws_contains(r.out, "result: 1 difference"), "%s", r.out);
	ws_run_free(&r);

	cJSON *o = json_run(1, orig, dir);
	cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "differences"), 0);
	cr_assert_str_eq(cJSON_GetObjectItem(d, "kind")->valuestring, "content");
	cr_assert_str_eq(cJSON_GetObjectItem(d, "name")->valuestring,
			 "model.layers.1.mlp.up_proj.weight");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "differences")), 1);
	cr_assert(cJSON_IsFalse(cJSON_GetObjectItem(o, "ok")));
	cJSON_Delete(o);
	ws_rmtree(dir);
	free(dir);
	free(st);
	free(orig);
}

Test(diff, only_in_and_dtype_changes)
{
	char *a = ws_tmpdir(), *b = ws_tmpdir();
	/* A: x F32 [2], y F32 [2]; B: x F16 [2], z F32 [2] */
	static const char ha[] = "{\"x\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]},"
				 "\"y\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[8,16]}}";
	static const char hb[] = "{\"x\":{\"dtype\":\"F16\",\"shape\":[2],\"data_offsets\":[0,4]},"
				 "\"z\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[4,12]}}";
	char buf[256];
	const char *hs[2] = {ha, hb};
	char *dirs[2] = {a, b};
	size_t dl[2] = {16, 12};
	char *paths[2];
	for (int s = 0; s < 2; s++) {
		size_t hl = strlen(hs[s]), pad = (8 - hl % 8) % 8;
		memset(buf, 0, sizeof buf);
		uint64_t n = hl + pad;
		for (int i = 0; i < 8; i++)
			buf[i] = (char)(n >> (8 * i));
		memcpy(buf + 8, hs[s], hl);
		memset(buf + 8 + hl, ' ', pad);
		paths[s] = ws_write_file(dirs[s], "m.safetensors", buf, 8 + n + dl[s]);
	}
	ws_run r = ws_run_cli("diff", paths[0], paths[1], NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(ws_contains(r.out, "only in A y  F32 [2]"), "%s", r.out);
	cr_assert(ws_contains(r.out, "only in B z  F32 [2]"), "%s", r.out);
	cr_assert(ws_contains(r.out, "dtype     x  F32 [2] -> F16 [2]"), "%s", r.out);
	ws_run_free(&r);
	for (int s = 0; s < 2; s++) {
		free(paths[s]);
		ws_rmtree(dirs[s]);
		free(dirs[s]);
	}
}

/* ==== across formats: structural ==== */

Test(diff, hf_and_converted_gguf_match_structurally)
{
	char *hf = ws_testdata_path("tiny-llama"), *dir = ws_tmpdir();
	char *gg = converted(dir, PLAIN);
	ws_run r = ws_run_cli("diff", hf, gg, NULL);
	cr_assert_eq(r.status, 0, "%s%s", r.out, r.err);
	cr_assert(ws_contains(r.out, "result: structurally equal"), "%s", r.out);
	ws_run_free(&r);

	cJSON *o = json_run(0, hf, gg);
	cr_assert_str_eq(cJSON_GetObjectItem(o, "mode")->valuestring, "structural");
	cr_assert(has_info(o, "permuted-qk"));
	cr_assert(has_info(o, "dtype-changed"));
	cr_assert(has_info(o, "buffers")); /* rope_freqs added */
	cr_assert_eq(cJSON_GetObjectItem(o, "matched")->valueint, 42);
	cJSON_Delete(o);
	free(gg);

	/* q, k and v fused into attn_qkv: still equal, an info */
	gg = converted(dir, FUSED_QKV);
	o = json_run(0, hf, gg);
	cr_assert(has_info(o, "fused-or-split"));
	cJSON_Delete(o);
	free(gg);

	/* one feed-forward matrix of another shape: a difference naming it */
	gg = converted(dir, WRONG_FFN);
	o = json_run(1, hf, gg);
	cJSON *d = cJSON_GetArrayItem(cJSON_GetObjectItem(o, "differences"), 0);
	cr_assert_str_eq(cJSON_GetObjectItem(d, "kind")->valuestring, "shape");
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "b"), "name")->valuestring,
			 "blk.1.ffn_up.weight");
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(d, "a"), "name")->valuestring,
			 "model.layers.1.mlp.up_proj.weight");
	cJSON_Delete(o);
	free(gg);
	ws_rmtree(dir);
	free(dir);
	free(hf);
}

Test(diff, gguf_byte_orders_are_structural)
{
	char *dir = ws_tmpdir();
	char *argv[] = {getenv("WS_MKGGUF"), "valid", dir, NULL};
	ws_run g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0);
	ws_run_free(&g);
	char *le = ws_join(dir, "tiny-llama.gguf"), *be = ws_join(dir, "tiny-llama-be.gguf");
	cJSON *o = json_run(0, le, be);
	cr_assert(has_info(o, "byte-order"));
	cr_assert_str_eq(cJSON_GetObjectItem(cJSON_GetObjectItem(o, "b"), "byte_order")->valuestring,
			 "big");
	cJSON_Delete(o);
	/* the same byte order: by name, content hashed */
	o = json_run(0, le, le);
	cr_assert_str_eq(cJSON_GetObjectItem(o, "mode")->valuestring, "name");
	cJSON_Delete(o);
	free(le);
	free(be);
	ws_rmtree(dir);
	free(dir);
}

/* ==== full-size sparse checkpoints ==== */

static char *
sparse(const char *dir, const char *name, const char *config)
{
	char *cfg = ws_shared_path(config);
	if (!cfg)
		return NULL;
	char *out = ws_join(dir, name);
	ws_mkfixture("sparse", out, cfg, NULL);
	free(cfg);
	return out;
}

Test(diff, sparse_checkpoint_with_itself_and_a_copy, .timeout = 120)
{
	char *dir = ws_tmpdir();
	char *a = sparse(dir, "a", "configs/Qwen__Qwen2-0.5B.json");
	if (!a) {
		ws_rmtree(dir);
		free(dir);
		cr_skip_test("no ../shared/realdata");
	}
	cJSON *o = json_run(0, a, a);
	cr_assert_eq(cJSON_GetObjectItem(o, "same_file")->valueint, 218);
	cJSON_Delete(o);
	/* a second generation is another file with the same bytes: hashed */
	char *b = sparse(dir, "b", "configs/Qwen__Qwen2-0.5B.json");
	o = json_run(0, a, b);
	cr_assert_eq(cJSON_GetObjectItem(o, "hashed")->valueint, 218);
	cr_assert(cJSON_IsTrue(cJSON_GetObjectItem(o, "ok")));
	cJSON_Delete(o);
	free(a);
	free(b);
	ws_rmtree(dir);
	free(dir);
}

Test(diff, llama2_7b_to_llama3_8b_role_deltas, .timeout = 120)
{
	char *dir = ws_tmpdir();
	char *a = sparse(dir, "l2", "configs/meta-llama__Llama-2-7b-hf.json");
	char *b = a ? sparse(dir, "l3", "configs/meta-llama__Meta-Llama-3-8B.json") : NULL;
	if (!a || !b) {
		free(a);
		ws_rmtree(dir);
		free(dir);
		cr_skip_test("no ../shared/realdata");
	}
	cJSON *o = json_run(1, a, b);
	cr_assert_eq(role_dim(o, "embed", "a_shape", 0), 32000);
	cr_assert_eq(role_dim(o, "embed", "b_shape", 0), 128256);
	cr_assert_eq(role_dim(o, "ffn_up", "a_shape", 0), 11008);
	cr_assert_eq(role_dim(o, "ffn_up", "b_shape", 0), 14336);
	cr_assert_eq(role_dim(o, "ffn_down", "b_shape", 1), 14336);
	cr_assert_eq(role_dim(o, "attn_k", "a_shape", 0), 4096);
	cr_assert_eq(role_dim(o, "attn_k", "b_shape", 0), 1024);
	cr_assert_eq(role_dim(o, "attn_v", "b_shape", 0), 1024);
	cJSON *p = cJSON_GetObjectItem(o, "params");
	cr_assert_eq((long long)cJSON_GetObjectItem(p, "a")->valuedouble, 6738415616LL);
	cr_assert_eq((long long)cJSON_GetObjectItem(p, "b")->valuedouble, 8030261248LL);
	cr_assert_eq((long long)cJSON_GetObjectItem(p, "delta")->valuedouble, 1291845632LL);
	cJSON *emb = cJSON_GetObjectItem(cJSON_GetObjectItem(o, "roles"), "embed");
	cr_assert_eq((long long)cJSON_GetObjectItem(emb, "delta")->valuedouble, 394264576LL);
	/* attn_q and attn_o kept their shapes: hashed, equal (both all zero) */
	cr_assert_eq(cJSON_GetObjectItem(o, "hashed")->valueint, 129);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(o, "differences")), 162);
	cJSON_Delete(o);

	/* the text names the shape change per role */
	ws_run r = ws_run_cli("diff", a, b, NULL);
	cr_assert_eq(r.status, 1);
	cr_assert(ws_contains(r.out, "[32000, 4096]"));
	cr_assert(ws_contains(r.out, "[128256, 4096]"));
	cr_assert(ws_contains(r.out, "+394,264,576"), "%s", r.out);
	ws_run_free(&r);
	free(a);
	free(b);
	ws_rmtree(dir);
	free(dir);
}
