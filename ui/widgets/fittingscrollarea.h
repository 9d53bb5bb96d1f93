// FittingScrollArea: a vertical scroll area for a panel of controls that is always as wide as
// its widest row needs, so it never shows a horizontal scroll bar (two scroll bars at
// 1280 x 720) and never clips a field. It follows the panel when rows appear or widen (a scheme
// with more fields, a Schemes tab with other controls).
#pragma once

#include <QScrollArea>

namespace pe {

class FittingScrollArea : public QScrollArea
{
    Q_OBJECT
public:
    // Takes `panel` (widgetResizable); `minimumWidth` is the least width it keeps.
    FittingScrollArea(QWidget *panel, int minimumWidth, QWidget *parent = nullptr);

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    int fittingWidth() const;
    int m_minimumWidth;
};

} // namespace pe
