"""The X11 calls the monkey test needs that xdotool does not make, through ctypes and Xlib
(libX11.so.6, which xdotool itself depends on): a _NET_WM_PING to a window, answered only by the
client's main thread once it is back in its event loop, and a window's top-level frames.

_NET_WM_PING (EWMH, "Window Manager Protocols"): a ClientMessage of type WM_PROTOCOLS with
data.l = [_NET_WM_PING, timestamp, window] sent to the window; the client sends it back to the
root window. Qt's xcb plugin answers in QXcbWindow::handleClientMessageEvent, on the GUI thread,
for every top-level window that lists _NET_WM_PING in WM_PROTOCOLS (all of Qt's do); Qt 6 sends
the reply with StructureNotify | SubstructureRedirect, other toolkits with SubstructureNotify, so
the root is watched for both.
"""

import ctypes
import ctypes.util
import select
import time

_lib = ctypes.cdll.LoadLibrary(ctypes.util.find_library("X11") or "libX11.so.6")

Display_p = ctypes.c_void_p
Window = ctypes.c_ulong
Atom = ctypes.c_ulong

CLIENT_MESSAGE = 33
STRUCTURE_NOTIFY_MASK = 1 << 17
SUBSTRUCTURE_NOTIFY_MASK = 1 << 19


class XClientMessageEvent(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("serial", ctypes.c_ulong),
        ("send_event", ctypes.c_int),
        ("display", Display_p),
        ("window", Window),
        ("message_type", Atom),
        ("format", ctypes.c_int),
        ("l", ctypes.c_long * 5),
    ]


class XEvent(ctypes.Union):
    _fields_ = [("type", ctypes.c_int), ("xclient", XClientMessageEvent), ("pad", ctypes.c_long * 24)]


_lib.XOpenDisplay.restype = Display_p
_lib.XOpenDisplay.argtypes = [ctypes.c_char_p]
_lib.XCloseDisplay.argtypes = [Display_p]
_lib.XDefaultRootWindow.restype = Window
_lib.XDefaultRootWindow.argtypes = [Display_p]
_lib.XInternAtom.restype = Atom
_lib.XInternAtom.argtypes = [Display_p, ctypes.c_char_p, ctypes.c_int]
_lib.XSelectInput.argtypes = [Display_p, Window, ctypes.c_long]
_lib.XSendEvent.argtypes = [Display_p, Window, ctypes.c_int, ctypes.c_long, ctypes.POINTER(XEvent)]
_lib.XFlush.argtypes = [Display_p]
_lib.XPending.argtypes = [Display_p]
_lib.XNextEvent.argtypes = [Display_p, ctypes.POINTER(XEvent)]
_lib.XConnectionNumber.argtypes = [Display_p]
_lib.XSync.argtypes = [Display_p, ctypes.c_int]
_lib.XGetInputFocus.argtypes = [Display_p, ctypes.POINTER(Window), ctypes.POINTER(ctypes.c_int)]
_lib.XGetGeometry.argtypes = [Display_p, Window, ctypes.POINTER(Window)] + \
    [ctypes.POINTER(ctypes.c_int)] * 2 + [ctypes.POINTER(ctypes.c_uint)] * 4
_lib.XTranslateCoordinates.argtypes = [Display_p, Window, Window, ctypes.c_int, ctypes.c_int,
                                       ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int),
                                       ctypes.POINTER(Window)]
# Errors (a window that went away between finding it and pinging it) are reported, not fatal.
_ERROR_HANDLER = ctypes.CFUNCTYPE(ctypes.c_int, Display_p, ctypes.c_void_p)(lambda d, e: 0)
_lib.XSetErrorHandler(_ERROR_HANDLER)


class Connection:
    """One connection to `display` (":7"), selecting StructureNotify and SubstructureNotify on
    the root window so that ping replies, which clients send to the root, reach it."""

    def __init__(self, display):
        self._dpy = _lib.XOpenDisplay(display.encode())
        if not self._dpy:
            raise RuntimeError(f"cannot open X display {display}")
        self.root = _lib.XDefaultRootWindow(self._dpy)
        self._protocols = _lib.XInternAtom(self._dpy, b"WM_PROTOCOLS", 0)
        self._ping = _lib.XInternAtom(self._dpy, b"_NET_WM_PING", 0)
        _lib.XSelectInput(self._dpy, self.root, STRUCTURE_NOTIFY_MASK | SUBSTRUCTURE_NOTIFY_MASK)
        _lib.XSync(self._dpy, 0)
        self._serial = int(time.time()) & 0x7FFFFFFF

    def close(self):
        if self._dpy:
            _lib.XCloseDisplay(self._dpy)
            self._dpy = None

    def focus(self):
        """The window with the input focus; None for none (or PointerRoot)."""
        window, revert = Window(), ctypes.c_int()
        _lib.XGetInputFocus(self._dpy, ctypes.byref(window), ctypes.byref(revert))
        return window.value if window.value > 1 else None

    def geometry(self, window):
        """(x, y, width, height) of `window` on the screen; None when it is gone."""
        root, x, y = Window(), ctypes.c_int(), ctypes.c_int()
        width, height, border, depth = (ctypes.c_uint() for _ in range(4))
        if not _lib.XGetGeometry(self._dpy, window, ctypes.byref(root), ctypes.byref(x),
                                 ctypes.byref(y), ctypes.byref(width), ctypes.byref(height),
                                 ctypes.byref(border), ctypes.byref(depth)):
            return None
        child = Window()
        if not _lib.XTranslateCoordinates(self._dpy, window, self.root, 0, 0, ctypes.byref(x),
                                          ctypes.byref(y), ctypes.byref(child)):
            return None
        return x.value, y.value, width.value, height.value

    def ping(self, window, timeout):
        """Seconds until `window`'s client answered a _NET_WM_PING, or None after `timeout`."""
        self._serial = (self._serial + 1) & 0x7FFFFFFF
        event = XEvent()
        event.xclient.type = CLIENT_MESSAGE
        event.xclient.window = window
        event.xclient.message_type = self._protocols
        event.xclient.format = 32
        event.xclient.l[0] = self._ping
        event.xclient.l[1] = self._serial
        event.xclient.l[2] = window
        start = time.monotonic()
        _lib.XSendEvent(self._dpy, window, 0, 0, ctypes.byref(event))
        _lib.XFlush(self._dpy)
        fd = _lib.XConnectionNumber(self._dpy)
        reply = XEvent()
        while True:
            while _lib.XPending(self._dpy):
                _lib.XNextEvent(self._dpy, ctypes.byref(reply))
                c = reply.xclient
                if (reply.type == CLIENT_MESSAGE and c.message_type == self._protocols
                        and c.l[0] == self._ping and c.l[1] == self._serial):
                    return time.monotonic() - start
            left = timeout - (time.monotonic() - start)
            if left <= 0:
                return None
            select.select([fd], [], [], min(left, 0.5))
