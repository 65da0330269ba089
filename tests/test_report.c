/* test_report.c - the picture report: self-contained (no external
 * references), exact totals, well-formed, deterministic, escaped, and a
 * missing block shows as a gap and a finding. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "ws/version.h"
#include "ws/error.h"
#include "ws/util.h"
#include "ws/model.h"
#include "ws/json.h"
#include "ws/html.h"

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	cr_assert(f, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)n + 1);
	cr_assert(b && fread(b, 1, (size_t)n, f) == (size_t)n);
	b[n] = '\0';
	fclose(f);
	if (len)
		*len = (size_t)n;
	return b;
}

/* Nothing that would make a browser fetch: no URL scheme, no
 * protocol-relative URL, no url(), no script, link, import or image. */
static void
assert_self_contained(const char *doc, bool svg)
{
	static const char *const banned[] = {
		"https:", "//", "url(", "<script", "<link", "@import", "<img", "<iframe",
		"<object", "<embed", "src=", "href=", "@font-face",
	};
	/* a bare SVG must name its namespace; that string fetches nothing */
	const char *ns = "xmlns=\"http://www.w3.org/2000/svg\"";
	char *copy = strdup(doc);
	cr_assert(copy);
	if (svg) {
		char *p = strstr(copy, ns);
		cr_assert(p, "bare SVG without its namespace");
		memset(p, ' ', strlen(ns));
	}
	cr_expect(!strstr(copy, "http:"), "the report holds 'http:'");
	for (size_t i = 0; i < sizeof banned / sizeof banned[0]; i++)
		cr_expect(!strstr(copy, banned[i]), "the report holds '%s'", banned[i]);
	free(copy);
}

/* Every element opened is closed in order (void elements and <x/> aside). */
static void
assert_balanced(const char *doc)
{
	static const char *const voids[] = {"meta", "br", "hr", "input", "col"};
	char stack[256][16];
	int depth = 0;
	size_t elements = 0;
	for (const char *p = doc; (p = strchr(p, '<'));) {
		const char *end = strchr(p, '>');
		cr_assert(end, "unterminated tag at byte %zu", (size_t)(p - doc));
		if (p[1] == '!' || p[1] == '?') {
			p = end + 1;
			continue;
		}
		bool closing = p[1] == '/';
		const char *n = p + 1 + closing;
		size_t len = strcspn(n, " \t\n/>");
		cr_assert(len > 0 && len < 16, "bad tag at byte %zu", (size_t)(p - doc));
		char name[16];
		memcpy(name, n, len);
		name[len] = '\0';
		if (closing) {
			cr_assert(depth > 0, "</%s> closes nothing", name);
			cr_assert_str_eq(stack[depth - 1], name, "</%s> closes <%s>", name,
					 stack[depth - 1]);
			depth--;
		} else if (end[-1] != '/') {
			bool v = false;
			for (size_t i = 0; i < sizeof voids / sizeof voids[0]; i++)
				v |= !strcmp(voids[i], name);
			if (!v) {
				cr_assert(depth < 256);
				strcpy(stack[depth++], name);
			}
		}
		elements++;
		p = end + 1;
	}
	cr_expect_eq(depth, 0, "%d elements left open (innermost <%s>)", depth,
		     depth ? stack[depth - 1] : "");
	cr_expect_gt(elements, 20);
}

static char *
tiny(const char *dir, const char *name, const char *flag)
{
	char *d = ws_join(dir, name);
	ws_mkfixture("tiny", d, flag, NULL);
	return d;
}

static char *
report_cli(const char *out, const char *a, const char *b, const char *flag)
{
	/* the list ends at the first NULL: optional words go last */
	ws_run r = b ? ws_run_cli("report", a, "-o", out, b, flag, NULL)
		     : ws_run_cli("report", a, "-o", out, flag, NULL);
	cr_assert_eq(r.status, 0, "report: status %d, stderr %s", r.status, r.err);
	cr_expect_str_eq(r.out, "", "report -o writes nothing to stdout");
	ws_run_free(&r);
	return slurp(out, NULL);
}

