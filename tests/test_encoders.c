/* test_encoders.c - BERT-family encoders through the catalogue: the body
 * (post-norm layers, learned positions, token types) and the parts each
 * class adds (pooler, masked-LM head, next-sentence head, classifiers),
 * from released configs, against the counts transformers gives; and
 * full-size sparse checkpoints with the released tensor names, checked. */
#include <criterion/criterion.h>
#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ws/error.h"
#include "ws/model.h"
#include "ws/formula.h"
#include "testutil.h"

/* ==== helpers ==== */

static uint64_t
total_of_json(const char *json)
{
	cJSON *cfg = cJSON_Parse(json);
	cr_assert(cfg, "bad test JSON: %s", json);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	uint64_t t = f.total;
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	return t;
}

/* A count of a parsed document (exact below 2^53, as every count here). */
static uint64_t
json_u64(const cJSON *o, const char *a, const char *b)
{
	const cJSON *x = cJSON_GetObjectItemCaseSensitive(o, a);
	if (b)
		x = cJSON_GetObjectItemCaseSensitive(x, b);
	cr_assert(cJSON_IsNumber(x), "%s.%s is missing", a, b ? b : "");
	return (uint64_t)x->valuedouble;
}

/* mkmodel DIR CONFIG and up to four more arguments (NULL ends them) */
static void
mkmodel4(const char *dir, const char *config, const char *o1, const char *o2, const char *o3,
	 const char *o4)
{
	char *argv[] = {getenv("WS_MKMODEL"), (char *)dir, (char *)config, (char *)o1,
			o1 ? (char *)o2 : NULL, o1 && o2 ? (char *)o3 : NULL,
			o1 && o2 && o3 ? (char *)o4 : NULL, NULL};
	cr_assert(argv[0], "WS_MKMODEL is not set");
	ws_run r = ws_run_argv(argv);
	cr_assert_eq(r.status, 0, "mkmodel %s: %s", config, r.err);
	ws_run_free(&r);
}

static void
mkmodel(const char *dir, const char *config, const char *o1, const char *o2, const char *o3)
{
	mkmodel4(dir, config, o1, o2, o3, NULL);
}

/* Every tensor of model has a role other than `other`. */
static void
expect_no_other_role(const char *model)
{
	ws_run r = ws_run_cli("ls", model, "--role", "other", "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "\"tensors\":[]"), "tensors without a role: %s", r.out);
	ws_run_free(&r);
}

/* check model --json: exit 0, params and formula `total`, and the codes
 * of the findings, comma-separated, equal to `codes` ("" for none).
 * Returns the parsed document (the caller deletes it). */
static cJSON *
check_model(const char *model, uint64_t total, const char *codes)
{
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s: exit %d: %s%s", model, r.status, r.out, r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s: not JSON: %s", model, r.out);
	cr_expect_eq(json_u64(j, "params", "total"), total, "%s: params %llu, expected %llu", model,
		     (unsigned long long)json_u64(j, "params", "total"), (unsigned long long)total);
	cr_expect_eq(json_u64(j, "formula", "total"), total, "%s: formula %llu", model,
		     (unsigned long long)json_u64(j, "formula", "total"));
	char got[256] = "";
	const cJSON *f;
	cJSON_ArrayForEach(f, cJSON_GetObjectItemCaseSensitive(j, "findings")) {
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(f, "code");
		size_t n = strlen(got);
		snprintf(got + n, sizeof got - n, "%s%s", n ? "," : "", cJSON_IsString(c) ? c->valuestring : "?");
	}
	cr_expect_str_eq(got, codes, "%s: findings %s", model, r.out);
	ws_run_free(&r);
	return j;
}

/* Generate a checkpoint from config (a JSON text), check it. */
static void
check_generated(const char *json, uint64_t total)
{
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "config.src.json", json, strlen(json));
	char *model = ws_join(dir, "model");
	mkmodel(model, p, NULL, NULL, NULL);
	cJSON_Delete(check_model(model, total, ""));
	expect_no_other_role(model);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== released configs ==== */

/* The count-relevant keys of a released encoder config. */
#define ENC(cls, type, h, inter, heads, layers, vocab, pos, types, extra) \
	"{\"architectures\": [\"" cls "\"], \"model_type\": \"" type "\", \"hidden_size\": " #h \
	", \"intermediate_size\": " #inter ", \"num_attention_heads\": " #heads \
	", \"num_hidden_layers\": " #layers ", \"vocab_size\": " #vocab \
	", \"max_position_embeddings\": " #pos ", \"type_vocab_size\": " #types extra "}"

/* DistilBertConfig spells the widths dim and hidden_dim */
#define DISTIL(cls, vocab, extra) \
	"{\"architectures\": [\"" cls "\"], \"model_type\": \"distilbert\", \"dim\": 768, \"hidden_dim\": 3072," \
	" \"n_heads\": 12, \"n_layers\": 6, \"max_position_embeddings\": 512, \"sinusoidal_pos_embds\": false," \
	" \"vocab_size\": " #vocab extra "}"
/* ElectraConfig's widths: the embeddings' and the hidden size */
#define ELECTRA(cls, e, h, inter, heads, layers) \
	"{\"architectures\": [\"" cls "\"], \"model_type\": \"electra\", \"embedding_size\": " #e \
	", \"hidden_size\": " #h ", \"intermediate_size\": " #inter ", \"num_attention_heads\": " #heads \
	", \"num_hidden_layers\": " #layers ", \"max_position_embeddings\": 512, \"type_vocab_size\": 2," \
	" \"vocab_size\": 30522}"
#define LABELS2 ", \"id2label\": {\"0\": \"NEGATIVE\", \"1\": \"POSITIVE\"}"
#define LABELS3 ", \"id2label\": {\"0\": \"negative\", \"1\": \"neutral\", \"2\": \"positive\"}"
#define LABELS9                                                                         \
	", \"id2label\": {\"0\": \"O\", \"1\": \"B-MISC\", \"2\": \"I-MISC\", \"3\": \"B-PER\"," \
	" \"4\": \"I-PER\", \"5\": \"B-ORG\", \"6\": \"I-ORG\", \"7\": \"B-LOC\", \"8\": \"I-LOC\"}"

/*
 * Totals.  An encoder layer of width d and MLP width f holds
 * 4(d² + d) + (df + f) + (fd + d) + 4d (q, k, v, o, the MLP, two
 * LayerNorms with biases); the embeddings (V + P + T)·d + 2d; the pooler
 * d² + d; the masked-LM head d² + d (transform) + 2d (its LayerNorm) + V
 * (its bias; the decoder is the tied embedding).
 *   bert-large (d 1024, f 4096, 24 layers, V 30522, P 512, T 2):
 *     body 334,092,288; BertModel (pooler) 335,141,888, the count
 *     transformers prints for bert-large-uncased; BertForMaskedLM, the
 *     released config's class, 335,174,458.
 *   bert-base-multilingual-cased (V 119547): BertModel 177,853,440.
 *   roberta-base (d 768, V 50265, P 514, T 1): body 124,055,040;
 *     RobertaModel 124,645,632 (published); RobertaForMaskedLM
 *     124,697,433; RobertaForSequenceClassification of 3 labels (dense
 *     d² + d and out_proj 3d + 3, no pooler; twitter-roberta-base-
 *     sentiment) 124,647,939; RobertaForQuestionAnswering (2d + 2;
 *     roberta-base-squad2) 124,056,578.
 *   xlm-roberta-base (V 250002): XLMRobertaModel 278,043,648
 *     (published); XLMRobertaForMaskedLM 278,295,186.
 *   xlm-roberta-large (d 1024, 24 layers): XLMRobertaModel 559,890,432
 *     (published).
 *   bert-base-cased (V 28996): BertModel 108,310,272 (published); its
 *     token classifier of 9 labels without the pooler (bert-base-NER)
 *     107,726,601.
 *   distilbert-base-uncased (6 layers, no token types): DistilBertModel
 *     66,362,880 (published); DistilBertForMaskedLM, its config's class,
 *     66,985,530; the SST-2 fine-tune's DistilBertForSequenceClassification
 *     (pre_classifier d² + d, classifier 2d + 2) 66,955,010.
 *   distilbert-base-multilingual-cased (V 119547): DistilBertModel
 *     134,734,080.
 *   electra-small-discriminator (embeddings 128 wide, projected to 256:
 *     (V + P + T)·128 + 256 + 256·128 + 256; 12 layers of 256, MLP 1024):
 *     ElectraModel 13,483,008; ElectraForPreTraining, the released class
 *     (a dense layer d² + d and one output d + 1), 13,549,057.
 *   electra-small-generator (its masked-LM head of the embedding width:
 *     128·256 + 128, a LayerNorm of 128, the bias V): 13,546,682.
 *   electra-base-discriminator (embeddings as wide as the layers: no
 *     projection; BERT-base's body 108,891,648): 109,483,009.
 *   electra-large-discriminator (BERT-large's body 334,092,288):
 *     335,142,913.
 */
