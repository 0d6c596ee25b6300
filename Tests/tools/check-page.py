#!/usr/bin/env python3
"""Checks the page `cairn export` leaves beside its files (index.html) in headless Chromium.

    check-page.py PATH/index.html [--screenshot OUT.png] [--width 360] [--chromium PATH]

Loads the page from file:// in a phone-sized window (--width CSS pixels, scale 1) through the
Chrome DevTools protocol over a pipe (--remote-debugging-pipe: no port, no websocket library),
and checks that:
  - the page loads (its load event fires) and holds no <script>;
  - every link resolves to an existing file;
  - every picture decodes with a non-zero size (naturalWidth, naturalHeight) and draws (drawn into
    a canvas, it leaves pixels that are not white);
  - nothing is fetched from outside (every request is file:, data: or about:);
  - at the given width nothing overflows sideways (no horizontal scrolling).
Writes a full-page screenshot at that width with --screenshot. Prints a JSON summary; exits 1 with
the reasons on stderr when a check fails, 2 when Chromium cannot be run.
"""
import argparse
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

# Run in the page after it loaded (this script's, the page has none): what the checks need.
PROBE = r"""
(async () => {
  const out = {scripts: document.scripts.length, title: document.title,
               scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
               bodyScrollWidth: document.body ? document.body.scrollWidth : 0,
               links: [], images: [], trips: document.querySelectorAll('article.trip').length};
  for (const a of document.querySelectorAll('a[href]')) out.links.push(a.href);
  // Pictures load lazily (loading="lazy"): one below the fold would never load, and its
  // decode() never settle; every one is asked for now, so every one is checked.
  for (const img of document.querySelectorAll('img')) img.loading = 'eager';
  for (const img of document.querySelectorAll('img')) {
    const r = {src: img.src, complete: img.complete, naturalWidth: img.naturalWidth,
               naturalHeight: img.naturalHeight, shownWidth: img.getBoundingClientRect().width,
               decoded: false, inked: 0, error: null};
    try {
      await img.decode();
      r.decoded = true;
      // Read again once decoded: a picture that was still loading had no size before.
      r.complete = img.complete; r.naturalWidth = img.naturalWidth; r.naturalHeight = img.naturalHeight;
      r.shownWidth = img.getBoundingClientRect().width;
      const w = Math.min(img.naturalWidth, 400), h = Math.max(1, Math.round(w * img.naturalHeight / Math.max(img.naturalWidth, 1)));
      const c = document.createElement('canvas');
      c.width = w; c.height = h;
      const g = c.getContext('2d');
      g.fillStyle = '#ffffff'; g.fillRect(0, 0, w, h);
      g.drawImage(img, 0, 0, w, h);
      const d = g.getImageData(0, 0, w, h).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240) n++;
      r.inked = n;
    } catch (e) { r.error = String(e); }
    out.images.push(r);
  }
  return JSON.stringify(out);
})()
"""


