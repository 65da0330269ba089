/*
 * ws/adapter.h - adapters (PEFT LoRA / DoRA, mlx-lm, kohya / LyCORIS,
 * LoRA GGUF): what they add to which base, checked against their config
 * and the base's tensor templates.
 *
 * An adapter's factors adapt one base module each: its in / out widths
 * come from the base's templates (catalogue/templates.c) evaluated with
 * the base's ws_arch, its rank from the adapter config (r, rank_pattern;
 * mlx-lm's lora_parameters.rank).  Without a base the factors' own
 * shapes stand in and the output says the base was not checked.
 */
#ifndef WS_ADAPTER_H
#define WS_ADAPTER_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "ws/model.h"

#define WS_ADAPTER_MAX_TARGETS 32
#define WS_ADAPTER_MAX_GROUPS 8

/* Modules sharing a rank and an alpha (rank_pattern / alpha_pattern). */
struct ws_adapter_group {
	uint64_t rank;
	double alpha;
	uint64_t modules;
};

struct cJSON;

typedef struct ws_adapter {
	const char *kind;        /* "lora", "dora", "loha", "lokr" (static) */
	const char *layout;      /* "peft", "mlx", "kohya", "gguf" (static) */
	uint64_t rank;           /* the config's r, else the factors' commonest */
	bool has_alpha;
	double alpha;
	char targets[WS_ADAPTER_MAX_TARGETS][64]; /* raw bytes: print escaped */
	uint32_t n_targets;
	uint64_t modules;        /* adapted modules found (or expected) */
	uint64_t frozen, n_frozen; /* base_layer copies: counted apart */
	uint64_t alphas;         /* kohya alpha scalars (not parameters) */
	bool has_expected;       /* the config and the base give a count */
	uint64_t expected, exp_factors, exp_magnitudes, exp_saved, exp_tokens;
	struct ws_adapter_group groups[WS_ADAPTER_MAX_GROUPS]; /* the config's, with a base */
	uint32_t n_groups;
	uint64_t work;           /* lookup steps matching modules: stays linear
				  * in the modules (tests check it) */
	char base[512];          /* the base's path, "" when none */
	bool base_checked;
	uint64_t base_total;
	uint64_t params;         /* the adapter's trainable parameters */
	char note[256];          /* why the base was not checked */
} ws_adapter;

/* Is the open model an adapter?  (a LoRA GGUF, an adapter_config.json
 * beside the weights, or names that are adapter factors and no
 * config.json).  Before roles are assigned. */
bool ws_adapter_detect(const ws_model *m);
/* The same without its look at the names: 1 or 0, or -1 when the names
 * decide (no config.json, not GGUF, tensors): an adapter when at least
 * half are factors' (ws_adapter_name_is_factor). */
int ws_adapter_detect_quick(const ws_model *m);
/* Whether name[0, len) is an adapter factor's: the same for two names
 * that differ only in all-digit segments. */
bool ws_adapter_name_is_factor(const char *name, size_t len);

/*
 * The adapter's analysis (after ws_roles_assign): its config, the base
 * (base_path, else base_model_name_or_path when it resolves locally),
 * the expected count, adapter-mismatch findings; m->adapter is set.
 * -1 with err on a malformed config or base (exit 3) or OOM (exit 4).
 */
int ws_adapter_analyze(ws_model *m, const char *base_path, ws_error *err);

/* The role of the base tensor an adapter factor changes, or -1. */
int ws_adapter_adapts(const ws_model *m, const ws_tensor *t);

/* `formula ADAPTER_CONFIG --base BASE`: the expected count alone into
 * *out (malloc'd; free()).  Is path an adapter config?  1 yes, 0 no. */
int ws_adapter_formula(const char *config_path, const char *base_path, ws_adapter **out,
		       ws_error *err);
int ws_adapter_config_is(const char *path);

struct cJSON *ws_adapter_to_json(const ws_adapter *a);
void ws_adapter_print_text(FILE *f, const ws_adapter *a);

#endif
