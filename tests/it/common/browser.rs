//! A headless Chromium driven through ChromeDriver's W3C WebDriver HTTP API (plain JSON over
//! HTTP on 127.0.0.1 with the crate's own `reqwest`), for the HTML report's browser tests.
//! Chromium runs with a fresh profile and its background connections off: this machine's
//! closed network refuses them otherwise.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

const CHROMIUM: &str = "/usr/bin/chromium";
const CHROMEDRIVER: &str = "chromedriver";
/// The W3C id of an element in a response.
const ELEMENT: &str = "element-6066-11e4-a52e-4f735466cecf";

/// One browser session; the driver and the browser end with it.
pub(crate) struct Browser {
    driver: Child,
    base: String,
    client: reqwest::Client,
    runtime: tokio::runtime::Runtime,
    _profile: tempfile::TempDir,
}

/// A port nobody listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port on 127.0.0.1")
        .port()
}

impl Browser {
    /// Starts ChromeDriver on a free port and a headless Chromium session in it, its window
    /// 1280×900 (the browser's frame included). Panics, naming `bash scripts/test-deps.sh`, when either is missing.
    pub(crate) fn start() -> Browser {
        Browser::start_window(1280, 900)
    }

    /// [`Browser::start`] with a viewport of `width`×`height` pixels: what an operator's screen
    /// shows of a page (the window is made larger by what the browser's own frame takes).
    pub(crate) fn start_sized(width: u32, height: u32) -> Browser {
        let browser = Browser::start_window(width, height);
        let inner = browser.execute("return [window.innerWidth, window.innerHeight];", json!([]));
        let frame = |i: usize, asked: u32| {
            let got = inner[i]
                .as_u64()
                .unwrap_or_else(|| panic!("no viewport size: {inner}"));
            u64::from(asked) * 2 - got
        };
        let (outer_width, outer_height) = (frame(0, width), frame(1, height));
        browser.call(
            "POST",
            "/window/rect",
            Some(json!({"width": outer_width, "height": outer_height})),
        );
        browser
    }

