/*
 * adapter.c - adapters checked against their config and their base.
 *
 * The base's modules come from the catalogue's tensor templates: each
 * weight template of a block (or of the whole model) is one module with
 * a role, an in and an out width.  Its name, for matching PEFT's
 * target_modules, is found by asking the role table which of a list of
 * common module spellings has that role for the base's model type (data,
 * not branches on model names).  The adapter's factors are grouped by the
 * module they adapt (the name before the factor's suffix) and compared
 * with the modules the config selects.
 */
#include <regex.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#include "internal.h"
#include "catalogue/templates.h"
#include "ws/adapter.h"
#include "ws/formula.h"
#include "ws/json.h"
#include "ws/kv.h"
#include "ws/roles.h"
#include "ws/util.h"

#define MAX_CONFIG (16ull << 20)
#define MAX_FINDINGS 24          /* adapter-mismatch findings, then one summary */
#define MAX_MODULES (1u << 22)   /* base modules enumerated */

/* ==== names ==== */

/* The suffixes that end a factor's name; what precedes is the module.
 * Each starts with '.', which module_len relies on. */
#define MARKER(s) {s, sizeof s - 1}
static const struct marker {
	char s[40];
	size_t n;
} markers[] = {
	MARKER(".lora_embedding_A"), MARKER(".lora_embedding_B"), MARKER(".lora_magnitude_vector"),
	MARKER(".lora_A"), MARKER(".lora_B"), MARKER(".lora_a"), MARKER(".lora_b"),
	MARKER(".lora_down"), MARKER(".lora_up"), MARKER(".lora_mid"), MARKER(".alpha"),
	MARKER(".dora_scale"), MARKER(".hada_"), MARKER(".lokr_"), MARKER(".m"),
	MARKER(".token_adapter.trainable_tokens_delta"),
};
#undef MARKER

static bool
is_factor_role(ws_role r)
{
	return r == WS_ROLE_LORA_A || r == WS_ROLE_LORA_B || r == WS_ROLE_LORA_MAGNITUDE ||
	       r == WS_ROLE_LORA_EMBED_A || r == WS_ROLE_LORA_EMBED_B || r == WS_ROLE_LORA_ALPHA;
}

/* Whether a marker starts at name[i] (a '.'). */
static bool
marker_at(const char *name, size_t len, size_t i)
{
	for (size_t k = 0; k < sizeof markers / sizeof markers[0]; k++) {
		const struct marker *mk = &markers[k];
		if (mk->n > len - i)
			continue;
		size_t j = 1; /* byte by byte: most differ in the first few */
		while (j < mk->n && name[i + j] == mk->s[j])
			j++;
		if (j < mk->n)
			continue;
		/* ".m" only as the whole last segment (mlx DoRA) */
		if (mk->n == 2 && mk->s[1] == 'm' && i + mk->n != len)
			continue;
		return true;
	}
	return false;
}

/* Length of the module part of a factor's name (0: none): the last
 * position (from 1) where a marker starts.  Every marker starts with '.':
 * the dots are found eight bytes a step from the end, as a header of
 * 46,848 names asks this of each of them. */
static size_t
module_len(const char *name, size_t len)
{
	const uint64_t lows = 0x7f7f7f7f7f7f7f7full, dots = 0x2e2e2e2e2e2e2e2eull;
	size_t end = len;
	for (; end >= 9; end -= 8) {
		uint64_t w;
		memcpy(&w, name + end - 8, 8);
		w ^= dots;
		uint64_t z = ~(((w & lows) + lows) | w | lows); /* high bit of each '.' byte */
		while (z) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
			unsigned bit = (unsigned)__builtin_ctzll(z);
			size_t i = end - 8 + 7 - bit / 8;
#else
			unsigned bit = 63u - (unsigned)__builtin_clzll(z);
			size_t i = end - 8 + bit / 8;
#endif
			if (marker_at(name, len, i))
				return i;
			z &= ~(1ull << bit);
		}
	}
	while (end-- > 1)
		if (name[end] == '.' && marker_at(name, len, end))
			return end;
	return 0;
}

static const char peft_prefix[] = "base_model.model.";

/* Classify module name + ".weight" (HF) or the module itself (a GGUF
 * name keeps ".weight"); role or -1. */
static int
classify_module(ws_format fmt, const char *arch, const char *mod, size_t len, int32_t *layer,
		int32_t *expert)
{
	char buf[WS_ROLE_MAX_NAME + 16];
	if (len > WS_ROLE_MAX_NAME)
		return -1;
	memcpy(buf, mod, len);
	size_t n = len;
	if (fmt == WS_FORMAT_SAFETENSORS) {
		memcpy(buf + n, ".weight", 7);
		n += 7;
	}
	ws_role r;
	if (!ws_role_classify(fmt, arch, buf, n, &r, layer, expert, NULL) || is_factor_role(r))
		return -1;
	return (int)r;
}

/* kohya / ComfyUI flatten a module path with '_' (lora_unet_..._attn1_to_q,
 * lora_te1_text_model_encoder_layers_0_self_attn_q_proj): the end of the
 * flat name says the role (data: a new spelling is a line). */
static const struct {
	const char *end;
	ws_role role;
} kohya_roles[] = {
	{"_to_q", WS_ROLE_ATTN_Q}, {"_to_k", WS_ROLE_ATTN_K}, {"_to_v", WS_ROLE_ATTN_V},
	{"_to_out_0", WS_ROLE_ATTN_O}, {"_q_proj", WS_ROLE_ATTN_Q}, {"_k_proj", WS_ROLE_ATTN_K},
	{"_v_proj", WS_ROLE_ATTN_V}, {"_out_proj", WS_ROLE_ATTN_O}, {"_o_proj", WS_ROLE_ATTN_O},
	{"_qkv", WS_ROLE_ATTN_QKV}, {"_ff_net_0_proj", WS_ROLE_FFN_GATE_UP},
	{"_ff_net_2", WS_ROLE_FFN_DOWN}, {"_mlp_fc1", WS_ROLE_FFN_UP}, {"_mlp_fc2", WS_ROLE_FFN_DOWN},
	{"_gate_proj", WS_ROLE_FFN_GATE}, {"_up_proj", WS_ROLE_FFN_UP}, {"_down_proj", WS_ROLE_FFN_DOWN},
};

static int
kohya_role(const char *mod, size_t len)
{
	if (len < 5 || memcmp(mod, "lora_", 5))
		return -1;
	for (size_t k = 0; k < sizeof kohya_roles / sizeof kohya_roles[0]; k++) {
		size_t el = strlen(kohya_roles[k].end);
		if (len > el && !memcmp(mod + len - el, kohya_roles[k].end, el))
			return (int)kohya_roles[k].role;
	}
	return -1;
}

int
ws_adapter_adapts(const ws_model *m, const ws_tensor *t)
{
	if (!is_factor_role(t->role) || t->role == WS_ROLE_LORA_ALPHA)
		return -1;
	size_t ml = module_len(t->name, t->name_len);
	if (!ml)
		return -1;
	int r = classify_module(m->format, m->arch_name, t->name, ml, NULL, NULL);
	return r >= 0 ? r : kohya_role(t->name, ml);
}

/* ==== detection ==== */

static char *
sibling_path(const char *file, const char *name)
{
	const char *slash = strrchr(file, '/');
	size_t dl = slash ? (size_t)(slash - file) + 1 : 0;
	char *p = malloc(dl + strlen(name) + 1);
	if (!p)
		return NULL;
	memcpy(p, file, dl);
	strcpy(p + dl, name);
	return p;
}

static bool
file_exists(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool
name_is_factor(const char *n, size_t len)
{
	if (len > 5 && !memcmp(n, "lora_", 5))
		return true;
	return module_len(n, len) > 0 && !(len >= 2 && !memcmp(n + len - 2, ".m", 2));
}

/* Bytes of x that are ASCII digits: their high bits (exact per byte). */
static uint64_t
digit_bytes(uint64_t x)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull,
		       lows = 0x7f7f7f7f7f7f7f7full;
	uint64_t lo = (x & lows) | highs;
	uint64_t ge0 = (lo - ones * '0') & highs, ge10 = (lo - ones * ('9' + 1)) & highs;
	return ge0 & ~ge10 & ~x & highs;
}

/* Do a and b (n bytes each) differ only where both hold digits?  Then
 * one is a factor's name exactly when the other is: no marker holds a
 * digit, so every marker lies on bytes they share. */
static bool
same_but_digits(const char *a, const char *b, size_t n)
{
#ifdef __SSE2__
	if (n >= 16) {
		/* 16 bytes a step, the last ending at the end */
		const __m128i lo = _mm_set1_epi8('0' - 1), hi = _mm_set1_epi8('9' + 1);
		for (size_t i = 0;; i += 16) {
			if (i + 16 > n)
				i = n - 16;
			__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + i));
			__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + i));
			__m128i dx = _mm_and_si128(_mm_cmpgt_epi8(x, lo), _mm_cmplt_epi8(x, hi));
			__m128i dy = _mm_and_si128(_mm_cmpgt_epi8(y, lo), _mm_cmplt_epi8(y, hi));
			__m128i ok = _mm_or_si128(_mm_cmpeq_epi8(x, y), _mm_and_si128(dx, dy));
			if (_mm_movemask_epi8(ok) != 0xFFFF)
				return false;
			if (i + 16 == n)
				return true;
		}
	}
#endif
	const uint64_t highs = 0x8080808080808080ull, lows = 0x7f7f7f7f7f7f7f7full;
	if (n < 8) {
		for (size_t i = 0; i < n; i++)
			if (a[i] != b[i] && !((unsigned)(a[i] - '0') < 10 && (unsigned)(b[i] - '0') < 10))
				return false;
		return true;
	}
	/* whole words, the last one overlapping the one before */
	for (size_t i = 0;; i += 8) {
		if (i + 8 > n)
			i = n - 8;
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		uint64_t d = x ^ y;
		if (d) {
			uint64_t differ = ~(((d & lows) + lows) | d | lows) ^ highs; /* nonzero bytes */
			if (differ & ~(digit_bytes(x) & digit_bytes(y)))
				return false;
		}
		if (i + 8 == n)
			return true;
	}
}

bool
ws_adapter_name_is_factor(const char *name, size_t len)
{
	return name_is_factor(name, len);
}

int
ws_adapter_detect_quick(const ws_model *m)
{
	if (!m || !m->n_files)
		return 0;
	if (m->format == WS_FORMAT_GGUF) {
		const ws_kv *kv = ws_model_find_kv(m, "general.type");
		const char *s;
		size_t n;
		return kv && ws_kv_get_str(kv, &s, &n) && n == 7 && !memcmp(s, "adapter", 7);
	}
	if (m->files[0].fd >= 0) {
		char *p = sibling_path(m->files[0].path, "adapter_config.json");
		bool yes = file_exists(p);
		free(p);
		if (yes)
			return 1;
	}
	return m->config || !m->n_tensors ? 0 : -1;
}

bool
ws_adapter_detect(const ws_model *m)
{
	int quick = ws_adapter_detect_quick(m);
	if (quick >= 0)
		return quick;
	/* stop once the half is reached or out of reach; a name like one of
	 * the last few (an expert's gate, up and down) takes its answer */
	enum { RECENT = 4 };
	struct {
		const char *name;
		size_t len;
		bool factor;
	} recent[RECENT] = {{NULL, 0, false}};
	unsigned next = 0, hit = RECENT - 1;
	uint64_t n = 0, other = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const char *name = m->tensors[i].name;
		size_t len = m->tensors[i].name_len;
		/* from the one after the last match: names come in turn */
		unsigned r = 0, at = hit + 1;
		for (; r < RECENT; r++, at++) {
			at %= RECENT;
			if (recent[at].name && recent[at].len == len &&
			    same_but_digits(recent[at].name, name, len))
				break;
		}
		bool factor;
		if (r < RECENT) {
			factor = recent[at].factor;
			hit = at;
		} else {
			factor = name_is_factor(name, len);
			recent[next % RECENT].name = name;
			recent[next % RECENT].len = len;
			recent[next++ % RECENT].factor = factor;
		}
		if (factor)
			n++;
		else
			other++;
		if (n * 2 >= m->n_tensors)
			return true;
		if (other * 2 > m->n_tensors)
			return false;
	}
	return n * 2 >= m->n_tensors;
}

