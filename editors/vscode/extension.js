// seam for VS Code: starts the seam language server for Python files and
// shows its completions as inline (ghost text) completions.
//
// The server is `seam lsp --stdio`, found through the `seam.path` setting,
// else on PATH, else in ~/.local/bin (scripts/install.sh's default).  The `seam.*` settings the user set are sent to it (as
// initializationOptions, in answer to workspace/configuration, and on
// change); a setting the user removed is sent as null, which returns it to
// seam's own value.  The extension's own settings (path, the two toggles)
// stay here.  The status bar shows the server's state from its seam/status
// notifications.
'use strict';

const vscode = require('vscode');
const fs = require('fs');
const os = require('os');
const path = require('path');
const { LanguageClient, State } = require('vscode-languageclient/node');
const { ModelOffer } = require('./models');
const { PythonInterpreter } = require('./python');

// Keys of the seam section that belong to the extension, not to seam.
const OWN_KEYS = ['path', 'inlineCompletions', 'completionItems'];

// ---- Settings ------------------------------------------------------------------

// The names of seam's own settings, as the extension contributes them.
function seamSettingNames(packageJSON) {
  const props = packageJSON.contributes.configuration.properties;
  return Object.keys(props)
    .map((key) => key.slice('seam.'.length))
    .filter((name) => !OWN_KEYS.some((own) => name === own || name.startsWith(own + '.')));
}

// What the user set, from the most specific scope; null for the rest, so
// that seam uses (or returns to) its own value.
function seamSettings(names, python) {
  const config = vscode.workspace.getConfiguration('seam');
  const out = {};
  for (const name of names) {
    const i = config.inspect(name);
    const value = i && [i.workspaceFolderValue, i.workspaceValue, i.globalValue].find((v) => v !== undefined);
    out[name] = value === undefined ? null : value;
  }
  // the Python extension's choice may be the workspace's own interpreter:
  // taken only once the user trusts the workspace
  if (out.python_path === null && vscode.workspace.isTrusted) {
    out.python_path = (python && python.path()) || null;
  }
  // VS Code's workspace trust is seam's: a workspace's .venv is run only
  // when the user trusts the workspace (docs/SECURITY.md)
  out.workspace_trusted = vscode.workspace.isTrusted;
  return out;
}

// The seam binary: the setting (with ~ expanded), else the first `seam`
// on PATH, else where scripts/install.sh puts it by default
// (~/.local/bin, which an editor started from a desktop often lacks on its
// PATH), else one inside the extension (bin/seam); undefined when there is
// none.
function findSeam(extensionDir) {
  const configured = vscode.workspace.getConfiguration('seam').get('path', '');
  const executable = (file) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (configured) {
    const file = configured.startsWith('~/') ? path.join(os.homedir(), configured.slice(2)) : configured;
    return executable(file) ? file : undefined;
  }
  for (const dir of (process.env.PATH || '').split(path.delimiter)) {
    if (dir && executable(path.join(dir, 'seam'))) {
      return path.join(dir, 'seam');
    }
  }
  const local = path.join(os.homedir(), '.local', 'bin', 'seam');
  if (executable(local)) {
    return local;
  }
  // The seam this extension carries (the platform .vsix of scripts/vsix.sh),
  // made executable if unpacking lost the mode.
  const bundled = extensionDir && path.join(extensionDir, 'bin', 'seam');
  if (bundled && fs.existsSync(bundled) && !executable(bundled)) {
    try {
      fs.chmodSync(bundled, 0o755);
    } catch {
      return undefined;
    }
  }
  return bundled && executable(bundled) ? bundled : undefined;
}

// ---- Status bar ------------------------------------------------------------------

const STATES = {
  starting: { icon: '$(loading~spin)', text: 'seam', label: 'seam: starting' },
  training: { icon: '$(sync~spin)', text: 'seam: training', label: 'seam: training the model' },
  loading: { icon: '$(sync~spin)', text: 'seam: loading', label: 'seam: loading the model' },
  ready: { icon: '$(check)', text: 'seam', label: 'seam: ready' },
  unreachable: { icon: '$(warning)', text: 'seam: unreachable', label: 'seam: backend unreachable', warn: true },
  slow: { icon: '$(watch)', text: 'seam: slow', label: 'seam: the model gave nothing in time', warn: true },
  off: { icon: '$(circle-slash)', text: 'seam: off', label: 'seam: inline completions off' },
  stopped: { icon: '$(error)', text: 'seam: stopped', label: 'seam: stopped', warn: true },
  missing: { icon: '$(error)', text: 'seam: not found', label: 'seam: binary not found', warn: true },
  downloading: { icon: '$(cloud-download)', text: 'seam', label: 'seam: downloading the model' },
};

