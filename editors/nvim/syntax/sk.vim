" Vim syntax file for skc's .sk GPU kernel language (OCaml/Sarek-flavoured).
" The same categories as the VS Code grammar (editors/vscode/syntaxes/sk.tmLanguage.json): comments (nested),
" strings, numbers, keywords, builtins and synchronisation, types, definitions, attributes and extension nodes.

if exists("b:current_syntax")
  finish
endif

syn case match

syn region  skComment     start="(\*" end="\*)" contains=skComment,skTodo,skCode keepend extend
syn keyword skTodo        contained TODO FIXME XXX NOTE
syn match   skCode        contained "\<[EW]\d\{4}\>"
syn region  skString      start=+"+ skip=+\\.+ end=+"+ contains=skEscape
syn match   skEscape      contained +\\.+

syn match   skNumber      "\<\d[0-9_]*\(\.[0-9_]*\)\=\([eE][-+]\=\d\+\)\=\(l\|L\|u\|U\|UL\|ul\|f\|d\)\=\>"
syn match   skNumber      "\<0[xX][0-9a-fA-F][0-9a-fA-F_]*\(l\|L\|u\|U\|UL\|ul\)\=\>"
syn match   skNumber      "\<0[bB][01][01_]*\(l\|L\|u\|U\|UL\|ul\)\=\>"

syn keyword skConditional if then else match with of
syn keyword skRepeat      for to downto do done while
syn keyword skControl     return break continue
syn keyword skKeyword     let in fun type open rec kernel mut ref begin end superstep
syn keyword skBoolean     true false
syn keyword skOperatorWord not mod land lor lxor lsl lsr asr lnot
syn keyword skMemory      Shared Local
syn keyword skType        int32 int64 uint32 uint64 float32 float64 float int bool unit vector array

syn match   skModule      "\<\(Gpu\|Std\|Math\|Float32\|Float64\)\ze\."
syn match   skModule      "\<open\s\+\zs[A-Z][A-Za-z0-9_']*"
syn keyword skBarrier     block_barrier warp_barrier barrier uniform_load
syn match   skIndex       "\<\(thread_idx\|block_idx\|block_dim\|grid_dim\)_[xyz]\>"
syn match   skIndex       "\<global_idx\(_[xyz]\)\=\>"
syn keyword skIndex       lane_id warp_id warp_size
syn match   skCollective  "\<\(shfl\|shfl_down\|shfl_up\|shfl_xor\|all\|any\|ballot\|activemask\)\>"
syn match   skAtomic      "\<atomic_[a-z_]\+\>"

syn match   skDefinition  "\<kernel\s\+\zs[a-z_][A-Za-z0-9_']*"
syn match   skDefinition  "^let\(\[@[^]]*\]\)\=\s\+\(rec\s\+\)\=\zs[a-z_][A-Za-z0-9_']*"
syn match   skDefinition  "\<type\s\+\zs[a-z_][A-Za-z0-9_']*"

syn region  skAttribute   start="\[@@\=" end="\]" contains=skCode
syn match   skExtension   "\[%[A-Za-z_][A-Za-z0-9_.]*"
syn match   skExtension   "\<let%[a-z_]\+"

hi def link skComment     Comment
hi def link skTodo        Todo
hi def link skCode        SpecialComment
hi def link skString      String
hi def link skEscape      SpecialChar
hi def link skNumber      Number
hi def link skConditional Conditional
hi def link skRepeat      Repeat
hi def link skControl     Statement
hi def link skKeyword     Keyword
hi def link skBoolean     Boolean
hi def link skOperatorWord Operator
hi def link skMemory      StorageClass
hi def link skType        Type
hi def link skModule      Include
hi def link skBarrier     Special
hi def link skIndex       Identifier
hi def link skCollective  Special
hi def link skAtomic      Function
hi def link skDefinition  Function
hi def link skAttribute   PreProc
hi def link skExtension   PreProc

let b:current_syntax = "sk"
