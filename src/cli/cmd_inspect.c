/*
 * cmd_inspect.c - inspect, ls and meta: the commands that read headers.
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "output.h"
#include "ws/adapter.h"
#include "ws/formula.h"
#include "ws/json.h"
#include "ws/kv.h"
#include "ws/report.h"

/* --base PATH of inspect and ls (an adapter's base): one run, one value */
static const char *base_opt;
/* the vision file joined to the model being read (a folder's mmproj) */
static const char *vision_opt;

/* Open and analyze one PATH; on failure report it and return its code. */
static int
open_path(const ws_cli *cli, const char *command, const char *path,
	  const char *config, ws_model **out)
{
	ws_error err = {0};
	/* a truncated file whose header is intact is listed, then exit 3 */
	ws_open_opts o = {.config_path = config, .allow_full_download = cli->allow_full_download,
			  .allow_truncated = true, .base_path = base_opt, .vision_file = vision_opt};
	if (ws_model_open(path, &o, out, &err) || ws_model_analyze(*out, &err)) {
		ws_model_free(*out);
		*out = NULL;
		return ws_cli_report_error(cli, command, path, &err);
	}
	int rc = ws_cli_select_component(cli, command, path, *out);
	if (rc) {
		ws_model_free(*out);
		*out = NULL;
	}
	return rc;
}

/* A file shorter than its header says: listed all the same, then exit 3
 * (the error value, or false when every file is whole). */
static bool
truncated_error(const ws_model *m, ws_error *err)
{
	const ws_file *f = ws_model_truncated(m);
	if (!f)
		return false;
	memset(err, 0, sizeof *err);
	ws_err_at(err, f->path, f->truncated_at ? f->truncated_at : f->size,
		  "truncated at %llu of %llu bytes (the header is intact, the data is short): "
		  "download the file again", (unsigned long long)f->size,
		  (unsigned long long)f->expected_size);
	err->kind = WS_ERRK_TRUNCATED;
	return true;
}

/* After listing: the error on stderr (JSON carries it in the listing's
 * own object: one object per PATH) and its code. */
static int
truncated_after(const ws_cli *cli, const char *command, const char *path, const ws_model *m,
		int rc)
{
	ws_error err;
	if (!truncated_error(m, &err))
		return rc;
	if (cli->format == WS_OUT_JSON) {
		char buf[2048];
		ws_error_format(&err, buf, sizeof buf);
		fputs("weightscan: ", stderr);
		ws_fput_escaped(stderr, buf, strlen(buf));
		fputc('\n', stderr);
		return ws_exit_worst(rc, WS_EXIT_INPUT);
	}
	(void)command;
	return ws_exit_worst(rc, ws_cli_report_error(cli, command, path, &err));
}

/* ==== inspect ==== */

static int inspect_one(const ws_cli *cli, const char *command, const char *path,
		       const char *config, bool not_first);

int
ws_cmd_inspect(const ws_cli *cli, int argc, char **argv)
{
	const char *config = NULL;
	const char **paths = calloc((size_t)argc, sizeof *paths);
	int n = 0, rc = 0;
	bool ended = false;

	if (!paths)
		return WS_EXIT_INTERNAL;
	for (int i = 1; i < argc; i++) {
		if (!ended && !strcmp(argv[i], "--")) {
			ended = true;
		} else if (!ended && !strcmp(argv[i], "--config")) {
			if (i + 1 >= argc) {
				free(paths);
				return ws_cli_usage_error("--config needs a FILE");
			}
			config = argv[++i];
		} else if (!ended && !strcmp(argv[i], "--base")) {
			if (i + 1 >= argc) {
				free(paths);
				return ws_cli_usage_error("--base needs a PATH");
			}
			base_opt = argv[++i];
		} else if (!ended && argv[i][0] == '-' && argv[i][1]) {
			free(paths);
			return ws_cli_usage_error("%s: unknown option '%s'", argv[0], argv[i]);
		} else {
			paths[n++] = argv[i];
		}
	}
	if (!n) {
		free(paths);
		return ws_cli_usage_error("%s: no PATH given", argv[0]);
	}
	for (int i = 0; i < n; i++) {
		/* a folder of several GGUF models: each on its own */
		char **sub = NULL, **vis = NULL;
		size_t nsub = 0;
		ws_error err = {0};
		if (ws_expand_joined(paths[i], &sub, &vis, &nsub, &err)) {
			rc = ws_exit_worst(rc, ws_cli_report_error(cli, argv[0], paths[i], &err));
			continue;
		}
		for (size_t k = 0; k < nsub; k++) {
			vision_opt = vis ? vis[k] : NULL;
			rc = ws_exit_worst(rc, inspect_one(cli, argv[0], sub[k], config, i + k > 0));
			free(sub[k]);
			if (vis)
				free(vis[k]);
		}
		vision_opt = NULL;
		free(sub);
		free(vis);
		if (!nsub)
			rc = ws_exit_worst(rc, inspect_one(cli, argv[0], paths[i], config, i > 0));
	}
	free(paths);
	return rc;
}

