#include "widgets/compactcombo.h"

#include <QAbstractItemView>
#include <QComboBox>
#include <QEvent>
#include <QFontMetrics>
#include <QObject>
#include <QStyle>
#include <QStyleOptionComboBox>
#include <QStylePainter>

namespace pe {

namespace {

// The properties holding the tooltip a combo box had of its own, and marking the tooltips set
// here.
constexpr char ownToolTip[] = "pe_ownToolTip";
constexpr char settingToolTip[] = "pe_settingToolTip";

// The list as wide as its widest choice (and never narrower than the box).
void fitPopup(QComboBox *combo)
{
    const QFontMetrics metrics(combo->view()->font());
    int widest = 0;
    for (int i = 0; i < combo->count(); ++i)
        widest = qMax(widest, metrics.horizontalAdvance(combo->itemText(i)));
    // The item's margins and a vertical scroll bar's width, in the style's own measures.
    const QStyle *style = combo->view()->style();
    const int margins = 2 * style->pixelMetric(QStyle::PM_FocusFrameHMargin) +
                        style->pixelMetric(QStyle::PM_ScrollBarExtent) +
                        2 * metrics.averageCharWidth();
    combo->view()->setMinimumWidth(widest + margins);
}

void updateToolTip(QComboBox *combo)
{
    const QString own = combo->property(ownToolTip).toString();
    const QString tip = !comboTextCut(combo) ? own
                        : own.isEmpty()      ? combo->currentText()
                                             : combo->currentText() + QStringLiteral("\n\n") + own;
    combo->setProperty(settingToolTip, true);
    combo->setToolTip(tip);
    combo->setProperty(settingToolTip, false);
}

// QComboBox::paintEvent with comboShownText() for the current choice.
void paintShortened(QComboBox *combo)
{
    QStylePainter painter(combo);
    painter.setPen(combo->palette().color(QPalette::Text));
    QStyleOptionComboBox option;
    option.initFrom(combo);
    option.editable = false;
    option.frame = combo->hasFrame();
    option.subControls = QStyle::SC_All;
    if (combo->view()->isVisible())
        option.state |= QStyle::State_On;
    option.currentIcon = combo->itemIcon(combo->currentIndex());
    option.iconSize = combo->iconSize();
    painter.drawComplexControl(QStyle::CC_ComboBox, option);
    option.currentText = comboShownText(combo);
    painter.drawControl(QStyle::CE_ComboBoxLabel, option);
}

// Follows the box's width: a tooltip only where the choice is cut.
class CompactComboWatcher : public QObject
{
public:
    using QObject::QObject;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override
    {
        auto *combo = qobject_cast<QComboBox *>(watched);
        if (combo && event->type() == QEvent::Paint && !combo->isEditable() &&
            comboTextCut(combo)) {
            paintShortened(combo);
            return true;
        }
        if (combo && (event->type() == QEvent::Resize || event->type() == QEvent::FontChange))
            updateToolTip(combo);
        if (combo && event->type() == QEvent::ToolTipChange &&
            !combo->property(settingToolTip).toBool()) {
            // Someone else set a tooltip: it becomes the box's own.
            combo->setProperty(ownToolTip, combo->toolTip());
            updateToolTip(combo);
        }
        return QObject::eventFilter(watched, event);
    }
};

} // namespace

namespace {

int fieldWidth(const QComboBox *combo)
{
    QStyleOptionComboBox option;
    option.initFrom(combo);
    option.editable = combo->isEditable();
    option.currentText = combo->currentText();
    return combo->style()
        ->subControlRect(QStyle::CC_ComboBox, &option, QStyle::SC_ComboBoxEditField, combo)
        .width();
}

} // namespace

bool comboTextCut(const QComboBox *combo)
{
    return combo->fontMetrics().horizontalAdvance(combo->currentText()) > fieldWidth(combo);
}

QString comboShownText(const QComboBox *combo)
{
    QString text = combo->currentText();
    const int room = fieldWidth(combo);
    const QFontMetrics metrics = combo->fontMetrics();
    if (combo->isEditable() || metrics.horizontalAdvance(text) <= room)
        return text;
    if (const qsizetype open = text.indexOf(QStringLiteral(" (")); open > 0) {
        QString plain = text.left(open);
        if (metrics.horizontalAdvance(plain) <= room)
            return plain;
    }
    return metrics.elidedText(text, Qt::ElideRight, room);
}

void makeCompact(QComboBox *combo, int characters)
{
    if (!combo || combo->property(ownToolTip).isValid())
        return;
    combo->setProperty(ownToolTip, combo->toolTip());
    // A length set before (the phrase pickers' 8) stays; choices all shorter than `characters`
    // (the colormaps' names) take no more than the longest.
    if (combo->sizeAdjustPolicy() != QComboBox::AdjustToMinimumContentsLengthWithIcon ||
        combo->minimumContentsLength() <= 0) {
        qsizetype longest = 1;
        for (int i = 0; i < combo->count(); ++i)
            longest = qMax(longest, combo->itemText(i).size());
        combo->setMinimumContentsLength(int(qMin<qsizetype>(characters, longest)));
    }
    combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    fitPopup(combo);
    updateToolTip(combo);
    const auto refit = [combo] {
        fitPopup(combo);
        updateToolTip(combo);
    };
    QAbstractItemModel *model = combo->model();
    QObject::connect(model, &QAbstractItemModel::rowsInserted, combo, refit);
    QObject::connect(model, &QAbstractItemModel::rowsRemoved, combo, refit);
    QObject::connect(model, &QAbstractItemModel::dataChanged, combo, refit);
    QObject::connect(model, &QAbstractItemModel::modelReset, combo, refit);
    QObject::connect(combo, &QComboBox::currentIndexChanged, combo,
                     [combo] { updateToolTip(combo); });
    combo->installEventFilter(new CompactComboWatcher(combo));
}

} // namespace pe