/* ==== the config ==== */

enum { L_PEFT, L_MLX, L_KOHYA, L_GGUF };
static const char *const layout_names[] = {"peft", "mlx", "kohya", "gguf"};

typedef struct acfg {
	cJSON *root;
	char path[512];
	int layout;
	uint64_t r;               /* 0: not given */
	bool has_alpha;
	double alpha;
	const cJSON *targets;     /* list, string, or NULL (the default) */
	bool all_linear;
	const cJSON *exclude, *rank_pattern, *alpha_pattern, *layers, *to_save;
	bool seq_cls, dora, lora_bias;
	int bias;                 /* 0 none, 1 all, 2 lora_only */
	uint64_t mlx_layers;      /* 0: not given */
	const char *base_name;
	const cJSON *layers_pattern, *replication, *tokens;
	/* compiled once: a module's match costs a few hash probes, not a
	 * scan of the config's lists (a MoE adapter has tens of thousands) */
	struct matcher *mt_targets, *mt_exclude, *mt_layers, *mt_save;
	cJSON *save_list;         /* modules_to_save + SEQ_CLS's heads (owned) */
	struct patterns *rank_pat, *alpha_pat;
	uint8_t *layer_ok;        /* layers_to_transform as a bitmap */
	uint32_t layer_ok_n;
	uint64_t *work;           /* probe steps (for the linearity test) */
	uint64_t work_local;
} acfg;

static const cJSON *
item(const cJSON *o, const char *k)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(o, k);
	return it && !cJSON_IsNull(it) ? it : NULL;
}

static int
bad_key(const acfg *c, const char *key, const char *what, ws_error *err)
{
	return ws_err(err, WS_EXIT_INPUT, c->path, "adapter config key '%s' %s", key, what);
}

static int
read_count(const acfg *c, const cJSON *o, const char *key, uint64_t *out, ws_error *err)
{
	const cJSON *it = item(o, key);
	if (!it)
		return 0;
	if (ws_json_count(it, out) != WS_JSON_COUNT_OK)
		return bad_key(c, key, "is not a count", err);
	return 0;
}

static int config_compile(acfg *c, ws_error *err);
static void config_free(acfg *c);

static int
config_parse(acfg *c, const char *path, ws_error *err)
{
	char *buf;
	size_t len;
	memset(c, 0, sizeof *c);
	c->work = &c->work_local;
	snprintf(c->path, sizeof c->path, "%s", path);
	if (ws_read_small_file(path, MAX_CONFIG, &buf, &len, err))
		return -1;
	c->root = ws_parse_json_buf(buf, len, path, err);
	free(buf);
	if (!c->root)
		return -1;
	if (!cJSON_IsObject(c->root))
		return ws_err_at(err, path, 0, "adapter config is not a JSON object");
	const cJSON *o = c->root, *lp = item(o, "lora_parameters"), *it;
	if (item(o, "fine_tune_type") || lp) {
		c->layout = L_MLX;
		it = item(o, "fine_tune_type");
		c->dora = cJSON_IsString(it) && !strcmp(it->valuestring, "dora");
		/* num_layers -1 (or 0) adapts every layer, as mlx-lm's slice
		 * layers[-max(n, 0):] does */
		it = item(o, "num_layers");
		if (!(cJSON_IsNumber(it) && it->valuedouble < 0) &&
		    read_count(c, o, "num_layers", &c->mlx_layers, err))
			return -1;
		if (lp && read_count(c, lp, "rank", &c->r, err))
			return -1;
		if (!c->r)
			c->r = 8; /* mlx-lm's default rank */
		c->targets = lp ? item(lp, "keys") : NULL;
		if (c->targets && !cJSON_IsArray(c->targets))
			return bad_key(c, "lora_parameters.keys", "is not a list", err);
		it = item(o, "model");
		c->base_name = cJSON_IsString(it) ? it->valuestring : NULL;
		return config_compile(c, err);
	}
	c->layout = L_PEFT;
	if (read_count(c, o, "r", &c->r, err))
		return -1;
	if ((it = item(o, "lora_alpha"))) {
		if (!cJSON_IsNumber(it))
			return bad_key(c, "lora_alpha", "is not a number", err);
		c->has_alpha = true;
		c->alpha = it->valuedouble;
	}
	c->targets = item(o, "target_modules");
	if (c->targets && !cJSON_IsArray(c->targets) && !cJSON_IsString(c->targets))
		return bad_key(c, "target_modules", "is neither a list nor a string", err);
	c->all_linear = cJSON_IsString(c->targets) && !strcmp(c->targets->valuestring, "all-linear");
	c->exclude = item(o, "exclude_modules");
	c->rank_pattern = item(o, "rank_pattern");
	c->alpha_pattern = item(o, "alpha_pattern");
	c->layers = item(o, "layers_to_transform");
	c->to_save = item(o, "modules_to_save");
	if (c->rank_pattern && !cJSON_IsObject(c->rank_pattern))
		return bad_key(c, "rank_pattern", "is not an object", err);
	if (c->layers && !cJSON_IsArray(c->layers) && !cJSON_IsNumber(c->layers))
		return bad_key(c, "layers_to_transform", "is neither a list nor a number", err);
	if (c->to_save && !cJSON_IsArray(c->to_save))
		return bad_key(c, "modules_to_save", "is not a list", err);
	it = item(o, "task_type");
	c->seq_cls = cJSON_IsString(it) && !strcmp(it->valuestring, "SEQ_CLS");
	c->dora = cJSON_IsTrue(item(o, "use_dora"));
	c->lora_bias = cJSON_IsTrue(item(o, "lora_bias"));
	it = item(o, "bias");
	c->bias = !cJSON_IsString(it) ? 0 : !strcmp(it->valuestring, "all") ? 1
		: !strcmp(it->valuestring, "lora_only") ? 2 : 0;
	it = item(o, "base_model_name_or_path");
	c->base_name = cJSON_IsString(it) ? it->valuestring : NULL;
	c->layers_pattern = item(o, "layers_pattern");
	c->replication = item(o, "layer_replication");
	c->tokens = item(o, "trainable_token_indices");
	return config_compile(c, err);
}

int
ws_adapter_config_is(const char *path)
{
	acfg c;
	ws_error e = {0};
	int r = 0;
	if (config_parse(&c, path, &e) == 0)
		r = item(c.root, "peft_type") || item(c.root, "target_modules") ||
		    item(c.root, "lora_parameters") || item(c.root, "fine_tune_type");
	config_free(&c);
	return r;
}

/* Python's re.fullmatch for the patterns configs hold: POSIX extended,
 * with \d and \w spelled out; pre and post wrap the pattern. */
static bool
re_compile(regex_t *re, const char *pat, const char *pre, const char *post)
{
	size_t n = strlen(pat);
	if (n > 4096)
		return false;
	char *p = malloc(n * 12 + strlen(pre) + strlen(post) + 8);
	if (!p)
		return false;
	size_t o = (size_t)sprintf(p, "^%s(", pre);
	for (size_t i = 0; i < n; i++) {
		if (pat[i] == '(' && i + 2 < n && pat[i + 1] == '?' && pat[i + 2] == ':') {
			p[o++] = '('; /* Python's non-capturing group: a group here */
			i += 2;
		} else if (pat[i] == '\\' && i + 1 < n && (pat[i + 1] == 'd' || pat[i + 1] == 'w')) {
			o += (size_t)sprintf(p + o, "%s", pat[i + 1] == 'd' ? "[0-9]" : "[A-Za-z0-9_]");
			i++;
		} else {
			p[o++] = pat[i];
		}
	}
	sprintf(p + o, ")%s$", post);
	bool ok = regcomp(re, p, REG_EXTENDED | REG_NOSUB) == 0;
	free(p);
	return ok;
}

/* A set of strings (open addressing over FNV-1a), each with its place
 * in the config's list. */
typedef struct sset {
	const char **s;
	uint32_t *order;
	size_t cap;
} sset;

static uint64_t
fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h;
}

static int
sset_init(sset *t, size_t n)
{
	size_t cap = 16;
	while (cap < n * 2 + 1)
		cap *= 2;
	t->s = calloc(cap, sizeof *t->s);
	t->order = calloc(cap, sizeof *t->order);
	t->cap = cap;
	return t->s && t->order ? 0 : -1;
}

/* The slot of s[0..n) or -1; *work counts the probes. */
static long
sset_find(const sset *t, const char *s, size_t n, uint64_t *work)
{
	if (!t->cap)
		return -1;
	for (size_t i = fnv(s, n) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
		(*work)++;
		if (!t->s[i])
			return -1;
		if (strlen(t->s[i]) == n && !memcmp(t->s[i], s, n))
			return (long)i;
	}
}

static void
sset_add(sset *t, const char *s, uint32_t order)
{
	uint64_t w = 0;
	if (sset_find(t, s, strlen(s), &w) >= 0)
		return;
	size_t i = fnv(s, strlen(s)) & (t->cap - 1);
	while (t->s[i])
		i = (i + 1) & (t->cap - 1);
	t->s[i] = s;
	t->order[i] = order;
}

/* PEFT's target_modules / exclude_modules: a list matches a key equal to
 * an entry or ending in "." + an entry; a string is a regex over the
 * whole key. */
typedef struct matcher {
	bool is_re, re_ok;
	regex_t re;
	sset set;
	bool *hit;               /* per slot: some module matched it */
} matcher;

static void
matcher_free(matcher *mt)
{
	if (!mt)
		return;
	if (mt->re_ok)
		regfree(&mt->re);
	free(mt->set.s);
	free(mt->set.order);
	free(mt->hit);
	free(mt);
}

static matcher *
matcher_new(const cJSON *spec, const char *pre, const char *post)
{
	matcher *mt = calloc(1, sizeof *mt);
	if (!mt)
		return NULL;
	if (cJSON_IsString(spec)) {
		mt->is_re = true;
		mt->re_ok = re_compile(&mt->re, spec->valuestring, pre, post);
		return mt;
	}
	size_t n = (size_t)cJSON_GetArraySize(spec);
	if (sset_init(&mt->set, n) || !(mt->hit = calloc(mt->set.cap, sizeof *mt->hit))) {
		matcher_free(mt);
		return NULL;
	}
	const cJSON *it;
	uint32_t k = 0;
	cJSON_ArrayForEach(it, spec) {
		if (cJSON_IsString(it))
			sset_add(&mt->set, it->valuestring, k);
		k++;
	}
	return mt;
}

/* Does key match?  A list is probed with the key and each of its
 * dot-suffixes: work in the key's segments, not the list's length. */
static bool
matcher_hit(matcher *mt, const char *key, uint64_t *work)
{
	if (mt->is_re) {
		(*work)++;
		return mt->re_ok && regexec(&mt->re, key, 0, NULL, 0) == 0;
	}
	size_t kl = strlen(key);
	bool found = false;
	for (size_t i = 0; i <= kl; i++) {
		if (i && key[i - 1] != '.')
			continue;
		long slot = sset_find(&mt->set, key + i, kl - i, work);
		if (slot >= 0) {
			mt->hit[slot] = true; /* every entry that matches: none is unused */
			found = true;
		}
	}
	return found;
}

/* A list entry's test: the key itself or its end after a dot. */
static bool
name_matches(const char *t, const char *key)
{
	size_t kl = strlen(key), tl = strlen(t);
	return !strcmp(key, t) || (kl > tl && key[kl - tl - 1] == '.' && !strcmp(key + kl - tl, t));
}

/* rank_pattern / alpha_pattern: the first key (in the config's order)
 * matching the module's key or its end.  Plain names are probed in a
 * set (a pattern per module is common); the others are regexes. */
typedef struct patterns {
	sset lit;
	const cJSON **lit_v;     /* per slot */
	regex_t *re;
	const cJSON **re_v;
	uint32_t *re_order;
	size_t n_re;
} patterns;

static void
patterns_free(patterns *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n_re; i++)
		regfree(&p->re[i]);
	free(p->re);
	free(p->re_v);
	free(p->re_order);
	free(p->lit.s);
	free(p->lit.order);
	free(p->lit_v);
	free(p);
}

