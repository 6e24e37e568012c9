// The extension's service worker: the toolbar button and its badge, the relay between Colab's
// outputframes and the notebook's page, and the content scripts for local Jupyter once the
// user allows localhost (options page). It keeps the outputframes' text in memory only, per
// tab, until the tab closes; nothing is stored or sent anywhere.

const LOCAL = ["http://localhost/*", "http://127.0.0.1/*"];
const LOCAL_SCRIPT = { id: "local-jupyter", matches: LOCAL, js: ["content.js"], runAt: "document_idle", allFrames: true };

/** The toolbar button: scan this tab and toggle the panel; elsewhere, open the page. */
async function scanTab(tab) {
  let answer = null;
  try {
    answer = await chrome.tabs.sendMessage(tab.id, { type: "scan" });
  } catch {
    answer = null; // no content script here: not a notebook page we read
  }
  if (answer && answer.ok) return answer;
  // The page itself, to paste into or open a file.
  await chrome.tabs.create({ url: chrome.runtime.getURL("page/index.html") });
  return { ok: false };
}
chrome.action.onClicked.addListener(scanTab);

/** Per tab: frame URL -> { frameId, outputs }, from frame.js. */
const frames = new Map();
chrome.tabs.onRemoved.addListener((tabId) => frames.delete(tabId));

/** Messages from outputframes and for them (see frame.js and content.js). */
function relay(m, sender, reply) {
  const tab = sender.tab && sender.tab.id;
  if (tab === undefined) return false;
  if (m.type === "frame-outputs" && sender.frameId !== 0 && Array.isArray(m.outputs)) {
    if (!frames.has(tab)) frames.set(tab, new Map());
    frames.get(tab).set(sender.url, { frameId: sender.frameId, outputs: m.outputs.slice(0, 100) });
    if (m.alert) chrome.tabs.sendMessage(tab, { type: "frame-alert" }, { frameId: 0 }).catch(() => {});
    return false;
  }
  if (m.type === "frames-get" && sender.frameId === 0 && Array.isArray(m.urls)) {
    const known = frames.get(tab) || new Map();
    const out = {};
    for (const u of m.urls) if (known.has(u)) out[u] = known.get(u).outputs;
    reply(out);
    return false;
  }
  if (m.type === "frames-do" && sender.frameId === 0 && Array.isArray(m.items)) {
    const known = frames.get(tab) || new Map();
    (async () => {
      for (const { url, msg } of m.items) {
        const f = known.get(url);
        if (f && msg && /^frame-(?:mark|unmark)$/.test(msg.type)) {
          await chrome.tabs.sendMessage(tab, msg, { frameId: f.frameId }).catch(() => {});
        }
      }
    })();
    return false;
  }
  return false;
}

chrome.runtime.onMessage.addListener((m, sender, reply) => {
  if (m && /^frame(?:s)?-/.test(m.type)) return relay(m, sender, reply);
  if (!m || m.type !== "counts" || !sender.tab) return;
  const asserts = Math.max(0, Math.min(9, Number(m.asserts) || 0));
  const echoes = Math.max(0, Math.min(999, Number(m.echoes) || 0));
  // The probe's (or the CPU's) error: the cause is caught, and marked.
  const caught = m.caught === true;
  const text = caught ? "✓" : asserts ? (echoes ? `${asserts}+${Math.min(echoes, 99)}` : String(asserts)) : "";
  chrome.action.setBadgeText({ tabId: sender.tab.id, text });
  chrome.action.setBadgeBackgroundColor({ tabId: sender.tab.id, color: "#b3261e" });
  chrome.action.setTitle({
    tabId: sender.tab.id,
    title: caught
      ? "first-assert: the probe caught it (its error is marked)"
      : asserts
        ? `first-assert: ${asserts} device-side assert, ${echoes} echoes`
        : "first-assert: find the first device-side assert",
  });
});

/** Registers the content scripts for local Jupyter when the user has allowed it. */
async function syncLocal() {
  if (!chrome.scripting) return;
  const allowed = await chrome.permissions.contains({ origins: LOCAL, permissions: ["scripting"] });
  const have = (await chrome.scripting.getRegisteredContentScripts({ ids: [LOCAL_SCRIPT.id] })).length > 0;
  if (allowed && !have) await chrome.scripting.registerContentScripts([LOCAL_SCRIPT]);
  if (!allowed && have) await chrome.scripting.unregisterContentScripts({ ids: [LOCAL_SCRIPT.id] });
}
chrome.permissions.onAdded.addListener(() => syncLocal().catch(() => {}));
chrome.permissions.onRemoved.addListener(() => syncLocal().catch(() => {}));
chrome.runtime.onInstalled.addListener(() => syncLocal().catch(() => {}));
