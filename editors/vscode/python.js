// The interpreter the Python extension (ms-python.python) has selected for
// the workspace: seam's python_path when the user set none, so that seam
// reads the Python version and the installed packages of the environment
// the code runs in.  Followed as the user selects another one.
'use strict';

const vscode = require('vscode');

const PYTHON_EXTENSION = 'ms-python.python';
const ACTIVATION_MS = 10000;

class PythonInterpreter {
  // onChange() is called when the selected interpreter changes.
  constructor(onChange, log) {
    this.onChange = onChange;
    this.log = log;
    this.api = undefined;
    this.subscription = undefined;
  }

  // Activates the Python extension if it is installed (within 10 s, so that
  // seam's start never waits on it for long) and follows its selection.
  async init() {
    const python = vscode.extensions.getExtension(PYTHON_EXTENSION);
    if (!python) {
      return;
    }
    try {
      const exports = python.isActive ? python.exports : await Promise.race([
        python.activate(),
        new Promise((resolve) => setTimeout(() => resolve(undefined), ACTIVATION_MS)),
      ]);
      this.api = exports && exports.environments ? exports.environments : undefined;
      if (this.api && typeof this.api.onDidChangeActiveEnvironmentPath === 'function') {
        this.subscription = this.api.onDidChangeActiveEnvironmentPath(() => {
          this.log.info(`the Python extension selected ${this.path() || 'no interpreter'}`);
          this.onChange();
        });
      }
    } catch (error) {
      this.log.warn(`the Python extension's interpreter is not known: ${error}`);
    }
  }

  // The selected interpreter's path, or undefined.
  path() {
    try {
      const active = this.api && this.api.getActiveEnvironmentPath();
      return active && typeof active.path === 'string' && active.path.startsWith('/') ? active.path : undefined;
    } catch {
      return undefined;
    }
  }

  dispose() {
    if (this.subscription) {
      this.subscription.dispose();
    }
  }
}

module.exports = { PythonInterpreter };
