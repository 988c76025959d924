;;; test-eglot.el --- Emacs with eglot against `skc lsp', headless -*- lexical-binding: t; -*-

;; Opens a kernel with a barrier under a thread-varying `if' in `skc-mode' (from the file name), checks its
;; highlighting, connects eglot, expects E0001 on the barrier from Flymake, reads its explanation page with
;; `skc-explain', fixes the condition through the buffer (eglot sends the change) and expects the diagnostics to
;; clear, shows the CUDA C with `skc-show-cuda', and shuts the server down. Exits 0 on success, 1 on any failure:
;;
;;   emacs --batch -l editors/emacs/skc-mode.el -l editors/emacs/test-eglot.el
;;
;; `skc' is found on the PATH (compiler/cli/tests/emacs.rs puts the binary under test first on it).

;;; Code:

(require 'eglot)
(require 'flymake)
(require 'skc-mode)

(defconst skc-test-timeout 20 "Seconds to wait for the server.")

(defun skc-test-log (format-string &rest args)
  (princ (concat (apply #'format format-string args) "\n")))

(defun skc-test-wait (what condition)
  "Wait until CONDITION returns non-nil (processing the server's messages); fail after `skc-test-timeout'."
  (let ((deadline (+ (float-time) skc-test-timeout)) value)
    (while (not (setq value (funcall condition)))
      (when (> (float-time) deadline)
        (error "Timed out waiting for %s" what))
      (accept-process-output nil 0.05)
      ;; Batch Emacs is never idle: run the timers eglot uses to send changes and Flymake to report.
      (run-hooks 'post-command-hook)
      (when (fboundp 'eglot--signal-textDocument/didChange)
        (ignore-errors (eglot--signal-textDocument/didChange))))
    value))

(defun skc-test-errors ()
  (seq-filter (lambda (d) (eq (flymake-diagnostic-type d) 'eglot-error)) (flymake-diagnostics)))

(defun skc-test-main ()
  (let* ((dir (make-temp-file "skc-eglot" t))
         (path (expand-file-name "barrier.sk" dir)))
    (with-temp-file path
      (insert "kernel k (out : int32 vector) =\n  if thread_idx_x < 16 then Gpu.block_barrier\n"))
    (find-file path)
    ;; 1. The mode and its highlighting.
    (unless (eq major-mode 'skc-mode) (error "Major mode: %s" major-mode))
    (font-lock-ensure)
    (let ((faces (list (get-text-property 1 'face)
                       (save-excursion (goto-char (point-min)) (search-forward "thread_idx_x")
                                       (get-text-property (match-beginning 0) 'face))
                       (save-excursion (goto-char (point-min)) (search-forward "block_barrier")
                                       (get-text-property (match-beginning 0) 'face)))))
      (unless (equal faces '(font-lock-keyword-face font-lock-builtin-face font-lock-warning-face))
        (error "Faces: %S" faces))
      (skc-test-log "ok: skc-mode, faces %S" faces))
    ;; 2. Eglot connects and Flymake gets E0001 on the barrier.
    (eglot-ensure)
    (run-hooks 'post-command-hook)
    (skc-test-wait "eglot to connect" #'eglot-current-server)
    (skc-test-log "ok: eglot connected to %S" (process-command (jsonrpc--process (eglot-current-server))))
    (let* ((errors (skc-test-wait "an error diagnostic" #'skc-test-errors))
           (error-diagnostic (car errors))
           (text (flymake-diagnostic-text error-diagnostic))
           (start (flymake-diagnostic-beg error-diagnostic))
           (end (flymake-diagnostic-end error-diagnostic))
           (range (format "%d:%d-%d:%d" (line-number-at-pos start) (save-excursion (goto-char start) (current-column))
                          (line-number-at-pos end) (save-excursion (goto-char end) (current-column)))))
      (unless (= (length errors) 1) (error "Expected 1 error, got %d" (length errors)))
      (unless (string-match-p "Barrier in potentially diverged control flow" text) (error "Message: %s" text))
      (unless (string= range "2:28-2:45") (error "Range: %s" range))
      (skc-test-log "ok: E0001 at %s: %s" range (car (split-string text "\n"))))
    ;; 3. Its explanation page.
    (skc-explain "E0001")
    (let ((first-line (with-current-buffer "*skc explain E0001*"
                        (buffer-substring (point-min) (line-end-position)))))
      (unless (string= first-line "# E0001: barrier in potentially diverged control flow")
        (error "Page: %s" first-line))
      (skc-test-log "ok: skc-explain showed %s" first-line))
    ;; 4. Fix it through the buffer: the diagnostics clear.
    (goto-char (point-min))
    (search-forward "thread_idx_x")
    (replace-match "block_idx_x")
    (skc-test-wait "the diagnostics to clear" (lambda () (null (flymake-diagnostics))))
    (skc-test-log "ok: diagnostics cleared after the edit")
    ;; 5. The CUDA C of the kernel.
    (let ((cuda (skc-show-cuda)))
      (with-current-buffer cuda
        (let ((line (buffer-substring (line-beginning-position) (line-end-position))))
          (unless (string-match-p "__global__ void k(" line) (error "Not at the kernel: %s" line))
          (skc-test-log "ok: skc-show-cuda at %s" line))))
    ;; 6. Shut the server down (shutdown, then exit).
    (let ((server (eglot-current-server)))
      (eglot-shutdown server)
      (skc-test-wait "the server to exit" (lambda () (not (process-live-p (jsonrpc--process server)))))
      (skc-test-log "ok: server exited"))))

(condition-case failure
    (progn (skc-test-main) (kill-emacs 0))
  (error (princ (format "FAIL: %s\n" (error-message-string failure)) #'external-debugging-output)
         (kill-emacs 1)))

;;; test-eglot.el ends here