class Status {
  constructor() {
    this.item = vscode.window.createStatusBarItem('seam.status', vscode.StatusBarAlignment.Right, 100);
    this.item.name = 'seam';
    this.item.command = 'seam.showLog';
    this.server = 'starting';
    this.detail = '';
    this.model = '';
    this.language = '';
    this.download = undefined;
    this.enabled = true;
    this.item.show();
    this.render();
  }

  // The server's state ("starting", "training", "loading", "ready", "unreachable", "slow",
  // "stopped", "missing") and what it said about it.
  set(state, detail) {
    this.server = STATES[state] ? state : 'ready';
    this.detail = detail || '';
    this.render();
  }

  // The GGUF model seam uses in process, if any (shown in the tooltip).
  setModel(model) {
    this.model = model || '';
    this.render();
  }

  // The language of the document last completed: JavaScript or JSX with
  // its goal (module or script), TypeScript, TSX, or the Python version
  // seam's grammar is for, and why.
  setLanguage(language, sourceType, version, why) {
    if (language === 'javascript' || language === 'jsx') {
      const name = language === 'jsx' ? 'JavaScript JSX' : 'JavaScript';
      this.language = `${name}${sourceType ? ` (${sourceType})` : ''}`;
    } else if (language === 'typescript') {
      this.language = 'TypeScript';
    } else if (language === 'tsx') {
      this.language = 'TypeScript JSX';
    } else {
      this.language = version ? `Python ${version}${why ? ` (${why})` : ''}` : '';
    }
    this.render();
  }

  // A model download's share done (0..1) and what to say, or undefined
  // when none runs.
  setDownload(share, detail) {
    this.download = share === undefined ? undefined : { share, detail: detail || '' };
    this.render();
  }

  setEnabled(enabled) {
    this.enabled = enabled;
    this.render();
  }

  render() {
    const running = ['ready', 'training', 'loading', 'unreachable', 'slow'].includes(this.server);
    if (this.download) {
      const state = STATES.downloading;
      this.item.text = `${state.icon} seam: ${Math.floor(this.download.share * 100)}%`;
      this.item.accessibilityInformation = { label: state.label };
      this.item.tooltip = `${state.label}: ${this.download.detail}`;
      this.item.backgroundColor = undefined;
      return;
    }
    const state = STATES[!this.enabled && running ? 'off' : this.server];
    this.item.text = `${state.icon} ${state.text}`;
    this.item.accessibilityInformation = { label: state.label };
    const model = this.model ? `\nmodel: ${path.basename(this.model)}` : '';
    const language = this.language ? `\n${this.language}` : '';
    this.item.tooltip = (this.detail ? `${state.label}: ${this.detail}` : state.label) + model + language;
    this.item.backgroundColor = state.warn ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
  }

  dispose() {
    this.item.dispose();
  }
}

// ---- The client ------------------------------------------------------------------

// Asks seam for its state notifications (seam/status).
class StatusFeature {
  fillClientCapabilities(capabilities) {
    capabilities.experimental = Object.assign(capabilities.experimental || {}, { seamStatus: true });
  }
  initialize() {}
  getState() {
    return { kind: 'static' };
  }
  clear() {}
}

function inlineEnabled() {
  return vscode.workspace.getConfiguration('seam').get('inlineCompletions.enable', true);
}

function itemsEnabled() {
  return vscode.workspace.getConfiguration('seam').get('completionItems.enable', false);
}

