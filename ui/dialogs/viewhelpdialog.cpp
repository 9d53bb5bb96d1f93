#include "dialogs/viewhelpdialog.h"

#include "dialogs/viewhelp.h"
#include "state/explorerstate.h"
#include "state/viewlist.h"
#include "widgets/screenfit.h"

#include <QDialogButtonBox>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>

namespace pe {

ViewHelpDialog::ViewHelpDialog(ExplorerState *state, std::function<QList<FigureView>()> views,
                               QWidget *parent)
    : QDialog(parent), m_state(state), m_views(std::move(views)), m_text(new QTextBrowser(this))
{
    setObjectName(QStringLiteral("viewHelpDialog"));
    setWindowTitle(tr("What am I looking at?"));
    m_text->setObjectName(QStringLiteral("viewHelpText"));
    m_text->setOpenLinks(false);
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_text);
    layout->addWidget(buttons);
    fitToScreen(this, {560, 460});
    // The page, the scheme and its parameters may change while the dialog is open.
    connect(m_state, &ExplorerState::changed, this, &ViewHelpDialog::refresh);
    refresh();
}

QString ViewHelpDialog::html() const
{
    return m_text->toHtml();
}

void ViewHelpDialog::showView(FigureView view)
{
    m_text->scrollToAnchor(figureViewName(view));
}

FigureView ViewHelpDialog::viewAtTop() const
{
    // The anchor nearest above the viewport's top line.
    const QList<FigureView> views = m_views();
    const QPoint top = m_text->viewport()->rect().topLeft() + QPoint(0, 2);
    FigureView found = views.value(0, FigureView::Heatmap);
    for (FigureView view : views) {
        const QTextCursor cursor = m_text->document()->find(viewHelp(view, *m_state).title);
        if (!cursor.isNull() && m_text->cursorRect(cursor).bottom() >= top.y())
            return view;
        found = view;
    }
    return found;
}

void ViewHelpDialog::refresh()
{
    m_text->setHtml(viewHelpHtml(m_views(), *m_state));
}

} // namespace pe
