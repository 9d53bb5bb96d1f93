#include "views/lessonpresenter.h"

#include "state/lessondocument.h"
#include "widgets/fittingscrollarea.h"
#include "widgets/playbar.h"
#include "widgets/plotpane.h"

#include <QApplication>
#include <QDockWidget>
#include <QKeyEvent>
#include <QLabel>
#include <QMainWindow>
#include <QMenuBar>
#include <QScreen>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <QToolBar>

#include <optional>
#include <utility>

namespace pe {

namespace {

QToolBar *presentationBar(const QString &name, QWidget *parent)
{
    auto *bar = new QToolBar(parent);
    bar->setObjectName(name);
    bar->setMovable(false);
    bar->setFloatable(false);
    bar->toggleViewAction()->setVisible(false);
    bar->hide();
    return bar;
}

enum class KeyAction { Next, Previous, First, Last, Play, Leave, Larger, Smaller };

// The presentation's keys: a clicker's (Page Up / Down, arrows), a keyboard's, and Ctrl+= /
// Ctrl+- for the text size (those two only with Ctrl, so that typing "-" is never one).
std::optional<KeyAction> keyAction(int key, Qt::KeyboardModifiers modifiers)
{
    static const std::pair<int, KeyAction> keys[] = {
        {Qt::Key_Right, KeyAction::Next},
        {Qt::Key_Down, KeyAction::Next},
        {Qt::Key_PageDown, KeyAction::Next},
        {Qt::Key_Space, KeyAction::Next},
        {Qt::Key_N, KeyAction::Next},
        {Qt::Key_Left, KeyAction::Previous},
        {Qt::Key_Up, KeyAction::Previous},
        {Qt::Key_PageUp, KeyAction::Previous},
        {Qt::Key_Backspace, KeyAction::Previous},
        {Qt::Key_P, KeyAction::Previous},
        {Qt::Key_Home, KeyAction::First},
        {Qt::Key_End, KeyAction::Last},
        {Qt::Key_Return, KeyAction::Play},
        {Qt::Key_Enter, KeyAction::Play},
        {Qt::Key_Escape, KeyAction::Leave},
        {Qt::Key_Equal, KeyAction::Larger},
        {Qt::Key_Plus, KeyAction::Larger},
        {Qt::Key_Minus, KeyAction::Smaller},
    };
    for (const auto &[k, action] : keys)
        if (k == key) {
            const bool sizing = action == KeyAction::Larger || action == KeyAction::Smaller;
            if (sizing && !(modifiers & Qt::ControlModifier))
                return std::nullopt;
            return action;
        }
    return std::nullopt;
}

} // namespace

LessonPresenter::LessonPresenter(QMainWindow *window, QTabWidget *pages, LessonDocument *document,
                                 StepOpener open)
    : QObject(window), m_window(window), m_pages(pages), m_document(document),
      m_open(std::move(open)),
      m_top(presentationBar(QStringLiteral("presentationTitleBar"), window)),
      m_bottom(presentationBar(QStringLiteral("presentationCaptionBar"), window)),
      m_title(new QLabel(m_top)), m_counter(new QLabel(m_top)), m_caption(new QLabel(m_bottom))
{
    setObjectName(QStringLiteral("lessonPresenter"));
    m_title->setObjectName(QStringLiteral("presentationTitle"));
    m_title->setWordWrap(true);
    m_title->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_counter->setObjectName(QStringLiteral("presentationCounter"));
    m_caption->setObjectName(QStringLiteral("presentationCaption"));
    m_caption->setWordWrap(true);
    m_caption->setTextFormat(Qt::RichText); // lessonCaptionHtml: *emphasis*, line breaks
    m_caption->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    m_caption->setMargin(8);
    m_title->setMargin(8);
    m_top->addWidget(m_title);
    m_top->addWidget(m_counter);
    m_bottom->addWidget(m_caption);
    window->addToolBar(Qt::TopToolBarArea, m_top);
    // The caption on a row of its own right under the figure, above the Motion bar.
    if (auto *motion = window->findChild<PlayBar *>()) {
        window->insertToolBar(motion, m_bottom);
        window->insertToolBarBreak(motion);
    } else {
        window->addToolBar(Qt::BottomToolBarArea, m_bottom);
    }
}

void LessonPresenter::start(int index)
{
    if (m_presenting || m_document->stepCount() == 0)
        return;
    m_presenting = true;
    m_geometry = m_window->geometry();
    m_wasFullScreen = m_window->isFullScreen();
    m_wasMaximized = m_window->isMaximized();
    m_hidden.clear();
    QList<QWidget *> chrome{m_window->menuBar(), m_window->statusBar(), m_pages->tabBar()};
    for (QToolBar *bar : m_window->findChildren<QToolBar *>())
        if (bar != m_top && bar != m_bottom)
            chrome.append(bar);
    for (QDockWidget *dock : m_window->findChildren<QDockWidget *>())
        chrome.append(dock);
    for (FittingScrollArea *panel : m_window->findChildren<FittingScrollArea *>())
        chrome.append(panel);
    // Nothing of the window on a slide (issue 46.7): a view's tabs (the Schemes page's, the model
    // phrases'), the hover readouts and hints; the step chooses the view.
    for (QTabBar *tabs : m_pages->findChildren<QTabBar *>())
        chrome.append(tabs);
    for (QWidget *widget : m_window->findChildren<QWidget *>())
        if (isWindowControl(widget))
            chrome.append(widget);
    // Not isVisible(): a panel on another page is not visible now but shows when a step
    // opens that page; what was not hidden on purpose is hidden, and shown again by stop().
    for (QWidget *widget : chrome)
        if (!widget->isHidden()) {
            m_hidden.append(widget);
            widget->hide();
        }
    // No page's least size may make the slide taller than the screen (at 1024 x 600 the pages'
    // largest least height, another page's, made the presented window 633 px high): the page
    // shown gets what the title, caption and Motion bar leave, its figure clipped at worst.
    m_policies.clear();
    for (int i = 0; i < m_pages->count(); ++i) {
        QWidget *page = m_pages->widget(i);
        m_policies.append({page, page->sizePolicy()});
        page->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Ignored);
    }
    m_top->show();
    m_bottom->show();
    // Without a window manager (a kiosk, Xvfb) nothing resizes a full-screen window: the
    // screen's geometry first, then the full-screen state.
    if (const QScreen *screen = m_window->screen())
        m_window->setGeometry(screen->geometry());
    m_window->showFullScreen();
    qApp->installEventFilter(this);
    updateFonts();
    showStep(qBound(0, index, m_document->stepCount() - 1));
}