static bool
is_plain(const char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		      *s == '_' || *s == '.' || *s == '-'))
			return false;
	return true;
}

static patterns *
patterns_new(const cJSON *obj)
{
	patterns *p = calloc(1, sizeof *p);
	size_t n = (size_t)cJSON_GetArraySize(obj);
	if (!p || sset_init(&p->lit, n) || !(p->lit_v = calloc(p->lit.cap, sizeof *p->lit_v)) ||
	    !(p->re = calloc(n + 1, sizeof *p->re)) || !(p->re_v = calloc(n + 1, sizeof *p->re_v)) ||
	    !(p->re_order = calloc(n + 1, sizeof *p->re_order))) {
		patterns_free(p);
		return NULL;
	}
	const cJSON *it;
	uint32_t k = 0;
	cJSON_ArrayForEach(it, obj) {
		if (!it->string)
			continue;
		if (is_plain(it->string)) {
			uint64_t w = 0;
			if (sset_find(&p->lit, it->string, strlen(it->string), &w) < 0) {
				sset_add(&p->lit, it->string, k);
				p->lit_v[sset_find(&p->lit, it->string, strlen(it->string), &w)] = it;
			}
		} else if (re_compile(&p->re[p->n_re], it->string, "(.*\\.)?", "")) {
			p->re_v[p->n_re] = it;
			p->re_order[p->n_re++] = k;
		}
		k++;
	}
	return p;
}

static const cJSON *
pattern_value(const patterns *p, const char *key, uint64_t *work)
{
	const cJSON *best = NULL;
	uint32_t bo = UINT32_MAX;
	size_t kl = strlen(key);
	for (size_t i = 0; i <= kl; i++) {
		if (i && key[i - 1] != '.')
			continue;
		long slot = sset_find(&p->lit, key + i, kl - i, work);
		if (slot >= 0 && p->lit.order[slot] < bo) {
			bo = p->lit.order[slot];
			best = p->lit_v[slot];
		}
	}
	for (size_t i = 0; i < p->n_re && p->re_order[i] < bo; i++) {
		(*work)++;
		if (regexec(&p->re[i], key, 0, NULL, 0) == 0)
			return p->re_v[i];
	}
	return best;
}

static uint64_t
rank_for(const acfg *c, const char *key)
{
	const cJSON *v = c->rank_pat ? pattern_value(c->rank_pat, key, c->work) : NULL;
	uint64_t r;
	if (v && ws_json_count(v, &r) == WS_JSON_COUNT_OK)
		return r;
	return c->r;
}

static double
alpha_for(const acfg *c, const char *key)
{
	const cJSON *v = c->alpha_pat ? pattern_value(c->alpha_pat, key, c->work) : NULL;
	return v && cJSON_IsNumber(v) ? v->valuedouble : c->alpha;
}

/* layers_to_transform (with layers_pattern: the key must name its layer
 * under one of those names, as PEFT's ".{pattern}.N." test). */
static bool
layer_allowed(const acfg *c, int32_t layer, const char *key)
{
	if (!c->layers)
		return true;
	if (layer < 0 || (uint32_t)layer >= c->layer_ok_n || !c->layer_ok[layer])
		return false;
	return !key || !c->mt_layers || matcher_hit(c->mt_layers, key, c->work);
}

static int
config_compile(acfg *c, ws_error *err)
{
	const cJSON *it;
	const cJSON *larr = cJSON_IsArray(c->layers) ? c->layers : NULL;
	const cJSON *parr = cJSON_IsArray(c->layers_pattern) ? c->layers_pattern : NULL;
	if (c->layers) {
		uint32_t mx = 0;
		cJSON_ArrayForEach(it, larr) {
			uint64_t v;
			if (ws_json_count(it, &v) != WS_JSON_COUNT_OK || v >= WS_ARCH_MAX_LAYERS)
				return bad_key(c, "layers_to_transform", "holds something not a layer", err);
			if (v + 1 > mx)
				mx = (uint32_t)v + 1;
		}
		uint64_t one = 0;
		if (cJSON_IsNumber(c->layers) &&
		    (ws_json_count(c->layers, &one) != WS_JSON_COUNT_OK || one >= WS_ARCH_MAX_LAYERS))
			return bad_key(c, "layers_to_transform", "is not a layer", err);
		if (cJSON_IsNumber(c->layers))
			mx = (uint32_t)one + 1;
		c->layer_ok = calloc(mx ? mx : 1, 1);
		if (!c->layer_ok)
			return ws_err_oom(err, c->path);
		c->layer_ok_n = mx;
		if (cJSON_IsNumber(c->layers))
			c->layer_ok[one] = 1;
		cJSON_ArrayForEach(it, larr) {
			uint64_t v;
			ws_json_count(it, &v);
			c->layer_ok[v] = 1;
		}
		if (c->layers_pattern) {
			if (!cJSON_IsString(c->layers_pattern) && !cJSON_IsArray(c->layers_pattern))
				return bad_key(c, "layers_pattern", "is neither a list nor a string", err);
			/* one regex: any of the names, then the layer's digits */
			size_t len = 8;
			cJSON_ArrayForEach(it, parr)
				len += cJSON_IsString(it) ? strlen(it->valuestring) + 1 : 0;
			if (cJSON_IsString(c->layers_pattern))
				len += strlen(c->layers_pattern->valuestring);
			char *alt = malloc(len);
			if (!alt)
				return ws_err_oom(err, c->path);
			alt[0] = 0;
			if (cJSON_IsString(c->layers_pattern))
				strcat(alt, c->layers_pattern->valuestring);
			cJSON_ArrayForEach(it, parr) {
				if (!cJSON_IsString(it))
					continue;
				if (alt[0])
					strcat(alt, "|");
				strcat(alt, it->valuestring);
			}
			cJSON *str = cJSON_CreateString(alt);
			free(alt);
			c->mt_layers = str ? matcher_new(str, ".*\\.(", ")\\.[0-9]+\\..*") : NULL;
			cJSON_Delete(str);
			if (!c->mt_layers)
				return ws_err_oom(err, c->path);
		}
	}
	if (c->targets && !(c->mt_targets = matcher_new(c->targets, "", "")))
		return ws_err_oom(err, c->path);
	if (c->exclude && !cJSON_IsArray(c->exclude) && !cJSON_IsString(c->exclude))
		return bad_key(c, "exclude_modules", "is neither a list nor a string", err);
	if (c->exclude && !(c->mt_exclude = matcher_new(c->exclude, "", "")))
		return ws_err_oom(err, c->path);
	if (c->alpha_pattern && !cJSON_IsObject(c->alpha_pattern))
		return bad_key(c, "alpha_pattern", "is not an object", err);
	if (c->rank_pattern && cJSON_GetArraySize(c->rank_pattern) &&
	    !(c->rank_pat = patterns_new(c->rank_pattern)))
		return ws_err_oom(err, c->path);
	if (c->alpha_pattern && cJSON_GetArraySize(c->alpha_pattern) &&
	    !(c->alpha_pat = patterns_new(c->alpha_pattern)))
		return ws_err_oom(err, c->path);
	if (c->replication) {
		if (!cJSON_IsArray(c->replication))
			return bad_key(c, "layer_replication", "is not a list of [start, end] pairs", err);
		cJSON_ArrayForEach(it, c->replication) {
			uint64_t a, b;
			if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 2 ||
			    ws_json_count(cJSON_GetArrayItem(it, 0), &a) != WS_JSON_COUNT_OK ||
			    ws_json_count(cJSON_GetArrayItem(it, 1), &b) != WS_JSON_COUNT_OK || a >= b ||
			    b > WS_ARCH_MAX_LAYERS)
				return bad_key(c, "layer_replication", "is not a list of [start, end] pairs", err);
		}
	}
	if (c->to_save || c->seq_cls) {
		if (!(c->save_list = c->to_save ? cJSON_Duplicate(c->to_save, 1) : cJSON_CreateArray()))
			return ws_err_oom(err, c->path);
		if (c->seq_cls) {
			cJSON_AddItemToArray(c->save_list, cJSON_CreateString("classifier"));
			cJSON_AddItemToArray(c->save_list, cJSON_CreateString("score"));
		}
		if (!(c->mt_save = matcher_new(c->save_list, "", "")))
			return ws_err_oom(err, c->path);
	}
	if (c->tokens && !cJSON_IsArray(c->tokens) && !cJSON_IsObject(c->tokens))
		return bad_key(c, "trainable_token_indices", "is neither a list nor an object", err);
	return 0;
}

static void
config_free(acfg *c)
{
	matcher_free(c->mt_targets);
	matcher_free(c->mt_exclude);
	matcher_free(c->mt_layers);
	matcher_free(c->mt_save);
	cJSON_Delete(c->save_list);
	patterns_free(c->rank_pat);
	patterns_free(c->alpha_pat);
	free(c->layer_ok);
	cJSON_Delete(c->root);
	memset(c, 0, sizeof *c);
}

/* ==== the base's modules ==== */

typedef struct bmod {
	ws_role role;
	int32_t layer, expert;
	uint64_t in, out, bias;    /* bias: the bias template's elements, 0 none */
	bool embed, selected, seen;
	uint64_t rank;
	const char *spell;         /* module path inside the block (static) */
	const char *prefix;        /* block prefix, "%d" for the layer */
} bmod;

/* Module spellings the role table is asked about (data: a new family's
 * names are lines here). */
static const char *const block_prefixes[] = {
	"model.layers.#.", "transformer.h.#.", "gpt_neox.layers.#.", "model.decoder.layers.#.",
	"encoder.layer.#.", "transformer.blocks.#.", "model.transformer.blocks.#.",
};
static const char *const block_spells[] = {
	"self_attn.q_proj", "self_attn.k_proj", "self_attn.v_proj", "self_attn.o_proj",
	"self_attn.qkv_proj", "self_attn.query_key_value", "self_attn.dense", "self_attn.out_proj",
	"self_attn.q_a_proj", "self_attn.q_b_proj", "self_attn.kv_a_proj_with_mqa", "self_attn.kv_b_proj",
	"mlp.gate_proj", "mlp.up_proj", "mlp.down_proj", "mlp.gate_up_proj", "mlp.fc1", "mlp.fc2",
	"attn.c_attn", "attn.c_proj", "mlp.c_fc", "mlp.c_proj", "attn.q_proj", "attn.k_proj", "attn.v_proj",
	"attn.out_proj", "self_attention.query_key_value", "self_attention.dense",
	"attention.query_key_value", "attention.dense", "mlp.dense_h_to_4h", "mlp.dense_4h_to_h",
	"attention.self.query", "attention.self.key", "attention.self.value", "attention.output.dense",
	"intermediate.dense", "output.dense", "block_sparse_moe.gate", "mlp.gate", "mlp.router",
	"mlp.shared_expert.gate_proj", "mlp.shared_expert.up_proj", "mlp.shared_expert.down_proj",
	"mlp.shared_experts.gate_proj", "mlp.shared_experts.up_proj", "mlp.shared_experts.down_proj",
	"mlp.shared_expert_gate",
	/* norms adapt nothing, but tell one family's block from another's
	 * where the projections' generic names fit both */
	"input_layernorm", "post_attention_layernorm", "attention.output.LayerNorm", "output.LayerNorm",
	"ln_1", "ln_2", "norm1", "norm2",
};
static const char *const expert_spells[] = {
	"mlp.experts.#.gate_proj", "mlp.experts.#.up_proj", "mlp.experts.#.down_proj",
	"block_sparse_moe.experts.#.w1", "block_sparse_moe.experts.#.w3",
	"block_sparse_moe.experts.#.w2",
};
static const char *const global_spells[] = {
	"model.embed_tokens", "lm_head", "transformer.wte", "score", "classifier",
	"embeddings.word_embeddings",
};

typedef struct spelling {
	const char *prefix;
	const char *of[WS_ROLE_COUNT];     /* a block role's module path */
	const char *expert[WS_ROLE_COUNT]; /* an expert role's */
	const char *global[WS_ROLE_COUNT]; /* a whole-model module's */
} spelling;

