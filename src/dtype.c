/*
 * dtype.c - the element types of both formats, one line each.
 *
 * Safetensors sizes from its dtype list (F4 = 4 bits, F6 = 6 bits); ggml
 * block sizes and bytes per block as ggml_blck_size()/ggml_type_size()
 * print them (research/gguf.md (b)).
 */
#include <string.h>

#include "ws/model.h"
#include "ws/util.h"

enum {
	ST = WS_DTF_SAFETENSORS,
	GG = WS_DTF_GGML,
	FL = WS_DTF_FLOAT,
	QU = WS_DTF_QUANT,
};

static const ws_dtype_info dtypes[WS_DT_COUNT] = {
	/*                       name          block bytes ggml flags */
	[WS_DT_INVALID]      = {"INVALID",        0,  0, -1, 0},
	[WS_DT_F64]          = {"F64",            1,  8, 28, ST | GG | FL},
	[WS_DT_F32]          = {"F32",            1,  4,  0, ST | GG | FL},
	[WS_DT_F16]          = {"F16",            1,  2,  1, ST | GG | FL},
	[WS_DT_BF16]         = {"BF16",           1,  2, 30, ST | GG | FL},
	[WS_DT_I64]          = {"I64",            1,  8, 27, ST | GG},
	[WS_DT_I32]          = {"I32",            1,  4, 26, ST | GG},
	[WS_DT_I16]          = {"I16",            1,  2, 25, ST | GG},
	[WS_DT_I8]           = {"I8",             1,  1, 24, ST | GG},
	[WS_DT_U64]          = {"U64",            1,  8, -1, ST},
	[WS_DT_U32]          = {"U32",            1,  4, -1, ST},
	[WS_DT_U16]          = {"U16",            1,  2, -1, ST},
	[WS_DT_U8]           = {"U8",             1,  1, -1, ST},
	[WS_DT_BOOL]         = {"BOOL",           1,  1, -1, ST},
	[WS_DT_C64]          = {"C64",            1,  8, -1, ST},
	[WS_DT_F8_E5M2]      = {"F8_E5M2",        1,  1, -1, ST | FL},
	[WS_DT_F8_E4M3]      = {"F8_E4M3",        1,  1, -1, ST | FL},
	[WS_DT_F8_E8M0]      = {"F8_E8M0",        1,  1, -1, ST | FL},
	[WS_DT_F8_E4M3FNUZ]  = {"F8_E4M3FNUZ",    1,  1, -1, ST | FL},
	[WS_DT_F8_E5M2FNUZ]  = {"F8_E5M2FNUZ",    1,  1, -1, ST | FL},
	[WS_DT_F6_E2M3]      = {"F6_E2M3",        4,  3, -1, ST | FL},
	[WS_DT_F6_E3M2]      = {"F6_E3M2",        4,  3, -1, ST | FL},
	[WS_DT_F4]           = {"F4",             2,  1, -1, ST | FL},
	[WS_DT_Q4_0]         = {"Q4_0",          32, 18,  2, GG | QU},
	[WS_DT_Q4_1]         = {"Q4_1",          32, 20,  3, GG | QU},
	[WS_DT_Q5_0]         = {"Q5_0",          32, 22,  6, GG | QU},
	[WS_DT_Q5_1]         = {"Q5_1",          32, 24,  7, GG | QU},
	[WS_DT_Q8_0]         = {"Q8_0",          32, 34,  8, GG | QU},
	[WS_DT_Q8_1]         = {"Q8_1",          32, 36,  9, GG | QU},
	[WS_DT_Q2_K]         = {"Q2_K",         256, 84, 10, GG | QU},
	[WS_DT_Q3_K]         = {"Q3_K",         256, 110, 11, GG | QU},
	[WS_DT_Q4_K]         = {"Q4_K",         256, 144, 12, GG | QU},
	[WS_DT_Q5_K]         = {"Q5_K",         256, 176, 13, GG | QU},
	[WS_DT_Q6_K]         = {"Q6_K",         256, 210, 14, GG | QU},
	[WS_DT_Q8_K]         = {"Q8_K",         256, 292, 15, GG | QU},
	[WS_DT_IQ2_XXS]      = {"IQ2_XXS",      256, 66, 16, GG | QU},
	[WS_DT_IQ2_XS]       = {"IQ2_XS",       256, 74, 17, GG | QU},
	[WS_DT_IQ3_XXS]      = {"IQ3_XXS",      256, 98, 18, GG | QU},
	[WS_DT_IQ1_S]        = {"IQ1_S",        256, 50, 19, GG | QU},
	[WS_DT_IQ4_NL]       = {"IQ4_NL",        32, 18, 20, GG | QU},
	[WS_DT_IQ3_S]        = {"IQ3_S",        256, 110, 21, GG | QU},
	[WS_DT_IQ2_S]        = {"IQ2_S",        256, 82, 22, GG | QU},
	[WS_DT_IQ4_XS]       = {"IQ4_XS",       256, 136, 23, GG | QU},
	[WS_DT_IQ1_M]        = {"IQ1_M",        256, 56, 29, GG | QU},
	[WS_DT_TQ1_0]        = {"TQ1_0",        256, 54, 34, GG | QU},
	[WS_DT_TQ2_0]        = {"TQ2_0",        256, 66, 35, GG | QU},
	[WS_DT_MXFP4]        = {"MXFP4",         32, 17, 39, GG | QU},
	[WS_DT_NVFP4]        = {"NVFP4",         64, 36, 40, GG | QU},
	[WS_DT_Q1_0]         = {"Q1_0",         128, 18, 41, GG | QU},
	[WS_DT_Q2_0]         = {"Q2_0",          64, 18, 42, GG | QU},
};

