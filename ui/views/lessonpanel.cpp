#include "views/lessonpanel.h"

#include "fields/wholenumber.h"
#include "state/lessondocument.h"

#include <QAbstractItemModel>
#include <QAction>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSignalBlocker>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace pe {

namespace {

QString animationText(const LessonStep &step)
{
    if (!step.animation)
        return QObject::tr("none"); // how to give it one: the label's and Take's tooltips
    const LessonAnimation &a = *step.animation;
    QString text = a.parameter;
    if (a.from && a.to)
        text += QStringLiteral(" %1 → %2").arg(numberText(*a.from), numberText(*a.to));
    return text + QObject::tr(", %1 frames").arg(a.frames);
}

QToolButton *toolButton(const QString &text, const QString &tip, QWidget *parent)
{
    auto *button = new QToolButton(parent);
    button->setText(text);
    button->setToolTip(tip);
    return button;
}

} // namespace

LessonPanel::LessonPanel(LessonDocument *document, QWidget *parent)
    : QWidget(parent), m_document(document), m_title(new QLineEdit(this)),
      m_steps(new QListWidget(this)), m_stepTitle(new QLineEdit(this)),
      m_caption(new QPlainTextEdit(this)), m_animation(new QLabel(this)),
      m_clearAnimation(toolButton(tr("Clear"), tr("The step plays no animation"), this))
{
    setObjectName(QStringLiteral("lessonPanel"));
    m_title->setObjectName(QStringLiteral("lessonTitle"));
    m_title->setPlaceholderText(tr("Lesson title"));
    m_title->setMaxLength(200);
    m_steps->setObjectName(QStringLiteral("lessonSteps"));
    m_steps->setDragDropMode(QAbstractItemView::InternalMove);
    m_steps->setToolTip(tr("The lesson's steps: double click or Enter opens one; drag or "
                           "Alt+Up / Alt+Down reorders"));
    m_stepTitle->setObjectName(QStringLiteral("lessonStepTitle"));
    m_stepTitle->setMaxLength(200);
    m_caption->setObjectName(QStringLiteral("lessonCaption"));
    m_caption->setPlaceholderText(
        tr("Caption: plain text, *emphasis*, math as text: PE(p, 2i) = sin(p / 10000^(2i/d))"));
    m_caption->setTabChangesFocus(true);
    m_animation->setObjectName(QStringLiteral("lessonAnimation"));
    // One line: a wrapped second line was cut in half at 1280 x 720 (issue 46.8).
    m_animation->setToolTip(tr("What the step plays when presented: “Take” gives it what the "
                               "Motion bar plays now, “Clear” removes it"));

    auto *add = toolButton(tr("Add"), tr("Add the current view as a step (Ctrl+Shift+A)"), this);
    auto *duplicate = toolButton(tr("Duplicate"), tr("Duplicate the selected step"), this);
    auto *remove = toolButton(tr("Delete"), tr("Delete the selected step (Delete)"), this);
    auto *up = toolButton(tr("Up"), tr("Move the selected step up (Alt+Up)"), this);
    auto *down = toolButton(tr("Down"), tr("Move the selected step down (Alt+Down)"), this);
    auto *present = toolButton(tr("Present"), tr("Present the lesson full screen (F5)"), this);
    auto *take = toolButton(tr("Take"), tr("The step plays what the Motion bar plays now"), this);
    // Two rows of three: in one row of six the panel took 360 of 1280 px and the Phrases
    // figures beside it were tiny with cut titles (issue 46.8); at 1024 x 600 the window could
    // not be narrower than 1100 px.
    auto *buttons = new QGridLayout;
    QToolButton *const order[] = {add, duplicate, remove, up, down, present};
    for (int i = 0; i < 6; ++i)
        buttons->addWidget(order[i], i / 3, i % 3);
    buttons->setColumnStretch(3, 1);
    // The animation's text on a row of its own under Take and Clear, the panel's whole width:
    // beside them "position 22 → 200, 179 frames" made the panel 373 px wide at least, and the
    // window at 1024 x 600 1,111 px (issue 46.8).
    auto *animationRow = new QHBoxLayout;
    animationRow->addWidget(take);
    animationRow->addWidget(m_clearAnimation);
    animationRow->addStretch(1);
    auto *form = new QFormLayout;
    form->addRow(tr("Step title"), m_stepTitle);
    form->addRow(tr("Caption"), m_caption);
    form->addRow(tr("Animation"), animationRow);
    form->addRow(m_animation);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_title);
    layout->addLayout(buttons);
    layout->addWidget(m_steps, 1);
    layout->addLayout(form);

    // Keys that act on the list while it has focus.
    const auto listAction = [this](const QKeySequence &key, auto slot) {
        auto *action = new QAction(m_steps);
        action->setShortcut(key);
        action->setShortcutContext(Qt::WidgetShortcut);
        connect(action, &QAction::triggered, this, slot);
        m_steps->addAction(action);
    };
    listAction(QKeySequence(Qt::ALT | Qt::Key_Up), [this] { moveSelected(-1); });
    listAction(QKeySequence(Qt::ALT | Qt::Key_Down), [this] { moveSelected(1); });
    listAction(QKeySequence(Qt::Key_Delete), [this] { m_document->removeStep(currentStep()); });
    listAction(QKeySequence(Qt::Key_Return), [this] {
        if (currentStep() >= 0)
            emit openRequested(currentStep());
    });

    connect(add, &QToolButton::clicked, this, &LessonPanel::addRequested);
    connect(duplicate, &QToolButton::clicked, this,
            [this] { m_document->duplicateStep(currentStep()); });
    connect(remove, &QToolButton::clicked, this, [this] { m_document->removeStep(currentStep()); });
    connect(up, &QToolButton::clicked, this, [this] { moveSelected(-1); });
    connect(down, &QToolButton::clicked, this, [this] { moveSelected(1); });
    connect(present, &QToolButton::clicked, this,
            [this] { emit presentRequested(qMax(0, currentStep())); });
    connect(take, &QToolButton::clicked, this, &LessonPanel::animationRequested);
    connect(m_clearAnimation, &QToolButton::clicked, this,
            [this] { m_document->setStepAnimation(currentStep(), std::nullopt); });
    connect(m_title, &QLineEdit::textEdited, m_document, &LessonDocument::setTitle);
    connect(m_stepTitle, &QLineEdit::textEdited, this,
            [this](const QString &text) { m_document->setStepTitle(currentStep(), text); });
    connect(m_caption, &QPlainTextEdit::textChanged, this, [this] {
        if (!m_updating)
            m_document->setStepCaption(currentStep(), m_caption->toPlainText());
    });
    connect(m_steps, &QListWidget::currentRowChanged, this, &LessonPanel::showStep);
    connect(m_steps, &QListWidget::itemDoubleClicked, this,
            [this](QListWidgetItem *item) { emit openRequested(m_steps->row(item)); });
    connect(m_steps->model(), &QAbstractItemModel::rowsMoved, this, &LessonPanel::stepsDropped);
    connect(m_document, &LessonDocument::changed, this, &LessonPanel::rebuild);
    rebuild();
}