/* tmpl with its '#' replaced by num, into buf; the length written. */
static size_t
subst(char *buf, size_t n, size_t at, const char *tmpl, int64_t num)
{
	for (const char *p = tmpl; *p && at + 24 < n; p++) {
		if (*p == '#')
			at += (size_t)snprintf(buf + at, n - at, "%lld", (long long)num);
		else
			buf[at++] = *p;
	}
	buf[at < n ? at : n - 1] = 0;
	return at;
}

/* The block prefix is the one spelling most of the roles the base's
 * templates need (a generic line names q_proj for any type: counting
 * every role would pick Llama's spelling for BERT). */
typedef struct hint {
	const char *s;
	size_t n;
} hint;

/* Does a dotted name end with another (whole segments)? */
static bool
ends_with_segs(const char *a, size_t an, const char *b, size_t bn)
{
	return an >= bn && !memcmp(a + an - bn, b, bn) && (an == bn || a[an - bn - 1] == '.');
}

/* Does a hint (a module the adapter names, a target) end with spell, or
 * spell with it (a short target name), or (inside) hold it after a dot?
 * An expert spell is compared by its part after the expert's number. */
static bool
hinted(const hint *h, size_t nh, const char *spell, bool inside)
{
	const char *hash = strchr(spell, '#');
	if (!inside && hash && hash[1] == '.')
		spell = hash + 2;
	size_t sl = strlen(spell);
	for (size_t i = 0; i < nh; i++) {
		if (!inside) {
			if (ends_with_segs(h[i].s, h[i].n, spell, sl) || ends_with_segs(spell, sl, h[i].s, h[i].n))
				return true;
			continue;
		}
		for (const char *p = h[i].s; (p = memmem(p, (size_t)(h[i].s + h[i].n - p), spell, sl)); p++)
			if (p == h[i].s || p[-1] == '.')
				return true;
	}
	return false;
}

static void
find_spellings(const char *arch, const bool need[WS_ROLE_COUNT], const hint *hints, size_t nh,
	       spelling *sp)
{
	char name[256];
	int best = -1;
	bool spell_hit[sizeof block_spells / sizeof block_spells[0]];
	for (size_t s = 0; s < sizeof block_spells / sizeof block_spells[0]; s++)
		spell_hit[s] = hinted(hints, nh, block_spells[s], false);
	memset(sp, 0, sizeof *sp);
	for (size_t p = 0; p < sizeof block_prefixes / sizeof block_prefixes[0]; p++) {
		spelling cur;
		bool cur_hit[WS_ROLE_COUNT] = {0};
		memset(&cur, 0, sizeof cur);
		int n = 0;
		size_t pl = subst(name, sizeof name, 0, block_prefixes[p], 0);
		/* the adapter's own names (or its targets) decide where the
		 * role table accepts several spellings */
		char head[64];
		snprintf(head, sizeof head, "%.*s", (int)(strchr(block_prefixes[p], '#') - block_prefixes[p]),
			 block_prefixes[p]);
		if (hinted(hints, nh, head, true))
			n += 1000;
		for (size_t s = 0; s < sizeof block_spells / sizeof block_spells[0]; s++) {
			size_t len = subst(name, sizeof name, pl, block_spells[s], 0);
			int32_t layer = -1;
			int r = classify_module(WS_FORMAT_SAFETENSORS, arch, name, len, &layer, NULL);
			if (r <= 0 || layer != 0 || (cur.of[r] && (cur_hit[r] || !spell_hit[s])))
				continue;
			if (!cur.of[r])
				n += need[r];
			if (spell_hit[s] && need[r])
				n += 10;
			cur.of[r] = block_spells[s];
			cur_hit[r] = spell_hit[s];
		}
		bool ex_hit[WS_ROLE_COUNT] = {0};
		for (size_t s = 0; s < sizeof expert_spells / sizeof expert_spells[0]; s++) {
			size_t len = subst(name, sizeof name, pl, expert_spells[s], 0);
			int32_t layer = -1, ex = -1;
			int r = classify_module(WS_FORMAT_SAFETENSORS, arch, name, len, &layer, &ex);
			bool hit = hinted(hints, nh, expert_spells[s], false);
			if (r > 0 && ex == 0 && (!cur.expert[r] || (hit && !ex_hit[r]))) {
				cur.expert[r] = expert_spells[s];
				ex_hit[r] = hit;
			}
		}
		if (n > best) {
			best = n;
			*sp = cur;
			sp->prefix = block_prefixes[p];
		}
	}
	for (size_t s = 0; s < sizeof global_spells / sizeof global_spells[0]; s++) {
		int r = classify_module(WS_FORMAT_SAFETENSORS, arch, global_spells[s],
					strlen(global_spells[s]), NULL, NULL);
		if (r > 0 && !sp->global[r])
			sp->global[r] = global_spells[s];
	}
}

/* A module's key as PEFT sees it (no wrapper). */
static void
module_key(const bmod *b, const spelling *sp, char *buf, size_t n)
{
	if (b->layer < 0) {
		snprintf(buf, n, "%s", b->spell ? b->spell : "");
		return;
	}
	size_t o = subst(buf, n, 0, sp->prefix, b->layer);
	subst(buf, n, o, b->spell ? b->spell : "", b->expert);
}

/* The last segment of a key: the short target name. */
static const char *
short_name(const char *key)
{
	const char *d = strrchr(key, '.');
	return d ? d + 1 : key;
}

typedef struct base {
	struct ws_arch *arch;
	uint64_t q[WS_Q_COUNT];
	spelling sp;
	bmod *mods;
	size_t n, cap;
	uint64_t total;
	ws_format fmt;
	bool gguf_names;         /* the adapter's names are GGUF's */
	uint64_t L;              /* layers as the adapter sees them (after
				  * layer_replication) */
	size_t *ht, ht_cap;      /* (role, layer, expert) -> module */
	struct hint *hints;      /* names the adapter uses (owned array) */
	size_t n_hints;
	uint64_t *work;
} base;

static int
push_mod(base *b, const bmod *m)
{
	if (b->n == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 256;
		if (cap > MAX_MODULES)
			return -1;
		bmod *p = realloc(b->mods, cap * sizeof *p);
		if (!p)
			return -1;
		b->mods = p;
		b->cap = cap;
	}
	b->mods[b->n++] = *m;
	return 0;
}

/* A linear-like weight: its in and out from the template's shape. */
static bool
tmpl_io(const base *b, const struct ws_template *t, uint64_t *in, uint64_t *out, bool *embed)
{
	if (t->kind != WS_KIND_WEIGHT || ws_template_rank(t) != 2 || t->dim[1] == WS_Q_NONE)
		return false;
	*embed = t->role == WS_ROLE_EMBED;
	/* an embedding [V, d]: LoRA's A reads the V rows, B writes d */
	*in = b->q[t->dim[*embed ? 0 : 1]];
	*out = b->q[t->dim[*embed ? 1 : 0]];
	return true;
}

static uint64_t
bias_of(const base *b, ws_role role, enum ws_scope sc, const ws_switches *feat)
{
	for (size_t i = 0; i < ws_n_templates; i++) {
		const struct ws_template *t = &ws_templates[i];
		if (t->role == role && t->kind == WS_KIND_BIAS && t->scope == sc && ws_template_on(t, feat))
			return b->q[t->dim[0]];
	}
	return 0;
}

/* layer_replication's stack: the base layer each adapted layer copies. */
static int
layer_map(const acfg *c, const struct ws_arch *a, uint32_t **map, uint64_t *L, ws_error *err)
{
	*map = NULL;
	*L = a->num_layers;
	if (!c || !c->replication)
		return 0;
	uint64_t n = 0;
	const cJSON *it;
	cJSON_ArrayForEach(it, c->replication) {
		uint64_t s0, e0;
		ws_json_count(cJSON_GetArrayItem(it, 0), &s0);
		ws_json_count(cJSON_GetArrayItem(it, 1), &e0);
		if (e0 > a->num_layers)
			return ws_err(err, WS_EXIT_INPUT, c->path,
				      "layer_replication copies layer %llu; the base has %llu",
				      (unsigned long long)e0 - 1, (unsigned long long)a->num_layers);
		n += e0 - s0;
		if (n > WS_ARCH_MAX_LAYERS)
			return bad_key(c, "layer_replication", "makes too many layers", err);
	}
	uint32_t *m = malloc((n ? n : 1) * sizeof *m);
	if (!m)
		return ws_err_oom(err, c->path);
	n = 0;
	cJSON_ArrayForEach(it, c->replication) {
		uint64_t s0, e0;
		ws_json_count(cJSON_GetArrayItem(it, 0), &s0);
		ws_json_count(cJSON_GetArrayItem(it, 1), &e0);
		for (uint64_t l = s0; l < e0; l++)
			m[n++] = (uint32_t)l;
	}
	*map = m;
	*L = n;
	return 0;
}

static size_t
bkey_hash(int role, int32_t layer, int32_t expert)
{
	uint64_t h = ((uint64_t)(uint32_t)role << 40) ^ ((uint64_t)(uint32_t)layer << 20) ^
		     (uint64_t)(uint32_t)expert;
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h;
}

/* Index the modules by (role, layer, expert): the first one wins, as a
 * scan in order would find it. */
static int
index_build(base *b)
{
	size_t cap = 64;
	while (cap < b->n * 2 + 1)
		cap *= 2;
	b->ht = malloc(cap * sizeof *b->ht);
	if (!b->ht)
		return -1;
	b->ht_cap = cap;
	for (size_t i = 0; i < cap; i++)
		b->ht[i] = SIZE_MAX;
	for (size_t k = 0; k < b->n; k++) {
		const bmod *m = &b->mods[k];
		size_t i = bkey_hash((int)m->role, m->layer, m->expert) & (cap - 1);
		for (;; i = (i + 1) & (cap - 1)) {
			if (b->ht[i] == SIZE_MAX) {
				b->ht[i] = k;
				break;
			}
			const bmod *o = &b->mods[b->ht[i]];
			if (o->role == m->role && o->layer == m->layer && o->expert == m->expert)
				break;
		}
	}
	return 0;
}

static int
enumerate(base *b, const acfg *c, ws_error *err)
{
	const struct ws_arch *a = b->arch;
	if (ws_arch_quantities(a, b->q, err))
		return -1;
	uint32_t *map = NULL;
	if (layer_map(c, a, &map, &b->L, err))
		return -1;
	ws_switches feat = ws_template_features(a);
	bool need[WS_ROLE_COUNT] = {0};
	for (size_t i = 0; i < ws_n_templates; i++)
		if (ws_template_on(&ws_templates[i], &feat) && ws_templates[i].scope != WS_SC_GLOBAL)
			need[ws_templates[i].role] = true;
	find_spellings(a->architecture, need, b->hints, b->n_hints, &b->sp);
	for (size_t i = 0; i < ws_n_templates; i++) {
		const struct ws_template *t = &ws_templates[i];
		bmod m = {.role = t->role, .layer = -1, .expert = -1};
		if (!ws_template_on(t, &feat) || !tmpl_io(b, t, &m.in, &m.out, &m.embed) || t->what)
			continue;
		m.bias = bias_of(b, t->role, t->scope, &feat);
		if (t->scope == WS_SC_GLOBAL) {
			m.spell = b->sp.global[t->role];
			if (push_mod(b, &m)) {
				free(map);
				return ws_err_oom(err, a->src_path);
			}
			continue;
		}
		if (t->scope == WS_SC_MTP)
			continue;
		m.spell = t->scope == WS_SC_EXPERT ? b->sp.expert[t->role] : b->sp.of[t->role];
		for (uint64_t l = 0; l < b->L; l++) {
			uint64_t src = map ? map[l] : l;
			if (!ws_template_in_block(t, ws_arch_layer_is_moe(a, src) ? 1 : 0))
				continue;
			m.layer = (int32_t)l;
			uint64_t ne = t->scope == WS_SC_EXPERT ? a->num_experts : 1;
			for (uint64_t e = 0; e < ne; e++) {
				m.expert = t->scope == WS_SC_EXPERT ? (int32_t)e : -1;
				if (push_mod(b, &m)) {
					free(map);
					return ws_err(err, WS_EXIT_INPUT, a->src_path,
						      "more than %u modules: not a model", MAX_MODULES);
				}
			}
		}
	}
	free(map);
	if (index_build(b))
		return ws_err_oom(err, a->src_path);
	return 0;
}