static int
inspect_one(const ws_cli *cli, const char *command, const char *path, const char *config,
	    bool not_first)
{
	ws_model *m;
	int rc = open_path(cli, command, path, config, &m);
	if (rc)
		return rc;
	if (cli->format == WS_OUT_JSON) {
		cJSON *o = ws_cli_json_header(command, path);
		ws_error te;
		if (!o || ws_report_inspect_json(m, o) ||
		    (truncated_error(m, &te) && ws_cli_json_error(o, &te)) ||
		    ws_json_print_line(cli->out, o))
			rc = WS_EXIT_INTERNAL;
		cJSON_Delete(o);
	} else if (ws_out_findings_format(cli)) {
		rc = ws_out_model(cli, path, m);
	} else if (cli->quiet) {
		ws_out_findings_quiet(cli->out, path, m);
	} else {
		if (not_first)
			fputc('\n', cli->out);
		ws_report_inspect_text(cli->out, m, cli->color);
	}
	rc = truncated_after(cli, command, path, m, rc);
	ws_cli_done_with(m);
	return rc;
}

/* ==== ls ==== */

/* The role column: an adapter factor's as "lora_a → attn_q". */
static const char *
role_col(const ws_model *m, const ws_tensor *t, char *buf, size_t n)
{
	int ad = m->adapter ? ws_adapter_adapts(m, t) : -1;
	if (ad < 0) {
		snprintf(buf, n, "%s", ws_role_name(t->role));
		return buf;
	}
	snprintf(buf, n, "%s \xe2\x86\x92 %s", ws_role_name(t->role), ws_role_name((ws_role)ad));
	return buf;
}

typedef struct ls_opts {
	int role;          /* -1 = any */
	int64_t layer;     /* -1 = any */
	const char *match;
	enum { SORT_DEFAULT, SORT_NAME, SORT_OFFSET, SORT_SIZE } sort;
	bool gguf_order;   /* shapes innermost first, as GGUF's ne[] */
} ls_opts;