QSize LessonPanel::sizeHint() const
{
    return {std::max(minimumSizeHint().width(), 250), QWidget::sizeHint().height()};
}

int LessonPanel::currentStep() const
{
    return m_steps->currentRow();
}

void LessonPanel::setCurrentStep(int index)
{
    m_steps->setCurrentRow(index);
}

void LessonPanel::rebuild()
{
    m_updating = true;
    const int keep = m_steps->currentRow();
    // Clearing and refilling the list moves its current row through -1: no showStep() for
    // those, or the caption being typed would be emptied and set again (the cursor to its start).
    const QSignalBlocker block(m_steps);
    if (m_title->text() != m_document->lesson().title)
        m_title->setText(m_document->lesson().title);
    m_steps->clear();
    for (int i = 0; i < m_document->stepCount(); ++i) {
        const LessonStep &step = m_document->step(i);
        auto *item = new QListWidgetItem(QStringLiteral("%1. %2").arg(i + 1).arg(step.title));
        item->setToolTip(tr("View: %1").arg(step.view));
        m_steps->addItem(item);
    }
    m_steps->setCurrentRow(qMin(keep, m_document->stepCount() - 1));
    m_updating = false;
    showStep(m_steps->currentRow());
}

void LessonPanel::showStep(int index)
{
    const bool valid = index >= 0 && index < m_document->stepCount();
    m_stepTitle->setEnabled(valid);
    m_caption->setEnabled(valid);
    m_clearAnimation->setEnabled(valid);
    const bool updating = m_updating;
    m_updating = true;
    const LessonStep empty;
    const LessonStep &step = valid ? m_document->step(index) : empty;
    if (m_stepTitle->text() != step.title)
        m_stepTitle->setText(step.title);
    // Only a caption that differs is set: setting the same text would move the cursor while
    // the user types (each keystroke rebuilds the panel).
    if (m_caption->toPlainText() != step.caption)
        m_caption->setPlainText(step.caption);
    m_animation->setText(valid ? animationText(step) : QString());
    m_updating = updating;
}

void LessonPanel::moveSelected(int delta)
{
    const int from = currentStep();
    const int to = from + delta;
    if (from < 0 || to < 0 || to >= m_document->stepCount())
        return;
    m_document->moveStep(from, to);
    m_steps->setCurrentRow(to);
}

void LessonPanel::stepsDropped()
{
    if (m_updating)
        return;
    // The list moved one row; find it by comparing the list's order with the document's.
    QList<int> order;
    for (int row = 0; row < m_steps->count(); ++row) {
        const QString text = m_steps->item(row)->text();
        order.append(text.section(QLatin1Char('.'), 0, 0).toInt() - 1);
    }
    QList<int> identity;
    for (int row = 0; row < order.size(); ++row)
        identity.append(row);
    for (int row = 0; row < order.size(); ++row) {
        if (order[row] == row)
            continue;
        // The first row out of place holds a step moved up to it, or the step that was there
        // moved down: whichever single move gives the list's order.
        QList<int> up = identity;
        up.move(order[row], row);
        const int source = up == order ? order[row] : row;
        const int target = up == order ? row : int(order.indexOf(row));
        // Let the list finish its drop before the document rebuilds it.
        QMetaObject::invokeMethod(
            this,
            [this, source, target] {
                m_document->moveStep(source, target);
                m_steps->setCurrentRow(target);
            },
            Qt::QueuedConnection);
        return;
    }
}

} // namespace pe