static void
base_free(base *b)
{
	if (b->arch) {
		ws_arch_free(b->arch);
		free(b->arch);
	}
	free(b->mods);
	free(b->ht);
	free(b->hints);
	memset(b, 0, sizeof *b);
}

static bool
is_json(const char *p)
{
	size_t n = strlen(p);
	return n >= 5 && !strcmp(p + n - 5, ".json");
}

/* The base at path: a config.json read alone, else a checkpoint opened
 * and analyzed (its own count is the base's total). */
static int
base_load(base *b, const char *path, ws_error *err)
{
	memset(b, 0, sizeof *b);
	b->arch = calloc(1, sizeof *b->arch);
	if (!b->arch)
		return ws_err_oom(err, path);
	if (is_json(path)) {
		char *buf;
		size_t len;
		if (ws_read_small_file(path, MAX_CONFIG, &buf, &len, err))
			return -1;
		cJSON *c = ws_parse_json_buf(buf, len, path, err);
		free(buf);
		if (!c)
			return -1;
		int r = ws_arch_from_config(c, path, b->arch, err);
		cJSON_Delete(c);
		if (r)
			return -1;
		if (!b->arch->known)
			return ws_err(err, WS_EXIT_INPUT, path, "no formula for the base's architecture '%s'",
				      b->arch->architecture);
		struct ws_formula f;
		if (ws_formula_compute(b->arch, &f, err))
			return -1;
		b->total = f.total;
		ws_formula_free(&f);
		b->fmt = WS_FORMAT_SAFETENSORS;
		return 0;
	}
	ws_model *m = NULL;
	ws_open_opts o = {0};
	if (ws_model_open(path, &o, &m, err))
		return -1;
	if (ws_adapter_detect(m)) {
		ws_model_free(m);
		return ws_err(err, WS_EXIT_INPUT, path, "the base is itself an adapter");
	}
	if (ws_model_analyze(m, err)) {
		ws_model_free(m);
		return -1;
	}
	if (!m->arch || !m->arch->known) {
		ws_model_free(m);
		return ws_err(err, WS_EXIT_INPUT, path, "no architecture known for the base");
	}
	free(b->arch);
	b->arch = m->arch;
	m->arch = NULL;
	for (uint64_t i = 0; i < m->n_tensors; i++)
		if (m->tensors[i].role != WS_ROLE_BUFFER && m->tensors[i].role != WS_ROLE_QUANT_AUX)
			b->total += m->tensors[i].params;
	b->fmt = m->format;
	ws_model_free(m);
	return 0;
}

/* ==== selection and the expected count ==== */

static bool
mod_linear(const base *b, const bmod *m)
{
	if (m->layer < 0)
		return false;
	if (m->expert >= 0 && ws_sw_has(&b->arch->flags, WS_ARCH_MOE_FUSED))
		return false;
	return ws_role_matmul(m->role) != WS_MATMUL_NONE;
}

/* The default when target_modules is absent: the attention's query and
 * value projections (or the fused qkv). */
static bool
default_target(ws_role r)
{
	return r == WS_ROLE_ATTN_Q || r == WS_ROLE_ATTN_V || r == WS_ROLE_ATTN_QKV;
}

static int
add_target(ws_adapter *ad, const char *s, size_t n)
{
	for (uint32_t i = 0; i < ad->n_targets; i++)
		if (strlen(ad->targets[i]) == n && !memcmp(ad->targets[i], s, n))
			return 0;
	if (ad->n_targets >= WS_ADAPTER_MAX_TARGETS)
		return 0;
	if (n >= sizeof ad->targets[0])
		n = sizeof ad->targets[0] - 1;
	memcpy(ad->targets[ad->n_targets], s, n);
	ad->targets[ad->n_targets++][n] = 0;
	return 0;
}

/* Count a (rank, alpha) group: what rank_pattern and alpha_pattern make
 * of the modules. */
static void
add_group(ws_adapter *ad, uint64_t rank, double alpha)
{
	for (uint32_t i = 0; i < ad->n_groups; i++)
		if (ad->groups[i].rank == rank && ad->groups[i].alpha == alpha) {
			ad->groups[i].modules++;
			return;
		}
	if (ad->n_groups < WS_ADAPTER_MAX_GROUPS)
		ad->groups[ad->n_groups++] = (struct ws_adapter_group){rank, alpha, 1};
}

/* The elements of every bias template the base has (bias "all": PEFT
 * saves each of them). */
static bool
all_biases(const base *b, uint64_t *sum)
{
	const struct ws_arch *a = b->arch;
	ws_switches feat = ws_template_features(a);
	bool ok = true;
	for (size_t i = 0; i < ws_n_templates && ok; i++) {
		const struct ws_template *t = &ws_templates[i];
		if (t->kind != WS_KIND_BIAS || !ws_template_on(t, &feat) || t->scope == WS_SC_MTP)
			continue;
		uint64_t el = 1;
		for (unsigned d = 0; d < ws_template_rank(t) && ok; d++)
			ok = ws_mul_u64(el, b->q[t->dim[d]], &el);
		uint64_t times = 0;
		if (t->scope == WS_SC_GLOBAL) {
			times = 1;
		} else {
			for (uint64_t l = 0; l < a->num_layers; l++)
				times += ws_template_in_block(t, ws_arch_layer_is_moe(a, l) ? 1 : 0)
					 ? (t->scope == WS_SC_EXPERT ? a->num_experts : 1) : 0;
		}
		ok = ok && ws_mul_u64(el, times, &el) && ws_add_u64(*sum, el, sum);
	}
	return ok;
}

/* Mark the base modules the config selects and sum what they add. */
static int
select_modules(const acfg *c, base *b, ws_adapter *ad, ws_error *err)
{
	char key[512];
	uint64_t fac = 0, mag = 0, saved = 0, tokens = 0;
	bool ok = true;
	uint64_t L = b->L;
	for (size_t i = 0; i < b->n; i++) {
		bmod *m = &b->mods[i];
		if (!m->spell && c->layout == L_PEFT)
			continue;
		module_key(m, &b->sp, key, sizeof key);
		bool sel;
		if (c->layout == L_MLX) {
			/* the last num_layers blocks, the keys' modules (else
			 * mlx-lm's default: every linear module of the blocks) */
			uint64_t nl = c->mlx_layers ? c->mlx_layers : L;
			sel = m->layer >= 0 && (uint64_t)m->layer + nl >= L && mod_linear(b, m);
			if (sel && c->targets)
				sel = m->spell && matcher_hit(c->mt_targets, key, c->work);
		} else if (c->all_linear) {
			sel = mod_linear(b, m);
		} else if (!c->targets) {
			sel = m->layer >= 0 && default_target(m->role);
		} else {
			sel = matcher_hit(c->mt_targets, key, c->work);
		}
		if (sel && c->mt_exclude && matcher_hit(c->mt_exclude, key, c->work))
			sel = false;
		if (sel && c->layout == L_PEFT && !layer_allowed(c, m->layer, key))
			sel = false;
		if (!sel)
			continue;
		m->selected = true;
		m->rank = c->layout == L_PEFT ? rank_for(c, key) : c->r;
		add_group(ad, m->rank, c->layout == L_PEFT ? alpha_for(c, key) : c->alpha);
		uint64_t r = m->rank, ab;
		ok = ok && ws_mul_u64(r, m->in, &ab) && ws_add_u64(fac, ab, &fac) &&
		     ws_mul_u64(r, m->out, &ab) && ws_add_u64(fac, ab, &fac);
		if (c->dora && !m->embed)
			ok = ok && ws_add_u64(mag, m->out, &mag);
		if (c->lora_bias)
			ok = ok && ws_add_u64(fac, m->out, &fac);
		if (c->bias == 2)
			ok = ok && ws_add_u64(saved, m->bias, &saved);
		ad->modules++;
		if (!c->targets || c->all_linear)
			add_target(ad, short_name(key), strlen(short_name(key)));
	}
	if (c->bias == 1)
		ok = ok && all_biases(b, &saved);
	/* modules_to_save (and a sequence classifier's head, which PEFT adds
	 * for SEQ_CLS): full copies of the base's modules of those names,
	 * weight and bias; trainable_token_indices: rows of an embedding */
	for (size_t i = 0; i < b->n; i++) {
		bmod *m = &b->mods[i];
		if (!m->spell)
			continue;
		module_key(m, &b->sp, key, sizeof key);
		if (c->mt_save && matcher_hit(c->mt_save, key, c->work)) {
			uint64_t w;
			ok = ok && ws_mul_u64(m->in, m->out, &w) && ws_add_u64(saved, w, &saved) &&
			     ws_add_u64(saved, m->bias, &saved);
		}
		uint64_t n_idx = 0, t;
		if (cJSON_IsArray(c->tokens) && m->embed && m->layer < 0) {
			n_idx = (uint64_t)cJSON_GetArraySize(c->tokens);
		} else if (cJSON_IsObject(c->tokens) && m->layer < 0) {
			const cJSON *it;
			cJSON_ArrayForEach(it, c->tokens) {
				if (it->string && name_matches(it->string, key) && cJSON_IsArray(it)) {
					n_idx = (uint64_t)cJSON_GetArraySize(it);
					break;
				}
			}
		}
		if (n_idx)
			ok = ok && ws_mul_u64(n_idx, m->embed ? m->out : m->in, &t) &&
			     ws_add_u64(tokens, t, &tokens);
	}
	uint64_t tot;
	if (!ok || !ws_add_u64(fac, mag, &tot) || !ws_add_u64(tot, saved, &tot) ||
	    !ws_add_u64(tot, tokens, &tot))
		return ws_err(err, WS_EXIT_INPUT, c->path, "the adapter's count overflows 64 bits");
	ad->has_expected = true;
	ad->expected = tot;
	ad->exp_factors = fac;
	ad->exp_magnitudes = mag;
	ad->exp_saved = saved;
	ad->exp_tokens = tokens;
	return 0;
}

/* A modules_to_save name the base's templates do not describe (a
 * decoder's sequence-classification score: its width is the labels'):
 * the adapter's tensors of that module are its count, as stored. */
static int
saved_beyond_templates(ws_model *m, const acfg *c, ws_adapter *ad, ws_error *err)
{
	matcher *mt = c->mt_save;
	if (!mt || mt->is_re)
		return 0;
	bool *by_base = malloc(mt->set.cap * sizeof *by_base);
	if (!by_base)
		return ws_err_oom(err, c->path);
	memcpy(by_base, mt->hit, mt->set.cap * sizeof *by_base);
	char key[WS_ROLE_MAX_NAME + 1];
	uint64_t extra = 0;
	bool ok = true;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		const char *n = t->name;
		size_t len = t->name_len;
		if (is_factor_role(t->role) || len <= sizeof peft_prefix - 1 ||
		    memcmp(n, peft_prefix, sizeof peft_prefix - 1))
			continue;
		n += sizeof peft_prefix - 1;
		len -= sizeof peft_prefix - 1;
		const char *dot = memrchr(n, '.', len);
		if (!dot || (size_t)(dot - n) > WS_ROLE_MAX_NAME)
			continue;
		memcpy(key, n, (size_t)(dot - n));
		key[dot - n] = 0;
		/* matched by a listed name no base module matched */
		bool listed = false, base_has = false;
		size_t kl = strlen(key);
		for (size_t k = 0; k <= kl; k++) {
			if (k && key[k - 1] != '.')
				continue;
			long slot = sset_find(&mt->set, key + k, kl - k, c->work);
			listed = listed || slot >= 0;
			base_has = base_has || (slot >= 0 && by_base[slot]);
		}
		if (listed && !base_has)
			ok = ok && ws_add_u64(extra, t->params, &extra);
	}
	free(by_base);
	if (!ok || !ws_add_u64(ad->exp_saved, extra, &ad->exp_saved) ||
	    !ws_add_u64(ad->expected, extra, &ad->expected))
		return ws_err(err, WS_EXIT_INPUT, c->path, "the adapter's count overflows 64 bits");
	return 0;
}