static const struct released {
	const char *what, *json;
	uint64_t total;
} released[] = {
	{"bert-large-uncased", ENC("BertForMaskedLM", "bert", 1024, 4096, 16, 24, 30522, 512, 2, ""), 335174458ull},
	{"bert-large-uncased as BertModel", ENC("BertModel", "bert", 1024, 4096, 16, 24, 30522, 512, 2, ""), 335141888ull},
	{"bert-base-multilingual-cased", ENC("BertModel", "bert", 768, 3072, 12, 12, 119547, 512, 2, ""), 177853440ull},
	{"roberta-base", ENC("RobertaForMaskedLM", "roberta", 768, 3072, 12, 12, 50265, 514, 1, ""), 124697433ull},
	{"roberta-base as RobertaModel", ENC("RobertaModel", "roberta", 768, 3072, 12, 12, 50265, 514, 1, ""), 124645632ull},
	{"twitter-roberta-base-sentiment-latest",
	 ENC("RobertaForSequenceClassification", "roberta", 768, 3072, 12, 12, 50265, 514, 1, LABELS3), 124647939ull},
	{"roberta-base-squad2", ENC("RobertaForQuestionAnswering", "roberta", 768, 3072, 12, 12, 50265, 514, 1, ""),
	 124056578ull},
	{"xlm-roberta-base", ENC("XLMRobertaForMaskedLM", "xlm-roberta", 768, 3072, 12, 12, 250002, 514, 1, ""),
	 278295186ull},
	{"xlm-roberta-base as XLMRobertaModel",
	 ENC("XLMRobertaModel", "xlm-roberta", 768, 3072, 12, 12, 250002, 514, 1, ""), 278043648ull},
	{"xlm-roberta-large as XLMRobertaModel",
	 ENC("XLMRobertaModel", "xlm-roberta", 1024, 4096, 16, 24, 250002, 514, 1, ""), 559890432ull},
	{"bert-base-cased as BertModel", ENC("BertModel", "bert", 768, 3072, 12, 12, 28996, 512, 2, ""), 108310272ull},
	{"bert-base-NER", ENC("BertForTokenClassification", "bert", 768, 3072, 12, 12, 28996, 512, 2, LABELS9),
	 107726601ull},
	{"distilbert-base-uncased", DISTIL("DistilBertForMaskedLM", 30522, ""), 66985530ull},
	{"distilbert-base-uncased as DistilBertModel", DISTIL("DistilBertModel", 30522, ""), 66362880ull},
	{"distilbert-base-uncased-finetuned-sst-2-english",
	 DISTIL("DistilBertForSequenceClassification", 30522, LABELS2), 66955010ull},
	{"distilbert-base-multilingual-cased as DistilBertModel", DISTIL("DistilBertModel", 119547, ""),
	 134734080ull},
	{"electra-small-discriminator", ELECTRA("ElectraForPreTraining", 128, 256, 1024, 4, 12), 13549057ull},
	{"electra-small-discriminator as ElectraModel", ELECTRA("ElectraModel", 128, 256, 1024, 4, 12),
	 13483008ull},
	{"electra-small-generator", ELECTRA("ElectraForMaskedLM", 128, 256, 1024, 4, 12), 13546682ull},
	{"electra-base-discriminator", ELECTRA("ElectraForPreTraining", 768, 768, 3072, 12, 12), 109483009ull},
	{"electra-large-discriminator", ELECTRA("ElectraForPreTraining", 1024, 1024, 4096, 16, 24),
	 335142913ull},
};

Test(encoders, released_formula_totals)
{
	for (size_t i = 0; i < sizeof released / sizeof released[0]; i++) {
		uint64_t t = total_of_json(released[i].json);
		cr_expect_eq(t, released[i].total, "%s: %llu, expected %llu", released[i].what,
			     (unsigned long long)t, (unsigned long long)released[i].total);
	}
}

Test(encoders, released_checkpoints_check)
{
	for (size_t i = 0; i < sizeof released / sizeof released[0]; i++)
		check_generated(released[i].json, released[i].total);
}

/* The two real configs in ../shared */
Test(encoders, real_configs)
{
	static const struct {
		const char *file;
		uint64_t total;
	} cases[] = {
		/* BertForMaskedLM: body 108,891,648 + masked-LM head 622,650 */
		{"configs/google-bert__bert-base-uncased.json", 109514298ull},
		/* BertModel: body 22,565,376 + pooler 147,840 */
		{"configs/sentence-transformers__all-MiniLM-L6-v2.json", 22713216ull},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *p = ws_shared_path(cases[i].file);
		if (!p)
			cr_skip_test("../shared is absent");
		cJSON *cfg = ws_load_json(p);
		struct ws_arch a;
		struct ws_formula f;
		ws_formula_of(cfg, &a, &f);
		cr_expect_eq(f.total, cases[i].total, "%s: %llu", cases[i].file, (unsigned long long)f.total);
		ws_formula_free(&f);
		ws_arch_free(&a);
		cJSON_Delete(cfg);
		free(p);
	}
}

/* ==== each class's parts ==== */

/* bert-base's sizes under each class: body 108,891,648 */
Test(encoders, bert_classes)
{
	static const struct {
		const char *cls;
		uint64_t total;
	} cases[] = {
		{"BertModel", 108891648ull + 590592},                     /* pooler */
		{"BertForMaskedLM", 108891648ull + 622650},               /* MLM head */
		{"BertLMHeadModel", 108891648ull + 622650},
		{"BertForPreTraining", 108891648ull + 590592 + 622650 + 1538}, /* + NSP 2d + 2 */
		{"BertForNextSentencePrediction", 108891648ull + 590592 + 1538},
		{"BertForSequenceClassification", 108891648ull + 590592 + 1538}, /* 2 labels */
		{"BertForMultipleChoice", 108891648ull + 590592 + 769},  /* one output */
		{"BertForTokenClassification", 108891648ull + 1538},     /* no pooler */
		{"BertForQuestionAnswering", 108891648ull + 1538},
	};
	char json[512];
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		snprintf(json, sizeof json,
			 "{\"architectures\": [\"%s\"], \"model_type\": \"bert\", \"vocab_size\": 30522}",
			 cases[i].cls);
		cr_expect_eq(total_of_json(json), cases[i].total, "%s: %llu", cases[i].cls,
			     (unsigned long long)total_of_json(json));
	}
}