static int
cmp_name(const ws_tensor *a, const ws_tensor *b)
{
	size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
	int c = memcmp(a->name, b->name, n);
	return c ? c : (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

static int
cmp_default(const void *x, const void *y)
{
	const ws_tensor *a = *(const ws_tensor *const *)x, *b = *(const ws_tensor *const *)y;
	/* tensors outside blocks (layer -1) sort first */
	if (a->layer != b->layer)
		return a->layer < b->layer ? -1 : 1;
	if (a->role != b->role)
		return a->role < b->role ? -1 : 1;
	return cmp_name(a, b);
}

static int
cmp_by_name(const void *x, const void *y)
{
	return cmp_name(*(const ws_tensor *const *)x, *(const ws_tensor *const *)y);
}

static int
cmp_offset(const void *x, const void *y)
{
	const ws_tensor *a = *(const ws_tensor *const *)x, *b = *(const ws_tensor *const *)y;
	if (a->file != b->file)
		return a->file < b->file ? -1 : 1;
	return (a->offset > b->offset) - (a->offset < b->offset);
}

static int
cmp_size(const void *x, const void *y)
{
	const ws_tensor *a = *(const ws_tensor *const *)x, *b = *(const ws_tensor *const *)y;
	if (a->bytes != b->bytes)
		return a->bytes > b->bytes ? -1 : 1; /* largest first */
	return cmp_name(a, b);
}

/* Dimension d of t in the order asked for: PyTorch's (outermost first,
 * as stored) or GGUF's ne[] (innermost first). */
static uint64_t
dim_at(const ws_tensor *t, uint32_t d, bool gguf_order)
{
	return t->shape[gguf_order ? t->ndim - 1 - d : d];
}

static void
dims_text(FILE *f, const uint64_t *dims, uint32_t nd, bool gguf_order)
{
	fputc('[', f);
	for (uint32_t d = 0; d < nd; d++)
		fprintf(f, "%s%llu", d ? ", " : "", (unsigned long long)dims[gguf_order ? nd - 1 - d : d]);
	fputc(']', f);
}

/* A tensor read at another shape than stored (a packed quantized weight
 * unpacked, a shape ComfyUI-GGUF's converter reshaped and kept in
 * comfy.gguf.orig_shape.*): that one, the stored one beside it. */
static void
shape_text(FILE *f, const ws_tensor *t, bool gguf_order)
{
	uint32_t ln;
	const uint64_t *l = ws_tensor_logical(t, &ln);
	dims_text(f, l, ln, gguf_order);
	if (t->logical) {
		fputs(" (stored ", f);
		dims_text(f, t->shape, t->ndim, gguf_order);
		fputc(')', f);
	}
}

/* Column text of one tensor, escaped; shape and counts as shown. */
typedef struct ls_cols {
	char *name, *shape, *file;
	char layer[48], elements[32], bytes[32], offset[24], role[64];
} ls_cols;

static char *
shape_str(const ws_tensor *t, bool gguf_order)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	shape_text(f, t, gguf_order);
	fclose(f);
	return buf;
}

/* Columns a string takes on a terminal: UTF-8 continuation bytes take
 * none (the role column's arrow is three bytes, one column). */
static size_t
disp_width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

/* Aligned columns: widths from the rows themselves. */
static void
ls_text(FILE *out, const ws_model *m, const ws_tensor **v, size_t n, bool gguf_order)
{
	/* a GGUF reader expects ne[] order: say which one this is */
	const char *shape_head = gguf_order ? "ne (GGUF order)"
		: m->format == WS_FORMAT_GGUF ? "shape (PyTorch order)" : "shape";
	ls_cols *c = calloc(n ? n : 1, sizeof *c);
	size_t w[8] = {4, 4, 5, 5, 5, 8, 5, 4};
	if (w[4] < strlen(gguf_order ? "ne (GGUF order)" : m->format == WS_FORMAT_GGUF
			  ? "shape (PyTorch order)" : "shape"))
		w[4] = strlen(gguf_order ? "ne (GGUF order)" : m->format == WS_FORMAT_GGUF
			      ? "shape (PyTorch order)" : "shape");
	if (!c)
		return;
	for (size_t i = 0; i < n; i++) {
		const ws_tensor *t = v[i];
		const char *fp = m->files[t->file].path, *base = strrchr(fp, '/');
		base = base ? base + 1 : fp;
		c[i].name = ws_escape_text(t->name, t->name_len);
		c[i].shape = shape_str(t, gguf_order);
		c[i].file = ws_escape_text(base, strlen(base));
		/* a hybrid stack's layer says its kind (mamba2 7, attention 8) */
		bool hybrid = m->arch && m->arch->known && m->arch->layer_block && t->component == 0;
		if (t->layer >= 0 && hybrid)
			snprintf(c[i].layer, sizeof c[i].layer, "%s %d", ws_arch_layer_kind(m->arch, (uint64_t)t->layer),
				 t->layer);
		else if (t->layer >= 0)
			snprintf(c[i].layer, sizeof c[i].layer, "%d", t->layer);
		else
			strcpy(c[i].layer, "-");
		ws_fmt_commas(t->elements, c[i].elements, sizeof c[i].elements);
		ws_fmt_commas(t->bytes, c[i].bytes, sizeof c[i].bytes);
		snprintf(c[i].offset, sizeof c[i].offset, "%llu", (unsigned long long)t->offset);
		const char *cols[8] = {c[i].name ? c[i].name : "?", role_col(m, t, c[i].role, sizeof c[i].role), c[i].layer,
				       ws_dtype_name(t->dtype), c[i].shape ? c[i].shape : "?",
				       c[i].elements, c[i].bytes, c[i].file ? c[i].file : "?"};
		for (int k = 0; k < 8; k++)
			if (disp_width(cols[k]) > w[k])
				w[k] = disp_width(cols[k]);
	}
	fprintf(out, "%-*s  %-*s  %*s  %-*s  %-*s  %*s  %*s  %-*s  %s\n", (int)w[0], "name",
		(int)w[1], "role", (int)w[2], "layer", (int)w[3], "dtype", (int)w[4], shape_head,
		(int)w[5], "elements", (int)w[6], "bytes", (int)w[7], "file", "offset");
	for (size_t i = 0; i < n; i++) {
		const ws_tensor *t = v[i];
		/* printf pads by bytes: text columns by display columns */
		const char *nm = c[i].name ? c[i].name : "?", *fl = c[i].file ? c[i].file : "?";
		int nw = (int)(w[0] + strlen(nm) - disp_width(nm));
		int rw = (int)(w[1] + strlen(c[i].role) - disp_width(c[i].role));
		int fw = (int)(w[7] + strlen(fl) - disp_width(fl));
		fprintf(out, "%-*s  %-*s  %*s  %-*s  %-*s  %*s  %*s  %-*s  %s\n", nw,
			nm, rw, c[i].role, (int)w[2],
			c[i].layer, (int)w[3], ws_dtype_name(t->dtype), (int)w[4],
			c[i].shape ? c[i].shape : "?", (int)w[5], c[i].elements, (int)w[6],
			c[i].bytes, fw, fl, c[i].offset);
		free(c[i].name);
		free(c[i].shape);
		free(c[i].file);
	}
	free(c);
}

static int
ls_one(const ws_cli *cli, const ws_model *m, const ls_opts *o, const char *path)
{
	const ws_tensor **v = malloc((m->n_tensors ? m->n_tensors : 1) * sizeof *v);
	size_t n = 0;
	if (!v)
		return WS_EXIT_INTERNAL;
	for (uint64_t i = 0; i < m->n_tensors; i++) {
		const ws_tensor *t = &m->tensors[i];
		if (o->role >= 0 && (int)t->role != o->role)
			continue;
		if (o->layer >= 0 && t->layer != o->layer)
			continue;
		if (o->match && (memchr(t->name, 0, t->name_len) ||
				 fnmatch(o->match, t->name, 0) != 0))
			continue;
		v[n++] = t;
	}
	static int (*const cmp[])(const void *, const void *) = {
		cmp_default, cmp_by_name, cmp_offset, cmp_size,
	};
	qsort(v, n, sizeof *v, cmp[o->sort]);

	int rc = 0;
	if (cli->format == WS_OUT_JSON) {
		cJSON *obj = ws_cli_json_header("ls", path);
		cJSON *arr = obj ? cJSON_AddArrayToObject(obj, "tensors") : NULL;
		ws_error te;
		if (obj && truncated_error(m, &te) && ws_cli_json_error(obj, &te))
			arr = NULL;
		for (size_t i = 0; arr && i < n; i++) {
			const ws_tensor *t = v[i];
			cJSON *e = cJSON_CreateObject();
			if (!e)
				break;
			ws_json_add_bytes(e, "name", t->name, t->name_len);
			if (t->component < m->n_components)
				cJSON_AddStringToObject(e, "component", m->components[t->component].name);
			cJSON_AddStringToObject(e, "role", ws_role_name(t->role));
			int ad = m->adapter ? ws_adapter_adapts(m, t) : -1;
			if (ad >= 0)
				cJSON_AddStringToObject(e, "adapts", ws_role_name((ws_role)ad));
			if (t->layer >= 0)
				ws_json_add_i64(e, "layer", t->layer);
			else
				cJSON_AddNullToObject(e, "layer");
			if (t->layer >= 0 && m->arch && m->arch->known && t->component == 0)
				cJSON_AddStringToObject(e, "layer_kind",
							ws_arch_layer_kind(m->arch, (uint64_t)t->layer));
			if (t->expert >= 0)
				ws_json_add_i64(e, "expert", t->expert);
			cJSON_AddStringToObject(e, "kind", t->kind == WS_KIND_BIAS ? "bias" : "weight");
			cJSON_AddStringToObject(e, "dtype", ws_dtype_name(t->dtype));
			cJSON *sh = cJSON_AddArrayToObject(e, o->gguf_order ? "ne" : "shape");
			for (uint32_t d = 0; sh && d < t->ndim; d++)
				cJSON_AddItemToArray(sh, ws_json_u64(dim_at(t, d, o->gguf_order)));
			/* "shape" stays the stored one (elements and bytes are its):
			 * the shape it is read at beside it */
			uint32_t ln;
			const uint64_t *l = ws_tensor_logical(t, &ln);
			cJSON *lsh = t->logical ? cJSON_AddArrayToObject(e, o->gguf_order ? "logical_ne" : "logical_shape")
						: NULL;
			for (uint32_t d = 0; lsh && d < ln; d++)
				cJSON_AddItemToArray(lsh, ws_json_u64(l[o->gguf_order ? ln - 1 - d : d]));
			ws_json_add_u64(e, "elements", t->elements);
			ws_json_add_u64(e, "params", t->params);
			ws_json_add_u64(e, "bytes", t->bytes);
			const char *fp = m->files[t->file].path;
			ws_json_add_bytes(e, "file", fp, strlen(fp));
			ws_json_add_u64(e, "offset", t->offset);
			cJSON_AddItemToArray(arr, e);
		}
		if (!arr || ws_json_print_line(cli->out, obj))
			rc = WS_EXIT_INTERNAL;
		cJSON_Delete(obj);
	} else {
		ls_text(cli->out, m, v, n, o->gguf_order);
	}
	free(v);
	return rc;
}

int
ws_cmd_ls(const ws_cli *cli, int argc, char **argv)
{
	ls_opts o = {.role = -1, .layer = -1};
	const char *path = NULL, *config = NULL;
	bool ended = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool opt = !ended && a[0] == '-' && a[1];
		const char *val = opt && i + 1 < argc ? argv[i + 1] : NULL;
		if (opt && !strcmp(a, "--gguf-order")) {
			o.gguf_order = true;
		} else if (opt && !strcmp(a, "--")) {
			ended = true;
		} else if (opt && (!strcmp(a, "--role") || !strcmp(a, "--layer") ||
				   !strcmp(a, "--match") || !strcmp(a, "--sort") ||
				   !strcmp(a, "--config") || !strcmp(a, "--base"))) {
			if (!val)
				return ws_cli_usage_error("ls: %s needs a value", a);
			i++;
			if (!strcmp(a, "--role")) {
				o.role = ws_role_from_name(val);
				if (o.role < 0) {
					char list[2048];
					size_t len = 0;
					for (int r = 0; r < WS_ROLE_COUNT && len < sizeof list; r++)
						len += (size_t)snprintf(list + len, sizeof list - len, "%s%s",
									r ? ", " : "", ws_role_name((ws_role)r));
					return ws_cli_usage_error("ls: unknown role '%s' (roles: %s)", val, list);
				}
			} else if (!strcmp(a, "--layer")) {
				uint64_t l;
				if (ws_cli_parse_u64("--layer", val, &l))
					return WS_EXIT_USAGE;
				o.layer = l > INT32_MAX ? INT32_MAX : (int64_t)l;
			} else if (!strcmp(a, "--match")) {
				o.match = val;
			} else if (!strcmp(a, "--config")) {
				config = val;
			} else if (!strcmp(a, "--base")) {
				base_opt = val;
			} else {
				static const char *const sorts[] = {"", "name", "offset", "size"};
				o.sort = SORT_DEFAULT;
				for (int s = 1; s < 4; s++)
					if (!strcmp(val, sorts[s]))
						o.sort = s;
				if (o.sort == SORT_DEFAULT)
					return ws_cli_usage_error("ls: --sort takes name, offset or size");
			}
		} else if (opt) {
			return ws_cli_usage_error("ls: unknown option '%s'", a);
		} else if (!path) {
			path = a;
		} else {
			return ws_cli_usage_error("ls: takes one PATH");
		}
	}
	if (!path)
		return ws_cli_usage_error("ls: no PATH given");
	ws_model *m;
	int rc = open_path(cli, "ls", path, config, &m);
	if (rc)
		return rc;
	rc = truncated_after(cli, "ls", path, m, ls_one(cli, m, &o, path));
	ws_model_free(m);
	return rc;
}