/* A target that names no module of the base: PEFT accepts it. */
static int
unmatched_targets(ws_model *m, const acfg *c, const base *b)
{
	const matcher *mt = c->mt_targets;
	if (!m || !mt || c->all_linear)
		return 0;
	for (size_t i = 0; i < (mt->is_re ? 1 : mt->set.cap); i++) {
		const char *name;
		if (mt->is_re) {
			bool any = false;
			for (size_t k = 0; k < b->n && !any; k++)
				any = b->mods[k].selected;
			if (any)
				continue;
			name = c->targets->valuestring;
		} else {
			if (!mt->set.s[i] || mt->hit[i])
				continue;
			name = mt->set.s[i];
		}
		char *e = ws_escape_text(name, strlen(name));
		int r = !e ? -1 : ws_model_add_finding(m, WS_SEV_WARNING, "adapter-mismatch", NULL, -1, -1,
						       false, 0, 0,
						       "target '%s' matches no module of the base (%s); PEFT "
						       "accepts it silently", e, b->arch->architecture);
		free(e);
		if (r < 0)
			return -1;
	}
	return 0;
}

/* ==== the adapter's tensors ==== */

typedef struct amod {
	const char *key;         /* the module's name (into a tensor's name) */
	size_t key_len;
	int32_t layer, expert;
	int role;                /* adapted role, -1 unknown */
	const ws_tensor *a, *b, *mag, *alpha;
	const ws_tensor *ly[10]; /* LyCORIS parts, as lyco_parts names them */
} amod;

/* LyCORIS's factor names after the module: LoHa's two Hadamard-multiplied
 * products (w1_a [out, r] x w1_b [r, in], w2_a x w2_b), LoKr's Kronecker
 * product of w1 [a, b] and w2 [c, d] (out a * c, in b * d), either given
 * whole or as a low-rank pair. */
static const char *const lyco_parts[10] = {
	".hada_w1_a", ".hada_w1_b", ".hada_w2_a", ".hada_w2_b",
	".lokr_w1", ".lokr_w1_a", ".lokr_w1_b", ".lokr_w2", ".lokr_w2_a", ".lokr_w2_b",
};

typedef struct fent {
	const char *key;
	size_t len;
	const ws_tensor *t;
} fent;

static int
cmp_fent(const void *x, const void *y)
{
	const fent *a = x, *b = y;
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->key, b->key, n);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

/* A factor's rank and its in / out, by layout (mlx stores [in, r] and
 * [r, out]; PEFT, kohya and GGUF [r, in] and [out, r], a conv's extra
 * dimensions after). */
static bool
factor_dims(int layout, const ws_tensor *t, bool is_b, uint64_t *rank, uint64_t *io)
{
	if (!t || t->ndim < 2)
		return false;
	const uint64_t *s = t->shape;
	bool mlx = layout == L_MLX;
	if (mlx && t->ndim == 3) {
		/* mlx-lm's LoRASwitchLinear: A [E, r, in], B [E, out, r] */
		*rank = is_b ? s[2] : s[1];
		*io = is_b ? s[1] : s[2];
		return true;
	}
	if (!is_b) {
		*rank = mlx ? s[1] : s[0];
		*io = mlx ? s[0] : s[1];
	} else {
		*rank = mlx ? s[0] : s[1];
		*io = mlx ? s[1] : s[0];
	}
	return true;
}

typedef struct actx {
	ws_model *m;
	ws_adapter *ad;
	const acfg *c;           /* NULL: no config */
	base *b;                 /* NULL: no base */
	int layout;
	size_t n_find, more;
} actx;

static int
mismatch(actx *x, const char *tensor, int32_t layer, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int
mismatch(actx *x, const char *tensor, int32_t layer, const char *fmt, ...)
{
	if (x->n_find >= MAX_FINDINGS) {
		x->more++;
		return 0;
	}
	x->n_find++;
	char msg[768];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	char *e = tensor ? ws_escape_text(tensor, strlen(tensor)) : NULL;
	if (tensor && !e)
		return -1;
	int r = ws_model_add_finding(x->m, WS_SEV_ERROR, "adapter-mismatch", e, -1, layer, false, 0, 0,
				     "%s", msg);
	free(e);
	return r;
}

static bmod *
find_bmod(base *b, int role, int32_t layer, int32_t expert)
{
	if (!b->ht_cap)
		return NULL;
	for (size_t i = bkey_hash(role, layer, expert) & (b->ht_cap - 1);; i = (i + 1) & (b->ht_cap - 1)) {
		(*b->work)++;
		if (b->ht[i] == SIZE_MAX)
			return NULL;
		bmod *m = &b->mods[b->ht[i]];
		if ((int)m->role == role && m->layer == layer && m->expert == expert)
			return m;
	}
}

static void
kohya_short(const char *key, size_t len, const char **s, size_t *n)
{
	/* the part after the last "_<digits>_" of a kohya module name */
	size_t start = 0;
	for (size_t i = 0; i + 2 < len; i++) {
		if (key[i] != '_' || key[i + 1] < '0' || key[i + 1] > '9')
			continue;
		size_t j = i + 1;
		while (j < len && key[j] >= '0' && key[j] <= '9')
			j++;
		if (j < len && key[j] == '_')
			start = j + 1;
	}
	*s = key + start;
	*n = len - start;
}

/* A pair p [o, r] x q [r, i] (a LyCORIS low-rank pair): chained? */
static bool
pair_io(const ws_tensor *p, const ws_tensor *q, uint64_t *o, uint64_t *r, uint64_t *i, bool *chain)
{
	if (!p || !q || p->ndim != 2 || q->ndim < 2)
		return false;
	*o = p->shape[0];
	*r = p->shape[1];
	*i = q->shape[1];
	*chain = p->shape[1] == q->shape[0];
	return true;
}

/* LoHa / LoKr: every part compared, not only the first pair. */
static int
check_lyco(actx *x, amod *am, const char *lay, const char *en, uint64_t *rank_seen)
{
	const ws_tensor *const *ly = am->ly;
	const char *tn = NULL;
	for (int k = 0; k < 10 && !tn; k++)
		tn = ly[k] ? ly[k]->name : NULL;
	uint64_t o1, r1, i1, o2, r2, i2;
	bool c1, c2;
	if (ly[0] || ly[1] || ly[2] || ly[3]) {
		if (!pair_io(ly[0], ly[1], &o1, &r1, &i1, &c1) || !pair_io(ly[2], ly[3], &o2, &r2, &i2, &c2))
			return mismatch(x, tn, am->layer, "%s%s: a LoHa module needs hada_w1_a, hada_w1_b, "
				       "hada_w2_a and hada_w2_b", lay, en);
		*rank_seen = r1;
		if (!c1 || !c2)
			return mismatch(x, (!c1 ? ly[1] : ly[3])->name, am->layer,
					"%s%s: the LoHa factors do not chain (w%d_a's rank %llu, w%d_b's %llu)",
					lay, en, !c1 ? 1 : 2, (unsigned long long)(!c1 ? r1 : r2), !c1 ? 1 : 2,
					(unsigned long long)(!c1 ? ly[1] : ly[3])->shape[0]);
		if (o1 != o2 || i1 != i2)
			return mismatch(x, ly[2]->name, am->layer,
					"%s%s: LoHa's two products differ (%llu x %llu and %llu x %llu)", lay, en,
					(unsigned long long)o1, (unsigned long long)i1, (unsigned long long)o2,
					(unsigned long long)i2);
		return 0;
	}
	/* LoKr: each side whole or as a chained pair */
	for (int s = 0; s < 2; s++) {
		const ws_tensor *w = ly[4 + 3 * s], *wa = ly[5 + 3 * s], *wb = ly[6 + 3 * s];
		if (w && w->ndim >= 2)
			continue;
		uint64_t o, r, i;
		bool c;
		if (!pair_io(wa, wb, &o, &r, &i, &c))
			return mismatch(x, tn, am->layer, "%s%s: a LoKr module needs lokr_w%d or lokr_w%d_a and _b",
					lay, en, s + 1, s + 1);
		if (!c)
			return mismatch(x, wb->name, am->layer,
					"%s%s: the LoKr factors do not chain (w%d_a's rank %llu, w%d_b's %llu)", lay,
					en, s + 1, (unsigned long long)r, s + 1, (unsigned long long)wb->shape[0]);
		*rank_seen = r;
		(void)o;
		(void)i;
	}
	return 0;
}

static int
check_module(actx *x, amod *am, uint64_t *rank_seen)
{
	char nm[320];
	int kl = am->key_len > 256 ? 256 : (int)am->key_len;
	snprintf(nm, sizeof nm, "%.*s", kl, am->key);
	char *en = ws_escape_text(nm, strlen(nm));
	if (!en)
		return -1;
	int rc = 0;
	char lay[32] = "";
	if (am->layer >= 0)
		snprintf(lay, sizeof lay, "layer %d: ", am->layer);
	uint64_t ra = 0, rb = 0, in = 0, out = 0;
	bool ha = factor_dims(x->layout, am->a, false, &ra, &in);
	bool hb = factor_dims(x->layout, am->b, true, &rb, &out);
	const char *an = am->a ? am->a->name : am->b ? am->b->name : nm;
	/* the module is there, whatever is wrong with it: not also missing */
	bmod *bm = x->b && am->role >= 0 ? find_bmod(x->b, am->role, am->layer, am->expert) : NULL;
	if (bm)
		bm->seen = true;
	/* mlx's stacked experts: one module adapting each of the layer's
	 * experts (the base has them one by one) */
	uint64_t stacked = x->layout == L_MLX && am->a && am->a->ndim == 3 && am->expert < 0 ? am->a->shape[0] : 0;
	if (x->b && am->role >= 0 && stacked) {
		uint64_t found = 0;
		for (uint64_t e = 0; e < stacked && e < (uint64_t)INT32_MAX; e++) {
			bmod *be = find_bmod(x->b, am->role, am->layer, (int32_t)e);
			if (!be)
				break;
			be->seen = true;
			bm = bm ? bm : be;
			found++;
		}
		if (found != stacked || find_bmod(x->b, am->role, am->layer, (int32_t)stacked)) {
			rc = mismatch(x, am->a->name, am->layer, "%s%s adapts %llu experts; the base's layer has %s",
				      lay, en, (unsigned long long)stacked, found != stacked ? "fewer" : "more");
			goto out;
		}
	}
	for (int k = 0; k < 10; k++)
		if (am->ly[k]) {
			rc = check_lyco(x, am, lay, en, rank_seen);
			goto out;
		}
	if (!am->a || !am->b) {
		if (am->a || am->b)
			rc = mismatch(x, an, am->layer, "%s%s has its %s factor but not its %s", lay, en,
				      am->a ? "A" : "B", am->a ? "B" : "A");
		goto out;
	}
	if (!ha || !hb)
		goto out;
	*rank_seen = ra;
	if (ra != rb) {
		rc = mismatch(x, am->b->name, am->layer,
			      "%s%s: the factors do not chain (A's rank %llu, B's %llu)", lay, en,
			      (unsigned long long)ra, (unsigned long long)rb);
		goto out;
	}
	uint64_t want = x->c ? x->c->r : 0;
	if (x->c && x->c->layout == L_PEFT && x->c->rank_pattern) {
		const char *k = nm;
		if (!strncmp(k, peft_prefix, sizeof peft_prefix - 1))
			k += sizeof peft_prefix - 1;
		want = rank_for(x->c, k);
	}
	if (want && ra != want) {
		rc = mismatch(x, an, am->layer, "%s%s: rank %llu, the config says %llu", lay, en,
			      (unsigned long long)ra, (unsigned long long)want);
		if (rc)
			goto out;
	}
	if (!am->mag && x->c && x->c->dora && am->a->role == WS_ROLE_LORA_A) {
		rc = mismatch(x, an, am->layer, "%s%s has no magnitude vector; the config says DoRA", lay, en);
		if (rc)
			goto out;
	}
	if (am->mag && am->mag->elements != out) {
		rc = mismatch(x, am->mag->name, am->layer, "%s%s: %llu magnitudes for %llu outputs", lay,
			      en, (unsigned long long)am->mag->elements, (unsigned long long)out);
		if (rc)
			goto out;
	}
	if (!x->b || am->role < 0)
		goto out;
	if (!bm) {
		rc = mismatch(x, an, am->layer, "%s%s adapts %s, which the base (%s) does not have%s",
			      lay, en, ws_role_name((ws_role)am->role), x->b->arch->architecture,
			      am->layer >= 0 ? " in that layer" : "");
		goto out;
	}
	if (bm->in != in || bm->out != out) {
		rc = mismatch(x, an, am->layer,
			      "%s%s is built for in = %llu, out = %llu; the base's %s takes in = %llu, out = %llu",
			      lay, en, (unsigned long long)in, (unsigned long long)out,
			      ws_role_name(bm->role), (unsigned long long)bm->in, (unsigned long long)bm->out);
		goto out;
	}
	if (x->c && x->c->layout == L_PEFT && !bm->selected)
		rc = mismatch(x, an, am->layer, "%s%s is not a module the config targets", lay, en);
out:
	free(en);
	return rc;
}

static int
gather(actx *x, amod **out, size_t *n_out)
{
	ws_model *m = x->m;
	fent *f = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *f);
	size_t n = 0;
	if (!f)
		return -1;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		ws_tensor *t = &m->tensors[i];
		if (t->role == WS_ROLE_LORA_ALPHA) {
			x->ad->alphas++;
			t->params = 0;
		}
		if (!is_factor_role(t->role))
			continue;
		/* token rows are no A / B pair: counted by the config's indices */
		if (memmem(t->name, t->name_len, ".trainable_tokens_delta", 23))
			continue;
		size_t ml = module_len(t->name, t->name_len);
		if (!ml)
			continue;
		f[n++] = (fent){t->name, ml, t};
	}
	qsort(f, n, sizeof *f, cmp_fent);
	amod *a = calloc(n ? n : 1, sizeof *a);
	size_t na = 0;
	if (!a) {
		free(f);
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!na || cmp_fent(&f[i], &f[i - 1])) {
			amod *am = &a[na++];
			am->key = f[i].key;
			am->key_len = f[i].len;
			am->layer = -1;
			am->expert = -1;
			am->role = classify_module(m->format, x->b ? x->b->arch->architecture : m->arch_name,
						   am->key, am->key_len, &am->layer, &am->expert);
			if (am->role < 0)
				am->layer = f[i].t->layer, am->expert = f[i].t->expert;
		}
		amod *am = &a[na - 1];
		const ws_tensor *t = f[i].t;
		/* a LoHa / LoKr module has several A and B parts: the first
		 * of each is the one compared */
		if ((t->role == WS_ROLE_LORA_A || t->role == WS_ROLE_LORA_EMBED_A) && t->kind == WS_KIND_WEIGHT &&
		    !am->a)
			am->a = t;
		else if ((t->role == WS_ROLE_LORA_B || t->role == WS_ROLE_LORA_EMBED_B) &&
			 t->kind == WS_KIND_WEIGHT && !am->b)
			am->b = t;
		else if (t->role == WS_ROLE_LORA_MAGNITUDE)
			am->mag = t;
		else if (t->role == WS_ROLE_LORA_ALPHA)
			am->alpha = t;
		for (int k = 0; k < 10; k++) {
			size_t pl = strlen(lyco_parts[k]);
			if (t->name_len == f[i].len + pl && !memcmp(t->name + f[i].len, lyco_parts[k], pl))
				am->ly[k] = t;
		}
	}
	free(f);
	*out = a;
	*n_out = na;
	return 0;
}