Test(encoders, a_class_whose_head_is_not_modelled_has_no_formula)
{
	/* ElectraForMultipleChoice's sequence summary is not in the
	 * catalogue: no formula rather than another class's */
	cJSON *cfg = cJSON_Parse(ELECTRA("ElectraForMultipleChoice", 128, 256, 1024, 4, 12));
	struct ws_arch a;
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_config(cfg, "config.json", &a, &err), 0, "%s", err.message);
	cr_expect(!a.known);
	cr_expect(a.unsupported && ws_contains(a.unsupported, "not in the catalogue"));
	cr_expect_str_eq(a.cls, "ElectraForMultipleChoice");
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	/* ElectraConfig's defaults are electra-small's */
	cr_expect_eq(total_of_json("{\"architectures\": [\"ElectraForPreTraining\"]}"), 13549057ull);
}

Test(encoders, distilbert_class_defaults)
{
	/* DistilBertConfig's defaults are distilbert-base's, under its own
	 * key names (dim, hidden_dim, n_layers, n_heads) */
	cJSON *cfg = cJSON_Parse("{\"architectures\": [\"DistilBertModel\"]}");
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_expect_eq(f.total, 66362880ull);
	cr_expect_eq(a.hidden_size, 768);
	cr_expect_eq(a.intermediate_size, 3072);
	cr_expect_str_eq(a.keys[WS_AK_HIDDEN], "dim");
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

Test(encoders, class_defaults_and_labels)
{
	/* BertConfig's defaults are bert-base's; no class: AutoModel's BertModel */
	cr_expect_eq(total_of_json("{\"architectures\": [\"BertModel\"]}"), 109482240ull);
	cr_expect_eq(total_of_json("{\"model_type\": \"bert\"}"), 109482240ull);
	/* RobertaConfig's vocabulary, and its 512 positions, 2 token types */
	cr_expect_eq(total_of_json("{\"model_type\": \"roberta\", \"architectures\": [\"RobertaModel\"]}"),
		     109482240ull + (50265ull - 30522) * 768);
	/* num_labels wins over id2label; id2label counts; else 2 */
	const char *base = "{\"architectures\": [\"BertForTokenClassification\"], \"model_type\": \"bert\"";
	char json[256];
	snprintf(json, sizeof json, "%s, \"num_labels\": 5, \"id2label\": {\"0\": \"a\"}}", base);
	cr_expect_eq(total_of_json(json), 108891648ull + 5 * 769);
	snprintf(json, sizeof json, "%s, \"id2label\": {\"0\": \"a\", \"1\": \"b\", \"2\": \"c\"}}", base);
	cr_expect_eq(total_of_json(json), 108891648ull + 3 * 769);
	snprintf(json, sizeof json, "%s}", base);
	cr_expect_eq(total_of_json(json), 108891648ull + 2 * 769);
	/* an untied masked-LM decoder is counted */
	cr_expect_eq(total_of_json("{\"architectures\": [\"BertForMaskedLM\"], \"model_type\": \"bert\","
				   " \"tie_word_embeddings\": false}"),
		     108891648ull + 622650 + 30522ull * 768);
}

Test(encoders, text_and_json_name_the_class)
{
	char *dir = ws_tmpdir();
	const char *json = ENC("RobertaForSequenceClassification", "roberta", 768, 3072, 12, 12, 50265, 514, 1,
			       LABELS3);
	char *p = ws_write_file(dir, "config.json", json, strlen(json));
	ws_run r = ws_run_cli("formula", p, NULL);
	cr_expect_eq(r.status, 0, "%s", r.err);
	cr_expect(ws_contains(r.out, "class RobertaForSequenceClassification: classifier dense, classifier (3 outputs)"),
		  "%s", r.out);
	cr_expect(ws_contains(r.out, "formula       124,647,939"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("formula", p, "--json", NULL);
	cr_expect(ws_contains(r.out, "\"class\":\"RobertaForSequenceClassification\"") &&
		  ws_contains(r.out, "\"num_labels\":3"), "%s", r.out);
	/* dense d² + d and out_proj 3d + 3 */
	cr_expect(ws_contains(r.out, "\"classifier\":592899"), "%s", r.out);
	ws_run_free(&r);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== stored, but not loaded by the config's class ==== */

/* google-bert/bert-base-uncased as released: the BertForPreTraining layout
 * (TF-era gamma / beta names, F32, pooler and next-sentence head, the
 * tied decoder not stored) under a config whose class is BertForMaskedLM.
 * The pooler (d² + d = 590,592) and the next-sentence head (2d + 2 =
 * 1,538) are not loaded: 592,130 elements, named and counted apart. */
Test(encoders, pretraining_file_under_a_masked_lm_config)
{
	char *cfg = ws_shared_path("configs/google-bert__bert-base-uncased.json");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir();
	char *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, cfg, "--class", "BertForPreTraining",
			"--legacy-norms", "--dtype", "F32", NULL};
	ws_run g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0, "%s", g.err);
	ws_run_free(&g);
	cJSON *j = check_model(model, 109514298ull, "unloaded-tensor");
	cr_expect_eq(json_u64(j, "unloaded", "total"), 592130ull);
	const cJSON *ut = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(j, "unloaded"),
							   "tensors");
	cr_expect_eq(cJSON_GetArraySize(ut), 4);
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(
		cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(j, "findings"), 0), "message");
	cr_expect(cJSON_IsString(msg) && ws_contains(msg->valuestring, "BertForMaskedLM") &&
		  ws_contains(msg->valuestring, "bert.pooler.dense.weight") &&
		  ws_contains(msg->valuestring, "cls.seq_relationship.bias") &&
		  ws_contains(msg->valuestring, "592,130"), "%s", msg ? msg->valuestring : "");
	/* never in the parameters: not by role, not by component */
	const cJSON *params = cJSON_GetObjectItemCaseSensitive(j, "params");
	cr_expect_null(cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(params, "by_role"),
						       "pooler"));
	cr_expect_eq(json_u64(params, "by_component", "text"), 109514298ull);
	cJSON_Delete(j);
	expect_no_other_role(model);
	/* they keep their roles */
	ws_run r = ws_run_cli("ls", model, "--role", "nsp_head", NULL);
	cr_expect(ws_contains(r.out, "cls.seq_relationship.weight"), "%s", r.out);
	ws_run_free(&r);
	/* the text says so */
	r = ws_run_cli("check", model, NULL);
	cr_expect(ws_contains(r.out, "unloaded       592,130 elements in 4 tensors"), "%s", r.out);
	ws_run_free(&r);
	free(model);
	ws_rmtree(dir);
	free(dir);
	free(cfg);
}

/* The same file loaded as a sequence classifier: the masked-LM and
 * next-sentence heads are not loaded (622,650 + 1,538), the pooler is,
 * and the classifier transformers would initialise afresh is missing. */
