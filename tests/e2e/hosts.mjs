// The hosts of the adapter, bookmarklet and extension tests: Colab-like pages served over
// HTTPS at the real host names (Chromium maps them to these local servers with
// --host-resolver-rules and accepts the self-signed certificate), and Jupyter-like pages on
// http://localhost.

import { createServer as https } from "node:https";
import { createServer as http } from "node:http";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { colabTop, colabHeaders, colabFrame, jupyterlab, classic, longNotebook, hostileNotebook, colab2026Notebook, lateStderrNotebook } from "./fixtures.mjs";
import { ROOT, WWW } from "./lib.mjs";

export const COLAB = "colab.research.google.com";
export const FRAME_HOST = "fx-496ff2e9c6d22116-0-colab.googleusercontent.com";
export const KAGGLE = "www.kaggle.com";
export const KAGGLE_PROXY = "kkb-production.jupyter-proxy.kaggle.net";

/** The notebooks the fixtures render, by name. */
export function notebooks() {
  const demo = (f) => JSON.parse(readFileSync(path.join(WWW, "demo", f), "utf8"));
  return {
    "labels.ipynb": demo("colab-nll-labels.ipynb"),
    "echoes.ipynb": demo("echoes-later-cells.ipynb"),
    "long.ipynb": longNotebook(100),
    "hostile.ipynb": hostileNotebook(),
    "colab-2026.ipynb": colab2026Notebook(),
    "late-stderr.ipynb": lateStderrNotebook(demo("colab-nll-labels.ipynb")),
    "kaggle-long.ipynb": longNotebook(30),
    // After the restart and the probe's rerun: its error, and errors from before the restart.
    "rerun.ipynb": JSON.parse(readFileSync(path.join(ROOT, "tests/cases/probe-rerun.ipynb"), "utf8")),
  };
}

function certificate() {
  const dir = mkdtempSync(path.join(tmpdir(), "fa-cert-"));
  const key = path.join(dir, "key.pem");
  const cert = path.join(dir, "cert.pem");
  execFileSync("openssl", [
    "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-keyout", key, "-out", cert,
    "-subj", `/CN=${COLAB}`, "-addext", `subjectAltName=DNS:${COLAB},DNS:*.googleusercontent.com,DNS:localhost`,
  ], { stdio: "ignore" });
  return { key: readFileSync(key), cert: readFileSync(cert) };
}

const listen = (srv, host = "127.0.0.1") => new Promise((r) => srv.listen(0, host, () => r(srv.address().port)));

/**
 * Starts the hosts; resolves to { colabPort, jupyterPort, chromiumArgs, close, requests, nbs,
 * and the fixture URLs }; `requests` logs every request the servers got.
 */
export async function startHosts() {
  const nbs = notebooks();
  const tls = certificate();
  const requests = [];
  const nonce = "fx" + Math.random().toString(36).slice(2);
  // One HTTPS server plays every host, by the Host header.
  const colab = https(tls, (req, res) => {
    const host = (req.headers.host || "").split(":")[0];
    requests.push(`https://${host}${req.url}`);
    const u = new URL(req.url, `https://${host}`);
    if (host === COLAB) {
      const name = decodeURIComponent(u.pathname.replace(/^\/drive\//, ""));
      const nb = nbs[name];
      if (!nb) return res.writeHead(404).end("no such notebook");
      res.writeHead(200, colabHeaders(nonce, { coop: u.searchParams.get("coop") === "1" }));
      // Colab as it is in 2026: ?page=full|partial (the page-world notebook), ?virtual=0,1,2
      // (cells out of the DOM), ?framed=2 (streams in the outputframe), ?end=1 (scrolled down).
      const list = (k) => (u.searchParams.get(k) || "").split(",").filter(Boolean).map(Number);
      return res.end(
        colabTop(nb, {
          name,
          frameOrigin: `https://${FRAME_HOST}`,
          nonce,
          model: u.searchParams.get("model") !== "0",
          evilFrames: u.searchParams.get("evilframes") === "1",
          page: u.searchParams.get("page"),
          virtual: list("virtual"),
          framedStreams: list("framed"),
          scrollToEnd: u.searchParams.get("end") === "1",
        }),
      );
    }
    if (host === FRAME_HOST) {
      const nb = nbs[u.searchParams.get("nb")];
      if (u.pathname !== "/outputframe.html" || !nb) return res.writeHead(404).end("not found");
      const evil = u.searchParams.get("evil") === "1";
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": evil ? "script-src 'unsafe-inline'; object-src 'none'" : "script-src 'none'; object-src 'none'" });
      return res.end(colabFrame(nb, Number(u.searchParams.get("c")), Number(u.searchParams.get("o")), { evil }));
    }
    if (host === KAGGLE) {
      // Kaggle's editor page frames JupyterLab served from the proxy host (?windowed=1: its
      // cells virtualised, as Kaggle's are).
      const name = decodeURIComponent(u.pathname.replace(/^\/code\//, ""));
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      return res.end(`<!doctype html><title>Kaggle</title><body><div class="editor"><iframe src="https://${KAGGLE_PROXY}/k/${encodeURIComponent(name)}${u.search}" width="100%" height="900"></iframe></div></body>`);
    }
    if (host === KAGGLE_PROXY) {
      const name = decodeURIComponent(u.pathname.replace(/^\/k\//, ""));
      if (!nbs[name]) return res.writeHead(404).end("not found");
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      return res.end(jupyterlab(nbs[name], name, { windowed: u.searchParams.get("windowed") === "1" }));
    }
    res.writeHead(404).end("unknown host");
  });
  const jupyter = http((req, res) => {
    requests.push(`http://localhost${req.url}`);
    const u = new URL(req.url, "http://localhost");
    const [, kind, ...rest] = u.pathname.split("/");
    const name = decodeURIComponent(rest.join("/").replace(/^tree\//, ""));
    const nb = nbs[name];
    if (!nb) return res.writeHead(404).end("not found");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(kind === "lab" ? jupyterlab(nb, name, { windowed: u.searchParams.get("windowed") === "1" }) : classic(nb, name));
  });
  const [colabPort, jupyterPort] = [await listen(colab), await listen(jupyter)];
  return {
    colabPort,
    jupyterPort,
    requests,
    nbs,
    chromiumArgs: [
      `--host-resolver-rules=${[COLAB, FRAME_HOST, KAGGLE, KAGGLE_PROXY].map((h) => `MAP ${h}:443 127.0.0.1:${colabPort}`).join(",")}`,
      "--ignore-certificate-errors",
    ],
    colabUrl: (name, query = "") => `https://${COLAB}/drive/${encodeURIComponent(name)}${query}`,
    labUrl: (name, query = "") => `http://localhost:${jupyterPort}/lab/tree/${encodeURIComponent(name)}${query}`,
    classicUrl: (name) => `http://localhost:${jupyterPort}/notebooks/${encodeURIComponent(name)}`,
    kaggleUrl: (name, query = "") => `https://${KAGGLE}/code/${encodeURIComponent(name)}${query}`,
    close() {
      colab.close();
      jupyter.close();
    },
  };
}
