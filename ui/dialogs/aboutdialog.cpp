#include "dialogs/aboutdialog.h"

#include "buildinfo.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSvgRenderer>
#include <QVBoxLayout>

namespace pe {

QIcon applicationIcon()
{
    QSvgRenderer small(QStringLiteral(":/icons/pescope-16.svg"));
    QSvgRenderer large(QStringLiteral(":/icons/pescope.svg"));
    QIcon icon;
    for (const int size : {16, 22, 24, 32, 48, 64, 128, 256}) {
        QPixmap pixmap(size, size);
        pixmap.fill(Qt::transparent);
        QPainter painter(&pixmap);
        painter.setRenderHint(QPainter::Antialiasing);
        (size <= 24 ? small : large).render(&painter, QRectF(0, 0, size, size));
        painter.end();
        icon.addPixmap(pixmap);
    }
    return icon;
}

AboutDialog::AboutDialog(QWidget *parent) : QDialog(parent)
{
    setObjectName(QStringLiteral("aboutDialog"));
    setWindowTitle(tr("About pescope"));
    const QString text = buildInfoText();

    auto *icon = new QLabel(this);
    icon->setPixmap(applicationIcon().pixmap(96, 96));
    icon->setAlignment(Qt::AlignTop);
    auto *title = new QLabel(this);
    title->setText(QStringLiteral("<h2>pescope %1</h2><p>%2</p>")
                       .arg(QStringLiteral(PE_VERSION).toHtmlEscaped(),
                            tr("A microscope for transformer positional encodings.")));
    auto *details = new QLabel(this);
    details->setObjectName(QStringLiteral("aboutText"));
    // Everything but the first line, which the title shows.
    details->setText(text.section(QLatin1Char('\n'), 1));
    details->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    QPushButton *copy = buttons->addButton(tr("&Copy"), QDialogButtonBox::ActionRole);
    copy->setObjectName(QStringLiteral("aboutCopyButton"));
    copy->setToolTip(tr("Copy these details, e.g. for a bug report"));
    connect(copy, &QPushButton::clicked, this,
            [text] { QGuiApplication::clipboard()->setText(text); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *texts = new QVBoxLayout;
    texts->addWidget(title);
    texts->addWidget(details);
    texts->addStretch();
    auto *row = new QHBoxLayout;
    row->addWidget(icon);
    row->addSpacing(12);
    row->addLayout(texts, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(row);
    layout->addWidget(buttons);
}

} // namespace pe
