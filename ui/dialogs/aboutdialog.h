// Help > About: pescope's icon, version, git revision, library versions and the CPU kernels in
// use (core/buildinfo.h, the same text as `pescope --version`), with a button to copy it.
#pragma once

#include <QDialog>
#include <QIcon>

namespace pe {

class AboutDialog : public QDialog
{
    Q_OBJECT
public:
    explicit AboutDialog(QWidget *parent = nullptr);
};

// The application icon, drawn from the SVGs in resources/icons (a 16 px grid drawing for the
// smallest sizes), for the window and the About dialog.
QIcon applicationIcon();

} // namespace pe