class DevTools:
    """The DevTools protocol over --remote-debugging-pipe: JSON messages ending in NUL, commands
    to Chromium's fd 3, answers and events from its fd 4."""

    def __init__(self, chromium, args):
        to_child_r, self.to_child = os.pipe()
        self.from_child, from_child_w = os.pipe()

        def fds():  # in the child: the pipe's ends onto fds 3 and 4, whatever numbers they had
            r, w = os.dup(to_child_r), os.dup(from_child_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        # pass_fds keeps 3 and 4 open through close_fds, which runs after preexec_fn.
        self.proc = subprocess.Popen([chromium] + args, pass_fds=(3, 4), preexec_fn=fds,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        os.close(to_child_r)
        os.close(from_child_w)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.to_child, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def read(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                raise TimeoutError("no answer from chromium")
            chunk = os.read(self.from_child, 1 << 16)
            if not chunk:
                raise EOFError("chromium closed the pipe: " + self.proc.stderr.read().decode(errors="replace")[-2000:])
            self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def call(self, method, params=None, session=None, timeout=30):
        i = self.send(method, params, session)
        deadline = time.time() + timeout
        while True:
            m = self.read(deadline)
            if m.get("id") == i:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=30):
        deadline = time.time() + timeout
        for k, m in enumerate(self.events):
            if m.get("method") == method:
                return self.events.pop(k)
        while True:
            m = self.read(deadline)
            self.events.append(m)
            if m.get("method") == method:
                return self.events.pop()

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()


def find_chromium(given):
    for c in [given, "chromium", "chromium-browser", "google-chrome"]:
        if c and shutil.which(c):
            return shutil.which(c)
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--screenshot")
    ap.add_argument("--width", type=int, default=360)
    ap.add_argument("--height", type=int, default=740)
    ap.add_argument("--chromium")
    a = ap.parse_args()
    chromium = find_chromium(a.chromium)
    if not chromium:
        print("check-page: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    page = os.path.abspath(a.page)
    if not os.path.isfile(page):
        print(f"check-page: {page}: no such file", file=sys.stderr)
        return 1
    url = "file://" + urllib.request.pathname2url(page)
    profile = tempfile.mkdtemp(prefix="check-page-")
    args = ["--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-sync", "--disable-background-networking",
            "--disable-component-update", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
            # file:// pages are each their own origin; this lets the probe read back the pixels
            # a picture drew into its canvas (the page itself needs no such thing).
            "--allow-file-access-from-files",
            f"--user-data-dir={profile}", "about:blank"]
    problems = []
    summary = {}
    dt = None
    try:
        dt = DevTools(chromium, args)
        target = dt.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = dt.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        dt.call("Page.enable", session=s)
        dt.call("Network.enable", session=s)
        dt.call("Emulation.setDeviceMetricsOverride",
                {"width": a.width, "height": a.height, "deviceScaleFactor": 1, "mobile": True}, session=s)
        nav = dt.call("Page.navigate", {"url": url}, session=s)
        if nav.get("errorText"):
            problems.append(f"the page did not load: {nav['errorText']}")
        dt.wait_event("Page.loadEventFired", timeout=30)
        r = dt.call("Runtime.evaluate", {"expression": PROBE, "awaitPromise": True, "returnByValue": True}, session=s)
        if "exceptionDetails" in r:
            raise RuntimeError(f"probe failed: {r['exceptionDetails']}")
        probe = json.loads(r["result"]["value"])
        # Every request the page made (the events gathered while we waited).
        requests = [m["params"]["request"]["url"] for m in dt.events if m.get("method") == "Network.requestWillBeSent"]
        failed = [m["params"] for m in dt.events if m.get("method") == "Network.loadingFailed"]
        if a.screenshot:
            metrics = dt.call("Page.getLayoutMetrics", session=s)
            size = metrics.get("cssContentSize") or metrics["contentSize"]
            shot = dt.call("Page.captureScreenshot",
                           {"format": "png", "captureBeyondViewport": True,
                            "clip": {"x": 0, "y": 0, "width": a.width, "height": size["height"], "scale": 1}},
                           session=s, timeout=60)
            with open(a.screenshot, "wb") as f:
                f.write(base64.b64decode(shot["data"]))
            summary["screenshot"] = a.screenshot
            summary["screenshot_height"] = size["height"]
    except (EOFError, TimeoutError, RuntimeError, OSError) as e:
        print(f"check-page: chromium: {e}", file=sys.stderr)
        return 2
    finally:
        if dt:
            dt.close()
        shutil.rmtree(profile, ignore_errors=True)

    if probe["scripts"]:
        problems.append(f"{probe['scripts']} script element(s) in the page")
    outside = [u for u in requests if not u.startswith(("file:", "data:", "about:"))]
    for u in outside:
        problems.append(f"fetched from outside: {u}")
    for f in failed:
        problems.append(f"a request failed: {f.get('errorText')} ({f.get('requestId')})")
    missing = []
    for link in probe["links"]:
        p = urllib.parse.urlparse(link)
        if p.scheme != "file":
            problems.append(f"a link leads outside the folder: {link}")
            continue
        path = urllib.request.url2pathname(p.path)
        if not os.path.isfile(path):
            missing.append(path)
            problems.append(f"a link leads to no file: {link}")
    for img in probe["images"]:
        if not img["decoded"] or img["naturalWidth"] <= 0 or img["naturalHeight"] <= 0:
            problems.append(f"a picture does not decode: {img['src']} ({img['error']}, {img['naturalWidth']}x{img['naturalHeight']})")
        elif img["inked"] < 100:
            problems.append(f"a picture draws nothing: {img['src']} ({img['inked']} pixels not white)")
        if img["shownWidth"] <= 0:
            problems.append(f"a picture is shown 0 px wide: {img['src']}")
    overflow = max(probe["scrollWidth"], probe["bodyScrollWidth"]) - probe["innerWidth"]
    if overflow > 0:
        problems.append(f"scrolls sideways at {a.width} px: content {probe['scrollWidth']} px wide, window {probe['innerWidth']} px")
    summary.update({
        "url": url, "title": probe["title"], "trips": probe["trips"], "links": len(probe["links"]),
        "images": [{k: i[k] for k in ("src", "naturalWidth", "naturalHeight", "shownWidth", "inked")} for i in probe["images"]],
        "requests": len(requests), "outside": outside, "scroll_width": probe["scrollWidth"], "width": probe["innerWidth"],
        "problems": problems,
    })
    print(json.dumps(summary, indent=1))
    for p in problems:
        print("check-page: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
