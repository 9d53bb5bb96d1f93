// MainWindow: the explorer window (the full explorer arrives with the explorer issue).
#pragma once

#include <QMainWindow>

namespace pe {

class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget *parent = nullptr);
};

} // namespace pe