Test(encoders, pretraining_file_under_a_classifier_config)
{
	char *dir = ws_tmpdir();
	const char *json = ENC("BertForSequenceClassification", "bert", 768, 3072, 12, 12, 30522, 512, 2, "");
	char *p = ws_write_file(dir, "config.src.json", json, strlen(json));
	char *model = ws_join(dir, "model");
	mkmodel(model, p, "--class", "BertForPreTraining", NULL);
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 1, "%s", r.out);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	cr_expect_eq(json_u64(j, "unloaded", "total"), 624188ull);
	cr_expect_eq(json_u64(j, "params", "total"), 108891648ull + 590592);
	cr_expect(ws_contains(r.out, "\"code\":\"missing-tensor\"") &&
		  ws_contains(r.out, "\"code\":\"unloaded-tensor\"") &&
		  !ws_contains(r.out, "unexpected-tensor"), "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== sentence-transformers folders ==== */

static const cJSON *
at(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

/* sentence-transformers/all-MiniLM-L6-v2: a BertModel saved without a
 * prefix (pooler stored), its position_ids buffer (512 elements, not a
 * parameter), mean pooling and normalization (no weights): one model. */
Test(encoders, all_minilm_sentence_transformers_folder)
{
	char *cfg = ws_shared_path("configs/sentence-transformers__all-MiniLM-L6-v2.json");
	if (!cfg)
		cr_skip_test("../shared is absent");
	char *dir = ws_tmpdir();
	char *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, cfg, "--st", "--position-ids", "--dtype", "F32", NULL};
	ws_run g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0, "%s", g.err);
	ws_run_free(&g);
	cJSON *j = check_model(model, 22713216ull, "");
	cr_expect_eq(json_u64(j, "buffers", "total"), 512);
	const cJSON *bt = at(at(j, "buffers"), "tensors");
	cr_expect(cJSON_GetArraySize(bt) == 1 && cJSON_IsString(cJSON_GetArrayItem(bt, 0)) &&
		  !strcmp(cJSON_GetArrayItem(bt, 0)->valuestring, "embeddings.position_ids"));
	/* one model: one component, its modules listed in order */
	cr_expect_eq(cJSON_GetArraySize(at(j, "components")), 1);
	const cJSON *mods = at(j, "modules");
	cr_assert_eq(cJSON_GetArraySize(mods), 3);
	static const char *const types[] = {"Transformer", "Pooling", "Normalize"};
	for (int i = 0; i < 3; i++) {
		const cJSON *t = at(cJSON_GetArrayItem(mods, i), "type");
		cr_expect(cJSON_IsString(t) && ws_contains(t->valuestring, types[i]), "module %d", i);
	}
	cJSON_Delete(j);
	expect_no_other_role(model);
	ws_run r = ws_run_cli("inspect", model, NULL);
	cr_expect(ws_contains(r.out, "modules        Transformer (.), Pooling (1_Pooling), Normalize (2_Normalize)"),
		  "%s", r.out);
	ws_run_free(&r);
	free(model);
	ws_rmtree(dir);
	free(dir);
	free(cfg);
}

/* sentence-transformers/LaBSE: a BertModel (V 501153; 470,926,848, the
 * card's 471M) and a Dense module 768 to 768 with a bias (590,592), a
 * component of its own with its count from its config.json. */
