#!/usr/bin/env python3
"""Opens a cudacheck HTML report in a real browser (headless Chromium) and says what the browser saw.

Usage: check_html_in_browser.py REPORT.html [--png OUT.png] [--expect-chart TITLE ...] [--expect-section ID ...]

The browser is driven through the Chrome DevTools Protocol over a pipe (--remote-debugging-pipe:
JSON messages ended by a NUL byte on file descriptors 3 and 4), so nothing beyond Python's standard
library and Debian's chromium-headless-shell (or chromium) is needed. It records:
  - every console message of level error or warning, every uncaught exception and every entry of
    the browser's own log (a blocked fetch, a Content-Security-Policy violation);
  - every request the page makes beyond the report file itself (the report must fetch nothing);
  - the charts (svg.chart) with their titles and drawn size, and the sections (section[id]).
It prints one JSON object with all of that, writes a full-page PNG where --png says, and exits 0
when the page loaded with no error, no request and every expected chart and section present and
drawn; 1 otherwise; 77 (CTest's skip) when no headless Chromium is installed.
"""
import argparse
import base64
import json
import os
import pathlib
import select
import shutil
import subprocess
import sys
import tempfile
import time

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
TIMEOUT_S = 60


def find_browser():
    override = os.environ.get("CUDACHECK_BROWSER")
    if override:
        return override if shutil.which(override) else None
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class DevTools:
    """A Chrome DevTools Protocol connection over the browser's pipe."""

    def __init__(self, browser, profile):
        to_browser_read, self.to_browser = os.pipe()
        self.from_browser, from_browser_write = os.pipe()
        arguments = [browser, "--headless", "--remote-debugging-pipe", "--no-sandbox", "--disable-gpu",
                     "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                     "--disable-background-networking", "--disable-component-update",
                     f"--user-data-dir={profile}", "about:blank"]
        # The browser reads commands on descriptor 3 and writes answers and events on 4.
        os.dup2(to_browser_read, 103)
        os.dup2(from_browser_write, 104)
        self.process = subprocess.Popen(
            arguments, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            pass_fds=(3, 4), preexec_fn=lambda: (os.dup2(103, 3), os.dup2(104, 4)))
        for descriptor in (103, 104, to_browser_read, from_browser_write):
            os.close(descriptor)
        self.buffer = b""
        self.next_id = 0
        self.events = []
        self.deadline = time.monotonic() + TIMEOUT_S

    def close(self):
        try:
            self.send("Browser.close", wait=False)
        except OSError:
            pass
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        stderr = self.process.stderr.read().decode(errors="replace") if self.process.stderr else ""
        os.close(self.to_browser)
        os.close(self.from_browser)
        return stderr

    def _read_message(self):
        while b"\0" not in self.buffer:
            remaining = self.deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"the browser did not answer within {TIMEOUT_S} s")
            ready, _, _ = select.select([self.from_browser], [], [], remaining)
            if not ready:
                continue
            chunk = os.read(self.from_browser, 1 << 16)
            if not chunk:
                raise EOFError("the browser closed its pipe (it exited)")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def send(self, method, params=None, session=None, wait=True):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_browser, json.dumps(message).encode() + b"\0")
        if not wait:
            return None
        while True:
            answer = self._read_message()
            if answer.get("id") == self.next_id:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method):
        for index, event in enumerate(self.events):
            if event.get("method") == method:
                return self.events.pop(index)
        while True:
            event = self._read_message()
            if event.get("method") == method:
                return event
            self.events.append(event)


# Run in the page once it has loaded: what was drawn.
INSPECT_PAGE = """(() => {
  const charts = [...document.querySelectorAll('svg.chart')].map(svg => {
    const box = svg.getBoundingClientRect();
    const title = svg.querySelector('title');
    return {title: title ? title.textContent : '', width: box.width, height: box.height,
            marks: svg.querySelectorAll('path.line, rect.bar, circle.mark').length};
  });
  const sections = [...document.querySelectorAll('section[id]')].map(section => section.id);
  return JSON.stringify({title: document.title, charts, sections,
                         height: document.documentElement.scrollHeight, bytes: document.documentElement.outerHTML.length});
})()"""


