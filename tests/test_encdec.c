/*
 * test_encdec.c - encoder-decoders as two components read from one
 * config (catalogue parts): T5, UMT5, BART, mBART, Whisper.  Formula
 * from the configs (the real ones in ../shared, transcribed ones in
 * testdata/encdec), `check` on full-size sparse checkpoints written by
 * tools/mkmodel, roles, a planted defect, T5's leftover bias.
 */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "testutil.h"

/* Totals: flan-t5-base and whisper-tiny as published (the issue's);
 * the others derived by hand from their configs' sizes, e.g. t5-small:
 * shared 32,128 x 512 + encoder 6 x 3,146,752 + 256 + 512 + decoder
 * 6 x 4,195,840 + 256 + 512 (tied head) = 60,506,624; bart-base
 * (BartModel): shared 50,265 x 768, positions 2 x 1,026 x 768, embedding
 * norms, 6 x 7,087,872 + 6 x 9,451,776 = 139,420,416; whisper-small:
 * encoder 88,154,112 (convs 185,088 + 1,770,240, positions 1,500 x 768)
 * + decoder 153,580,800 = 241,734,912; mbart-large-cc25 610,851,840;
 * umt5-small (untied, a bias per block) 306,601,984; opus-mt-en-de
 * (Marian: shared 58,101 x 512, sinusoidal positions stored, 512 x 512
 * each, 6 x 3,152,384 + 6 x 4,204,032) 74,410,496; mt5-small (gated,
 * untied: 2 x 250,112 x 512 + 18,883,264 + 25,178,816) 300,176,768. */
static const struct encdec_case {
	const char *file;      /* under ../shared or testdata */
	bool shared;
	unsigned long long total, decoder, encoder;
} cases[] = {
	{"configs/google__flan-t5-base.json", true, 247577856ull, 162623616ull, 84954240ull},
	{"configs/openai__whisper-tiny.json", true, 37760640ull, 29552256ull, 8208384ull},
	{"encdec/google-t5__t5-small.json", false, 60506624ull, 41625344ull, 18881280ull},
	{"encdec/facebook__bart-base.json", false, 139420416ull, 96103680ull, 43316736ull},
	{"encdec/openai__whisper-small.json", false, 241734912ull, 153580800ull, 88154112ull},
	{"encdec/facebook__mbart-large-cc25.json", false, 610851840ull, 458642432ull, 152209408ull},
	{"encdec/google__umt5-small.json", false, 306601984ull, 287717376ull, 18884608ull},
	{"encdec/Helsinki-NLP__opus-mt-en-de.json", false, 74410496ull, 55234048ull, 19176448ull},
	{"encdec/google__mt5-small.json", false, 300176768ull, 281293504ull, 18883264ull},
};

static char *
case_path(const struct encdec_case *c)
{
	return c->shared ? ws_shared_path(c->file) : ws_testdata_path(c->file);
}

static cJSON *
run_json(int want, const char *a1, const char *a2, const char *a3, const char *a4)
{
	ws_run r = ws_run_cli(a1, a2, a3, a4, NULL);
	cr_assert_eq(r.status, want, "exit %d: %s%s", r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "not JSON: %s", r.out);
	ws_run_free(&r);
	return j;
}

static unsigned long long
u64_at(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	cr_assert(v, "no key '%s'", k);
	return cJSON_IsRaw(v) ? strtoull(v->valuestring, NULL, 10) : (unsigned long long)v->valuedouble;
}

static char *
make_model(const char *dir, const char *cfg, const char *opt, const char *val)
{
	char *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, (char *)cfg, (char *)opt, (char *)val, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	return model;
}

Test(encdec, formula_by_component)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = case_path(&cases[i]);
		if (!p)
			cr_skip_test("../shared is absent");
		cJSON *j = run_json(0, "formula", "--json", p, NULL);
		const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "formula");
		const cJSON *bc = cJSON_GetObjectItemCaseSensitive(f, "by_component");
		cr_expect_eq(u64_at(f, "total"), cases[i].total, "%s: %llu", cases[i].file, u64_at(f, "total"));
		cr_expect_eq(u64_at(bc, "decoder"), cases[i].decoder, "%s decoder: %llu", cases[i].file,
			     u64_at(bc, "decoder"));
		cr_expect_eq(u64_at(bc, "encoder"), cases[i].encoder, "%s encoder: %llu", cases[i].file,
			     u64_at(bc, "encoder"));
		cJSON_Delete(j);
		free(p);
	}
}

/* Each as a sparse checkpoint: check passes with the total, every
 * tensor has a role, the two components carry the kinds SPEC names. */
