#include "dialogs/modelfiledialog.h"

#include <QAbstractItemView>
#include <QDir>
#include <QFileInfo>
#include <QLineEdit>

namespace pe {

ModelFileDialog::ModelFileDialog(QWidget *parent, const QString &directory)
    : QFileDialog(parent, tr("Open model"), directory,
                  tr("Models (*.json *.safetensors *.gguf *.npy);;All files (*)"))
{
    setObjectName(QStringLiteral("openModelDialog"));
    setFileMode(QFileDialog::ExistingFile);
    setAcceptMode(QFileDialog::AcceptOpen);
    // A native dialog's accept cannot be changed: Qt's own opens folders too.
    setOption(QFileDialog::DontUseNativeDialog);
    setLabelText(QFileDialog::FileName, tr("File or folder:"));
}

bool ModelFileDialog::holdsModel(const QString &folder)
{
    const QDir dir(folder);
    if (dir.dirName().startsWith(QLatin1String("models--")) &&
        QFileInfo(dir.filePath(QStringLiteral("snapshots"))).isDir())
        return true;
    // The names resolveModel looks for (core/formats/hfcache.h).
    return !dir.entryList({QStringLiteral("config.json"), QStringLiteral("*.safetensors"),
                           QStringLiteral("*.safetensors.index.json"), QStringLiteral("*.gguf")},
                          QDir::Files)
                .isEmpty();
}

QString ModelFileDialog::typedPath() const
{
    // Qt's own name for the dialog's file name field.
    const auto *name = findChild<QLineEdit *>(QStringLiteral("fileNameEdit"));
    QString text = name ? name->text().trimmed() : QString();
    if (text.isEmpty())
        return {};
    if (text == QLatin1String("~") || text.startsWith(QLatin1String("~/")))
        text = QDir::homePath() + text.mid(1);
    return QFileInfo(directory(), text).absoluteFilePath();
}

void ModelFileDialog::accept()
{
    // What was typed wins over the list's selection, which can still hold a folder entered
    // before; Qt's selection where the typed text names nothing (its completer may have cut a
    // typed path to the file's name).
    QString target = typedPath();
    if (!QFileInfo::exists(target) && selectedFiles().size() == 1)
        target = selectedFiles().constFirst(); // Qt may have shortened what was typed
    const QFileInfo info(target);
    if (target.isEmpty() || !info.exists()) {
        QFileDialog::accept(); // Qt's own answer: nothing chosen, or no such file
        if (result() == QDialog::Accepted)
            m_chosen = selectedFiles().value(0);
        return;
    }
    if (info.isDir() && !holdsModel(target)) {
        setDirectory(target); // as Qt's file dialog does with a folder
        if (auto *name = findChild<QLineEdit *>(QStringLiteral("fileNameEdit")))
            name->clear();
        // The folder left behind stays selected in Qt's views; with it and a typed name both
        // selected, the Open button would refuse a single file.
        for (const QString &view : {QStringLiteral("listView"), QStringLiteral("treeView")})
            if (auto *items = findChild<QAbstractItemView *>(view);
                items && items->selectionModel())
                items->selectionModel()->clear();
        return;
    }
    m_chosen = info.absoluteFilePath();
    done(QDialog::Accepted); // not QFileDialog::accept(), which would enter a folder
}

} // namespace pe
