/*
 * mkquant.c - full-size, sparse quantized checkpoints in each writer's
 * stored layout (names, dtypes, shapes and config.json as the writer
 * leaves them; tensor data is a hole, except the few small tensors a
 * reader may look at: bitsandbytes quant_state JSON, compressed-tensors
 * weight_shape).
 *
 *   mkquant KIND DIR [--shards N]
 *
 * KIND: gptq-llama2-7b, awq-mistral-7b, ct-llama31-8b, bnb-llama32-1b,
 * mlx-qwen25-05b, fp8-deepseek-v3, mxfp4-gpt-oss-20b.  The layouts follow
 * shared/research/quantized.md; the architecture numbers are those of the
 * published config.json files.  Deterministic: same arguments, same bytes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gen.h"

/* ==== tensor list ==== */

typedef struct tensor {
	char name[128];
	const char *dtype;
	unsigned bits;          /* bits per element */
	int ndim;
	uint64_t shape[4];
	uint8_t *data;          /* written bytes, or NULL for a hole */
} tensor;

static tensor *T;
static size_t NT, CAPT;

static const struct { const char *name; unsigned bits; } dtypes[] = {
	{"BF16", 16}, {"F16", 16}, {"F32", 32}, {"I32", 32}, {"I64", 64}, {"U8", 8},
	{"U32", 32}, {"I8", 8}, {"F8_E4M3", 8},
};

static tensor *
add(const char *dtype, int ndim, const uint64_t *shape, const char *fmt, ...)
{
	if (NT == CAPT) {
		CAPT = CAPT ? 2 * CAPT : 1024;
		T = xrealloc(T, CAPT * sizeof *T);
	}
	tensor *t = &T[NT++];
	memset(t, 0, sizeof *t);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(t->name, sizeof t->name, fmt, ap);
	va_end(ap);
	t->dtype = dtype;
	for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; i++)
		if (!strcmp(dtypes[i].name, dtype))
			t->bits = dtypes[i].bits;
	if (!t->bits)
		die("dtype %s", dtype);
	t->ndim = ndim;
	memcpy(t->shape, shape, (size_t)ndim * sizeof *shape);
	return t;
}

#define D(...) ((const uint64_t[]){__VA_ARGS__})
#define T1(dt, a, ...) add(dt, 1, D(a), __VA_ARGS__)
#define T2(dt, a, b, ...) add(dt, 2, D(a, b), __VA_ARGS__)
#define T3(dt, a, b, c, ...) add(dt, 3, D(a, b, c), __VA_ARGS__)
#define T4(dt, a, b, c, d, ...) add(dt, 4, D(a, b, c, d), __VA_ARGS__)

static uint64_t
tbytes(const tensor *t)
{
	uint64_t n = 1;
	for (int d = 0; d < t->ndim; d++)
		n *= t->shape[d];
	return n * t->bits / 8;
}

