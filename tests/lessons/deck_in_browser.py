#!/usr/bin/env python3
"""Opens an HTML deck (`pescope lesson export`) in headless Chromium and steps it with keys.

Usage: deck_in_browser.py CHROMIUM INDEX_HTML SCREENSHOT_PNG

Starts Chromium with its DevTools protocol on a free port, sends real key events
(Input.dispatchKeyEvent: what a keyboard or a presentation clicker sends) and prints, one line
each, the key and the id of the step shown after it; saves a screenshot of the last step.
Only the standard library: a small WebSocket client (RFC 6455, text frames) speaks the protocol.
"""
import base64
import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.request


class DevTools:
    def __init__(self, ws_url):
        host_port, path = ws_url[len("ws://"):].split("/", 1)
        host, port = host_port.split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /{path} HTTP/1.1\r\nHost: {host_port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                           "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        response = b""
        while b"\r\n\r\n" not in response:
            response += self.sock.recv(4096)
        if b" 101 " not in response.split(b"\r\n")[0]:
            raise RuntimeError(f"no WebSocket upgrade: {response[:200]!r}")
        self.buffer = response.split(b"\r\n\r\n", 1)[1]
        self.next_id = 0

    def _recv_exact(self, n):
        while len(self.buffer) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise RuntimeError("DevTools closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def _send(self, text):
        payload = text.encode()
        mask = os.urandom(4)
        header = bytes([0x81])
        if len(payload) < 126:
            header += bytes([0x80 | len(payload)])
        elif len(payload) < 65536:
            header += bytes([0x80 | 126]) + struct.pack(">H", len(payload))
        else:
            header += bytes([0x80 | 127]) + struct.pack(">Q", len(payload))
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(header + mask + masked)

    def _recv_message(self):
        message = b""
        while True:
            first, second = self._recv_exact(2)
            length = second & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._recv_exact(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._recv_exact(8))[0]
            message += self._recv_exact(length)
            if first & 0x80:
                return json.loads(message)

    def call(self, method, **params):
        self.next_id += 1
        self._send(json.dumps({"id": self.next_id, "method": method, "params": params}))
        while True:
            reply = self._recv_message()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})


KEY_CODES = {"ArrowRight": 39, "ArrowLeft": 37, "Home": 36, "End": 35, "PageUp": 33,
             "PageDown": 34}


def main():
    chromium, index, screenshot = sys.argv[1:4]
    profile = tempfile.mkdtemp(prefix="pescope-chromium-")
    browser = subprocess.Popen(
        [chromium, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run",
         "--remote-debugging-port=0", f"--user-data-dir={profile}", "--window-size=1280,720",
         "about:blank"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        port_file = os.path.join(profile, "DevToolsActivePort")
        deadline = time.monotonic() + 60
        while not os.path.exists(port_file) or not open(port_file).read().strip():
            if time.monotonic() > deadline or browser.poll() is not None:
                raise RuntimeError("Chromium did not open its DevTools port")
            time.sleep(0.1)
        port = open(port_file).read().split()[0]
        pages = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(p for p in pages if p.get("type") == "page")
        tools = DevTools(page["webSocketDebuggerUrl"])
        tools.call("Page.enable")
        tools.call("Page.navigate", url="file://" + os.path.abspath(index))

        def shown():
            return tools.call("Runtime.evaluate", expression=(
                "document.querySelector('section.step.current') ? "
                "document.querySelector('section.step.current').id : 'none'"))["result"]["value"]

        deadline = time.monotonic() + 30
        while shown() == "none":
            if time.monotonic() > deadline:
                raise RuntimeError("the deck shows no step")
            time.sleep(0.1)
        print("start", shown())
        for key in ["ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft", "Home", "End",
                    "PageUp"]:
            for kind in ("keyDown", "keyUp"):
                tools.call("Input.dispatchKeyEvent", type=kind, key=key, code=key,
                           windowsVirtualKeyCode=KEY_CODES[key])
            print(key, shown())
        shot = tools.call("Page.captureScreenshot", format="png")
        with open(screenshot, "wb") as f:
            f.write(base64.b64decode(shot["data"]))
    finally:
        browser.terminate()
        try:
            browser.wait(10)
        except subprocess.TimeoutExpired:
            browser.kill()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
