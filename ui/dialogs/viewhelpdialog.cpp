#include "dialogs/viewhelpdialog.h"

#include "dialogs/viewhelp.h"
#include "state/explorerstate.h"
#include "widgets/screenfit.h"

#include <QAbstractTextDocumentLayout>
#include <QDialogButtonBox>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
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

// The top of `view`'s section (its heading), in the document's coordinates; -1 if absent.
qreal ViewHelpDialog::sectionTop(FigureView view) const
{
    const QString title = viewHelp(view, *m_state).title;
    const QTextDocument *document = m_text->document();
    for (QTextBlock block = document->begin(); block.isValid(); block = block.next())
        if (block.blockFormat().headingLevel() > 0 && block.text() == title)
            return document->documentLayout()->blockBoundingRect(block).top();
    return -1;
}

void ViewHelpDialog::showView(FigureView view)
{
    if (const qreal top = sectionTop(view); top >= 0)
        m_text->verticalScrollBar()->setValue(int(top));
}

FigureView ViewHelpDialog::viewAtTop() const
{
    // The last section whose heading starts at or above the text's top line.
    const int scrolled = m_text->verticalScrollBar()->value();
    const QList<FigureView> views = m_views();
    FigureView found = views.value(0, FigureView::Heatmap);
    for (FigureView view : views)
        if (const qreal top = sectionTop(view); top >= 0 && int(top) <= scrolled)
            found = view;
    return found;
}

void ViewHelpDialog::refresh()
{
    m_text->setHtml(viewHelpHtml(m_views(), *m_state));
}

} // namespace pe
