# bash completion for qdc, installed as <prefix>/share/bash-completion/completions/qdc.
# Families, aliases and capabilities come from the capability database, through the qdc being
# completed (qdc --list-targets, qdc --print-caps), so a --capdb-dir on the line counts too.

# The options that take a value after '=' (or as the next word), then the plain ones.
_qdc_value_opts='--target --arch --gpu-architecture --target-env --emit --cap --capdb-dir --print-caps --format
--targets --error-limit --diagnostics-format --color --symbol-prefix --emit-all --instantiate --atomic-rewrite
--report-lowering'
_qdc_flags='--help --version --check --stats --debug --print-output-names --list-targets --list-warnings
--list-diagnostics --support-matrix --report-lowering --golden-check --time-report --keep-unchanged -Wall -Wextra
-Werror -MD -MMD -MF -MT -MQ -MP -o -O0 -O1 -O2 -O3 -g'

# qdc and the --capdb-dir options already on the line, for asking the database.
_qdc_cmd() {
    local i w
    _qdc_run=("${COMP_WORDS[0]}")
    for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        if [[ $w == --capdb-dir ]]; then
            [[ ${COMP_WORDS[i+1]} == = ]] && _qdc_run+=("--capdb-dir=${COMP_WORDS[i+2]}") || _qdc_run+=("--capdb-dir=${COMP_WORDS[i+1]}")
        fi
    done
}

_qdc_targets() { "${_qdc_run[@]}" --list-targets 2>/dev/null | while read -r name _ aliases _; do
    printf '%s\n' "$name"; [[ $aliases != - ]] && printf '%s\n' ${aliases//,/ }; done; }

# Capabilities of the families named by --target on the line (all families when none is).
_qdc_caps() {
    local fams=() i w
    for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do
        w=${COMP_WORDS[i]}
        [[ $w == --target && ${COMP_WORDS[i+1]} == = ]] && fams+=(${COMP_WORDS[i+2]//,/ })
    done
    ((${#fams[@]})) || fams=($("${_qdc_run[@]}" --list-targets 2>/dev/null | cut -d' ' -f1))
    for w in "${fams[@]}"; do "${_qdc_run[@]}" --print-caps "$w" 2>/dev/null | sed -n 's/^caps://p'; done |
        tr ' ' '\n' | sed '/^$/d' | sort -u
}

_qdc() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]} opt=
    # bash splits "--target=sm" into "--target" "=" "sm"
    if [[ $cur == = ]]; then opt=$prev cur=
    elif [[ $prev == = ]]; then opt=${COMP_WORDS[COMP_CWORD-2]}
    elif [[ $prev == --print-caps || $prev == --capdb-dir || $prev == -o || $prev == -MF || $prev == -arch ]]; then opt=$prev
    fi
    _qdc_cmd
    local words=
    case $opt in
        --target|--targets)
            local pre=${cur%,*}
            [[ $cur == *,* ]] && pre="$pre," || pre=
            COMPREPLY=($(compgen -P "$pre" -W "$(_qdc_targets)" -- "${cur##*,}")); return ;;
        --arch|-arch|--gpu-architecture|--target-env|--print-caps) words=$(_qdc_targets) ;;
        --emit) words='ast ir obj asm llvm-ir header metadata ptx hsaco spirv spirv-asm msl c-array' ;;
        --cap)
            local sign=${cur:0:1}
            [[ $sign == [+-] ]] || sign=+
            COMPREPLY=($(compgen -P "$sign" -W "$(_qdc_caps)" -- "${cur#[+-]}")); return ;;
        --format) words='text json md' ;;
        --diagnostics-format) words='text json sarif' ;;
        --color) words='auto always never' ;;
        --atomic-rewrite) words='all reduce none' ;;
        --report-lowering) words='text json' ;;
        --capdb-dir|--emit-all) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        -o|-MF) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        '') ;;
        *) return ;;
    esac
    if [[ -n $opt ]]; then COMPREPLY=($(compgen -W "$words" -- "$cur")); return; fi
    if [[ $cur == -W* && $cur != -Werror ]]; then
        COMPREPLY=($(compgen -W "-Wall -Wextra -Werror $("${_qdc_run[@]}" --list-warnings 2>/dev/null | cut -d' ' -f1)" -- "$cur"))
    elif [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$_qdc_flags $_qdc_value_opts" -- "$cur"))
        [[ ${#COMPREPLY[@]} == 1 && " $_qdc_value_opts " == *" ${COMPREPLY[0]} "* ]] && COMPREPLY=("${COMPREPLY[0]}=") && compopt -o nospace 2>/dev/null
    else
        COMPREPLY=($(compgen -f -X '!*.qd' -- "$cur") $(compgen -d -- "$cur"))
    fi
}
complete -F _qdc qdc