Test(encoders, dense_modules_are_counted)
{
	char *dir = ws_tmpdir();
	const char *json = ENC("BertModel", "bert", 768, 3072, 12, 12, 501153, 512, 2, "");
	char *p = ws_write_file(dir, "config.src.json", json, strlen(json));
	char *model = ws_join(dir, "model");
	mkmodel(model, p, "--st-dense", "768", NULL);
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.out);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	cr_expect_eq(json_u64(j, "params", "total"), 470926848ull + 590592);
	cr_expect_eq(json_u64(j, "formula", "total"), 470926848ull);
	cr_expect_eq(json_u64(at(j, "params"), "by_component", "2_Dense"), 590592ull);
	cr_expect_eq(json_u64(at(j, "params"), "by_role", "projector"), 590592ull);
	const cJSON *dense = cJSON_GetArrayItem(at(j, "components"), 1);
	cr_expect(cJSON_IsString(at(dense, "name")) && !strcmp(at(dense, "name")->valuestring, "2_Dense"));
	cr_expect_eq(json_u64(dense, "formula", NULL), 590592ull);
	cr_expect_eq(cJSON_GetArraySize(at(j, "findings")), 0, "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	expect_no_other_role(model);
	/* --component keeps the module alone, with its count */
	r = ws_run_cli("inspect", model, "--component", "2_Dense", "--json", NULL);
	cr_expect(ws_contains(r.out, "\"total\":590592") && !ws_contains(r.out, "unsupported-architecture"),
		  "%s", r.out);
	ws_run_free(&r);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* Two Dense modules, the second without a bias (EmbeddingGemma's
 * pipeline shape): each counted from its own config; a module whose
 * weights contradict its config is a count-mismatch naming it. */
Test(encoders, dense_modules_checked_against_their_config)
{
	char *dir = ws_tmpdir();
	const char *json = ENC("BertModel", "bert", 384, 1536, 12, 6, 30522, 512, 2, "");
	char *p = ws_write_file(dir, "config.src.json", json, strlen(json));
	char *model = ws_join(dir, "model");
	mkmodel4(model, p, "--st-dense", "768", "--st-dense", "256:nobias");
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 0, "%s", r.out);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	/* all-MiniLM-L6-v2's body 22,713,216; 384·768 + 768; 768·256 */
	cr_expect_eq(json_u64(j, "params", "total"), 22713216ull + 295680 + 196608);
	cr_expect_eq(json_u64(at(j, "params"), "by_component", "2_Dense"), 295680ull);
	cr_expect_eq(json_u64(at(j, "params"), "by_component", "3_Dense"), 196608ull);
	cr_expect_eq(cJSON_GetArraySize(at(j, "findings")), 0, "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	/* 3_Dense's config now says 512 outputs */
	char *sub = ws_join(model, "3_Dense");
	const char *bad = "{\"in_features\": 768, \"out_features\": 512, \"bias\": false}";
	free(ws_write_file(sub, "config.json", bad, strlen(bad)));
	r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 1, "%s", r.out);
	cr_expect(ws_contains(r.out, "\"code\":\"count-mismatch\"") && ws_contains(r.out, "\"component\":\"3_Dense\"") &&
		  ws_contains(r.out, "\"expected\":393216"), "%s", r.out);
	ws_run_free(&r);
	/* a count that is no count (a fraction, a negative, Python's NaN) is
	 * malformed input naming the file and the key */
	static const char *const nocount[] = {
		"{\"in_features\": 768.5, \"out_features\": 256}",
		"{\"in_features\": 768, \"out_features\": -256}",
		"{\"in_features\": NaN, \"out_features\": 256}",
	};
	for (size_t i = 0; i < sizeof nocount / sizeof nocount[0]; i++) {
		free(ws_write_file(sub, "config.json", nocount[i], strlen(nocount[i])));
		r = ws_run_cli("check", model, NULL);
		cr_expect_eq(r.status, 3, "%s: %s", nocount[i], r.err);
		cr_expect(ws_contains(r.err, "3_Dense/config.json") && ws_contains(r.err, "_features"),
			  "%s: %s", nocount[i], r.err);
		ws_run_free(&r);
	}
	free(sub);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* Older saves keep the Transformer in a folder of its own
 * (0_Transformer/ with its config.json); a malformed modules.json is
 * malformed input. */
Test(encoders, transformer_module_in_its_own_folder)
{
	char *dir = ws_tmpdir();
	const char *json = ENC("BertModel", "bert", 384, 1536, 12, 6, 30522, 512, 2, "");
	char *p = ws_write_file(dir, "config.src.json", json, strlen(json));
	char *model = ws_join(dir, "model");
	cr_assert_eq(mkdir(model, 0755), 0);
	char *sub = ws_join(model, "0_Transformer");
	mkmodel(sub, p, NULL, NULL, NULL);
	const char *mods = "[{\"idx\": 0, \"name\": \"0\", \"path\": \"0_Transformer\","
			   " \"type\": \"sentence_transformers.models.Transformer\"},"
			   " {\"idx\": 1, \"name\": \"1\", \"path\": \"1_Pooling\","
			   " \"type\": \"sentence_transformers.models.Pooling\"}]";
	free(ws_write_file(model, "modules.json", mods, strlen(mods)));
	cJSON_Delete(check_model(model, 22713216ull, ""));
	free(ws_write_file(model, "modules.json", "{\"0\": 1}", 8));
	ws_run r = ws_run_cli("check", model, NULL);
	cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
	cr_expect(ws_contains(r.err, "modules.json"), "%s", r.err);
	ws_run_free(&r);
	const char *escape = "[{\"path\": \"../x\", \"type\": \"sentence_transformers.models.Dense\"}]";
	free(ws_write_file(model, "modules.json", escape, strlen(escape)));
	r = ws_run_cli("check", model, NULL);
	cr_expect_eq(r.status, 3, "%s%s", r.out, r.err);
	ws_run_free(&r);
	free(sub);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== image encoders: ViT ==== */

/* ViTConfig's count-relevant keys */
#define VIT(cls, h, inter, heads, layers, image, patch, extra) \
	"{\"architectures\": [\"" cls "\"], \"model_type\": \"vit\", \"hidden_size\": " #h \
	", \"intermediate_size\": " #inter ", \"num_attention_heads\": " #heads \
	", \"num_hidden_layers\": " #layers ", \"image_size\": " #image ", \"patch_size\": " #patch \
	", \"num_channels\": 3, \"qkv_bias\": true" extra "}"

/*
 * Released ViTs, computed from their shapes (transformers' ViT modules):
 * a pre-norm layer with biases is 4(d² + d) + 2dF + F + d + 4d; the
 * embeddings a patch convolution d·3·p² + d, a class token d and
 * positions ((image / p)² + 1)·d; a final LayerNorm 2d.
 *   google/vit-base-patch32-384 (ViTForImageClassification, 1,000
 *     labels: 1000·768 + 1000; d 768, F 3072, 12 layers; 12² = 144
 *     patches): 85,054,464 + 2,360,064 + 768 + 111,360 + 1,536 +
 *     769,000 = 88,297,192.
 *   google/vit-large-patch16-224-in21k (ViTModel: the pooler d² + d;
 *     d 1024, F 4096, 24 layers; 196 patches): 302,309,376 + 787,456 +
 *     1,024 + 201,728 + 2,048 + 1,049,600 = 304,351,232.
 */
static const struct released vits[] = {
	{"vit-base-patch32-384", VIT("ViTForImageClassification", 768, 3072, 12, 12, 384, 32, ", \"num_labels\": 1000"),
	 88297192ull},
	{"vit-large-patch16-224-in21k", VIT("ViTModel", 1024, 4096, 16, 24, 224, 16, ""), 304351232ull},
};

Test(encoders, vit_released_formula_and_checkpoints)
{
	for (size_t i = 0; i < sizeof vits / sizeof vits[0]; i++) {
		uint64_t t = total_of_json(vits[i].json);
		cr_expect_eq(t, vits[i].total, "%s: %llu, expected %llu", vits[i].what, (unsigned long long)t,
			     (unsigned long long)vits[i].total);
		check_generated(vits[i].json, vits[i].total);
	}
}

/* google/vit-base-patch16-224: ViTForImageClassification (no pooler),
 * 1,000 labels from id2label: 86,567,656 by formula and as a checked
 * full-size sparse checkpoint with the released names (vit. prefix). */
Test(encoders, vit_real_config)
{
	char *p = ws_shared_path("configs/google__vit-base-patch16-224.json");
	if (!p)
		cr_skip_test("../shared is absent");
	cJSON *cfg = ws_load_json(p);
	struct ws_arch a;
	struct ws_formula f;
	ws_formula_of(cfg, &a, &f);
	cr_expect_eq(f.total, 86567656ull, "%llu", (unsigned long long)f.total);
	cr_expect_eq(a.num_patches, 196);
	cr_expect_eq(f.by_role[WS_ROLE_PATCH_EMBED], 768ull * 3 * 16 * 16 + 768);
	cr_expect_eq(f.by_role[WS_ROLE_CLS_TOKEN], 768);
	cr_expect_eq(f.by_role[WS_ROLE_POS_EMBED], 197ull * 768);
	cr_expect_eq(f.by_role[WS_ROLE_POOLER], 0);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	char *dir = ws_tmpdir();
	char *model = ws_join(dir, "model");
	char *argv[] = {getenv("WS_MKMODEL"), model, p, "--dtype", "F32", NULL};
	ws_run g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0, "%s", g.err);
	ws_run_free(&g);
	cJSON_Delete(check_model(model, 86567656ull, ""));
	expect_no_other_role(model);
	ws_run r = ws_run_cli("ls", model, "--role", "patch_embed", NULL);
	cr_expect(ws_contains(r.out, "vit.embeddings.patch_embeddings.projection.weight") &&
		  ws_contains(r.out, "[768, 3, 16, 16]"), "%s", r.out);
	ws_run_free(&r);
	r = ws_run_cli("ls", model, "--role", "cls_token", NULL);
	cr_expect(ws_contains(r.out, "vit.embeddings.cls_token"), "%s", r.out);
	ws_run_free(&r);
	free(model);
	ws_rmtree(dir);
	free(dir);
	free(p);
}

/* A base-model class ends at the hidden states: flops counts no head,
 * tied or not (BertModel: the twelve layers' six matrices alone,
 * 12 x (4 x 768^2 + 2 x 768 x 3072) = 84,934,656 MACs a token). */
Test(encoders, flops_of_a_base_model_has_no_head)
{
	const char *cfg = "{\"architectures\": [\"BertModel\"], \"model_type\": \"bert\"}";
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "config.src.json", cfg, strlen(cfg));
	char *model = ws_join(dir, "model");
	mkmodel(model, p, NULL, NULL, NULL);
	ws_run r = ws_run_cli("flops", model, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	const cJSON *macs = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "selections"), 0), "macs");
	cr_assert(macs, "%s", r.out);
	cr_expect_null(cJSON_GetObjectItem(cJSON_GetObjectItem(macs, "a_by_role"), "lm_head"), "%s", r.out);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(macs, "a")), 84934656.0, "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

Test(encoders, vit_classes_and_defaults)
{
	/* ViTConfig's defaults are vit-base-patch16-224's sizes; ViTModel
	 * adds the pooler (d² + d): google/vit-base-patch16-224-in21k's
	 * 86,389,248 */
	cr_expect_eq(total_of_json("{\"architectures\": [\"ViTModel\"]}"), 86389248ull);
	cr_expect_eq(total_of_json("{\"model_type\": \"vit\"}"), 86389248ull);
	/* no q/k/v biases: 3d per layer less */
	cr_expect_eq(total_of_json("{\"model_type\": \"vit\", \"qkv_bias\": false}"), 86389248ull - 12 * 3 * 768);
	/* ViTConfig's pooler_output_size: the pooler 768 → 512 */
	const char *narrow = "{\"model_type\": \"vit\", \"pooler_output_size\": 512}";
	cr_expect_eq(total_of_json(narrow), 86389248ull - 590592 + 768 * 512 + 512);
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "config.src.json", narrow, strlen(narrow));
	char *model = ws_join(dir, "model");
	mkmodel(model, p, NULL, NULL, NULL);
	cJSON_Delete(check_model(model, 86389248ull - 590592 + 768 * 512 + 512, ""));
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
	/* sizes as [height, width] (transformers takes either form): square
	 * lists are the numbers; 224 x 448 images are 14 x 28 = 392 patches */
	cr_expect_eq(total_of_json("{\"model_type\": \"vit\", \"image_size\": [224, 224], \"patch_size\": [16, 16]}"),
		     86389248ull);
	cr_expect_eq(total_of_json("{\"model_type\": \"vit\", \"image_size\": [224, 448], \"patch_size\": 16}"),
		     86389248ull + 196 * 768);
	/* a class whose head the catalogue lacks: no formula */
	cJSON *cfg = cJSON_Parse("{\"architectures\": [\"ViTForMaskedImageModeling\"], \"model_type\": \"vit\"}");
	struct ws_arch a;
	ws_error err = {0};
	cr_assert_eq(ws_arch_from_config(cfg, "config.json", &a, &err), 0, "%s", err.message);
	cr_expect(!a.known);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
	/* a patch larger than the image is an input error naming the key */
	cfg = cJSON_Parse("{\"model_type\": \"vit\", \"image_size\": 8, \"patch_size\": 16}");
	cr_expect_eq(ws_arch_from_config(cfg, "config.json", &a, &err), -1);
	cr_expect(ws_contains(err.message, "image_size"), "%s", err.message);
	cJSON_Delete(cfg);
}

