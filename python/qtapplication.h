// The Qt application the module needs for figures (Qt Widgets draw them) and for the GPU backend
// (an offscreen surface): started the first time one is needed, on Qt's offscreen platform, so
// that no display is needed and no window ever opens; or the one the process already has.
#pragma once

namespace pe::python {

// Starts a QApplication on the offscreen platform unless the process has a Qt application.
void startQt();

// startQt(), then checks that figures can be drawn here: the application is a QApplication and
// this is the thread it runs on. RuntimeError otherwise.
void requireFigureThread();

} // namespace pe::python