/* ==== meta ==== */

/* A copy of a parsed config.json whose strings and keys are valid UTF-8
 * whatever the file held (cJSON keeps raw bytes); Infinity, -Infinity and
 * NaN as those strings (JSON has no such numbers). */
static cJSON *
sanitized_copy(const cJSON *src)
{
	cJSON *out = NULL;
	if (cJSON_IsObject(src) || cJSON_IsArray(src)) {
		out = cJSON_IsObject(src) ? cJSON_CreateObject() : cJSON_CreateArray();
		for (const cJSON *c = src->child; out && c; c = c->next) {
			cJSON *v = sanitized_copy(c);
			if (!v)
				continue;
			if (cJSON_IsArray(src)) {
				cJSON_AddItemToArray(out, v);
			} else if (ws_utf8_valid(c->string, strlen(c->string))) {
				cJSON_AddItemToObject(out, c->string, v);
			} else {
				char *k = ws_escape_text(c->string, strlen(c->string));
				if (k)
					cJSON_AddItemToObject(out, k, v);
				else
					cJSON_Delete(v);
				free(k);
			}
		}
	} else if (cJSON_IsString(src)) {
		out = ws_json_bytes(src->valuestring, strlen(src->valuestring));
	} else {
		out = cJSON_Duplicate(src, false);
		if (out && ws_json_nonfinite_spelled(out, false)) {
			cJSON_Delete(out);
			out = NULL;
		}
	}
	return out;
}

