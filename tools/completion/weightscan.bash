# bash completion for weightscan(1): commands, their options, role names
# for --role, finding codes for --fail-on, output formats.  Installed as
# share/bash-completion/completions/weightscan; needs nothing else.

_weightscan()
{
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
	local commands='inspect ls meta formula check hash verify diff scan flops report'
	local common='--format --json --quiet --no-color --help --version'
	local formats='text json sarif github'
	local roles='embed pos_embed type_embed patch_embed cls_token mask_token register_tokens embed_norm attn_norm
		attn_q attn_k attn_v
		attn_qkv attn_o attn_q_norm attn_k_norm attn_sinks attn_q_a attn_q_b
		attn_q_a_norm attn_kv_a attn_kv_a_norm attn_kv_b attn_idx_q_b
		attn_idx_k attn_idx_k_norm attn_idx_proj ffn_norm
		attn_post_norm ffn_post_norm layer_scale ffn_gate ffn_up ffn_down ffn_gate_up ffn_act
		moe_router moe_router_bias moe_gate moe_up moe_down moe_gate_up
		moe_shared_gate moe_shared_up moe_shared_down moe_shared_router
		xattn_q xattn_k xattn_v xattn_o xattn_norm xattn_gate rel_pos_bias conv
		ssm_in ssm_conv ssm_x ssm_dt ssm_a ssm_d ssm_norm ssm_out
		linattn_qkvz linattn_ba linattn_conv linattn_a linattn_dt linattn_norm linattn_out
		final_norm lm_head mlm_transform mlm_bias pooler nsp_head classifier
		projector attn_pool logit_scale logit_bias mtp
		norm time_embed cond_embed adaln
		lora_a lora_b lora_magnitude lora_embed_a
		lora_embed_b lora_alpha buffer quant_aux other'
	local codes='count-mismatch shape-mismatch missing-tensor layer-gap
		tied-embeddings index-mismatch metadata-mismatch loader-incompatible
		expect-params unexpected-tensor layer-inconsistent declared-mismatch
		unsupported-architecture unknown-role vocab-only dtype-mixed
		duplicate-tensor variant config-mismatch unloaded-tensor adapter-mismatch'
	local dtypes='F32 F16 BF16 F8_E4M3 F8_E5M2 Q8_0 Q4_0'
	local cmd='' i w
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--) break ;;
		# options that take a value: skip it, it is not the command
		--format | --config | --role | --layer | --match | --sort | --key | \
		--expect-params | --fail-on | --ignore | --variant | -j | --jobs | -o | --output | \
		--seq | --layers | --kv-dtype | --size) ((i++)) ;;
		-*) ;;
		*)
			[[ " $commands " == *" $w "* ]] && cmd=$w || cmd=inspect
			break ;;
		esac
	done

	case $prev in
	--format)
		COMPREPLY=($(compgen -W "$formats" -- "$cur"))
		return ;;
	--role)
		COMPREPLY=($(compgen -W "$roles" -- "$cur"))
		return ;;
	--sort)
		COMPREPLY=($(compgen -W 'name offset size' -- "$cur"))
		return ;;
	--kv-dtype)
		COMPREPLY=($(compgen -W "$dtypes" -- "$cur"))
		return ;;
	--fail-on)
		# a comma-separated list: complete its last element
		local head=''
		[[ $cur == *,* ]] && head=${cur%,*},
		COMPREPLY=($(compgen -P "$head" -W "$codes" -- "${cur##*,}"))
		compopt -o nospace 2>/dev/null
		return ;;
	--config | --ignore | -o | --output)
		compopt -o filenames 2>/dev/null
		COMPREPLY=($(compgen -f -- "$cur"))
		return ;;
	--layer | --match | --key | --expect-params | -j | --jobs | --seq | --layers)
		return ;;
	esac

	local opts=''
	case $cmd in
	inspect) opts='--config' ;;
	ls) opts='--role --layer --match --sort --gguf-order --config' ;;
	meta) opts='--key --full --raw --config' ;;
	formula) opts='--explain' ;;
	check) opts='--expect-params --config --variant --strict --fail-on --ignore' ;;
	hash) opts='-j --jobs --per-tensor --sha256 -o --output' ;;
	verify) opts='-j --jobs --quiet --status --strict --ignore-missing' ;;
	scan) opts='-j --jobs' ;;
	flops) opts='--seq --layers --kv-dtype --size' ;;
	report) opts='-o --output --svg' ;;
	esac

	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$common $opts" -- "$cur"))
		return
	fi
	compopt -o filenames 2>/dev/null
	COMPREPLY=($(compgen -f -- "$cur"))
	[[ -z $cmd ]] && COMPREPLY+=($(compgen -W "$commands" -- "$cur"))
}

complete -F _weightscan weightscan