    /// A session whose window (the browser's frame included) is `width`×`height` pixels.
    fn start_window(width: u32, height: u32) -> Browser {
        assert!(
            Path::new(CHROMIUM).exists(),
            "{CHROMIUM} is missing: install the test dependencies with `bash scripts/test-deps.sh`"
        );
        let port = free_port();
        let driver = Command::new(CHROMEDRIVER)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| {
                panic!("{CHROMEDRIVER}: {e}: install the test dependencies with `bash scripts/test-deps.sh`")
            });
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let profile = tempfile::tempdir().expect("a temporary profile directory");
        let mut browser = Browser {
            driver,
            base: format!("http://127.0.0.1:{port}"),
            client: {
                // reqwest takes the process's default TLS provider; there is none until one is installed.
                driftgate_http::tls::provider();
                reqwest::Client::new()
            },
            runtime,
            _profile: profile,
        };
        browser.wait_ready();
        let args = [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ]
        .map(str::to_owned)
        .into_iter()
        .chain([
            format!("--window-size={width},{height}"),
            format!("--user-data-dir={}", browser._profile.path().display()),
        ])
        .collect::<Vec<_>>();
        let capabilities = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": CHROMIUM, "args": args},
            "goog:loggingPrefs": {"browser": "ALL"},
        }}});
        let session = browser.call("POST", "/session", Some(capabilities));
        let id = session["sessionId"]
            .as_str()
            .unwrap_or_else(|| panic!("no session: {session}"))
            .to_owned();
        browser.base = format!("{}/session/{id}", browser.base);
        browser
    }

    /// Waits until the driver answers `/status` with ready (it starts in well under a
    /// second; the bound only keeps a broken driver from hanging the test).
    fn wait_ready(&mut self) {
        for _ in 0..200 {
            if let Some(status) = self.driver.try_wait().expect("the driver's status") {
                panic!("{CHROMEDRIVER} exited with {status}: see `bash scripts/test-deps.sh`");
            }
            let url = format!("{}/status", self.base);
            let ready = self
                .runtime
                .block_on(async { self.client.get(&url).send().await?.text().await });
            if let Ok(text) = ready
                && serde_json::from_str::<Value>(&text).is_ok_and(|v| v["value"]["ready"] == true)
            {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("{CHROMEDRIVER} did not become ready");
    }

    /// One WebDriver command: its `value`, or a panic with the driver's error.
    fn call(&self, method: &str, path: &str, body: Option<Value>) -> Value {
        let url = format!("{}{path}", self.base);
        let method = reqwest::Method::from_bytes(method.as_bytes()).expect("an HTTP method");
        let text = self
            .runtime
            .block_on(async {
                let mut request = self.client.request(method, &url);
                if let Some(body) = body {
                    request = request
                        .header("content-type", "application/json")
                        .body(body.to_string());
                }
                request.send().await?.text().await
            })
            .unwrap_or_else(|e| panic!("{url}: {e}"));
        let reply: Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{url}: {e}: {text}"));
        let value = reply["value"].clone();
        assert!(
            value.get("error").is_none(),
            "{url}: {}: {}",
            value["error"],
            value["message"]
        );
        value
    }

    /// Opens `url` and waits for it to load.
    pub(crate) fn goto(&self, url: &str) {
        self.call("POST", "/url", Some(json!({ "url": url })));
    }

    /// Runs `script` (a function body; `arguments` are `args`) and returns what it returns.
    pub(crate) fn execute(&self, script: &str, args: Value) -> Value {
        self.call(
            "POST",
            "/execute/sync",
            Some(json!({"script": script, "args": args})),
        )
    }

    /// The element `css` selects (the first).
    pub(crate) fn find(&self, css: &str) -> Element {
        let found = self.call(
            "POST",
            "/element",
            Some(json!({"using": "css selector", "value": css})),
        );
        let id = found[ELEMENT].as_str();
        Element(id.unwrap_or_else(|| panic!("{css}: {found}")).to_owned())
    }

    /// Clicks `element`.
    pub(crate) fn click(&self, element: &Element) {
        self.call(
            "POST",
            &format!("/element/{}/click", element.0),
            Some(json!({})),
        );
    }

    /// Types `text` into `element`.
    pub(crate) fn type_into(&self, element: &Element, text: &str) {
        self.call(
            "POST",
            &format!("/element/{}/value", element.0),
            Some(json!({ "text": text })),
        );
    }

    /// Empties the input `element`.
    pub(crate) fn clear(&self, element: &Element) {
        self.call(
            "POST",
            &format!("/element/{}/clear", element.0),
            Some(json!({})),
        );
    }

    /// A PNG of the viewport.
    pub(crate) fn screenshot(&self) -> Vec<u8> {
        use base64::Engine as _;
        let png = self.call("GET", "/screenshot", None);
        base64::engine::general_purpose::STANDARD
            .decode(png.as_str().expect("base64 text"))
            .expect("a base64 PNG")
    }

    /// The browser's console log since the last call (ChromeDriver's log endpoint).
    pub(crate) fn console(&self) -> Vec<Value> {
        let log = self.call("POST", "/se/log", Some(json!({"type": "browser"})));
        log.as_array().cloned().unwrap_or_default()
    }
}

/// An element of the page.
pub(crate) struct Element(String);

impl Drop for Browser {
    fn drop(&mut self) {
        let url = self.base.clone();
        let _ = self
            .runtime
            .block_on(async { self.client.delete(&url).send().await });
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

/// The width and height a PNG's header gives, if `bytes` is a PNG.
pub(crate) fn png_size(bytes: &[u8]) -> Option<(u32, u32)> {
    const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";
    if bytes.len() < 24 || !bytes.starts_with(SIGNATURE) || &bytes[12..16] != b"IHDR" {
        return None;
    }
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
    Some((be(16), be(20)))
}