static void
config_text(FILE *f, const cJSON *c)
{
	/* Infinity, -Infinity and NaN bare, as in the file (cJSON: null) */
	cJSON *d = cJSON_Duplicate(c, true);
	char *s = d && !ws_json_nonfinite_spelled(d, true) ? cJSON_Print(d) : NULL;
	cJSON_Delete(d);
	/* line by line: the layout's newlines and tabs are not escaped */
	for (char *p = s, *nl; p && *p; p = nl ? nl + 1 : p + strlen(p)) {
		nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		bool lead = true;
		for (size_t i = 0, j; i < n; i = j) {
			if (p[i] == '\t') { /* cJSON's layout: strings escape their tabs */
				fputs(lead ? "  " : " ", f);
				j = i + 1;
				continue;
			}
			lead = false;
			for (j = i; j < n && p[j] != '\t'; j++)
				;
			/* JSON text has its own escapes: keep its backslashes */
			char *t = ws_sanitize_text(p + i, j - i);
			if (t)
				fputs(t, f);
			free(t);
		}
		fputc('\n', f);
	}
	cJSON_free(s);
}

/* general.file_type by llama.cpp's name, or NULL. */
static const char *
file_type_of(const ws_kv *kv)
{
	uint64_t v;
	if (kv->key_len != 17 || memcmp(kv->key, "general.file_type", 17) ||
	    !ws_kv_get_u64(kv, &v))
		return NULL;
	return ws_gguf_file_type_name(v);
}

