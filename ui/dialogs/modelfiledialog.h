// ModelFileDialog: File > Open model's chooser. A model is a file (config.json, .safetensors,
// .gguf, .npy) or a folder that holds one (a Hugging Face model folder, a cache's models--*
// folder). Qt's file dialog in file mode only opens files: a folder typed or chosen and opened
// is entered instead. This one opens a folder that holds a model, and enters any other folder.
#pragma once

#include <QFileDialog>

namespace pe {

class ModelFileDialog : public QFileDialog
{
    Q_OBJECT
public:
    explicit ModelFileDialog(QWidget *parent = nullptr, const QString &directory = QString());

    // The file or folder chosen; empty until the dialog is accepted.
    QString chosenPath() const { return m_chosen; }
    // Whether `folder` holds what resolveModel opens: config.json, .safetensors (or a shard
    // index), .gguf, or a cache's snapshots. Reads the folder's listing, never a file.
    static bool holdsModel(const QString &folder);

public slots:
    void accept() override;

private:
    // The path typed in the file name field, made absolute; empty when none was typed.
    QString typedPath() const;

    QString m_chosen;
};

} // namespace pe
