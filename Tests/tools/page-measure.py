#!/usr/bin/env python3
"""Measures the page (index.html) as riders see it, in headless Chromium (issue 42).

    page-measure.py PATH/index.html [--label TEXT] [--runs N] [--chromium PATH]

Loads the page from file:// N times at 360x740 (a phone: mobile, scale 1) and at 1280x800 (a
desktop), through check-page.py's DevTools pipe, and prints one line per width:
  - the page's size, the median time to its first contentful paint, DOMContentLoaded and load;
  - the pictures fetched by the load (lazy ones below the fold are not);
  - the smallest label of a loaded picture as shown: its SVG's smallest font-size times the
    shown width over the picture's own width (a 640 px picture shown 328 px wide halves it);
  - the first card's height and the tallest card's, and where the first figure ends (under the
    window's height: above the fold).
"""
import argparse
import importlib.util
import json
import os
import re
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request

spec = importlib.util.spec_from_file_location("check_page", os.path.join(os.path.dirname(os.path.abspath(__file__)), "check-page.py"))
check_page = importlib.util.module_from_spec(spec)
spec.loader.exec_module(check_page)

PROBE = r"""
(() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const fcp = performance.getEntriesByName('first-contentful-paint')[0];
  const cards = [...document.querySelectorAll('article.trip')].map(a => a.getBoundingClientRect().height);
  const dd = document.querySelector('article.trip dd');
  const imgs = [...document.querySelectorAll('img')].filter(i => i.complete && i.naturalWidth > 0)
    .map(i => ({src: i.src, natural: i.naturalWidth, shown: i.getBoundingClientRect().width}));
  return JSON.stringify({dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd, fcp: fcp ? fcp.startTime : null,
    cards: cards.length, firstCard: cards[0] || 0, tallestCard: Math.max(0, ...cards),
    figureBottom: dd ? dd.getBoundingClientRect().bottom + window.scrollY : null, loaded: imgs});
})()
"""


def smallest_font(path, cache={}):
    if path not in cache:
        svg = open(path, encoding="utf-8").read()
        sizes = [float(s) for s in re.findall(r'font-size="([0-9.]+)"', svg)]
        cache[path] = min(sizes) if sizes else None
    return cache[path]


def load(chromium, url, width, height):
    profile = tempfile.mkdtemp(prefix="page-measure-")
    args = ["--headless=new", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu", "--no-first-run",
            "--no-default-browser-check", "--disable-extensions", "--disable-sync", "--disable-background-networking",
            "--disable-component-update", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
            f"--user-data-dir={profile}", "about:blank"]
    dt = check_page.DevTools(chromium, args)
    try:
        target = dt.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        s = dt.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        dt.call("Page.enable", session=s)
        dt.call("Network.enable", session=s)
        dt.call("Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700}, session=s)
        dt.call("Page.navigate", {"url": url}, session=s)
        dt.wait_event("Page.loadEventFired", timeout=60)
        time.sleep(0.3)
        r = dt.call("Runtime.evaluate", {"expression": PROBE, "returnByValue": True}, session=s)
        probe = json.loads(r["result"]["value"])
        probe["fetched"] = sum(1 for m in dt.events if m.get("method") == "Network.requestWillBeSent"
                               and m["params"]["request"]["url"].endswith(".svg"))
        return probe
    finally:
        dt.close()
        shutil.rmtree(profile, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("page")
    ap.add_argument("--label", default="")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--chromium")
    a = ap.parse_args()
    chromium = check_page.find_chromium(a.chromium)
    if not chromium:
        print("page-measure: no chromium on PATH (apt-get install chromium)", file=sys.stderr)
        return 2
    page = os.path.abspath(a.page)
    url = "file://" + urllib.request.pathname2url(page)
    size = os.path.getsize(page)
    for width, height in [(360, 740), (1280, 800)]:
        runs = [load(chromium, url, width, height) for _ in range(a.runs)]
        p = runs[-1]
        labels = []
        for i in p["loaded"]:
            f = smallest_font(urllib.request.url2pathname(urllib.parse.urlparse(i["src"]).path))
            if f:
                labels.append(f * i["shown"] / i["natural"])
        med = lambda k: statistics.median(r[k] for r in runs if r[k] is not None)
        print(f"{a.label}: {width}x{height}: {p['cards']} cards, {size / 1024:.0f} KiB; first paint {med('fcp'):.0f} ms, "
              f"DOMContentLoaded {med('dcl'):.0f} ms, load {med('load'):.0f} ms (median of {a.runs}); "
              f"{p['fetched']} pictures fetched by the load; smallest label {min(labels) if labels else 0:.1f} px; "
              f"first card {p['firstCard']:.0f} px tall, tallest {p['tallestCard']:.0f} px; "
              f"first figure ends at {p['figureBottom']:.0f} px ({'above' if p['figureBottom'] <= height else 'below'} the fold)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
