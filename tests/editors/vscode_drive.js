// Drives a real VS Code (code-server in Debian's chromium, headless, through
// playwright-core) for tests/editors/vscode_check.py: one JSON command per
// line on stdin, one JSON answer per line on stdout.
//
//   node vscode_drive.js URL CHROMIUM
//
// Commands ({"op": ...}):
//   open {file}                 Quick Open the file, wait for its editor
//   goto {line, col}            Go to Line/Column (1-based)
//   type {text}                 type the text as keystrokes
//   key {key}                   press a key (playwright's names)
//   ghost {timeout_ms}          wait for ghost text: {text, ms} (ms from the
//                               last keystroke), or {text: null} on time-out
//   no_ghost {ms}               {shown: bool}: whether ghost text appeared
//   panel_has {text, timeout_ms} {found: bool}: the panel shows the text
//   suggest_visible {}          {visible: bool}: the suggestion list is open
//   command {title}             run a command by its title (F1)
//   status {}                   {label, seen}: the seam status bar item's
//                               accessibility label now, and every one seen
//   wait_status {label, timeout_ms}
//   notification {text, timeout_ms}
//                               {found, message}: a notification (a toast,
//                               or in the notification centre) holds text
//   notification_click {text, button, timeout_ms}
//                               click the button of that notification
//   screenshot {path}
//   quit {}
'use strict';

const readline = require('readline');
const { chromium } = require('playwright-core');

const [url, chromiumPath] = process.argv.slice(2);
let page;
let browser;
let lastKeystroke = 0;
const statusSeen = [];

function reply(obj) {
  process.stdout.write(JSON.stringify(obj) + '\n');
}

// The labels the extension gives its status bar item (a progress item of
// the language client may also start with "seam:").
const STATUS_LABELS = [
  'seam: starting', 'seam: training the model', 'seam: ready', 'seam: backend unreachable',
  'seam: inline completions off', 'seam: stopped', 'seam: binary not found',
  'seam: loading the model', 'seam: downloading the model',
];

// The seam status bar item's accessibility label.
async function statusLabel() {
  return page.evaluate((labels) => {
    for (const el of document.querySelectorAll('.statusbar-item [aria-label], .statusbar-item[aria-label]')) {
      const label = el.getAttribute('aria-label') || '';
      if (labels.includes(label)) {
        return label;
      }
    }
    return null;
  }, STATUS_LABELS);
}

// Ghost text as the editor shows it: on the cursor's line, decorations
// (split over several spans by syntax colour and length, U+00A0 for
// spaces); the further lines of a multi-line suggestion in a view zone, one
// div.view-line each (VS Code 1.139: inside div.suggest-preview-text).
async function ghostText() {
  return page.evaluate(() => {
    const editor = document.querySelector('.monaco-editor.focused') || document.querySelector('.monaco-editor');
    if (!editor) {
      return null;
    }
    const spans = [...editor.querySelectorAll('.view-lines .ghost-text-decoration, .view-lines .ghost-text-decoration-preview')];
    let lines = [...editor.querySelectorAll('.suggest-preview-text .view-line')];
    if (lines.length === 0) {
      lines = [...new Set([...editor.querySelectorAll('span.ghost-text')].map((s) => s.closest('.view-line')))];
    }
    if (spans.length === 0 && lines.length === 0) {
      return null;
    }
    const top = (e) => e.getBoundingClientRect().top;
    lines.sort((a, b) => top(a) - top(b));
    let text = spans.map((s) => s.textContent).join('');
    for (const line of lines) {
      text += '\n' + [...line.querySelectorAll('span.ghost-text')].map((s) => s.textContent).join('');
    }
    return text.replace(/\u00a0/g, ' ');
  });
}