/* A ViTModel file (google/vit-base-patch16-224-in21k's layout: no vit.
 * prefix, the pooler stored) under a ViTForImageClassification config:
 * the pooler (d² + d = 590,592) is not loaded, the classifier
 * transformers would initialise afresh is missing. */
Test(encoders, vit_model_file_under_a_classifier_config)
{
	char *dir = ws_tmpdir();
	const char *json = VIT("ViTForImageClassification", 768, 3072, 12, 12, 224, 16, ", \"num_labels\": 1000");
	char *p = ws_write_file(dir, "config.src.json", json, strlen(json));
	char *model = ws_join(dir, "model");
	mkmodel(model, p, "--class", "ViTModel", NULL);
	ws_run r = ws_run_cli("check", model, "--json", NULL);
	cr_expect_eq(r.status, 1, "%s", r.out);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	cr_expect_eq(json_u64(j, "unloaded", "total"), 590592ull);
	cr_expect_eq(json_u64(j, "params", "total"), 86567656ull - 769000);
	cr_expect(ws_contains(r.out, "\"code\":\"missing-tensor\"") && ws_contains(r.out, "\"code\":\"unloaded-tensor\"") &&
		  !ws_contains(r.out, "unexpected-tensor"), "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	expect_no_other_role(model);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* ==== DeBERTa-v2, ModernBERT, nomic-bert, DINOv2, BERT relative_key ==== */

/*
 * Released configs transcribed under testdata/encoders/ (count-relevant
 * keys as the Hub's config.json has them), their totals by formula, as
 * checked full-size sparse checkpoints with the released names, and with
 * block 5 dropped (a layer-gap and exit 1).
 *   microsoft/deberta-v3-base (no architectures: DebertaV2Model; relative
 *     attention over 256 buckets, share_att_key, no absolute positions,
 *     no token types): embeddings 128,100·768 + its LayerNorm 1,536;
 *     12 BERT-base layers 85,054,464; rel_embeddings 512·768 = 393,216
 *     and their LayerNorm 1,536: 183,831,552 ("86M backbone, 98M
 *     embedding" in the model card).
 *   answerdotai/ModernBERT-base (ModernBertForMaskedLM): embeddings
 *     50,368·768 + norm 768; 22 blocks of Wqkv 3·768² + Wo 768² + Wi
 *     2·1,152·768 + Wo 768·1,152 + two norms of 768, block 0 without its
 *     attention norm: 110,330,112; final norm 768: ModernBertModel
 *     149,014,272 (the published count); the masked-LM head (dense 768²,
 *     norm 768, decoder bias 50,368, decoder tied) 640,960 more:
 *     149,655,232.
 *   nomic-ai/nomic-embed-text-v1.5 (NomicBertModel, no biases): embeddings
 *     30,528·768 + types 2·768 + emb_ln 1,536; 12 blocks of Wqkv 3·768² +
 *     out_proj 768² + fc11, fc12, fc2 3·3,072·768 + two LayerNorms 3,072
 *     (9,440,256 each): 136,731,648 ("137M").
 *   facebook/dinov2-base (518 px, patch 14: 1,369 patches): patch conv
 *     768·3·14·14 + 768, class and mask tokens 2·768, positions 1,370·768;
 *     12 layers of 7,089,408 (ViT-base's and two layer scales of 768);
 *     final LayerNorm 1,536: 86,580,480.
 */
static const struct {
	const char *file;
	uint64_t total;
} single_fixtures[] = {
	{"encoders/microsoft__deberta-v3-base.json", 183831552ull},
	{"encoders/answerdotai__ModernBERT-base.json", 149655232ull},
	{"encoders/nomic-ai__nomic-embed-text-v1.5.json", 136731648ull},
	{"encoders/facebook__dinov2-base.json", 86580480ull},
};

Test(encoders, single_component_released)
{
	for (size_t i = 0; i < sizeof single_fixtures / sizeof single_fixtures[0]; i++) {
		char *p = ws_testdata_path(single_fixtures[i].file);
		cJSON *cfg = ws_load_json(p);
		struct ws_arch a;
		struct ws_formula f;
		ws_formula_of(cfg, &a, &f);
		cr_expect_eq(f.total, single_fixtures[i].total, "%s: %llu", single_fixtures[i].file,
			     (unsigned long long)f.total);
		ws_formula_free(&f);
		ws_arch_free(&a);
		cJSON_Delete(cfg);

		char *dir = ws_tmpdir();
		char *model = ws_join(dir, "model"), *bad = ws_join(dir, "bad");
		mkmodel(model, p, NULL, NULL, NULL);
		cJSON_Delete(check_model(model, single_fixtures[i].total, ""));
		expect_no_other_role(model);
		/* a planted defect: block 5 dropped */
		mkmodel(bad, p, "--plant", "missing-block", NULL);
		ws_run r = ws_run_cli("check", bad, "--json", NULL);
		cr_expect_eq(r.status, 1, "%s: exit %d", single_fixtures[i].file, r.status);
		cr_expect(ws_contains(r.out, "\"layer-gap\"") && ws_contains(r.out, "block 5 of"), "%s: %s",
			  single_fixtures[i].file, r.out);
		ws_run_free(&r);
		free(bad);
		free(model);
		ws_rmtree(dir);
		free(dir);
		free(p);
	}
}

#define DEBERTA3(cls, extra) \
	"{\"architectures\": [\"" cls "\"], \"model_type\": \"deberta-v2\", \"hidden_size\": 768," \
	" \"intermediate_size\": 3072, \"max_position_embeddings\": 512, \"relative_attention\": true," \
	" \"position_buckets\": 256, \"norm_rel_ebd\": \"layer_norm\", \"share_att_key\": true," \
	" \"pos_att_type\": \"p2c|c2p\", \"max_relative_positions\": -1, \"position_biased_input\": false," \
	" \"num_attention_heads\": 12, \"num_hidden_layers\": 12, \"type_vocab_size\": 0, \"vocab_size\": 128100" extra "}"
#define MODERNBERT(cls, d, f, heads, layers, extra) \
	"{\"architectures\": [\"" cls "\"], \"model_type\": \"modernbert\", \"hidden_size\": " #d \
	", \"intermediate_size\": " #f ", \"num_attention_heads\": " #heads ", \"num_hidden_layers\": " #layers \
	", \"vocab_size\": 50368, \"max_position_embeddings\": 8192, \"norm_bias\": false," \
	" \"attention_bias\": false, \"mlp_bias\": false, \"decoder_bias\": true, \"classifier_bias\": false" extra "}"
#define DINOV2(cls, type, d, heads, layers, extra) \
	"{\"architectures\": [\"" cls "\"], \"model_type\": \"" type "\", \"hidden_size\": " #d \
	", \"num_attention_heads\": " #heads ", \"num_hidden_layers\": " #layers ", \"image_size\": 518," \
	" \"patch_size\": 14, \"mlp_ratio\": 4, \"qkv_bias\": true, \"use_swiglu_ffn\": false" extra "}"

/*
 * Other classes and sizes of the same families.
 *   DebertaV2ForMaskedLM (legacy cls.predictions head: dense 768² + 768,
 *     LayerNorm 1,536, bias 128,100; decoder tied): 184,551,780.
 *   DebertaV2ForSequenceClassification of 3 labels (ContextPooler dense
 *     768² + 768 beside the body, classifier 3·768 + 3): 184,424,451.
 *   deberta-v3-large (d 1,024, F 4,096, 24 layers): 131,174,400 + 2,048 +
 *     302,309,376 + 524,288 + 2,048 = 434,012,160 ("435M").
 *   DeBERTa without share_att_key, both pos_att_type parts as a list,
 *     absolute positions and two token types, the span of
 *     max_position_embeddings (1,024 relative rows), no rel norm:
 *     98,380,800 + 393,216 + 1,536 + 1,536 + 85,054,464 + 12 × 2 ×
 *     590,592 (pos_key_proj, pos_query_proj) + 786,432 = 198,792,192.
 *   ModernBertModel of ModernBERT-large (d 1,024, F 2,624, 28 blocks):
 *     394,781,696 (published); its ForMaskedLM (dense 1,024², norm 1,024,
 *     bias 50,368) 395,881,664.  ModernBertForSequenceClassification of
 *     ModernBERT-base, 2 labels: head 768² + 768, classifier 2·768 + 2:
 *     149,606,402.
 *   dinov2-small (d 384, 6 heads) 22,056,576; dinov2-large (d 1,024, 24
 *     layers) 304,368,640 (published); Dinov2ForImageClassification of
 *     dinov2-small with 1,000 labels (classifier over 2 × 384 inputs,
 *     769,000): 22,825,576; dinov2-with-registers-base (4 registers of
 *     768) 86,583,552.
 *   bert-base-uncased as BertModel with position_embedding_type
 *     relative_key_query: 109,482,240 + 12 × (2·512 - 1)·64 = 110,267,904.
 */
static const struct released singles[] = {
	{"deberta-v3-base as DebertaV2ForMaskedLM", DEBERTA3("DebertaV2ForMaskedLM", ""), 184551780ull},
	{"deberta-v3-base, 3-label sequence classifier",
	 DEBERTA3("DebertaV2ForSequenceClassification", LABELS3), 184424451ull},
	{"deberta-v3-large",
	 "{\"model_type\": \"deberta-v2\", \"hidden_size\": 1024, \"intermediate_size\": 4096,"
	 " \"max_position_embeddings\": 512, \"relative_attention\": true, \"position_buckets\": 256,"
	 " \"norm_rel_ebd\": \"layer_norm\", \"share_att_key\": true, \"pos_att_type\": \"p2c|c2p\","
	 " \"max_relative_positions\": -1, \"position_biased_input\": false, \"num_attention_heads\": 16,"
	 " \"num_hidden_layers\": 24, \"type_vocab_size\": 0, \"vocab_size\": 128100}",
	 434012160ull},
	{"deberta, unshared position projections",
	 "{\"architectures\": [\"DebertaV2Model\"], \"model_type\": \"deberta-v2\", \"hidden_size\": 768,"
	 " \"intermediate_size\": 3072, \"max_position_embeddings\": 512, \"relative_attention\": true,"
	 " \"pos_att_type\": [\"p2c\", \"c2p\"], \"max_relative_positions\": -1, \"position_biased_input\": true,"
	 " \"num_attention_heads\": 12, \"num_hidden_layers\": 12, \"type_vocab_size\": 2, \"vocab_size\": 128100}",
	 198792192ull},
	{"ModernBERT-base as ModernBertModel", MODERNBERT("ModernBertModel", 768, 1152, 12, 22, ""), 149014272ull},
	{"ModernBERT-large as ModernBertModel", MODERNBERT("ModernBertModel", 1024, 2624, 16, 28, ""), 394781696ull},
	{"ModernBERT-large", MODERNBERT("ModernBertForMaskedLM", 1024, 2624, 16, 28, ""), 395881664ull},
	{"ModernBERT-base, 2-label sequence classifier",
	 MODERNBERT("ModernBertForSequenceClassification", 768, 1152, 12, 22, LABELS2), 149606402ull},
	{"dinov2-small", DINOV2("Dinov2Model", "dinov2", 384, 6, 12, ""), 22056576ull},
	{"dinov2-large", DINOV2("Dinov2Model", "dinov2", 1024, 16, 24, ""), 304368640ull},
	{"dinov2-small, 1000-label image classifier",
	 DINOV2("Dinov2ForImageClassification", "dinov2", 384, 6, 12, ", \"num_labels\": 1000"), 22825576ull},
	{"dinov2-with-registers-base",
	 DINOV2("Dinov2WithRegistersModel", "dinov2_with_registers", 768, 12, 12, ", \"num_register_tokens\": 4"),
	 86583552ull},
	{"bert-base-uncased with relative_key_query",
	 ENC("BertModel", "bert", 768, 3072, 12, 12, 30522, 512, 2, ", \"position_embedding_type\": \"relative_key_query\""),
	 110267904ull},
};

Test(encoders, single_component_variants)
{
	for (size_t i = 0; i < sizeof singles / sizeof singles[0]; i++) {
		uint64_t t = total_of_json(singles[i].json);
		cr_expect_eq(t, singles[i].total, "%s: %llu, expected %llu", singles[i].what,
			     (unsigned long long)t, (unsigned long long)singles[i].total);
		check_generated(singles[i].json, singles[i].total);
	}
}

/* The readings behind those totals, role by role. */
Test(encoders, single_component_roles)
{
	struct ws_arch a;
	struct ws_formula f;
	cJSON *cfg = cJSON_Parse(DEBERTA3("DebertaV2Model", ""));
	ws_formula_of(cfg, &a, &f);
	/* no absolute table: pos_embed is the 512 relative rows alone */
	cr_expect_eq(a.rel_rows, 512);
	cr_expect_eq(f.by_role[WS_ROLE_POS_EMBED], 512ull * 768);
	cr_expect_eq(f.by_role[WS_ROLE_TYPE_EMBED], 0);
	cr_expect_eq(f.by_role[WS_ROLE_EMBED_NORM], 4ull * 768);   /* embeddings' and rel_embeddings' */
	cr_expect_eq(f.by_role[WS_ROLE_ATTN_K], 12ull * (768 * 768 + 768));  /* shared keys: no pos_key_proj */
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);

	cfg = cJSON_Parse(MODERNBERT("ModernBertModel", 768, 1152, 12, 22, ""));
	ws_formula_of(cfg, &a, &f);
	cr_expect_eq(f.by_role[WS_ROLE_ATTN_NORM], 21ull * 768, "block 0 has no attention norm");
	cr_expect_eq(f.first_less, 768);
	cr_expect_eq(f.by_layer[0] + 768, f.by_layer[1]);
	cr_expect_eq(f.by_role[WS_ROLE_FFN_GATE_UP], 22ull * 2 * 1152 * 768);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);

	cfg = cJSON_Parse(DINOV2("Dinov2WithRegistersModel", "dinov2_with_registers", 768, 12, 12, ""));
	ws_formula_of(cfg, &a, &f);
	cr_expect_eq(a.num_registers, 4, "DINOv2-with-registers' class default");
	cr_expect_eq(f.by_role[WS_ROLE_REGISTER_TOKENS], 4ull * 768);
	cr_expect_eq(f.by_role[WS_ROLE_MASK_TOKEN], 768);
	cr_expect_eq(f.by_role[WS_ROLE_LAYER_SCALE], 12ull * 2 * 768);
	cr_expect_eq(a.intermediate_size, 4ull * 768);
	ws_formula_free(&f);
	ws_arch_free(&a);
	cJSON_Delete(cfg);
}