/* Without a base: a target present in most layers but missing in one.
 * A bitmap of (role, layer): one pass over the modules. */
static int
missing_without_base(actx *x, const amod *a, size_t n)
{
	int32_t maxl = -1;
	for (size_t i = 0; i < n; i++)
		if (a[i].layer > maxl)
			maxl = a[i].layer;
	if (maxl < 0 || maxl > (int32_t)WS_ARCH_MAX_LAYERS)
		return 0;
	size_t W = (size_t)maxl + 1;
	uint8_t *have = calloc((size_t)WS_ROLE_COUNT * W / 8 + 1, 1);
	uint64_t in_layers[WS_ROLE_COUNT] = {0};
	int32_t lo[WS_ROLE_COUNT];
	if (!have)
		return -1;
	for (int r = 0; r < WS_ROLE_COUNT; r++)
		lo[r] = INT32_MAX;
	for (size_t i = 0; i < n; i++) {
		if (a[i].role < 0 || a[i].layer < 0)
			continue;
		size_t bit = (size_t)a[i].role * W + (size_t)a[i].layer;
		if (a[i].expert < 0 && !(have[bit / 8] & (1u << bit % 8))) {
			in_layers[a[i].role]++;
			if (a[i].layer < lo[a[i].role])
				lo[a[i].role] = a[i].layer;
		}
		have[bit / 8] |= (uint8_t)(1u << bit % 8);
	}
	int rc = 0;
	for (int role = 0; role < WS_ROLE_COUNT && rc == 0; role++) {
		if (!in_layers[role])
			continue;
		for (int32_t l = lo[role]; l <= maxl && rc == 0; l++) {
			size_t bit = (size_t)role * W + (size_t)l;
			if (x->c && x->c->layout == L_PEFT && !layer_allowed(x->c, l, NULL))
				continue;
			if (!(have[bit / 8] & (1u << bit % 8)) &&
			    mismatch(x, NULL, l, "layer %d: no factors for %s, which %llu other layers have", l,
				     ws_role_name((ws_role)role), (unsigned long long)in_layers[role]) < 0)
				rc = -1;
		}
	}
	free(have);
	return rc;
}

static int
check_layers_mlx(actx *x, const amod *a, size_t n)
{
	uint64_t nl = x->c->mlx_layers;
	if (!nl)
		return 0;
	if (x->b) {
		uint64_t L = x->b->L;
		for (size_t i = 0; i < n; i++)
			if (a[i].layer >= 0 && (uint64_t)a[i].layer + nl < L &&
			    mismatch(x, a[i].a ? a[i].a->name : NULL, a[i].layer,
				     "layer %d has factors; num_layers %llu adapts only the last %llu of %llu layers",
				     a[i].layer, (unsigned long long)nl, (unsigned long long)nl,
				     (unsigned long long)L) < 0)
				return -1;
		return 0;
	}
	/* distinct layers: a bitmap, not a scan per module */
	uint8_t *seen = calloc(WS_ARCH_MAX_LAYERS / 8 + 1, 1);
	if (!seen)
		return -1;
	uint64_t distinct = 0;
	int32_t lo = INT32_MAX;
	for (size_t i = 0; i < n; i++) {
		int32_t l = a[i].layer;
		if (l < 0 || l > (int32_t)WS_ARCH_MAX_LAYERS)
			continue;
		if (!(seen[l / 8] & (1u << l % 8)))
			distinct++;
		seen[l / 8] |= (uint8_t)(1u << l % 8);
		if (l < lo)
			lo = l;
	}
	free(seen);
	if (distinct > nl)
		return mismatch(x, NULL, lo, "factors in %llu layers (from layer %d); num_layers says %llu",
				(unsigned long long)distinct, lo, (unsigned long long)nl);
	return 0;
}

/* Hints for the base's spelling: the config's listed targets and the
 * first modules the adapter's factors name. */
static int
set_hints(base *b, const acfg *c, const ws_model *m)
{
	size_t cap = 256 + (c && cJSON_IsArray(c->targets) ? (size_t)cJSON_GetArraySize(c->targets) : 0);
	b->hints = calloc(cap, sizeof *b->hints);
	if (!b->hints)
		return -1;
	const cJSON *it, *tl = c && cJSON_IsArray(c->targets) ? c->targets : NULL;
	cJSON_ArrayForEach(it, tl) {
		if (cJSON_IsString(it) && b->n_hints < cap)
			b->hints[b->n_hints++] = (hint){it->valuestring, strlen(it->valuestring)};
	}
	size_t from_file = 0;
	for (uint64_t i = 0; m && i < m->n_tensors && from_file < 256 && b->n_hints < cap; i++) {
		const ws_tensor *t = &m->tensors[i];
		size_t ml = is_factor_role(t->role) ? module_len(t->name, t->name_len) : 0;
		if (!ml)
			continue;
		const char *n = t->name;
		if (ml > sizeof peft_prefix - 1 && !memcmp(n, peft_prefix, sizeof peft_prefix - 1)) {
			n += sizeof peft_prefix - 1;
			ml -= sizeof peft_prefix - 1;
		}
		b->hints[b->n_hints++] = (hint){n, ml};
		from_file++;
	}
	return 0;
}

static int
resolve_base(const acfg *c, const ws_model *m, const char *base_path, ws_adapter *ad, base *b,
	     bool *have, ws_error *err)
{
	b->work = &ad->work;
	*have = false;
	char *found = NULL;
	if (!base_path && c && c->base_name) {
		struct stat st;
		if (stat(c->base_name, &st) == 0)
			base_path = c->base_name;
		else if ((found = ws_hf_cache_resolve(c->base_name)))
			base_path = found;
		else {
			char *e = ws_escape_text(c->base_name, strlen(c->base_name));
			snprintf(ad->note, sizeof ad->note,
				 "base_model_name_or_path '%s' is not here (give --base)", e ? e : "?");
			free(e);
		}
	} else if (!base_path) {
		snprintf(ad->note, sizeof ad->note, "no base given (--base)");
	}
	if (!base_path)
		return 0;
	snprintf(ad->base, sizeof ad->base, "%s", base_path);
	int r = base_load(b, base_path, err);
	free(found);
	b->work = &ad->work;
	if (!r && set_hints(b, c, m))
		r = ws_err_oom(err, base_path);
	if (r || enumerate(b, c, err))
		return -1;
	*have = true;
	ad->base_checked = true;
	ad->base_total = b->total;
	return 0;
}