Test(report, html_self_contained_exact_totals_balanced)
{
	char *dir = ws_tmpdir(), *m = tiny(dir, "m", NULL), *out = ws_join(dir, "r.html");
	char *doc = report_cli(out, m, NULL, NULL);
	cr_expect(!strncmp(doc, "<!DOCTYPE html>", 15));
	assert_self_contained(doc, false);
	assert_balanced(doc);
	/* the exact totals, comma-formatted: parameters, bytes, a role */
	cr_expect(ws_contains(doc, "27,296 (27.3K)"), "total parameters missing");
	cr_expect(ws_contains(doc, "54,592"), "stored bytes missing");
	cr_expect(ws_contains(doc, "<td class=\"n\">5,632</td>"), "ffn_gate count missing");
	cr_expect(ws_contains(doc, "class=\"tm\""), "no treemap");
	cr_expect(ws_contains(doc, "class=\"bc\""), "no per-layer chart");
	cr_expect(ws_contains(doc, "No findings."));
	/* hover text with the exact count of one tensor */
	cr_expect(ws_contains(doc, "model.embed_tokens.weight\nembed"), "no treemap title");
	cr_expect(ws_contains(doc, "KV cache / token"));
	free(doc);
	ws_rmtree(dir);
	free(out);
	free(m);
	free(dir);
}

Test(report, deterministic_and_stdout)
{
	char *dir = ws_tmpdir(), *m = tiny(dir, "m", NULL);
	ws_run a = ws_run_cli("report", m, NULL), b = ws_run_cli("report", m, NULL);
	cr_assert_eq(a.status, 0, "%s", a.err);
	cr_expect_gt(strlen(a.out), 1000);
	cr_expect_str_eq(a.out, b.out, "two runs differ");
	ws_run_free(&a);
	ws_run_free(&b);
	ws_run s1 = ws_run_cli("report", "--svg", m, NULL), s2 = ws_run_cli("report", m, "--svg", NULL);
	cr_assert_eq(s1.status, 0, "%s", s1.err);
	cr_expect_str_eq(s1.out, s2.out, "two SVG runs differ");
	ws_run_free(&s1);
	ws_run_free(&s2);
	ws_rmtree(dir);
	free(m);
	free(dir);
}

Test(report, bare_svg)
{
	char *dir = ws_tmpdir(), *m = tiny(dir, "m", NULL), *out = ws_join(dir, "r.svg");
	char *doc = report_cli(out, m, NULL, "--svg");
	cr_expect(!strncmp(doc, "<?xml", 5));
	cr_expect(ws_contains(doc, "<svg xmlns="));
	cr_expect(!ws_contains(doc, "<table"), "tables in a bare SVG");
	cr_expect(!ws_contains(doc, "<br>"), "HTML in a bare SVG");
	cr_expect(ws_contains(doc, "27,296"));
	assert_self_contained(doc, true);
	assert_balanced(doc);
	free(doc);
	ws_rmtree(dir);
	free(out);
	free(m);
	free(dir);
}

Test(report, compare_per_role_deltas)
{
	char *dir = ws_tmpdir(), *a = tiny(dir, "a", NULL), *b = tiny(dir, "b", "--tied");
	char *out = ws_join(dir, "r.html");
	char *doc = report_cli(out, a, b, NULL);
	assert_self_contained(doc, false);
	assert_balanced(doc);
	cr_expect(ws_contains(doc, "Per-role parameters"));
	/* B is tied: no lm_head, 2,048 parameters fewer */
	cr_expect(ws_contains(doc, "<td class=\"n bad\">-2,048</td>"), "lm_head delta missing");
	cr_expect(ws_contains(doc, "27,296"));
	cr_expect(ws_contains(doc, "25,248"));
	free(doc);
	ws_rmtree(dir);
	free(out);
	free(a);
	free(b);
	free(dir);
}

