" .sk files are skc GPU kernels.
autocmd BufRead,BufNewFile *.sk setfiletype sk