Test(encdec, check_full_size)
{
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = case_path(&cases[i]);
		if (!p)
			cr_skip_test("../shared is absent");
		char *dir = ws_tmpdir(), *model = make_model(dir, p, NULL, NULL);
		cJSON *j = run_json(0, "check", "--json", model, NULL);
		const cJSON *pa = cJSON_GetObjectItemCaseSensitive(j, "params");
		cr_expect_eq(u64_at(pa, "total"), cases[i].total, "%s: %llu", cases[i].file, u64_at(pa, "total"));
		const cJSON *comps = cJSON_GetObjectItemCaseSensitive(j, "components");
		cr_assert_eq(cJSON_GetArraySize(comps), 2);
		const char *kinds[] = {"decoder", "encoder"};
		for (int c = 0; c < 2; c++) {
			const cJSON *co = cJSON_GetArrayItem(comps, c);
			cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "kind")->valuestring, kinds[c]);
			cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(co, "name")->valuestring, kinds[c]);
		}
		cJSON_Delete(j);
		ws_run r = ws_run_cli("ls", "--role", "other", model, NULL);
		cr_expect_eq(r.status, 0);
		cr_expect(!strchr(strchr(r.out, '\n') ? strchr(r.out, '\n') + 1 : "", '\n'),
			  "%s: tensors of role other:\n%s", cases[i].file, r.out);
		ws_run_free(&r);
		ws_rmtree(dir);
		free(dir);
		free(model);
		free(p);
	}
}

/* The encoder's block 1 dropped: exit 1, the findings name the encoder. */
Test(encdec, missing_encoder_block_names_its_component)
{
	char *p = ws_testdata_path("encdec/openai__whisper-small.json");
	char *dir = ws_tmpdir(), *model = make_model(dir, p, "--plant", "missing-tower-layer");
	cJSON *j = run_json(1, "check", "--json", model, NULL);
	const cJSON *fs = cJSON_GetObjectItemCaseSensitive(j, "findings"), *f;
	bool gap = false;
	cJSON_ArrayForEach(f, fs) {
		const cJSON *comp = cJSON_GetObjectItemCaseSensitive(f, "component");
		cr_expect(cJSON_IsString(comp) && !strcmp(comp->valuestring, "encoder"), "a finding without the encoder");
		const cJSON *code = cJSON_GetObjectItemCaseSensitive(f, "code");
		gap = gap || (!strcmp(code->valuestring, "layer-gap") && u64_at(f, "layer") == 1);
	}
	cr_expect(gap, "no layer-gap for block 1");
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(dir);
	free(model);
	free(p);
}

/* T5's leftover relative bias in the decoder's first cross-attention:
 * unloaded-tensor, counted apart, check still passes. */
Test(encdec, t5_leftover_bias_is_unloaded)
{
	char *p = ws_testdata_path("encdec/google-t5__t5-small.json");
	char *dir = ws_tmpdir(), *model = make_model(dir, p, "--ignored", NULL);
	cJSON *j = run_json(0, "check", "--json", model, NULL);
	cr_expect_eq(u64_at(cJSON_GetObjectItemCaseSensitive(j, "params"), "total"), 60506624ull);
	const cJSON *un = cJSON_GetObjectItemCaseSensitive(j, "unloaded");
	cr_expect_eq(u64_at(un, "total"), 256ull);  /* 32 buckets x 8 heads */
	const cJSON *t = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(un, "tensors"), 0);
	cr_expect_str_eq(t->valuestring, "decoder.block.0.layer.1.EncDecAttention.relative_attention_bias.weight");
	const cJSON *fs = cJSON_GetObjectItemCaseSensitive(j, "findings"), *f;
	int n = 0;
	cJSON_ArrayForEach(f, fs) {
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(f, "code")->valuestring, "unloaded-tensor");
		cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(f, "component")->valuestring, "decoder");
		n++;
	}
	cr_expect_eq(n, 1);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(dir);
	free(model);
	free(p);
}

/* One stack saved alone (T5EncoderModel): one component with the table;
 * flan-t5-base's encoder 84,954,240 + the table 24,674,304, by formula
 * and as a checkpoint in safetensors and in llama.cpp's t5encoder GGUF. */
Test(encdec, encoder_alone)
{
	char *dir = ws_tmpdir();
	static const char cfg[] = "{\"architectures\": [\"T5EncoderModel\"], \"model_type\": \"t5\","
				  " \"d_model\": 768, \"d_ff\": 2048, \"d_kv\": 64, \"num_heads\": 12,"
				  " \"num_layers\": 12, \"vocab_size\": 32128, \"feed_forward_proj\": \"gated-gelu\","
				  " \"tie_word_embeddings\": false}";
	char *p = ws_write_file(dir, "config.json", cfg, strlen(cfg));
	cJSON *j = run_json(0, "formula", "--json", p, NULL);
	const cJSON *f = cJSON_GetObjectItemCaseSensitive(j, "formula");
	cr_expect_eq(u64_at(f, "total"), 109628544ull, "%llu", u64_at(f, "total"));
	cJSON_Delete(j);
	for (int gguf = 0; gguf < 2; gguf++) {
		char *sub = ws_join(dir, gguf ? "g" : "s");
		cr_assert_eq(mkdir(sub, 0755), 0);
		char *model = make_model(sub, p, gguf ? "--format" : NULL, "gguf");
		char *file = gguf ? ws_join(model, "model.gguf") : ws_join(model, "");
		j = run_json(0, "check", "--json", file, NULL);
		cr_expect_eq(u64_at(cJSON_GetObjectItemCaseSensitive(j, "params"), "total"), 109628544ull);
		cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0);
		cJSON_Delete(j);
		ws_run r = ws_run_cli("ls", "--role", "other", file, NULL);
		cr_expect(!strchr(strchr(r.out, '\n') ? strchr(r.out, '\n') + 1 : "", '\n'), "role other:\n%s", r.out);
		ws_run_free(&r);
		free(file);
		free(model);
		free(sub);
	}
	ws_rmtree(dir);
	free(dir);
	free(p);
}