Test(report, usage_and_input_errors)
{
	ws_run r = ws_run_cli("report", NULL);
	cr_expect_eq(r.status, 2);
	ws_run_free(&r);
	r = ws_run_cli("report", "a", "b", "c", NULL);
	cr_expect_eq(r.status, 2);
	ws_run_free(&r);
	r = ws_run_cli("report", "--bogus", "a", NULL);
	cr_expect_eq(r.status, 2);
	ws_run_free(&r);
	r = ws_run_cli("report", "/nonexistent/model.safetensors", NULL);
	cr_expect_eq(r.status, 3, "status %d", r.status);
	cr_expect_str_eq(r.out, "");
	ws_run_free(&r);
}

/* Open PATH, drop every tensor whose name starts with `drop` (before the
 * analysis, as if the file never had them), analyze. */
static ws_model *
open_dropping(const char *path, const char *drop)
{
	ws_model *m = NULL;
	ws_error err = {0};
	cr_assert_eq(ws_model_open(path, NULL, &m, &err), 0, "%s", err.message);
	uint64_t k = 0, dropped = 0;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		if (drop && !strncmp(m->tensors[i].name, drop, strlen(drop))) {
			dropped++;
			continue;
		}
		m->tensors[k++] = m->tensors[i];
	}
	m->n_tensors = k;
	cr_assert(!drop || dropped > 0, "nothing dropped for %s", drop);
	cr_assert_eq(ws_model_analyze(m, &err), 0, "%s", err.message);
	return m;
}

static char *
render(const ws_model *m, bool svg, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	cr_assert(f);
	ws_html_opts o = {.svg = svg};
	cr_assert_eq(ws_report_html(f, &m, 1, &o), 0);
	fclose(f);
	if (len)
		*len = n;
	return buf;
}

Test(report, planted_missing_block_is_a_gap)
{
	char *dir = ws_tmpdir(), *p = tiny(dir, "m", NULL);
	ws_model *m = open_dropping(p, "model.layers.0.");
	char *doc = render(m, false, NULL);
	assert_balanced(doc);
	/* the chart: a dashed "missing" box in column 0 and its hover text */
	cr_expect(ws_contains(doc, "<rect class=\"miss\""), "no gap drawn");
	cr_expect(ws_contains(doc, "<title>block 0: 0 parameters (formula: 11,584)"),
		  "the gap's hover text is missing");
	cr_expect(ws_contains(doc, "missing block"), "no legend entry for the gap");
	/* the finding, marked on the block and in the list */
	cr_expect(ws_contains(doc, "<path class=\"fe\""), "no finding marker");
	cr_expect(ws_contains(doc, "layer-gap"), "no layer-gap finding");
	cr_expect(ws_contains(doc, "block 0 of 2 has no tensors"));
	free(doc);
	/* the intact model has neither */
	ws_model *ok = open_dropping(p, NULL);
	doc = render(ok, false, NULL);
	cr_expect(!ws_contains(doc, "<rect class=\"miss\""));
	cr_expect(!ws_contains(doc, "layer-gap"));
	free(doc);
	ws_model_free(ok);
	ws_model_free(m);
	ws_rmtree(dir);
	free(p);
	free(dir);
}

Test(report, names_are_escaped)
{
	char *dir = ws_tmpdir(), *p = tiny(dir, "m", NULL);
	ws_model *m = open_dropping(p, NULL);
	/* a hostile name: markup, an ESC, invalid UTF-8 */
	static const char evil[] = "<script>x</script>&\"\x1b\xff<img src=//e>";
	m->tensors[0].name = evil;
	m->tensors[0].name_len = sizeof evil - 1;
	char *doc = render(m, false, NULL);
	cr_expect(!ws_contains(doc, "<script"), "markup from a tensor name got through");
	cr_expect(!ws_contains(doc, "<img"), "markup from a tensor name got through");
	cr_expect(ws_contains(doc, "&lt;script&gt;x&lt;/script&gt;&amp;&quot;\\x1B\\xFF&lt;img"),
		  "name not escaped as text then HTML");
	assert_balanced(doc);
	free(doc);
	ws_model_free(m);
	ws_rmtree(dir);
	free(p);
	free(dir);
}