void LessonPresenter::stop()
{
    if (!m_presenting)
        return;
    m_presenting = false;
    qApp->removeEventFilter(this);
    if (auto *bar = m_window->findChild<PlayBar *>())
        bar->pause();
    m_top->hide();
    m_bottom->hide();
    for (const QPointer<QWidget> &widget : std::as_const(m_hidden))
        if (widget)
            widget->show();
    m_hidden.clear();
    for (const auto &[page, policy] : std::as_const(m_policies))
        if (page)
            page->setSizePolicy(policy);
    m_policies.clear();
    // The window exactly as it was (issue 46). Its own rectangle, not restoreGeometry(): that
    // moves a window at the screen's top edge down by a title bar where there is no window
    // manager (a kiosk, Xvfb).
    if (m_wasFullScreen) {
        m_window->showFullScreen();
    } else if (m_wasMaximized) {
        m_window->showMaximized();
    } else {
        m_window->showNormal();
        m_window->setGeometry(m_geometry);
    }
    emit finished(m_step);
}

void LessonPresenter::showStep(int index)
{
    if (!m_presenting || index < 0 || index >= m_document->stepCount())
        return;
    m_step = index;
    const LessonStep &step = m_document->step(index);
    m_title->setText(step.title);
    m_counter->setText(QStringLiteral("%1 / %2").arg(index + 1).arg(m_document->stepCount()));
    QString problem;
    const bool opened = m_open(index, &problem);
    m_caption->setText(lessonCaptionHtml(
        opened ? step.caption : tr("This step cannot be shown: %1").arg(problem)));
    auto *bar = m_window->findChild<PlayBar *>();
    if (bar) {
        bar->pause();
        // The Motion bar shows (scrub, pause) only for a step that animates.
        const bool animates = opened && step.animation.has_value();
        bar->setVisible(animates);
        if (animates) {
            AnimationOptions options;
            options.parameter = step.animation->parameter;
            options.from = step.animation->from;
            options.to = step.animation->to;
            QString error;
            if (bar->setAnimation(options, &error))
                // The slide starts where the exported step's video starts (issue 46.7): frame 0,
                // the range's first value, not the state's own (the rotation's p = 12 of a sweep
                // from 0, the base at the end of a sweep from 100), which Enter played from.
                bar->setStep(0);
            else
                m_caption->setText(lessonCaptionHtml(step.caption + QStringLiteral("\n(") + error +
                                                     QLatin1Char(')')));
        }
    }
    emit stepShown(index);
}

