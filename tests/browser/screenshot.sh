#!/bin/sh
# tests/browser/screenshot.sh [BUILD_DIR [OUT_DIR]] - the picture reports
# open offline in a real browser.
#
# Generates full-size sparse checkpoints (Llama-3-8B shaped with
# tools/mkfixture, the same with block 5 dropped, DeepSeek-V3 shaped with
# FP8 scales and 163 shards with tools/mkmodel), writes `weightscan report`
# for each, renders it in Debian's headless Chromium with no network (in an
# empty network namespace when `unshare -n` is allowed) and checks that a
# non-trivial PNG comes out.  Prints one line per report: bytes of the HTML,
# bytes of the PNG.  Slow and installs chromium when missing, so it is not
# part of `meson test`; .ci/run calls it.  Exit 0 when every render passed.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$top/build-browser}
out=${2:-$(mktemp -d)}
mkdir -p "$out"

if ! command -v chromium >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y chromium >/dev/null 2>&1 ||
    { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }
fi
if [ ! -f "$build/build.ninja" ]; then
  meson setup "$build" "$top" >/dev/null
fi
ninja -C "$build" src/weightscan tools/mkfixture tools/mkmodel >/dev/null

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# Architecture facts of the public config.json files (sizes only).
cat >"$work/llama3-8b.json" <<'EOF'
{"architectures": ["LlamaForCausalLM"], "model_type": "llama",
 "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
 "num_attention_heads": 32, "num_key_value_heads": 8, "vocab_size": 128256,
 "max_position_embeddings": 8192, "rms_norm_eps": 1e-05, "hidden_act": "silu",
 "tie_word_embeddings": false, "torch_dtype": "bfloat16"}
EOF
cat >"$work/deepseek-v3.json" <<'EOF'
{"architectures": ["DeepseekV3ForCausalLM"], "model_type": "deepseek_v3",
 "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128,
 "num_key_value_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512,
 "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
 "vocab_size": 129280, "intermediate_size": 18432, "moe_intermediate_size": 2048,
 "n_routed_experts": 256, "n_shared_experts": 1, "num_experts_per_tok": 8,
 "first_k_dense_replace": 3, "moe_layer_freq": 1, "num_nextn_predict_layers": 1,
 "max_position_embeddings": 163840, "tie_word_embeddings": false}
EOF
"$build/tools/mkfixture" sparse "$work/llama3-8b" "$work/llama3-8b.json" --shards 4
"$build/tools/mkmodel" "$work/llama3-8b-gap" "$work/llama3-8b.json" --plant missing-block >/dev/null
"$build/tools/mkmodel" "$work/deepseek-v3" "$work/deepseek-v3.json" --shards 163 --fp8 >/dev/null

# No network for the browser when the kernel lets us make that explicit.
nonet=
if unshare -n true 2>/dev/null; then
  nonet="unshare -n"
fi

status=0
shoot() { # name, weightscan report arguments...
  name=$1
  shift
  html="$out/$name.html"
  png="$out/$name.png"
  (cd "$work" && "$build/src/weightscan" report "$@" -o "$html")
  profile=$(mktemp -d)
  $nonet timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic \
    --no-first-run --disable-background-networking --disable-component-update \
    --disable-sync --user-data-dir="$profile" --screenshot="$png" \
    --window-size=1400,2400 "file://$html" >"$out/$name.chromium.log" 2>&1 || true
  rm -rf "$profile"
  hb=$(wc -c <"$html")
  if [ ! -s "$png" ]; then
    echo "FAIL $name: no screenshot (see $out/$name.chromium.log)"
    status=1
    return
  fi
  pb=$(wc -c <"$png")
  # A blank or error page compresses to a few KB; the treemap, the bars
  # and the tables make tens of KB of PNG.
  if [ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" != 89504e470d0a1a0a ] ||
     [ "$pb" -lt 40000 ]; then
    echo "FAIL $name: trivial screenshot ($pb bytes)"
    status=1
    return
  fi
  for want in 'class="tm"' 'class="bc"' '<table>'; do
    if ! grep -q "$want" "$html"; then
      echo "FAIL $name: no $want in the report"
      status=1
    fi
  done
  echo "ok   $name: report $hb bytes, screenshot $pb bytes ($png)"
}

shoot llama3-8b llama3-8b
shoot llama3-8b-gap llama3-8b-gap
shoot deepseek-v3 deepseek-v3
shoot compare llama3-8b llama3-8b-gap
exit $status