/* Full size: Llama-3-8B's real names and shapes (sparse), with block 5
 * dropped; a few hundred KB at most, exact totals, gap at block 5. */
Test(report, llama3_8b_full_size, .timeout = 60)
{
	char *cfg = ws_shared_path("configs/meta-llama__Meta-Llama-3-8B.json");
	if (!cfg)
		cr_skip_test("no ../shared");
	char *dir = ws_tmpdir(), *d = ws_join(dir, "l8");
	ws_mkfixture("sparse", d, cfg, NULL);
	ws_model *m = open_dropping(d, NULL);
	size_t len;
	char *doc = render(m, false, &len);
	cr_expect(ws_contains(doc, "8,030,261,248 (8.03B)"));
	cr_expect(ws_contains(doc, "131,072 bytes"), "KV cache per token (2*32*8*128*2)");
	cr_expect_lt(len, 400000, "report of 291 tensors is %zu bytes", len);
	assert_self_contained(doc, false);
	assert_balanced(doc);
	free(doc);
	ws_model_free(m);

	m = open_dropping(d, "model.layers.5.");
	doc = render(m, false, NULL);
	cr_expect(ws_contains(doc, "<title>block 5: 0 parameters (formula: 218,112,000)"));
	cr_expect(ws_contains(doc, "block 5 of 32 has no tensors"));
	free(doc);
	ws_model_free(m);
	ws_rmtree(dir);
	free(d);
	free(dir);
	free(cfg);
}

/* Every drawn coordinate (x=, y=, width=, height=) is a finite number of
 * a sane size. */
static void
assert_sane_coordinates(const char *doc)
{
	static const char *const attrs[] = {" x=\"", " y=\"", " width=\"", " height=\""};
	size_t seen = 0;
	for (size_t i = 0; i < sizeof attrs / sizeof attrs[0]; i++) {
		for (const char *p = doc; (p = strstr(p, attrs[i])); seen++) {
			p += strlen(attrs[i]);
			char *end;
			double v = strtod(p, &end);
			cr_assert(end > p && *end == '"', "non-number %.20s", p);
			cr_assert(v > -1e5 && v < 1e5, "coordinate %.20s", p);
		}
	}
	cr_expect_gt(seen, 10);
}

/* A hostile config whose per-block count is near 2^64 (review: the tick
 * rounding wrapped to 0, then NaN reached the long conversion). */
Test(report, huge_formula_count_draws_sane_chart)
{
	static const char cfg[] =
		"{\"model_type\":\"llama\",\"vocab_size\":1,\"hidden_size\":65536,"
		"\"num_hidden_layers\":1,\"num_attention_heads\":1,\"num_key_value_heads\":1,"
		"\"head_dim\":1,\"intermediate_size\":76293945312500,\"tie_word_embeddings\":true}";
	char *dir = ws_tmpdir(), *c = ws_write_file(dir, "huge.json", cfg, sizeof cfg - 1);
	char *m = ws_testdata_path("tiny-llama");
	ws_run r = ws_run_cli("report", m, "--config", c, NULL);
	cr_assert_eq(r.status, 0, "status %d: %s", r.status, r.err);
	cr_expect(!ws_contains(r.err, "runtime error"), "sanitizer: %s", r.err);
	cr_expect(!ws_contains(r.out, "922337203685477"), "LONG_MIN reached the chart");
	cr_expect(!ws_contains(r.out, "nan") && !ws_contains(r.out, "inf\""));
	/* the grid path: four ticks from the bottom to the top, no negatives */
	const char *gr = strstr(r.out, "class=\"gr\" d=\"");
	cr_assert(gr);
	gr += strlen("class=\"gr\" d=\"");
	cr_expect(gr[strcspn(gr, "\"")] == '"' && !memchr(gr, '-', strcspn(gr, "\"")),
		  "grid %.80s", gr);
	assert_sane_coordinates(r.out);
	assert_balanced(r.out);
	ws_run_free(&r);
	ws_rmtree(dir);
	free(m);
	free(c);
	free(dir);
}

