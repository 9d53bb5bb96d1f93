// The file dialogs pescope opens (sessions, models, figures, data, animations), all made here.
//
// Qt's own file dialog (the one used where the platform offers none, as under Xvfb) guesses each
// listed file's type from its first bytes: QAbstractFileIconProvider::icon() and type() call
// QMimeDatabase::mimeTypeForFile() in MatchDefault mode, which reads up to 16 KiB of every
// regular file, from QFileInfoGatherer::getInfo(), on the UI thread too (QFileSystemModel
// asks for a node's information when the completer or the view reaches it). A file whose read
// never returns hangs the window for good: /proc/kmsg for root, once the kernel log is read.
// The dialogs here use an icon provider that looks at names only (MatchExtension) and never
// opens a file, and their file name field refuses text longer than a path can be, at once and
// with a message (pasting 50,000 characters used to keep the dialog busy through six Escapes).
#pragma once

#include <QFileDialog>
#include <QString>

namespace pe {

namespace limits {
// The longest path the field accepts: Linux's PATH_MAX, in characters.
constexpr int maxPathLength = 4096;
} // namespace limits

// The icon provider and the field limit above, for a dialog made elsewhere (ModelFileDialog);
// call it before the dialog is shown.
void protectFileDialog(QFileDialog *dialog);

// A file dialog as QFileDialog's static functions would make it (native where the platform has
// one), with the provider and the field limit above when it is Qt's own. Not yet shown; the
// caller owns it.
QFileDialog *createFileDialog(QWidget *parent, const QString &caption, const QString &directory,
                              const QString &filter, QFileDialog::AcceptMode mode);

// QFileDialog::getOpenFileName() and getSaveFileName() through createFileDialog(): the chosen
// path, or empty when the dialog was dismissed.
QString openFileName(QWidget *parent, const QString &caption, const QString &directory,
                     const QString &filter);
QString saveFileName(QWidget *parent, const QString &caption, const QString &path,
                     const QString &filter, QString *selectedFilter = nullptr);

} // namespace pe