void LessonPresenter::playAnimation()
{
    auto *bar = m_window->findChild<PlayBar *>();
    if (!bar || !bar->isVisible())
        return;
    bar->isPlaying() ? bar->pause() : bar->play();
}

void LessonPresenter::updateFonts()
{
    const QScreen *screen = m_window->screen();
    const int height = screen ? screen->geometry().height() : 720;
    QFont title = m_window->font();
    title.setPixelSize(qMax(12, int(height / 22.0 * m_textScale)));
    title.setBold(true);
    m_title->setFont(title);
    m_counter->setFont(title);
    QFont caption = m_window->font();
    caption.setPixelSize(qMax(10, int(height / 34.0 * m_textScale)));
    m_caption->setFont(caption);
    // A wrapped label asks for the height its text needs at a narrow width; at the screen's
    // width it needs far less, and the figure gets the rest (a long caption at most a third).
    const int width = screen ? screen->geometry().width() : m_window->width();
    m_caption->setFixedWidth(qMax(100, width - 24));
    m_caption->setMaximumHeight(height / 3);
    const int titleWidth = qMax(100, width - m_counter->sizeHint().width() - 48);
    m_title->setMaximumWidth(titleWidth);
    // One title band for the whole talk (issue 46.7): as tall as the longest title needs at
    // this width, so the figure does not jump between a one-line and a two-line title.
    const QFontMetrics metrics(title);
    int band = metrics.height();
    for (int i = 0; i < m_document->stepCount(); ++i)
        band =
            qMax(band, metrics
                           .boundingRect(QRect(0, 0, titleWidth - 2 * m_title->margin(), 1 << 20),
                                         int(Qt::TextWordWrap), m_document->step(i).title)
                           .height());
    m_title->setFixedHeight(band + 2 * m_title->margin());
}

bool LessonPresenter::handleKey(int key, Qt::KeyboardModifiers modifiers)
{
    const std::optional<KeyAction> action = keyAction(key, modifiers);
    if (!action)
        return false;
    switch (*action) {
    case KeyAction::Next:
        next();
        break;
    case KeyAction::Previous:
        previous();
        break;
    case KeyAction::First:
        showStep(0);
        break;
    case KeyAction::Last:
        showStep(m_document->stepCount() - 1);
        break;
    case KeyAction::Play:
        playAnimation();
        break;
    case KeyAction::Leave:
        stop();
        break;
    case KeyAction::Larger:
    case KeyAction::Smaller:
        m_textScale =
            qBound(0.5, m_textScale * (*action == KeyAction::Smaller ? 1 / 1.25 : 1.25), 4.0);
        updateFonts();
        break;
    }
    return true;
}

bool LessonPresenter::eventFilter(QObject *watched, QEvent *event)
{
    if (!m_presenting || !watched->isWidgetType())
        return false;
    if (event->type() != QEvent::ShortcutOverride && event->type() != QEvent::KeyPress)
        return false;
    auto *key = static_cast<QKeyEvent *>(event);
    if (!keyAction(key->key(), key->modifiers()))
        return false;
    // Claim the key before the window's shortcuts see it (Escape cancels a computation,
    // Ctrl+= zooms the window): while presenting, these keys are the presentation's.
    if (event->type() == QEvent::ShortcutOverride) {
        event->accept();
        return true;
    }
    // One key press arrives at several receivers (the focus widget and its parents): act once.
    if (watched != QApplication::focusWidget() && QApplication::focusWidget())
        return false;
    return handleKey(key->key(), key->modifiers());
}

} // namespace pe
