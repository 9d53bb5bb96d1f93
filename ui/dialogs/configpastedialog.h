// ConfigPasteDialog: File > Paste config.json. A model's config.json pasted as text (from the hub's
// web page, a colleague's message) sets the window's encoding as opening that file would: its
// first rotary layer's RoPE with every rope_parameters / rope_scaling field, and its layer map and
// card on the Model page. Bad JSON or an unknown rope type: one message in the dialog, state kept.
#pragma once

#include <QByteArrayView>
#include <QDialog>

#include <functional>

class QLabel;
class QPlainTextEdit;

namespace pe {

class ConfigPasteDialog : public QDialog
{
    Q_OBJECT
public:
    // `applyText` shows a config.json's text in the window (applyModelConfigText, fileactions.h):
    // false with *error naming what is wrong, the window's state then unchanged.
    using ApplyText = std::function<bool(QByteArrayView text, QString *error)>;
    ConfigPasteDialog(ApplyText applyText, QWidget *parent);

    QPlainTextEdit *editor() const { return m_text; }
    QString message() const;
    // Before each showing: no old message; the clipboard's text when it looks like JSON (most
    // users copied it a moment ago), else the text left from last time.
    void prepare();
    // Applies the text; on success the dialog closes, else it shows why and stays open.
    bool apply();

private:
    ApplyText m_applyText;
    QPlainTextEdit *m_text;
    QLabel *m_message;
};

} // namespace pe