/* What the catalogue does not model is said, not counted wrong: DINOv2's
 * SwiGLU MLP (the giant model), DeBERTa-v2's convolution beside the
 * first layer (deberta-v2-xlarge's conv_kernel_size 3). */
Test(encoders, single_component_unsupported)
{
	static const char *const cfgs[] = {
		"{\"model_type\": \"dinov2\", \"hidden_size\": 1536, \"num_attention_heads\": 24,"
		" \"num_hidden_layers\": 40, \"image_size\": 518, \"patch_size\": 14, \"mlp_ratio\": 4,"
		" \"use_swiglu_ffn\": true}",
		"{\"model_type\": \"deberta-v2\", \"hidden_size\": 1536, \"intermediate_size\": 6144,"
		" \"num_attention_heads\": 24, \"num_hidden_layers\": 24, \"vocab_size\": 128100,"
		" \"relative_attention\": true, \"position_buckets\": 256, \"conv_kernel_size\": 3}",
	};
	for (size_t i = 0; i < sizeof cfgs / sizeof cfgs[0]; i++) {
		cJSON *cfg = cJSON_Parse(cfgs[i]);
		struct ws_arch a;
		ws_error err = {0};
		cr_assert_eq(ws_arch_from_config(cfg, "config.json", &a, &err), 0, "%s", err.message);
		cr_expect(!a.known && a.unsupported, "%s", cfgs[i]);
		ws_arch_free(&a);
		cJSON_Delete(cfg);
	}
}