def inspect(report_path, png_path):
    browser = find_browser()
    if browser is None:
        print("SKIPPED: no headless Chromium (chromium-headless-shell or chromium) is installed")
        sys.exit(77)
    report_url = pathlib.Path(report_path).resolve().as_uri()
    with tempfile.TemporaryDirectory(prefix="cudacheck-browser-") as profile:
        tools = DevTools(browser, profile)
        try:
            target = tools.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            session = tools.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Page", "Runtime", "Log", "Network"):
                tools.send(f"{domain}.enable", session=session)
            tools.send("Emulation.setDeviceMetricsOverride",
                       {"width": 1240, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=session)
            tools.send("Page.navigate", {"url": report_url}, session=session)
            tools.wait_for("Page.loadEventFired")
            page = json.loads(tools.send("Runtime.evaluate", {"expression": INSPECT_PAGE, "returnByValue": True},
                                         session=session)["result"]["value"])
            if png_path:
                height = max(900, min(int(page["height"]), 16000))
                tools.send("Emulation.setDeviceMetricsOverride",
                           {"width": 1240, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=session)
                shot = tools.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=session)
                pathlib.Path(png_path).write_bytes(base64.b64decode(shot["data"]))
            # Let late messages (a blocked fetch is logged after the load) arrive.
            tools.send("Runtime.evaluate", {"expression": "new Promise(r => setTimeout(r, 300))", "awaitPromise": True},
                       session=session)
        finally:
            browser_stderr = tools.close()
    problems, requests = [], []
    for event in tools.events:
        method, params = event.get("method"), event.get("params", {})
        if method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "warning", "assert"):
            problems.append("console " + params["type"] + ": " + " ".join(str(a.get("value", a.get("description", "")))
                                                                        for a in params.get("args", [])))
        elif method == "Runtime.exceptionThrown":
            problems.append("exception: " + params.get("exceptionDetails", {}).get("text", ""))
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") in ("error", "warning"):
            entry = params["entry"]
            problems.append(f"log {entry['level']} ({entry.get('source')}): {entry.get('text')} {entry.get('url', '')}".strip())
        elif method == "Network.requestWillBeSent":
            url = params.get("request", {}).get("url", "")
            if url != report_url:
                requests.append(url)
    page.update({"browser": browser, "problems": problems, "requests": requests,
                 "browser_stderr_lines": len(browser_stderr.splitlines())})
    return page


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report")
    parser.add_argument("--png")
    parser.add_argument("--expect-chart", action="append", default=[], help="a chart whose title starts with this")
    parser.add_argument("--expect-section", action="append", default=[])
    arguments = parser.parse_args()
    try:
        page = inspect(arguments.report, arguments.png)
    except (OSError, EOFError, TimeoutError, RuntimeError, KeyError, ValueError) as error:
        print(json.dumps({"failure": f"{type(error).__name__}: {error}"}))
        return 1
    failures = list(page["problems"]) + [f"request: {url}" for url in page["requests"]]
    for expected in arguments.expect_chart:
        drawn = [chart for chart in page["charts"] if chart["title"].startswith(expected)]
        if not drawn:
            failures.append(f"no chart titled '{expected}...'")
        for chart in drawn:
            if chart["width"] < 100 or chart["height"] < 50 or chart["marks"] == 0:
                failures.append(f"chart '{chart['title']}' is not drawn ({chart['width']:.0f}x{chart['height']:.0f} px, {chart['marks']} marks)")
    for expected in arguments.expect_section:
        if expected not in page["sections"]:
            failures.append(f"no section '{expected}'")
    page["failures"] = failures
    print(json.dumps(page, indent=1))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
