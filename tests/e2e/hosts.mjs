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
import { colabTop, colabHeaders, colabFrame, jupyterlab, classic, longNotebook, hostileNotebook } from "./fixtures.mjs";
import { WWW } from "./lib.mjs";

export const COLAB = "colab.research.google.com";
export const FRAME_HOST = "fx-496ff2e9c6d22116-0-colab.googleusercontent.com";

/** The notebooks the fixtures render, by name. */
export function notebooks() {
  const demo = (f) => JSON.parse(readFileSync(path.join(WWW, "demo", f), "utf8"));
  return {
    "labels.ipynb": demo("colab-nll-labels.ipynb"),
    "echoes.ipynb": demo("echoes-later-cells.ipynb"),
    "long.ipynb": longNotebook(100),
    "hostile.ipynb": hostileNotebook(),
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
 * Starts the hosts; resolves to { colabPort, framePort, jupyterPort, chromiumArgs, close,
 * requests } where `requests` logs every request the servers got.
 */
export async function startHosts() {
  const nbs = notebooks();
  const tls = certificate();
  const requests = [];
  const nonce = "fx" + Math.random().toString(36).slice(2);
  const colab = https(tls, (req, res) => {
    requests.push(`https://${COLAB}${req.url}`);
    const u = new URL(req.url, `https://${COLAB}`);
    const name = decodeURIComponent(u.pathname.replace(/^\/drive\//, ""));
    const nb = nbs[name];
    if (!nb) return res.writeHead(404).end("no such notebook");
    res.writeHead(200, colabHeaders(nonce, { coop: u.searchParams.get("coop") === "1" }));
    res.end(colabTop(nb, { name, frameOrigin: `https://${FRAME_HOST}`, nonce, model: u.searchParams.get("model") !== "0" }));
  });
  const frames = https(tls, (req, res) => {
    requests.push(`https://${FRAME_HOST}${req.url}`);
    const u = new URL(req.url, `https://${FRAME_HOST}`);
    const nb = nbs[u.searchParams.get("nb")];
    if (u.pathname !== "/outputframe.html" || !nb) return res.writeHead(404).end("not found");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8", "Content-Security-Policy": "script-src 'none'; object-src 'none'" });
    res.end(colabFrame(nb, Number(u.searchParams.get("c")), Number(u.searchParams.get("o"))));
  });
  const jupyter = http((req, res) => {
    requests.push(`http://localhost${req.url}`);
    const u = new URL(req.url, "http://localhost");
    const [, kind, ...rest] = u.pathname.split("/");
    const name = decodeURIComponent(rest.join("/").replace(/^tree\//, ""));
    const nb = nbs[name];
    if (!nb) return res.writeHead(404).end("not found");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(kind === "lab" ? jupyterlab(nb, name) : classic(nb, name));
  });
  const [colabPort, framePort, jupyterPort] = [await listen(colab), await listen(frames), await listen(jupyter)];
  return {
    colabPort,
    framePort,
    jupyterPort,
    requests,
    nbs,
    chromiumArgs: [
      `--host-resolver-rules=MAP ${COLAB}:443 127.0.0.1:${colabPort},MAP ${FRAME_HOST}:443 127.0.0.1:${framePort}`,
      "--ignore-certificate-errors",
    ],
    colabUrl: (name, query = "") => `https://${COLAB}/drive/${encodeURIComponent(name)}${query}`,
    labUrl: (name) => `http://localhost:${jupyterPort}/lab/tree/${encodeURIComponent(name)}`,
    classicUrl: (name) => `http://localhost:${jupyterPort}/notebooks/${encodeURIComponent(name)}`,
    close() {
      colab.close();
      frames.close();
      jupyter.close();
    },
  };
}
