;;; emacs_complete.el --- seam through an Emacs LSP client, in batch mode
;;
;;   emacs --batch -Q -l emacs_complete.el CLIENT SEAM FILE LINE COLUMN
;;
;; CLIENT is eglot or lsp-mode (Debian's elpa-eglot, elpa-lsp-mode).  Opens
;; FILE in python-mode (js-mode for a .js file), starts SEAM through the
;; client, asks for a
;; completion at LINE (1-based) and COLUMN (0-based) with
;; completion-at-point's table, inserts the first candidate as the client
;; would (its text edit replaces the word before the cursor), saves FILE and
;; exits 0; exits 1 when the client offered nothing, 2 when it did not
;; connect.

(dolist (dir (directory-files "/usr/share/emacs/site-lisp/elpa" t "^[^.]"))
  (add-to-list 'load-path dir))
(require 'python)
(require 'js)
;; A loaded machine running seam under the sanitizers can take well over
;; the clients' default 10 and 30 seconds to answer the first completion.
(setq jsonrpc-default-request-timeout 120)

(defun seam-test--wait (ready seconds)
  "Runs the event loop until READY returns non-nil or SECONDS pass."
  (let ((deadline (+ (float-time) seconds)))
    (while (and (not (funcall ready)) (< (float-time) deadline))
      (accept-process-output nil 0.1))
    (funcall ready)))

(defun seam-test--language (file)
  "The major mode and LSP languageId of FILE."
  (if (string-suffix-p ".js" file) '(js-mode "javascript") '(python-mode "python")))

(defun seam-test--start-eglot (seam file)
  (require 'eglot)
  (let ((language (seam-test--language file)))
    (eglot (list (car language)) (cons 'transient (file-name-directory file)) 'eglot-lsp-server (list seam)
           (cadr language)))
  (seam-test--wait #'eglot-current-server 30))

(defun seam-test--start-lsp-mode (seam file)
  (setq lsp-session-file (expand-file-name "lsp-session" temporary-file-directory)
        lsp-restart 'ignore lsp-keep-workspace-alive nil lsp-response-timeout 120
        lsp-enable-snippet nil lsp-modeline-workspace-status-enable nil
        lsp-modeline-code-actions-enable nil lsp-modeline-diagnostics-enable nil
        lsp-headerline-breadcrumb-enable nil lsp-lens-enable nil
        lsp-enable-on-type-formatting nil lsp-signature-auto-activate nil)
  (require 'lsp-mode)
  (require 'lsp-completion)
  (lsp-register-client
   (make-lsp-client :new-connection (lsp-stdio-connection (list seam))
                    :activation-fn (lsp-activate-on (cadr (seam-test--language file)))
                    :priority 10 :server-id 'seam))
  (setq lsp-disabled-clients '(pyls pylsp mspyls pyright jedi ts-ls jsts-ls deno-ls flow-ls eslint))
  (lsp-workspace-folders-add (file-name-directory file))
  (lsp)
  (seam-test--wait (lambda () (and (lsp-workspaces)
                                   (eq (lsp--workspace-status (car (lsp-workspaces))) 'initialized)))
                   30))

(let* ((client (nth 0 command-line-args-left))
       (seam (nth 1 command-line-args-left))
       (file (nth 2 command-line-args-left))
       (line (string-to-number (nth 3 command-line-args-left)))
       (column (string-to-number (nth 4 command-line-args-left))))
  (find-file file)
  (funcall (car (seam-test--language file)))
  (unless (if (equal client "eglot") (seam-test--start-eglot seam file) (seam-test--start-lsp-mode seam file))
    (message "seam-test: %s did not connect" client)
    (kill-emacs 2))
  (goto-char (point-min))
  (forward-line (1- line))
  (move-to-column column)
  (let* ((capf (if (equal client "eglot") (eglot-completion-at-point) (lsp-completion-at-point)))
         (start (nth 0 capf)) (end (nth 1 capf))
         (candidates (and capf (all-completions (buffer-substring start end) (nth 2 capf)))))
    (message "seam-test: candidates %S" candidates)
    (unless candidates
      (kill-emacs 1))
    (delete-region start end)
    (goto-char start)
    (insert (car candidates))
    (save-buffer)
    (message "seam-test: line now %s" (buffer-substring (line-beginning-position) (line-end-position)))
    (kill-emacs 0)))
