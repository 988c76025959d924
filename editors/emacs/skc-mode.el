;;; skc-mode.el --- Major mode for skc's .sk GPU kernels, with the skc language server through eglot -*- lexical-binding: t; -*-

;; Keywords: languages, gpu
;; Package-Requires: ((emacs "27.1"))

;;; Commentary:

;; `skc-mode' highlights .sk files (OCaml/Sarek-flavoured GPU kernels: nested `(* *)' comments, keywords, types,
;; builtins and synchronisation) and registers `skc lsp' with eglot, so that `M-x eglot' (or `eglot-ensure' in
;; `skc-mode-hook') gives convergence errors as you type, hover, completion, references, rename and quick fixes.
;;
;;   (add-to-list 'load-path "/path/to/skc/editors/emacs")
;;   (require 'skc-mode)
;;   (add-hook 'skc-mode-hook #'eglot-ensure)
;;
;; Commands: `skc-explain' (the explanation page of a diagnostic code) and `skc-show-cuda' (the CUDA C skc emits
;; for the buffer, at the kernel under point). Eglot is built into Emacs 29 and later; on Emacs 28 install it
;; (Debian: the package elpa-eglot).

;;; Code:

(require 'rx)
(require 'seq)

(defgroup skc nil
  "The skc GPU kernel language."
  :group 'languages)

(defcustom skc-program '("skc" "lsp")
  "The language server's command line."
  :type '(repeat string))

(defvar skc-mode-syntax-table
  (let ((table (make-syntax-table)))
    ;; `(* ... *)' comments, which nest.
    (modify-syntax-entry ?\( "()1n" table)
    (modify-syntax-entry ?\) ")(4n" table)
    (modify-syntax-entry ?* ". 23n" table)
    (modify-syntax-entry ?_ "w" table)
    (modify-syntax-entry ?' "w" table)
    (modify-syntax-entry ?\" "\"" table)
    (modify-syntax-entry ?\\ "\\" table)
    (dolist (c '(?+ ?- ?/ ?< ?> ?= ?& ?| ?% ?@ ?! ?~ ?^ ?. ?: ?\;))
      (modify-syntax-entry c "." table))
    table)
  "Syntax table of `skc-mode'.")

(defconst skc-font-lock-keywords
  `((,(rx symbol-start (or "if" "then" "else" "for" "to" "downto" "do" "done" "while" "begin" "end" "return"
                           "break" "continue" "match" "with" "of" "in" "let" "fun" "type" "open" "rec" "kernel" "mut"
                           "ref" "superstep")
          symbol-end)
     . font-lock-keyword-face)
    (,(rx symbol-start (or "true" "false") symbol-end) . font-lock-constant-face)
    (,(rx symbol-start (or "int32" "int64" "uint32" "uint64" "float32" "float64" "float" "int" "bool" "unit"
                           "vector" "array")
          symbol-end)
     . font-lock-type-face)
    (,(rx symbol-start (or "block_barrier" "warp_barrier" "barrier" "uniform_load") symbol-end)
     . font-lock-warning-face)
    (,(rx symbol-start (or (seq (or "thread_idx" "block_idx" "block_dim" "grid_dim") "_" (any "xyz"))
                           (seq "global_idx" (? "_" (any "xyz")))
                           "lane_id" "warp_id" "warp_size")
          symbol-end)
     . font-lock-builtin-face)
    (,(rx symbol-start (or "Gpu" "Std" "Math" "Float32" "Float64") ".") . font-lock-builtin-face)
    (,(rx symbol-start (or "kernel" "type") (+ space) (group (any "a-z_") (* (any "A-Za-z0-9_'"))))
     1 font-lock-function-name-face)
    (,(rx line-start "let" (? "[@" (* (not "]")) "]") (+ space) (? "rec" (+ space))
          (group (any "a-z_") (* (any "A-Za-z0-9_'"))))
     1 font-lock-function-name-face)
    (,(rx (or (seq "[@" (? "@") (* (not "]")) "]") (seq "[%" (+ (any "A-Za-z0-9_.")))
              (seq symbol-start "let%" (+ (any "a-z_")))))
     . font-lock-preprocessor-face)
    (,(rx symbol-start (+ digit) (? "." (* digit)) (? (any "eE") (? (any "+-")) (+ digit))
          (? (or "l" "L" "u" "U" "UL" "ul" "f" "d")) symbol-end)
     . font-lock-constant-face))
  "Highlighting of `skc-mode'.")

;;;###autoload
(define-derived-mode skc-mode prog-mode "skc"
  "Major mode for skc's .sk GPU kernel files."
  :syntax-table skc-mode-syntax-table
  (setq-local comment-start "(* ")
  (setq-local comment-end " *)")
  (setq-local comment-start-skip "(\\*+[ \t]*")
  (setq-local font-lock-defaults '(skc-font-lock-keywords))
  (setq-local indent-tabs-mode nil))

;;;###autoload
(add-to-list 'auto-mode-alist '("\\.sk\\'" . skc-mode))

(with-eval-after-load 'eglot
  (add-to-list 'eglot-server-programs `(skc-mode . ,skc-program)))

(declare-function eglot--current-server-or-lose "eglot")
(declare-function jsonrpc-request "jsonrpc")
(declare-function eglot--pos-to-lsp-position "eglot")
(declare-function eglot--TextDocumentIdentifier "eglot")

(defun skc--execute (command &rest arguments)
  "Run the language server's COMMAND with ARGUMENTS and return its answer."
  (require 'eglot)
  (jsonrpc-request (eglot--current-server-or-lose) :workspace/executeCommand
                   (list :command command :arguments (vconcat arguments))))

(defun skc--code-at-point ()
  "The diagnostic code of a Flymake diagnostic at point, or a code written at point."
  (or (let ((word (thing-at-point 'word t)))
        (and word (string-match-p "\\`[EW][0-9]\\{4\\}\\'" word) word))
      (seq-some (lambda (diagnostic)
                  (let ((text (flymake-diagnostic-text diagnostic)))
                    (and (string-match "\\b\\([EW][0-9]\\{4\\}\\)\\b" text) (match-string 1 text))))
                (and (fboundp 'flymake-diagnostics) (flymake-diagnostics (point))))))

(defun skc-explain (code)
  "Show the explanation page of the diagnostic CODE (such as E0001)."
  (interactive (list (read-string "Diagnostic code: " (skc--code-at-point))))
  (let ((page (skc--execute "skc.explain" code)))
    (with-current-buffer (get-buffer-create (format "*skc explain %s*" (upcase code)))
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert page))
      (goto-char (point-min))
      (when (fboundp 'markdown-mode) (markdown-mode))
      (setq buffer-read-only t)
      (display-buffer (current-buffer)))))

(defun skc-show-cuda ()
  "Show the CUDA C that skc emits for this buffer, at the kernel under point."
  (interactive)
  (let* ((answer (skc--execute "skc.showCuda" (plist-get (eglot--TextDocumentIdentifier) :uri)
                               (eglot--pos-to-lsp-position)))
         (buffer (get-buffer-create "*skc CUDA C*")))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (plist-get answer :source)))
      (when (fboundp 'c++-mode) (c++-mode))
      (goto-char (point-min))
      (forward-line (plist-get answer :line))
      (setq buffer-read-only t))
    (let ((window (display-buffer buffer)))
      (when window (set-window-point window (with-current-buffer buffer (point)))))
    buffer))

(provide 'skc-mode)

;;; skc-mode.el ends here