/* ==== the treemap as a reader sees it ==== */

/* The treemap's part of the page: from its <svg class="tm" to </svg>. */
static char *
treemap_of(const char *doc)
{
	const char *a = strstr(doc, "<svg class=\"tm\"");
	cr_assert(a, "no treemap");
	const char *b = strstr(a, "</svg>");
	cr_assert(b);
	return strndup(a, (size_t)(b - a));
}

static size_t
count_of(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = s; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* A MoE model small enough that its experts have room for labels:
 * Mixtral's shapes cut to 2 blocks. */
static const char small_moe[] =
	"{\"architectures\": [\"MixtralForCausalLM\"], \"model_type\": \"mixtral\",\n"
	" \"hidden_size\": 4096, \"intermediate_size\": 14336, \"num_hidden_layers\": 2,\n"
	" \"num_attention_heads\": 32, \"num_key_value_heads\": 8, \"vocab_size\": 32000,\n"
	" \"num_local_experts\": 8, \"num_experts_per_tok\": 2, \"tie_word_embeddings\": false}\n";

Test(report, treemap_parts_order_labels_legend_width, .timeout = 60)
{
	char *dir = ws_tmpdir(), *cfg = ws_write_file(dir, "moe.json", small_moe, strlen(small_moe));
	char *model = ws_join(dir, "moe"), *out = ws_join(dir, "r.html");
	char *argv[] = {getenv("WS_MKMODEL"), model, cfg, NULL};
	cr_assert(argv[0], "WS_MKMODEL not set");
	ws_run g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0, "%s", g.err);
	ws_run_free(&g);
	char *doc = report_cli(out, model, NULL, NULL);
	char *tm = treemap_of(doc);

	/* colour by part, the bar chart's classes: no tile coloured by dtype */
	cr_expect_eq(count_of(tm, "<rect class=\"d"), 0, "a tile coloured by dtype");
	cr_expect_gt(count_of(tm, "<rect class=\"c2"), 0, "no expert tile in the experts' colour");
	cr_expect_gt(count_of(doc, "<svg class=\"bc\""), 0);
	cr_expect(strstr(doc, ".c2{fill:#f28e2b}"), "one palette for both charts");
	/* a legend of the parts */
	cr_expect(strstr(doc, "colour = part:"), "no legend of the parts");
	cr_expect(strstr(doc, "<rect class=\"c2\" x="), "no experts swatch in the legend");
	/* experts labelled where they have room */
	cr_expect(strstr(tm, "moe_gate e0<") || strstr(tm, "moe_up e0<") || strstr(tm, "moe_down e0<"),
		  "no expert tile labelled");
	/* blocks in layer order: the layer labels of the experts' part read 0, 1 */
	const char *l0 = strstr(tm, "class=\"ll\""), *l1 = l0 ? strstr(l0 + 1, "class=\"ll\"") : NULL;
	cr_assert(l0 && l1, "no layer labels");
	cr_expect(strstr(l0, ">0<") && (!strstr(l0, ">1<") || strstr(l0, ">0<") < strstr(l0, ">1<")),
		  "blocks out of order");
	/* the width follows the window: a viewBox, scaled by CSS, no fixed
	 * width on the page's pictures */
	cr_expect(strstr(doc, "<svg class=\"fit\" viewBox=\"0 0 "), "no scalable picture");
	cr_expect(strstr(doc, "svg.fit{width:100%;height:auto"), "no CSS scaling");
	cr_expect_null(strstr(doc, "<svg class=\"fit\" x="), "a fixed position on the page's picture");
	free(tm);
	free(doc);
	ws_rmtree(dir);
	free(dir), free(cfg), free(model), free(out);
}