/* flops of an encoder: both ways over the whole input, no KV cache; the
 * masked-LM head's matrices only (its LayerNorm is no matrix).
 *   BertForMaskedLM of bert-base-uncased: the body 84,934,656, the
 *   transform 768² = 589,824, the tied decoder 30,522·768 = 23,440,896:
 *   108,965,376 MACs a token; b = 12 × (768 + 768) = 18,432. */
Test(encoders, flops_of_an_encoder)
{
	const char *cfg = "{\"architectures\": [\"BertForMaskedLM\"], \"model_type\": \"bert\"}";
	char *dir = ws_tmpdir();
	char *p = ws_write_file(dir, "config.src.json", cfg, strlen(cfg));
	char *model = ws_join(dir, "model");
	mkmodel(model, p, NULL, NULL, NULL);
	ws_run r = ws_run_cli("flops", model, "--json", NULL);
	cr_assert_eq(r.status, 0, "%s", r.err);
	cJSON *j = cJSON_Parse(r.out);
	cr_assert(j, "%s", r.out);
	const cJSON *sel = cJSON_GetArrayItem(cJSON_GetObjectItem(j, "selections"), 0);
	const cJSON *macs = cJSON_GetObjectItem(sel, "macs");
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(macs, "a")), 108965376.0, "%s", r.out);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetObjectItem(macs, "a_by_role"), "mlm_transform")),
		     589824.0, "%s", r.out);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(macs, "b")), 18432.0, "%s", r.out);
	cr_expect_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(sel, "kv_cache_bytes_per_token")), 0.0, "%s", r.out);
	cJSON_Delete(j);
	ws_run_free(&r);
	r = ws_run_cli("flops", model, NULL);
	cr_expect(ws_contains(r.out, "no KV cache") && ws_contains(r.out, "KV cache: none"), "%s", r.out);
	cr_expect(!ws_contains(r.out, "head: none"), "a masked-LM class has a head: %s", r.out);
	ws_run_free(&r);
	free(model);
	free(p);
	/* a base-model class says it has no head */
	const char *base = "{\"architectures\": [\"BertModel\"], \"model_type\": \"bert\", \"num_hidden_layers\": 2}";
	p = ws_write_file(dir, "base.json", base, strlen(base));
	model = ws_join(dir, "base");
	mkmodel(model, p, NULL, NULL, NULL);
	r = ws_run_cli("flops", model, NULL);
	cr_expect(ws_contains(r.out, "head: none (a base-model class"), "%s", r.out);
	ws_run_free(&r);
	free(model);
	free(p);
	ws_rmtree(dir);
	free(dir);
}

/* Encoders as llama.cpp's converter writes them (general.architecture
 * bert or nomic-bert): the body only, token types as token_types,
 * post-norm blocks' attn_output_norm and layer_output_norm, a reranker's
 * classifier as cls (its dense layer, here BERT's pooler) and cls.output.
 *   bge-small-en-v1.5's sizes as BertModel (d 384, F 1,536, 12 layers):
 *     33,212,160, without the pooler the safetensors file holds, as
 *     llama.cpp's loader reports it ("model params = 33.21 M", 197
 *     tensors).
 *   nomic-embed-text-v1.5: 136,731,648, as in safetensors.
 *   cross-encoder/ms-marco-MiniLM-L-6-v2 (BertForSequenceClassification,
 *     one label): MiniLM-L6's 22,713,216 and cls.output 385: 22,713,601.
 *   jina-embeddings-v2-base-en's sizes as jina-bert-v2 (its own config
 *     says model_type bert: the GGUF name is the type here): no positions
 *     (ALiBi), the GEGLU input side fused in ffn_up [2 × 3,072, 768]
 *     without a bias, ffn_down with one: 23,445,504 + 1,536 + 1,536 +
 *     12 × 9,444,096 = 136,777,728. */
Test(encoders, gguf_encoders)
{
	static const struct released cases[] = {
		{"bge-small as BertModel",
		 ENC("BertModel", "bert", 384, 1536, 12, 12, 30522, 512, 2, ""), 33212160ull},
		{"nomic-embed-text-v1.5", NULL, 136731648ull},
		{"ms-marco-MiniLM-L-6-v2",
		 ENC("BertForSequenceClassification", "bert", 384, 1536, 12, 6, 30522, 512, 2,
		     ", \"id2label\": {\"0\": \"LABEL_0\"}"),
		 22713601ull},
		{"jina-embeddings-v2-base-en",
		 "{\"model_type\": \"jina-bert-v2\", \"hidden_size\": 768, \"intermediate_size\": 3072,"
		 " \"num_attention_heads\": 12, \"num_hidden_layers\": 12, \"vocab_size\": 30528,"
		 " \"max_position_embeddings\": 8192, \"type_vocab_size\": 2}",
		 136777728ull},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *dir = ws_tmpdir();
		char *p = cases[i].json ? ws_write_file(dir, "config.src.json", cases[i].json, strlen(cases[i].json))
					: ws_testdata_path("encoders/nomic-ai__nomic-embed-text-v1.5.json");
		char *model = ws_join(dir, "model"), *bad = ws_join(dir, "bad");
		mkmodel(model, p, "--format", "gguf", NULL);
		cJSON_Delete(check_model(model, cases[i].total, ""));
		expect_no_other_role(model);
		ws_run r = ws_run_cli("flops", model, "--json", NULL);
		cr_expect(ws_contains(r.out, "\"kv_cache_bytes_per_token\":0"), "%s: %s", cases[i].what, r.out);
		ws_run_free(&r);
		mkmodel4(bad, p, "--format", "gguf", "--plant", "missing-block");
		r = ws_run_cli("check", bad, "--json", NULL);
		cr_expect_eq(r.status, 1, "%s", cases[i].what);
		cr_expect(ws_contains(r.out, "block 5 of"), "%s: %s", cases[i].what, r.out);
		ws_run_free(&r);
		free(bad);
		free(model);
		free(p);
		ws_rmtree(dir);
		free(dir);
	}
}