static uint64_t
cdiv(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

/* ==== writers' layouts of one Linear (out x in) ==== */

enum writer { W_PLAIN, W_GPTQ, W_AWQ, W_CT, W_BNB, W_MLX, W_FP8 };

static enum writer WR;
static const char *PLAIN = "BF16";  /* the model's float dtype */
static unsigned MLX_BITS = 4;

static void
linear(const char *mod, uint64_t out, uint64_t in)
{
	switch (WR) {
	case W_PLAIN:
		T2(PLAIN, out, in, "%s.weight", mod);
		break;
	case W_GPTQ:  /* AutoGPTQ 0.7: 4-bit g128, bias=True on every layer */
		T2("I32", in * 4 / 32, out, "%s.qweight", mod);
		T2("I32", cdiv(in, 128), out * 4 / 32, "%s.qzeros", mod);
		T2("F16", cdiv(in, 128), out, "%s.scales", mod);
		T1("I32", in, "%s.g_idx", mod);
		T1("F16", out, "%s.bias", mod);
		break;
	case W_AWQ:  /* AutoAWQ GEMM, 4-bit g128 */
		T2("I32", in, out * 4 / 32, "%s.qweight", mod);
		T2("I32", in / 128, out * 4 / 32, "%s.qzeros", mod);
		T2("F16", in / 128, out, "%s.scales", mod);
		break;
	case W_CT: {  /* compressed-tensors pack-quantized w4a16 g128 */
		T2("I32", out, cdiv(in * 4, 32), "%s.weight_packed", mod);
		T2("BF16", out, cdiv(in, 128), "%s.weight_scale", mod);
		tensor *s = T1("I64", 2, "%s.weight_shape", mod);
		s->data = calloc(1, 16);
		for (int i = 0; i < 8; i++) {
			s->data[i] = (uint8_t)(out >> (8 * i));
			s->data[8 + i] = (uint8_t)(in >> (8 * i));
		}
		break;
	}
	case W_BNB: {  /* bitsandbytes NF4, double quant, blocksize 64 */
		uint64_t n = out * in, nb = cdiv(n, 64);
		T2("U8", (n + 1) / 2, 1, "%s.weight", mod);
		T1("U8", nb, "%s.weight.absmax", mod);
		T1("F32", cdiv(nb, 256), "%s.weight.nested_absmax", mod);
		T1("F32", 256, "%s.weight.nested_quant_map", mod);
		T1("F32", 16, "%s.weight.quant_map", mod);
		char js[256];
		int jl = snprintf(js, sizeof js,
				  "{\"quant_type\": \"nf4\", \"blocksize\": 64, \"dtype\": \"bfloat16\", "
				  "\"shape\": [%" PRIu64 ", %" PRIu64 "], \"nested_blocksize\": 256, "
				  "\"nested_offset\": 0.0%" PRIu64 ", \"nested_dtype\": \"float32\"}",
				  out, in, 1000 + n % 8999);
		tensor *s = T1("U8", (uint64_t)jl, "%s.weight.quant_state.bitsandbytes__nf4", mod);
		s->data = malloc((size_t)jl);
		memcpy(s->data, js, (size_t)jl);
		break;
	}
	case W_MLX:  /* affine, group 64 */
		T2("U32", out, in * MLX_BITS / 32, "%s.weight", mod);
		T2(PLAIN, out, in / 64, "%s.scales", mod);
		T2(PLAIN, out, in / 64, "%s.biases", mod);
		break;
	case W_FP8:  /* DeepSeek-V3: 128 x 128 block scales */
		T2("F8_E4M3", out, in, "%s.weight", mod);
		T2("F32", cdiv(out, 128), cdiv(in, 128), "%s.weight_scale_inv", mod);
		break;
	}
}

/* ==== model bodies ==== */

typedef struct llama {
	uint64_t vocab, d, ff, layers, heads, kv, hd;
	bool tied, qkv_bias, inv_freq, quant_embed;
} llama;

static void
llama_body(const llama *a)
{
	uint64_t q = a->heads * a->hd, kv = a->kv * a->hd;
	char m[128];
	if (a->quant_embed)
		linear("model.embed_tokens", a->vocab, a->d);
	else
		T2(PLAIN, a->vocab, a->d, "model.embed_tokens.weight");
	for (uint64_t i = 0; i < a->layers; i++) {
		T1(PLAIN, a->d, "model.layers.%" PRIu64 ".input_layernorm.weight", i);
		static const char *const att[] = {"q_proj", "k_proj", "v_proj"};
		for (int k = 0; k < 3; k++) {
			snprintf(m, sizeof m, "model.layers.%" PRIu64 ".self_attn.%s", i, att[k]);
			linear(m, k ? kv : q, a->d);
			if (a->qkv_bias)
				T1(PLAIN, k ? kv : q, "%s.bias", m);
		}
		snprintf(m, sizeof m, "model.layers.%" PRIu64 ".self_attn.o_proj", i);
		linear(m, a->d, q);
		if (a->inv_freq)
			T1("F32", a->hd / 2, "model.layers.%" PRIu64 ".self_attn.rotary_emb.inv_freq", i);
		T1(PLAIN, a->d, "model.layers.%" PRIu64 ".post_attention_layernorm.weight", i);
		snprintf(m, sizeof m, "model.layers.%" PRIu64 ".mlp.gate_proj", i);
		linear(m, a->ff, a->d);
		snprintf(m, sizeof m, "model.layers.%" PRIu64 ".mlp.up_proj", i);
		linear(m, a->ff, a->d);
		snprintf(m, sizeof m, "model.layers.%" PRIu64 ".mlp.down_proj", i);
		unsigned save = MLX_BITS;
		if (WR == W_MLX && i == 0)
			MLX_BITS = 8;  /* a mixed-bit recipe: one module at 8 bits */
		linear(m, a->d, a->ff);
		MLX_BITS = save;
	}
	T1(PLAIN, a->d, "model.norm.weight");
	if (!a->tied)
		T2(PLAIN, a->vocab, a->d, "lm_head.weight");  /* writers keep it unquantized */
}

/* DeepSeek-V3: MLA, 3 dense layers, 58 MoE layers of 256 experts + 1
 * shared, one MTP layer (61) with its own embedding and head copies. */
static void
deepseek_body(void)
{
	const uint64_t d = 7168, V = 129280, ff = 18432, fe = 2048, H = 128;
	const uint64_t qr = 1536, kvr = 512, nope = 128, rope = 64, vd = 128;
	char m[160];
	WR = W_FP8;
	T2("BF16", V, d, "model.embed_tokens.weight");
	for (uint64_t i = 0; i < 62; i++) {
		const char *L = "model.layers";
		if (i == 61) {
			T2("BF16", V, d, "%s.61.embed_tokens.weight", L);
			T1("BF16", d, "%s.61.enorm.weight", L);
			T1("BF16", d, "%s.61.hnorm.weight", L);
			T2("BF16", d, 2 * d, "%s.61.eh_proj.weight", L);
			T1("BF16", d, "%s.61.shared_head.norm.weight", L);
			T2("BF16", V, d, "%s.61.shared_head.head.weight", L);
		}
		T1("BF16", d, "%s.%" PRIu64 ".input_layernorm.weight", L, i);
		T1("BF16", d, "%s.%" PRIu64 ".post_attention_layernorm.weight", L, i);
		snprintf(m, sizeof m, "%s.%" PRIu64 ".self_attn.q_a_proj", L, i);
		linear(m, qr, d);
		T1("BF16", qr, "%s.%" PRIu64 ".self_attn.q_a_layernorm.weight", L, i);
		snprintf(m, sizeof m, "%s.%" PRIu64 ".self_attn.q_b_proj", L, i);
		linear(m, H * (nope + rope), qr);
		snprintf(m, sizeof m, "%s.%" PRIu64 ".self_attn.kv_a_proj_with_mqa", L, i);
		linear(m, kvr + rope, d);
		T1("BF16", kvr, "%s.%" PRIu64 ".self_attn.kv_a_layernorm.weight", L, i);
		snprintf(m, sizeof m, "%s.%" PRIu64 ".self_attn.kv_b_proj", L, i);
		linear(m, H * (nope + vd), kvr);
		snprintf(m, sizeof m, "%s.%" PRIu64 ".self_attn.o_proj", L, i);
		linear(m, d, H * vd);
		if (i < 3) {
			static const char *const mlp[] = {"gate_proj", "up_proj", "down_proj"};
			for (int k = 0; k < 3; k++) {
				snprintf(m, sizeof m, "%s.%" PRIu64 ".mlp.%s", L, i, mlp[k]);
				linear(m, k == 2 ? d : ff, k == 2 ? ff : d);
			}
			continue;
		}
		T2("BF16", 256, d, "%s.%" PRIu64 ".mlp.gate.weight", L, i);
		T1("F32", 256, "%s.%" PRIu64 ".mlp.gate.e_score_correction_bias", L, i);
		for (int e = 0; e < 256; e++) {
			snprintf(m, sizeof m, "%s.%" PRIu64 ".mlp.experts.%d.gate_proj", L, i, e);
			linear(m, fe, d);
			snprintf(m, sizeof m, "%s.%" PRIu64 ".mlp.experts.%d.up_proj", L, i, e);
			linear(m, fe, d);
			snprintf(m, sizeof m, "%s.%" PRIu64 ".mlp.experts.%d.down_proj", L, i, e);
			linear(m, d, fe);
		}
		snprintf(m, sizeof m, "%s.%" PRIu64 ".mlp.shared_experts.gate_proj", L, i);
		linear(m, fe, d);
		snprintf(m, sizeof m, "%s.%" PRIu64 ".mlp.shared_experts.up_proj", L, i);
		linear(m, fe, d);
		snprintf(m, sizeof m, "%s.%" PRIu64 ".mlp.shared_experts.down_proj", L, i);
		linear(m, d, fe);
	}
	T1("BF16", d, "model.norm.weight");
	T2("BF16", V, d, "lm_head.weight");
}

/* gpt-oss-20b: attention in BF16 with biases and sinks, router BF16,
 * experts MXFP4 [E, out, in/32, 16] + E8M0 scales, BF16 expert biases. */
static void
gptoss_body(void)
{
	const uint64_t d = 2880, V = 201088, E = 32, ff = 2880, H = 64, KV = 8, hd = 64;
	T2("BF16", V, d, "model.embed_tokens.weight");
	for (uint64_t i = 0; i < 24; i++) {
		const char *L = "model.layers";
		T1("BF16", d, "%s.%" PRIu64 ".input_layernorm.weight", L, i);
		T3("U8", E, 2 * ff, d / 32, "%s.%" PRIu64 ".mlp.experts.gate_up_proj_scales", L, i);
		T4("U8", E, 2 * ff, d / 32, 16, "%s.%" PRIu64 ".mlp.experts.gate_up_proj_blocks", L, i);
		T2("BF16", E, 2 * ff, "%s.%" PRIu64 ".mlp.experts.gate_up_proj_bias", L, i);
		T3("U8", E, d, ff / 32, "%s.%" PRIu64 ".mlp.experts.down_proj_scales", L, i);
		T4("U8", E, d, ff / 32, 16, "%s.%" PRIu64 ".mlp.experts.down_proj_blocks", L, i);
		T2("BF16", E, d, "%s.%" PRIu64 ".mlp.experts.down_proj_bias", L, i);
		T2("BF16", E, d, "%s.%" PRIu64 ".mlp.router.weight", L, i);
		T1("BF16", E, "%s.%" PRIu64 ".mlp.router.bias", L, i);
		T1("BF16", d, "%s.%" PRIu64 ".post_attention_layernorm.weight", L, i);
		static const char *const p[] = {"q_proj", "k_proj", "v_proj"};
		for (int k = 0; k < 3; k++) {
			uint64_t o = (k ? KV : H) * hd;
			T2("BF16", o, d, "%s.%" PRIu64 ".self_attn.%s.weight", L, i, p[k]);
			T1("BF16", o, "%s.%" PRIu64 ".self_attn.%s.bias", L, i, p[k]);
		}
		T2("BF16", d, H * hd, "%s.%" PRIu64 ".self_attn.o_proj.weight", L, i);
		T1("BF16", d, "%s.%" PRIu64 ".self_attn.o_proj.bias", L, i);
		T1("BF16", H, "%s.%" PRIu64 ".self_attn.sinks", L, i);
	}
	T1("BF16", d, "model.norm.weight");
	T2("BF16", V, d, "lm_head.weight");
}

/* ==== configs (published architecture values + the writer's block) ==== */

static const char cfg_llama2_7b_gptq[] =
	"{\"architectures\":[\"LlamaForCausalLM\"],\"bos_token_id\":1,\"eos_token_id\":2,"
	"\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,"
	"\"intermediate_size\":11008,\"max_position_embeddings\":4096,\"model_type\":\"llama\","
	"\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":32,"
	"\"pretraining_tp\":1,\"rms_norm_eps\":1e-05,\"rope_scaling\":null,"
	"\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\","
	"\"transformers_version\":\"4.31.0\",\"use_cache\":true,\"vocab_size\":32000,"
	"\"quantization_config\":{\"bits\":4,\"group_size\":128,\"damp_percent\":0.01,"
	"\"desc_act\":false,\"sym\":true,\"true_sequential\":true,\"model_name_or_path\":null,"
	"\"model_file_base_name\":\"model\",\"quant_method\":\"gptq\"}}\n";

static const char cfg_mistral_7b_awq[] =
	"{\"architectures\":[\"MistralForCausalLM\"],\"bos_token_id\":1,\"eos_token_id\":2,"
	"\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,"
	"\"intermediate_size\":14336,\"max_position_embeddings\":32768,\"model_type\":\"mistral\","
	"\"num_attention_heads\":32,\"num_hidden_layers\":32,\"num_key_value_heads\":8,"
	"\"rms_norm_eps\":1e-05,\"rope_theta\":10000.0,\"sliding_window\":4096,"
	"\"tie_word_embeddings\":false,\"torch_dtype\":\"float16\","
	"\"transformers_version\":\"4.36.2\",\"use_cache\":true,\"vocab_size\":32000,"
	"\"quantization_config\":{\"quant_method\":\"awq\",\"zero_point\":true,"
	"\"group_size\":128,\"bits\":4,\"version\":\"gemm\",\"modules_to_not_convert\":null}}\n";

static const char cfg_llama31_8b_ct[] =
	"{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,"
	"\"attention_dropout\":0.0,\"bos_token_id\":128000,\"eos_token_id\":128001,"
	"\"hidden_act\":\"silu\",\"hidden_size\":4096,\"initializer_range\":0.02,"
	"\"intermediate_size\":14336,\"max_position_embeddings\":131072,\"mlp_bias\":false,"
	"\"model_type\":\"llama\",\"num_attention_heads\":32,\"num_hidden_layers\":32,"
	"\"num_key_value_heads\":8,\"pretraining_tp\":1,\"rms_norm_eps\":1e-05,"
	"\"rope_scaling\":{\"factor\":8.0,\"low_freq_factor\":1.0,\"high_freq_factor\":4.0,"
	"\"original_max_position_embeddings\":8192,\"rope_type\":\"llama3\"},"
	"\"rope_theta\":500000.0,\"tie_word_embeddings\":false,\"torch_dtype\":\"bfloat16\","
	"\"transformers_version\":\"4.44.0\",\"use_cache\":true,\"vocab_size\":128256,"
	"\"quantization_config\":{\"config_groups\":{\"group_0\":{\"input_activations\":null,"
	"\"output_activations\":null,\"targets\":[\"Linear\"],\"weights\":{\"actorder\":null,"
	"\"block_structure\":null,\"dynamic\":false,\"group_size\":128,\"num_bits\":4,"
	"\"observer\":\"minmax\",\"observer_kwargs\":{},\"strategy\":\"group\","
	"\"symmetric\":true,\"type\":\"int\"}}},\"format\":\"pack-quantized\","
	"\"global_compression_ratio\":1.89,\"ignore\":[\"lm_head\"],\"kv_cache_scheme\":null,"
	"\"quant_method\":\"compressed-tensors\",\"quantization_status\":\"compressed\","
	"\"version\":\"0.7.1\"}}\n";

static const char cfg_llama32_1b_bnb[] =
	"{\"architectures\":[\"LlamaForCausalLM\"],\"attention_bias\":false,"
	"\"attention_dropout\":0.0,\"bos_token_id\":128000,\"eos_token_id\":128001,"
	"\"head_dim\":64,\"hidden_act\":\"silu\",\"hidden_size\":2048,\"initializer_range\":0.02,"
	"\"intermediate_size\":8192,\"max_position_embeddings\":131072,\"mlp_bias\":false,"
	"\"model_type\":\"llama\",\"num_attention_heads\":32,\"num_hidden_layers\":16,"
	"\"num_key_value_heads\":8,\"pretraining_tp\":1,\"rms_norm_eps\":1e-05,"
	"\"rope_scaling\":{\"factor\":32.0,\"high_freq_factor\":4.0,\"low_freq_factor\":1.0,"
	"\"original_max_position_embeddings\":8192,\"rope_type\":\"llama3\"},"
	"\"rope_theta\":500000.0,\"tie_word_embeddings\":true,\"torch_dtype\":\"bfloat16\","
	"\"transformers_version\":\"4.46.0\",\"use_cache\":true,\"vocab_size\":128256,"
	"\"quantization_config\":{\"_load_in_4bit\":true,\"_load_in_8bit\":false,"
	"\"bnb_4bit_compute_dtype\":\"bfloat16\",\"bnb_4bit_quant_storage\":\"uint8\","
	"\"bnb_4bit_quant_type\":\"nf4\",\"bnb_4bit_use_double_quant\":true,"
	"\"llm_int8_enable_fp32_cpu_offload\":false,\"llm_int8_has_fp16_weight\":false,"
	"\"llm_int8_skip_modules\":null,\"llm_int8_threshold\":6.0,\"load_in_4bit\":true,"
	"\"load_in_8bit\":false,\"quant_method\":\"bitsandbytes\"}}\n";

/* mlx-lm writes "quantization" and the same dict as quantization_config;
 * a per-module entry records the one 8-bit module. */
static const char cfg_qwen25_05b_mlx[] =
	"{\"architectures\":[\"Qwen2ForCausalLM\"],\"attention_dropout\":0.0,"
	"\"bos_token_id\":151643,\"eos_token_id\":151643,\"hidden_act\":\"silu\","
	"\"hidden_size\":896,\"initializer_range\":0.02,\"intermediate_size\":4864,"
	"\"max_position_embeddings\":32768,\"max_window_layers\":24,\"model_type\":\"qwen2\","
	"\"num_attention_heads\":14,\"num_hidden_layers\":24,\"num_key_value_heads\":2,"
	"\"rms_norm_eps\":1e-06,\"rope_theta\":1000000.0,\"sliding_window\":32768,"
	"\"tie_word_embeddings\":true,\"torch_dtype\":\"bfloat16\","
	"\"transformers_version\":\"4.43.1\",\"use_cache\":true,\"use_sliding_window\":false,"
	"\"vocab_size\":151936,"
	"\"quantization\":{\"group_size\":64,\"bits\":4,"
	"\"model.layers.0.mlp.down_proj\":{\"group_size\":64,\"bits\":8}},"
	"\"quantization_config\":{\"group_size\":64,\"bits\":4,"
	"\"model.layers.0.mlp.down_proj\":{\"group_size\":64,\"bits\":8}}}\n";

static const char cfg_deepseek_v3[] =
	"{\"architectures\":[\"DeepseekV3ForCausalLM\"],\"attention_bias\":false,"
	"\"attention_dropout\":0.0,\"aux_loss_alpha\":0.001,\"bos_token_id\":0,"
	"\"eos_token_id\":1,\"ep_size\":1,\"first_k_dense_replace\":3,\"hidden_act\":\"silu\","
	"\"hidden_size\":7168,\"initializer_range\":0.02,\"intermediate_size\":18432,"
	"\"kv_lora_rank\":512,\"max_position_embeddings\":163840,\"model_type\":\"deepseek_v3\","
	"\"moe_intermediate_size\":2048,\"moe_layer_freq\":1,\"n_group\":8,"
	"\"n_routed_experts\":256,\"n_shared_experts\":1,\"norm_topk_prob\":true,"
	"\"num_attention_heads\":128,\"num_experts_per_tok\":8,\"num_hidden_layers\":61,"
	"\"num_key_value_heads\":128,\"num_nextn_predict_layers\":1,\"pretraining_tp\":1,"
	"\"q_lora_rank\":1536,\"qk_nope_head_dim\":128,\"qk_rope_head_dim\":64,"
	"\"quantization_config\":{\"activation_scheme\":\"dynamic\",\"fmt\":\"e4m3\","
	"\"quant_method\":\"fp8\",\"weight_block_size\":[128,128]},\"rms_norm_eps\":1e-06,"
	"\"rope_scaling\":{\"beta_fast\":32,\"beta_slow\":1,\"factor\":40,\"mscale\":1.0,"
	"\"mscale_all_dim\":1.0,\"original_max_position_embeddings\":4096,\"type\":\"yarn\"},"
	"\"rope_theta\":10000,\"routed_scaling_factor\":2.5,\"scoring_func\":\"sigmoid\","
	"\"seq_aux\":true,\"tie_word_embeddings\":false,\"topk_group\":4,"
	"\"topk_method\":\"noaux_tc\",\"torch_dtype\":\"bfloat16\","
	"\"transformers_version\":\"4.33.1\",\"use_cache\":true,\"v_head_dim\":128,"
	"\"vocab_size\":129280}\n";

static const char cfg_gptoss_20b[] =
	"{\"architectures\":[\"GptOssForCausalLM\"],\"attention_bias\":true,"
	"\"attention_dropout\":0.0,\"eos_token_id\":200002,\"experts_per_token\":4,"
	"\"head_dim\":64,\"hidden_act\":\"silu\",\"hidden_size\":2880,"
	"\"initial_context_length\":4096,\"initializer_range\":0.02,\"intermediate_size\":2880,"
	"\"max_position_embeddings\":131072,\"model_type\":\"gpt_oss\","
	"\"num_attention_heads\":64,\"num_experts_per_tok\":4,\"num_hidden_layers\":24,"
	"\"num_key_value_heads\":8,\"num_local_experts\":32,\"output_router_logits\":false,"
	"\"pad_token_id\":199999,\"quantization_config\":{\"modules_to_not_convert\":"
	"[\"model.layers.*.self_attn\",\"model.layers.*.mlp.router\",\"model.embed_tokens\","
	"\"lm_head\"],\"quant_method\":\"mxfp4\"},\"rms_norm_eps\":1e-05,"
	"\"rope_scaling\":{\"beta_fast\":32.0,\"beta_slow\":1.0,\"factor\":32.0,"
	"\"original_max_position_embeddings\":4096,\"rope_type\":\"yarn\",\"truncate\":false},"
	"\"rope_theta\":150000,\"router_aux_loss_coef\":0.9,\"sliding_window\":128,"
	"\"swiglu_limit\":7.0,\"tie_word_embeddings\":false,"
	"\"transformers_version\":\"4.55.0.dev0\",\"use_cache\":true,\"vocab_size\":201088}\n";

/* ==== files ==== */

static void
write_text(const char *dir, const char *name, const char *s)
{
	char p[4096];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s: %s", p, strerror(errno));
	write_all(fd, s, strlen(s), p);
	close(fd);
}

/* A growing string. */
typedef struct sbuf { char *s; size_t n, cap; } sbuf;

static void
sb_printf(sbuf *b, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int k = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (k < 0)
			die("format");
		if (b->s && b->n + (size_t)k < b->cap) {
			b->n += (size_t)k;
			return;
		}
		b->cap = b->cap * 2 + (size_t)k + 4096;
		b->s = xrealloc(b->s, b->cap);
	}
}