function makeClient(seam, names, log, status, offer, python) {
  const serverOptions = { command: seam, args: ['lsp', '--stdio'] };
  const clientOptions = {
    documentSelector: [{ language: 'python' }, { language: 'javascript' }, { language: 'json' }, { language: 'typescript' },
      { language: 'javascriptreact' }, { language: 'typescriptreact' }],
    outputChannel: log,
    initializationOptions: () => seamSettings(names, python),
    connectionOptions: { maxRestartCount: 3 },
    initializationFailedHandler: (error) => {
      status.set('stopped', String(error && error.message ? error.message : error));
      return false;
    },
    middleware: {
      provideInlineCompletionItems: (document, position, context, token, next) =>
        inlineEnabled() ? next(document, position, context, token) : null,
      // seam's completion as a list item opens the suggestion list, which
      // hides the ghost text: off unless asked for.
      provideCompletionItem: (document, position, context, token, next) =>
        itemsEnabled() ? next(document, position, context, token) : null,
      workspace: {
        configuration: async (params, token, next) => {
          const answer = await next(params, token);
          return params.items.map((item, i) =>
            item.section === 'seam' ? seamSettings(names, python) : Array.isArray(answer) ? answer[i] : null);
        },
      },
    },
  };
  const client = new LanguageClient('seam', 'seam', serverOptions, clientOptions);
  client.registerFeature(new StatusFeature());
  client.onDidChangeState((event) => {
    if (event.newState === State.Starting) {
      status.set('starting');
    } else if (event.newState === State.Stopped) {
      status.set('stopped');
    }
  });
  client.onNotification('seam/status', (params) => {
    if (params && typeof params.state === 'string') {
      status.set(params.state, params.message);
      status.setModel(params.model);
      status.setLanguage(params.language, params.source_type, params.python_version, params.python_version_why);
      offer.onStatus(params);
      log.info(`state: ${params.state}${params.message ? ` (${params.message})` : ''}`);
    }
  });
  return client;
}

// ---- Activation ------------------------------------------------------------------

async function activate(context) {
  const log = vscode.window.createOutputChannel('seam', { log: true });
  const status = new Status();
  const names = seamSettingNames(context.extension.packageJSON);
  let client;
  let seamInUse;
  context.subscriptions.push(log, status);
  const offer = new ModelOffer(context, { seam: () => seamInUse, status, restart: () => restart(), log });
  // the settings seam is told, again when they change
  const pushSettings = () => {
    if (client && client.state === State.Running) {
      client.sendNotification('workspace/didChangeConfiguration', { settings: { seam: seamSettings(names, python) } });
    }
  };
  const python = new PythonInterpreter(pushSettings, log);
  context.subscriptions.push(python);
  status.setEnabled(inlineEnabled());

  async function start() {
    const seam = findSeam(context.extensionPath);
    if (!seam) {
      status.set('missing');
      const where = vscode.workspace.getConfiguration('seam').get('path', '') ||
        'seam on PATH or in ~/.local/bin; bash scripts/install.sh puts it there';
      log.error(`cannot find the seam binary (${where}); set seam.path`);
      vscode.window.showErrorMessage(`seam: cannot find the seam binary (${where}).`, 'Open Settings').then((pick) => {
        if (pick) {
          vscode.commands.executeCommand('workbench.action.openSettings', 'seam.path');
        }
      });
      return;
    }
    log.info(`starting ${seam}`);
    seamInUse = seam;
    client = makeClient(seam, names, log, status, offer, python);
    try {
      await client.start();
    } catch (error) {
      status.set('stopped', String(error && error.message ? error.message : error));
      log.error(`seam did not start: ${error}`);
    }
  }

  async function stop() {
    const old = client;
    client = undefined;
    if (old) {
      try {
        await old.stop(2000);
      } catch (error) {
        log.warn(`seam did not stop cleanly: ${error}`);
      }
    }
  }

  async function restart() {
    await stop();
    await start();
  }

  context.subscriptions.push(
    vscode.commands.registerCommand('seam.restart', restart),
    vscode.commands.registerCommand('seam.showLog', () => log.show(true)),
    vscode.commands.registerCommand('seam.downloadModel', () => {
      if (!seamInUse) {
        vscode.window.showErrorMessage('seam: cannot find the seam binary to download a model with.');
        return undefined;
      }
      return offer.choose();
    }),
    vscode.commands.registerCommand('seam.toggleInlineCompletions', async () => {
      const config = vscode.workspace.getConfiguration('seam');
      await config.update('inlineCompletions.enable', !inlineEnabled(), vscode.ConfigurationTarget.Global);
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (!event.affectsConfiguration('seam')) {
        return;
      }
      status.setEnabled(inlineEnabled());
      if (event.affectsConfiguration('seam.path')) {
        restart();
      } else if (client && client.state === State.Running && names.some((n) => event.affectsConfiguration(`seam.${n}`))) {
        pushSettings();
      }
    }),
    // trust granted while seam runs: it is told, and may then ask the
    // workspace's interpreter
    vscode.workspace.onDidGrantWorkspaceTrust(() => pushSettings()),
    { dispose: () => stop() },
  );
  await python.init();
  await start();
}

function deactivate() {
  // The client is stopped by its disposable in context.subscriptions.
  return undefined;
}

module.exports = { activate, deactivate };