async function pollStatus() {
  for (;;) {
    try {
      const label = await statusLabel();
      if (label && statusSeen[statusSeen.length - 1] !== label) {
        statusSeen.push(label);
      }
    } catch {
      // the page navigates or closes
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function until(fn, timeoutMs, everyMs = 10) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) {
      return value;
    }
    if (Date.now() > deadline) {
      return null;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const ops = {
  async open({ file }) {
    // Quick Open, asked again if its file search has not listed the file
    // yet (a loaded machine's file watcher can be late).
    for (let attempt = 1; ; attempt++) {
      await page.keyboard.press('Control+P');
      const input = page.locator('.quick-input-widget input');
      await input.waitFor({ state: 'visible', timeout: 30000 });
      await input.fill(file);
      try {
        await page.locator('.quick-input-list .monaco-list-row', { hasText: file }).first()
          .waitFor({ state: 'visible', timeout: 20000 });
        break;
      } catch (error) {
        await page.keyboard.press('Escape');
        if (attempt === 3) {
          throw error;
        }
      }
    }
    await page.keyboard.press('Enter');
    await page.locator(`.tab[aria-label^="${file}"]`).first().waitFor({ state: 'visible', timeout: 30000 });
    await page.locator('.monaco-editor .view-lines').first().waitFor({ state: 'visible', timeout: 30000 });
    return {};
  },
  async goto({ line, col }) {
    await page.keyboard.press('Control+G');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    // Go to Line is Quick Open with its ':' prefix.
    await input.fill(`:${line}:${col}`);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: `${line}` }).first()
      .waitFor({ state: 'visible', timeout: 10000 });
    await page.keyboard.press('Enter');
    await input.waitFor({ state: 'hidden', timeout: 10000 });
    return {};
  },
  async type({ text }) {
    await page.keyboard.type(text, { delay: 15 });
    lastKeystroke = Date.now();
    return {};
  },
  async key({ key }) {
    await page.keyboard.press(key);
    lastKeystroke = Date.now();
    return {};
  },
  async ghost({ timeout_ms: timeoutMs }) {
    const text = await until(ghostText, timeoutMs || 10000);
    if (text === null) {
      return { text: null };
    }
    const ms = Date.now() - lastKeystroke;
    // Let a suggestion that is still arriving settle.
    await new Promise((r) => setTimeout(r, 300));
    return { text: (await ghostText()) ?? text, ms };
  },
  // Whether the text is shown in the panel (an output channel, say).
  async panel_has({ text, timeout_ms: timeoutMs }) {
    const found = await until(() => page.evaluate((t) => {
      const panel = document.querySelector('.part.panel');
      return !!panel && panel.innerText.replace(/\u00a0/g, ' ').includes(t);
    }, text), timeoutMs || 10000, 100);
    return { found: !!found };
  },
  async suggest_visible() {
    return { visible: await page.locator('.suggest-widget.visible').count() > 0 };
  },
  async no_ghost({ ms }) {
    const text = await until(ghostText, ms);
    return { shown: text !== null };
  },
  async command({ title }) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget input');
    await input.waitFor({ state: 'visible', timeout: 10000 });
    await input.fill('>' + title);
    await page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first()
      .waitFor({ state: 'visible', timeout: 10000 });
    await page.keyboard.press('Enter');
    // (the focus goes back to the editor, its cursor where it was)
    await input.waitFor({ state: 'hidden', timeout: 10000 });
    return {};
  },
  async status() {
    return { label: await statusLabel(), seen: statusSeen.slice() };
  },
  async wait_status({ label, timeout_ms: timeoutMs }) {
    const found = await until(async () => (await statusLabel()) === label, timeoutMs || 30000, 50);
    // (seen by this wait before the poller's next look: recorded here too)
    if (found && statusSeen[statusSeen.length - 1] !== label) {
      statusSeen.push(label);
    }
    return { found: !!found, label: await statusLabel(), seen: statusSeen.slice() };
  },
  // The outer HTML of the elements whose class mentions ghost text (for
  // finding out how an editor version draws it).
  async ghost_html() {
    return {
      html: await page.evaluate(() =>
        [...document.querySelectorAll('[class*="ghost"]')].map((e) => {
          const chain = [];
          for (let p = e.parentElement, i = 0; p && i < 4; p = p.parentElement, i++) {
            chain.push(`${p.tagName}.${p.className}`);
          }
          return `${e.outerHTML.slice(0, 300)}  <-  ${chain.join(' < ')}`;
        })),
    };
  },
  async notification({ text, timeout_ms: timeoutMs }) {
    const message = await until(() => page.evaluate((t) => {
      for (const el of document.querySelectorAll('.notification-list-item-message')) {
        const shown = el.innerText.replace(/\u00a0/g, ' ');
        if (shown.includes(t)) {
          return shown;
        }
      }
      return null;
    }, text), timeoutMs || 10000, 100);
    return { found: !!message, message };
  },
  async notification_click({ text, button, timeout_ms: timeoutMs }) {
    const item = () => page.locator('.notification-list-item', { hasText: text }).first();
    // a toast hides after a while; the notification centre keeps it
    if (!(await item().isVisible())) {
      await ops.command({ title: 'Notifications: Show Notifications' });
    }
    await item().waitFor({ state: 'visible', timeout: timeoutMs || 10000 });
    await item().locator('.monaco-button', { hasText: button }).first().click();
    return {};
  },
  async screenshot({ path }) {
    await page.screenshot({ path });
    return { path };
  },
  async quit() {
    await browser.close();
    return {};
  },
};

async function main() {
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  page = await context.newPage();
  await page.goto(url, { waitUntil: 'domcontentloaded', timeout: 60000 });
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 60000 });
  pollStatus();
  reply({ ready: true });
  const lines = readline.createInterface({ input: process.stdin });
  for await (const line of lines) {
    let command;
    try {
      command = JSON.parse(line);
      const op = ops[command.op];
      if (!op) {
        throw new Error(`unknown op ${command.op}`);
      }
      reply(Object.assign({ ok: true }, await op(command)));
    } catch (error) {
      reply({ ok: false, error: String(error && error.stack ? error.stack : error) });
    }
    if (command && command.op === 'quit') {
      break;
    }
  }
  process.exit(0);
}

main().catch((error) => {
  reply({ ok: false, error: String(error && error.stack ? error.stack : error) });
  process.exit(1);
});
