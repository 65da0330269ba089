/*
 * weightscan.h - the public face of libweightscan.
 *
 * Open a checkpoint (safetensors file, sharded folder or index, GGUF file or
 * split set) into a format-independent ws_model, then ask it questions:
 * roles, the architecture's analytic count, findings, hashes.
 */
#ifndef WEIGHTSCAN_H
#define WEIGHTSCAN_H

#define WS_VERSION "0.1.0"
#define WS_SCHEMA 1

#include "weightscan/error.h"
#include "weightscan/util.h"
#include "weightscan/model.h"
#include "weightscan/json.h"

#endif