/* The <title> that starts with start, up to its end (malloc'd), or NULL. */
static char *
title_from(const char *doc, const char *start)
{
	const char *a = strstr(doc, start), *b = a ? strstr(a, "</title>") : NULL;
	return b ? strndup(a, (size_t)(b - a)) : NULL;
}

/* A model of several components (LLaVA-NeXT: a CLIP tower of 24 blocks
 * beside a text model of 32): each component's blocks under its own
 * name, in the treemap and the bars, with its own formula per block; a
 * tower block dropped is a gap under the tower's name, the text model's
 * block of that number untouched. */
Test(report, component_blocks_under_their_names, .timeout = 120)
{
	char *dir = ws_tmpdir(), *model = ws_join(dir, "m"), *out = ws_join(dir, "r.html");
	char *cfg = ws_testdata_path("multimodal/llava-hf__llava-v1.6-mistral-7b-hf.json");
	char *argv[] = {getenv("WS_MKMODEL"), model, cfg, NULL, NULL, NULL};
	cr_assert(argv[0], "WS_MKMODEL not set");
	ws_run g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0, "%s", g.err);
	ws_run_free(&g);
	char *doc = report_cli(out, model, NULL, NULL);
	assert_balanced(doc);
	/* a CLIP ViT-L block: attention 4 x (1,024² + 1,024), MLP 2 x 1,024
	 * x 4,096 + 4,096 + 1,024, two LayerNorms */
	cr_expect(strstr(doc, "<title>vision_tower block 3: 12,596,224 parameters (formula: 12,596,224)"),
		  "no tower block under its name");
	cr_expect(strstr(doc, "<title>vision_tower block 23: "));
	cr_expect(!strstr(doc, "<title>vision_tower block 24: "));
	cr_expect(strstr(doc, "<title>text block 31: "));
	cr_expect(!strstr(doc, "<title>block "), "a block without its component's name");
	/* the bars' component names and the treemap's */
	cr_expect(strstr(doc, "class=\"cn\"") && strstr(doc, ">vision_tower</text>") && strstr(doc, ">text</text>"));
	char *tm = treemap_of(doc);
	cr_expect(strstr(tm, "\xc2\xb7 vision_tower layer 3 \xc2\xb7"), "no tower layer in the treemap");
	cr_expect(strstr(tm, "\xc2\xb7 text layer 3 \xc2\xb7"));
	cr_expect(!strstr(tm, "\xc2\xb7 layer "), "a treemap layer without its component");
	cr_expect(strstr(tm, "class=\"ll\"") && strstr(tm, ">text 0<"), "text blocks not labelled by name");
	free(tm);
	free(doc);
	ws_rmtree(dir);
	free(dir);
	dir = ws_tmpdir();
	free(model);
	free(out);
	model = ws_join(dir, "m");
	out = ws_join(dir, "r.html");
	argv[1] = model;
	argv[3] = "--plant";
	argv[4] = "missing-tower-layer";
	g = ws_run_argv(argv);
	cr_assert_eq(g.status, 0, "%s", g.err);
	ws_run_free(&g);
	doc = report_cli(out, model, NULL, NULL);
	char *gap = title_from(doc, "<title>vision_tower block 1: 0 parameters (formula: 12,596,224)");
	cr_expect(gap && strstr(gap, "layer-gap"), "no gap with its finding under the tower's name");
	char *t1 = title_from(doc, "<title>text block 1: ");
	cr_expect(t1 && !strstr(t1, "layer-gap") && !strstr(t1, ": 0 parameters"),
		  "the text model's block 1 took the tower's gap: %s", t1 ? t1 : "(none)");
	free(gap);
	free(t1);
	free(doc);
	ws_rmtree(dir);
	free(dir), free(cfg), free(model), free(out);
}
