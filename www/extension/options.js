// The settings: automatic mode, and the optional permission for Jupyter on localhost.
const LOCAL = { origins: ["http://localhost/*", "http://127.0.0.1/*"], permissions: ["scripting"] };
const zh = (navigator.language || "").toLowerCase().startsWith("zh");
const T = zh
  ? { auto: "出现 device-side assert 时自动打开面板", local: "也在 localhost 上的 Jupyter 中使用", on: "已允许", off: "未允许", note: "所有内容都不会离开你的浏览器：分析在扩展内部完成。" }
  : { auto: "Open the panel by itself when a device-side assert shows up", local: "Also work on Jupyter at localhost", on: "allowed", off: "not allowed", note: "Nothing leaves your browser: the analysis runs inside the extension." };

document.getElementById("auto-label").textContent = T.auto;
document.getElementById("local").textContent = T.local;
document.getElementById("note").textContent = T.note;

const auto = document.getElementById("auto");
chrome.storage.sync.get({ auto: true }).then((s) => (auto.checked = s.auto !== false));
auto.addEventListener("change", () => chrome.storage.sync.set({ auto: auto.checked }));

const state = document.getElementById("local-state");
const show = async () => (state.textContent = (await chrome.permissions.contains(LOCAL)) ? T.on : T.off);
document.getElementById("local").addEventListener("click", async () => {
  await chrome.permissions.request(LOCAL).catch(() => false);
  await show();
});
show();