/* ggml id -> dtype; removed ids (4, 5, 31-33, 36-38) stay INVALID. */
static const ws_dtype ggml_map[] = {
	[0] = WS_DT_F32,
	[1] = WS_DT_F16,
	[2] = WS_DT_Q4_0,
	[3] = WS_DT_Q4_1,
	[6] = WS_DT_Q5_0,
	[7] = WS_DT_Q5_1,
	[8] = WS_DT_Q8_0,
	[9] = WS_DT_Q8_1,
	[10] = WS_DT_Q2_K,
	[11] = WS_DT_Q3_K,
	[12] = WS_DT_Q4_K,
	[13] = WS_DT_Q5_K,
	[14] = WS_DT_Q6_K,
	[15] = WS_DT_Q8_K,
	[16] = WS_DT_IQ2_XXS,
	[17] = WS_DT_IQ2_XS,
	[18] = WS_DT_IQ3_XXS,
	[19] = WS_DT_IQ1_S,
	[20] = WS_DT_IQ4_NL,
	[21] = WS_DT_IQ3_S,
	[22] = WS_DT_IQ2_S,
	[23] = WS_DT_IQ4_XS,
	[24] = WS_DT_I8,
	[25] = WS_DT_I16,
	[26] = WS_DT_I32,
	[27] = WS_DT_I64,
	[28] = WS_DT_F64,
	[29] = WS_DT_IQ1_M,
	[30] = WS_DT_BF16,
	[34] = WS_DT_TQ1_0,
	[35] = WS_DT_TQ2_0,
	[39] = WS_DT_MXFP4,
	[40] = WS_DT_NVFP4,
	[41] = WS_DT_Q1_0,
	[42] = WS_DT_Q2_0,
};
#define GGML_MAP_LEN (sizeof ggml_map / sizeof ggml_map[0])

const ws_dtype_info *
ws_dtype_get(ws_dtype dt)
{
	if ((unsigned)dt >= WS_DT_COUNT)
		dt = WS_DT_INVALID;
	return &dtypes[dt];
}

const char *
ws_dtype_name(ws_dtype dt)
{
	return ws_dtype_get(dt)->name;
}

ws_dtype
ws_dtype_from_safetensors(const char *s, size_t len)
{
	for (int i = 1; i < WS_DT_COUNT; i++) {
		const ws_dtype_info *d = &dtypes[i];
		if ((d->flags & ST) && strlen(d->name) == len &&
		    memcmp(d->name, s, len) == 0)
			return (ws_dtype)i;
	}
	return WS_DT_INVALID;
}

ws_dtype
ws_dtype_from_ggml(uint32_t id)
{
	return id < GGML_MAP_LEN ? ggml_map[id] : WS_DT_INVALID;
}

bool
ws_dtype_bytes(ws_dtype dt, uint64_t elements, uint64_t *bytes)
{
	const ws_dtype_info *d = ws_dtype_get(dt);

	if (!d->block || elements % d->block)
		return false;
	return ws_mul_u64(elements / d->block, d->block_bytes, bytes);
}
