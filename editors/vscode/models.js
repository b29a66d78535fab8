// The model offer: when seam serves its small embedded model because no
// backend is set and no GGUF model was found (its status says offer_model),
// one notification per session offers the download of a model made for
// fill-in-the-middle, with its size.  `seam model pull NAME --json` does
// the download (resumable, checked by SHA-256); its progress shows in the
// status bar, and seam is restarted to use the model once it is whole.
// The command "seam: Download a Model" offers every known model.
'use strict';

const vscode = require('vscode');
const { execFile, spawn } = require('child_process');

const NEVER_KEY = 'seam.modelOffer.never';

function sizeText(bytes) {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(2)} GB` : `${Math.round(bytes / 1e6)} MB`;
}

// `seam model list --json`: {dir, in_use, known: [...], present: [...]}.
function listModels(seam) {
  return new Promise((resolve, reject) => {
    execFile(seam, ['model', 'list', '--json'], { timeout: 20000, maxBuffer: 1 << 20 }, (error, stdout) => {
      if (error) {
        reject(error);
        return;
      }
      try {
        resolve(JSON.parse(stdout));
      } catch (parseError) {
        reject(parseError);
      }
    });
  });
}

class ModelOffer {
  // seam(): the binary in use; status: the status bar (setDownload);
  // restart(): starts seam again; log: the output channel.
  constructor(context, { seam, status, restart, log }) {
    this.context = context;
    this.seam = seam;
    this.status = status;
    this.restart = restart;
    this.log = log;
    this.offered = false;
    this.pulling = undefined;
  }

  // Called with each seam/status notification's parameters.
  async onStatus(params) {
    if (!params || !params.offer_model || this.offered || this.pulling) {
      return;
    }
    if (this.context.globalState.get(NEVER_KEY)) {
      return;
    }
    this.offered = true;
    let listed;
    try {
      listed = await listModels(this.seam());
    } catch (error) {
      this.log.warn(`seam model list failed: ${error}`);
      return;
    }
    const model = listed.known && listed.known[0];
    if (!model || (listed.present && listed.present.length)) {
      return;
    }
    const pick = await vscode.window.showInformationMessage(
      `seam is using its small embedded model. Download ${model.name} (${sizeText(model.bytes)}), ` +
        'a model trained to fill in the middle, for better completions?',
      'Download', 'Not Now', 'Never');
    if (pick === 'Download') {
      await this.pull(model);
    } else if (pick === 'Never') {
      await this.context.globalState.update(NEVER_KEY, true);
    }
  }

  // The command: every known model, the present ones marked.
  async choose() {
    let listed;
    try {
      listed = await listModels(this.seam());
    } catch (error) {
      vscode.window.showErrorMessage(`seam: cannot list the models: ${error.message || error}`);
      return;
    }
    const present = new Set((listed.present || []).map((p) => p.name));
    const items = (listed.known || []).map((m) => ({
      label: m.name,
      description: `${sizeText(m.bytes)}${present.has(m.file) ? ' (present)' : ''}`,
      detail: m.about,
      model: m,
    }));
    const chosen = await vscode.window.showQuickPick(items, { placeHolder: 'A model to download for seam' });
    if (chosen) {
      await this.pull(chosen.model);
    }
  }

  pull(model) {
    if (this.pulling) {
      return this.pulling;
    }
    this.pulling = new Promise((resolve) => {
      const seam = this.seam();
      this.log.info(`downloading ${model.name}: ${seam} model pull ${model.name}`);
      this.status.setDownload(0, `${model.name}: starting`);
      const child = spawn(seam, ['model', 'pull', model.name, '--json'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let pending = '';
      let failure = '';
      let path;
      child.stdout.on('data', (chunk) => {
        pending += chunk.toString('utf8');
        let newline;
        while ((newline = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, newline);
          pending = pending.slice(newline + 1);
          let event;
          try {
            event = JSON.parse(line);
          } catch {
            continue;
          }
          if (event.event === 'progress' || event.event === 'start') {
            const share = event.total ? event.done / event.total : 0;
            this.status.setDownload(share, `${model.name}: ${sizeText(event.done)} of ${sizeText(event.total)}`);
          } else if (event.event === 'retry') {
            this.log.warn(`download: ${event.message}; trying again`);
          } else if (event.event === 'verify') {
            this.status.setDownload(1, `${model.name}: checking the SHA-256`);
          } else if (event.event === 'done') {
            path = event.path;
          } else if (event.event === 'error') {
            failure = event.message;
          }
        }
      });
      child.stderr.on('data', () => {});
      let finished = false;
      const finish = async (code, spawnError) => {
        if (finished) {
          return;
        }
        finished = true;
        this.status.setDownload(undefined);
        this.pulling = undefined;
        if (code === 0 && path) {
          this.log.info(`the model ${model.name} is whole: ${path}`);
          vscode.window.showInformationMessage(`seam: ${model.name} is downloaded; seam now completes with it.`);
          await this.restart();
        } else {
          const why = failure || (spawnError ? String(spawnError) : `seam model pull exited with ${code}`);
          this.log.error(`download of ${model.name} failed: ${why}`);
          const again = await vscode.window.showErrorMessage(`seam: the download of ${model.name} failed: ${why}`,
            'Try Again');
          if (again) {
            this.pull(model);
          }
        }
        resolve();
      };
      child.on('error', (error) => finish(-1, error));
      child.on('close', (code) => finish(code));
    });
    return this.pulling;
  }
}

module.exports = { ModelOffer };