/* T5 as llama.cpp converts it (general.architecture t5: token_embd,
 * enc.blk.N / dec.blk.N, output): the same two components and totals,
 * the leftover dec.blk.0.cross_attn_rel_b unloaded. */
Test(encdec, t5_gguf)
{
	char *p = ws_shared_path("configs/google__flan-t5-base.json");
	if (!p)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, p, "--format", "gguf", "--ignored", NULL};
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel: %s", r.err);
	ws_run_free(&r);
	char *file = ws_join(model, "model.gguf");
	cJSON *j = run_json(0, "check", "--json", file, NULL);
	cr_expect_eq(u64_at(cJSON_GetObjectItemCaseSensitive(j, "params"), "total"), 247577856ull);
	cr_expect_eq(u64_at(cJSON_GetObjectItemCaseSensitive(j, "unloaded"), "total"), 384ull);
	const cJSON *bc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "params"), "by_component");
	cr_expect_eq(u64_at(bc, "decoder"), 162623616ull);
	cr_expect_eq(u64_at(bc, "encoder"), 84954240ull);
	cJSON_Delete(j);
	r = ws_run_cli("ls", "--role", "other", file, NULL);
	cr_expect(!strchr(strchr(r.out, '\n') ? strchr(r.out, '\n') + 1 : "", '\n'), "role other:\n%s", r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(dir);
	free(model);
	free(file);
	free(p);
}

/* flops: the top level is the decoder's per token; components[] holds
 * the decoder (per token, its selection's object with its cross-attention: c = 12 blocks x
 * (768 + 768), the input's K and V 12 x 2 x 768 x 768 MACs per input
 * token, cached 12 x 2 x 768 BF16 values per input token) and the
 * encoder (per input sequence: 12 x (4 x 768 x 768 + 3 x 768 x 2,048)
 * MACs a token, b 18,432, no KV cache).  flan-t5-base's sizes. */
Test(encdec, flops_per_component)
{
	char *p = ws_shared_path("configs/google__flan-t5-base.json");
	if (!p)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir(), *model = make_model(dir, p, NULL, NULL);
	cJSON *j = run_json(0, "flops", "--json", model, NULL);
	const cJSON *comps = cJSON_GetObjectItemCaseSensitive(j, "components");
	cr_assert_eq(cJSON_GetArraySize(comps), 2);
	const cJSON *dec = cJSON_GetArrayItem(comps, 0), *enc = cJSON_GetArrayItem(comps, 1);
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(comps, 0), "per")->valuestring, "token");
	cr_expect_str_eq(cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(comps, 1), "per")->valuestring,
			 "input_sequence");
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(dec, "cross_attention");
	cr_expect_eq(u64_at(x, "macs_c"), 18432ull);
	cr_expect_eq(u64_at(x, "macs_a_per_input_token"), 14155776ull);
	cr_expect_eq(u64_at(x, "kv_cache_bytes_per_input_token"), 36864ull);
	cr_expect_eq(u64_at(dec, "kv_cache_bytes_per_token"), 36864ull);
	cr_expect_eq(u64_at(dec, "params"), 162623616ull);
	const cJSON *em = cJSON_GetObjectItemCaseSensitive(enc, "macs");
	cr_expect_eq(u64_at(em, "a"), 84934656ull);
	cr_expect_eq(u64_at(em, "b"), 18432ull);
	cr_expect_eq(u64_at(enc, "kv_cache_bytes_per_token"), 0ull);
	cr_expect(!cJSON_GetObjectItemCaseSensitive(enc, "cross_attention"));
	/* the top level: the decoder's */
	const cJSON *top = cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "selections"), 0);
	cr_expect_eq(u64_at(top, "params"), 162623616ull);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(dir);
	free(model);
	free(p);
}

/* encoder.embed_tokens and decoder.embed_tokens stored beside T5's
 * shared table (older writers): one table, counted once, check passes. */
Test(encdec, tied_copies_counted_once)
{
	char *p = ws_testdata_path("encdec/google-t5__t5-small.json");
	char *dir = ws_tmpdir(), *model = make_model(dir, p, "--tied-copies", NULL);
	cJSON *j = run_json(0, "check", "--json", model, NULL);
	cr_expect_eq(u64_at(cJSON_GetObjectItemCaseSensitive(j, "params"), "total"), 60506624ull);
	cr_expect_eq(u64_at(j, "tensor_count"), 133ull);  /* 131 and the 2 copies */
	cr_expect_eq(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "findings")), 0);
	cJSON_Delete(j);
	ws_rmtree(dir);
	free(dir);
	free(model);
	free(p);
}