int
ws_cmd_meta(const ws_cli *cli, int argc, char **argv)
{
	const char *path = NULL, *key = NULL, *config = NULL;
	bool full = false, raw = false, ended = false;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool opt = !ended && a[0] == '-' && a[1];
		if (opt && !strcmp(a, "--")) {
			ended = true;
		} else if (opt && !strcmp(a, "--full")) {
			full = true;
		} else if (opt && !strcmp(a, "--raw")) {
			raw = true;
		} else if (opt && (!strcmp(a, "--key") || !strcmp(a, "--config"))) {
			if (i + 1 >= argc)
				return ws_cli_usage_error("meta: %s needs a value", a);
			*(!strcmp(a, "--key") ? &key : &config) = argv[++i];
		} else if (opt) {
			return ws_cli_usage_error("meta: unknown option '%s'", a);
		} else if (!path) {
			path = a;
		} else {
			return ws_cli_usage_error("meta: takes one PATH");
		}
	}
	if (!path)
		return ws_cli_usage_error("meta: no PATH given");
	ws_model *m;
	ws_error err = {0};
	ws_open_opts o = {.config_path = config, .allow_full_download = cli->allow_full_download};
	if (ws_model_open(path, &o, &m, &err))
		return ws_cli_report_error(cli, "meta", path, &err);

	size_t klen = key ? strlen(key) : 0;
	uint64_t shown = 0;
	/* values from several files (shards, split parts): say whose */
	bool per_file = false;
	for (uint64_t i = 1; i < m->n_meta && !per_file; i++)
		per_file = m->meta[i].file != m->meta[0].file;
	int rc = 0;
	if (cli->format == WS_OUT_JSON) {
		cJSON *obj = ws_cli_json_header("meta", path);
		cJSON *mo = obj ? cJSON_AddArrayToObject(obj, "metadata") : NULL;
		for (uint64_t i = 0; mo && i < m->n_meta; i++) {
			const ws_kv *kv = &m->meta[i];
			if (key && (kv->key_len != klen || memcmp(kv->key, key, klen)))
				continue;
			cJSON *e = cJSON_CreateObject();
			if (!e)
				break;
			ws_json_add_bytes(e, "key", kv->key, kv->key_len);
			cJSON_AddStringToObject(e, "type", ws_vtype_name(kv->type));
			cJSON *v = ws_kv_to_json(kv, full);
			if (v)
				cJSON_AddItemToObject(e, "value", v);
			const char *ft = file_type_of(kv);
			if (ft)
				cJSON_AddStringToObject(e, "name", ft);
			if (per_file) {
				const char *fp = m->files[kv->file].path;
				ws_json_add_bytes(e, "file", fp, strlen(fp));
			}
			cJSON_AddItemToArray(mo, e);
			shown++;
		}
		if (obj && m->config && !key)
			cJSON_AddItemToObject(obj, "config", sanitized_copy(m->config));
		if (!mo || ws_json_print_line(cli->out, obj))
			rc = WS_EXIT_INTERNAL;
		cJSON_Delete(obj);
	} else {
		uint32_t last_file = UINT32_MAX;
		for (uint64_t i = 0; i < m->n_meta; i++) {
			const ws_kv *kv = &m->meta[i];
			if (key && (kv->key_len != klen || memcmp(kv->key, key, klen)))
				continue;
			if (per_file && kv->file != last_file) {
				/* a shard's own values under its name */
				const char *fp = m->files[kv->file].path;
				ws_fput_escaped(cli->out, fp, strlen(fp));
				fputs(":\n", cli->out);
				last_file = kv->file;
			}
			if (per_file)
				fputs("  ", cli->out);
			if (!key) {
				ws_fput_escaped(cli->out, kv->key, kv->key_len);
				fprintf(cli->out, " (%s) = ", ws_vtype_name(kv->type));
			}
			if (raw)
				ws_kv_print_raw(cli->out, kv, full);
			else
				ws_kv_print_text(cli->out, kv, full);
			const char *ft = file_type_of(kv);
			if (ft)
				fprintf(cli->out, raw ? " %s" : " (%s)", ft);
			fputc('\n', cli->out);
			shown++;
		}
		if (m->config && !key) {
			fputs("config.json ", cli->out);
			ws_fput_escaped(cli->out, m->config_path, strlen(m->config_path));
			fputs(":\n", cli->out);
			config_text(cli->out, m->config);
		}
	}
	if (key && !shown && !rc) {
		/* a script asking for a key learns it is absent from the code */
		char *esc = ws_escape_text(key, strlen(key));
		fprintf(stderr, "weightscan: meta: no key '%s' in %s\n", esc ? esc : "?", path);
		free(esc);
		rc = WS_EXIT_FINDINGS;
	}
	ws_model_free(m);
	return rc;
}
