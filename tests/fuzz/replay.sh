#!/bin/sh
# replay.sh TARGET REPLAY_BIN - build the target's seed corpus from the
# project's generators (plus tests/fuzz/corpus/TARGET: minimized inputs
# worth keeping), then replay every input through the target.
# replay.sh TARGET --seed DIR - only write the seed corpus into DIR.
set -eu
target=$1
bin=$2
src=$WS_SRCDIR
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/c"
case "$target" in
  safetensors)
    "$WS_MKFIXTURE" bad "$work/bad"
    "$WS_MKFIXTURE" tiny "$work/tiny"
    cp "$work"/bad/*.safetensors "$work/c/"
    cp "$work/tiny/model.safetensors" "$work/c/tiny.safetensors"
    [ -d "$WS_SHARED/realdata/safetensors" ] && cp "$WS_SHARED"/realdata/safetensors/*.safetensors "$work/c/" ;;
  gguf)
    mkdir -p "$work/v" "$work/b"
    "$WS_MKGGUF" valid "$work/v"
    "$WS_MKGGUF" bad "$work/b"
    # diffusion networks as ComfyUI-GGUF writes them: tiny FLUX (Q4_K,
    # tensors reshaped with comfy.gguf.orig_shape) and SD3 (Q8_0)
    "$WS_MKMODEL" "$work/flux" "$src/testdata/diffusion/tiny-flux.json" --format gguf --dtype Q4_K --gguf-shape-fix
    "$WS_MKMODEL" "$work/sd3" "$src/testdata/diffusion/tiny-sd3.json" --format gguf --dtype Q8_0
    cp "$work/flux/model.gguf" "$work/c/flux.gguf"
    cp "$work/sd3/model.gguf" "$work/c/sd3.gguf"
    find "$work/v" "$work/b" -name '*.gguf' -exec cp {} "$work/c/" \; ;;
  config)
    cp "$src"/testdata/tiny-llama/config.json "$work/c/tiny.json"
    # the multimodal wrappers' sub-configs and the keys their parts read
    cp "$src"/testdata/multimodal/*.json "$work/c/"
    [ -d "$WS_SHARED/realdata/configs" ] && cp "$WS_SHARED"/realdata/configs/*.json "$work/c/" ;;
  index)
    printf '{"weight_map":{"x":"a.safetensors","y":"b.safetensors"},"metadata":{"total_size":16}}' > "$work/c/ok.json" ;;
esac
[ -d "$src/tests/fuzz/corpus/$target" ] && cp "$src/tests/fuzz/corpus/$target"/* "$work/c/" 2>/dev/null || true
if [ "$bin" = "--seed" ]; then
  mkdir -p "$3"
  cp "$work"/c/* "$3/"
  exit 0
fi
"$bin" "$work/c"
