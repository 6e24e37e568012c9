//! A small static file server for the page (`make serve`): the right MIME types (`.wasm` as
//! `application/wasm`, which streaming compilation requires), the page's Content-Security-Policy
//! as a header too (with `frame-ancestors`, which a meta tag cannot set), no caching, and no
//! path outside the root. Standard library only; one thread per connection.
//!
//! Usage: cargo run --release --example serve -- [--root www] [--host 127.0.0.1] [--port 8000]
//! (`--print-csp` prints the policy and exits.)
//! `--port 0` picks a free port. The first line on stdout is the address.

use std::fs;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// The page's policy (as in index.html), plus who may frame it: the hosts of embedded mode.
const CSP: &str = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; \
connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; \
frame-ancestors 'self' https://colab.research.google.com https://www.kaggle.com https://kaggle.com https://*.jupyter-proxy.kaggle.net http://localhost:* http://127.0.0.1:*";

fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("").to_ascii_lowercase().as_str() {
        "html" | "htm" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" | "map" => "application/json",
        "ipynb" => "application/x-ipynb+json",
        "log" | "txt" | "md" | "ts" => "text/plain; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "webmanifest" => "application/manifest+json",
        _ => "application/octet-stream",
    }
}

/// `%xx`-decodes a URL path; `None` for malformed escapes or bytes that are not UTF-8.
fn percent_decode(s: &str) -> Option<String> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' {
            let hex = std::str::from_utf8(b.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// The file a request path names under `root`, refusing anything that could leave it.
fn resolve(root: &Path, target: &str) -> Option<PathBuf> {
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let path = percent_decode(path)?;
    if path.contains('\0') || path.contains('\\') {
        return None;
    }
    let rel = Path::new(path.trim_start_matches('/'));
    if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return None;
    }
    let mut full = root.join(rel);
    if full.is_dir() {
        full.push("index.html");
    }
    Some(full)
}

fn respond(stream: &mut TcpStream, status: &str, headers: &[(&str, &str)], body: &[u8], head_only: bool) {
    let mut h = format!("HTTP/1.1 {status}\r\nContent-Length: {}\r\nConnection: close\r\n", body.len());
    for (k, v) in headers {
        h.push_str(&format!("{k}: {v}\r\n"));
    }
    h.push_str("\r\n");
    let _ = stream.write_all(h.as_bytes());
    if !head_only {
        let _ = stream.write_all(body);
    }
}

fn handle(root: &Path, mut stream: TcpStream) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() || line.len() > 8192 {
        return;
    }
    // Drain the headers (bounded); the server needs none of them.
    let mut header = String::new();
    for _ in 0..100 {
        header.clear();
        match reader.read_line(&mut header) {
            Ok(0) | Err(_) => break,
            Ok(_) if header == "\r\n" || header == "\n" => break,
            Ok(_) => {}
        }
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let text = [("Content-Type", "text/plain; charset=utf-8")];
    if method != "GET" && method != "HEAD" {
        return respond(
            &mut stream,
            "405 Method Not Allowed",
            &[("Allow", "GET, HEAD"), text[0]],
            b"method not allowed\n",
            false,
        );
    }
    let head_only = method == "HEAD";
    let Some(path) = resolve(root, target) else {
        return respond(&mut stream, "400 Bad Request", &text, b"bad path\n", head_only);
    };
    match fs::read(&path) {
        Ok(body) => respond(
            &mut stream,
            "200 OK",
            &[
                ("Content-Type", mime(&path)),
                ("Cache-Control", "no-cache"),
                ("X-Content-Type-Options", "nosniff"),
                ("Referrer-Policy", "no-referrer"),
                ("Content-Security-Policy", CSP),
            ],
            &body,
            head_only,
        ),
        Err(_) => respond(&mut stream, "404 Not Found", &text, b"not found\n", head_only),
    }
}

fn main() {
    let mut root = PathBuf::from("www");
    let mut host = "127.0.0.1".to_string();
    let mut port: u16 = 8000;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--print-csp" {
            // The one copy of the policy: make dist writes it into the site's _headers.
            println!("{CSP}");
            return;
        }
        let value = args.next();
        match (a.as_str(), value) {
            ("--root", Some(v)) => root = PathBuf::from(v),
            ("--host", Some(v)) => host = v,
            ("--port", Some(v)) => port = v.parse().unwrap_or_else(|_| die(&format!("bad port `{v}`"))),
            _ => die(&format!("unknown or incomplete argument `{a}`")),
        }
    }
    if !root.join("index.html").is_file() {
        die(&format!("{} has no index.html (run `make web` first)", root.display()));
    }
    let listener = TcpListener::bind((host.as_str(), port))
        .unwrap_or_else(|e| die(&format!("cannot listen on {host}:{port}: {e}")));
    let addr = listener.local_addr().unwrap_or_else(|e| die(&e.to_string()));
    println!("first-assert: serving {} at http://{addr}/  (Ctrl-C stops)", root.display());
    let _ = std::io::stdout().flush();
    let root = Arc::new(root);
    for stream in listener.incoming().flatten() {
        let root = Arc::clone(&root);
        std::thread::spawn(move || handle(&root, stream));
    }
}

fn die(msg: &str) -> ! {
    eprintln!("serve: {msg}");
    std::process::exit(2);
}