/* Tensors [a, b) as one safetensors file: header, holes, small data. */
static uint64_t
write_shard(const char *path, size_t a, size_t b, const char *meta)
{
	sbuf h = {0};
	uint64_t off = 0;
	sb_printf(&h, "{\"__metadata__\":%s", meta);
	for (size_t i = a; i < b; i++) {
		const tensor *t = &T[i];
		sb_printf(&h, ",\"%s\":{\"dtype\":\"%s\",\"shape\":[", t->name, t->dtype);
		for (int d = 0; d < t->ndim; d++)
			sb_printf(&h, "%s%" PRIu64, d ? "," : "", t->shape[d]);
		sb_printf(&h, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", off, off + tbytes(t));
		off += tbytes(t);
	}
	sb_printf(&h, "}");
	while (h.n % 8)
		sb_printf(&h, " ");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die("open %s: %s", path, strerror(errno));
	uint8_t n8[8];
	for (int i = 0; i < 8; i++)
		n8[i] = (uint8_t)((uint64_t)h.n >> (8 * i));
	write_all(fd, n8, 8, path);
	write_all(fd, h.s, h.n, path);
	uint64_t base = 8 + h.n, at = 0;
	for (size_t i = a; i < b; i++) {
		const tensor *t = &T[i];
		if (t->data && pwrite(fd, t->data, (size_t)tbytes(t), (off_t)(base + at)) !=
				       (ssize_t)tbytes(t))
			die("write %s: %s", path, strerror(errno));
		at += tbytes(t);
	}
	if (ftruncate(fd, (off_t)(base + off)) != 0)
		die("truncate %s: %s", path, strerror(errno));
	close(fd);
	free(h.s);
	return off;
}

static void
write_model(const char *dir, unsigned shards, const char *meta)
{
	char p[4096];
	if (shards <= 1) {
		snprintf(p, sizeof p, "%s/model.safetensors", dir);
		write_shard(p, 0, NT, meta);
		return;
	}
	sbuf ix = {0};
	uint64_t total = 0;
	sb_printf(&ix, "{\n  \"weight_map\": {");
	for (unsigned s = 0; s < shards; s++) {
		size_t a = NT * s / shards, b = NT * (s + 1) / shards;
		char name[64];
		snprintf(name, sizeof name, "model-%05u-of-%05u.safetensors", s + 1, shards);
		snprintf(p, sizeof p, "%s/%s", dir, name);
		total += write_shard(p, a, b, meta);
		for (size_t i = a; i < b; i++)
			sb_printf(&ix, "%s\n    \"%s\": \"%s\"", i ? "," : "", T[i].name, name);
	}
	sb_printf(&ix, "\n  },\n  \"metadata\": {\"total_size\": %" PRIu64 "}\n}\n", total);
	write_text(dir, "model.safetensors.index.json", ix.s);
	free(ix.s);
}

int
main(int argc, char **argv)
{
	unsigned shards = 1;
	if (argc < 3) {
		fputs("usage: mkquant KIND DIR [--shards N]\n"
		      "KIND: gptq-llama2-7b awq-mistral-7b ct-llama31-8b bnb-llama32-1b\n"
		      "      mlx-qwen25-05b fp8-deepseek-v3 mxfp4-gpt-oss-20b\n", stderr);
		return 2;
	}
	for (int i = 3; i < argc; i++) {
		if (!strcmp(argv[i], "--shards") && i + 1 < argc)
			shards = (unsigned)strtoul(argv[++i], NULL, 10);
		else
			die("unknown option %s", argv[i]);
	}
	const char *kind = argv[1], *dir = argv[2], *cfg = NULL;
	const char *meta = "{\"format\":\"pt\"}";
	mkdir(dir, 0755);
	if (!strcmp(kind, "gptq-llama2-7b")) {
		llama a = {32000, 4096, 11008, 32, 32, 32, 128, false, false, true, false};
		WR = W_GPTQ;
		PLAIN = "F16";
		llama_body(&a);
		cfg = cfg_llama2_7b_gptq;
		meta = "{\"format\":\"pt\",\"gptq_bits\":\"4\",\"gptq_group_size\":\"128\","
		       "\"gptq_desc_act\":\"False\",\"gptq_damp_percent\":\"0.01\","
		       "\"auto_gptq_version\":\"0.7.1\"}";
	} else if (!strcmp(kind, "awq-mistral-7b")) {
		llama a = {32000, 4096, 14336, 32, 32, 8, 128, false, false, false, false};
		WR = W_AWQ;
		PLAIN = "F16";
		llama_body(&a);
		cfg = cfg_mistral_7b_awq;
	} else if (!strcmp(kind, "ct-llama31-8b")) {
		llama a = {128256, 4096, 14336, 32, 32, 8, 128, false, false, false, false};
		WR = W_CT;
		llama_body(&a);
		cfg = cfg_llama31_8b_ct;
	} else if (!strcmp(kind, "bnb-llama32-1b")) {
		llama a = {128256, 2048, 8192, 16, 32, 8, 64, true, false, false, false};
		WR = W_BNB;
		llama_body(&a);
		cfg = cfg_llama32_1b_bnb;
	} else if (!strcmp(kind, "mlx-qwen25-05b")) {
		llama a = {151936, 896, 4864, 24, 14, 2, 64, true, true, false, true};
		WR = W_MLX;
		llama_body(&a);
		cfg = cfg_qwen25_05b_mlx;
		meta = "{\"format\":\"mlx\"}";
	} else if (!strcmp(kind, "fp8-deepseek-v3")) {
		deepseek_body();
		cfg = cfg_deepseek_v3;
	} else if (!strcmp(kind, "mxfp4-gpt-oss-20b")) {
		gptoss_body();
		cfg = cfg_gptoss_20b;
	} else {
		die("unknown kind %s", kind);
	}
	write_text(dir, "config.json", cfg);
	write_model(dir, shards, meta);
	for (size_t i = 0; i < NT; i++)
		free(T[i].data);
	free(T);
	return 0;
}
