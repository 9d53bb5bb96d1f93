#include "mainwindow.h"

#include <QLabel>
#include <QStatusBar>

namespace pe {

MainWindow::MainWindow(QWidget *parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("pescope"));
    auto *placeholder = new QLabel(tr("pescope: positional encodings, up close."), this);
    placeholder->setAlignment(Qt::AlignCenter);
    setCentralWidget(placeholder);
    statusBar()->showMessage(tr("Ready"));
    resize(1000, 700);
}

} // namespace pe
