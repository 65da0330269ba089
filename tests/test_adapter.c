/* test_adapter.c - adapters (PEFT LoRA / DoRA, mlx-lm, kohya, LoRA GGUF)
 * built full size and sparse with tools/mktensors, checked against their
 * config and their base. */
#include <criterion/criterion.h>
