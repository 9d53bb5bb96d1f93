#include "dialogs/filedialog.h"

#include <QFileIconProvider>
#include <QFileInfo>
#include <QLineEdit>
#include <QMimeDatabase>
#include <QPointer>
#include <QToolTip>
#include <QValidator>

namespace pe {

namespace {

// File icons and type names from file names alone. QAbstractFileIconProvider's own icon() and
// type() read the file (see the header); these never open it. Directories and drives keep
// the platform's icons; a FIFO, device or socket is described without being opened.
class NameOnlyIconProvider : public QFileIconProvider
{
public:
    using QFileIconProvider::icon;

    QIcon icon(const QFileInfo &info) const override
    {
        if (info.isRoot())
            return icon(Drive);
        if (info.isDir())
            return icon(Folder);
        if (!info.isFile())
            return icon(File);
        const QMimeType mime = mimeOf(info);
        QIcon themed = QIcon::fromTheme(mime.iconName());
        if (themed.isNull())
            themed = QIcon::fromTheme(mime.genericIconName());
        return themed.isNull() ? icon(File) : themed;
    }

    QString type(const QFileInfo &info) const override
    {
        // The base class opens regular files only; everything else it names from stat().
        if (!info.isFile() || info.isRoot())
            return QFileIconProvider::type(info);
        const QMimeType mime = mimeOf(info);
        return mime.comment().isEmpty() ? mime.name() : mime.comment();
    }

private:
    QMimeType mimeOf(const QFileInfo &info) const
    {
        // The name overload in MatchExtension mode neither stats nor reads the file.
        return m_mime.mimeTypeForFile(info.fileName(), QMimeDatabase::MatchExtension);
    }

    QMimeDatabase m_mime;
};

// One provider for every dialog, for the life of the process: the dialogs' file system models
// use it from their own threads until they are destroyed, and it holds no state.
QAbstractFileIconProvider *nameOnlyIconProvider()
{
    static NameOnlyIconProvider provider;
    return &provider;
}

// Refuses text longer than a path: a paste over the limit leaves the field as it was.
class PathLengthValidator : public QValidator
{
public:
    using QValidator::QValidator;
    State validate(QString &input, int &) const override
    {
        return input.size() > limits::maxPathLength ? Invalid : Acceptable;
    }
};

// The file name field of Qt's own dialog (objectName from Qt's qfiledialog.ui).
void limitFileNameField(QFileDialog *dialog)
{
    auto *field = dialog->findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
    if (!field)
        return;
    field->setValidator(new PathLengthValidator(field));
    // Only the validator rejects input here (the field has no maxLength).
    QObject::connect(field, &QLineEdit::inputRejected, field, [field] {
        QToolTip::showText(field->mapToGlobal(QPoint(0, field->height())),
                           QFileDialog::tr("Not taken: a file name has at most %1 characters")
                               .arg(limits::maxPathLength),
                           field);
    });
}

} // namespace

void protectFileDialog(QFileDialog *dialog)
{
    // Before the dialog lists its first folder on its own thread (Qt's own dialog only; a
    // native one has no model and ignores it).
    dialog->setIconProvider(nameOnlyIconProvider());
    limitFileNameField(dialog);
}

QFileDialog *createFileDialog(QWidget *parent, const QString &caption, const QString &directory,
                              const QString &filter, QFileDialog::AcceptMode mode)
{
    // As QFileDialogArgs does for the static functions: a path to a file opens its folder with
    // the file's name in the field.
    const QFileInfo start(directory);
    const bool isFile = !directory.isEmpty() && !start.isDir() &&
                        (mode == QFileDialog::AcceptSave || start.exists());
    auto *dialog = new QFileDialog(parent, caption, isFile ? start.path() : directory, filter);
    protectFileDialog(dialog);
    dialog->setAcceptMode(mode);
    dialog->setFileMode(mode == QFileDialog::AcceptSave ? QFileDialog::AnyFile
                                                        : QFileDialog::ExistingFile);
    if (isFile)
        dialog->selectFile(start.fileName());
    return dialog;
}

namespace {

// Runs `dialog` modally and deletes it; the chosen path, or empty. Should its parent go away
// during exec() (the window closed under it), the parent has deleted it: nothing was chosen.
QString runFileDialog(QFileDialog *created, QString *selectedFilter)
{
    const QPointer<QFileDialog> dialog(created);
    const bool accepted = dialog->exec() == QDialog::Accepted;
    if (!dialog)
        return {};
    QString chosen;
    if (accepted) {
        chosen = dialog->selectedFiles().value(0);
        if (selectedFilter)
            *selectedFilter = dialog->selectedNameFilter();
    }
    delete dialog.data();
    return chosen;
}

} // namespace

QString openFileName(QWidget *parent, const QString &caption, const QString &directory,
                     const QString &filter)
{
    return runFileDialog(
        createFileDialog(parent, caption, directory, filter, QFileDialog::AcceptOpen), nullptr);
}

QString saveFileName(QWidget *parent, const QString &caption, const QString &path,
                     const QString &filter, QString *selectedFilter)
{
    QFileDialog *dialog = createFileDialog(parent, caption, path, filter, QFileDialog::AcceptSave);
    if (selectedFilter && !selectedFilter->isEmpty())
        dialog->selectNameFilter(*selectedFilter);
    return runFileDialog(dialog, selectedFilter);
}

} // namespace pe