int
ws_adapter_analyze(ws_model *m, const char *base_path, ws_error *err)
{
	ws_adapter *ad = calloc(1, sizeof *ad);
	if (!ad)
		return ws_err_oom(err, m->path);
	m->adapter = ad;
	acfg cfg, *c = NULL;
	memset(&cfg, 0, sizeof cfg);
	base b;
	memset(&b, 0, sizeof b);
	bool have_base = false;
	int rc = -1;
	actx x = {.m = m, .ad = ad};

	if (m->format == WS_FORMAT_GGUF) {
		x.layout = L_GGUF;
		const ws_kv *kv = ws_model_find_kv(m, "adapter.lora.alpha");
		double v;
		if (kv && ws_kv_get_f64(kv, &v)) {
			ad->has_alpha = true;
			ad->alpha = v;
		}
	} else {
		char *p = sibling_path(m->files[0].path, "adapter_config.json");
		if (!p) {
			ws_err_oom(err, m->path);
			goto out;
		}
		if (file_exists(p)) {
			if (config_parse(&cfg, p, err)) {
				free(p);
				goto out;
			}
			c = &cfg;
			cfg.work = &ad->work;
			x.layout = cfg.layout;
		} else {
			x.layout = L_KOHYA;
			for (uint64_t i = 0; i < m->n_tensors && x.layout == L_KOHYA; i++)
				if (memcmp(m->tensors[i].name, "lora_", 5) &&
				    is_factor_role(m->tensors[i].role))
					x.layout = strstr(m->tensors[i].name, ".lora_a") ||
							   strstr(m->tensors[i].name, ".lora_b") ? L_MLX : L_PEFT;
		}
		free(p);
	}
	x.c = c;
	ad->layout = layout_names[x.layout];
	if (c) {
		ad->rank = c->r;
		ad->has_alpha = c->has_alpha;
		ad->alpha = c->alpha;
	}
	if (x.layout == L_KOHYA) {
		const ws_kv *kv = ws_model_find_kv(m, "ss_network_alpha");
		const char *s;
		size_t n;
		if (kv && ws_kv_get_str(kv, &s, &n) && n && n < 32) {
			char num[32];
			memcpy(num, s, n);
			num[n] = 0;
			char *end;
			double v = strtod(num, &end);
			if (end != num) {
				ad->has_alpha = true;
				ad->alpha = v;
			}
		}
	}
	if (resolve_base(c, m, base_path, ad, &b, &have_base, err))
		goto out;
	x.b = have_base ? &b : NULL;
	if (c && have_base) {
		if (select_modules(c, &b, ad, err) || unmatched_targets(m, c, &b) ||
		    saved_beyond_templates(m, c, ad, err))
			goto out;
	}
	if (c && c->layout == L_PEFT && c->targets) {
		const cJSON *it;
		if (cJSON_IsString(c->targets))
			add_target(ad, c->targets->valuestring, strlen(c->targets->valuestring));
		const cJSON *lst = cJSON_IsArray(c->targets) ? c->targets : NULL;
		cJSON_ArrayForEach(it, lst) {
			if (cJSON_IsString(it))
				add_target(ad, it->valuestring, strlen(it->valuestring));
		}
	}

	/* the tensors: base_layer copies apart, factors grouped by module */
	bool magnitudes = false, loha = false, lokr = false;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		ws_tensor *t = &m->tensors[i];
		if (memmem(t->name, t->name_len, ".base_layer.", 12)) {
			ad->frozen += t->params;
			ad->n_frozen++;
			t->params = 0;
		}
		magnitudes = magnitudes || t->role == WS_ROLE_LORA_MAGNITUDE;
		loha = loha || memmem(t->name, t->name_len, ".hada_", 6);
		lokr = lokr || memmem(t->name, t->name_len, ".lokr_", 6);
	}
	amod *am = NULL;
	size_t na = 0;
	if (gather(&x, &am, &na)) {
		ws_err_oom(err, m->path);
		goto out;
	}
	uint64_t ranks[16] = {0}, counts[16] = {0};
	bool observed_targets = !(c && c->layout == L_PEFT && (c->targets || have_base));
	for (size_t i = 0; i < na; i++) {
		uint64_t r = 0;
		if (check_module(&x, &am[i], &r) < 0) {
			free(am);
			ws_err_oom(err, m->path);
			goto out;
		}
		for (int k = 0; r && k < 16; k++)
			if (ranks[k] == r || !ranks[k]) {
				ranks[k] = r;
				counts[k]++;
				break;
			}
		if (observed_targets && (am[i].a || am[i].b)) {
			const char *s = am[i].key;
			size_t n = am[i].key_len;
			if (x.layout == L_KOHYA) {
				kohya_short(am[i].key, am[i].key_len, &s, &n);
			} else {
				for (size_t k = n; k-- > 0;)
					if (am[i].key[k] == '.') {
						s = am[i].key + k + 1;
						n = am[i].key_len - k - 1;
						break;
					}
			}
			add_target(ad, s, n);
		}
	}
	if (!ad->rank) {
		uint64_t bc = 0;
		for (int k = 0; k < 16; k++)
			if (counts[k] > bc) {
				bc = counts[k];
				ad->rank = ranks[k];
			}
	}
	if (!have_base)
		ad->modules = 0;
	for (size_t i = 0; i < na; i++)
		ad->modules += !have_base && (am[i].a || am[i].b);
	int r2 = 0;
	if (have_base && c) {
		/* a selected module with no factors: missing */
		char key[512];
		for (size_t i = 0; i < b.n && r2 == 0; i++) {
			const bmod *bm = &b.mods[i];
			if (!bm->selected || bm->seen)
				continue;
			module_key(bm, &b.sp, key, sizeof key);
			char *e = ws_escape_text(key, strlen(key));
			r2 = !e ? -1 : bm->layer >= 0
				? mismatch(&x, NULL, bm->layer, "layer %d: target %s (%s) has no factors",
					   bm->layer, e, ws_role_name(bm->role))
				: mismatch(&x, NULL, -1, "target %s (%s) has no factors", e,
					   ws_role_name(bm->role));
			free(e);
		}
	} else if (x.layout != L_KOHYA) {
		r2 = missing_without_base(&x, am, na);
	}
	if (r2 == 0 && c && c->layout == L_MLX)
		r2 = check_layers_mlx(&x, am, na);
	free(am);
	if (r2 < 0) {
		ws_err_oom(err, m->path);
		goto out;
	}
	ad->kind = loha ? "loha" : lokr ? "lokr" : (magnitudes || (c && c->dora)) ? "dora" : "lora";
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (t->role != WS_ROLE_BUFFER && t->role != WS_ROLE_QUANT_AUX)
			ad->params += t->params;
	}
	if (x.more &&
	    ws_model_add_finding(m, WS_SEV_ERROR, "adapter-mismatch", NULL, -1, -1, false, 0, 0,
				 "and %zu more adapter mismatches", x.more) < 0) {
		ws_err_oom(err, m->path);
		goto out;
	}
	if (ad->has_expected && ad->expected != ad->params && x.n_find == 0) {
		char e1[32], e2[32];
		if (ws_model_add_finding(m, WS_SEV_ERROR, "adapter-mismatch", NULL, -1, -1, true, ad->expected,
					 ad->params,
					 "the adapter holds %s parameters; its config and the base imply %s",
					 ws_fmt_commas(ad->params, e1, sizeof e1),
					 ws_fmt_commas(ad->expected, e2, sizeof e2)) < 0) {
			ws_err_oom(err, m->path);
			goto out;
		}
	}
	rc = 0;
out:
	base_free(&b);
	config_free(&cfg);
	return rc;
}

int
ws_adapter_formula(const char *config_path, const char *base_path, ws_adapter **out,
		   ws_error *err)
{
	acfg c;
	base b;
	bool have = false;
	int rc = -1;
	memset(&b, 0, sizeof b);
	ws_adapter *ad = calloc(1, sizeof *ad);
	*out = NULL;
	if (!ad)
		return ws_err_oom(err, config_path);
	if (config_parse(&c, config_path, err))
		goto out;
	c.work = &ad->work;
	ad->layout = layout_names[c.layout];
	ad->kind = c.dora ? "dora" : "lora";
	ad->rank = c.r;
	ad->has_alpha = c.has_alpha;
	ad->alpha = c.alpha;
	if (resolve_base(&c, NULL, base_path, ad, &b, &have, err))
		goto out;
	if (!have) {
		ws_err(err, WS_EXIT_INPUT, config_path, "an adapter's count needs its base: %s", ad->note);
		goto out;
	}
	if (select_modules(&c, &b, ad, err))
		goto out;
	if (c.layout == L_PEFT && c.targets && !c.all_linear) {
		ad->n_targets = 0;
		const cJSON *it;
		if (cJSON_IsString(c.targets))
			add_target(ad, c.targets->valuestring, strlen(c.targets->valuestring));
		const cJSON *lst = cJSON_IsArray(c.targets) ? c.targets : NULL;
		cJSON_ArrayForEach(it, lst) {
			if (cJSON_IsString(it))
				add_target(ad, it->valuestring, strlen(it->valuestring));
		}
	}
	ad->params = ad->expected;
	*out = ad;
	ad = NULL;
	rc = 0;
out:
	free(ad);
	base_free(&b);
	config_free(&c);
	return rc;
}

/* ==== output ==== */

cJSON *
ws_adapter_to_json(const ws_adapter *a)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "kind", a->kind ? a->kind : "lora");
	cJSON_AddStringToObject(o, "layout", a->layout ? a->layout : "peft");
	ws_json_add_u64(o, "rank", a->rank);
	if (a->has_alpha)
		cJSON_AddNumberToObject(o, "alpha", a->alpha);
	else
		cJSON_AddNullToObject(o, "alpha");
	cJSON *t = cJSON_AddArrayToObject(o, "targets");
	for (uint32_t i = 0; t && i < a->n_targets; i++)
		cJSON_AddItemToArray(t, ws_json_bytes(a->targets[i], strlen(a->targets[i])));
	ws_json_add_u64(o, "modules", a->modules);
	ws_json_add_u64(o, "params", a->params);
	if (a->has_expected) {
		cJSON *e = cJSON_AddObjectToObject(o, "expected");
		ws_json_add_u64(e, "total", a->expected);
		ws_json_add_u64(e, "factors", a->exp_factors);
		ws_json_add_u64(e, "magnitudes", a->exp_magnitudes);
		ws_json_add_u64(e, "saved_modules", a->exp_saved);
		ws_json_add_u64(e, "token_rows", a->exp_tokens);
	}
	/* rank_pattern / alpha_pattern as applied: the modules of each pair */
	cJSON *g = a->n_groups ? cJSON_AddArrayToObject(o, "by_rank") : NULL;
	for (uint32_t i = 0; g && i < a->n_groups; i++) {
		cJSON *e = cJSON_CreateObject();
		if (!e)
			break;
		ws_json_add_u64(e, "rank", a->groups[i].rank);
		cJSON_AddNumberToObject(e, "alpha", a->groups[i].alpha);
		ws_json_add_u64(e, "modules", a->groups[i].modules);
		cJSON_AddItemToArray(g, e);
	}
	if (a->n_frozen) {
		cJSON *f = cJSON_AddObjectToObject(o, "base_layers");
		ws_json_add_u64(f, "total", a->frozen);
		ws_json_add_u64(f, "tensors", a->n_frozen);
	}
	cJSON_AddBoolToObject(o, "base_checked", a->base_checked);
	if (a->base_checked) {
		ws_json_add_bytes(o, "base", a->base, strlen(a->base));
		ws_json_add_u64(o, "base_total", a->base_total);
		uint64_t s;
		if (ws_add_u64(a->base_total, a->params, &s))
			ws_json_add_u64(o, "total_with_base", s);
	} else if (a->note[0]) {
		cJSON_AddStringToObject(o, "base_note", a->note);
	}
	return o;
}

void
ws_adapter_print_text(FILE *f, const ws_adapter *a)
{
	char c1[32], c2[32];
	fprintf(f, "adapter        %s (%s), rank %llu", a->kind ? a->kind : "lora",
		a->layout ? a->layout : "peft", (unsigned long long)a->rank);
	if (a->has_alpha)
		fprintf(f, ", alpha %g", a->alpha);
	if (a->modules)
		fprintf(f, ", %llu modules", (unsigned long long)a->modules);
	fputc('\n', f);
	fputs("targets        ", f);
	for (uint32_t i = 0; i < a->n_targets; i++) {
		if (i)
			fputs(", ", f);
		ws_fput_escaped(f, a->targets[i], strlen(a->targets[i]));
	}
	fputs(a->n_targets ? "\n" : "-\n", f);
	if (a->has_expected) {
		fprintf(f, "expected       %s", ws_fmt_commas(a->expected, c1, sizeof c1));
		if (a->exp_magnitudes || a->exp_saved || a->exp_tokens) {
			fprintf(f, " = %s factors", ws_fmt_commas(a->exp_factors, c2, sizeof c2));
			if (a->exp_magnitudes)
				fprintf(f, " + %s magnitudes", ws_fmt_commas(a->exp_magnitudes, c2, sizeof c2));
			if (a->exp_saved)
				fprintf(f, " + %s saved modules", ws_fmt_commas(a->exp_saved, c2, sizeof c2));
			if (a->exp_tokens)
				fprintf(f, " + %s token rows", ws_fmt_commas(a->exp_tokens, c2, sizeof c2));
		}
		fputc('\n', f);
	}
	if (a->n_groups > 1) {
		fputs("ranks          ", f);
		for (uint32_t i = 0; i < a->n_groups; i++)
			fprintf(f, "%s%llu (alpha %g) in %llu modules", i ? ", " : "",
				(unsigned long long)a->groups[i].rank, a->groups[i].alpha,
				(unsigned long long)a->groups[i].modules);
		fputc('\n', f);
	}
	if (a->n_frozen)
		fprintf(f, "base layers    %s parameters in %llu tensors (frozen copies, not the adapter's)\n",
			ws_fmt_commas(a->frozen, c1, sizeof c1), (unsigned long long)a->n_frozen);
	if (a->alphas)
		fprintf(f, "alpha scalars  %llu (hyperparameters, not parameters)\n",
			(unsigned long long)a->alphas);
	if (a->base_checked) {
		uint64_t s = 0;
		fputs("base           ", f);
		ws_fput_escaped(f, a->base, strlen(a->base));
		fprintf(f, ": %s parameters", ws_fmt_commas(a->base_total, c1, sizeof c1));
		if (ws_add_u64(a->base_total, a->params, &s))
			fprintf(f, "; base + adapter %s", ws_fmt_commas(s, c2, sizeof c2));
		fputc('\n', f);
	} else {
		fprintf(f, "base           not checked: %s\n", a->note[0] ? a->note : "no base");
	}
}
