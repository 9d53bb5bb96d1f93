#include "dialogs/configpastedialog.h"

#include "formats/modelconfig.h"
#include "model/modelcard.h"
#include "model/modelspec.h"
#include "widgets/screenfit.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QLabel>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <memory>

namespace pe {

namespace {

// Qt 6.4's QWidgetTextControl::insertFromMimeData reads the first of the data's formats without
// checking there is one: a middle-click (X11's primary selection), drop or paste of data with
// no format at all crashed the window (the monkey test, seed 4). Such data has nothing to
// insert; everything else goes to Qt.
class PasteTextEdit : public QPlainTextEdit
{
public:
    using QPlainTextEdit::QPlainTextEdit;

protected:
    bool canInsertFromMimeData(const QMimeData *source) const override
    {
        return source && !source->formats().isEmpty() &&
               QPlainTextEdit::canInsertFromMimeData(source);
    }
    void insertFromMimeData(const QMimeData *source) override
    {
        if (source && !source->formats().isEmpty())
            QPlainTextEdit::insertFromMimeData(source);
    }
};

} // namespace

ConfigPasteDialog::ConfigPasteDialog(ApplyText applyText, QWidget *parent)
    : QDialog(parent), m_applyText(std::move(applyText)), m_text(new PasteTextEdit(this)),
      m_message(new QLabel(this))
{
    setWindowTitle(tr("Paste config.json"));
    setObjectName(QStringLiteral("configPasteDialog"));
    m_text->setObjectName(QStringLiteral("configText"));
    m_text->setPlaceholderText(
        tr("Paste a model's config.json here: rope_parameters (transformers v5) or rope_scaling "
           "with rope_theta, head_dim, partial_rotary_factor, layer_types, ..."));
    m_text->setToolTip(tr("The whole config.json; its first rotary layer becomes the encoding and "
                          "its layer map shows on the Model page (Ctrl+4)"));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont mono = m_text->font();
    mono.setStyleHint(QFont::Monospace);
    mono.setFamily(QStringLiteral("monospace"));
    m_text->setFont(mono);
    m_message->setObjectName(QStringLiteral("configMessage"));
    m_message->setWordWrap(true);
    m_message->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_message->setStyleSheet(QStringLiteral("color: #c0392b"));

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Apply | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Apply)->setDefault(true);
    buttons->button(QDialogButtonBox::Apply)->setToolTip(tr("Read the text (Ctrl+Return)"));
    buttons->button(QDialogButtonBox::Apply)->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return));
    connect(buttons->button(QDialogButtonBox::Apply), &QPushButton::clicked, this,
            &ConfigPasteDialog::apply);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_text, 1);
    layout->addWidget(m_message);
    layout->addWidget(buttons);
    fitToScreen(this, {640, 480});
    prepare();
}

void ConfigPasteDialog::prepare()
{
    m_message->clear();
    const QString clip = QApplication::clipboard()->text();
    if (clip.trimmed().startsWith(QLatin1Char('{')))
        m_text->setPlainText(clip);
}

QString ConfigPasteDialog::message() const
{
    return m_message->text();
}

bool ConfigPasteDialog::apply()
{
    QString error;
    if (!m_applyText(m_text->toPlainText().toUtf8(), &error)) {
        m_message->setText(error);
        return false;
    }
    m_message->clear();
    accept();
    return true;
}

} // namespace pe
